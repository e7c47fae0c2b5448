//! What brings one stored item in line: an upgrade to today's shape, or an
//! update of its index attributes conditioned on the item as it was read;
//! and what keeps an item out of an index.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{EntitySchema, KeyAttribute, ScalarType};
use crate::error::{Error, Result};
use crate::expression::{Condition, Conjunction, Placeholders};

use crate::entity::Entity;
use crate::item::Item;
use crate::keys::key::Key;
use crate::writes::item::key_text;
use crate::writes::plan::{Action, WritePlan};
use crate::writes::update::ClauseActions;

use super::*;

/// The index key attributes ddb writes for `E` (not the fields' own
/// attributes, which DynamoDB indexes as they are).
pub(super) fn written<E: Entity>() -> Vec<&'static str> {
    crate::writes::item::maintained_index_attributes(&E::SCHEMA)
}

/// What the backfill sends for one item.
pub(super) enum Step<E> {
    /// An UpdateItem of its index attributes.
    Update(WritePlan<E>),
    /// Today's shape of an item stored at an older schema version, put in
    /// its place on condition that the old one (`read`) is unchanged.
    Upgrade { put: WritePlan<E>, read: Item },
    /// The same, when its key template changed: a transaction deleting the
    /// old item (unchanged) and creating the new one (where none is).
    Move {
        delete: WritePlan<E>,
        put: Box<WritePlan<E>>,
    },
}

/// What brings `item` in line: its upgrade when it is stored at an older
/// schema version, else the update of its index attributes; `None` when
/// it is in line. The item is taken, not copied: what a write is
/// conditioned on is copied out of it before it is decoded.
pub(super) fn plan<E: Entity + 'static>(
    item: Item,
    shape: &UpdateShape,
) -> Result<Option<Step<E>>> {
    let stored =
        crate::item::stored::stored_schema_version(&item).map_err(|reason| Error::Migration {
            entity: E::SCHEMA.entity_type,
            key: crate::item::stored::item_key_text(E::SCHEMA.table, &item),
            from: 0,
            reason,
        })?;
    if stored < E::SCHEMA.schema_version {
        return upgrade::<E>(item, &shape.cleared).map(Some);
    }
    Ok(update::<E>(item, shape)?.map(Step::Update))
}

/// `item`, stored at an older schema version, in today's shape.
pub(super) fn upgrade<E: Entity + 'static>(item: Item, cleared: &[String]) -> Result<Step<E>> {
    let schema = &E::SCHEMA;
    // Under the key template it was stored with, which may not be today's.
    let old_key = Key::<E>::read_item(&item)?;
    let mut p = Placeholders::default();
    let unchanged = unchanged::<E>(&item, &mut p);
    let read = item.clone();
    let entity = E::from_item(item).map_err(|e| e.with_key(&old_key))?;
    let mut new_item = entity.to_item()?;
    for attribute in cleared {
        new_item.remove(attribute);
    }
    // Today's shape as every write sends it: the attributes of
    // multi-attribute keys and vector indexes as DynamoDB takes them.
    crate::writes::item::check_attribute_keys(schema, &mut new_item)?;
    crate::item::vector::check_vectors(schema.entity_type, schema.table, &mut new_item)?;
    let new_key = entity.primary_key()?;
    if new_key.to_item() == old_key.to_item() {
        let put = WritePlan::with_condition(old_key, Action::Put(new_item), unchanged, p)?;
        return Ok(Step::Upgrade { put, read });
    }
    let delete = WritePlan::with_condition(old_key, Action::Delete, unchanged, p)?;
    let absent = Condition::<E>::attribute_not_exists(schema.table.pk.name);
    let put = WritePlan::new(
        new_key,
        Action::Put(new_item),
        Some(&absent),
        Placeholders::default(),
    )?;
    Ok(Step::Move {
        delete,
        put: Box::new(put),
    })
}

/// A condition that holds while the stored item is still `item`: when the
/// entity keeps a version and the item has it, that version and schema
/// version (every write of the entity moves the version); otherwise every
/// attribute equal, and today's attributes it lacks still absent.
pub(super) fn unchanged<E: Entity>(
    item: &Item,
    p: &mut Placeholders,
) -> std::result::Result<Option<String>, String> {
    let schema_version = crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
    let mut condition = Conjunction::default();
    let mut equal = |name: &str| p.write_as_read(name, item.get(name).cloned(), condition.term());
    let version =
        crate::writes::item::version_attribute(&E::SCHEMA).filter(|v| item.contains_key(*v));
    match version {
        Some(version) => {
            for name in [E::SCHEMA.table.pk.name, version, schema_version] {
                equal(name);
            }
        }
        None => {
            let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
            for field in E::SCHEMA.fields {
                if !names.contains(&field.attribute) {
                    names.push(field.attribute);
                }
            }
            if !names.contains(&schema_version) {
                names.push(schema_version);
            }
            names.sort_unstable();
            for name in names {
                equal(name);
            }
        }
    }
    condition.finish()
}

/// What the update of an item's index attributes reads and writes, worked
/// out once per run from the schema.
pub(super) struct UpdateShape {
    /// The index key attributes ddb writes ([`written`]), each with whether
    /// decoding the item reads it: the entity type or the schema version,
    /// when an index is keyed on them. Those are copied out of a scanned
    /// item, the others (no field's own) taken out.
    written: Vec<(&'static str, bool)>,
    /// What the update is conditioned on beside the item's existence and
    /// type: the attributes an index key is built from, and the version.
    conditioned: Vec<&'static str>,
    /// Attributes the items must not keep ([`Backfill::remove_attributes`]).
    cleared: Vec<String>,
}

impl UpdateShape {
    pub(super) fn of<E: Entity>(cleared: Vec<String>) -> Self {
        let schema = &E::SCHEMA;
        let decoded = |name: &str| {
            name == schema.table.entity_attribute
                || name == crate::item::stored::SCHEMA_VERSION_ATTRIBUTE
        };
        let written = written::<E>()
            .into_iter()
            .map(|a| (a, decoded(a)))
            .collect();
        // A handful of names: a sorted vector, not a hash set.
        let mut conditioned: Vec<&'static str> = schema
            .keys
            .iter()
            .skip(1)
            .flat_map(|key| crate::writes::item::index_inputs(schema, key))
            .chain(crate::writes::item::version_attribute(schema))
            .collect();
        conditioned.sort_unstable();
        conditioned.dedup();
        Self {
            written,
            conditioned,
            cleared,
        }
    }
}

/// The UpdateItem of `item`'s index attributes, `None` when they are right.
pub(super) fn update<E: Entity + 'static>(
    mut item: Item,
    shape: &UpdateShape,
) -> Result<Option<WritePlan<E>>> {
    let schema = &E::SCHEMA;
    let key = Key::<E>::from_item(&item)?;
    // What the write is conditioned on, copied before the item is decoded.
    let read: Vec<(&str, Option<AttributeValue>)> = shape
        .conditioned
        .iter()
        .map(|&attribute| (attribute, item.get(attribute).cloned()))
        .collect();
    let cleared: Vec<&str> = shape
        .cleared
        .iter()
        .map(String::as_str)
        .filter(|attribute| item.contains_key(*attribute))
        .collect();
    // The index attributes as stored.
    let stored: Vec<Option<AttributeValue>> = shape
        .written
        .iter()
        .map(|&(attribute, decoded)| match decoded {
            true => item.get(attribute).cloned(),
            false => item.remove(attribute),
        })
        .collect();
    let mut expected = E::from_item(item)
        .and_then(|entity| entity.to_item())
        .map_err(|e| e.with_key(&key))?;
    let mut p = Placeholders::default();
    let mut sets = ClauseActions::default();
    let mut removes = ClauseActions::default();
    for (&(attribute, _), have) in shape.written.iter().zip(stored) {
        match (expected.remove(attribute), have) {
            (Some(want), Some(have)) if crate::writes::item::same_value(&have, &want) => {}
            (Some(want), _) => sets.assign(&mut p, attribute, want),
            (None, Some(_)) => removes.name(&mut p, attribute),
            (None, None) => {}
        }
    }
    for attribute in cleared {
        removes.name(&mut p, attribute);
    }
    if sets.is_empty() && removes.is_empty() {
        return Ok(None);
    }
    let mut expression = String::new();
    sets.close("SET", &mut expression);
    removes.close("REMOVE", &mut expression);
    let expression = p.fit(schema.entity_type, "update", expression)?;
    // The item as read, written after the update expression (its
    // placeholders are numbered after the update's): it exists, is still
    // this entity, with the values read above.
    let mut condition = Conjunction::default();
    p.write_call(
        "attribute_exists",
        schema.table.pk.name,
        None,
        condition.term(),
    );
    let entity_type = AttributeValue::S(schema.entity_type.to_owned());
    p.write_comparison(
        schema.table.entity_attribute,
        "=",
        entity_type,
        condition.term(),
    );
    for (attribute, value) in read {
        p.write_as_read(attribute, value, condition.term());
    }
    WritePlan::with_condition(key, Action::Update(expression), condition.finish(), p).map(Some)
}

/// What keeps `item` out of `E`'s indexes, or makes writes to it fail.
pub(super) fn violations<E: Entity>(item: &Item) -> Vec<IndexKeyViolation> {
    let schema: &EntitySchema = &E::SCHEMA;
    let key = Key::<E>::read_item(item)
        .map(|k| key_text(&k))
        .unwrap_or_else(|_| "(no key)".into());
    let violation = |attribute: &str, reason: String| IndexKeyViolation {
        key: key.clone(),
        attribute: attribute.to_owned(),
        reason,
    };
    let mut found = Vec::new();
    // What the backfill would write: the item migrated to today's shape.
    let target = match E::from_item(item.clone()).and_then(|entity| entity.to_item()) {
        Ok(target) => target,
        Err(error) => {
            found.push(violation(schema.entity_type, error.to_string()));
            return found;
        }
    };
    let item = &target;
    // The fields' own attributes that an index keys on: DynamoDB leaves an
    // item out of the index when one has another type, and refuses writes
    // that would put an empty or oversized value in it.
    let table = schema.table;
    let own =
        |attribute: &KeyAttribute| !crate::writes::item::maintained_by_ddb(schema, attribute.name);
    let mut checked = HashSet::new();
    let indexes = schema
        .keys
        .iter()
        .skip(1)
        .filter_map(|k| k.index)
        .chain(schema.multi_attribute_keys.iter().map(|k| k.index));
    for index in indexes.filter_map(|name| table.index(name)) {
        let partition = std::iter::once(&index.pk).chain(index.pk_more);
        let sort = index.sk.iter().chain(index.sk_more);
        let attributes = partition
            .map(|a| (a, crate::keys::key::PARTITION_KEY_LIMIT))
            .chain(sort.map(|a| (a, crate::keys::key::SORT_KEY_LIMIT)));
        for (attribute, limit) in attributes.filter(|(a, _)| own(a)) {
            if !checked.insert((index.name, attribute.name)) {
                continue;
            }
            let Some(value) = item.get(attribute.name) else {
                continue;
            };
            let problem = match (attribute.ty, value) {
                (ScalarType::S, AttributeValue::S(s)) if s.is_empty() => {
                    Some("an empty string cannot be an index key".to_owned())
                }
                (ScalarType::S, AttributeValue::S(s)) if s.len() > limit => Some(format!(
                    "{} bytes; index {} keys hold at most {limit}",
                    s.len(),
                    index.name
                )),
                (ScalarType::S, AttributeValue::S(_)) | (ScalarType::N, AttributeValue::N(_)) => {
                    None
                }
                (ty, _) => Some(format!(
                    "index {} keys it as {}, and this item holds another type",
                    index.name,
                    ty.as_str()
                )),
            };
            if let Some(reason) = problem {
                found.push(violation(attribute.name, reason));
            }
        }
    }
    found
}
