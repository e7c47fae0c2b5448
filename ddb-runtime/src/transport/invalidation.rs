//! The caches a `Db`'s writes invalidate: each request that writes lets
//! go of the items it writes in every cache of their table, once it has
//! returned (or was dropped, or failed: a write whose answer was lost may
//! have been applied). A cache made while a write was under way lets go of
//! everything it holds when that write ends, and a write that may still be
//! applied after it returned (an attempt with no answer, or the request
//! dropped) keeps its items out of the caches for their age limit.

use std::sync::{Arc, PoisonError, RwLock, Weak};

use super::operation::Operation;
use crate::declaration::model::TableDef;
use crate::keys::key::KeyValues;

/// A cache of items of one table.
pub(crate) trait Invalidate: Send + Sync {
    /// The table's name, as requests name it.
    fn table(&self) -> &str;
    /// The table's keys, to read an item's key by.
    fn table_def(&self) -> &'static TableDef;
    /// Lets go of the item at `key`, and of any read of it under way; when
    /// the write may still be applied (`settled` is false), keeps it out
    /// until its age limit has passed.
    fn invalidate(&self, key: &KeyValues, settled: bool);
    /// Lets go of every item, and of every read under way, as
    /// [`invalidate`](Self::invalidate) does for one.
    fn invalidate_all(&self, settled: bool);
}

/// The caches of a `Db`, in the order they were made.
#[derive(Default)]
pub(crate) struct Caches(RwLock<Registered>);

#[derive(Default)]
struct Registered {
    /// The caches still alive, each with its number in the order made.
    caches: Vec<(usize, Weak<dyn Invalidate>)>,
    /// How many caches were ever made: a write notes it when it starts, to
    /// find the caches made while it was under way.
    made: usize,
}

impl Caches {
    /// Adds `cache`; caches dropped since are forgotten (a cache made per
    /// request leaves nothing behind).
    pub(crate) fn register(&self, cache: Weak<dyn Invalidate>) {
        let mut registered = self.0.write().unwrap_or_else(PoisonError::into_inner);
        registered
            .caches
            .retain(|(_, cache)| cache.strong_count() > 0);
        let number = registered.made;
        registered.caches.push((number, cache));
        registered.made += 1;
    }

    /// The items `request` writes that a cache may hold, to let go of once
    /// it is sent.
    pub(crate) fn written<O: Operation>(self: &Arc<Self>, request: &O) -> Invalidation {
        let registered = self.0.read().unwrap_or_else(PoisonError::into_inner);
        // A read writes nothing: it takes no copy of the caches.
        let mut caches: Option<Vec<Arc<dyn Invalidate>>> = None;
        let mut keys = Vec::new();
        let mut writes = false;
        request.written(&mut |table, item| {
            writes = true;
            let caches = caches.get_or_insert_with(|| {
                registered
                    .caches
                    .iter()
                    .filter_map(|(_, cache)| cache.upgrade())
                    .collect()
            });
            for cache in caches.iter().filter(|cache| cache.table() == table) {
                if let Ok(key) = KeyValues::read_table_key(cache.table_def(), item) {
                    keys.push((Arc::clone(cache), key));
                }
            }
        });
        Invalidation {
            caches: Arc::clone(self),
            made: registered.made,
            keys,
            settled: false,
            writes,
        }
    }

    /// The caches made after the first `made`, still alive.
    fn made_after(&self, made: usize) -> Vec<Arc<dyn Invalidate>> {
        let registered = self.0.read().unwrap_or_else(PoisonError::into_inner);
        registered
            .caches
            .iter()
            .filter(|(number, _)| *number >= made)
            .filter_map(|(_, cache)| cache.upgrade())
            .collect()
    }
}

/// The cached items a request writes: let go of when it is dropped, after
/// the request returned or was given up.
pub(crate) struct Invalidation {
    caches: Arc<Caches>,
    made: usize,
    keys: Vec<(Arc<dyn Invalidate>, KeyValues)>,
    settled: bool,
    writes: bool,
}

impl Invalidation {
    /// The request has its answer; `settled` when none of its attempts can
    /// still be applied after it.
    pub(crate) fn settle(&mut self, settled: bool) {
        self.settled = settled;
    }
}

impl Drop for Invalidation {
    fn drop(&mut self) {
        for (cache, key) in &self.keys {
            cache.invalidate(key, self.settled);
        }
        if !self.writes {
            return;
        }
        // A cache made while the request was under way cannot tell which
        // items it wrote: it lets go of them all.
        for cache in self.caches.made_after(self.made) {
            cache.invalidate_all(self.settled);
        }
    }
}
