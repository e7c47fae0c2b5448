//! Who a policy is for: what its callers may do, the one value of a key
//! field a scoped caller is limited to, and the `dynamodb:LeadingKeys`
//! patterns that limit a statement to that value's partitions.

use ddb_runtime::model::{Part, Template};

/// What an entity's callers may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// GetItem, Query, BatchGetItem (transactions' gets included),
    /// ConditionCheckItem (a transaction's check of the item), and Scan for
    /// an entity declared with `#[ddb(scan)]` (unscoped only).
    Read,
    /// Read, plus PutItem, UpdateItem, DeleteItem and BatchWriteItem.
    ReadWrite,
}

/// A caller allowed only the partitions of one value of a key field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The Rust field name (`"customer_id"`).
    pub field: &'static str,
    /// What stands for the field in the partition key.
    pub value: ScopeValue,
}

/// The value a scope gives its field: a policy variable IAM substitutes
/// per request, or a fixed value.
///
/// From text, a value that is one policy variable (`${aws:PrincipalTag/customer_id}`)
/// is a [`Variable`](ScopeValue::Variable); any other is a
/// [`Literal`](ScopeValue::Literal), which matches only itself:
///
/// ```
/// use ddb_tools::iam::ScopeValue;
/// assert_eq!(
///     ScopeValue::from("${aws:PrincipalTag/customer_id}"),
///     ScopeValue::Variable("aws:PrincipalTag/customer_id".into())
/// );
/// assert_eq!(ScopeValue::from("12*3"), ScopeValue::Literal("12*3".into()));
/// assert_eq!(ScopeValue::Literal("12*3?".into()).pattern(), "12${*}3${?}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeValue {
    /// A policy variable, without its `${` `}`: `aws:PrincipalTag/customer_id`.
    Variable(String),
    /// The field's value as its key text. A string field's value is
    /// stored escaped inside a template with more than the field
    /// (`CUSTOMER#{customer_id}`), and as it is when the template is the
    /// field alone (`{customer_id}`): the pattern follows the template. For
    /// a field of another key type, give its key text (inside a template, a
    /// `u64` is 20 digits, zero-padded: `00000000000000000012`).
    Literal(String),
}

impl ScopeValue {
    /// The value as a `StringLike` pattern inside a template with more than
    /// the field: a variable as `${...}`, a literal escaped as a key segment
    /// stores text, and IAM's `*`, `?` and `$` written `${*}`, `${?}`,
    /// `${$}`, so that it matches only itself. (A partition key that is the
    /// field alone stores the value unescaped, and its policy writes it so.)
    pub fn pattern(&self) -> String {
        self.pattern_as(true)
    }

    /// The pattern of the value in a key that stores it `escaped` (a
    /// segment of a template) or as it is (a template of the field alone).
    pub(super) fn pattern_as(&self, escaped: bool) -> String {
        match self {
            ScopeValue::Variable(name) => format!("${{{name}}}"),
            ScopeValue::Literal(value) => {
                let mut key_text = String::new();
                if escaped {
                    ddb_runtime::__private::tools::escape_into(value, &mut key_text);
                } else {
                    key_text.push_str(value);
                }
                let mut pattern = String::new();
                push_literal(&key_text, &mut pattern);
                pattern
            }
        }
    }
}

impl From<&str> for ScopeValue {
    fn from(value: &str) -> Self {
        let variable = value
            .strip_prefix("${")
            .and_then(|rest| rest.strip_suffix('}'))
            .filter(|name| !name.is_empty() && !name.contains(['$', '{', '}']));
        match variable {
            Some(name) => ScopeValue::Variable(name.to_owned()),
            None => ScopeValue::Literal(value.to_owned()),
        }
    }
}

impl From<String> for ScopeValue {
    fn from(value: String) -> Self {
        ScopeValue::from(value.as_str())
    }
}

/// The `dynamodb:LeadingKeys` pattern of a partition key template for a
/// caller scoped to one field: the template's literal text escaped for
/// IAM (`*`, `?` and `$` as `${*}`, `${?}`, `${$}`), the field replaced by
/// the scope's value (as given: a policy variable, or a value in ddb's key
/// text, escaped as a segment unless the template is the field alone, whose
/// key stores the value as it is), any other field by `*`; `None` when the
/// template does not hold the field. The other fields, matched by `*`, are
/// returned too.
pub(super) fn leading_key(
    template: &Template,
    scope: &Scope,
) -> Option<(String, Vec<&'static str>)> {
    if let [Part::Field(field)] = template.parts {
        return (*field == scope.field).then(|| (scope.value.pattern_as(false), Vec::new()));
    }
    let mut holds = false;
    let mut others = Vec::new();
    let mut pattern = String::new();
    for part in template.parts {
        match part {
            Part::Literal(text) => push_literal(text, &mut pattern),
            Part::Field(field) if *field == scope.field => {
                holds = true;
                pattern.push_str(&scope.value.pattern());
            }
            Part::Field(field) => {
                others.push(*field);
                pattern.push('*');
            }
        }
    }
    holds.then_some((pattern, others))
}

/// The pattern of a partition key template with every field a wildcard:
/// the keys of every value.
pub(super) fn any_key(template: &Template) -> String {
    let mut pattern = String::new();
    for part in template.parts {
        match part {
            Part::Literal(text) => push_literal(text, &mut pattern),
            Part::Field(_) => pattern.push('*'),
        }
    }
    pattern
}

/// Appends `text` to a `StringLike` pattern as literal text: IAM's `*`,
/// `?` and `$` as `${*}`, `${?}`, `${$}`.
pub(super) fn push_literal(text: &str, pattern: &mut String) {
    for c in text.chars() {
        match c {
            '*' | '?' | '$' => {
                pattern.push_str("${");
                pattern.push(c);
                pattern.push('}');
            }
            c => pattern.push(c),
        }
    }
}
