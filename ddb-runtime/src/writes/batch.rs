//! BatchGetItem and BatchWriteItem in DynamoDB's chunk sizes, with bounded
//! concurrency and unprocessed items retried with capped exponential backoff
//! and full jitter.

use tracing::Instrument;

use crate::telemetry::{self, Capacity};
use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{KeysAndAttributes, ReturnConsumedCapacity, WriteRequest};
use futures::StreamExt;

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

/// What one chunk of a batch did, by key (`PK / SK`).
#[derive(Default)]
struct ChunkOutcome {
    done: Vec<String>,
    not_done: Vec<String>,
    unknown: Vec<String>,
    items: Vec<Item>,
    cause: Option<Error>,
    capacity: Capacity,
}

impl ChunkOutcome {
    /// A request that failed outright: DynamoDB answered with an error (or
    /// the request could not be built), so nothing of it was applied; or it
    /// failed on its way or its answer was lost, so the keys are unknown.
    fn failed(&mut self, error: Error, pending: Vec<String>) {
        let lost = matches!(
            error,
            Error::Sdk {
                kind: crate::SdkErrorKind::Timeout
                    | crate::SdkErrorKind::Dispatch
                    | crate::SdkErrorKind::Response,
                ..
            }
        );
        if lost {
            self.unknown.extend(pending);
        } else {
            self.not_done.extend(pending);
        }
        self.cause = Some(error);
    }
}

/// Every chunk's outcome as one: `Ok` when every key was processed, else
/// `Unprocessed` naming each key by what happened to it. Chunks are kept in
/// input order.
fn combine(
    entity: &'static str,
    operation: &'static str,
    outcomes: Vec<ChunkOutcome>,
) -> Result<(Vec<Item>, Capacity)> {
    let mut total = ChunkOutcome::default();
    for outcome in outcomes {
        total.done.extend(outcome.done);
        total.not_done.extend(outcome.not_done);
        total.unknown.extend(outcome.unknown);
        total.items.extend(outcome.items);
        total.cause = total.cause.or(outcome.cause);
        total.capacity.add(&outcome.capacity);
    }
    if total.not_done.is_empty() && total.unknown.is_empty() {
        return Ok((total.items, total.capacity));
    }
    Err(Error::Unprocessed {
        entity,
        operation,
        keys: total.not_done,
        outcome: Box::new(crate::error::BatchOutcome {
            done: total.done,
            unknown: total.unknown,
            read: total
                .items
                .into_iter()
                .map(crate::error::ExistingItem)
                .collect(),
            cause: total.cause,
        }),
    })
}

/// Reads items by key from `table` with BatchGetItem: chunks of 100, a few
/// chunks at once, unprocessed keys retried. `keys` are named by
/// [`display_key`]; the found items come back by the same name. When keys
/// stay unread, `Unprocessed` names them and carries what was read.
pub(crate) async fn get_items(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    keys: Vec<(String, Item)>,
) -> Result<HashMap<String, Item>> {
    let policy = db.retry_policy();
    // A key asked twice is read once (BatchGetItem refuses duplicates).
    let first: Vec<bool> = {
        let mut seen = std::collections::HashSet::with_capacity(keys.len());
        keys.iter()
            .map(|(name, _)| seen.insert(name.as_str()))
            .collect()
    };
    let unique: Vec<(String, Item)> = keys
        .into_iter()
        .zip(first)
        .filter_map(|(key, first)| first.then_some(key))
        .collect();
    let outcomes: Vec<ChunkOutcome> = futures::stream::iter(chunks(unique, GET_CHUNK))
        .map(|chunk| get_chunk(db, table, schema, chunk, policy))
        .buffered(policy.concurrency.max(1))
        .collect()
        .await;
    let (items, _) = combine(schema.entity_type, "BatchGetItem", outcomes)?;
    Ok(items
        .into_iter()
        .map(|item| (display_key(schema, &item), item))
        .collect())
}

/// `PK / SK` of a key or an item, as every ddb error writes keys.
pub(crate) fn display_key(schema: &EntitySchema, key: &Item) -> String {
    crate::schema::item_key_text(schema.table, key)
}

/// One request's answer: the entries it left unprocessed (as DynamoDB
/// returned them, ready to send again), and the items it read.
struct Answer<P> {
    left: Vec<P>,
    items: Vec<Item>,
    capacity: Capacity,
}

/// Sends one chunk of named entries until every one is processed or the
/// attempts run out, with backoff between attempts: `send` sends the pending
/// entries once, and what it leaves is matched back to names by `named`
/// (the same naming as the chunk's). The entries are moved into each
/// request, never copied: a retry sends what DynamoDB returned unprocessed.
/// A request that fails outright ends the chunk; `applies` tells whether it
/// could have written something (then a lost answer leaves keys unknown).
async fn until_processed<P, Fut>(
    policy: RetryPolicy,
    chunk: Vec<(String, P)>,
    named: impl Fn(&P) -> String,
    applies: bool,
    send: impl Fn(Vec<P>) -> Fut,
) -> ChunkOutcome
where
    Fut: std::future::Future<Output = Result<Answer<P>>>,
{
    let mut outcome = ChunkOutcome::default();
    let mut pending = chunk;
    let mut attempt = 0;
    while !pending.is_empty() {
        let (names, entries): (Vec<String>, Vec<P>) = pending.into_iter().unzip();
        if attempt >= policy.max_attempts {
            outcome.not_done.extend(names);
            break;
        }
        if attempt > 0 {
            tokio::time::sleep(policy.delay(attempt)).await;
        }
        attempt += 1;
        let answer = match send(entries).await {
            Ok(answer) => answer,
            Err(error) if applies => {
                outcome.failed(error, names);
                break;
            }
            Err(error) => {
                outcome.not_done.extend(names);
                outcome.cause = Some(error);
                break;
            }
        };
        outcome.items.extend(answer.items);
        outcome.capacity.add(&answer.capacity);
        let mut left: HashMap<String, P> = answer
            .left
            .into_iter()
            .map(|entry| (named(&entry), entry))
            .collect();
        pending = Vec::with_capacity(left.len());
        for name in names {
            match left.remove(&name) {
                Some(entry) => pending.push((name, entry)),
                None => outcome.done.push(name),
            }
        }
    }
    outcome
}

/// `entries` in chunks of `size`, moved rather than copied.
fn chunks<T>(entries: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut chunks = Vec::with_capacity(entries.len().div_ceil(size));
    let mut entries = entries.into_iter().peekable();
    while entries.peek().is_some() {
        chunks.push(entries.by_ref().take(size).collect());
    }
    chunks
}

async fn get_chunk(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    keys: Vec<(String, Item)>,
    policy: RetryPolicy,
) -> ChunkOutcome {
    let entity = schema.entity_type;
    let send = |keys: Vec<Item>| async move {
        let span = telemetry::span("BatchGetItem", table, None, entity);
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .build()
            .map_err(|e| Error::InvalidRequest {
                entity,
                reason: e.to_string(),
            })?;
        let output = db
            .client()
            .batch_get_item()
            .request_items(table, request)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .instrument(span.clone())
            .await
            .map_err(|e| telemetry::sdk_failure(&span, "BatchGetItem", e))?;
        let items = output
            .responses
            .and_then(|mut responses| responses.remove(table))
            .unwrap_or_default();
        let capacity = total(output.consumed_capacity.as_deref());
        telemetry::record(&span, capacity.total, items.len(), 0);
        let left = output
            .unprocessed_keys
            .and_then(|mut keys| keys.remove(table))
            .map(|rest| rest.keys)
            .unwrap_or_default();
        Ok(Answer {
            left,
            items,
            capacity,
        })
    };
    // A read applies nothing: a failed request leaves its keys unread.
    let named = |key: &Item| display_key(schema, key);
    until_processed(policy, keys, named, false, send).await
}

/// Writes `requests` to `table` with BatchWriteItem: chunks of 25, a few
/// chunks at once, unprocessed items retried. Every chunk is sent whatever
/// happens to the others; `Unprocessed` then names each key by what
/// happened to it.
pub(crate) async fn write_requests(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    requests: Vec<(String, WriteRequest)>,
) -> Result<Capacity> {
    let policy = db.retry_policy();
    let outcomes: Vec<ChunkOutcome> = futures::stream::iter(chunks(requests, WRITE_CHUNK))
        .map(|chunk| write_chunk(db, table, schema, chunk, policy))
        .buffered(policy.concurrency.max(1))
        .collect()
        .await;
    combine(schema.entity_type, "BatchWriteItem", outcomes).map(|(_, capacity)| capacity)
}

/// The table key of a write request, as [`display_key`] writes it: the put
/// item's key, or the delete's.
fn request_key(schema: &EntitySchema, request: &WriteRequest) -> String {
    match (request.put_request(), request.delete_request()) {
        (Some(put), _) => display_key(schema, put.item()),
        (None, Some(delete)) => display_key(schema, delete.key()),
        (None, None) => String::new(),
    }
}

async fn write_chunk(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    chunk: Vec<(String, WriteRequest)>,
    policy: RetryPolicy,
) -> ChunkOutcome {
    let send = |pending: Vec<WriteRequest>| async move {
        let span = telemetry::span("BatchWriteItem", table, None, schema.entity_type);
        let sent = pending.len();
        let output = db
            .client()
            .batch_write_item()
            .request_items(table, pending)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .instrument(span.clone())
            .await
            .map_err(|e| telemetry::sdk_failure(&span, "BatchWriteItem", e))?;
        // Matched by key: DynamoDB returns the requests it did not process.
        let left = output
            .unprocessed_items
            .and_then(|mut items| items.remove(table))
            .unwrap_or_default();
        let written = sent.saturating_sub(left.len());
        let capacity = total(output.consumed_capacity.as_deref());
        telemetry::record(&span, capacity.total, written, 0);
        Ok(Answer {
            left,
            items: Vec::new(),
            capacity,
        })
    };
    let named = |request: &WriteRequest| request_key(schema, request);
    until_processed(policy, chunk, named, true, send).await
}

/// A batch answer's consumed capacity, over its tables.
fn total(capacity: Option<&[aws_sdk_dynamodb::types::ConsumedCapacity]>) -> Capacity {
    let mut sum = Capacity::default();
    for consumed in capacity.unwrap_or_default() {
        sum.add(&Capacity::of(Some(consumed)));
    }
    sum
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
    /// they are, unchecked. Every chunk is sent whatever happens to the
    /// others; when any key is left, [`Error::Unprocessed`] names each one by
    /// what happened to it: written (`done`), not written (`keys`, with the
    /// `cause` when a request failed), or unknown (`unknown`: its answer was
    /// lost, so it may have been written; writing it again is safe).
    ///
    /// Returns the capacity DynamoDB reported, summed over the requests.
    pub async fn batch_put<E: crate::Entity + 'static>(&self, entities: &[E]) -> Result<Capacity> {
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
            requests.push((key, plan.into_write_request()?));
        }
        reject_duplicates::<E>(&keys)?;
        write_requests(self, self.table_name::<E::Table>(), &E::SCHEMA, requests).await
    }

    /// Deletes the items at `keys` with BatchWriteItem (as
    /// [`batch_put`](Self::batch_put)), returning the capacity reported.
    pub async fn batch_delete<E: crate::Entity + 'static>(
        &self,
        keys: Vec<crate::Key<E>>,
    ) -> Result<Capacity> {
        let texts: Vec<String> = keys.iter().map(crate::write::key_text).collect();
        reject_duplicates::<E>(&texts)?;
        let requests = keys
            .into_iter()
            .zip(texts)
            .map(|(key, text)| Ok((text, self.delete(key).plan()?.into_write_request()?)))
            .collect::<Result<Vec<_>>>()?;
        write_requests(self, self.table_name::<E::Table>(), &E::SCHEMA, requests).await
    }

    /// Reads the items at `keys` with BatchGetItem: chunks of 100, a few at
    /// once, unprocessed keys retried. Returns the items found, in the order of
    /// `keys`; a key given twice is an error, with nothing sent. When keys stay
    /// unread, [`Error::Unprocessed`] names them (`keys`) and carries what was
    /// read (`read`).
    pub async fn batch_get<E: crate::Entity + 'static>(
        &self,
        keys: Vec<crate::Key<E>>,
    ) -> Result<Vec<E>> {
        let texts: Vec<String> = keys.iter().map(crate::write::key_text).collect();
        reject_duplicates::<E>(&texts)?;
        let named = texts.iter().cloned().zip(keys.iter().map(|k| k.to_item()));
        let table = self.table_name::<E::Table>();
        let mut found = get_items(self, table, &E::SCHEMA, named.collect()).await?;
        texts
            .iter()
            .filter_map(|text| found.remove(text))
            .map(E::from_item)
            .collect()
    }
}
