//! The record an idempotency key leaves: a guard item, written in the same
//! TransactWriteItems as the writes it covers, holding a fingerprint of
//! what they asked and the keys they wrote, until it expires. A later call
//! under the same key finds it and reports the first call's keys instead of
//! writing again (a ClientRequestToken lasts ten minutes within one retry
//! loop; a record lasts across processes and restarts).

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use sha2::Digest;

use crate::db::Db;
use crate::declaration::model::TableDef;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::Item;
use crate::keys::guard::{guard_item, idempotency_guard_key, owner_of, FINGERPRINT};
use crate::keys::key::{KeyValue, KeyValues};

use super::item::{maintained_index_attributes, stamp_attributes, version_attribute};

/// How long an idempotency key is remembered unless `keep_for` says
/// otherwise: 24 hours.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(24 * 60 * 60);

/// The attribute a record expires at (epoch seconds) on a table without
/// time to live; on a table with one, its time-to-live attribute, so that
/// DynamoDB deletes the record.
const EXPIRES: &str = "_ddb_expires";

/// The keys the covered writes wrote, in the order the caller added them:
/// a list of maps of `pk` and, on a table with a sort key, `sk`.
const WRITTEN: &str = "_ddb_written";

/// What a write asks, for the fingerprint of an idempotency key: its kind,
/// entity type and what the caller gave it, in one canonical form, without
/// what a retry computes afresh (the fields of a sort key's template, a
/// timestamp, the stamps, the version ddb writes).
#[derive(Clone)]
pub(crate) struct Content {
    bytes: Vec<u8>,
    /// The entity has a `#[ddb(sensitive)]` field: the fingerprint is keyed.
    sensitive: bool,
}

impl Content {
    /// The content of a write of `kind` (`create`, `put`, ...) of `E`.
    pub(crate) fn of<E: Entity>(kind: &str) -> Self {
        let mut bytes = Vec::new();
        for part in [E::SCHEMA.entity_type, kind] {
            field(&mut bytes, part.as_bytes());
        }
        let sensitive = E::SCHEMA.fields.iter().any(|f| f.role.sensitive);
        Self { bytes, sensitive }
    }

    /// With the item's content: every attribute but those a retry computes
    /// afresh ([`left_out`]), by name.
    pub(crate) fn item<E: Entity>(mut self, item: &Item) -> Self {
        self.bytes.extend(item_content::<E>(item));
        self
    }

    /// With the key the write names.
    pub(crate) fn key(mut self, key: &KeyValues) -> Self {
        for value in key.attribute_values() {
            canonical(&value, &mut self.bytes);
        }
        self
    }

    /// With the version the write expects.
    pub(crate) fn version(mut self, version: Option<u64>) -> Self {
        let version = version.map(|v| v.to_string()).unwrap_or_default();
        field(&mut self.bytes, version.as_bytes());
        self
    }

    /// With the caller's condition, rendered.
    pub(crate) fn condition<E>(mut self, condition: Option<&Condition<E>>) -> Result<Self> {
        if let Some(condition) = condition {
            let mut placeholders = Placeholders::default();
            let text =
                condition
                    .render(&mut placeholders)
                    .map_err(|reason| Error::InvalidRequest {
                        entity: "transaction",
                        reason,
                    })?;
            field(&mut self.bytes, text.as_bytes());
            let (names, values) = placeholders.into_maps();
            let mut names: Vec<_> = names.into_iter().flatten().collect();
            names.sort_unstable();
            field(&mut self.bytes, &names.len().to_le_bytes());
            for (placeholder, name) in names {
                field(&mut self.bytes, placeholder.as_bytes());
                field(&mut self.bytes, name.as_bytes());
            }
            self.values(values.into_iter().flatten().collect());
        } else {
            field(&mut self.bytes, b"");
        }
        Ok(self)
    }

    /// With named values (an update's changes), by name.
    pub(crate) fn values(&mut self, mut values: Vec<(String, AttributeValue)>) {
        values.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        field(&mut self.bytes, &values.len().to_le_bytes());
        for (name, value) in values {
            field(&mut self.bytes, name.as_bytes());
            canonical(&value, &mut self.bytes);
        }
    }
}

/// The fingerprint of what the writes of one call asked (`contents`, in
/// order), hex: HMAC-SHA256 under the handle's guard hash key when any
/// entity has a `sensitive` field (an unkeyed hash would let anyone who
/// reads the table test a guessed value), else SHA-256.
pub(crate) fn fingerprint(db: &Db, entity: &'static str, contents: &[Content]) -> Result<String> {
    let mut all = Vec::new();
    for content in contents {
        field(&mut all, &content.bytes);
    }
    if !contents.iter().any(|c| c.sensitive) {
        let digest = sha2::Sha256::digest(&all);
        return Ok(digest.iter().map(|b| format!("{b:02x}")).collect());
    }
    db.guard_hash(&all).ok_or_else(|| Error::InvalidRequest {
        entity,
        reason: "an idempotency key's record fingerprints what the writes hold, and a \
                 sensitive field is among it: give the Db its key with \
                 Db::with_guard_hash_key"
            .into(),
    })
}

/// An idempotency key's record, as a call writes it.
pub(crate) struct Record {
    /// The record's key.
    pub key: KeyValues,
    /// The item to put, unless a live record has its key.
    pub item: Item,
    /// Absent, or expired.
    pub free: Condition<()>,
}

/// The record of `request` for writes whose first is of entity `entity` on
/// `table`, that wrote `written`, with `fingerprint`, kept for `keep`.
pub(crate) fn record(
    (table, entity): (&TableDef, &'static str),
    request: &str,
    fingerprint: String,
    written: &[KeyValues],
    keep: Duration,
) -> Result<Record> {
    if request.is_empty() {
        return Err(Error::InvalidRequest {
            entity,
            reason: "an idempotency key cannot be empty".into(),
        });
    }
    if !crate::keys::guard::holds_guards(table) {
        return Err(Error::InvalidRequest {
            entity,
            reason: "an idempotency key's record is keyed by text, and this table's \
                     partition or sort key is a number: keep the records in \
                     a table whose keys are strings"
                .into(),
        });
    }
    if !table.conditions_hold_across_regions() {
        return Err(Error::InvalidRequest {
            entity,
            reason: "an idempotency key's record is a conditional write, and this table \
                     replicates with multi_region_consistency = \"eventual\", where a \
                     retry sent in another Region would apply again: declare \
                     `single_region_writes` on the table if every write of an item is \
                     sent in one Region"
                .into(),
        });
    }
    let key = idempotency_guard_key(table, entity, request);
    let owner = written.first().ok_or_else(|| Error::InvalidRequest {
        entity,
        reason: "an idempotency key covers at least one write".into(),
    })?;
    let mut item = guard_item(table, &key, owner);
    item.insert(FINGERPRINT.to_owned(), AttributeValue::S(fingerprint));
    let keys = written.iter().map(|key| {
        let mut map = Item::new();
        map.insert("pk".to_owned(), key.pk.to_attribute_value());
        if let Some(sk) = &key.sk {
            map.insert("sk".to_owned(), sk.to_attribute_value());
        }
        AttributeValue::M(map)
    });
    item.insert(WRITTEN.to_owned(), AttributeValue::L(keys.collect()));
    let expires_at = table.ttl.unwrap_or(EXPIRES);
    let now = crate::item::timestamp::now_epoch_seconds();
    let until = now.saturating_add(i64::try_from(keep.as_secs()).unwrap_or(i64::MAX / 2));
    item.insert(expires_at.to_owned(), AttributeValue::N(until.to_string()));
    let free = Condition::attribute_not_exists(table.pk.name) | Condition::expired(expires_at, now);
    Ok(Record { key, item, free })
}

/// What an earlier call under the same key left: the fingerprint of what
/// it asked, and the keys it wrote.
pub(crate) struct Earlier {
    pub fingerprint: String,
    pub written: Vec<KeyValues>,
}

/// Reads the record at `key` (strongly consistent): `None` when there is
/// none, or it has expired.
pub(crate) async fn earlier(
    db: &Db,
    (table, name, entity): (&TableDef, &str, &'static str),
    key: &KeyValues,
) -> Result<Option<Earlier>> {
    let stored = db.get_stored_in(name, entity, key.to_item(table), true, &[]);
    let Some(stored) = stored.await? else {
        return Ok(None);
    };
    let expires_at = table.ttl.unwrap_or(EXPIRES);
    let now = crate::item::timestamp::now_epoch_seconds();
    let expired = stored
        .get(expires_at)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse::<i64>().ok())
        .is_some_and(|at| at < now);
    if expired {
        return Ok(None);
    }
    let fingerprint = stored.get(FINGERPRINT).and_then(|f| f.as_s().ok());
    let malformed = || Error::InvalidRequest {
        entity,
        reason: "an idempotency key's record names no write".into(),
    };
    let written = match stored.get(WRITTEN) {
        Some(AttributeValue::L(keys)) => keys.iter().map(written_key).collect::<Option<_>>(),
        // A record of a create written before records held their keys.
        _ => owner_of(&stored).map(|owner| vec![owner]),
    };
    Ok(Some(Earlier {
        fingerprint: fingerprint.cloned().unwrap_or_default(),
        written: written.ok_or_else(malformed)?,
    }))
}

/// One key of a record's [`WRITTEN`] list.
fn written_key(value: &AttributeValue) -> Option<KeyValues> {
    let map = value.as_m().ok()?;
    Some(KeyValues {
        pk: KeyValue::from_attribute_value(map.get("pk")?)?,
        sk: map.get("sk").and_then(KeyValue::from_attribute_value),
    })
}

/// The attributes an item's content leaves out: the key attributes, the
/// fields the sort key's template reads (a retry may compute them afresh:
/// a new timestamp, a new id; the partition's fields must match), the
/// index keys ddb derives, the stamps, the version and the time to live.
fn left_out<E: Entity>() -> Vec<&'static str> {
    let schema = &E::SCHEMA;
    let table = schema.table;
    let sort_fields = schema.primary().sk.iter().flat_map(|t| t.fields());
    let mut out: Vec<&'static str> = std::iter::once(table.pk.name)
        .chain(table.sk.map(|sk| sk.name))
        .chain(sort_fields.map(|f| schema.attribute_of(f)))
        .chain(crate::item::timestamp::ttl_attribute(schema))
        .chain(maintained_index_attributes(schema))
        .chain(stamp_attributes(schema))
        .chain(version_attribute(schema))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The item's content: every attribute but [`left_out`]'s, by name, each
/// value in one canonical form.
pub(crate) fn item_content<E: Entity>(item: &Item) -> Vec<u8> {
    let left_out = left_out::<E>();
    let mut names: Vec<&String> = item
        .keys()
        .filter(|n| !left_out.contains(&n.as_str()))
        .collect();
    names.sort_unstable();
    let mut content = Vec::new();
    field(&mut content, &names.len().to_le_bytes());
    for name in names {
        field(&mut content, name.as_bytes());
        canonical(&item[name], &mut content);
    }
    content
}

/// `bytes`, length first: no content of one field can read as another's.
fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// A scalar: its type's `tag`, then `bytes`.
fn tagged(out: &mut Vec<u8>, tag: &[u8], bytes: &[u8]) {
    field(out, tag);
    field(out, bytes);
}

/// A value in one form for all its equal forms (numbers by value, sets and
/// maps in order), its type first, appended to `out`.
fn canonical(value: &AttributeValue, out: &mut Vec<u8>) {
    let number = |n: &str| {
        crate::item::number::Decimal::parse(n).map_or_else(|| n.to_owned(), |d| d.canonical())
    };
    let set = |tag: &[u8], mut members: Vec<Vec<u8>>, out: &mut Vec<u8>| {
        members.sort_unstable();
        field(out, tag);
        field(out, &members.len().to_le_bytes());
        members.iter().for_each(|m| field(out, m));
    };
    match value {
        AttributeValue::S(s) => tagged(out, b"S", s.as_bytes()),
        AttributeValue::N(n) => tagged(out, b"N", number(n).as_bytes()),
        AttributeValue::B(b) => tagged(out, b"B", b.as_ref()),
        AttributeValue::Bool(b) => field(out, if *b { b"BOOL1" } else { b"BOOL0" }),
        AttributeValue::Null(_) => field(out, b"NULL"),
        AttributeValue::Ss(items) => set(
            b"SS",
            items.iter().map(|s| s.clone().into_bytes()).collect(),
            out,
        ),
        AttributeValue::Ns(items) => set(
            b"NS",
            items.iter().map(|n| number(n).into_bytes()).collect(),
            out,
        ),
        AttributeValue::Bs(items) => set(
            b"BS",
            items.iter().map(|b| b.as_ref().to_vec()).collect(),
            out,
        ),
        AttributeValue::L(items) => {
            field(out, b"L");
            field(out, &items.len().to_le_bytes());
            items.iter().for_each(|v| canonical(v, out));
        }
        AttributeValue::M(map) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort_unstable();
            field(out, b"M");
            field(out, &names.len().to_le_bytes());
            for name in names {
                field(out, name.as_bytes());
                canonical(&map[name], out);
            }
        }
        _ => field(out, b"?"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical_of(value: AttributeValue) -> Vec<u8> {
        let mut out = Vec::new();
        canonical(&value, &mut out);
        out
    }

    fn map(pairs: &[(&str, AttributeValue)]) -> AttributeValue {
        AttributeValue::M(
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn no_content_of_one_attribute_reads_as_another() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        let mut one = Vec::new();
        canonical(&s("1"), &mut one);
        let forged = String::from_utf8_lossy(&one).into_owned();
        let two = map(&[("a", s("1")), ("b", s("2"))]);
        let packed = map(&[("a", s(&format!("1{forged}b")))]);
        assert_ne!(canonical_of(two), canonical_of(packed));
        let texts = AttributeValue::Ss(vec!["1".into()]);
        let numbers = AttributeValue::Ns(vec!["1".into()]);
        assert_ne!(canonical_of(texts), canonical_of(numbers));
    }

    #[test]
    fn equal_values_read_alike() {
        let n = |t: &str| AttributeValue::N(t.to_owned());
        assert_eq!(canonical_of(n("1.0")), canonical_of(n("1")));
        let a = AttributeValue::Ss(vec!["x".into(), "y".into()]);
        let b = AttributeValue::Ss(vec!["y".into(), "x".into()]);
        assert_eq!(canonical_of(a), canonical_of(b));
    }
}
