//! The caches a `Db`'s writes invalidate: each request that writes lets
//! go of the items it writes in every cache of their table, once it has
//! returned (or was dropped, or failed: a write whose answer was lost may
//! have been applied).

use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Lets go of the item at `key`, and of any read of it under way.
    fn invalidate(&self, key: &KeyValues);
}

/// The caches of a `Db`.
#[derive(Default)]
pub(crate) struct Caches {
    any: AtomicBool,
    caches: RwLock<Vec<Weak<dyn Invalidate>>>,
}

impl Caches {
    /// Adds `cache`; caches dropped since are forgotten.
    pub(crate) fn register(&self, cache: Weak<dyn Invalidate>) {
        let mut caches = self.caches.write().unwrap_or_else(PoisonError::into_inner);
        caches.retain(|cache| cache.strong_count() > 0);
        caches.push(cache);
        self.any.store(true, Ordering::Release);
    }

    /// The items `request` writes that a cache may hold, to let go of once
    /// it is sent; `None` when there is no cache.
    pub(crate) fn written<O: Operation>(&self, request: &O) -> Option<Invalidation> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let caches: Vec<Arc<dyn Invalidate>> = self
            .caches
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let mut keys = Vec::new();
        request.written(&mut |table, item| {
            for cache in caches.iter().filter(|cache| cache.table() == table) {
                if let Ok(key) = KeyValues::read_table_key(cache.table_def(), item) {
                    keys.push((Arc::clone(cache), key));
                }
            }
        });
        Some(Invalidation(keys))
    }
}

/// The cached items a request writes: let go of when it is dropped, after
/// the request returned or was given up.
pub(crate) struct Invalidation(Vec<(Arc<dyn Invalidate>, KeyValues)>);

impl Drop for Invalidation {
    fn drop(&mut self) {
        for (cache, key) in &self.0 {
            cache.invalidate(key);
        }
    }
}
