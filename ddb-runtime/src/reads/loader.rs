//! The coalescing loader: gets of one entity issued together, from any
//! number of callers, sent as BatchGetItems of distinct keys, each caller
//! answered with its own result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::channel::oneshot;
use tracing::Instrument;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::keys::key::{ByValue, Key, KeyValues};
use crate::reads::batch_get::{read_keys, BatchRead, ReadOutcomes};
use crate::reads::projection::Projection;

/// How long a batch's first caller keeps letting the others run once no
/// new key has joined: long enough for tasks spawned together, or woken by
/// the same event on another thread, to join; short beside a round trip.
const QUIET: Duration = Duration::from_micros(50);

/// The longest a batch's first caller lets the others run while keys keep
/// joining.
const MAX_GATHER: Duration = Duration::from_micros(500);

impl Db {
    /// A loader of `E`: gets issued together are sent as one BatchGetItem.
    ///
    /// Each [`load`](Loader::load) joins the batch being gathered; the
    /// batch's first caller lets every other task and future ready to run
    /// go first, again and again until no key has joined for 50 µs (at
    /// most 0.5 ms, or until 100 keys have joined), or waits the
    /// [`window`](Loader::window) set; then it sends the batch's distinct keys
    /// as BatchGetItems of at most 100 keys (unprocessed keys read again,
    /// as [`batch_get`](Self::batch_get) does). Each caller gets its own
    /// result: the entity, `None`, or an error. Clone the loader to share
    /// it between tasks: clones gather into the same batches.
    ///
    /// ```no_run
    /// # async fn demo<E: ddb_runtime::Entity + Clone + Send + 'static>(db: ddb_runtime::Db, keys: Vec<ddb_runtime::Key<E>>) -> ddb_runtime::Result<()> {
    /// let authors = db.loader::<E>();
    /// // 50 gets, one BatchGetItem of the distinct keys.
    /// let loads = keys.into_iter().map(|key| authors.load(key).send());
    /// for author in futures::future::join_all(loads).await {
    ///     println!("{}", author?.is_some());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn loader<E: Entity + Clone + Send + 'static>(&self) -> Loader<E> {
        Loader::new(self.clone(), whole::<E>())
    }
}

/// Gets of one entity gathered into BatchGetItems; see
/// [`Db::loader`]. A clone gathers into the same batches.
pub struct Loader<E, P = E> {
    db: Db,
    shared: Arc<Shared<P>>,
    marker: std::marker::PhantomData<fn() -> E>,
}

impl<E, P> Clone for Loader<E, P> {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            shared: Arc::clone(&self.shared),
            marker: std::marker::PhantomData,
        }
    }
}

impl<E, P> std::fmt::Debug for Loader<E, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("entity", &self.shared.settings.entity)
            .field("window", &self.shared.settings.window)
            .finish()
    }
}

/// What a loader reads and how; fixed once the loader is made.
#[derive(Clone)]
struct Settings<P> {
    entity: &'static str,
    window: Option<Duration>,
    include_expired: bool,
    /// Only these attributes, when projecting.
    projection: Option<&'static [&'static str]>,
    /// An item's time to live.
    ttl: fn(&Item) -> Option<f64>,
    decode: fn(Item) -> Result<P>,
    /// The cache read through, when there is one.
    #[cfg(feature = "cache")]
    cache: Option<Arc<crate::reads::cache::Store<P>>>,
}

/// The settings of a loader of whole entities.
fn whole<E: Entity>() -> Settings<E> {
    Settings {
        entity: E::SCHEMA.entity_type,
        window: None,
        include_expired: false,
        projection: None,
        ttl: |item| crate::item::timestamp::time_to_live(&E::SCHEMA, item),
        decode: E::from_item,
        #[cfg(feature = "cache")]
        cache: None,
    }
}

#[cfg(feature = "cache")]
impl<E: Entity + Clone + Send + Sync + 'static> crate::reads::cache::Cache<E> {
    /// A loader that reads through this cache: a get answers from it what
    /// it keeps, and gathers the others into BatchGetItems (read as the
    /// cache's misses read), whose items it keeps.
    pub fn loader(&self) -> Loader<E> {
        let mut settings = whole::<E>();
        settings.cache = Some(Arc::clone(self.store()));
        Loader::new(self.db().clone(), settings)
    }
}

/// The batches a loader gathers: one of eventually consistent gets, one of
/// strongly consistent ones, never mixed.
struct Shared<P> {
    settings: Settings<P>,
    gathering: [Mutex<Gathering<P>>; 2],
}

/// An item read: the entity (or projection), and its time to live, for a
/// cache to keep it by.
#[derive(Clone)]
struct Found<P> {
    value: P,
    #[cfg_attr(not(feature = "cache"), allow(dead_code))]
    ttl: Option<f64>,
}

/// What a key's read answers: the item read, or `None` when there is none.
type Answered<P> = Result<Option<Found<P>>>;

/// One answer, sent to one caller: `None` when the batch was let go
/// before it was sent, for the caller to join the next one.
type Answer<P> = oneshot::Sender<Option<Answered<P>>>;

/// The batch being gathered: the callers waiting on each key, and whether
/// one of them will send it.
struct Gathering<P> {
    /// Keys equal by value are one key, as DynamoDB takes them.
    waiting: HashMap<ByValue, Vec<Answer<P>>>,
    led: bool,
}

impl<P> Default for Gathering<P> {
    fn default() -> Self {
        Self {
            waiting: HashMap::new(),
            led: false,
        }
    }
}

impl<E: Entity + 'static, P: Clone + Send + 'static> Loader<E, P> {
    fn new(db: Db, settings: Settings<P>) -> Self {
        Self {
            db,
            shared: Arc::new(Shared {
                settings,
                gathering: Default::default(),
            }),
            marker: std::marker::PhantomData,
        }
    }

    /// A loader that gathers for `window` after a batch's first get,
    /// instead of letting the tasks ready to run go first: for gets issued
    /// by tasks on other threads, or spread over time. Makes a new loader
    /// (set it before cloning). The window is a tokio timer: such a loader
    /// is used on a tokio runtime with its time driver.
    pub fn window(&self, window: Duration) -> Self {
        let mut settings = self.shared.settings.clone();
        settings.window = Some(window);
        Self::new(self.db.clone(), settings)
    }

    /// A loader that also returns an item whose `#[ddb(ttl)]` time has
    /// passed but that DynamoDB has not deleted yet, when `true`, as
    /// [`GetItem::include_expired`](crate::GetItem::include_expired) does.
    /// Makes a new loader (set it before cloning).
    pub fn include_expired(&self, include_expired: bool) -> Self {
        let mut settings = self.shared.settings.clone();
        settings.include_expired = include_expired;
        // A cache keeps no expired item: such a loader reads past it.
        #[cfg(feature = "cache")]
        if include_expired {
            settings.cache = None;
        }
        Self::new(self.db.clone(), settings)
    }

    /// A get of the item at `key`, to gather with the others; finish with
    /// [`send`](Load::send).
    pub fn load(&self, key: Key<E>) -> Load<E, P> {
        Load {
            loader: self.clone(),
            key,
            consistent: false,
        }
    }

    /// Joins the batch of `key` (strongly consistent or not): the answer
    /// to wait for, and whether this caller sends the batch.
    fn join(
        &self,
        key: &Key<E>,
        consistent: bool,
    ) -> (oneshot::Receiver<Option<Answered<P>>>, bool) {
        let (answer, answered) = oneshot::channel();
        let mut gathering = self.gathering(consistent);
        let waiting = gathering
            .waiting
            .entry(ByValue(key.values().clone()))
            .or_default();
        waiting.push(answer);
        let leads = !std::mem::replace(&mut gathering.led, true);
        (answered, leads)
    }

    fn gathering(&self, consistent: bool) -> std::sync::MutexGuard<'_, Gathering<P>> {
        // A caller that panicked holding the lock left the batch whole.
        self.shared.gathering[usize::from(consistent)]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends the batch this caller leads from a task of its own, on the
    /// caller's tokio runtime: a caller that stops polling, or is dropped,
    /// holds back no other caller of its batch. Without a runtime, or
    /// `here` (a runtime shutting down drops the tasks spawned on it), the
    /// caller sends it.
    async fn lead(&self, consistent: bool, here: bool) {
        // Made before the task is spawned: a task dropped unpolled (its
        // runtime shutting down) still lets the batch go.
        let leading = Leading {
            loader: self.clone(),
            consistent,
            sent: false,
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if !here => {
                let span = tracing::Span::current();
                runtime.spawn(leading.lead().instrument(span));
            }
            _ => leading.lead().await,
        }
    }

    /// Lets the other callers join: for the window set; else by giving way,
    /// again and again, to the tasks ready to run on this runtime and to
    /// the machine's other threads (on a machine with few cores, the
    /// thread that would run the last caller may be waiting for this one's
    /// core), until no key has joined for [`QUIET`] (at most
    /// [`MAX_GATHER`]), or the batch fills a request.
    async fn gather(&self, consistent: bool) {
        if let Some(window) = self.shared.settings.window {
            tokio::time::sleep(window).await;
            return;
        }
        let started = std::time::Instant::now();
        let mut joined = self.gathering(consistent).waiting.len();
        let mut quiet_since = started;
        loop {
            tokio::task::yield_now().await;
            std::thread::yield_now();
            let now = self.gathering(consistent).waiting.len();
            if now != joined {
                joined = now;
                quiet_since = std::time::Instant::now();
            }
            let full = joined >= crate::transport::batch::GET_CHUNK;
            if full || quiet_since.elapsed() >= QUIET || started.elapsed() >= MAX_GATHER {
                return;
            }
        }
    }

    /// Reads the batch's keys and answers every caller.
    async fn answer(&self, batch: HashMap<ByValue, Vec<Answer<P>>>, consistent: bool) {
        let settings = &self.shared.settings;
        let callers = batch.values().map(Vec::len).sum::<usize>();
        let (values, answers): (Vec<KeyValues>, Vec<Vec<Answer<P>>>) = batch
            .into_iter()
            .map(|(key, answers)| (key.0, answers))
            .unzip();
        let span = tracing::info_span!(
            target: "ddb",
            "ddb.loader",
            ddb.entity = settings.entity,
            ddb.loader.keys = values.len(),
            ddb.loader.callers = callers,
        );
        let results = self
            .read(&values, consistent)
            .instrument(span)
            .await
            .unwrap_or_else(|error| values.iter().map(|_| Err(error.copied())).collect());
        for (result, answers) in results.into_iter().zip(answers) {
            deliver(result, answers);
        }
    }

    /// Each key's item, read with BatchGetItems.
    async fn read(&self, values: &[KeyValues], consistent: bool) -> Result<Vec<Answered<P>>> {
        let settings = &self.shared.settings;
        let projection = settings
            .projection
            .map(|attributes| {
                let table = E::SCHEMA.table;
                let keys: Vec<&'static str> = [table.pk.name]
                    .into_iter()
                    .chain(table.sk.map(|k| k.name))
                    .collect();
                crate::reads::projection::expression::<E>(attributes, &keys)
            })
            .transpose()?;
        let read = BatchRead {
            consistent,
            projection,
        };
        let (include_expired, ttl, decode) =
            (settings.include_expired, settings.ttl, settings.decode);
        let decode = move |item: Item| {
            let ttl = ttl(&item);
            let now = crate::item::timestamp::now_epoch_seconds;
            let expired = ttl.is_some_and(|at| crate::item::timestamp::passed(at, now()));
            (include_expired || !expired).then(|| decode(item).map(|value| Found { value, ttl }))
        };
        let table = self.db.table_name::<E::Table>();
        let outcomes = read_keys::<E, Found<P>>(&self.db, table, values, &read, decode).await?;
        Ok(each::<E, P>(values, outcomes))
    }
}

/// Sends a batch's answers to the callers waiting on one key: each its
/// copy, the last the result itself. A caller gone (its get dropped) is
/// skipped.
fn deliver<P: Clone>(result: Answered<P>, mut answers: Vec<Answer<P>>) {
    let last = answers.pop();
    for answer in answers {
        let copy = match &result {
            Ok(found) => Ok(found.clone()),
            Err(error) => Err(error.copied()),
        };
        let _ = answer.send(Some(copy));
    }
    if let Some(last) = last {
        let _ = last.send(Some(result));
    }
}

/// Each key's result from the outcomes of its batch: the item read, `None`
/// when the key was read and holds no item, or the error that left it
/// unread.
fn each<E: Entity, P>(values: &[KeyValues], outcomes: ReadOutcomes<Found<P>>) -> Vec<Answered<P>> {
    let mut results: Vec<Option<Answered<P>>> =
        std::iter::repeat_with(|| None).take(values.len()).collect();
    for outcome in outcomes {
        for position in outcome.done {
            results[position] = Some(Ok(None));
        }
        for (position, read) in outcome.items {
            let key = || crate::keys::key::key_from_values::<E>(values[position].clone());
            results[position] = Some(read.map(Some).map_err(|e| e.with_key(&key())));
        }
        for position in outcome.not_done.into_iter().chain(outcome.unknown) {
            results[position] = Some(Err(unread::<E>(&values[position], &outcome.causes)));
        }
    }
    let no_cause = Vec::new();
    results
        .into_iter()
        .zip(values)
        .map(|(result, key)| result.unwrap_or_else(|| Err(unread::<E>(key, &no_cause))))
        .collect()
}

/// The error of a key a batch left unread: the error of the request that
/// failed, as a get of the key alone fails; else (DynamoDB left the key
/// unprocessed after every retry) `Unprocessed`.
fn unread<E: Entity>(key: &KeyValues, causes: &[Error]) -> Error {
    if let Some(cause) = causes.first() {
        return cause.copied();
    }
    Error::Unprocessed {
        entity: E::SCHEMA.entity_type,
        operation: "BatchGetItem",
        keys: vec![key.text()],
        outcome: Box::default(),
    }
}

/// The batch a caller leads: if the caller is dropped before it sends it,
/// the batch is let go, and each caller waiting on it is told to join the
/// next one.
struct Leading<E, P> {
    loader: Loader<E, P>,
    consistent: bool,
    sent: bool,
}

impl<E: Entity + 'static, P: Clone + Send + 'static> Leading<E, P> {
    /// Sends the batch once the others have joined.
    async fn lead(mut self) {
        let (loader, consistent) = (self.loader.clone(), self.consistent);
        loader.gather(consistent).await;
        let batch = {
            let mut gathering = loader.gathering(consistent);
            gathering.led = false;
            std::mem::take(&mut gathering.waiting)
        };
        self.sent = true;
        loader.answer(batch, consistent).await;
    }
}

impl<E, P> Drop for Leading<E, P> {
    fn drop(&mut self) {
        if self.sent {
            return;
        }
        let mut gathering = self.loader.shared.gathering[usize::from(self.consistent)]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for answer in gathering.waiting.drain().flat_map(|(_, answers)| answers) {
            let _ = answer.send(None);
        }
        gathering.led = false;
    }
}

/// One get of a [`Loader`]; finish with [`send`](Load::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Load<E, P = E> {
    loader: Loader<E, P>,
    key: Key<E>,
    consistent: bool,
}

impl<E: Entity + 'static, P: Clone + Send + 'static> Load<E, P> {
    /// A strongly consistent read (twice the read cost of an eventually
    /// consistent one). Gathered with the other consistent gets only.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// Joins the batch being gathered and waits for its answer: `None`
    /// when there is no such item. A loader reading through a cache
    /// answers from it what it keeps, and keeps what its batch reads; a
    /// strongly consistent get reads past the cache. A batch sent whose
    /// answer is lost with its task (decoding panicked, the runtime shut
    /// down) is not sent again: each of its callers gets
    /// [`Error::Unprocessed`](crate::Error::Unprocessed) naming its key.
    pub async fn send(self) -> Result<Option<P>> {
        #[cfg(feature = "cache")]
        if let Some(store) = self
            .loader
            .shared
            .settings
            .cache
            .clone()
            .filter(|_| !self.consistent)
        {
            return self.through(&store).await;
        }
        let found = self.read(self.consistent).await?;
        Ok(found.map(|found| found.value))
    }

    /// The item, read in the batch of its consistency.
    async fn read(&self, consistent: bool) -> Answered<P> {
        let mut here = false;
        loop {
            let (answered, leads) = self.loader.join(&self.key, consistent);
            if leads {
                self.loader.lead(consistent, here).await;
            }
            match answered.await {
                Ok(Some(result)) => return result,
                // The batch was let go before it was sent: join the next
                // one. When this caller's own task let it go, its runtime
                // refuses tasks (shutting down): the caller sends the next
                // batch it leads itself.
                Ok(None) => here |= leads,
                // The batch was sent and its answer lost with its task (a
                // panic, a runtime shut down): not sent again.
                Err(oneshot::Canceled) => return Err(unread::<E>(self.key.values(), &[])),
            }
        }
    }

    /// The item from `store` when kept, else read in a batch (as the
    /// cache's misses read) and kept.
    #[cfg(feature = "cache")]
    async fn through(&self, store: &crate::reads::cache::Store<P>) -> Result<Option<P>> {
        use crate::reads::cache::Lookup;
        let span = store.span();
        let ticket = match store.lookup(self.key.values()) {
            Lookup::Hit(found) => {
                span.record("ddb.cache.hits", 1);
                return Ok(found);
            }
            Lookup::Miss(ticket) => ticket,
        };
        span.record("ddb.cache.misses", 1);
        let found = self.read(store.consistent_fill()).instrument(span).await?;
        let (value, ttl) = found.map(|f| (f.value, f.ttl)).unzip();
        store.fill(ticket, value.clone(), ttl.flatten());
        Ok(value)
    }
}

impl<E: Entity + 'static> Loader<E, E> {
    /// A loader of projection type `P`: its BatchGetItems read only `P`'s
    /// attributes. Makes a new loader, which reads past the cache of a
    /// cache's loader (`Cache::loader`: the cache keeps whole entities).
    pub fn project<P: Projection<E> + Clone + Send + 'static>(&self) -> Loader<E, P> {
        let settings = &self.shared.settings;
        Loader::new(
            self.db.clone(),
            Settings {
                entity: settings.entity,
                window: settings.window,
                include_expired: settings.include_expired,
                projection: Some(P::ATTRIBUTES),
                ttl: settings.ttl,
                #[cfg(feature = "cache")]
                cache: None,
                decode: crate::reads::projection::decode::<E, P>,
            },
        )
    }
}
