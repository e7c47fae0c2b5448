//! A dry run: the requests a call would send, built by the same code that
//! sends them, and a reading of them that never prints a sensitive value.

mod print;
mod request;
mod resolve;

use std::fmt;

use crate::declaration::model::EntitySchema;

use print::Reading;
pub use request::Request;

/// The requests a call would send first, in order, without sending
/// anything: what `.dry_run()` on every ddb request returns.
///
/// [`requests`](Self::requests) gives the SDK's inputs exactly, for
/// programmatic use. `Display` (and `Debug`) print a reading of them: every
/// `#n`/`:v` placeholder resolved to its attribute name or value, and every
/// value of a `#[ddb(sensitive)]` attribute written `<sensitive>` (in items
/// and keys by attribute name; in expressions, the value compared with,
/// set to or added to a sensitive attribute). A value whose attribute
/// cannot be told is written `<value>`.
///
/// A call that reads before it writes (an update that recomputes an index
/// key from attributes it does not set, a write that keeps unique values,
/// [`Db::modify`](crate::Db::modify)) cannot know its write before the
/// read: its dry run is the read it sends first, and
/// [`reads_first`](Self::reads_first) says so.
///
/// # Example
///
/// ```no_run
/// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, key: ddb_runtime::Key<E>) -> ddb_runtime::Result<()> {
/// let dry = db.get(key).dry_run()?;
/// println!("{dry}"); // GetItem, its table and key, values shown compactly
/// assert_eq!(dry.operation(), Some("GetItem"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct DryRun {
    requests: Vec<Request>,
    sensitive: Vec<&'static str>,
    reads_first: bool,
}

impl DryRun {
    /// A dry run of `requests` on entities whose sensitive attributes are
    /// `sensitive`.
    pub(crate) fn new(requests: Vec<Request>, sensitive: Vec<&'static str>) -> Self {
        Self {
            requests,
            sensitive,
            reads_first: false,
        }
    }

    /// The dry run of a call that reads before it writes.
    pub(crate) fn reading_first(mut self) -> Self {
        self.reads_first = true;
        self
    }

    /// The requests, in the order they would be sent: none when the call
    /// sends nothing (a query whose sort range is empty, a cursor at the
    /// end).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(dry: ddb_runtime::DryRun) {
    /// for request in dry.requests() {
    ///     println!("{}", request.operation());
    /// }
    /// # }
    /// ```
    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    /// The requests, moved out.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(dry: ddb_runtime::DryRun) {
    /// let requests: Vec<ddb_runtime::dry_run::Request> = dry.into_requests();
    /// # }
    /// ```
    pub fn into_requests(self) -> Vec<Request> {
        self.requests
    }

    /// The first request: the one a call sends first (`None` when it sends
    /// nothing).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(dry: ddb_runtime::DryRun) {
    /// use ddb_runtime::dry_run::Request;
    /// if let Some(Request::PutItemInput(put)) = dry.input() {
    ///     assert_eq!(put.condition_expression(), Some("attribute_not_exists(PK)"));
    /// }
    /// # }
    /// ```
    pub fn input(&self) -> Option<&Request> {
        self.requests.first()
    }

    /// The operation of the first request (`"Query"`, `"PutItem"`, ...),
    /// `None` when the call sends nothing.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(dry: ddb_runtime::DryRun) {
    /// assert_eq!(dry.operation(), Some("PutItem"));
    /// # }
    /// ```
    pub fn operation(&self) -> Option<&'static str> {
        self.input().map(Request::operation)
    }

    /// Whether the call reads before it writes: the requests are then the
    /// read, and the write depends on what it finds.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(dry: ddb_runtime::DryRun) {
    /// if dry.reads_first() {
    ///     assert_eq!(dry.operation(), Some("GetItem"));
    /// }
    /// # }
    /// ```
    pub fn reads_first(&self) -> bool {
        self.reads_first
    }

    /// The attributes whose values are never printed.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(dry: ddb_runtime::DryRun) {
    /// assert!(dry.sensitive_attributes().contains(&"email"));
    /// # }
    /// ```
    pub fn sensitive_attributes(&self) -> &[&'static str] {
        &self.sensitive
    }
}

/// The attributes of `schema`'s `#[ddb(sensitive)]` fields.
pub(crate) fn sensitive_attributes(schema: &EntitySchema) -> impl Iterator<Item = &'static str> {
    schema
        .fields
        .iter()
        .filter(|f| f.role.sensitive)
        .map(|f| f.attribute)
}

impl fmt::Display for DryRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reads_first {
            writeln!(f, "(reads first; the write depends on what the read finds)")?;
        }
        if self.requests.is_empty() {
            writeln!(f, "(nothing is sent)")?;
        }
        for (i, request) in self.requests.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            Reading {
                out: f,
                sensitive: Some(&self.sensitive),
            }
            .request(request)?;
        }
        Ok(())
    }
}

impl fmt::Debug for DryRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DryRun {{\n{self}}}")
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Without the entity, no attribute is known to be safe: every value
        // is redacted.
        Reading {
            out: f,
            sensitive: None,
        }
        .request(self)
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::operation::put_item::PutItemInput;
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::Request;

    #[test]
    fn a_request_alone_prints_no_value() {
        let secret = AttributeValue::S("a@b.c".into());
        let input = PutItemInput::builder()
            .table_name("T")
            .item("email", secret.clone())
            .condition_expression("#n0 <> :v0")
            .expression_attribute_names("#n0", "email")
            .expression_attribute_values(":v0", secret)
            .build()
            .unwrap();
        let shown = format!("{:?}", Request::PutItemInput(input));
        assert!(!shown.contains("a@b.c"), "{shown}");
        assert!(shown.contains("email <> <value>"), "{shown}");
        assert!(shown.contains("email: <value>"), "{shown}");
    }
}
