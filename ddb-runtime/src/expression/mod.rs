//! Conditions over an entity's attributes, for filters and conditional writes.
//!
//! Every value goes through an expression placeholder (`:v0`), so no value
//! is ever spliced into the expression text. An attribute name is written as
//! it is when DynamoDB reads it as a plain name (`PK`), and through a
//! placeholder (`#n0`) otherwise, so reserved words such as `status` or
//! `name` just work.

use crate::error::Error;

use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

mod names;
mod placeholders;
mod render;
mod reserved;
#[cfg(test)]
mod tests;

pub(crate) use names::names_resolved;
pub use placeholders::EXPRESSION_LIMIT;
pub(crate) use placeholders::{NameMap, Placeholders, ValueMap};
use render::{expired, render, Node};
pub(crate) use render::{Conjunction, Expression};

/// A condition on the attributes of entity `E`: a filter on a query, or the
/// condition of a write. Combine with `&`, `|` and `!`.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
/// # struct Order { customer_id: String, order_id: String, status: String, total_cents: u64 }
/// let fields = Order::fields();
/// let big_and_open = fields.total_cents.gt(10_000) & fields.status.eq("OPEN");
/// // Debug shows the shape, never the values.
/// assert_eq!(format!("{big_and_open:?}"), "Condition(total_cents > :v0 AND status = :v1)");
/// ```
pub struct Condition<E> {
    node: Node,
    entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Condition<E> {
    fn clone(&self) -> Self {
        Self::new(self.node.clone())
    }
}

impl<E> fmt::Debug for Condition<E> {
    /// Shows the shape of the condition, never the values (which may be
    /// personal data).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut placeholders = Placeholders::default();
        match self.render(&mut placeholders) {
            Ok(text) => {
                let mut text = text;
                // Longest placeholders first: `#n1` is part of `#n10`.
                let mut names: Vec<_> = placeholders.names.iter().collect();
                names.sort_by_key(|(placeholder, _)| std::cmp::Reverse(placeholder.len()));
                for (placeholder, name) in names {
                    text = text.replace(placeholder.as_str(), name);
                }
                write!(f, "Condition({text})")
            }
            Err(error) => write!(f, "Condition(invalid: {error})"),
        }
    }
}

impl<E> Condition<E> {
    fn new(node: Node) -> Self {
        Self {
            node,
            entity: PhantomData,
        }
    }

    pub(crate) fn compare_value(
        name: &'static str,
        op: &'static str,
        value: AttributeValue,
    ) -> Self {
        Self::new(Node::Compare(name, op, value))
    }

    pub(crate) fn attribute_is_number(name: &'static str) -> Self {
        Self::new(Node::Type(name, "N"))
    }

    /// The item's time to live `ttl` (epoch seconds) has passed at `now`.
    pub(crate) fn expired(ttl: &'static str, now: i64) -> Self {
        Self::new(expired(ttl, now))
    }

    pub(crate) fn attribute_exists(name: &'static str) -> Self {
        Self::new(Node::Exists(name))
    }

    pub(crate) fn attribute_not_exists(name: &'static str) -> Self {
        Self::new(Node::NotExists(name))
    }

    /// Whether the condition is `=` comparisons joined by `AND`, the only
    /// form a vector search's condition takes.
    pub(crate) fn is_equalities(&self) -> bool {
        fn equalities(node: &Node) -> bool {
            match node {
                Node::Compare(_, "=", _) => true,
                Node::And(a, b) => equalities(a) && equalities(b),
                _ => false,
            }
        }
        equalities(&self.node)
    }

    /// The attributes the condition compares, in order, each as often as it
    /// is compared.
    pub(crate) fn compared(&self) -> Vec<&'static str> {
        fn walk(node: &Node, out: &mut Vec<&'static str>) {
            match node {
                Node::Compare(name, ..) => out.push(name),
                Node::And(a, b) | Node::Or(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Node::Not(a) => walk(a, out),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(&self.node, &mut out);
        out
    }

    /// Both conditions.
    pub fn and(self, other: Self) -> Self {
        Self::new(Node::And(Box::new(self.node), Box::new(other.node)))
    }

    /// Either condition.
    pub fn or(self, other: Self) -> Self {
        Self::new(Node::Or(Box::new(self.node), Box::new(other.node)))
    }

    /// The expression text, registering names and values in `placeholders`.
    /// An error when a value could not be converted to an attribute value.
    pub(crate) fn render(&self, placeholders: &mut Placeholders) -> Result<String, String> {
        render(&self.node, placeholders)
    }
}

impl<E> std::ops::BitAnd for Condition<E> {
    type Output = Self;
    fn bitand(self, other: Self) -> Self {
        self.and(other)
    }
}

impl<E> std::ops::BitOr for Condition<E> {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        self.or(other)
    }
}

impl<E> std::ops::Not for Condition<E> {
    type Output = Self;
    fn not(self) -> Self {
        Self::new(Node::Not(Box::new(self.node)))
    }
}

/// A value for an attribute holding a `T`: a `T`, or a `&str` for a `String`.
///
/// Unlike `Into`, it leaves an integer literal only one type to be, so
/// `fields.total_cents.gt(10_000)` needs no suffix.
pub trait IntoValue<T> {
    /// The value.
    fn into_value(self) -> T;
}

impl<T> IntoValue<T> for T {
    fn into_value(self) -> T {
        self
    }
}

impl IntoValue<String> for &str {
    fn into_value(self) -> String {
        self.to_owned()
    }
}

/// A DynamoDB attribute type, for [`Attr::has_type`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeType {
    /// String.
    S,
    /// Number.
    N,
    /// Binary.
    B,
    /// Boolean.
    Bool,
    /// Null.
    Null,
    /// List.
    L,
    /// Map.
    M,
    /// String set.
    Ss,
    /// Number set.
    Ns,
    /// Binary set.
    Bs,
}

impl AttributeType {
    fn code(self) -> &'static str {
        match self {
            AttributeType::S => "S",
            AttributeType::N => "N",
            AttributeType::B => "B",
            AttributeType::Bool => "BOOL",
            AttributeType::Null => "NULL",
            AttributeType::L => "L",
            AttributeType::M => "M",
            AttributeType::Ss => "SS",
            AttributeType::Ns => "NS",
            AttributeType::Bs => "BS",
        }
    }
}

/// Marks an attribute an update may change.
#[derive(Debug, Clone, Copy)]
pub struct Value;

/// Marks an attribute that holds a field of the primary key: it can be read
/// and compared, never updated (the key would no longer match the item).
#[derive(Debug, Clone, Copy)]
pub struct KeyPart;

/// One attribute of entity `E` holding a `T`: the typed handle conditions and
/// updates are built from. `#[derive(Entity)]` makes one per field, reached
/// through `Entity::fields()`; fields of the primary key are `Attr<E, T, KeyPart>`.
///
/// The handle carries the field's own encoder and decoder, the very code
/// `to_item` and `from_item` use: a value set by an update, compared in a
/// condition or a filter, or read back is in the form the item stores,
/// whatever the field's type and serde attributes (`with`,
/// `serialize_with`, ...).
pub struct Attr<E, T, M = Value> {
    name: &'static str,
    codec: FieldCodec<T>,
    marker: crate::entity::Phantom<(E, M)>,
}

/// How one field is written to and read from its attribute: the code the
/// derive generates for the field, shared by every path that touches it.
pub(crate) struct FieldCodec<T> {
    /// The field's value as its stored attribute.
    pub(crate) encode: fn(&T) -> Result<AttributeValue, crate::error::Error>,
    /// The field from its stored attribute, or from its absence (serde's
    /// rule: `default`, `None` for an `Option`, else a missing-field error).
    pub(crate) read: fn(Option<AttributeValue>) -> Result<T, crate::error::Error>,
    /// Whether `to_item` leaves the value out of the item
    /// (`skip_serializing_if`).
    pub(crate) omits: fn(&T) -> bool,
}

impl<T> Clone for FieldCodec<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for FieldCodec<T> {}

impl<E, T, M> Clone for Attr<E, T, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T, M> Copy for Attr<E, T, M> {}

impl<E, T, M> fmt::Debug for Attr<E, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Attr({})", self.name)
    }
}

fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue, String> {
    serde_dynamo::to_attribute_value(value)
        .map_err(|e| format!("cannot convert a condition value: {e}"))
}

impl<E, T, M> Attr<E, T, M> {
    /// The attribute named `name` (its DynamoDB name, serde's `rename`
    /// applied), written and read by `codec`. Only `Entity::fields()` makes
    /// them, so the markers (which attributes may be updated) hold.
    pub(crate) const fn new(name: &'static str, codec: FieldCodec<T>) -> Self {
        Self {
            name,
            codec,
            marker: PhantomData,
        }
    }

    /// The attribute's DynamoDB name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// `value` as the item stores it: the field's own encoder, the one
    /// `to_item` uses.
    ///
    /// ```
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// #[ddb(table = Ecommerce, entity = "Note", pk = "NOTE#{id}")]
    /// struct Note {
    ///     id: String,
    ///     #[serde(with = "time::serde::rfc3339")]
    ///     edited_at: time::OffsetDateTime,
    /// }
    /// let t = time::macros::datetime!(2026-09-10 08:12:44 UTC);
    /// let stored = Note::fields().edited_at.to_attribute_value(&t)?;
    /// assert_eq!(stored.as_s().unwrap(), "2026-09-10T08:12:44Z");
    /// # Ok::<(), ddb_runtime::Error>(())
    /// ```
    pub fn to_attribute_value(&self, value: &T) -> Result<AttributeValue, crate::error::Error> {
        (self.codec.encode)(value)
    }

    /// The field's value from its stored attribute (`None`: the item does
    /// not have it), by the field's own decoder, the one `from_item` uses.
    pub fn from_attribute_value(
        &self,
        value: Option<AttributeValue>,
    ) -> Result<T, crate::error::Error> {
        (self.codec.read)(value)
    }

    /// Whether `to_item` leaves `value` out of the item (the field's
    /// `skip_serializing_if`): an update then removes the attribute.
    pub(crate) fn omits(&self, value: &T) -> bool {
        (self.codec.omits)(value)
    }

    fn value_of(&self, value: &T) -> Result<AttributeValue, String> {
        self.to_attribute_value(value)
            .map_err(|e| format!("cannot convert a value of `{}`: {e}", self.name))
    }

    /// `attribute_exists`.
    pub fn exists(&self) -> Condition<E> {
        Condition::new(Node::Exists(self.name))
    }

    /// `attribute_not_exists`.
    pub fn not_exists(&self) -> Condition<E> {
        Condition::new(Node::NotExists(self.name))
    }

    /// `attribute_type`.
    pub fn has_type(&self, ty: AttributeType) -> Condition<E> {
        Condition::new(Node::Type(self.name, ty.code()))
    }

    /// `size(attribute) <op> n`, with `op` one of `=`, `<>`, `<`, `<=`, `>`, `>=`.
    pub fn size(&self, op: Comparison, n: u64) -> Condition<E> {
        Condition::new(Node::Size(self.name, op.symbol(), n))
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparison {
    fn symbol(self) -> &'static str {
        match self {
            Comparison::Eq => "=",
            Comparison::Ne => "<>",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
        }
    }
}

impl<E, T, M> Attr<E, T, M> {
    fn compare(&self, op: Comparison, value: &T) -> Condition<E> {
        Condition::new(match self.value_of(value) {
            Ok(value) => Node::Compare(self.name, op.symbol(), value),
            Err(reason) => Node::Invalid(reason),
        })
    }

    /// `attribute = value`
    pub fn eq(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Eq, &value.into_value())
    }
    /// `attribute <> value`
    pub fn ne(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Ne, &value.into_value())
    }
    /// `attribute < value`
    pub fn lt(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Lt, &value.into_value())
    }
    /// `attribute <= value`
    pub fn le(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Le, &value.into_value())
    }
    /// `attribute > value`
    pub fn gt(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Gt, &value.into_value())
    }
    /// `attribute >= value`
    pub fn ge(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Ge, &value.into_value())
    }
    /// `attribute BETWEEN low AND high` (inclusive).
    pub fn between(&self, low: impl IntoValue<T>, high: impl IntoValue<T>) -> Condition<E> {
        Condition::new(
            match (
                self.value_of(&low.into_value()),
                self.value_of(&high.into_value()),
            ) {
                (Ok(low), Ok(high)) => Node::Between(self.name, low, high),
                (Err(reason), _) | (_, Err(reason)) => Node::Invalid(reason),
            },
        )
    }
}

impl<E, T, M> Attr<E, T, M> {
    /// `begins_with(attribute, prefix)`: the stored string starts with
    /// `prefix` (false for an attribute that is not a string).
    pub fn begins_with(&self, prefix: &str) -> Condition<E> {
        Condition::new(Node::BeginsWith(
            self.name,
            AttributeValue::S(prefix.to_owned()),
        ))
    }
}

impl<E, T, M> Attr<E, T, M> {
    /// `contains(attribute, value)`: a substring of a string, or an element of
    /// a set or list.
    pub fn contains<V: Serialize + ?Sized>(&self, value: &V) -> Condition<E> {
        Condition::new(match to_value(value) {
            Ok(value) => Node::Contains(self.name, value),
            Err(reason) => Node::Invalid(reason),
        })
    }
}

#[cfg(test)]
impl<E, T: Serialize + serde::de::DeserializeOwned, M> Attr<E, T, M> {
    /// An attribute converted by serde_dynamo, for tests of expressions.
    fn serde(name: &'static str) -> Self {
        Self::new(
            name,
            FieldCodec {
                encode: |value| {
                    serde_dynamo::to_attribute_value(value).map_err(|source| {
                        crate::error::Error::Encode {
                            entity: "test",
                            source,
                        }
                    })
                },
                read: |value| {
                    serde_dynamo::from_attribute_value(value.unwrap_or(AttributeValue::Null(true)))
                        .map_err(|source| crate::error::Error::Decode {
                            entity: "test",
                            key: None,
                            source,
                        })
                },
                omits: |_| false,
            },
        )
    }
}

/// The attribute named `name` of entity `E`: `Entity::fields()` makes them.
pub const fn attr<E, T, M>(
    name: &'static str,
    encode: fn(&T) -> Result<AttributeValue, Error>,
    read: fn(Option<AttributeValue>) -> Result<T, Error>,
    omits: fn(&T) -> bool,
) -> Attr<E, T, M> {
    Attr::new(
        name,
        crate::expression::FieldCodec {
            encode,
            read,
            omits,
        },
    )
}
