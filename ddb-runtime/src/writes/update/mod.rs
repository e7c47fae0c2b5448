//! Typed updates: SET, REMOVE, ADD, list append and set DELETE, with every
//! index key the change affects recomputed in the same UpdateItem.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::time::SystemTime;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Attr, Condition, Conjunction, IntoValue, Placeholders, Value};
use crate::item::Item;
use crate::keys::key::{Key, KeyValues};

use super::item::{
    attribute_key_attributes, check_attribute_key, check_size, check_update_floor, index_inputs,
    index_pairs, is_updated_at, key_text, maintained_by_ddb, stored_version, version_attribute,
    version_is, version_value,
};
use super::plan::{and, Action, ReadFirst, WritePlan};
use super::written::{no_return_values, require_version, Written};

/// How an update decides the membership of a sparse index it neither
/// enters nor leaves.
#[derive(Clone, Copy)]
enum Membership<'a> {
    /// By reading the item first (inside a transaction, which cannot be
    /// sent again with the other assumption).
    Read,
    /// In the condition: the item is in each such index but those whose
    /// marker attribute is listed in `absent`.
    Condition { absent: &'a [&'static str] },
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
#[must_use = "a request does nothing until it is sent"]
pub struct Update<E> {
    db: Db,
    key: Key<E>,
    ops: Vec<Op>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_new: bool,
    exactly_once: bool,
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
            error: None,
        }
    }
}

impl<E: Entity + 'static> Update<E> {
    fn push(mut self, op: Result<Op>) -> Self {
        match op.and_then(attribute_key_op::<E>).and_then(key_form::<E>) {
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
    /// (`ReturnValues = ALL_NEW`).
    pub fn return_new(mut self, return_new: bool) -> Self {
        self.return_new = return_new;
        self
    }

    /// Builds the UpdateItem. Index keys that depend on a changed field are
    /// recomputed in the same request: from the primary key and the values
    /// the update sets when those are all an index reads, else from the item
    /// read first, with the write conditioned on everything read.
    pub(crate) async fn plan(self) -> Result<WritePlan<E>> {
        self.plan_with(Membership::Read).await
    }

    /// [`plan`](Self::plan), deciding the membership of a sparse index the
    /// update does not decide as `membership` says.
    async fn plan_with(self, membership: Membership<'_>) -> Result<WritePlan<E>> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let schema = &E::SCHEMA;
        let table = schema.table;
        let entity = schema.entity_type;
        if self.ops.is_empty() {
            return Err(Error::InvalidUpdate {
                entity,
                reason: "an update needs at least one change".into(),
            });
        }
        // An update changes a handful of attributes: small lists, not hash
        // sets, keep what it has seen.
        let twice = |(i, op): (usize, &Op)| {
            self.ops[..i]
                .iter()
                .any(|o| o.attribute() == op.attribute())
        };
        if let Some((_, op)) = self.ops.iter().enumerate().find(|&entry| twice(entry)) {
            return Err(Error::InvalidUpdate {
                entity,
                reason: format!(
                    "attribute `{}` is changed twice in one update; DynamoDB refuses overlapping paths",
                    op.attribute()
                ),
            });
        }
        if let Some(field) = self.ops.iter().find_map(|op| {
            schema.fields.iter().find(|f| {
                f.attribute == op.attribute()
                    && (f.role.version || f.role.created_at || f.role.updated_at)
            })
        }) {
            return Err(Error::InvalidUpdate {
                entity,
                reason: format!(
                    "field `{}` is written by ddb (#[ddb(version)], created_at or updated_at); \
                     use expect_version for the version",
                    field.name
                ),
            });
        }
        let mut p = Placeholders::default();
        // The SET, ADD and DELETE lists are written as they grow, each
        // placeholder straight into its list; REMOVE keeps its names apart,
        // to drop those another index SETs.
        let mut sets = ClauseActions::default();
        let mut removes: Vec<(&str, String)> = Vec::new();
        let mut adds = ClauseActions::default();
        let mut deletes = ClauseActions::default();
        for op in &self.ops {
            match op {
                Op::Set(a, v) => sets.assign(&mut p, a, v.clone()),
                Op::Remove(a) => removes.push((a, p.name(a))),
                Op::Add(a, v) => adds.pair(&mut p, a, v.clone()),
                Op::Append(a, v) => {
                    let name = p.name(a);
                    let empty = p.value(AttributeValue::L(Vec::new()));
                    let out = sets.next();
                    let _ = write!(out, "{name} = list_append(if_not_exists({name}, {empty}), ");
                    p.write_value(v.clone(), out);
                    out.push(')');
                }
                Op::DeleteFromSet(a, v) => deletes.pair(&mut p, a, v.clone()),
            }
        }
        // What the item's attributes are after the update, where the update
        // alone decides them: values it sets, and attributes it removes.
        let mut known: Item = Item::new();
        let mut removed: Vec<&str> = Vec::new();
        for op in &self.ops {
            match op {
                Op::Set(a, v) => {
                    known.insert((*a).to_owned(), v.clone());
                }
                Op::Remove(a) => removed.push(a),
                _ => {}
            }
        }
        let mut updated = Vec::new();
        for (attribute, value) in E::stamps(true, SystemTime::now()) {
            if is_updated_at(schema, attribute) {
                sets.assign(&mut p, attribute, value.clone());
                known.insert(attribute.to_owned(), value.clone());
                updated.push((attribute, value));
            } else {
                let name = p.name(attribute);
                let out = sets.next();
                let _ = write!(out, "{name} = if_not_exists({name}, ");
                p.write_value(value, out);
                out.push(')');
            }
        }
        let added = self.ops.iter().filter_map(|op| match op {
            Op::Append(a, v) | Op::Add(a, v) => Some((*a, v)),
            _ => None,
        });
        check_update_floor::<E>(&known, added, &self.key)?;
        let version = version_attribute(schema);
        if let Some(attribute) = version {
            if let Some(expected) = self.expected_version {
                known.insert(attribute.to_owned(), version_value(entity, expected)?);
            }
        }

        // The indexes whose keys or membership this update can change, and
        // whether the update alone decides every input of each.
        // (The attributes it writes: its changes, the updated_at stamp, the
        // version.)
        let touched = |a: &str| {
            self.ops.iter().any(|op| op.attribute() == a)
                || updated.iter().any(|(u, _)| *u == a)
                || version == Some(a)
        };
        let inputs = |position: usize| index_inputs(schema, &schema.keys[position]);
        let stale: Vec<usize> = (1..schema.keys.len())
            .filter(|&position| inputs(position).any(touched))
            .collect();
        let decided_by_update = |a: &str| known.contains_key(a) || removed.contains(&a);
        // A sparse index the update takes the item out of needs none of its
        // key's inputs: its attributes are removed, whatever they held (no
        // two indexes of a table share an attribute: the Table derive
        // refuses it).
        let leaves = |position: usize| {
            let Some(rule) = schema.keys[position].membership else {
                return false;
            };
            let decided = |field: &&str| {
                schema.primary().reads(field)
                    || schema
                        .field(field)
                        .is_some_and(|f| decided_by_update(f.attribute))
            };
            rule.evaluable
                && rule.reads.iter().all(decided)
                && matches!(E::index_key_from(position, &self.key, &known), Ok(None))
        };
        // An index whose membership the update leaves as it is, and whose
        // changed sides (partition key, sort key) read only what the update
        // decides, is written side by side: the sides it changes, from the
        // update's values; the others stay as stored. A sparse index's
        // membership is then decided in the condition, by whether its
        // attributes are stored (`markers`), rather than by a read.
        let side_inputs = |position: usize, sort: bool| {
            let key = &schema.keys[position];
            let template = if sort { key.sk } else { Some(key.pk) };
            template
                .into_iter()
                .flat_map(|t| t.fields())
                .filter(|field| !schema.primary().reads(field))
                .filter_map(|field| schema.field(field).map(|f| f.attribute))
        };
        let side_stale = |position: usize, sort: bool| side_inputs(position, sort).any(touched);
        let by_sides = |position: usize| {
            let key = &schema.keys[position];
            let rule_kept = key.membership.is_none_or(|rule| {
                !matches!(membership, Membership::Read)
                    && !rule
                        .reads
                        .iter()
                        .any(|field| schema.field(field).is_some_and(|f| touched(f.attribute)))
            });
            rule_kept
                && [false, true].into_iter().all(|sort| {
                    !side_stale(position, sort)
                        || side_inputs(position, sort).all(decided_by_update)
                })
        };
        // Each rule is evaluated once: the plan below removes these
        // indexes' attributes without computing their keys again.
        let leaving: Vec<usize> = stale.iter().copied().filter(|&p| leaves(p)).collect();
        let needs_read = stale.iter().any(|&position| {
            !leaving.contains(&position)
                && !by_sides(position)
                && (schema.keys[position]
                    .membership
                    .is_some_and(|m| !m.evaluable)
                    || !inputs(position).all(decided_by_update))
        });
        let mut expected = self.expected_version;
        let mut read = None;
        // The index keys of the item as it is after the update, when they
        // are computed from the item read first.
        let mut read_keys: Option<HashMap<&'static str, KeyValues>> = None;
        if needs_read {
            let current = self
                .db
                .get(self.key.clone())
                .consistent_read(true)
                .raw()
                .await?
                .ok_or_else(|| Error::NotFound {
                    entity,
                    key: key_text(&self.key),
                })?;
            let mut next = current.clone();
            for op in &self.ops {
                apply(&mut next, op);
            }
            for (attribute, value) in &updated {
                next.insert((*attribute).to_owned(), value.clone());
            }
            // The update is conditioned on every index input it read rather
            // than set (a version alone is not enough: a delete and a create,
            // or a batch put, can bring the same version back with other
            // values), and on the version it read.
            if let Some(attribute) = version {
                expected = expected.or_else(|| stored_version(schema, Some(&current)));
                if let Some(expected) = expected {
                    next.insert(attribute.to_owned(), version_value(entity, expected)?);
                }
            }
            let mut conditioned: Vec<&'static str> = Vec::new();
            for &position in &stale {
                for attribute in inputs(position) {
                    if !decided_by_update(attribute) && !conditioned.contains(&attribute) {
                        conditioned.push(attribute);
                    }
                }
            }
            check_size::<E>(&next, &self.key)?;
            let entity_now = E::from_item(next).map_err(|e| e.with_key(&self.key))?;
            read_keys = Some(entity_now.index_keys()?.into_iter().collect());
            read = Some(ReadFirst {
                item: current,
                conditioned,
                version_derived: self.expected_version.is_none() && expected.is_some(),
            });
        }

        // SET the index attributes of the indexes the item is in, REMOVE
        // those of the sparse ones it left. The table's own key never
        // changes, and a raw-key index attribute that is a field's own
        // attribute is written by the field.
        let mut index_set: Vec<&str> = Vec::new();
        // Sparse indexes written side by side: the attribute whose presence
        // says the item is in the index, and whether the plan assumed so.
        let mut markers: Vec<(&'static str, bool)> = Vec::new();
        for &position in &stale {
            let Some(name) = schema.keys[position].index else {
                continue;
            };
            let Some(index) = table.index(name) else {
                continue;
            };
            let leaves = leaving.contains(&position);
            if read_keys.is_none() && !leaves && by_sides(position) {
                let sides = [(false, Some(index.pk)), (true, index.sk)];
                let mut writes = Vec::new();
                for (sort, attribute) in sides {
                    let Some(attribute) = attribute else { continue };
                    if side_stale(position, sort) && maintained_by_ddb(schema, attribute.name) {
                        writes.push((sort, attribute));
                    }
                }
                if writes.is_empty() {
                    continue;
                }
                if schema.keys[position].membership.is_some() {
                    // No other index writes it (the Table derive refuses
                    // two indexes sharing an attribute).
                    let marker = writes[0].1.name;
                    let member = match membership {
                        Membership::Condition { absent } => !absent.contains(&marker),
                        Membership::Read => true,
                    };
                    markers.push((marker, member));
                    if !member {
                        continue;
                    }
                }
                for (sort, attribute) in writes {
                    let value = E::index_side_from(position, sort, &self.key, &known)?;
                    if let Some(value) = value {
                        if !index_set.contains(&attribute.name) {
                            index_set.push(attribute.name);
                            sets.assign(&mut p, attribute.name, value.to_attribute_value());
                        }
                    }
                }
                continue;
            }
            let values = match &mut read_keys {
                Some(all) => all.remove(name),
                None if leaves => None,
                None => E::index_key_from(position, &self.key, &known)?,
            };
            match values {
                Some(values) => {
                    for (attribute, value) in index_pairs(index, &values) {
                        // Two indexes sharing an attribute hold one value.
                        if maintained_by_ddb(schema, attribute.name)
                            && !index_set.contains(&attribute.name)
                        {
                            index_set.push(attribute.name);
                            sets.assign(&mut p, attribute.name, value.to_attribute_value());
                        }
                    }
                }
                None => {
                    for attribute in std::iter::once(index.pk).chain(index.sk) {
                        if maintained_by_ddb(schema, attribute.name) {
                            removes.push((attribute.name, p.name(attribute.name)));
                        }
                    }
                }
            }
        }
        if let Some(version) = version {
            let name = p.name(version);
            match expected {
                Some(expected) => {
                    let value = version_value(entity, expected)?;
                    let out = sets.next();
                    out.push_str(&name);
                    out.push_str(" = ");
                    p.write_value(value, out);
                }
                None => {
                    let out = adds.next();
                    out.push_str(&name);
                    out.push(' ');
                    p.write_value(AttributeValue::N("1".into()), out);
                }
            }
        }
        // An attribute one index SETs is not REMOVEd for another, nor
        // REMOVEd twice.
        let mut i = 0;
        while i < removes.len() {
            let (attribute, _) = removes[i];
            if index_set.contains(&attribute) || removes[..i].iter().any(|(a, _)| *a == attribute) {
                removes.remove(i);
            } else {
                i += 1;
            }
        }
        let clauses = [&sets, &adds, &deletes]
            .map(|c| c.0.len())
            .iter()
            .sum::<usize>();
        let removing = removes.iter().map(|(_, r)| r.len() + 2).sum::<usize>();
        let mut expression = String::with_capacity(clauses + removing + 28);
        sets.close("SET", &mut expression);
        for (i, (_, name)) in removes.iter().enumerate() {
            match i {
                0 => ClauseActions::keyword("REMOVE", &mut expression),
                _ => expression.push_str(", "),
            }
            expression.push_str(name);
        }
        adds.close("ADD", &mut expression);
        deletes.close("DELETE", &mut expression);
        let expression = p.fit(entity, "update", expression)?;

        // The condition, written after the update expression (its
        // placeholders are numbered after the update's): the caller's, the
        // item's existence, its schema version, its time to live, what was
        // read first and the version.
        let mut condition = Conjunction::default();
        if let Some(caller) = &self.condition {
            condition.condition(caller, &mut p);
        }
        p.write_call("attribute_exists", table.pk.name, None, condition.term());
        // An item stored at another schema version has other attribute
        // names: an update of today's would mix the two. (Version 1 is also
        // an item without the attribute.)
        let stored_schema = crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
        let current = AttributeValue::N(schema.schema_version.to_string());
        let out = condition.term();
        if schema.schema_version == 1 {
            out.push('(');
            p.write_call("attribute_not_exists", stored_schema, None, out);
            out.push_str(" OR ");
            p.write_comparison(stored_schema, "=", current, out);
            out.push(')');
        } else {
            p.write_comparison(stored_schema, "=", current, out);
        }
        // An item past its time to live is gone but for DynamoDB's sweep: an
        // update must not bring it back.
        if let Some(ttl) = crate::item::timestamp::ttl_attribute(schema) {
            let now = AttributeValue::N(crate::item::timestamp::now_epoch_seconds().to_string());
            let expired: Condition<E> =
                Condition::attribute_is_number(ttl) & Condition::compare_value(ttl, "<=", now);
            condition.condition(&!expired, &mut p);
        }
        if let Some(read) = &read {
            for &attribute in &read.conditioned {
                let value = read.item.get(attribute).cloned();
                p.write_as_read(attribute, value, condition.term());
            }
        }
        // The item is (or is not) in each sparse index written side by side,
        // as the plan assumed.
        for &(marker, member) in &markers {
            let call = if member {
                "attribute_exists"
            } else {
                "attribute_not_exists"
            };
            p.write_call(call, marker, None, condition.term());
        }
        if let (Some(version), Some(expected)) = (version, expected) {
            condition.condition(&version_is::<E>(version, expected), &mut p);
        }
        let mut plan =
            WritePlan::with_condition(self.key, Action::Update(expression), condition.finish(), p)?;
        plan.expected_version = self.expected_version;
        plan.must_exist = true;
        plan.read = read;
        plan.markers = markers;
        Ok(plan)
    }

    /// Sends it as a one-action TransactWriteItems under a
    /// ClientRequestToken (see [`Put::exactly_once`](crate::write::Put::exactly_once)):
    /// the way to make an `ADD` or `append` apply once when its answer is
    /// lost, which a plain UpdateItem cannot promise (the SDK sends it
    /// again). [`return_new`](Self::return_new) is not available, and
    /// [`Written::version`] is known only when the update knew the version
    /// it replaced (an expected version, or one it read first).
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

    /// Sends the UpdateItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    ///
    /// A plain update whose first attempt lost its answer is sent again by
    /// the SDK: one whose condition still holds after it was applied (no
    /// version check) is then applied twice, which matters for `ADD` and
    /// `append`; one whose retry fails its condition, or whose retries run
    /// out, is [`Error::WriteOutcomeUnknown`].
    pub async fn send(self) -> Result<Written<E>> {
        let sparse = E::SCHEMA.keys.iter().any(|key| key.membership.is_some());
        let mut absent: Vec<&'static str> = Vec::new();
        let mut tries = 1;
        let mut update = self;
        loop {
            // A plan that assumed the wrong membership of a sparse index is
            // sent once more with the membership the failure showed.
            let again = if sparse && tries < MEMBERSHIP_TRIES {
                update.replan()
            } else {
                None
            };
            let (sent, markers) = update.send_with(&absent).await;
            let Some(again) = again else { return sent };
            let Err(Error::ConditionFailed {
                existing: Some(existing),
                ..
            }) = &sent
            else {
                return sent;
            };
            let stored = |marker: &str| existing.item().contains_key(marker);
            if markers
                .iter()
                .all(|&(marker, member)| stored(marker) == member)
            {
                return sent;
            }
            absent = markers
                .iter()
                .map(|&(marker, _)| marker)
                .filter(|marker| !stored(marker))
                .collect();
            tries += 1;
            update = again;
        }
    }

    /// The same update, to plan again; `None` when it cannot be sent.
    fn replan(&self) -> Option<Self> {
        if self.error.is_some() {
            return None;
        }
        Some(Self {
            db: self.db.clone(),
            key: self.key.clone(),
            ops: self.ops.clone(),
            expected_version: self.expected_version,
            condition: self.condition.clone(),
            return_new: self.return_new,
            exactly_once: self.exactly_once,
            error: None,
        })
    }

    /// Sends the update, sparse indexes whose marker is in `absent`
    /// assumed left; returns the outcome and the memberships it assumed.
    async fn send_with(
        self,
        absent: &[&'static str],
    ) -> (Result<Written<E>>, Vec<(&'static str, bool)>) {
        let db = self.db.clone();
        let (return_new, exactly_once) = (self.return_new, self.exactly_once);
        if exactly_once {
            if let Err(error) = no_return_values::<E>(return_new) {
                return (Err(error), Vec::new());
            }
        }
        let mut plan = match self.plan_with(Membership::Condition { absent }).await {
            Ok(plan) => plan,
            Err(error) => return (Err(error), Vec::new()),
        };
        let markers = std::mem::take(&mut plan.markers);
        if exactly_once {
            let sent = plan.send_exactly_once(&db).await.map(|capacity| {
                let replaced = plan.expected_version.or_else(|| {
                    let read = plan.read.as_ref()?;
                    stored_version(&E::SCHEMA, Some(&read.item))
                });
                Written::applied(replaced.map(|v| v + 1), None, false, capacity)
            });
            return (sent, markers);
        }
        let returned = if return_new {
            ReturnValue::AllNew
        } else {
            ReturnValue::UpdatedNew
        };
        let sent = plan
            .send(&db, Some(returned))
            .await
            .map(|(attributes, capacity)| {
                let attributes = attributes.unwrap_or_default();
                Written::applied(
                    stored_version(&E::SCHEMA, Some(&attributes)),
                    Some(attributes),
                    return_new,
                    capacity,
                )
            });
        (sent, markers)
    }
}

/// How many times an update is sent at most when the membership it
/// assumed for a sparse index turns out wrong (a concurrent change).
const MEMBERSHIP_TRIES: usize = 3;

/// Applies one update change to a local copy of the item.
fn apply(item: &mut Item, op: &Op) {
    use AttributeValue as V;
    match op {
        Op::Set(a, v) => {
            item.insert((*a).to_owned(), v.clone());
        }
        Op::Remove(a) => {
            item.remove(*a);
        }
        Op::Add(a, v) => {
            let next = match (item.get(*a), v) {
                (Some(V::N(x)), V::N(y)) => V::N(add_numbers(x, y)),
                (Some(V::Ss(x)), V::Ss(y)) => V::Ss(union(x, y)),
                (Some(V::Ns(x)), V::Ns(y)) => V::Ns(union(x, y)),
                (_, v) => v.clone(),
            };
            item.insert((*a).to_owned(), next);
        }
        Op::Append(a, v) => {
            let mut list = match item.get(*a) {
                Some(V::L(x)) => x.clone(),
                _ => Vec::new(),
            };
            if let V::L(more) = v {
                list.extend(more.iter().cloned());
            }
            item.insert((*a).to_owned(), V::L(list));
        }
        Op::DeleteFromSet(a, v) => {
            let next = match (item.get(*a), v) {
                (Some(V::Ss(x)), V::Ss(y)) => Some(V::Ss(
                    x.iter().filter(|e| !y.contains(e)).cloned().collect(),
                )),
                (Some(V::Ns(x)), V::Ns(y)) => Some(V::Ns(
                    x.iter().filter(|e| !y.contains(e)).cloned().collect(),
                )),
                _ => None,
            };
            if let Some(next) = next {
                item.insert((*a).to_owned(), next);
            }
        }
    }
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for e in b {
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    out
}

/// Adds two decimal numbers exactly when both are integers, else through f64.
fn add_numbers(a: &str, b: &str) -> String {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(x), Ok(y)) => (x + y).to_string(),
        _ => (a.parse::<f64>().unwrap_or(0.0) + b.parse::<f64>().unwrap_or(0.0)).to_string(),
    }
}

/// The actions of one clause of an update expression (`SET`, `REMOVE`,
/// `ADD`, `DELETE`), comma-separated, each placeholder written straight
/// into it.
#[derive(Default)]
pub(crate) struct ClauseActions(String);

impl ClauseActions {
    /// Whether the clause has no action.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Where the next action goes, after a separator when one came before.
    fn next(&mut self) -> &mut String {
        if self.0.is_empty() {
            // Room for a few actions: the string does not grow a step at a
            // time from nothing.
            self.0.reserve(64);
        } else {
            self.0.push_str(", ");
        }
        &mut self.0
    }

    /// `#name` (REMOVE).
    pub(crate) fn name(&mut self, p: &mut Placeholders, attribute: &str) {
        p.write_name(attribute, self.next());
    }

    /// `#name = :value` (SET).
    pub(crate) fn assign(&mut self, p: &mut Placeholders, attribute: &str, value: AttributeValue) {
        let out = self.next();
        p.write_name(attribute, out);
        out.push_str(" = ");
        p.write_value(value, out);
    }

    /// `#name :value` (ADD, DELETE).
    fn pair(&mut self, p: &mut Placeholders, attribute: &str, value: AttributeValue) {
        let out = self.next();
        p.write_name(attribute, out);
        out.push(' ');
        p.write_value(value, out);
    }

    /// `KEYWORD` and the actions at the end of `expression`, when there are
    /// any.
    pub(crate) fn close(self, keyword: &str, expression: &mut String) {
        if !self.0.is_empty() {
            Self::keyword(keyword, expression);
            expression.push_str(&self.0);
        }
    }

    /// `KEYWORD ` at the end of `expression`, after a space when a clause
    /// came before.
    fn keyword(keyword: &str, expression: &mut String) {
        if !expression.is_empty() {
            expression.push(' ');
        }
        expression.push_str(keyword);
        expression.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clauses of an update expression, as an update and a backfill
    /// write them: each keyword once, before its actions, a space between
    /// clauses, and a placeholder for a name DynamoDB reserves.
    #[test]
    fn clauses_are_written_keyword_first_and_space_separated() {
        let text = |set: &[&str], remove: &[&str]| {
            let mut p = Placeholders::default();
            let (mut sets, mut removes) = (ClauseActions::default(), ClauseActions::default());
            for a in set {
                sets.assign(&mut p, a, AttributeValue::S("x".into()));
            }
            for a in remove {
                removes.name(&mut p, a);
            }
            let mut expression = String::new();
            sets.close("SET", &mut expression);
            removes.close("REMOVE", &mut expression);
            expression
        };
        assert_eq!(text(&["a", "b"], &[]), "SET a = :v0, b = :v1");
        assert_eq!(text(&[], &["c", "status"]), "REMOVE c, #n0");
        assert_eq!(
            text(&["a", "b"], &["c", "d"]),
            "SET a = :v0, b = :v1 REMOVE c, d"
        );
        assert_eq!(text(&[], &[]), "");
    }
}
