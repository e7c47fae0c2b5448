//! BatchGetItem and BatchWriteItem in DynamoDB's chunk sizes, with bounded
//! concurrency and unprocessed items retried with capped exponential backoff
//! and full jitter.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{KeysAndAttributes, ReturnConsumedCapacity, WriteRequest};
use futures::{StreamExt, TryStreamExt};

use crate::db::Db;
use crate::error::{Error, Result};
use crate::expr::Placeholders;
use crate::model::EntitySchema;
use crate::write::{Action, WritePlan};
use crate::Item;

/// BatchGetItem takes at most 100 keys per request.
pub const GET_CHUNK: usize = 100;
/// BatchWriteItem takes at most 25 requests per call.
pub const WRITE_CHUNK: usize = 25;

/// How batches retry unprocessed items: capped exponential backoff with full
/// jitter, `delay = random(0, min(cap, base * 2^attempt))`.
///
/// ```
/// use std::time::Duration;
/// let policy = ddb_runtime::batch::RetryPolicy::default();
/// assert_eq!(policy.max_attempts, 10);
/// assert!(policy.delay(3) <= Duration::from_millis(400));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Requests per chunk, the first included.
    pub max_attempts: u32,
    /// The first backoff step.
    pub base: Duration,
    /// The largest backoff step.
    pub cap: Duration,
    /// Chunks in flight at once.
    pub concurrency: usize,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 10,
            base: Duration::from_millis(50),
            cap: Duration::from_secs(5),
            concurrency: 4,
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `attempt` (1 for the first retry).
    pub fn delay(&self, attempt: u32) -> Duration {
        let step = self
            .base
            .saturating_mul(1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX));
        let ceiling = step.min(self.cap);
        ceiling.mul_f64(jitter())
    }
}

/// A number in [0, 1) from a per-thread xorshift generator.
fn jitter() -> f64 {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x9E37_79B9_7F4A_7C15);
            nanos | 1
        });
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        (x >> 11) as f64 / (1u64 << 53) as f64
    })
}

/// A stable text of a key (sorted attribute names and values), to match
/// returned items with the keys asked for and to report unprocessed keys.
pub(crate) fn key_text(key: &Item) -> String {
    let mut parts: Vec<String> = key
        .iter()
        .map(|(name, value)| {
            let value = value
                .as_s()
                .cloned()
                .or_else(|_| value.as_n().cloned())
                .unwrap_or_default();
            format!("{name}={value}")
        })
        .collect();
    parts.sort();
    parts.join(" / ")
}

/// Reads items by key from `table` with BatchGetItem: chunks of 100, a few
/// chunks at once, unprocessed keys retried. Returns the found items by
/// [`key_text`] of their key.
pub(crate) async fn get_items(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    keys: Vec<Item>,
) -> Result<HashMap<String, Item>> {
    let policy = db.retry_policy();
    let key_names: Vec<&str> = std::iter::once(schema.table.pk.name)
        .chain(schema.table.sk.map(|a| a.name))
        .collect();
    let mut unique: Vec<Item> = Vec::with_capacity(keys.len());
    let mut seen = std::collections::HashSet::new();
    for key in keys {
        if seen.insert(key_text(&key)) {
            unique.push(key);
        }
    }
    let chunks: Vec<Vec<Item>> = unique.chunks(GET_CHUNK).map(<[Item]>::to_vec).collect();
    let results: Vec<Vec<Item>> = futures::stream::iter(chunks)
        .map(|chunk| get_chunk(db, table, schema, chunk, policy))
        .buffer_unordered(policy.concurrency.max(1))
        .try_collect()
        .await?;
    let mut found = HashMap::new();
    for item in results.into_iter().flatten() {
        let key: Item = key_names
            .iter()
            .filter_map(|name| item.get(*name).map(|v| ((*name).to_owned(), v.clone())))
            .collect();
        found.insert(key_text(&key), item);
    }
    Ok(found)
}

/// `PK / SK` of a key item, as every ddb error writes keys.
fn display_key(schema: &EntitySchema, key: &Item) -> String {
    let value = |name: &str| {
        key.get(name)
            .and_then(crate::KeyValue::from_attribute_value)
            .map(|v| v.to_string())
            .unwrap_or_default()
    };
    match schema.table.sk {
        Some(sk) => format!("{} / {}", value(schema.table.pk.name), value(sk.name)),
        None => value(schema.table.pk.name),
    }
}

async fn get_chunk(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    keys: Vec<Item>,
    policy: RetryPolicy,
) -> Result<Vec<Item>> {
    let entity = schema.entity_type;
    let mut pending = keys;
    let mut items = Vec::new();
    let mut attempt = 0;
    while !pending.is_empty() {
        if attempt >= policy.max_attempts {
            return Err(Error::Unprocessed {
                entity,
                operation: "BatchGetItem",
                keys: pending.iter().map(|key| display_key(schema, key)).collect(),
            });
        }
        if attempt > 0 {
            tokio::time::sleep(policy.delay(attempt)).await;
        }
        attempt += 1;
        tracing::debug!(entity, keys = pending.len(), attempt, "ddb BatchGetItem");
        let request = KeysAndAttributes::builder()
            .set_keys(Some(std::mem::take(&mut pending)))
            .build()
            .map_err(|e| Error::InvalidRequest {
                entity,
                reason: e.to_string(),
            })?;
        let output = db
            .client()
            .batch_get_item()
            .request_items(table, request)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| Error::sdk("BatchGetItem", e))?;
        if let Some(mut responses) = output.responses {
            items.extend(responses.remove(table).unwrap_or_default());
        }
        if let Some(mut unprocessed) = output.unprocessed_keys {
            if let Some(rest) = unprocessed.remove(table) {
                pending = rest.keys;
            }
        }
    }
    Ok(items)
}

/// Writes `requests` to `table` with BatchWriteItem: chunks of 25, a few
/// chunks at once, unprocessed items retried.
pub(crate) async fn write_requests(
    db: &Db,
    table: &str,
    entity: &'static str,
    requests: Vec<(String, WriteRequest)>,
) -> Result<()> {
    let policy = db.retry_policy();
    let chunks: Vec<Vec<(String, WriteRequest)>> =
        requests.chunks(WRITE_CHUNK).map(<[_]>::to_vec).collect();
    let failures: Vec<Vec<String>> = futures::stream::iter(chunks)
        .map(|chunk| write_chunk(db, table, chunk, policy))
        .buffer_unordered(policy.concurrency.max(1))
        .try_collect()
        .await?;
    let keys: Vec<String> = failures.into_iter().flatten().collect();
    if keys.is_empty() {
        Ok(())
    } else {
        Err(Error::Unprocessed {
            entity,
            operation: "BatchWriteItem",
            keys,
        })
    }
}

/// Returns the keys still unprocessed when the attempts ran out.
async fn write_chunk(
    db: &Db,
    table: &str,
    chunk: Vec<(String, WriteRequest)>,
    policy: RetryPolicy,
) -> Result<Vec<String>> {
    let mut pending = chunk;
    let mut attempt = 0;
    while !pending.is_empty() {
        if attempt >= policy.max_attempts {
            return Ok(pending.into_iter().map(|(key, _)| key).collect());
        }
        if attempt > 0 {
            tokio::time::sleep(policy.delay(attempt)).await;
        }
        attempt += 1;
        tracing::debug!(table, items = pending.len(), attempt, "ddb BatchWriteItem");
        let output = db
            .client()
            .batch_write_item()
            .request_items(table, pending.iter().map(|(_, r)| r.clone()).collect())
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|e| Error::sdk("BatchWriteItem", e))?;
        let unprocessed: Vec<WriteRequest> = output
            .unprocessed_items
            .and_then(|mut items| items.remove(table))
            .unwrap_or_default();
        pending.retain(|(_, request)| unprocessed.contains(request));
    }
    Ok(Vec::new())
}

fn reject_duplicates<E: crate::Entity>(keys: &[String]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for key in keys {
        if !seen.insert(key.as_str()) {
            return Err(Error::DuplicateKey {
                entity: E::SCHEMA.entity_type,
                key: key.clone(),
                operation: "batch",
            });
        }
    }
    Ok(())
}

impl Db {
    /// Writes `entities` with BatchWriteItem: chunks of 25, a few at once,
    /// unprocessed items retried with backoff (see [`RetryPolicy`]).
    ///
    /// Checked before anything is sent: no key twice, every item within
    /// 400 KB. BatchWriteItem takes no conditions, so versions are written as
    /// they are, unchecked; when the retries run out, the error lists exactly
    /// the keys not written.
    pub async fn batch_put<E: crate::Entity + 'static>(&self, entities: &[E]) -> Result<()> {
        let mut requests = Vec::with_capacity(entities.len());
        let mut keys = Vec::with_capacity(entities.len());
        for entity in entities {
            // As a put: the created_at an entity carries is kept. BatchWriteItem
            // takes no condition, so the version is written as it is.
            let prepared = crate::write::prepare(entity, false, None)?;
            let plan = WritePlan::new(
                prepared.key,
                Action::Put(prepared.item),
                None,
                Placeholders::default(),
            )?;
            let key = crate::write::key_text(&plan.key);
            keys.push(key.clone());
            requests.push((key, plan.write_request()?));
        }
        reject_duplicates::<E>(&keys)?;
        write_requests(
            self,
            self.table_name::<E::Table>(),
            E::SCHEMA.entity_type,
            requests,
        )
        .await
    }

    /// Deletes the items at `keys` with BatchWriteItem (as [`batch_put`](Self::batch_put)).
    pub async fn batch_delete<E: crate::Entity + 'static>(
        &self,
        keys: Vec<crate::Key<E>>,
    ) -> Result<()> {
        let texts: Vec<String> = keys.iter().map(crate::write::key_text).collect();
        reject_duplicates::<E>(&texts)?;
        let requests = keys
            .into_iter()
            .zip(texts)
            .map(|(key, text)| Ok((text, self.delete(key).plan()?.write_request()?)))
            .collect::<Result<Vec<_>>>()?;
        write_requests(
            self,
            self.table_name::<E::Table>(),
            E::SCHEMA.entity_type,
            requests,
        )
        .await
    }

    /// Reads the items at `keys` with BatchGetItem: chunks of 100, a few at
    /// once, unprocessed keys retried. Returns the items found, in the order of
    /// `keys`; a key given twice is an error, with nothing sent.
    pub async fn batch_get<E: crate::Entity + 'static>(
        &self,
        keys: Vec<crate::Key<E>>,
    ) -> Result<Vec<E>> {
        let items: Vec<Item> = keys.iter().map(|k| k.to_item()).collect();
        let texts: Vec<String> = items.iter().map(key_text).collect();
        reject_duplicates::<E>(&texts)?;
        let mut found = get_items(self, self.table_name::<E::Table>(), &E::SCHEMA, items).await?;
        texts
            .iter()
            .filter_map(|text| found.remove(text))
            .map(E::from_item)
            .collect()
    }
}
