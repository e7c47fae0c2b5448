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
use crate::key::KeyRef;
use crate::model::EntitySchema;
use crate::write::{Action, WritePlan};
use crate::{Item, KeyValues};

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

/// What one chunk of a batch did, by key (`N`: the key's values, or its
/// position among the keys asked), and what it read (`T`: a read's decoded
/// items). Keys are matched by their typed values (S or N, partition and
/// sort): two different keys never match, whatever text they hold. They are
/// written as `PK / SK` only in an error.
struct ChunkOutcome<N, T> {
    done: Vec<N>,
    not_done: Vec<N>,
    unknown: Vec<N>,
    items: Vec<T>,
    cause: Option<Error>,
    capacity: Capacity,
}

impl<N, T> Default for ChunkOutcome<N, T> {
    fn default() -> Self {
        Self {
            done: Vec::new(),
            not_done: Vec::new(),
            unknown: Vec::new(),
            items: Vec::new(),
            cause: None,
            capacity: Capacity::default(),
        }
    }
}

impl<N, T> ChunkOutcome<N, T> {
    /// A request that failed outright: DynamoDB answered with an error (or
    /// the request could not be built), so nothing of it was applied; or it
    /// failed on its way or its answer was lost, so the keys are unknown.
    fn failed(&mut self, error: Error, pending: Vec<N>) {
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
/// `Unprocessed` naming each key (`text`) by what happened to it, with what
/// was read as items (`as_item`). Chunks are kept in input order.
fn combine<N, T>(
    entity: &'static str,
    operation: &'static str,
    outcomes: Vec<ChunkOutcome<N, T>>,
    text: impl Fn(&N) -> String,
    as_item: impl Fn(T) -> Option<Item>,
) -> Result<(Vec<T>, Capacity)> {
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
    let texts = |keys: Vec<N>| keys.iter().map(&text).collect();
    Err(Error::Unprocessed {
        entity,
        operation,
        keys: texts(total.not_done),
        outcome: Box::new(crate::error::BatchOutcome {
            done: texts(total.done),
            unknown: texts(total.unknown),
            read: total
                .items
                .into_iter()
                .filter_map(as_item)
                .map(crate::error::ExistingItem)
                .collect(),
            cause: total.cause,
        }),
    })
}

/// The table key values of a key or an item of `schema`'s table; `None`
/// when it has no S or N key attribute.
fn key_values(schema: &EntitySchema, item: &Item) -> Option<KeyValues> {
    KeyValues::read_table_key(schema.table, item).ok()
}

/// Each key's position among `keys`, by its borrowed values: what an item
/// read back is matched with. A key given twice is `DuplicateKey`.
fn positions<'a>(
    entity: &'static str,
    keys: impl IntoIterator<Item = &'a KeyValues>,
) -> Result<HashMap<KeyRef<'a>, usize>> {
    let keys = keys.into_iter();
    let mut positions = HashMap::with_capacity(keys.size_hint().0);
    for (position, key) in keys.enumerate() {
        if positions.insert(key.as_ref(), position).is_some() {
            return Err(Error::DuplicateKey {
                entity,
                key: key.text(),
                operation: "batch",
            });
        }
    }
    Ok(positions)
}

/// Reads entities by key from `table` with BatchGetItem: chunks of 100, a
/// few chunks at once, unprocessed keys retried. Returns the entities found,
/// in the order of `keys`; a key given twice is `DuplicateKey`, with nothing
/// sent. Each answer's items are decoded (`decode`; `None` skips an item) as
/// it arrives, while the other chunks are still on their way, and matched to
/// the key asked by their typed values. When keys stay unread,
/// `Unprocessed` names them and carries what was read (each entity read,
/// encoded again; an item that did not decode is left out). Else an item
/// that does not decode is the error.
pub(crate) async fn get_entities<E: crate::Entity>(
    db: &Db,
    table: &str,
    keys: Vec<crate::Key<E>>,
    decode: fn(Item) -> Option<Result<E>>,
) -> Result<Vec<E>> {
    let entity = E::SCHEMA.entity_type;
    let policy = db.retry_policy();
    let requests: Vec<(usize, Item)> = keys.iter().map(crate::Key::to_item).enumerate().collect();
    let values: Vec<KeyValues> = keys.into_iter().map(crate::Key::into_values).collect();
    let positions = positions(entity, &values)?;
    let outcomes = in_flight(policy, chunks(requests, GET_CHUNK), |chunk| {
        get_chunk(db, table, &positions, chunk, decode, policy)
    })
    .await;
    let text = |&position: &usize| values[position].text();
    let as_item = |read: Result<(usize, E)>| read.ok()?.1.to_item().ok();
    let (read, _) = combine(entity, "BatchGetItem", outcomes, text, as_item)?;
    let mut found: Vec<Option<E>> = std::iter::repeat_with(|| None).take(values.len()).collect();
    for read in read {
        let (position, entity) = read?;
        found[position] = Some(entity);
    }
    Ok(found.into_iter().flatten().collect())
}

/// One request's answer: the entries it left unprocessed (as DynamoDB
/// returned them, ready to send again), and what it read.
struct Answer<P, T> {
    left: Vec<P>,
    items: Vec<T>,
    capacity: Capacity,
}

/// Sends one chunk of entries, each with its key (values or position), until
/// every one is processed or the attempts run out, with backoff between
/// attempts: `send` sends the pending entries once, and what it leaves is
/// matched back by its key (`key_of`). The entries are moved into each request,
/// never copied: a retry sends what DynamoDB returned unprocessed, matched
/// or not. A request that fails outright ends the
/// chunk; `applies` tells whether it could have written something (then a
/// lost answer leaves keys unknown).
async fn until_processed<N: std::hash::Hash + Eq, P, T, Fut>(
    policy: RetryPolicy,
    chunk: Vec<(N, P)>,
    key_of: impl Fn(&P) -> Option<N>,
    applies: bool,
    send: impl Fn(Vec<P>) -> Fut,
) -> ChunkOutcome<N, T>
where
    Fut: std::future::Future<Output = Result<Answer<P, T>>>,
{
    let mut outcome = ChunkOutcome::default();
    let mut pending = chunk;
    let mut attempt = 0;
    while !pending.is_empty() {
        let (names, entries): (Vec<N>, Vec<P>) = pending.into_iter().unzip();
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
        let mut left: HashMap<N, P> = answer
            .left
            .into_iter()
            .filter_map(|entry| Some((key_of(&entry)?, entry)))
            .collect();
        pending = Vec::with_capacity(left.len());
        for name in names {
            match left.remove(&name) {
                Some(entry) => pending.push((name, entry)),
                None => outcome.done.push(name),
            }
        }
        // An entry DynamoDB returned under a key text other than the one sent
        // (a number it wrote in another form) is still unprocessed: it goes
        // again, under the key DynamoDB gave it.
        pending.extend(left);
    }
    outcome
}

/// Sends every chunk, `policy.concurrency` at a time: a chunk starts as soon
/// as any chunk in flight ends, not when the earliest one does (a slow chunk
/// does not hold the others back). The outcomes come back in chunk order.
async fn in_flight<C, O, Fut>(
    policy: RetryPolicy,
    chunks: Vec<C>,
    send: impl Fn(C) -> Fut,
) -> Vec<O>
where
    Fut: std::future::Future<Output = O>,
{
    let mut outcomes: Vec<(usize, O)> = futures::stream::iter(chunks.into_iter().enumerate())
        .map(|(index, chunk)| {
            let sent = send(chunk);
            async move { (index, sent.await) }
        })
        .buffer_unordered(policy.concurrency.max(1))
        .collect()
        .await;
    outcomes.sort_unstable_by_key(|(index, _)| *index);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
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

/// One chunk of a batch get, each found item decoded as its answer arrives
/// and matched to the position of its key (`positions`).
async fn get_chunk<E: crate::Entity>(
    db: &Db,
    table: &str,
    positions: &HashMap<KeyRef<'_>, usize>,
    keys: Vec<(usize, Item)>,
    decode: fn(Item) -> Option<Result<E>>,
    policy: RetryPolicy,
) -> ChunkOutcome<usize, Result<(usize, E)>> {
    let entity = E::SCHEMA.entity_type;
    let position = |item: &Item| {
        let key = KeyRef::read_table_key(E::SCHEMA.table, item)?;
        positions.get(&key).copied()
    };
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
        let found = output
            .responses
            .and_then(|mut responses| responses.remove(table))
            .unwrap_or_default();
        let capacity = Capacity::of_tables(output.consumed_capacity);
        telemetry::record(&span, capacity.total, found.len(), 0);
        let mut items = Vec::with_capacity(found.len());
        for item in found {
            // An item at a key not asked for cannot be placed; DynamoDB
            // returns only the keys asked.
            let Some(at) = position(&item) else { continue };
            if let Some(decoded) = decode(item) {
                items.push(decoded.map(|entity| (at, entity)));
            }
        }
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
    until_processed(policy, keys, position, false, send).await
}

/// Writes `requests` to `table` with BatchWriteItem: chunks of 25, a few
/// chunks at once, unprocessed items retried. Every chunk is sent whatever
/// happens to the others; `Unprocessed` then names each key by what
/// happened to it.
pub(crate) async fn write_requests(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    requests: Vec<(KeyValues, WriteRequest)>,
) -> Result<Capacity> {
    let policy = db.retry_policy();
    let outcomes = in_flight(policy, chunks(requests, WRITE_CHUNK), |chunk| {
        write_chunk(db, table, schema, chunk, policy)
    })
    .await;
    let nothing_read = |never: std::convert::Infallible| match never {};
    let entity = schema.entity_type;
    combine(
        entity,
        "BatchWriteItem",
        outcomes,
        KeyValues::text,
        nothing_read,
    )
    .map(|(_, capacity)| capacity)
}

/// The table key values of a write request: the put item's key, or the
/// delete's.
fn request_key(schema: &EntitySchema, request: &WriteRequest) -> Option<KeyValues> {
    match (request.put_request(), request.delete_request()) {
        (Some(put), _) => key_values(schema, put.item()),
        (None, Some(delete)) => key_values(schema, delete.key()),
        (None, None) => None,
    }
}

async fn write_chunk(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    chunk: Vec<(KeyValues, WriteRequest)>,
    policy: RetryPolicy,
) -> ChunkOutcome<KeyValues, std::convert::Infallible> {
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
        let capacity = Capacity::of_tables(output.consumed_capacity);
        telemetry::record(&span, capacity.total, written, 0);
        Ok(Answer {
            left,
            items: Vec::new(),
            capacity,
        })
    };
    let key_of = |request: &WriteRequest| request_key(schema, request);
    until_processed(policy, chunk, key_of, true, send).await
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
            let key = plan.key.values().clone();
            requests.push((key, plan.into_write_request()?));
        }
        positions(E::SCHEMA.entity_type, requests.iter().map(|(key, _)| key))?;
        write_requests(self, self.table_name::<E::Table>(), &E::SCHEMA, requests).await
    }

    /// Deletes the items at `keys` with BatchWriteItem (as
    /// [`batch_put`](Self::batch_put)), returning the capacity reported.
    pub async fn batch_delete<E: crate::Entity + 'static>(
        &self,
        keys: Vec<crate::Key<E>>,
    ) -> Result<Capacity> {
        positions(E::SCHEMA.entity_type, keys.iter().map(crate::Key::values))?;
        let requests = keys
            .into_iter()
            .map(|key| {
                let values = key.values().clone();
                Ok((values, self.delete(key).plan()?.into_write_request()?))
            })
            .collect::<Result<Vec<_>>>()?;
        write_requests(self, self.table_name::<E::Table>(), &E::SCHEMA, requests).await
    }

    /// Reads the items at `keys` with BatchGetItem: chunks of 100, a few at
    /// once, unprocessed keys retried. Returns the items found, in the order of
    /// `keys`; a key given twice is an error, with nothing sent. An item whose
    /// `#[ddb(ttl)]` time has passed is not found, as with
    /// [`get`](Self::get). When keys stay unread, [`Error::Unprocessed`]
    /// names them (`keys`) and carries what was read (`read`).
    pub async fn batch_get<E: crate::Entity + 'static>(
        &self,
        keys: Vec<crate::Key<E>>,
    ) -> Result<Vec<E>> {
        let decode =
            |item| (!crate::timestamp::expired(&E::SCHEMA, &item)).then(|| E::from_item(item));
        get_entities(self, self.table_name::<E::Table>(), keys, decode).await
    }
}
