//! How a query's items become results: the sealed [`Decode`] and its three
//! ways, [`Whole`] entities, a [`Project`]ion, or entities read back from the
//! table ([`Hydrate`]).

use std::future::Future;
use std::marker::PhantomData;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::item::Item;
use crate::reads::projection;
use crate::reads::projection::Projection;
use crate::reads::query::of_entity;

/// Decode whole entities.
#[derive(Debug, Clone, Copy)]
pub struct Whole;
/// Decode projection type `X`.
pub struct Project<X>(pub(crate) PhantomData<fn() -> X>);
impl<X> Clone for Project<X> {
    fn clone(&self) -> Self {
        Project(PhantomData)
    }
}
/// Read keys from the index, then the whole entities from the table with
/// BatchGetItem.
#[derive(Debug, Clone, Copy)]
pub struct Hydrate;

/// How a query's items become results: [`Whole`] entities, a [`Project`]ion,
/// or entities read back from the table ([`Hydrate`]). Sealed: these three
/// are the only ones.
pub trait Decode<E>: sealed::Sealed + Clone + Send + Sync + 'static {
    /// What each item becomes.
    type Output: Send + 'static;
    /// The attributes to read, when not all.
    fn attributes(&self) -> Option<&'static [&'static str]>;
    /// Decodes one page of items.
    fn decode(
        &self,
        db: &Db,
        items: Vec<Item>,
    ) -> impl Future<Output = Result<Vec<Self::Output>>> + Send;
    /// [`decode`](Self::decode) for a query that keeps expired items
    /// (`include_expired`) or not: a decoding that reads the items again
    /// (hydration) leaves out the expired ones itself.
    fn decode_for_query(
        &self,
        db: &Db,
        items: Vec<Item>,
        include_expired: bool,
    ) -> impl Future<Output = Result<Vec<Self::Output>>> + Send {
        let _ = include_expired;
        self.decode(db, items)
    }

    /// Whether every item read becomes a result: hydration drops items
    /// deleted, expired or of another entity since the index was read, so
    /// an item read past the page does not prove that more follow.
    #[doc(hidden)]
    fn keeps_every_item(&self) -> bool {
        true
    }
}

mod sealed {
    /// Keeps [`Decode`](super::Decode) to ddb's own ways of decoding.
    pub trait Sealed {}
    impl Sealed for super::Whole {}
    impl<X> Sealed for super::Project<X> {}
    impl Sealed for super::Hydrate {}
}

impl<E: Entity + Send + 'static> Decode<E> for Whole {
    type Output = E;
    fn attributes(&self) -> Option<&'static [&'static str]> {
        None
    }
    async fn decode(&self, _: &Db, items: Vec<Item>) -> Result<Vec<E>> {
        crate::error::try_map_all(items.into_iter(), E::from_item)
    }
}

impl<E: Entity + Send + 'static, X: Projection<E> + Send + 'static> Decode<E> for Project<X> {
    type Output = X;
    fn attributes(&self) -> Option<&'static [&'static str]> {
        Some(X::ATTRIBUTES)
    }
    async fn decode(&self, _: &Db, items: Vec<Item>) -> Result<Vec<X>> {
        crate::error::try_map_all(items.into_iter(), projection::decode::<E, X>)
    }
}

impl<E: Entity + Send + 'static> Decode<E> for Hydrate {
    type Output = E;
    fn attributes(&self) -> Option<&'static [&'static str]> {
        Some(&[])
    }
    async fn decode(&self, db: &Db, items: Vec<Item>) -> Result<Vec<E>> {
        <Self as Decode<E>>::decode_for_query(self, db, items, false).await
    }

    fn keeps_every_item(&self) -> bool {
        false
    }

    async fn decode_for_query(
        &self,
        db: &Db,
        items: Vec<Item>,
        include_expired: bool,
    ) -> Result<Vec<E>> {
        let keys = crate::error::try_map_all(items.iter(), crate::keys::key::Key::<E>::from_item)?;
        // A page read with several requests can meet an item twice (its
        // index key changed between them): it is read once, where first met.
        let first: Vec<bool> = {
            let mut seen = std::collections::HashSet::with_capacity(keys.len());
            keys.iter()
                .map(|k| seen.insert(k.values().as_ref()))
                .collect()
        };
        let keys = keys
            .into_iter()
            .zip(first)
            .filter_map(|(key, first)| first.then_some(key))
            .collect();
        // In query order; an item deleted since the index was read, one of
        // another entity with a key of the same shape (an index that does
        // not carry the entity type cannot filter it), or one whose time to
        // live has passed (an index without the attribute cannot filter
        // it either), is skipped.
        let decode: fn(Item) -> Option<Result<E>> = if include_expired {
            |item| of_entity::<E>(&item).then(|| E::from_item(item))
        } else {
            |item| {
                let live = !crate::item::timestamp::expired(&E::SCHEMA, &item);
                (of_entity::<E>(&item) && live).then(|| E::from_item(item))
            }
        };
        crate::reads::batch_get::get_entities(db, db.table_name::<E::Table>(), keys, decode).await
    }
}
