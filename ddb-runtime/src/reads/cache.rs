//! The read-through cache: entities read by key kept in memory, bounded in
//! number and age, let go of when the same `Db` writes their item and when
//! a stream record says another writer did.

use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::db::Db;
use crate::declaration::model::TableDef;
use crate::entity::Entity;
use crate::error::Result;
use crate::keys::key::{ByValue, Key, KeyValues};
use crate::transport::invalidation::Invalidate;

/// The longest age a cache keeps: far beyond any process's life, and
/// within what a clock's instant can add.
const LONGEST_AGE: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// How much a [`Cache`] keeps, and for how long.
///
/// ```
/// use std::time::Duration;
/// let limits = ddb_runtime::cache::CacheLimits::new(10_000, Duration::from_secs(60));
/// assert_eq!(limits.entries(), 10_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLimits {
    entries: usize,
    max_age: Duration,
    consistent_fill: bool,
}

impl CacheLimits {
    /// At most `entries` items (the oldest let go first), none kept longer
    /// than `max_age` (at most a hundred years: `Duration::MAX` means no
    /// age limit); a miss reads with a strongly consistent read.
    pub fn new(entries: usize, max_age: Duration) -> Self {
        Self {
            entries,
            max_age: max_age.min(LONGEST_AGE),
            consistent_fill: true,
        }
    }

    /// Whether a miss reads with a strongly consistent read (the default,
    /// `true`). An eventually consistent read costs half as much, but may
    /// return an item as it was up to about a second before: the cache then
    /// keeps that older item, and a caller may read back older than its
    /// own write, or, after a stream record was applied, the item as it
    /// was before the change the record reported.
    pub fn consistent_fill(mut self, consistent: bool) -> Self {
        self.consistent_fill = consistent;
        self
    }

    /// The most items kept.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The longest an item is kept.
    pub fn max_age(&self) -> Duration {
        self.max_age
    }
}

/// What a [`Cache`] has done since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Reads answered from memory.
    pub hits: u64,
    /// Reads sent to DynamoDB.
    pub misses: u64,
    /// Items held now.
    pub entries: usize,
}

impl Db {
    /// A read-through cache of `E`, within `limits`.
    ///
    /// [`get`](Cache::get) answers from memory what it has read before,
    /// and reads from DynamoDB (then keeps) what it has not. What it keeps
    /// stays true to the table as far as this `Db` can know:
    ///
    /// - every write this `Db` (or a clone of it) sends lets go of the
    ///   items it writes before the write returns: puts, updates, deletes,
    ///   batches, transactions and the guard items they write, whether the
    ///   write succeeded, failed or its answer was lost. A read that was
    ///   under way when the write returned is not kept. So a caller never
    ///   reads back older than its own write. A write that may still be
    ///   applied after it returned (an attempt that timed out or lost its
    ///   connection, or the call dropped by the caller's own timeout)
    ///   keeps its items out of the cache for `max_age`: DynamoDB applies
    ///   such an attempt within that time or not at all, as far as the
    ///   cache assumes. A cache made while a write was under way lets go
    ///   of everything it holds when the write ends.
    /// - a stream record handed to [`apply`](Cache::apply) lets go of its
    ///   item: another writer's change leaves the cache within the
    ///   stream's delay (typically under a second).
    ///
    /// It cannot know of a write from another process, or from this
    /// process through another client or `Db`, before its stream record
    /// is applied: until then (or `max_age`), it answers with the item as
    /// it was. An item found missing is kept as missing, under the same
    /// rules. An item whose `#[ddb(ttl)]` time passes reads as `None`.
    ///
    /// ```no_run
    /// # async fn demo<E: ddb_runtime::Entity + Clone + Send + Sync + 'static>(db: ddb_runtime::Db, key: ddb_runtime::Key<E>) -> ddb_runtime::Result<()> {
    /// use std::time::Duration;
    /// use ddb_runtime::cache::CacheLimits;
    ///
    /// let authors = db.cache::<E>(CacheLimits::new(10_000, Duration::from_secs(300)));
    /// let first = authors.get(key.clone()).await?; // GetItem
    /// let again = authors.get(key).await?; // from memory
    /// # Ok(())
    /// # }
    /// ```
    pub fn cache<E: Entity + Clone + Send + Sync + 'static>(
        &self,
        limits: CacheLimits,
    ) -> Cache<E> {
        let store = Arc::new(Store::new(
            self.table_name::<E::Table>().to_owned(),
            E::SCHEMA.table,
            limits,
        ));
        let weak = Arc::downgrade(&store);
        self.sdk().caches().register(weak);
        Cache {
            db: self.clone(),
            store,
        }
    }
}

/// A read-through cache of entity `E`; see [`Db::cache`]. Clones share it.
pub struct Cache<E> {
    db: Db,
    store: Arc<Store<E>>,
}

impl<E> Clone for Cache<E> {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            store: Arc::clone(&self.store),
        }
    }
}

impl<E> std::fmt::Debug for Cache<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("table", &self.store.table)
            .field("limits", &self.store.limits)
            .finish()
    }
}

impl<E: Entity + Clone + Send + Sync + 'static> Cache<E> {
    /// The entity at `key`: from memory when kept, else read with GetItem
    /// (strongly consistent unless the limits say otherwise) and kept.
    /// `None` when there is no such item.
    pub async fn get(&self, key: Key<E>) -> Result<Option<E>> {
        let span = self.store.span();
        let ticket = match self.store.lookup(key.values()) {
            Lookup::Hit(found) => {
                span.record("ddb.cache.hits", 1);
                return Ok(found);
            }
            Lookup::Miss(ticket) => ticket,
        };
        span.record("ddb.cache.misses", 1);
        let consistent = self.store.limits.consistent_fill;
        let get = self.db.get(key.clone()).consistent_read(consistent);
        let found = tracing::Instrument::instrument(get.raw(), span).await?;
        self.store
            .fill_item(ticket, found)
            .map_err(|e| e.with_key(&key))
    }

    /// Lets go of the item at `key`.
    pub fn invalidate(&self, key: &Key<E>) {
        self.store.invalidate(key.values(), true);
    }

    /// Lets go of every item.
    pub fn clear(&self) {
        self.store.invalidate_all(true);
    }

    /// What the cache has done so far, and holds now.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.store.hits.load(Ordering::Relaxed),
            misses: self.store.misses.load(Ordering::Relaxed),
            entries: self.store.state().entries.len(),
        }
    }

    /// The store, for a loader that reads through it.
    pub(crate) fn store(&self) -> &Arc<Store<E>> {
        &self.store
    }

    /// The `Db` it reads with.
    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    /// Lets go of the item whose key attributes `keys` holds (a stream
    /// record's), if they are this table's keys.
    #[cfg_attr(not(feature = "lambda"), allow(dead_code))]
    pub(crate) fn invalidate_keys(&self, keys: &crate::item::Item) {
        if let Ok(key) = KeyValues::read_table_key(self.store.def, keys) {
            self.store.invalidate(&key, true);
        }
    }
}

/// How many groups of keys have a generation of their own: a write to one
/// key holds back the reads under way of its group only.
const GROUPS: usize = 64;

/// The items of one entity kept, and what invalidates them.
pub(crate) struct Store<E> {
    table: String,
    def: &'static TableDef,
    limits: CacheLimits,
    state: Mutex<State<E>>,
    hits: AtomicU64,
    misses: AtomicU64,
    entity: &'static str,
    ttl: fn(&crate::item::Item) -> Option<f64>,
    decode: fn(crate::item::Item) -> Result<E>,
}

struct State<E> {
    entries: HashMap<ByValue, Entry<E>>,
    /// Keys in the order they were kept, each with its entry's number: an
    /// entry replaced or let go of leaves a number that matches no entry.
    order: VecDeque<(ByValue, u64)>,
    kept: u64,
    /// Each group's count of invalidations: a read whose group counted one
    /// while it was under way is not kept.
    generations: [u64; GROUPS],
    /// The items of writes that may still be applied after they returned
    /// (an attempt with no answer, a request dropped), not kept again
    /// until the age limit has passed since.
    unsettled: HashMap<ByValue, Instant>,
    /// The same for every item, after such a write a cache made while it
    /// was under way cannot tell the items of.
    all_unsettled_until: Option<Instant>,
}

struct Entry<E> {
    found: Option<E>,
    kept_at: Instant,
    /// The item's time to live, when it has one.
    ttl: Option<f64>,
    number: u64,
}

/// What a lookup found.
pub(crate) enum Lookup<E> {
    /// Kept: the entity, or `None` for a missing or expired item.
    Hit(Option<E>),
    /// Not kept: read it, and keep it with this ticket.
    Miss(Ticket),
}

/// A read under way, to keep when it ends unless its key's group was
/// invalidated meanwhile.
#[derive(Clone)]
pub(crate) struct Ticket {
    key: ByValue,
    group: usize,
    generation: u64,
}

impl<E: Entity + Clone> Store<E> {
    fn new(table: String, def: &'static TableDef, limits: CacheLimits) -> Self {
        Self {
            table,
            def,
            limits,
            state: Mutex::new(State {
                entries: HashMap::new(),
                order: VecDeque::new(),
                kept: 0,
                generations: [0; GROUPS],
                unsettled: HashMap::new(),
                all_unsettled_until: None,
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            entity: E::SCHEMA.entity_type,
            ttl: |item| crate::item::timestamp::time_to_live(&E::SCHEMA, item),
            decode: E::from_item,
        }
    }
}

impl<E: Clone> Store<E> {
    /// Whether reads miss strongly consistent.
    pub(crate) fn consistent_fill(&self) -> bool {
        self.limits.consistent_fill
    }

    /// The span of one read through the cache.
    pub(crate) fn span(&self) -> tracing::Span {
        tracing::info_span!(
            target: "ddb",
            "ddb.cache",
            ddb.entity = self.entity,
            ddb.cache.hits = tracing::field::Empty,
            ddb.cache.misses = tracing::field::Empty,
        )
    }

    fn state(&self) -> MutexGuard<'_, State<E>> {
        // A panic under the lock leaves the state whole: each change is
        // made in one step.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The item kept at `key`, or a ticket to read it.
    pub(crate) fn lookup(&self, key: &KeyValues) -> Lookup<E> {
        let key = ByValue(key.clone());
        let group = group_of(&key);
        let mut state = self.state();
        if let Some(entry) = state.entries.get(&key) {
            if entry.kept_at.elapsed() < self.limits.max_age {
                self.hits.fetch_add(1, Ordering::Relaxed);
                let now = crate::item::timestamp::now_epoch_seconds();
                let expired = entry
                    .ttl
                    .is_some_and(|at| crate::item::timestamp::passed(at, now));
                return Lookup::Hit(entry.found.clone().filter(|_| !expired));
            }
            state.entries.remove(&key);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let generation = state.generations[group];
        Lookup::Miss(Ticket {
            key,
            group,
            generation,
        })
    }

    /// Decodes the item a miss read (`None`: no item) and keeps it, as
    /// [`fill`](Self::fill) does.
    pub(crate) fn fill_item(
        &self,
        ticket: Ticket,
        item: Option<crate::item::Item>,
    ) -> Result<Option<E>> {
        let ttl = item.as_ref().and_then(self.ttl);
        let found = item.map(self.decode).transpose()?;
        self.fill(ticket, found.clone(), ttl);
        let now = crate::item::timestamp::now_epoch_seconds();
        let expired = ttl.is_some_and(|at| crate::item::timestamp::passed(at, now));
        Ok(found.filter(|_| !expired))
    }

    /// Keeps what a miss read, unless its key's group was invalidated
    /// since the miss: the read may predate a write.
    pub(crate) fn fill(&self, ticket: Ticket, found: Option<E>, ttl: Option<f64>) {
        if self.limits.entries == 0 {
            return;
        }
        let mut state = self.state();
        if state.generations[ticket.group] != ticket.generation
            || !Self::settled(&state, &ticket.key)
        {
            return;
        }
        state.kept += 1;
        let number = state.kept;
        let entry = Entry {
            found,
            kept_at: Instant::now(),
            ttl,
            number,
        };
        state.entries.insert(ticket.key.clone(), entry);
        state.order.push_back((ticket.key, number));
        self.evict(&mut state);
    }

    /// Lets go of the oldest entries beyond the limit, and forgets the
    /// order of entries gone when it holds twice as many as kept.
    fn evict(&self, state: &mut State<E>) {
        while state.entries.len() > self.limits.entries {
            let Some((key, number)) = state.order.pop_front() else {
                break;
            };
            if state
                .entries
                .get(&key)
                .is_some_and(|entry| entry.number == number)
            {
                state.entries.remove(&key);
            }
        }
        if state.order.len() > 2 * state.entries.len() + 16 {
            let State { entries, order, .. } = state;
            order.retain(|(key, number)| entries.get(key).is_some_and(|e| e.number == *number));
        }
    }

    /// Forgets the writes whose items may be kept again, when it holds
    /// more of them than the cache holds items.
    fn forget_settled(&self, state: &mut State<E>) {
        if state.unsettled.len() > state.entries.len() + 16 {
            let now = Instant::now();
            state.unsettled.retain(|_, until| *until > now);
        }
    }

    /// Whether an item read at `key` may be kept: no write of it that may
    /// still be applied is under its age limit.
    fn settled(state: &State<E>, key: &ByValue) -> bool {
        let now = Instant::now();
        let all = state.all_unsettled_until.is_none_or(|until| until <= now);
        all && state.unsettled.get(key).is_none_or(|until| *until <= now)
    }
}

/// The group of a key, by a fixed hash.
fn group_of(key: &ByValue) -> usize {
    let hasher =
        std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
    (hasher.hash_one(key) % GROUPS as u64) as usize
}

impl<E: Entity + Clone + Send + Sync> Invalidate for Store<E> {
    fn table(&self) -> &str {
        &self.table
    }

    fn table_def(&self) -> &'static TableDef {
        self.def
    }

    fn invalidate(&self, key: &KeyValues, settled: bool) {
        let key = ByValue(key.clone());
        let group = group_of(&key);
        let mut state = self.state();
        state.entries.remove(&key);
        state.generations[group] += 1;
        if !settled {
            let until = Instant::now() + self.limits.max_age;
            state.unsettled.insert(key, until);
            self.forget_settled(&mut state);
        }
    }

    fn invalidate_all(&self, settled: bool) {
        let mut state = self.state();
        state.entries.clear();
        state.order.clear();
        for generation in &mut state.generations {
            *generation += 1;
        }
        if !settled {
            state.all_unsettled_until = Some(Instant::now() + self.limits.max_age);
        }
    }
}
