//! An entity's item as DynamoDB stores it: prepared (stamped, versioned,
//! index keys current), sized and checked by DynamoDB's rules before sending.

use crate::item::size::{attribute_size, item_size, value_size, ITEM_SIZE_LIMIT};

use std::collections::HashSet;
use std::time::SystemTime;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{EntitySchema, IndexDef, KeyAttribute, KeyDef};
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::expression::Condition;
use crate::item::number::compare_numbers;
use crate::item::Item;
use crate::keys::key::{Key, KeyValues};

/// `PK / SK` of a key, for messages.
pub(crate) fn key_text<E>(key: &Key<E>) -> String {
    key.values().text()
}

pub(crate) fn version_attribute(schema: &EntitySchema) -> Option<&'static str> {
    schema
        .fields
        .iter()
        .find(|f| f.role.version)
        .map(|f| f.attribute)
}

/// Whether `attribute` is the entity's `#[ddb(updated_at)]` stamp (the
/// derive refuses a field that is also `created_at`; a schema built by hand
/// that has one is taken as `Entity::stamps` takes it, as `created_at`).
pub(super) fn is_updated_at(schema: &EntitySchema, attribute: &str) -> bool {
    schema
        .fields
        .iter()
        .any(|f| f.role.updated_at && !f.role.created_at && f.attribute == attribute)
}

pub(super) fn stamp_attributes(schema: &EntitySchema) -> Vec<&'static str> {
    schema
        .fields
        .iter()
        .filter(|f| f.role.created_at || f.role.updated_at)
        .map(|f| f.attribute)
        .collect()
}

/// An entity's item, ready to write: stamped, versioned, size-checked.
pub(crate) struct Prepared<E> {
    pub item: Item,
    pub key: Key<E>,
    /// The item's size as DynamoDB counts it, measured as it was checked.
    pub size: usize,
}

impl<E> Clone for Prepared<E> {
    fn clone(&self) -> Self {
        Self {
            item: self.item.clone(),
            key: self.key.clone(),
            size: self.size,
        }
    }
}

pub(crate) fn prepare<E: Entity>(
    entity: &E,
    created: bool,
    version: Option<u64>,
) -> Result<Prepared<E>> {
    let mut item = entity.to_item()?;
    // The key to_item wrote, read back rather than built a second time.
    let key = Key::read_item(&item)?;
    for (attribute, value) in E::stamps(true, SystemTime::now()) {
        // A put keeps the creation time the entity carries; one that has none
        // (a new entity put rather than created) gets the time of this write.
        let unset = matches!(item.get(attribute), None | Some(AttributeValue::Null(_)));
        if created || is_updated_at(&E::SCHEMA, attribute) || unset {
            item.insert(attribute.to_owned(), value);
        }
    }
    if let (Some(attribute), Some(version)) = (version_attribute(&E::SCHEMA), version) {
        // Written only when the entity's own version (which `to_item` wrote)
        // is not already the one to write.
        match item.get_mut(attribute) {
            Some(AttributeValue::N(stored)) if stored.parse() == Ok(version) => {}
            Some(value) => *value = AttributeValue::N(version.to_string()),
            None => {
                item.insert(attribute.to_owned(), AttributeValue::N(version.to_string()));
            }
        }
    }
    rebuild_stamped_index_keys::<E>(&mut item, &key)?;
    check_attribute_keys(&E::SCHEMA, &mut item)?;
    crate::item::vector::check_vectors(E::SCHEMA.entity_type, E::SCHEMA.table, &mut item)?;
    crate::keys::guard::check_unique_values(&E::SCHEMA, &item)?;
    let size = check_item(&item, &key)?;
    Ok(Prepared { item, key, size })
}

/// Whether an index key is built from a field ddb stamps (the version,
/// `created_at`, `updated_at`) that the primary key does not hold.
const fn index_reads_stamp(schema: &EntitySchema) -> bool {
    let mut f = 0;
    while f < schema.fields.len() {
        let field = &schema.fields[f];
        let stamped = field.role.version || field.role.created_at || field.role.updated_at;
        if stamped && !schema.keys[0].reads(field.name) {
            let mut k = 1;
            while k < schema.keys.len() {
                if schema.keys[k].reads(field.name) {
                    return true;
                }
                k += 1;
            }
        }
        f += 1;
    }
    false
}

/// Index keys built from a field ddb writes itself (`created_at`,
/// `updated_at`, the version) are computed again from the stamped item, so
/// they hold the values written and not the entity's stale ones.
fn rebuild_stamped_index_keys<E: Entity>(item: &mut Item, key: &Key<E>) -> Result<()> {
    // Decided once per entity type, at compile time.
    if !const { index_reads_stamp(&E::SCHEMA) } {
        return Ok(());
    }
    let schema = &E::SCHEMA;
    let table = schema.table;
    for attribute in maintained_index_attributes(schema) {
        item.remove(attribute);
    }
    let stamped_entity = E::from_item(item.clone()).map_err(|e| e.with_key(key))?;
    for (name, values) in stamped_entity.index_keys()? {
        let Some(index) = table.index(name) else {
            continue;
        };
        for (attribute, value) in index_pairs(index, &values) {
            if maintained_by_ddb(schema, attribute.name) {
                item.insert(attribute.name.to_owned(), value.to_attribute_value());
            }
        }
    }
    Ok(())
}

/// The attributes of the table's multi-attribute index keys, as DynamoDB
/// takes them: an attribute that is NULL (an `Option` that is `None`) is left
/// out, so the item is not in that index (DynamoDB refuses NULL in an index
/// key); one of another type than declared, an empty string, or a value over
/// the key size limit is refused before anything is sent.
pub(crate) fn check_attribute_keys(schema: &EntitySchema, item: &mut Item) -> Result<()> {
    for (index, attribute, limit) in attribute_key_attributes(schema.table) {
        if matches!(item.get(attribute.name), Some(AttributeValue::Null(_))) {
            item.remove(attribute.name);
        }
        if let Some(value) = item.get(attribute.name) {
            check_attribute_key(schema.entity_type, index, attribute, limit, value)?;
        }
    }
    Ok(())
}

/// Every attribute of the table's multi-attribute index keys, with its index
/// and the size limit of its side (partition or sort).
pub(crate) fn attribute_key_attributes(
    table: &crate::declaration::model::TableDef,
) -> impl Iterator<Item = (&IndexDef, KeyAttribute, usize)> {
    let multi = table.indexes.iter().filter(|i| i.is_multi_attribute());
    multi.flat_map(|index| {
        let partition = index
            .pk_attributes()
            .map(move |a| (index, a, crate::keys::key::PARTITION_KEY_LIMIT));
        let sort = index
            .sk_attributes()
            .map(move |a| (index, a, crate::keys::key::SORT_KEY_LIMIT));
        partition.chain(sort)
    })
}

/// One value of a multi-attribute index key attribute (see
/// [`check_attribute_keys`]).
pub(crate) fn check_attribute_key(
    entity: &'static str,
    index: &IndexDef,
    attribute: KeyAttribute,
    limit: usize,
    value: &AttributeValue,
) -> Result<()> {
    let invalid = |reason: String| Error::InvalidValue {
        entity,
        reason: format!(
            "attribute `{}` is part of index `{}`'s key: {reason}",
            attribute.name, index.name
        ),
    };
    let text = match (attribute.ty, value) {
        (crate::declaration::model::ScalarType::S, AttributeValue::S(text)) => text,
        (crate::declaration::model::ScalarType::N, AttributeValue::N(text)) => text,
        (ty, other) => {
            return Err(invalid(format!(
                "it must be of type {}, and this value is {}",
                ty.as_str(),
                type_name(other)
            )))
        }
    };
    if text.is_empty() {
        return Err(invalid(
            "an index key cannot be an empty string; leave the attribute out (None) to keep the item out of the index".into(),
        ));
    }
    if text.len() > limit {
        return Err(Error::KeyTooLarge {
            entity,
            key: if limit == crate::keys::key::SORT_KEY_LIMIT {
                "index sort key attribute"
            } else {
                "index partition key attribute"
            },
            size: text.len(),
            limit,
        });
    }
    Ok(())
}

fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "a string (S)",
        AttributeValue::N(_) => "a number (N)",
        AttributeValue::B(_) => "binary (B)",
        AttributeValue::Bool(_) => "a boolean",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "a list",
        AttributeValue::M(_) => "a map",
        _ => "a set",
    }
}

/// Refuses an item larger than 400 KB.
pub(super) fn check_size<E: Entity>(item: &Item, key: &Key<E>) -> Result<()> {
    within_item_limit(item_size(item), key)
}

/// Refuses an update whose item would be over 400 KB whatever it holds
/// now: the item keeps its primary key and entity type, and holds every
/// value the update sets (`set`) and every element it appends or adds
/// (`added`), so their sizes are a floor of its size.
pub(super) fn check_update_floor<'a, E: Entity>(
    set: &Item,
    added: impl Iterator<Item = (&'a str, &'a AttributeValue)>,
    key: &Key<E>,
) -> Result<()> {
    let table = E::SCHEMA.table;
    let values = key.values();
    let mut size = item_size(set);
    size += added
        .map(|(name, value)| attribute_size(name, value))
        .sum::<usize>();
    size += table.pk.name.len() + value_size(&values.pk.to_attribute_value());
    if let (Some(sk), Some(value)) = (table.sk, &values.sk) {
        size += sk.name.len() + value_size(&value.to_attribute_value());
    }
    size += table.entity_attribute.len() + E::SCHEMA.entity_type.len();
    within_item_limit(size, key)
}

fn within_item_limit<E: Entity>(size: usize, key: &Key<E>) -> Result<()> {
    if size > ITEM_SIZE_LIMIT {
        return Err(Error::ItemTooLarge {
            entity: E::SCHEMA.entity_type,
            key: key_text(key),
            size,
            limit: ITEM_SIZE_LIMIT,
        });
    }
    Ok(())
}

/// Refuses an item DynamoDB would, in one pass over it: larger than 400 KB
/// (`ItemTooLarge`, whatever else is wrong), else any value DynamoDB refuses
/// (`InvalidValue`, see [`crate::expr::check_value`]; a value within the
/// item's size is within a value's). Returns the item's size.
fn check_item<E: Entity>(item: &Item, key: &Key<E>) -> Result<usize> {
    let mut size = 0;
    let mut invalid = None;
    for (name, value) in item {
        size += attribute_size(name, value);
        if invalid.is_none() {
            invalid = crate::item::value::check_value_shape(name, value).err();
        }
    }
    within_item_limit(size, key)?;
    match invalid {
        Some(reason) => Err(Error::InvalidValue {
            entity: E::SCHEMA.entity_type,
            reason: format!("{} {reason}", key_text(key)),
        }),
        None => Ok(size),
    }
}

/// Whether two stored items hold the same data: numbers compared by value,
/// sets as sets, maps and lists recursively, `skip` attributes ignored.
pub(crate) fn same_item(a: &Item, b: &Item, skip: &[&str]) -> bool {
    let keys = |item: &Item| -> HashSet<String> {
        item.keys()
            .filter(|k| !skip.contains(&k.as_str()))
            .cloned()
            .collect()
    };
    keys(a) == keys(b)
        && a.iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
}

/// The index key attributes ddb writes for the entity (its template-keyed
/// indexes' attributes that are no field's own), each once.
pub(crate) fn maintained_index_attributes(schema: &EntitySchema) -> Vec<&'static str> {
    let mut names = Vec::new();
    let indexes = schema.keys.iter().skip(1).filter_map(|k| k.index);
    for index in indexes.filter_map(|name| schema.table.index(name)) {
        for attribute in std::iter::once(index.pk).chain(index.sk) {
            if maintained_by_ddb(schema, attribute.name) && !names.contains(&attribute.name) {
                names.push(attribute.name);
            }
        }
    }
    names
}

pub(crate) fn same_value(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue as V;
    match (a, b) {
        (V::N(x), V::N(y)) => compare_numbers(x, y).is_eq(),
        (V::Ns(x), V::Ns(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|n| y.iter().any(|m| compare_numbers(n, m).is_eq()))
        }
        (V::Ss(x), V::Ss(y)) => {
            x.iter().collect::<HashSet<_>>() == y.iter().collect::<HashSet<_>>()
        }
        (V::Bs(x), V::Bs(y)) => {
            x.iter().map(|b| b.as_ref()).collect::<HashSet<_>>()
                == y.iter().map(|b| b.as_ref()).collect::<HashSet<_>>()
        }
        (V::L(x), V::L(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_value(v, w)),
        (V::M(x), V::M(y)) => same_item(x, y, &[]),
        (x, y) => x == y,
    }
}

pub(super) fn stored_version(schema: &EntitySchema, item: Option<&Item>) -> Option<u64> {
    let attribute = version_attribute(schema)?;
    item?.get(attribute)?.as_n().ok()?.parse().ok()
}

/// The attributes of the fields index `key` is built from, but for those of
/// the primary key (which an update never changes); one that the key reads
/// twice comes twice.
pub(crate) fn index_inputs<'a>(
    schema: &'a EntitySchema,
    key: &'a KeyDef,
) -> impl Iterator<Item = &'static str> + 'a {
    key.inputs()
        .filter(|field| !schema.primary().reads(field))
        .filter_map(|field| schema.field(field).map(|f| f.attribute))
}

/// The version after `expected`; refused at the top of the integer range
/// rather than wrapping.
pub(super) fn next_version(entity: &'static str, expected: u64) -> Result<u64> {
    expected
        .checked_add(1)
        .ok_or_else(|| Error::InvalidRequest {
            entity,
            reason: format!("version {expected} is the largest there is; it cannot be incremented"),
        })
}

/// The version after `expected`, as DynamoDB stores it.
pub(super) fn version_value(entity: &'static str, expected: u64) -> Result<AttributeValue> {
    Ok(AttributeValue::N(
        next_version(entity, expected)?.to_string(),
    ))
}

/// `version = expected`, the optimistic-locking condition.
pub(super) fn version_is<E>(
    attribute: &'static str,
    expected: u64,
) -> crate::expression::Condition<E> {
    crate::expression::Condition::compare_value(
        attribute,
        "=",
        AttributeValue::N(expected.to_string()),
    )
}

/// Whether ddb writes index attribute `name` itself: not the table's own
/// key, and not a field's own attribute (a raw-key index reads the field).
pub(crate) fn maintained_by_ddb(schema: &EntitySchema, name: &str) -> bool {
    let table = schema.table;
    name != table.pk.name
        && Some(name) != table.sk.map(|a| a.name)
        && !schema.fields.iter().any(|f| f.attribute == name)
}

/// The key attributes of `index` with the values of `values`, in order.
pub(super) fn index_pairs<'a>(
    index: &IndexDef,
    values: &'a KeyValues,
) -> impl Iterator<Item = (KeyAttribute, &'a crate::keys::key::KeyValue)> {
    let pairs = std::iter::once(&values.pk).chain(values.sk.iter());
    std::iter::once(index.pk).chain(index.sk).zip(pairs)
}

/// No item at the key, or an expired one: every read treats an expired item
/// as absent (DynamoDB deletes it days later), and a write that expects none
/// takes its place.
pub(super) fn absent_or_expired<E: Entity>() -> Condition<E> {
    let absent = Condition::attribute_not_exists(<E::Table as Table>::DEF.pk.name);
    match crate::item::timestamp::ttl_attribute(&E::SCHEMA) {
        Some(ttl) => absent | Condition::expired(ttl, crate::item::timestamp::now_epoch_seconds()),
        None => absent,
    }
}

/// Whether `E` keeps unique values.
pub(crate) fn has_unique<E: Entity>() -> bool {
    !E::SCHEMA.unique.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_compare_by_value() {
        let a: Item = [("n".to_string(), AttributeValue::N("1.50".into()))].into();
        let b: Item = [("n".to_string(), AttributeValue::N("1.5".into()))].into();
        assert!(same_item(&a, &b, &[]));
        let c: Item = [("n".to_string(), AttributeValue::N("2".into()))].into();
        assert!(!same_item(&a, &c, &[]));
        let mut d = c.clone();
        d.insert("updated".into(), AttributeValue::S("x".into()));
        assert!(same_item(&c, &d, &["updated"]));
    }
}
