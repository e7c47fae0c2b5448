//! A dry run: the requests a call would send, built by the same code that
//! sends them, and a reading of them that never prints a sensitive value.

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::operation::{
    batch_get_item::BatchGetItemInput, batch_write_item::BatchWriteItemInput,
    delete_item::DeleteItemInput, get_item::GetItemInput, put_item::PutItemInput,
    query::QueryInput, scan::ScanInput, search_vectors::SearchVectorsInput,
    transact_get_items::TransactGetItemsInput, transact_write_items::TransactWriteItemsInput,
    update_item::UpdateItemInput,
};
use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::EntitySchema;

/// One request a call would send: the SDK's own input, exactly as ddb would
/// send it. Its `Debug` resolves placeholders but prints no value (without
/// its [`DryRun`], no attribute is known not to be sensitive): print the
/// `DryRun` to see the values that may be shown.
///
/// # Example
///
/// ```no_run
/// # use ddb_runtime::dry_run::Request;
/// # fn demo(request: &Request) {
/// if let Request::QueryInput(input) = request {
///     println!("{:?}", input.key_condition_expression());
/// }
/// # }
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum Request {
    /// A Query.
    QueryInput(QueryInput),
    /// A Scan.
    ScanInput(ScanInput),
    /// A GetItem.
    GetItemInput(GetItemInput),
    /// A PutItem.
    PutItemInput(PutItemInput),
    /// An UpdateItem.
    UpdateItemInput(UpdateItemInput),
    /// A DeleteItem.
    DeleteItemInput(DeleteItemInput),
    /// A BatchGetItem.
    BatchGetItemInput(BatchGetItemInput),
    /// A BatchWriteItem.
    BatchWriteItemInput(BatchWriteItemInput),
    /// A TransactGetItems.
    TransactGetItemsInput(TransactGetItemsInput),
    /// A TransactWriteItems.
    TransactWriteItemsInput(TransactWriteItemsInput),
    /// A SearchVectors.
    SearchVectorsInput(SearchVectorsInput),
}

impl Request {
    /// DynamoDB's name of the operation (`"Query"`, `"PutItem"`, ...).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(request: &ddb_runtime::dry_run::Request) {
    /// assert_eq!(request.operation(), "Query");
    /// # }
    /// ```
    pub fn operation(&self) -> &'static str {
        match self {
            Self::QueryInput(_) => "Query",
            Self::ScanInput(_) => "Scan",
            Self::GetItemInput(_) => "GetItem",
            Self::PutItemInput(_) => "PutItem",
            Self::UpdateItemInput(_) => "UpdateItem",
            Self::DeleteItemInput(_) => "DeleteItem",
            Self::BatchGetItemInput(_) => "BatchGetItem",
            Self::BatchWriteItemInput(_) => "BatchWriteItem",
            Self::TransactGetItemsInput(_) => "TransactGetItems",
            Self::TransactWriteItemsInput(_) => "TransactWriteItems",
            Self::SearchVectorsInput(_) => "SearchVectors",
        }
    }
}

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

type Names = HashMap<String, String>;
type Values = HashMap<String, AttributeValue>;

/// Writes a reading of requests into `out`.
struct Reading<'a, 'b> {
    out: &'a mut fmt::Formatter<'b>,
    /// `None` when unknown: every value is then redacted.
    sensitive: Option<&'a [&'static str]>,
}

impl Reading<'_, '_> {
    fn request(&mut self, request: &Request) -> fmt::Result {
        writeln!(self.out, "{}", request.operation())?;
        match request {
            Request::QueryInput(q) => {
                let (n, v) = (
                    q.expression_attribute_names(),
                    q.expression_attribute_values(),
                );
                self.text("TableName", q.table_name())?;
                self.text("IndexName", q.index_name())?;
                self.expr("KeyConditionExpression", q.key_condition_expression(), n, v)?;
                self.expr("FilterExpression", q.filter_expression(), n, v)?;
                self.expr("ProjectionExpression", q.projection_expression(), n, v)?;
                self.shown("Select", q.select().map(|s| s.as_str()))?;
                self.shown("ScanIndexForward", q.scan_index_forward())?;
                self.shown("ConsistentRead", q.consistent_read())?;
                self.shown("Limit", q.limit())?;
                self.item("ExclusiveStartKey", q.exclusive_start_key())?;
                self.shown(
                    "ReturnConsumedCapacity",
                    q.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::ScanInput(s) => {
                let (n, v) = (
                    s.expression_attribute_names(),
                    s.expression_attribute_values(),
                );
                self.text("TableName", s.table_name())?;
                self.text("IndexName", s.index_name())?;
                self.expr("FilterExpression", s.filter_expression(), n, v)?;
                self.expr("ProjectionExpression", s.projection_expression(), n, v)?;
                self.shown("Segment", s.segment())?;
                self.shown("TotalSegments", s.total_segments())?;
                self.shown("ConsistentRead", s.consistent_read())?;
                self.shown("Limit", s.limit())?;
                self.item("ExclusiveStartKey", s.exclusive_start_key())?;
                self.shown(
                    "ReturnConsumedCapacity",
                    s.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::GetItemInput(g) => {
                let n = g.expression_attribute_names();
                self.text("TableName", g.table_name())?;
                self.item("Key", g.key())?;
                self.expr("ProjectionExpression", g.projection_expression(), n, None)?;
                self.shown("ConsistentRead", g.consistent_read())?;
                self.shown(
                    "ReturnConsumedCapacity",
                    g.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::PutItemInput(p) => {
                let (n, v) = (
                    p.expression_attribute_names(),
                    p.expression_attribute_values(),
                );
                self.text("TableName", p.table_name())?;
                self.item("Item", p.item())?;
                self.expr("ConditionExpression", p.condition_expression(), n, v)?;
                self.shown("ReturnValues", p.return_values().map(|r| r.as_str()))?;
                self.shown(
                    "ReturnValuesOnConditionCheckFailure",
                    p.return_values_on_condition_check_failure()
                        .map(|r| r.as_str()),
                )?;
                self.shown(
                    "ReturnConsumedCapacity",
                    p.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::UpdateItemInput(u) => {
                let (n, v) = (
                    u.expression_attribute_names(),
                    u.expression_attribute_values(),
                );
                self.text("TableName", u.table_name())?;
                self.item("Key", u.key())?;
                self.expr("UpdateExpression", u.update_expression(), n, v)?;
                self.expr("ConditionExpression", u.condition_expression(), n, v)?;
                self.shown("ReturnValues", u.return_values().map(|r| r.as_str()))?;
                self.shown(
                    "ReturnValuesOnConditionCheckFailure",
                    u.return_values_on_condition_check_failure()
                        .map(|r| r.as_str()),
                )?;
                self.shown(
                    "ReturnConsumedCapacity",
                    u.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::DeleteItemInput(d) => {
                let (n, v) = (
                    d.expression_attribute_names(),
                    d.expression_attribute_values(),
                );
                self.text("TableName", d.table_name())?;
                self.item("Key", d.key())?;
                self.expr("ConditionExpression", d.condition_expression(), n, v)?;
                self.shown("ReturnValues", d.return_values().map(|r| r.as_str()))?;
                self.shown(
                    "ReturnValuesOnConditionCheckFailure",
                    d.return_values_on_condition_check_failure()
                        .map(|r| r.as_str()),
                )?;
                self.shown(
                    "ReturnConsumedCapacity",
                    d.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::BatchGetItemInput(b) => {
                let mut tables: Vec<_> = b.request_items().into_iter().flatten().collect();
                tables.sort_by(|a, b| a.0.cmp(b.0));
                for (table, keys) in tables {
                    writeln!(self.out, "  RequestItems[{table}]")?;
                    for key in keys.keys() {
                        self.item("  Key", Some(key))?;
                    }
                    let n = keys.expression_attribute_names();
                    self.expr(
                        "  ProjectionExpression",
                        keys.projection_expression(),
                        n,
                        None,
                    )?;
                    self.shown("  ConsistentRead", keys.consistent_read())?;
                }
                self.shown(
                    "ReturnConsumedCapacity",
                    b.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::BatchWriteItemInput(b) => {
                let mut tables: Vec<_> = b.request_items().into_iter().flatten().collect();
                tables.sort_by(|a, b| a.0.cmp(b.0));
                for (table, writes) in tables {
                    writeln!(self.out, "  RequestItems[{table}]")?;
                    for write in writes {
                        if let Some(put) = write.put_request() {
                            self.item("  PutRequest.Item", Some(put.item()))?;
                        }
                        if let Some(delete) = write.delete_request() {
                            self.item("  DeleteRequest.Key", Some(delete.key()))?;
                        }
                    }
                }
                self.shown(
                    "ReturnConsumedCapacity",
                    b.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::TransactGetItemsInput(t) => {
                for get in t.transact_items().iter().filter_map(|i| i.get()) {
                    writeln!(self.out, "  Get")?;
                    self.text("  TableName", Some(get.table_name()))?;
                    self.item("  Key", Some(get.key()))?;
                    let n = get.expression_attribute_names();
                    self.expr(
                        "  ProjectionExpression",
                        get.projection_expression(),
                        n,
                        None,
                    )?;
                }
                self.shown(
                    "ReturnConsumedCapacity",
                    t.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::TransactWriteItemsInput(t) => {
                for action in t.transact_items() {
                    self.transact_action(action)?;
                }
                self.text("ClientRequestToken", t.client_request_token())?;
                self.shown(
                    "ReturnConsumedCapacity",
                    t.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
            Request::SearchVectorsInput(s) => {
                let (n, v) = (
                    s.expression_attribute_names(),
                    s.expression_attribute_values(),
                );
                self.text("TableName", s.table_name())?;
                self.text("IndexName", s.index_name())?;
                writeln!(
                    self.out,
                    "  SearchVector: <{} dimensions>",
                    s.search_vector().len()
                )?;
                self.shown("TopK", s.top_k())?;
                let condition = s.search_condition_expression();
                self.expr("SearchConditionExpression", condition, n, v)?;
                self.expr("ProjectionExpression", s.projection_expression(), n, v)?;
                self.shown(
                    "ReturnConsumedCapacity",
                    s.return_consumed_capacity().map(|c| c.as_str()),
                )
            }
        }
    }

    fn transact_action(
        &mut self,
        action: &aws_sdk_dynamodb::types::TransactWriteItem,
    ) -> fmt::Result {
        if let Some(p) = action.put() {
            let (n, v) = (
                p.expression_attribute_names(),
                p.expression_attribute_values(),
            );
            writeln!(self.out, "  Put")?;
            self.text("  TableName", Some(p.table_name()))?;
            self.item("  Item", Some(p.item()))?;
            self.expr("  ConditionExpression", p.condition_expression(), n, v)?;
        }
        if let Some(u) = action.update() {
            let (n, v) = (
                u.expression_attribute_names(),
                u.expression_attribute_values(),
            );
            writeln!(self.out, "  Update")?;
            self.text("  TableName", Some(u.table_name()))?;
            self.item("  Key", Some(u.key()))?;
            self.expr("  UpdateExpression", Some(u.update_expression()), n, v)?;
            self.expr("  ConditionExpression", u.condition_expression(), n, v)?;
        }
        if let Some(d) = action.delete() {
            let (n, v) = (
                d.expression_attribute_names(),
                d.expression_attribute_values(),
            );
            writeln!(self.out, "  Delete")?;
            self.text("  TableName", Some(d.table_name()))?;
            self.item("  Key", Some(d.key()))?;
            self.expr("  ConditionExpression", d.condition_expression(), n, v)?;
        }
        if let Some(c) = action.condition_check() {
            let (n, v) = (
                c.expression_attribute_names(),
                c.expression_attribute_values(),
            );
            writeln!(self.out, "  ConditionCheck")?;
            self.text("  TableName", Some(c.table_name()))?;
            self.item("  Key", Some(c.key()))?;
            self.expr(
                "  ConditionExpression",
                Some(c.condition_expression()),
                n,
                v,
            )?;
        }
        Ok(())
    }

    fn text(&mut self, label: &str, text: Option<&str>) -> fmt::Result {
        match text {
            Some(text) => writeln!(self.out, "  {label}: {text}"),
            None => Ok(()),
        }
    }

    fn shown(&mut self, label: &str, value: Option<impl fmt::Display>) -> fmt::Result {
        match value {
            Some(value) => writeln!(self.out, "  {label}: {value}"),
            None => Ok(()),
        }
    }

    /// A sensitive attribute, or an idempotency guard's fingerprint (a hash
    /// of the whole item: printed beside the other attributes, it would let
    /// a reader confirm a guessed sensitive value).
    fn is_sensitive(&self, attribute: &str) -> bool {
        attribute == crate::keys::guard::FINGERPRINT || redacts(self.sensitive, attribute)
    }

    /// An item or key, each sensitive attribute's value redacted.
    fn item(&mut self, label: &str, item: Option<&HashMap<String, AttributeValue>>) -> fmt::Result {
        let Some(item) = item else { return Ok(()) };
        let mut attributes: Vec<_> = item.iter().collect();
        attributes.sort_by(|a, b| a.0.cmp(b.0));
        write!(self.out, "  {label}: {{")?;
        for (i, (name, value)) in attributes.into_iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            if self.sensitive.is_none() {
                write!(self.out, "{sep}{name}: <value>")?;
            } else if self.is_sensitive(name) {
                write!(self.out, "{sep}{name}: <sensitive>")?;
            } else {
                write!(self.out, "{sep}{name}: {}", Compact(value))?;
            }
        }
        writeln!(self.out, " }}")
    }

    /// An expression, its placeholders resolved.
    fn expr(
        &mut self,
        label: &str,
        text: Option<&str>,
        names: Option<&Names>,
        values: Option<&Values>,
    ) -> fmt::Result {
        let Some(text) = text else { return Ok(()) };
        let resolved = resolve(text, names, values, self.sensitive);
        writeln!(self.out, "  {label}: {resolved}")
    }
}

/// Whether the value of `attribute` is redacted: a sensitive attribute,
/// or any attribute when the sensitive ones are not known.
fn redacts(sensitive: Option<&[&str]>, attribute: &str) -> bool {
    sensitive.is_none_or(|s| s.contains(&attribute))
}

/// Words that are never an attribute name in the expressions ddb writes.
const KEYWORDS: &[&str] = &[
    "AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE",
];

/// `text` with every `#name` replaced by its attribute name and every
/// `:value` by its value, written compactly, or `<sensitive>` when it
/// belongs to a sensitive attribute (the attribute named last before it),
/// or `<value>` when no attribute precedes it.
pub(crate) fn resolve(
    text: &str,
    names: Option<&Names>,
    values: Option<&Values>,
    sensitive: Option<&[&str]>,
) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '#' || c == ':';
    let mut out = String::with_capacity(text.len());
    // The root of the attribute path named last, if any.
    let mut last: Option<String> = None;
    // The previous non-blank character: a `.` makes the next word a
    // segment of the path, not its root.
    let mut previous = ' ';
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !is_word(c) {
            out.push(c);
            if !c.is_whitespace() {
                previous = c;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| !is_word(c) || c == '#' || c == ':')
            .map_or(rest.len(), |(i, _)| i);
        let word = &rest[..end];
        rest = &rest[end..];
        let function = rest.trim_start().starts_with('(');
        if word.starts_with(':') {
            match (values.and_then(|v| v.get(word)), &last) {
                (None, _) => out.push_str(word),
                (Some(value), Some(name)) if !redacts(sensitive, name) => {
                    out.push_str(&Compact(value).to_string())
                }
                (Some(_), Some(_)) if sensitive.is_none() => out.push_str("<value>"),
                (Some(_), Some(_)) => out.push_str("<sensitive>"),
                (Some(_), None) => out.push_str("<value>"),
            }
        } else {
            let name = if word.starts_with('#') {
                names.and_then(|n| n.get(word)).map_or(word, String::as_str)
            } else {
                word
            };
            out.push_str(name);
            let keyword = KEYWORDS.contains(&word.to_ascii_uppercase().as_str());
            if !function && !keyword && previous != '.' && previous != '[' {
                last = Some(name.to_owned());
            }
        }
        previous = 'a';
    }
    out
}

/// A value written compactly: strings quoted, numbers bare, sets as
/// `<<..>>`, binary as a byte count.
struct Compact<'a>(&'a AttributeValue);

impl fmt::Display for Compact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T>(
            f: &mut fmt::Formatter<'_>,
            (open, close): (&str, &str),
            items: &[T],
            each: impl Fn(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
        ) -> fmt::Result {
            f.write_str(open)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                each(f, item)?;
            }
            f.write_str(close)
        }
        match self.0 {
            AttributeValue::S(s) => write!(f, "{s:?}"),
            AttributeValue::N(n) => f.write_str(n),
            AttributeValue::B(b) => write!(f, "<{} bytes>", b.as_ref().len()),
            AttributeValue::Bool(b) => write!(f, "{b}"),
            AttributeValue::Null(_) => f.write_str("null"),
            AttributeValue::L(items) => {
                list(f, ("[", "]"), items, |f, v| write!(f, "{}", Compact(v)))
            }
            AttributeValue::M(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                list(f, ("{", "}"), &entries, |f, (k, v)| {
                    write!(f, "{k}: {}", Compact(v))
                })
            }
            AttributeValue::Ss(items) => list(f, ("<<", ">>"), items, |f, s| write!(f, "{s:?}")),
            AttributeValue::Ns(items) => list(f, ("<<", ">>"), items, |f, n| f.write_str(n)),
            AttributeValue::Bs(items) => list(f, ("<<", ">>"), items, |f, b| {
                write!(f, "<{} bytes>", b.as_ref().len())
            }),
            _ => f.write_str("<value>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maps(names: &[(&str, &str)], values: &[(&str, AttributeValue)]) -> (Names, Values) {
        let names = names
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let values = values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        (names, values)
    }

    #[test]
    fn placeholders_resolve_and_sensitive_values_are_redacted() {
        let (n, v) = maps(
            &[("#n0", "email"), ("#n1", "status")],
            &[
                (":v0", AttributeValue::S("a@b.c".into())),
                (":v1", AttributeValue::S("OPEN".into())),
                (":v2", AttributeValue::N("3".into())),
            ],
        );
        let text = "#n0 = :v0 AND #n1 = :v1 AND size(#n0) > :v2";
        let read = resolve(text, Some(&n), Some(&v), Some(&["email"]));
        assert_eq!(
            read,
            "email = <sensitive> AND status = \"OPEN\" AND size(email) > <sensitive>"
        );
    }

    #[test]
    fn a_value_follows_the_root_of_its_path_and_functions_are_not_attributes() {
        let (n, v) = maps(
            &[("#n0", "email"), ("#n1", "tags")],
            &[
                (":v0", AttributeValue::S("x".into())),
                (
                    ":v1",
                    AttributeValue::L(vec![AttributeValue::S("y".into())]),
                ),
                (":v2", AttributeValue::N("1".into())),
            ],
        );
        let text = "SET #n0.inner[0] = :v0, #n1 = list_append(#n1, :v1) ADD version :v2";
        let read = resolve(text, Some(&n), Some(&v), Some(&["email"]));
        assert_eq!(
            read,
            "SET email.inner[0] = <sensitive>, tags = list_append(tags, [\"y\"]) ADD version 1"
        );
    }

    #[test]
    fn a_value_with_no_attribute_before_it_is_not_printed() {
        let (n, v) = maps(&[], &[(":v0", AttributeValue::S("secret".into()))]);
        assert_eq!(
            resolve(":v0 = x", Some(&n), Some(&v), Some(&[])),
            "<value> = x"
        );
    }

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

    #[test]
    fn values_are_written_compactly() {
        let b = AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![1, 2, 3]));
        assert_eq!(Compact(&b).to_string(), "<3 bytes>");
        let ss = AttributeValue::Ss(vec!["a".into(), "b".into()]);
        assert_eq!(Compact(&ss).to_string(), "<<\"a\", \"b\">>");
        let m = AttributeValue::M(
            [("k".to_owned(), AttributeValue::N("1".into()))]
                .into_iter()
                .collect(),
        );
        assert_eq!(Compact(&m).to_string(), "{k: 1}");
    }
}
