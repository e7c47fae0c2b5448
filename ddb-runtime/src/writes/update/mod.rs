//! Typed updates: SET, REMOVE, ADD, list append and set DELETE, with every
//! index key the change affects recomputed in the same UpdateItem.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Attr, Condition, IntoValue, Value};
use crate::keys::key::{Key, KeyValues};
use crate::writes::idempotency::Content;

use super::item::{attribute_key_attributes, check_attribute_key};
use super::plan::and;
use super::written::require_version;

mod clauses;
mod guarded;
mod index_keys;
mod plan;
mod read_first;
mod send;
mod upsert;

pub(crate) use clauses::ClauseActions;
pub use upsert::{Upsert, Upserted};

/// What an update assumes of the stored item without reading it, and
/// checks in its condition.
#[derive(Clone, Copy)]
enum Assumed<'a> {
    /// Nothing (inside a transaction, which cannot be sent again with
    /// another assumption): the membership of a sparse index the update
    /// neither enters nor leaves is read first, and at schema version 1 the
    /// condition accepts the item with or without `_schema = 1` (an entity
    /// that declares no schema version removes a `_schema` it read).
    Nothing,
    /// The item is in each sparse index the update neither enters nor
    /// leaves but those whose marker attribute is listed in `absent`; the
    /// item of an entity that declares no schema version stores no
    /// `_schema` unless `schema_stored` (one that declared
    /// `schema_version = 1` and no longer does left `_schema = 1`, which
    /// the update then removes). A failed condition that shows an
    /// assumption wrong sends the update again with the other one.
    InCondition {
        absent: &'a [&'static str],
        schema_stored: bool,
    },
}

/// One change of an update.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Set(&'static str, AttributeValue),
    Remove(&'static str),
    Add(&'static str, AttributeValue),
    Append(&'static str, AttributeValue),
    DeleteFromSet(&'static str, AttributeValue),
}

impl Op {
    fn attribute(&self) -> &'static str {
        match self {
            Op::Set(a, _)
            | Op::Remove(a)
            | Op::Add(a, _)
            | Op::Append(a, _)
            | Op::DeleteFromSet(a, _) => a,
        }
    }
}

/// An attribute an update may change: any field but those of the primary key.
/// Sealed: the handles of `Entity::fields()` are the only ones.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be updated",
    label = "this field is part of the primary key",
    note = "a field of the primary key names the item; to change it, delete the item and create it under the new key (in one transaction)"
)]
pub trait Updatable<E, T>: sealed::Sealed {
    /// The attribute name.
    fn attribute(&self) -> &'static str;
    /// `value` as the item stores it (the field's own encoder).
    fn encode(&self, value: &T) -> Result<AttributeValue>;
    /// The field from its stored attribute, `None` when the item lacks it
    /// (the field's own reader).
    fn read(&self, value: Option<AttributeValue>) -> Result<T>;
    /// Whether `to_item` leaves `value` out of the item.
    fn omits(&self, value: &T) -> bool;
}

mod sealed {
    /// Keeps [`Updatable`](super::Updatable) to the fields' own handles.
    pub trait Sealed {}
    impl<E, T> Sealed for super::Attr<E, T, super::Value> {}
}

impl<E, T> Updatable<E, T> for Attr<E, T, Value> {
    fn attribute(&self) -> &'static str {
        self.name()
    }
    fn encode(&self, value: &T) -> Result<AttributeValue> {
        self.to_attribute_value(value)
    }
    fn read(&self, value: Option<AttributeValue>) -> Result<T> {
        self.from_attribute_value(value)
    }
    fn omits(&self, value: &T) -> bool {
        Attr::omits(self, value)
    }
}

/// A number or set `ADD` can change.
pub trait Addable {}
macro_rules! addable {
    ($($ty:ty),*) => {$(impl Addable for $ty {})*};
}
addable!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);
impl<T> Addable for HashSet<T> {}
impl<T> Addable for std::collections::BTreeSet<T> {}

/// A typed update; finish with [`send`](Update::send).
///
/// Every index key attribute that depends on a changed field is recomputed in
/// the same UpdateItem, and a sparse index whose rule no longer holds loses
/// its key attributes in that request too. They are computed from the
/// primary key and the values the update sets; only when an index reads a
/// field the update does not set does ddb read the item first (a strongly
/// consistent GetItem), and then the UpdateItem is conditioned on every
/// attribute it read and on the version, so a concurrent change fails it
/// with [`Error::ChangedSinceRead`].
///
/// An update that sets a unique value (`#[ddb(unique)]`) or the time to
/// live of an entity with unique values moves their guards: ddb reads the
/// item first and sends one TransactWriteItems deleting the old guard,
/// putting the new one and updating the item conditioned on the values and
/// version it read (sent again from a fresh read when they changed). A
/// value another item holds is [`Error::UniqueViolation`].
#[must_use = "a request does nothing until it is sent"]
pub struct Update<E> {
    db: Db,
    key: Key<E>,
    ops: Vec<Op>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_new: bool,
    exactly_once: bool,
    /// Creates the item when there is none (an upsert).
    upsert: bool,
    error: Option<Error>,
}

/// The value of an ADD or DELETE as the field stores it: a number, or a
/// DynamoDB set. A field stored as a list (a Rust set without serde_dynamo's
/// `string_set`/`number_set`) is refused: the ADD would turn the stored list
/// into a set, another form than `to_item` writes. An empty set is refused:
/// DynamoDB has no empty sets.
fn as_set<E: Entity>(name: &str, action: &str, value: AttributeValue) -> Result<AttributeValue> {
    let entity = E::SCHEMA.entity_type;
    let invalid = |reason: String| Error::InvalidUpdate { entity, reason };
    let empty = || Error::InvalidValue {
        entity,
        reason: "DynamoDB sets cannot be empty".to_owned(),
    };
    match value {
        AttributeValue::Ss(ref items) | AttributeValue::Ns(ref items) if items.is_empty() => {
            Err(empty())
        }
        AttributeValue::Bs(ref items) if items.is_empty() => Err(empty()),
        AttributeValue::Null(_) => Err(empty()),
        AttributeValue::N(_)
        | AttributeValue::Ss(_)
        | AttributeValue::Ns(_)
        | AttributeValue::Bs(_) => Ok(value),
        AttributeValue::L(_) => Err(invalid(format!(
            "{action} needs a number or a DynamoDB set, and field `{name}` is stored as a list; \
             store it as a set with #[serde(with = \"serde_dynamo::string_set\")] (or \
             number_set), or set the whole field"
        ))),
        _ => Err(invalid(format!(
            "{action} needs a number or a DynamoDB set, and field `{name}` is stored otherwise"
        ))),
    }
}

/// An op on an attribute of a multi-attribute index key, as DynamoDB takes
/// it: setting NULL (`None`) removes the attribute, so the item leaves that
/// index; any other value is checked like a key value; a list or set op is
/// refused.
fn attribute_key_op<E: Entity>(op: Op) -> Result<Op> {
    let sides = attribute_key_attributes(E::SCHEMA.table);
    let entity = E::SCHEMA.entity_type;
    let name = op.attribute();
    let mut op = op;
    for (index, attribute, limit) in sides.filter(|(_, a, _)| a.name == name) {
        op = match op {
            Op::Set(name, AttributeValue::Null(_)) => Op::Remove(name),
            Op::Set(_, ref value) => {
                check_attribute_key(entity, index, attribute, limit, value)?;
                op
            }
            Op::Remove(_) => op,
            Op::Add(_, ref value)
                if attribute.ty == crate::declaration::model::ScalarType::N && value.is_n() =>
            {
                op
            }
            _ => {
                return Err(Error::InvalidUpdate {
                    entity,
                    reason: format!(
                        "attribute `{}` is part of index `{}`'s key, a {} scalar: set or remove it",
                        attribute.name,
                        index.name,
                        attribute.ty.as_str()
                    ),
                })
            }
        };
    }
    Ok(op)
}

/// A change of a vector index's attribute: a SET checked as the index
/// takes it, a REMOVE; a list or number op is refused (it would leave a
/// vector of another length).
fn vector_op<E: Entity>(op: Op) -> Result<Op> {
    let table = E::SCHEMA.table;
    let entity = E::SCHEMA.entity_type;
    let name = op.attribute();
    let mut op = op;
    for index in table.vector_indexes {
        let searched = index
            .hash
            .iter()
            .chain(index.filters)
            .find(|a| a.name == name);
        if let Some(attribute) = searched {
            op = match op {
                Op::Set(name, AttributeValue::Null(_)) => Op::Remove(name),
                Op::Set(_, ref value) => {
                    crate::item::vector::check_search_attribute(entity, index, *attribute, value)?;
                    op
                }
                Op::Remove(_) => op,
                Op::Add(_, ref value)
                    if value.is_n() && attribute.ty == crate::declaration::model::ScalarType::N =>
                {
                    op
                }
                _ => {
                    return Err(Error::InvalidUpdate {
                        entity,
                        reason: format!(
                            "attribute `{name}` is in vector index `{}`'s search schema, a {} \
                             scalar: set or remove it",
                            index.name,
                            attribute.ty.as_str()
                        ),
                    })
                }
            };
        }
    }
    for index in table.vector_indexes.iter().filter(|i| i.vector == name) {
        match &op {
            // A NULL vector is refused by DynamoDB: `None` takes the item
            // out of the index.
            Op::Set(name, AttributeValue::Null(_)) => op = Op::Remove(name),
            Op::Set(_, value) => crate::item::vector::check_vector(entity, index, value)?,
            Op::Remove(_) => {}
            _ => {
                return Err(Error::InvalidUpdate {
                    entity,
                    reason: format!(
                        "attribute `{name}` holds the vector of index `{}`: set or remove it whole",
                        index.name
                    ),
                })
            }
        }
    }
    Ok(op)
}

/// A value set on an attribute that is a key by itself (a field on its own
/// key attribute, or a field of a multi-attribute key) must be the field's
/// key form.
fn key_form<E: Entity>(op: Op) -> Result<Op> {
    if let Op::Set(name, value) = &op {
        E::check_attribute_key(name, value)?;
    }
    Ok(op)
}

impl Db {
    /// A typed UpdateItem of the item at `key` (which must exist).
    pub fn update<E: Entity + 'static>(&self, key: Key<E>) -> Update<E> {
        Update {
            db: self.clone(),
            key,
            ops: Vec::new(),
            expected_version: None,
            condition: None,
            return_new: false,
            exactly_once: self.exactly_once_writes(),
            upsert: false,
            error: None,
        }
    }
}

impl<E: Entity + 'static> Update<E> {
    /// What the update asks, for an idempotency key's fingerprint: its
    /// changes, expected version and condition; and the key it names.
    pub(crate) fn content(&self) -> Result<(Content, KeyValues)> {
        self.refusal()?;
        let mut content = Content::of::<E>("update")
            .key(self.key.values())
            .version(self.expected_version)
            .condition(self.condition.as_ref())?;
        let null = || AttributeValue::Null(true);
        let changes = self.ops.iter().map(|op| match op {
            Op::Set(a, v) => (format!("SET {a}"), v.clone()),
            Op::Remove(a) => (format!("REMOVE {a}"), null()),
            Op::Add(a, v) => (format!("ADD {a}"), v.clone()),
            Op::Append(a, v) => (format!("APPEND {a}"), v.clone()),
            Op::DeleteFromSet(a, v) => (format!("DELETE {a}"), v.clone()),
        });
        content.values(changes.collect());
        Ok((content, self.key.values().clone()))
    }

    /// The first failure of the update's builder: every plan of the update
    /// fails with it, never sending the changes the builder accepted.
    fn refusal(&self) -> Result<()> {
        match &self.error {
            Some(error) => Err(error.clone_input()),
            None => Ok(()),
        }
    }

    fn push(mut self, op: Result<Op>) -> Self {
        let checked = op
            .and_then(attribute_key_op::<E>)
            .and_then(key_form::<E>)
            .and_then(vector_op::<E>)
            .and_then(guarded::sets_or_removes::<E>);
        match checked {
            Ok(op) => self.ops.push(op),
            Err(error) => self.error = self.error.or(Some(error)),
        }
        self
    }

    /// `SET attribute = value`, the value written by the field's own
    /// encoder (the form `to_item` stores); a value `to_item` leaves out of
    /// the item (`skip_serializing_if`) is a `REMOVE`.
    pub fn set<T>(self, attribute: impl Updatable<E, T>, value: impl IntoValue<T>) -> Self {
        let name = attribute.attribute();
        let value = value.into_value();
        if attribute.omits(&value) {
            return self.push(Ok(Op::Remove(name)));
        }
        self.push(attribute.encode(&value).map(|v| Op::Set(name, v)))
    }

    /// Sets an optional field to `None`, stored as `to_item` stores `None`:
    /// `REMOVE` when the field leaves `None` out of the item
    /// (`#[serde(skip_serializing_if = "Option::is_none")]`), else a NULL
    /// (or whatever the field's `with` module writes for `None`).
    pub fn remove<T>(self, attribute: impl Updatable<E, Option<T>>) -> Self {
        self.set(attribute, None)
    }

    /// `ADD attribute value`: adds to a number, or adds elements to a set.
    /// The field must be stored as a number or a DynamoDB set (a set field
    /// with `#[serde(with = "serde_dynamo::string_set")]` or
    /// `number_set`); a field stored as a list is refused with
    /// [`Error::InvalidUpdate`] before sending, as DynamoDB's ADD would
    /// store the field in a form its reads do not expect.
    pub fn add<T: Addable>(self, attribute: impl Updatable<E, T>, value: T) -> Self {
        let name = attribute.attribute();
        self.push(
            attribute
                .encode(&value)
                .and_then(|v| as_set::<E>(name, "ADD", v))
                .map(|v| Op::Add(name, v)),
        )
    }

    /// `SET attribute = list_append(attribute, items)`: the field must be
    /// stored as a list.
    pub fn append<T>(self, attribute: impl Updatable<E, Vec<T>>, items: Vec<T>) -> Self {
        let name = attribute.attribute();
        let value = attribute.encode(&items).and_then(|v| match v {
            AttributeValue::L(_) => Ok(v),
            _ => Err(Error::InvalidUpdate {
                entity: E::SCHEMA.entity_type,
                reason: format!(
                    "field `{name}` is not stored as a list, so list_append cannot extend it"
                ),
            }),
        });
        self.push(value.map(|v| Op::Append(name, v)))
    }

    /// `DELETE attribute elements`: removes elements from a set (stored as
    /// a DynamoDB set, as for [`add`](Self::add)).
    pub fn delete_from_set<T: Addable>(self, attribute: impl Updatable<E, T>, elements: T) -> Self {
        let name = attribute.attribute();
        self.push(
            attribute
                .encode(&elements)
                .and_then(|v| as_set::<E>(name, "DELETE", v))
                .map(|v| Op::DeleteFromSet(name, v)),
        )
    }

    /// Updates only if the stored version is `version`. On an entity
    /// without `#[ddb(version)]` the update fails with
    /// [`Error::InvalidRequest`] and nothing is sent.
    pub fn expect_version(mut self, version: u64) -> Self {
        if let Err(error) = require_version::<E>() {
            self.error = self.error.or(Some(error));
        }
        self.expected_version = Some(version);
        self
    }

    /// Updates only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the item as it is after the update when `true`
    /// (`ReturnValues = ALL_NEW`), its version in
    /// [`Written::version`](crate::writes::written::Written::version).
    /// Without it an update asks DynamoDB to return nothing, and the version
    /// written is known only when the update knew the one it replaced.
    pub fn return_new(mut self, return_new: bool) -> Self {
        self.return_new = return_new;
        self
    }

    /// Sends it as a one-action TransactWriteItems under a
    /// ClientRequestToken (see [`Put::exactly_once`](crate::write::Put::exactly_once)):
    /// the way to make an `ADD` or `append` apply once when its answer is
    /// lost, which a plain UpdateItem cannot promise (the SDK sends it
    /// again). [`return_new`](Self::return_new) is not available, and
    /// [`Written::version`](crate::writes::written::Written::version) is
    /// known only when the update knew the version it replaced (an expected
    /// version, or one it read first).
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Counter", pk = "COUNTER#{name}")]
    /// # struct Counter { name: String, value: u64 }
    /// db.update(Counter::key(&"visits".to_string())?)
    ///     .add(Counter::fields().value, 1)
    ///     .exactly_once(true)
    ///     .send()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }
}
