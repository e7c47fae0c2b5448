//! The machinery both batch operations share: DynamoDB's chunk sizes,
//! bounded concurrency, and unprocessed items sent again with capped
//! exponential backoff and full jitter.

use crate::telemetry::{Capacity, RequestSpan};
use std::collections::HashMap;
use std::time::Duration;

use futures::StreamExt;

use crate::declaration::model::EntitySchema;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::keys::key::KeyRef;
use crate::keys::key::KeyValues;

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
    /// Requests per chunk, the first included (one at least: 0 sends one).
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
pub(crate) fn jitter() -> f64 {
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

/// What one chunk of a batch did, by key (`N`: its position among the keys
/// sent), and what it read (`T`: a read's decoded items). Keys are matched
/// by their typed values (S or N, partition and sort): two different keys
/// never match, whatever text they hold. They are written as `PK / SK` only
/// in an error.
pub(crate) struct ChunkOutcome<N, T> {
    pub(crate) done: Vec<N>,
    pub(crate) not_done: Vec<N>,
    pub(crate) unknown: Vec<N>,
    pub(crate) items: Vec<T>,
    pub(crate) causes: Vec<Error>,
    pub(crate) capacity: Capacity,
}

impl<N, T> Default for ChunkOutcome<N, T> {
    fn default() -> Self {
        Self {
            done: Vec::new(),
            not_done: Vec::new(),
            unknown: Vec::new(),
            items: Vec::new(),
            causes: Vec::new(),
            capacity: Capacity::default(),
        }
    }
}

impl<N, T> ChunkOutcome<N, T> {
    /// A request that failed outright: DynamoDB answered with an error (or
    /// the request could not be built), so nothing of it was applied; or,
    /// for a request that `applies` something, it failed on its way or its
    /// answer was lost, so its keys are unknown.
    pub(crate) fn failed(&mut self, error: Error, pending: Vec<N>, applies: bool) {
        let lost = matches!(
            error,
            Error::Sdk {
                kind: crate::error::SdkErrorKind::Timeout
                    | crate::error::SdkErrorKind::Dispatch
                    | crate::error::SdkErrorKind::Response,
                ..
            }
        );
        if applies && lost {
            self.unknown.extend(pending);
        } else {
            self.not_done.extend(pending);
        }
        self.causes.push(error);
    }

    /// The keys of a request that it did not leave: processed, unless its
    /// answer also held `strays` (entries left, or items read, at a key no
    /// one sent). A stray is one of these keys in a form that matches none,
    /// and which one cannot be told: a write's keys are then unknown, a
    /// read's unread.
    fn processed(&mut self, keys: Vec<N>, strays: usize, applies: bool) {
        match (strays, applies) {
            (0, _) => self.done.extend(keys),
            (_, true) => self.unknown.extend(keys),
            (_, false) => self.not_done.extend(keys),
        }
    }
}

/// Every chunk's outcome as one: `Ok` when every key was processed, else
/// `Unprocessed` naming each key (`text`) by what happened to it, with what
/// was read as items (`as_item`). Chunks are kept in input order.
pub(crate) fn combine<N, T>(
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
        total.causes.extend(outcome.causes);
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
            causes: total.causes,
        }),
    })
}

/// Each key's position among `keys`, by its borrowed values: what an item
/// read back is matched with. A key given twice is `DuplicateKey`.
pub(crate) fn positions<'a>(
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

/// The position of the key of `item` (a key or an item of `schema`'s
/// table) among the keys sent, matched by its typed values; `None` when it
/// is none of them.
pub(crate) fn position(
    schema: &EntitySchema,
    positions: &HashMap<KeyRef<'_>, usize>,
    item: &Item,
) -> Option<usize> {
    let key = KeyRef::read_table_key(schema.table, item)?;
    positions.get(&key).copied()
}

/// One request's answer: the entries it left unprocessed (as DynamoDB
/// returned them, ready to send again), what it read, and its span (failed
/// when what it left stays unprocessed).
pub(crate) struct Answer<P, T> {
    pub(crate) left: Vec<P>,
    pub(crate) items: Vec<T>,
    /// How many items it read at a key no one asked for: they cannot be
    /// placed.
    pub(crate) unplaced: usize,
    pub(crate) capacity: Capacity,
    pub(crate) span: RequestSpan,
}

/// Sends one chunk of entries, each with its key's position, until every
/// one is processed or the attempts run out, with backoff between attempts:
/// `send` sends the pending entries (with their keys) once, and what it
/// leaves is matched back by its key (`key_of`, by typed values). The
/// entries are moved into each request, never copied: a retry sends what
/// DynamoDB returned unprocessed. An entry left at a key matching none sent
/// is never sent: it makes the keys its request processed uncertain (see
/// [`ChunkOutcome::processed`]). When the attempts run out (at least one is
/// made), the last request's span is failed: what it left stays
/// unprocessed. A request that fails outright ends the chunk; `applies`
/// tells whether it could have written something (then a lost answer, or a
/// stray entry, leaves keys unknown).
pub(crate) async fn until_processed<N: std::hash::Hash + Eq, P, T, Fut>(
    policy: RetryPolicy,
    chunk: Vec<(N, P)>,
    key_of: impl Fn(&P) -> Option<N>,
    applies: bool,
    send: impl Fn(&[N], Vec<P>) -> Fut,
) -> ChunkOutcome<N, T>
where
    Fut: std::future::Future<Output = Result<Answer<P, T>>>,
{
    let mut outcome = ChunkOutcome::default();
    let mut pending = chunk;
    let max_attempts = policy.max_attempts.max(1);
    let mut attempt = 0;
    while !pending.is_empty() {
        let (names, entries): (Vec<N>, Vec<P>) = pending.into_iter().unzip();
        if attempt > 0 {
            tokio::time::sleep(policy.delay(attempt)).await;
        }
        attempt += 1;
        let answer = match send(&names, entries).await {
            Ok(answer) => answer,
            Err(error) => {
                outcome.failed(error, names, applies);
                break;
            }
        };
        outcome.items.extend(answer.items);
        outcome.capacity.add(&answer.capacity);
        let (processed, left, strays) = match_left(names, answer.left, &key_of);
        outcome.processed(processed, strays + answer.unplaced, applies);
        pending = left;
        if attempt >= max_attempts && !pending.is_empty() {
            answer.span.left_unprocessed();
            outcome
                .not_done
                .extend(pending.into_iter().map(|(name, _)| name));
            break;
        }
    }
    outcome
}

/// Matches the entries a request left to the keys it sent (`names`), by
/// `key_of`: the keys it processed, the keys left with their entries, and
/// how many entries matched none (or a key already matched).
fn match_left<N: std::hash::Hash + Eq, P>(
    names: Vec<N>,
    left: Vec<P>,
    key_of: impl Fn(&P) -> Option<N>,
) -> (Vec<N>, Vec<(N, P)>, usize) {
    let mut strays = 0;
    let mut by_key: HashMap<N, P> = HashMap::with_capacity(left.len());
    for entry in left {
        match key_of(&entry) {
            Some(name) if !by_key.contains_key(&name) => {
                by_key.insert(name, entry);
            }
            _ => strays += 1,
        }
    }
    let mut pending = Vec::with_capacity(by_key.len());
    let mut processed = Vec::with_capacity(names.len());
    for name in names {
        match by_key.remove(&name) {
            Some(entry) => pending.push((name, entry)),
            None => processed.push(name),
        }
    }
    (processed, pending, strays + by_key.len())
}

/// Sends every chunk, `policy.concurrency` at a time: a chunk starts as soon
/// as any chunk in flight ends, not when the earliest one does (a slow chunk
/// does not hold the others back). The outcomes come back in chunk order.
pub(crate) async fn in_flight<C, O, Fut>(
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
pub(crate) fn chunks<T>(entries: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut chunks = Vec::with_capacity(entries.len().div_ceil(size));
    let mut entries = entries.into_iter().peekable();
    while entries.peek().is_some() {
        chunks.push(entries.by_ref().take(size).collect());
    }
    chunks
}
