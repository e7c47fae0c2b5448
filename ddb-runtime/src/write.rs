//! Writes: idempotent create, put, delete and typed updates that keep every
//! index key right, with optimistic locking and sizes checked before sending.

use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use serde::Serialize;

use crate::db::Db;
use crate::error::{Error, ExistingItem, Result};
use crate::expr::{Attr, Condition, IntoValue, Placeholders, Value};
use crate::model::EntitySchema;
use crate::sort::compare_numbers;
use crate::{Entity, Item, Key, KeyValues, Table};

/// DynamoDB's item size limit: 400 KB (409,600 bytes).
pub const ITEM_SIZE_LIMIT: usize = 409_600;

/// The size of an item by DynamoDB's rules: the UTF-8 bytes of every
/// attribute name plus its value's size (strings by UTF-8 bytes, binaries by
/// raw bytes, numbers by about one byte per two significant digits plus one,
/// booleans and nulls one byte, lists and maps three bytes plus one per
/// element).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let item = [
///     ("shirt-color".to_string(), AttributeValue::S("R".into())),
///     ("shirt-size".to_string(), AttributeValue::S("M".into())),
/// ]
/// .into();
/// assert_eq!(ddb_runtime::write::item_size(&item), 23); // AWS's own example
/// ```
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

fn number_size(number: &str) -> usize {
    let digits: String = number
        .chars()
        .take_while(|c| *c != 'e' && *c != 'E')
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits
        .trim_start_matches('0')
        .trim_end_matches('0')
        .len()
        .max(1);
    significant.div_ceil(2) + 1
}

fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(items) => items.iter().map(String::len).sum(),
        AttributeValue::Ns(items) => items.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(items) => items.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(items) => 3 + items.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(k, v)| k.len() + value_size(v) + 1)
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// `PK / SK` of a key, for messages.
pub(crate) fn key_text<E>(key: &Key<E>) -> String {
    match key.sk() {
        Some(sk) => format!("{} / {}", key.pk(), sk),
        None => key.pk().to_string(),
    }
}

fn version_attribute(schema: &EntitySchema) -> Option<&'static str> {
    schema
        .fields
        .iter()
        .find(|f| f.role.version)
        .map(|f| f.attribute)
}

fn stamp_attributes(schema: &EntitySchema) -> Vec<&'static str> {
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
}

pub(crate) fn prepare<E: Entity>(
    entity: &E,
    created: bool,
    version: Option<u64>,
) -> Result<Prepared<E>> {
    let key = entity.primary_key()?;
    let mut item = entity.to_item()?;
    let now = SystemTime::now();
    for (attribute, value) in E::stamps(true, now) {
        // A put keeps the creation time the entity carries; one that has none
        // (a new entity put rather than created) gets the time of this write.
        let unset = matches!(item.get(attribute), None | Some(AttributeValue::Null(_)));
        let is_updated_at = E::stamps(false, now).iter().any(|(a, _)| *a == attribute);
        if created || is_updated_at || unset {
            item.insert(attribute.to_owned(), value);
        }
    }
    if let (Some(attribute), Some(version)) = (version_attribute(&E::SCHEMA), version) {
        item.insert(attribute.to_owned(), AttributeValue::N(version.to_string()));
    }
    rebuild_stamped_index_keys::<E>(&mut item, &key)?;
    check_size::<E>(&item, &key)?;
    if let Err(reason) = check_values(&item) {
        return Err(Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: format!("{} {reason}", key_text(&key)),
        });
    }
    Ok(Prepared { item, key })
}

/// Index keys built from a field ddb writes itself (`created_at`,
/// `updated_at`, the version) are computed again from the stamped item, so
/// they hold the values written and not the entity's stale ones.
fn rebuild_stamped_index_keys<E: Entity>(item: &mut Item, key: &Key<E>) -> Result<()> {
    let schema = &E::SCHEMA;
    let stamped: Vec<&str> = schema
        .fields
        .iter()
        .filter(|f| f.role.version || f.role.created_at || f.role.updated_at)
        .map(|f| f.attribute)
        .collect();
    let reads_stamp = schema.keys[1..]
        .iter()
        .any(|k| index_inputs(schema, k).iter().any(|a| stamped.contains(a)));
    if !reads_stamp {
        return Ok(());
    }
    let table = schema.table;
    let fields: HashSet<&str> = schema.fields.iter().map(|f| f.attribute).collect();
    let index_attribute = |name: &str| {
        name != table.pk.name && Some(name) != table.sk.map(|a| a.name) && !fields.contains(name)
    };
    for index in schema.keys[1..]
        .iter()
        .filter_map(|k| table.index(k.index?))
    {
        for attribute in std::iter::once(index.pk).chain(index.sk) {
            if index_attribute(attribute.name) {
                item.remove(attribute.name);
            }
        }
    }
    let stamped_entity = E::from_item(item.clone()).map_err(|e| e.with_key(key))?;
    for (name, values) in stamped_entity.index_keys()? {
        let Some(index) = table.index(name) else {
            continue;
        };
        let pairs = std::iter::once(&values.pk).chain(values.sk.iter());
        for (attribute, value) in std::iter::once(index.pk).chain(index.sk).zip(pairs) {
            if index_attribute(attribute.name) {
                item.insert(attribute.name.to_owned(), value.to_attribute_value());
            }
        }
    }
    Ok(())
}

/// DynamoDB's list and map nesting limit.
const MAX_NESTING: usize = 32;

/// Refuses what DynamoDB would: numbers that are not numbers (NaN, infinity),
/// have more than 38 significant digits or are out of range, empty sets, and
/// lists or maps nested deeper than 32 levels.
pub(crate) fn check_values(item: &Item) -> std::result::Result<(), String> {
    fn check(name: &str, value: &AttributeValue, depth: usize) -> std::result::Result<(), String> {
        match value {
            AttributeValue::N(n) => number(name, n),
            AttributeValue::Ns(ns) if ns.is_empty() => {
                Err(format!("attribute `{name}` is an empty number set"))
            }
            AttributeValue::Ns(ns) => ns.iter().try_for_each(|n| number(name, n)),
            AttributeValue::Ss(ss) if ss.is_empty() => {
                Err(format!("attribute `{name}` is an empty string set"))
            }
            AttributeValue::Bs(bs) if bs.is_empty() => {
                Err(format!("attribute `{name}` is an empty binary set"))
            }
            AttributeValue::L(_) | AttributeValue::M(_) if depth >= MAX_NESTING => Err(format!(
                "attribute `{name}` nests lists or maps deeper than {MAX_NESTING} levels"
            )),
            AttributeValue::L(items) => items.iter().try_for_each(|v| check(name, v, depth + 1)),
            AttributeValue::M(map) => map.values().try_for_each(|v| check(name, v, depth + 1)),
            _ => Ok(()),
        }
    }
    fn number(name: &str, text: &str) -> std::result::Result<(), String> {
        let invalid = || {
            format!("attribute `{name}` holds `{text}`, which DynamoDB cannot store as a number")
        };
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().map_err(|_| invalid())?),
            None => (unsigned, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if (int.is_empty() && frac.is_empty())
            || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
        {
            return Err(invalid());
        }
        let digits = format!("{int}{frac}");
        let leading = digits.len() - digits.trim_start_matches('0').len();
        let significant = digits.trim_matches('0');
        if significant.is_empty() {
            return Ok(()); // zero
        }
        if significant.len() > 38 {
            return Err(format!(
                "attribute `{name}` has more than 38 significant digits"
            ));
        }
        // The decimal exponent of the first significant digit.
        let magnitude = int.len() as i64 - leading as i64 - 1 + exponent;
        if !(-130..=125).contains(&magnitude) {
            return Err(format!(
                "attribute `{name}` is outside DynamoDB's number range"
            ));
        }
        Ok(())
    }
    item.iter().try_for_each(|(name, v)| check(name, v, 0))
}

fn check_size<E>(item: &Item, key: &Key<E>) -> Result<()>
where
    E: Entity,
{
    let size = item_size(item);
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

fn same_value(a: &AttributeValue, b: &AttributeValue) -> bool {
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

/// The pieces of a conditional write.
pub(crate) struct Conditional {
    pub expression: Option<String>,
    pub placeholders: Placeholders,
}

/// A write's condition expression, its names and values registered in
/// `placeholders`, checked against DynamoDB's expression limit.
pub(crate) fn render_condition<E: Entity>(
    condition: Option<&Condition<E>>,
    placeholders: &mut Placeholders,
) -> Result<Option<String>> {
    let entity = E::SCHEMA.entity_type;
    let Some(condition) = condition else {
        return Ok(None);
    };
    let text = condition
        .render(placeholders)
        .map_err(|reason| Error::InvalidRequest { entity, reason })?;
    crate::expr::check_expression(entity, "condition", &text)?;
    Ok(Some(text))
}

fn and<E>(a: Option<Condition<E>>, b: Condition<E>) -> Condition<E> {
    match a {
        Some(a) => a & b,
        None => b,
    }
}

fn stored_version(schema: &EntitySchema, item: Option<&Item>) -> Option<u64> {
    let attribute = version_attribute(schema)?;
    item?.get(attribute)?.as_n().ok()?.parse().ok()
}

/// Maps a failed conditional write: a version conflict when the version is
/// off, `NotFound` for a missing item when one was required, else a failed
/// condition carrying the stored item.
pub(crate) fn condition_error<E: Entity>(
    key: &Key<E>,
    existing: Option<Item>,
    expected_version: Option<u64>,
    required: bool,
) -> Error {
    let schema = &E::SCHEMA;
    let key = key_text(key);
    if let Some(expected) = expected_version {
        let current = stored_version(schema, existing.as_ref());
        if current != Some(expected) && !(expected == 0 && existing.is_none()) {
            return Error::VersionConflict {
                entity: schema.entity_type,
                key,
                expected,
                current,
            };
        }
    }
    let gone = existing
        .as_ref()
        .is_none_or(|item| crate::timestamp::expired(schema, item));
    if required && gone {
        return Error::NotFound {
            entity: schema.entity_type,
            key,
        };
    }
    Error::ConditionFailed {
        entity: schema.entity_type,
        key,
        existing: existing.map(ExistingItem),
    }
}

/// The stored item of a ConditionalCheckFailedException, when the error is one.
fn failed_condition<E>(
    error: &SdkError<E, aws_sdk_dynamodb::config::http::HttpResponse>,
) -> Option<Option<Item>>
where
    E: ConditionFailure,
{
    error
        .as_service_error()
        .and_then(ConditionFailure::condition_failed)
}

/// Service errors that can be a ConditionalCheckFailedException.
pub(crate) trait ConditionFailure {
    /// `Some(item)` for a failed condition (the item when ALL_OLD returned one).
    fn condition_failed(&self) -> Option<Option<Item>>;
}

macro_rules! condition_failure {
    ($($error:ty => $variant:path),* $(,)?) => {$(
        impl ConditionFailure for $error {
            fn condition_failed(&self) -> Option<Option<Item>> {
                match self {
                    $variant(e) => Some(e.item.clone()),
                    _ => None,
                }
            }
        }
    )*};
}

condition_failure!(
    aws_sdk_dynamodb::operation::put_item::PutItemError => aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemError => aws_sdk_dynamodb::operation::delete_item::DeleteItemError::ConditionalCheckFailedException,
    aws_sdk_dynamodb::operation::update_item::UpdateItemError => aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException,
);

/// Whether `create` wrote the item or found it already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// The item was written.
    Created,
    /// An identical item was already stored (a retried create): nothing changed.
    AlreadyExisted,
}

/// An idempotent create; finish with [`send`](Create::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Create<E> {
    db: Db,
    prepared: Result<Prepared<E>>,
}

impl Db {
    /// Writes `entity` if no item has its key (`attribute_not_exists`).
    ///
    /// Idempotent: when the item is already there and holds the same data
    /// (ignoring the `created_at`/`updated_at` ddb sets), the call succeeds
    /// with [`Created::AlreadyExisted`], so a retry after a lost response is
    /// safe. A different item at the key is [`Error::AlreadyExists`], carrying
    /// the stored item. A `#[ddb(version)]` field is written as 1.
    pub fn create<E: Entity + 'static>(&self, entity: &E) -> Create<E> {
        Create {
            db: self.clone(),
            prepared: prepare(entity, true, Some(1)),
        }
    }

    /// Writes `entity`, replacing any item at its key (an upsert).
    ///
    /// With a `#[ddb(version)]` field, the stored version must equal the
    /// entity's (or no item may exist when it is 0), and version + 1 is
    /// written: a stale entity is an [`Error::VersionConflict`].
    pub fn put<E: Entity + 'static>(&self, entity: &E) -> Put<E> {
        let expected = entity.version();
        let next = expected.map(|v| {
            v.checked_add(1).ok_or_else(|| Error::InvalidRequest {
                entity: E::SCHEMA.entity_type,
                reason: format!("version {v} is the largest there is; it cannot be incremented"),
            })
        });
        Put {
            db: self.clone(),
            prepared: next
                .transpose()
                .and_then(|next| prepare(entity, false, next)),
            expected_version: expected,
            condition: None,
            return_old: false,
        }
    }

    /// Deletes the item at `key`. Deleting a missing item is not an error
    /// unless a condition says so.
    pub fn delete<E: Entity + 'static>(&self, key: Key<E>) -> Delete<E> {
        Delete {
            db: self.clone(),
            key: Ok(key),
            expected_version: None,
            condition: None,
            return_old: false,
        }
    }

    /// Deletes a loaded entity, checking its `#[ddb(version)]` if it has one.
    pub fn delete_entity<E: Entity + 'static>(&self, entity: &E) -> Delete<E> {
        Delete {
            db: self.clone(),
            key: entity.primary_key(),
            expected_version: entity.version(),
            condition: None,
            return_old: false,
        }
    }

    /// A typed UpdateItem of the item at `key` (which must exist).
    pub fn update<E: Entity + 'static>(&self, key: Key<E>) -> Update<E> {
        Update {
            db: self.clone(),
            key,
            ops: Vec::new(),
            expected_version: None,
            condition: None,
            return_new: false,
            error: None,
        }
    }
}

impl<E: Entity + 'static> Create<E> {
    /// Sends the PutItem.
    pub async fn send(self) -> Result<Created> {
        let Prepared { item, key } = self.prepared?;
        tracing::debug!(entity = E::SCHEMA.entity_type, "ddb create");
        let table = self.db.table_name::<E::Table>().to_owned();
        let pk = <E::Table as Table>::DEF.pk.name;
        let ours = item.clone();
        let result = self
            .db
            .client()
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", pk)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match result {
            Ok(_) => Ok(Created::Created),
            Err(error) => match failed_condition(&error) {
                Some(Some(existing)) => {
                    if same_item(&existing, &ours, &stamp_attributes(&E::SCHEMA)) {
                        Ok(Created::AlreadyExisted)
                    } else {
                        Err(Error::AlreadyExists {
                            entity: E::SCHEMA.entity_type,
                            key: key_text(&key),
                            existing: ExistingItem(existing),
                        })
                    }
                }
                Some(None) => Err(condition_error(&key, None, None, false)),
                None => Err(Error::sdk("PutItem", error)),
            },
        }
    }
}

/// A write's target, its full condition and the version it expects.
pub(crate) type WriteParts<T, E> = (T, Option<Condition<E>>, Option<u64>);

/// What a put, delete or update left behind.
#[derive(Debug, Clone, PartialEq)]
pub struct Written<E> {
    /// The version now stored, for entities with `#[ddb(version)]`.
    pub version: Option<u64>,
    /// The item before the write (put and delete with `return_old`) or after
    /// it (update with `return_new`).
    pub item: Option<E>,
}

/// A put (upsert); finish with [`send`](Put::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Put<E> {
    db: Db,
    prepared: Result<Prepared<E>>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_old: bool,
}

impl<E: Entity + 'static> Put<E> {
    /// Writes only if `condition` holds on the stored item.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the replaced item.
    pub fn return_old(mut self) -> Self {
        self.return_old = true;
        self
    }

    fn full_condition(&self) -> Option<Condition<E>> {
        let mut condition = self.condition.clone();
        if let (Some(attribute), Some(expected)) =
            (version_attribute(&E::SCHEMA), self.expected_version)
        {
            let version = if expected == 0 {
                Condition::attribute_not_exists(<E::Table as Table>::DEF.pk.name)
            } else {
                Condition::compare_value(attribute, "=", AttributeValue::N(expected.to_string()))
            };
            condition = Some(and(condition, version));
        }
        condition
    }

    pub(crate) fn into_parts(self) -> Result<WriteParts<Prepared<E>, E>> {
        let condition = self.full_condition();
        Ok((self.prepared?, condition, self.expected_version))
    }

    /// Sends the PutItem.
    pub async fn send(self) -> Result<Written<E>> {
        let db = self.db.clone();
        let return_old = self.return_old;
        let (Prepared { item, key }, condition, expected) = self.into_parts()?;
        tracing::debug!(
            entity = E::SCHEMA.entity_type,
            versioned = expected.is_some(),
            "ddb put"
        );
        let mut p = Placeholders::default();
        let expression = render_condition(condition.as_ref(), &mut p)?;
        let result = db
            .client()
            .put_item()
            .table_name(db.table_name::<E::Table>())
            .set_item(Some(item))
            .set_condition_expression(expression)
            .set_expression_attribute_names(p.names())
            .set_expression_attribute_values(p.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .set_return_values(return_old.then_some(ReturnValue::AllOld))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match result {
            Ok(output) => Ok(Written {
                version: expected.map(|v| v + 1),
                item: output.attributes.map(E::from_item).transpose()?,
            }),
            Err(error) => match failed_condition(&error) {
                Some(existing) => Err(condition_error(&key, existing, expected, false)),
                None => Err(Error::sdk("PutItem", error)),
            },
        }
    }
}

/// A delete; finish with [`send`](Delete::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Delete<E> {
    db: Db,
    key: Result<Key<E>>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_old: bool,
}

impl<E: Entity + 'static> Delete<E> {
    /// Deletes only if the stored version is `version`.
    pub fn expect_version(mut self, version: u64) -> Self {
        self.expected_version = Some(version);
        self
    }

    /// Deletes only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the deleted item.
    pub fn return_old(mut self) -> Self {
        self.return_old = true;
        self
    }

    pub(crate) fn into_parts(self) -> Result<WriteParts<Key<E>, E>> {
        let mut condition = self.condition;
        if let (Some(attribute), Some(expected)) =
            (version_attribute(&E::SCHEMA), self.expected_version)
        {
            condition = Some(and(
                condition,
                Condition::compare_value(attribute, "=", AttributeValue::N(expected.to_string())),
            ));
        }
        Ok((self.key?, condition, self.expected_version))
    }

    /// Sends the DeleteItem.
    pub async fn send(self) -> Result<Written<E>> {
        let db = self.db.clone();
        let return_old = self.return_old;
        let (key, condition, expected) = self.into_parts()?;
        tracing::debug!(
            entity = E::SCHEMA.entity_type,
            versioned = expected.is_some(),
            "ddb delete"
        );
        let mut p = Placeholders::default();
        let expression = render_condition(condition.as_ref(), &mut p)?;
        let result = db
            .client()
            .delete_item()
            .table_name(db.table_name::<E::Table>())
            .set_key(Some(key.to_item()))
            .set_condition_expression(expression)
            .set_expression_attribute_names(p.names())
            .set_expression_attribute_values(p.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .set_return_values(return_old.then_some(ReturnValue::AllOld))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match result {
            Ok(output) => Ok(Written {
                version: None,
                item: output.attributes.map(E::from_item).transpose()?,
            }),
            Err(error) => match failed_condition(&error) {
                Some(existing) => Err(condition_error(&key, existing, expected, false)),
                None => Err(Error::sdk("DeleteItem", error)),
            },
        }
    }
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be updated",
    label = "this field is part of the primary key",
    note = "a field of the primary key names the item; to change it, delete the item and create it under the new key (in one transaction)"
)]
pub trait Updatable<E, T> {
    /// The attribute name.
    fn attribute(&self) -> &'static str;
}

impl<E, T> Updatable<E, T> for Attr<E, T, Value> {
    fn attribute(&self) -> &'static str {
        self.name()
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
/// the same UpdateItem, and a sparse index whose predicate no longer holds
/// loses its key attributes in that request too. To compute them, ddb reads
/// the item first (a strongly consistent GetItem) when the update touches an
/// index's field or the entity has a sparse index, and makes the UpdateItem
/// conditional on what it read (the version, when the entity has one).
#[must_use = "a request does nothing until it is sent"]
pub struct Update<E> {
    db: Db,
    key: Key<E>,
    ops: Vec<Op>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_new: bool,
    error: Option<Error>,
}

/// A set value as a DynamoDB set (serde writes Rust sets as lists); numbers
/// pass through. An empty set is refused: DynamoDB has no empty sets.
fn as_set<E: Entity>(value: AttributeValue) -> Result<AttributeValue> {
    let invalid = |reason: &str| Error::InvalidRequest {
        entity: E::SCHEMA.entity_type,
        reason: reason.to_owned(),
    };
    match value {
        AttributeValue::L(items) if items.is_empty() => {
            Err(invalid("DynamoDB sets cannot be empty"))
        }
        AttributeValue::L(items) if items.iter().all(|v| v.is_s()) => Ok(AttributeValue::Ss(
            items
                .into_iter()
                .filter_map(|v| v.as_s().ok().cloned())
                .collect(),
        )),
        AttributeValue::L(items) if items.iter().all(|v| v.is_n()) => Ok(AttributeValue::Ns(
            items
                .into_iter()
                .filter_map(|v| v.as_n().ok().cloned())
                .collect(),
        )),
        AttributeValue::L(_) => Err(invalid("a set holds strings or numbers, all of one type")),
        AttributeValue::Ss(items) | AttributeValue::Ns(items) if items.is_empty() => {
            Err(invalid("DynamoDB sets cannot be empty"))
        }
        other => Ok(other),
    }
}

fn to_value<E: Entity, T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue> {
    serde_dynamo::to_attribute_value(value).map_err(|source| Error::Encode {
        entity: E::SCHEMA.entity_type,
        source,
    })
}

impl<E: Entity + 'static> Update<E> {
    fn push(mut self, op: Result<Op>) -> Self {
        match op {
            Ok(op) => self.ops.push(op),
            Err(error) => self.error = self.error.or(Some(error)),
        }
        self
    }

    /// `SET attribute = value`.
    pub fn set<T: Serialize>(
        self,
        attribute: impl Updatable<E, T>,
        value: impl IntoValue<T>,
    ) -> Self {
        let name = attribute.attribute();
        self.push(to_value::<E, T>(&value.into_value()).map(|v| Op::Set(name, v)))
    }

    /// `REMOVE attribute`, for an optional field.
    pub fn remove<T>(self, attribute: impl Updatable<E, Option<T>>) -> Self {
        let name = attribute.attribute();
        self.push(Ok(Op::Remove(name)))
    }

    /// `ADD attribute value`: adds to a number, or adds elements to a set
    /// (a set field is stored as a DynamoDB set with
    /// `#[serde(with = "serde_dynamo::string_set")]` or `number_set`).
    pub fn add<T: Serialize + Addable>(self, attribute: impl Updatable<E, T>, value: T) -> Self {
        let name = attribute.attribute();
        self.push(
            to_value::<E, T>(&value)
                .and_then(as_set::<E>)
                .map(|v| Op::Add(name, v)),
        )
    }

    /// `SET attribute = list_append(attribute, items)`.
    pub fn append<T: Serialize>(self, attribute: impl Updatable<E, Vec<T>>, items: Vec<T>) -> Self {
        let name = attribute.attribute();
        self.push(to_value::<E, Vec<T>>(&items).map(|v| Op::Append(name, v)))
    }

    /// `DELETE attribute elements`: removes elements from a set.
    pub fn delete_from_set<T: Serialize + Addable>(
        self,
        attribute: impl Updatable<E, T>,
        elements: T,
    ) -> Self {
        let name = attribute.attribute();
        self.push(
            to_value::<E, T>(&elements)
                .and_then(as_set::<E>)
                .map(|v| Op::DeleteFromSet(name, v)),
        )
    }

    /// Updates only if the stored version is `version`.
    pub fn expect_version(mut self, version: u64) -> Self {
        self.expected_version = Some(version);
        self
    }

    /// Updates only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the item as it is after the update.
    pub fn return_new(mut self) -> Self {
        self.return_new = true;
        self
    }

    /// Builds the UpdateItem. Index keys that depend on a changed field are
    /// recomputed in the same request: from the primary key and the values
    /// the update sets when those are all an index reads, else from the item
    /// read first, with the write conditioned on everything read.
    pub(crate) async fn prepare(self) -> Result<PreparedUpdate<E>> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let schema = &E::SCHEMA;
        let table = schema.table;
        let entity = schema.entity_type;
        if self.ops.is_empty() {
            return Err(Error::InvalidRequest {
                entity,
                reason: "an update needs at least one change".into(),
            });
        }
        let mut seen = HashSet::new();
        if let Some(op) = self.ops.iter().find(|op| !seen.insert(op.attribute())) {
            return Err(Error::InvalidRequest {
                entity,
                reason: format!(
                    "attribute `{}` is changed twice in one update; DynamoDB refuses overlapping paths",
                    op.attribute()
                ),
            });
        }
        let mut p = Placeholders::default();
        let mut sets: Vec<String> = Vec::new();
        let mut removes: Vec<String> = Vec::new();
        let mut adds: Vec<String> = Vec::new();
        let mut deletes: Vec<String> = Vec::new();
        for op in &self.ops {
            match op {
                Op::Set(a, v) => sets.push(format!("{} = {}", p.name(a), p.value(v.clone()))),
                Op::Remove(a) => removes.push(p.name(a)),
                Op::Add(a, v) => adds.push(format!("{} {}", p.name(a), p.value(v.clone()))),
                Op::Append(a, v) => {
                    let name = p.name(a);
                    let empty = p.value(AttributeValue::L(Vec::new()));
                    sets.push(format!(
                        "{name} = list_append(if_not_exists({name}, {empty}), {})",
                        p.value(v.clone())
                    ))
                }
                Op::DeleteFromSet(a, v) => {
                    deletes.push(format!("{} {}", p.name(a), p.value(v.clone())))
                }
            }
        }
        // What the item's attributes are after the update, where the update
        // alone decides them: values it sets, and attributes it removes.
        let mut known: Item = Item::new();
        let mut removed: HashSet<&str> = HashSet::new();
        let mut touched: HashSet<&str> = HashSet::new();
        for op in &self.ops {
            touched.insert(op.attribute());
            match op {
                Op::Set(a, v) => {
                    known.insert((*a).to_owned(), v.clone());
                }
                Op::Remove(a) => {
                    removed.insert(a);
                }
                _ => {}
            }
        }
        let now = SystemTime::now();
        let updated = E::stamps(false, now);
        for (attribute, value) in &updated {
            sets.push(format!(
                "{} = {}",
                p.name(attribute),
                p.value(value.clone())
            ));
            known.insert((*attribute).to_owned(), value.clone());
            touched.insert(attribute);
        }
        for (attribute, value) in E::stamps(true, now) {
            if !updated.iter().any(|(a, _)| *a == attribute) {
                let name = p.name(attribute);
                sets.push(format!(
                    "{name} = if_not_exists({name}, {})",
                    p.value(value)
                ));
            }
        }
        let version = version_attribute(schema);
        if let Some(attribute) = version {
            touched.insert(attribute);
            if let Some(expected) = self.expected_version {
                known.insert(attribute.to_owned(), version_value(entity, expected)?);
            }
        }

        let mut condition = Some(and(
            self.condition.clone(),
            Condition::attribute_exists(table.pk.name),
        ));
        // An item past its time to live is gone but for DynamoDB's sweep: an
        // update must not bring it back.
        if let Some(ttl) = crate::timestamp::ttl_attribute(schema) {
            let now = AttributeValue::N(crate::timestamp::now_epoch_seconds().to_string());
            let expired =
                Condition::attribute_is_number(ttl) & Condition::compare_value(ttl, "<=", now);
            condition = Some(and(condition, !expired));
        }

        // The indexes whose keys or membership this update can change, and
        // whether the update alone decides every input of each.
        let stale: Vec<(usize, Vec<&'static str>)> = schema
            .keys
            .iter()
            .enumerate()
            .skip(1)
            .map(|(position, key)| (position, index_inputs(schema, key)))
            .filter(|(_, inputs)| inputs.iter().any(|a| touched.contains(a)))
            .collect();
        let decided = |position: usize, inputs: &[&str]| {
            schema.keys[position].membership.is_none_or(|m| m.evaluable)
                && inputs
                    .iter()
                    .all(|a| known.contains_key(*a) || removed.contains(a))
        };
        let needs_read = stale
            .iter()
            .any(|(position, inputs)| !decided(*position, inputs));

        let mut expected = self.expected_version;
        let mut read = None;
        let new_keys: Vec<(usize, Option<KeyValues>)> = if needs_read {
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
            // The update is conditioned on what it read: the version, or
            // else every index input it did not decide itself.
            let mut conditioned: Vec<&'static str> = Vec::new();
            if let Some(attribute) = version {
                expected = expected.or_else(|| stored_version(schema, Some(&current)));
                if let Some(expected) = expected {
                    next.insert(attribute.to_owned(), version_value(entity, expected)?);
                }
            } else {
                for (_, inputs) in &stale {
                    for attribute in inputs {
                        let decided_here =
                            known.contains_key(*attribute) || removed.contains(attribute);
                        if !decided_here && !conditioned.contains(attribute) {
                            conditioned.push(attribute);
                        }
                    }
                }
                for attribute in &conditioned {
                    condition = Some(and(
                        condition,
                        match current.get(*attribute) {
                            Some(value) => Condition::compare_value(attribute, "=", value.clone()),
                            None => Condition::attribute_not_exists(attribute),
                        },
                    ));
                }
            }
            check_size::<E>(&next, &self.key)?;
            let entity_now = E::from_item(next).map_err(|e| e.with_key(&self.key))?;
            let mut all: HashMap<&'static str, KeyValues> =
                entity_now.index_keys()?.into_iter().collect();
            read = Some(ReadFirst {
                item: current,
                conditioned,
                version_derived: self.expected_version.is_none() && expected.is_some(),
            });
            stale
                .iter()
                .map(|(position, _)| {
                    let name = schema.keys[*position].index.unwrap_or_default();
                    (*position, all.remove(name))
                })
                .collect()
        } else {
            stale
                .iter()
                .map(|(position, _)| {
                    E::index_key_from(*position, &self.key, &known).map(|keys| (*position, keys))
                })
                .collect::<Result<_>>()?
        };

        // SET the index attributes of the indexes the item is in, REMOVE
        // those of the sparse ones it left. The table's own key never
        // changes, and a raw-key index attribute that is a field's own
        // attribute is written by the field.
        let field_attributes: HashSet<&str> = schema.fields.iter().map(|f| f.attribute).collect();
        let written_elsewhere = |name: &str| {
            name == table.pk.name
                || Some(name) == table.sk.map(|a| a.name)
                || field_attributes.contains(name)
        };
        for (position, values) in &new_keys {
            let Some(index) = schema.keys[*position].index.and_then(|n| table.index(n)) else {
                continue;
            };
            let attributes = std::iter::once(index.pk).chain(index.sk);
            match values {
                Some(values) => {
                    let pairs = std::iter::once(&values.pk).chain(values.sk.iter());
                    for (attribute, value) in attributes.zip(pairs) {
                        if !written_elsewhere(attribute.name) {
                            sets.push(format!(
                                "{} = {}",
                                p.name(attribute.name),
                                p.value(value.to_attribute_value())
                            ));
                        }
                    }
                }
                None => {
                    for attribute in attributes.filter(|a| !written_elsewhere(a.name)) {
                        removes.push(p.name(attribute.name));
                    }
                }
            }
        }
        if let Some(version) = version {
            let name = p.name(version);
            match expected {
                Some(expected) => {
                    condition = Some(and(
                        condition,
                        Condition::compare_value(
                            version,
                            "=",
                            AttributeValue::N(expected.to_string()),
                        ),
                    ));
                    sets.push(format!(
                        "{name} = {}",
                        p.value(version_value(entity, expected)?)
                    ));
                }
                None => adds.push(format!("{name} {}", p.value(AttributeValue::N("1".into())))),
            }
        }
        // Two indexes sharing an attribute name the same value; name it once.
        let mut set_names: HashSet<String> = HashSet::new();
        sets.retain(|s| set_names.insert(s.split(' ').next().unwrap_or_default().to_owned()));
        removes.retain(|r| !set_names.contains(r));
        let mut removed_names = HashSet::new();
        removes.retain(|r| removed_names.insert(r.clone()));
        let mut clauses = Vec::new();
        if !sets.is_empty() {
            clauses.push(format!("SET {}", sets.join(", ")));
        }
        if !removes.is_empty() {
            clauses.push(format!("REMOVE {}", removes.join(", ")));
        }
        if !adds.is_empty() {
            clauses.push(format!("ADD {}", adds.join(", ")));
        }
        if !deletes.is_empty() {
            clauses.push(format!("DELETE {}", deletes.join(", ")));
        }
        let condition_text = render_condition(condition.as_ref(), &mut p)?;
        let expression = clauses.join(" ");
        crate::expr::check_expression(entity, "update", &expression)?;
        Ok(PreparedUpdate {
            key: self.key,
            expression,
            conditional: Conditional {
                expression: condition_text,
                placeholders: p,
            },
            expected_version: self.expected_version,
            read,
        })
    }

    /// Sends the UpdateItem.
    pub async fn send(self) -> Result<Written<E>> {
        let db = self.db.clone();
        let return_new = self.return_new;
        let prepared = self.prepare().await?;
        tracing::debug!(
            entity = E::SCHEMA.entity_type,
            read_first = prepared.read.is_some(),
            "ddb update"
        );
        let key = prepared.key.clone();
        let p = &prepared.conditional.placeholders;
        let result = db
            .client()
            .update_item()
            .table_name(db.table_name::<E::Table>())
            .set_key(Some(key.to_item()))
            .update_expression(&prepared.expression)
            .set_condition_expression(prepared.conditional.expression.clone())
            .set_expression_attribute_names(p.names())
            .set_expression_attribute_values(p.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_values(if return_new {
                ReturnValue::AllNew
            } else {
                ReturnValue::UpdatedNew
            })
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match result {
            Ok(output) => {
                let attributes = output.attributes.unwrap_or_default();
                let version = stored_version(&E::SCHEMA, Some(&attributes));
                Ok(Written {
                    version,
                    item: if return_new {
                        Some(E::from_item(attributes)?)
                    } else {
                        None
                    },
                })
            }
            Err(error) => match failed_condition(&error) {
                Some(existing) => Err(prepared.failure(existing)),
                None => Err(Error::sdk("UpdateItem", error)),
            },
        }
    }
}

/// An update with its expressions built.
pub(crate) struct PreparedUpdate<E> {
    pub key: Key<E>,
    pub expression: String,
    pub conditional: Conditional,
    /// The version the caller expects (`expect_version`).
    pub expected_version: Option<u64>,
    /// The item read first to recompute index keys, if one was.
    pub read: Option<ReadFirst>,
}

/// What an update read before writing, and what its write is conditioned on.
pub(crate) struct ReadFirst {
    pub item: Item,
    /// Attributes the write requires unchanged (entities without a version).
    pub conditioned: Vec<&'static str>,
    /// Whether the write requires the version it read.
    pub version_derived: bool,
}

impl<E: Entity> PreparedUpdate<E> {
    /// Maps a failed condition: a version the caller expected is a
    /// [`Error::VersionConflict`], a missing item [`Error::NotFound`], a
    /// change to what ddb read first [`Error::ChangedSinceRead`], anything
    /// else the caller's own condition.
    pub(crate) fn failure(&self, existing: Option<Item>) -> Error {
        let error = condition_error(&self.key, existing.clone(), self.expected_version, true);
        let (Error::ConditionFailed { .. }, Some(read), Some(existing)) =
            (&error, &self.read, &existing)
        else {
            return error;
        };
        let differs = |attribute: &str| match (read.item.get(attribute), existing.get(attribute)) {
            (Some(a), Some(b)) => !same_value(a, b),
            (a, b) => a.is_some() != b.is_some(),
        };
        let mut changed: Vec<String> = read
            .conditioned
            .iter()
            .filter(|a| differs(a))
            .map(|a| (*a).to_owned())
            .collect();
        if let Some(version) = version_attribute(&E::SCHEMA) {
            if read.version_derived && differs(version) {
                changed.push(version.to_owned());
            }
        }
        if changed.is_empty() {
            return error;
        }
        Error::ChangedSinceRead {
            entity: E::SCHEMA.entity_type,
            key: key_text(&self.key),
            attributes: changed,
        }
    }
}

/// The attributes of the fields index `key` is built from, but for those of
/// the primary key (which an update never changes).
fn index_inputs(schema: &EntitySchema, key: &crate::model::KeyDef) -> Vec<&'static str> {
    let primary = schema.primary().input_fields();
    key.input_fields()
        .into_iter()
        .filter(|field| !primary.contains(field))
        .filter_map(|field| schema.field(field).map(|f| f.attribute))
        .collect()
}

/// The version after `expected`, as DynamoDB stores it; refused at the top
/// of the integer range rather than wrapping.
fn version_value(entity: &'static str, expected: u64) -> Result<AttributeValue> {
    let next = expected
        .checked_add(1)
        .ok_or_else(|| Error::InvalidRequest {
            entity,
            reason: format!("version {expected} is the largest there is; it cannot be incremented"),
        })?;
    Ok(AttributeValue::N(next.to_string()))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_dynamodb_rules() {
        let item: Item = [
            ("a".to_string(), AttributeValue::N("12345".into())),
            ("bb".to_string(), AttributeValue::Bool(true)),
            (
                "l".to_string(),
                AttributeValue::L(vec![AttributeValue::S("xy".into())]),
            ),
        ]
        .into();
        // a: 1 + (3 + 1); bb: 2 + 1; l: 1 + 3 + (2 + 1)
        assert_eq!(item_size(&item), 5 + 3 + 7);
        assert_eq!(number_size("0.000120"), 2);
        assert_eq!(number_size("-1e5"), 2);
    }

    #[test]
    fn values_dynamodb_refuses_are_refused() {
        let item = |v: AttributeValue| -> Item { [("a".to_string(), v)].into() };
        let n = |s: &str| check_values(&item(AttributeValue::N(s.into())));
        for good in [
            "0",
            "-7.1234",
            "1e125",
            "9.9999999999999999999999999999999999999E+125",
            "1E-130",
            "0.000",
        ] {
            assert!(n(good).is_ok(), "{good}");
        }
        for bad in [
            "NaN",
            "inf",
            "-inf",
            "1e126",
            "1e-131",
            "1.2.3",
            "",
            "12345678901234567890123456789012345678901",
        ] {
            assert!(n(bad).is_err(), "{bad}");
        }
        assert!(check_values(&item(AttributeValue::Ss(vec![]))).is_err());
        let mut deep = AttributeValue::S("x".into());
        for _ in 0..32 {
            deep = AttributeValue::L(vec![deep]);
        }
        assert!(check_values(&item(deep.clone())).is_ok());
        assert!(check_values(&item(AttributeValue::L(vec![deep]))).is_err());
    }

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
