//! Key values built from templates, and their parsing back.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{KeyAttribute, ScalarType, TableDef};
use crate::error::Error;
use crate::keys::segment;
use crate::keys::segment::{SegmentCodec, DELIMITER};

/// DynamoDB's limit on a partition key value, in bytes.
pub const PARTITION_KEY_LIMIT: usize = 2048;
/// DynamoDB's limit on a sort key value, in bytes.
pub const SORT_KEY_LIMIT: usize = 1024;

/// One key attribute's value: a String or a Number.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyValue {
    /// `S`
    S(String),
    /// `N`, as DynamoDB's decimal text.
    N(String),
}

impl KeyValue {
    /// The value as text, whichever its type.
    ///
    /// ```
    /// use ddb_runtime::KeyValue;
    /// assert_eq!(KeyValue::S("CUSTOMER#123".into()).as_str(), "CUSTOMER#123");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            KeyValue::S(text) | KeyValue::N(text) => text,
        }
    }

    /// The value as an `AttributeValue`.
    pub fn to_attribute_value(&self) -> AttributeValue {
        match self {
            KeyValue::S(text) => AttributeValue::S(text.clone()),
            KeyValue::N(text) => AttributeValue::N(text.clone()),
        }
    }

    /// The value as an `AttributeValue`, moved.
    pub(crate) fn into_attribute_value(self) -> AttributeValue {
        match self {
            KeyValue::S(text) => AttributeValue::S(text),
            KeyValue::N(text) => AttributeValue::N(text),
        }
    }

    /// Reads a key attribute back; `None` for any type but S and N.
    pub fn from_attribute_value(value: &AttributeValue) -> Option<Self> {
        match value {
            AttributeValue::S(text) => Some(KeyValue::S(text.clone())),
            AttributeValue::N(text) => Some(KeyValue::N(text.clone())),
            _ => None,
        }
    }
}

impl fmt::Debug for KeyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyValue::S(text) => write!(f, "S({text:?})"),
            KeyValue::N(text) => write!(f, "N({text})"),
        }
    }
}

impl fmt::Display for KeyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The partition and sort key values of one key (primary or index).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyValues {
    /// The partition key value.
    pub pk: KeyValue,
    /// The sort key value, when the key has one.
    pub sk: Option<KeyValue>,
}

/// The primary key of one item of entity `E`, built by the entity's typed key
/// builder (`Order::key(..)`).
///
/// ```
/// use ddb_runtime::{Entity, Key, KeyValue, Table};
/// #[derive(Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// struct Ecommerce;
///
/// #[derive(Entity, serde::Serialize, serde::Deserialize)]
/// #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// struct Customer { customer_id: String, name: String }
///
/// let key: Key<Customer> = Customer::key(&"123".to_string())?;
/// assert_eq!(key.pk(), &KeyValue::S("CUSTOMER#123".into()));
/// assert_eq!(key.to_item()["SK"].as_s().unwrap(), "PROFILE");
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
pub struct Key<E> {
    pub(crate) values: KeyValues,
    entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Key<E> {
    fn clone(&self) -> Self {
        Self {
            values: self.values.clone(),
            entity: PhantomData,
        }
    }
}

impl<E> PartialEq for Key<E> {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl<E> Eq for Key<E> {}

impl<E> std::hash::Hash for Key<E> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.values.hash(state)
    }
}

impl<E> Key<E> {
    /// Wraps key values built for entity `E`: only the entity's generated
    /// key functions (through `__private`) and ddb itself make keys, so a
    /// `Key<E>` is always one of `E`'s keys.
    pub(crate) fn from_values(values: KeyValues) -> Self {
        Self {
            values,
            entity: PhantomData,
        }
    }

    /// The values, moved out.
    pub(crate) fn into_values(self) -> KeyValues {
        self.values
    }

    /// The partition key value.
    pub fn pk(&self) -> &KeyValue {
        &self.values.pk
    }

    /// The sort key value, if the table has a sort key.
    pub fn sk(&self) -> Option<&KeyValue> {
        self.values.sk.as_ref()
    }

    /// Both values.
    pub fn values(&self) -> &KeyValues {
        &self.values
    }
}

impl KeyValues {
    /// The table key values of a key or an item of `table`; the name of the
    /// key attribute it lacks (or holds as another type than S or N).
    pub(crate) fn read_table_key(
        table: &TableDef,
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Self, &'static str> {
        let read = |attribute: KeyAttribute| {
            item.get(attribute.name)
                .and_then(KeyValue::from_attribute_value)
                .ok_or(attribute.name)
        };
        Ok(Self {
            pk: read(table.pk)?,
            sk: table.sk.map(read).transpose()?,
        })
    }

    /// The key as the `Key` map of a request on `table`.
    pub(crate) fn to_item(&self, table: &TableDef) -> HashMap<String, AttributeValue> {
        let mut item = HashMap::with_capacity(2);
        item.insert(table.pk.name.to_owned(), self.pk.to_attribute_value());
        if let (Some(attribute), Some(sk)) = (table.sk, &self.sk) {
            item.insert(attribute.name.to_owned(), sk.to_attribute_value());
        }
        item
    }

    /// `PK / SK`, as every ddb message writes a key.
    pub(crate) fn text(&self) -> String {
        match &self.sk {
            Some(sk) => format!("{} / {}", self.pk, sk),
            None => self.pk.to_string(),
        }
    }

    /// The key's attribute values: the partition key's, then the sort
    /// key's when there is one.
    pub(crate) fn attribute_values(&self) -> Vec<AttributeValue> {
        std::iter::once(&self.pk)
            .chain(&self.sk)
            .map(KeyValue::to_attribute_value)
            .collect()
    }

    /// The values, borrowed.
    pub(crate) fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            pk: ValueRef::of(&self.pk),
            sk: self.sk.as_ref().map(ValueRef::of),
        }
    }
}

/// A key's typed values, borrowed from [`KeyValues`] or from an item: equal
/// when they are the same key to DynamoDB (Strings by text, Numbers by
/// value), so an item read back is matched to the key asked for without
/// copying its key text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KeyRef<'a> {
    pk: ValueRef<'a>,
    sk: Option<ValueRef<'a>>,
}

/// One key value, borrowed: a String by its text, a Number by its value
/// (DynamoDB returns a number in its own form, `"1.5"` for `"1.50"`).
#[derive(Debug, Clone, Copy)]
enum ValueRef<'a> {
    S(&'a str),
    N(&'a str),
}

impl ValueRef<'_> {
    /// A number by value; by text when it is not one (DynamoDB refuses it).
    fn number(text: &str) -> Result<crate::item::number::Decimal<'_>, &str> {
        crate::item::number::Decimal::parse(text).ok_or(text)
    }
}

impl PartialEq for ValueRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ValueRef::S(a), ValueRef::S(b)) => a == b,
            (ValueRef::N(a), ValueRef::N(b)) => Self::number(a) == Self::number(b),
            _ => false,
        }
    }
}

impl Eq for ValueRef<'_> {}

impl std::hash::Hash for ValueRef<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            ValueRef::S(text) => (0u8, text).hash(state),
            ValueRef::N(text) => (1u8, Self::number(text)).hash(state),
        }
    }
}

impl<'a> ValueRef<'a> {
    fn of(value: &'a KeyValue) -> Self {
        match value {
            KeyValue::S(text) => ValueRef::S(text),
            KeyValue::N(text) => ValueRef::N(text),
        }
    }

    fn read(item: &'a HashMap<String, AttributeValue>, attribute: KeyAttribute) -> Option<Self> {
        match item.get(attribute.name)? {
            AttributeValue::S(text) => Some(ValueRef::S(text)),
            AttributeValue::N(text) => Some(ValueRef::N(text)),
            _ => None,
        }
    }
}

impl<'a> KeyRef<'a> {
    /// The table key of a key or an item of `table`, as
    /// [`KeyValues::read_table_key`] reads it; `None` when an attribute is
    /// missing or neither S nor N.
    pub(crate) fn read_table_key(
        table: &TableDef,
        item: &'a HashMap<String, AttributeValue>,
    ) -> Option<Self> {
        Some(Self {
            pk: ValueRef::read(item, table.pk)?,
            sk: match table.sk {
                Some(sk) => Some(ValueRef::read(item, sk)?),
                None => None,
            },
        })
    }
}

/// Builds one composite key value from literal text and fields.
#[doc(hidden)]
pub struct KeyWriter {
    entity: &'static str,
    key: &'static str,
    out: String,
}

impl KeyWriter {
    pub fn new(entity: &'static str, key: &'static str) -> Self {
        Self {
            entity,
            key,
            out: String::with_capacity(48),
        }
    }

    pub fn literal(mut self, text: &str) -> Self {
        self.out.push_str(text);
        self
    }

    pub fn field<T>(
        mut self,
        field: &'static str,
        value: &T,
        codec: SegmentCodec<T>,
    ) -> Result<Self, Error> {
        codec
            .write_escaped(value, &mut self.out)
            .map_err(|source| Error::InvalidKeySegment {
                entity: self.entity,
                key: self.key,
                field,
                source,
            })?;
        Ok(self)
    }

    pub fn finish(self, limit: usize) -> Result<KeyValue, Error> {
        check_size(self.entity, self.key, self.out.len(), limit)?;
        if self.out.starts_with(GUARD_PREFIX) {
            return Err(Error::InvalidKeySegment {
                entity: self.entity,
                key: self.key,
                field: "",
                source: reserved_prefix(),
            });
        }
        Ok(KeyValue::S(self.out))
    }
}

pub(crate) fn check_size(
    entity: &'static str,
    key: &'static str,
    size: usize,
    limit: usize,
) -> Result<(), Error> {
    if size > limit {
        return Err(Error::KeyTooLarge {
            entity,
            key,
            size,
            limit,
        });
    }
    Ok(())
}

/// A single-field template's raw key: the number for an N attribute, the
/// unescaped segment text for an S one.
#[doc(hidden)]
pub fn raw_key<T>(
    entity: &'static str,
    key: &'static str,
    field: &'static str,
    value: &T,
    codec: SegmentCodec<T>,
    ty: ScalarType,
    limit: usize,
) -> Result<KeyValue, Error> {
    let invalid = |source| Error::InvalidKeySegment {
        entity,
        key,
        field,
        source,
    };
    let value = match ty {
        ScalarType::N => KeyValue::N((codec.to_number)(value).ok_or_else(|| {
            invalid(segment::SegmentError::new(
                "this type cannot be stored as a Number key",
            ))
        })?),
        ScalarType::S => {
            let mut text = String::new();
            (codec.write)(value, &mut text).map_err(invalid)?;
            if text.is_empty() {
                return Err(invalid(segment::SegmentError::new("a key cannot be empty")));
            }
            if text.starts_with(GUARD_PREFIX) {
                return Err(invalid(reserved_prefix()));
            }
            KeyValue::S(text)
        }
    };
    check_size(entity, key, value.as_str().len(), limit)?;
    Ok(value)
}

/// Parses a raw single-field key back.
#[doc(hidden)]
pub fn read_raw_key<T>(
    entity: &'static str,
    key: &'static str,
    template: &'static str,
    value: &KeyValue,
    codec: SegmentCodec<T>,
) -> Result<T, Error> {
    let parsed = match value {
        KeyValue::N(number) => (codec.from_number)(number),
        KeyValue::S(text) => (codec.read)(text),
    };
    parsed.map_err(|e| Error::KeyMismatch {
        entity,
        key,
        template,
        reason: e.to_string(),
    })
}

/// Parses a composite key value back into fields, in template order.
#[doc(hidden)]
pub struct KeyReader<'a> {
    entity: &'static str,
    key: &'static str,
    template: &'static str,
    rest: &'a str,
}

impl<'a> KeyReader<'a> {
    pub fn new(
        entity: &'static str,
        key: &'static str,
        template: &'static str,
        value: &'a KeyValue,
    ) -> Result<Self, Error> {
        match value {
            KeyValue::S(text) => Ok(Self {
                entity,
                key,
                template,
                rest: text,
            }),
            KeyValue::N(_) => Err(Error::KeyMismatch {
                entity,
                key,
                template,
                reason: "a composite key is a String, not a Number".to_owned(),
            }),
        }
    }

    fn mismatch(&self, reason: String) -> Error {
        Error::KeyMismatch {
            entity: self.entity,
            key: self.key,
            template: self.template,
            reason,
        }
    }

    pub fn literal(mut self, text: &str) -> Result<Self, Error> {
        match self.rest.strip_prefix(text) {
            Some(rest) => {
                self.rest = rest;
                Ok(self)
            }
            None => Err(self.mismatch(format!("expected `{text}`"))),
        }
    }

    /// Reads one field; `last` when no literal follows it.
    pub fn field<T>(
        &mut self,
        field: &'static str,
        last: bool,
        codec: SegmentCodec<T>,
    ) -> Result<T, Error> {
        let end = if last {
            self.rest.len()
        } else {
            self.rest.find(DELIMITER).unwrap_or(self.rest.len())
        };
        let (text, rest) = self.rest.split_at(end);
        let value = codec
            .read_escaped(text)
            .map_err(|e| self.mismatch(format!("field `{field}`: {e}")))?;
        self.rest = rest;
        Ok(value)
    }

    pub fn finish(self) -> Result<(), Error> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(self.mismatch("unexpected text after the last segment".to_owned()))
        }
    }
}

/// The sort key of a key, or an error naming the entity.
pub fn require_sort_key<'a>(
    entity: &'static str,
    sk: Option<&'a KeyValue>,
) -> Result<&'a KeyValue, Error> {
    sk.ok_or(Error::KeyMismatch {
        entity,
        key: "sort key",
        template: "",
        reason: "the key has no sort key value".to_owned(),
    })
}

/// The key of entity `E` with `values`: generated key functions build keys
/// only from the entity's own templates.
pub fn key_from_values<E>(values: KeyValues) -> Key<E> {
    Key::from_values(values)
}

impl crate::error::Error {
    /// The error with the key it was met at, for a decode failure.
    pub(crate) fn with_key<E>(self, key: &Key<E>) -> Self {
        match self {
            Error::Decode { entity, source, .. } => Error::Decode {
                entity,
                key: Some(match key.sk() {
                    Some(sk) => format!("{} / {}", key.pk(), sk),
                    None => key.pk().to_string(),
                }),
                source,
            },
            other => other,
        }
    }
}

/// The start of every guard item's key. A key template may not start with
/// it (a compile error), and a raw single-field key may not either (an
/// error before sending).
pub const GUARD_PREFIX: &str = "_DDB#";

/// The error a raw key value starting with [`GUARD_PREFIX`] is.
pub(crate) fn reserved_prefix() -> segment::SegmentError {
    segment::SegmentError::new(format!(
        "a key cannot start with `{GUARD_PREFIX}`, which is reserved for ddb's guard items"
    ))
}

/// A key, equal to another when DynamoDB takes them for the same key
/// (numbers by value: `1.0` and `1` are one key), for gathering reads and
/// keeping items by key.
#[derive(Clone)]
pub(crate) struct ByValue(pub(crate) KeyValues);

impl PartialEq for ByValue {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_ref() == other.0.as_ref()
    }
}

impl Eq for ByValue {}

impl std::hash::Hash for ByValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_ref().hash(state);
    }
}
