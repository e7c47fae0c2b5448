//! Typed queries: one entry point per key or index declared with
//! `query = "name"`, sort-key conditions on the template's leading fields,
//! pages with cursors, and streams of all pages.

use std::fmt::Write as _;
use std::future::Future;
use std::marker::PhantomData;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{Stream, TryStreamExt};

use crate::db::Db;
use crate::declaration::model::{IndexDef, IndexKind, ScalarType};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::Condition;
use crate::expression::Expression;
use crate::item::Item;
use crate::keys::key::KeyValue;
use crate::keys::sort;
use crate::keys::sort::{SortCondition, SortOp, SortPrefix, SortRange};
use crate::reads::cursor;
use crate::reads::cursor::Cursor;
use crate::reads::fetch::Plan;
use crate::reads::projection;
use crate::reads::projection::Projection;
use crate::telemetry::Capacity;

/// Marks a query on the table or a local index: consistent reads allowed.
#[derive(Debug, Clone, Copy)]
pub struct TableIndex;
/// Marks a query on a global secondary index: eventually consistent only.
#[derive(Debug, Clone, Copy)]
pub struct GlobalIndex;
/// Marks a query on a global index keyed by the entity's own attributes (a
/// multi-attribute key, which DynamoDB keeps): eventually consistent only.
#[derive(Debug, Clone, Copy)]
pub struct MultiAttributeIndex;

/// What a query reads: the table or an index of the entity's keys, or an
/// index of its multi-attribute keys.
#[doc(hidden)]
pub trait IndexTarget {
    /// Whether `K` counts the entity's multi-attribute keys rather than its
    /// key templates.
    const MULTI_ATTRIBUTE: bool;
}
impl IndexTarget for TableIndex {
    const MULTI_ATTRIBUTE: bool = false;
}
impl IndexTarget for GlobalIndex {
    const MULTI_ATTRIBUTE: bool = false;
}
impl IndexTarget for MultiAttributeIndex {
    const MULTI_ATTRIBUTE: bool = true;
}

/// The index a query's key `k` reads (`None` for the table).
pub(crate) const fn index_name<E: Entity, I: IndexTarget>(k: usize) -> Option<&'static str> {
    if I::MULTI_ATTRIBUTE {
        Some(E::SCHEMA.multi_attribute_keys[k].index)
    } else {
        E::SCHEMA.keys[k].index
    }
}

/// Marks a query whose items carry every attribute of the entity.
#[derive(Debug, Clone, Copy)]
pub struct Full;
/// Marks a query on an index that projects only some attributes: decode a
/// projection type with `.project::<P>()`, or fetch whole entities with
/// `.hydrate()`.
#[derive(Debug, Clone, Copy)]
pub struct Partial;

#[doc(hidden)]
pub struct IndexKindOf<const GLOBAL: bool>;
#[doc(hidden)]
pub struct ProjectionOf<const ALL: bool>;
#[doc(hidden)]
pub trait Select {
    type Type;
}
impl Select for IndexKindOf<false> {
    type Type = TableIndex;
}
impl Select for IndexKindOf<true> {
    type Type = GlobalIndex;
}
impl Select for ProjectionOf<true> {
    type Type = Full;
}
impl Select for ProjectionOf<false> {
    type Type = Partial;
}

/// The partition a query reads, built by a generated entry point such as
/// `Order::by_customer(&customer_id)`; run it with [`Db::query`].
///
/// `S` is the tuple of sort-key field types, `I` [`TableIndex`] or
/// [`GlobalIndex`], `P` [`Full`] or [`Partial`], `K` the key's position in
/// the entity's declaration.
#[must_use = "a query key does nothing until run with Db::query"]
pub struct QueryKey<E, S, I, P, const K: usize> {
    partition: Result<Vec<KeyValue>>,
    marker: crate::entity::Phantom<(E, S, I, P)>,
}

/// The key of a query of one partition: generated entry points build it.
pub fn query_key<E, S, I, P, const K: usize>(
    partition: Result<KeyValue>,
) -> QueryKey<E, S, I, P, K> {
    query_key_of_attributes(partition.map(|value| vec![value]))
}

/// A partition given as one value per attribute of a multi-attribute
/// partition key: generated entry points build it.
pub fn query_key_of_attributes<E, S, I, P, const K: usize>(
    partition: Result<Vec<KeyValue>>,
) -> QueryKey<E, S, I, P, K> {
    QueryKey {
        partition,
        marker: PhantomData,
    }
}

/// Decode whole entities.
#[derive(Debug, Clone, Copy)]
pub struct Whole;
/// Decode projection type `X`.
pub struct Project<X>(PhantomData<fn() -> X>);
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

/// Which (projection, decoding) pairs can be sent: whole entities only when
/// the index carries every attribute.
#[diagnostic::on_unimplemented(
    message = "this index does not carry every attribute of the entity",
    label = "decode a projection type with `.project::<P>()`, or fetch whole entities with `.hydrate()`, before sending",
    note = "an index declared keys_only or include(...) returns only some attributes"
)]
pub trait Ready {}
impl Ready for (Full, Whole) {}
impl<P, X> Ready for (P, Project<X>) {}
impl<P> Ready for (P, Hydrate) {}

/// Every page of a query from `start`: `fetch` reads one page, until a page
/// comes without a cursor.
pub(crate) fn paginate<Q, T, F, Fut>(
    query: Q,
    start: Option<Cursor>,
    fetch: F,
) -> impl Stream<Item = Result<Page<T>>> + Send
where
    Q: Send,
    T: Send,
    F: Fn(Q, Option<Cursor>) -> Fut + Copy + Send,
    Fut: Future<Output = Result<(Q, Page<T>)>> + Send,
{
    futures::stream::try_unfold(
        (query, start, false),
        move |(query, cursor, done)| async move {
            if done {
                return Ok(None);
            }
            let (query, page) = fetch(query, cursor).await?;
            let next = page.cursor.clone();
            let done = next.is_none();
            Ok(Some((page, (query, next, done))))
        },
    )
}

/// The items of a stream of pages.
pub(crate) fn flatten<T: Send>(
    pages: impl Stream<Item = Result<Page<T>>> + Send,
) -> impl Stream<Item = Result<T>> + Send {
    pages
        .map_ok(|page| futures::stream::iter(page.items.into_iter().map(Ok)))
        .try_flatten()
}

/// One page of results.
#[derive(Debug, Clone)]
pub struct Page<T> {
    /// The items, in sort-key order (or reverse with `newest_first`).
    pub items: Vec<T>,
    /// Where to resume, `None` when DynamoDB reported the end.
    pub cursor: Option<Cursor>,
    /// Whether more items follow this page, as far as the page's reads
    /// tell at no extra cost: `Some(false)` at the end (no cursor),
    /// `Some(true)` when the page read a matching item past its last one
    /// (a filtered page's later requests read more than they miss; a
    /// sharded index buffers each shard's reads), `None` when DynamoDB
    /// stopped exactly at the page's limit without saying whether more
    /// follow: the cursor's next page may then be empty. [`Query::exact_end`]
    /// reads one item past the page so that this is always known, but on a
    /// hydrated query (`.hydrate()`), which drops items deleted or expired
    /// since the index was read.
    pub has_more: Option<bool>,
    /// The read capacity DynamoDB reported for the page's requests, in all
    /// and by table and index.
    pub consumed_capacity: Capacity,
    /// How many requests the page took.
    pub requests: u32,
}

/// A typed Query; built by [`Db::query`], finished with
/// [`send`](Query::send), [`pages`](Query::pages), [`items`](Query::items)
/// or [`collect`](Query::collect).
#[must_use = "a query does nothing until it is sent"]
pub struct Query<E, S, I, P, D, const K: usize> {
    db: Db,
    partition: Result<Vec<KeyValue>>,
    sort: Result<SortCondition>,
    forward: bool,
    limit: Option<usize>,
    consistent: bool,
    filter: Option<Condition<E>>,
    cursor: Option<Cursor>,
    include_expired: bool,
    exact_end: bool,
    decode: D,
    marker: crate::entity::Phantom<(S, I, P)>,
}

impl<E, S, I, P, D: Clone, const K: usize> Clone for Query<E, S, I, P, D, K> {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            partition: clone_result(&self.partition),
            sort: clone_result(&self.sort),
            forward: self.forward,
            limit: self.limit,
            consistent: self.consistent,
            filter: self.filter.clone(),
            cursor: self.cursor.clone(),
            include_expired: self.include_expired,
            exact_end: self.exact_end,
            decode: self.decode.clone(),
            marker: PhantomData,
        }
    }
}

fn clone_result<T: Clone>(result: &Result<T>) -> Result<T> {
    match result {
        Ok(value) => Ok(value.clone()),
        Err(error) => Err(error.clone_input()),
    }
}

impl Db {
    /// Runs a query built by a generated entry point.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> Result<(), ddb_runtime::Error> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}", query = "by_customer")]
    /// # struct Order { customer_id: String, placed_at: u64, order_id: String }
    /// let latest = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .newest_first(true)
    ///     .limit(20)
    ///     .send()
    ///     .await?;
    /// let since: Vec<Order> = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .ge(&1_700_000_000u64)
    ///     .collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn query<E: Entity, S, I: IndexTarget, P, const K: usize>(
        &self,
        key: QueryKey<E, S, I, P, K>,
    ) -> Query<E, S, I, P, Whole, K> {
        let sort = if I::MULTI_ATTRIBUTE {
            SortRange::All
        } else {
            default_sort::<E>(K)
        };
        Query {
            db: self.clone(),
            partition: key.partition,
            sort: Ok(sort.into()),
            forward: true,
            limit: None,
            consistent: false,
            filter: None,
            cursor: None,
            include_expired: false,
            exact_end: false,
            decode: Whole,
            marker: PhantomData,
        }
    }
}

/// Whether `item` is an `E` by its entity-type attribute.
pub(crate) fn of_entity<E: Entity>(item: &Item) -> bool {
    let entity_type = item
        .get(E::SCHEMA.table.entity_attribute)
        .and_then(|t| t.as_s().ok());
    entity_type.map(String::as_str) == Some(E::SCHEMA.entity_type)
}

/// Whether `key` (an item's table key) is a primary key of entity `E`.
fn owns_key<E: Entity>(key: &Item) -> bool {
    crate::keys::key::Key::<E>::from_item(key).is_ok()
}

/// Without a condition: the entity's literal sort-key prefix, or its constant.
fn default_sort<E: Entity>(k: usize) -> SortRange {
    match E::SCHEMA.keys[k].sk {
        Some(sk) if sk.is_constant() => SortRange::Eq(KeyValue::S(sk.source.to_owned())),
        Some(sk) if !sk.literal_prefix().is_empty() => {
            SortRange::BeginsWith(sk.literal_prefix().to_owned())
        }
        _ => SortRange::All,
    }
}

fn sort_type<E: Entity>(k: usize) -> ScalarType {
    crate::declaration::model::key_types(E::SCHEMA.table, E::SCHEMA.keys[k].index).1
}

/// The index of multi-attribute key `k` of `E`; the derive checked it exists.
fn multi_attribute_index<E: Entity>(k: usize) -> Result<&'static IndexDef> {
    let name = E::SCHEMA.multi_attribute_keys[k].index;
    E::SCHEMA
        .table
        .index(name)
        .ok_or_else(|| Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: format!("index `{name}` is not declared on the table"),
        })
}

/// The sort key attributes of multi-attribute key `k`, with the fields that
/// fill them.
fn sort_attributes<E: Entity>(k: usize) -> Result<Vec<(&'static str, ScalarType)>> {
    let index = multi_attribute_index::<E>(k)?;
    let fields = E::SCHEMA.multi_attribute_keys[k].sk;
    Ok(fields
        .iter()
        .zip(index.sk_attributes())
        .map(|(field, attribute)| (*field, attribute.ty))
        .collect())
}

impl<E: Entity, S, I: IndexTarget, P, D, const K: usize> Query<E, S, I, P, D, K> {
    fn condition(mut self, op: SortOp, value: &dyn SortPrefix<S>) -> Self {
        let entity = E::SCHEMA.entity_type;
        self.sort = if I::MULTI_ATTRIBUTE {
            sort_attributes::<E>(K)
                .and_then(|attributes| sort::resolve_attributes(entity, &attributes, op, value))
        } else {
            match E::SCHEMA.keys[K].sk {
                Some(template) => {
                    sort::resolve(entity, &template, sort_type::<E>(K), op, value).map(Into::into)
                }
                None => Err(self.no_sort_key()),
            }
        };
        self
    }

    fn no_sort_key(&self) -> Error {
        Error::InvalidSortCondition {
            entity: E::SCHEMA.entity_type,
            reason: "this key has no sort key to put a condition on".into(),
        }
    }

    /// Items whose leading sort-key fields equal `prefix` (all fields: one item).
    pub fn eq(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Eq, &prefix)
    }
    /// Items whose last given field starts with the given text (`begins_with`).
    pub fn begins_with(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::BeginsWith, &prefix)
    }
    /// Leading fields `<` `prefix`.
    pub fn lt(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Lt, &prefix)
    }
    /// Leading fields `<=` `prefix`.
    pub fn le(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Le, &prefix)
    }
    /// Leading fields `>` `prefix`.
    pub fn gt(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Gt, &prefix)
    }
    /// Leading fields `>=` `prefix`.
    pub fn ge(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Ge, &prefix)
    }
    /// Leading fields between `low` and `high`, both inclusive.
    pub fn between(mut self, low: impl SortPrefix<S>, high: impl SortPrefix<S>) -> Self {
        let entity = E::SCHEMA.entity_type;
        self.sort = if I::MULTI_ATTRIBUTE {
            sort_attributes::<E>(K).and_then(|attributes| {
                sort::resolve_attributes_between(entity, &attributes, &low, &high)
            })
        } else {
            match E::SCHEMA.keys[K].sk {
                Some(template) => {
                    sort::resolve_between(entity, &template, sort_type::<E>(K), &low, &high)
                        .map(Into::into)
                }
                None => Err(self.no_sort_key()),
            }
        };
        self
    }

    /// Descending sort-key order when `true` (`ScanIndexForward = false`):
    /// newest first when the sort key starts with a timestamp.
    pub fn newest_first(mut self, newest_first: bool) -> Self {
        self.forward = !newest_first;
        self
    }

    /// At most `n` items per page: exactly `n` when that many match, however
    /// many requests the filter or DynamoDB's 1 MB pages make that take.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Reads one item past each limited page, so that [`Page::has_more`]
    /// is always known on an unsharded query and a page that ends exactly
    /// at the last item has no cursor. It costs at most one item's read
    /// units per page (DynamoDB rounds a query's reads up to 4 KB, so often
    /// nothing); without a [`limit`](Self::limit) it changes nothing.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
    /// # struct Order { customer_id: String, order_id: String }
    /// let page = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .limit(20)
    ///     .exact_end(true)
    ///     .send()
    ///     .await?;
    /// let show_next_button = page.has_more == Some(true);
    /// assert_eq!(show_next_button, page.cursor.is_some());
    /// # Ok(()) }
    /// ```
    pub fn exact_end(mut self, exact_end: bool) -> Self {
        self.exact_end = exact_end;
        self
    }

    /// Keeps only items matching `condition` on non-key attributes.
    ///
    /// A filter is applied after the items are read: it saves bandwidth, not
    /// read capacity. Prefer a sort-key condition or an index when a filter
    /// would discard most items.
    pub fn filter(mut self, condition: Condition<E>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing & condition,
            None => condition,
        });
        self
    }

    /// Resumes after the page that returned `cursor`.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.cursor = Some(cursor);
        self
    }

    /// Also returns items whose `#[ddb(ttl)]` time has passed but that
    /// DynamoDB has not deleted yet (it can take days), when `true`. Left
    /// out by default.
    pub fn include_expired(mut self, include_expired: bool) -> Self {
        self.include_expired = include_expired;
        self
    }

    /// Decodes projection type `X`, reading only its attributes. A type that
    /// asks for an attribute the index does not carry is a compile error.
    pub fn project<X: Projection<E>>(self) -> Query<E, S, I, P, Project<X>, K> {
        const {
            let index = index_name::<E, I>(K);
            if let Some(missing) = projection::missing_attribute(&E::SCHEMA, index, X::ATTRIBUTES) {
                let message = crate::declaration::check::Message::new()
                    .push("the projection type reads attribute `")
                    .push(missing)
                    .push("`, which this index does not carry; remove that field or add it to the index's include(...)");
                panic!("{}", message.as_str());
            }
        }
        self.with_decode(Project(PhantomData))
    }

    /// Reads the keys from the index, then whole entities from the table with
    /// BatchGetItem (one extra read per item).
    pub fn hydrate(self) -> Query<E, S, I, P, Hydrate, K> {
        self.with_decode(Hydrate)
    }

    fn with_decode<D2>(self, decode: D2) -> Query<E, S, I, P, D2, K> {
        Query {
            db: self.db,
            partition: self.partition,
            sort: self.sort,
            forward: self.forward,
            limit: self.limit,
            consistent: self.consistent,
            filter: self.filter,
            cursor: self.cursor,
            include_expired: self.include_expired,
            exact_end: self.exact_end,
            decode,
            marker: PhantomData,
        }
    }
}

impl<E: Entity, S, P, D, const K: usize> Query<E, S, TableIndex, P, D, K> {
    /// A strongly consistent read; only on the table and local indexes.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }
}

impl<E, S, I, P, D, const K: usize> Query<E, S, I, P, D, K>
where
    E: Entity + Send + 'static,
    S: 'static,
    I: IndexTarget + 'static,
    P: 'static,
    D: Decode<E>,
{
    fn plan(&self) -> Result<Plan> {
        let schema = &E::SCHEMA;
        let index_name = index_name::<E, I>(K);
        let shards = if I::MULTI_ATTRIBUTE {
            1
        } else {
            schema.keys[K].shards
        };
        let partition = clone_result(&self.partition)?;
        let sort = clone_result(&self.sort)?;
        if self.limit == Some(0) {
            return Err(Error::InvalidRequest {
                entity: schema.entity_type,
                reason: "limit must be at least 1".into(),
            });
        }
        let table = schema.table;
        let index = index_name.and_then(|name| table.index(name));
        let (pk_attributes, sk_attributes): (Vec<_>, Vec<_>) = match index {
            Some(index) => (
                index.pk_attributes().map(|a| a.name).collect(),
                index.sk_attributes().map(|a| a.name).collect(),
            ),
            None => (
                vec![table.pk.name],
                table.sk.map(|a| a.name).into_iter().collect(),
            ),
        };
        let mut key_attributes = vec![table.pk.name];
        key_attributes.extend(table.sk.map(|a| a.name));
        for name in pk_attributes.iter().chain(&sk_attributes) {
            if !key_attributes.contains(name) {
                key_attributes.push(name);
            }
        }
        if partition.len() != pk_attributes.len() {
            return Err(Error::InvalidRequest {
                entity: schema.entity_type,
                reason: format!(
                    "the partition key has {} attributes and the query gives {} values",
                    pk_attributes.len(),
                    partition.len()
                ),
            });
        }
        let partitions: Vec<Vec<KeyValue>> = match partition.as_slice() {
            [value] if shards > 1 => (0..shards)
                .map(|shard| {
                    let sharded = crate::keys::shard::shard_partition(
                        schema.entity_type,
                        value.clone(),
                        shard,
                    )?;
                    Ok(vec![sharded])
                })
                .collect::<Result<_>>()?,
            _ => vec![partition.clone()],
        };
        let entity_attribute = table.entity_attribute;
        let entity_type = schema.entity_type;
        let check_type = projection::carries(schema, index_name, entity_attribute);
        // DynamoDB refuses a filter on a key attribute of what is queried
        // (an index keyed on the entity type): there, each item read is
        // checked instead.
        let type_is_key = pk_attributes
            .iter()
            .chain(&sk_attributes)
            .any(|&name| name == entity_attribute);
        let type_filter = (check_type && !type_is_key).then(|| {
            Expression::compare(
                entity_attribute,
                "=",
                aws_sdk_dynamodb::types::AttributeValue::S(entity_type.to_owned()),
            )
        });
        // Expired items stay readable until DynamoDB's background deletion gets
        // to them (days): leave them out unless asked for.
        let ttl_filter = crate::item::timestamp::ttl_attribute(schema)
            .filter(|ttl| !self.include_expired && projection::carries(schema, index_name, ttl))
            .map(|ttl| Expression::not_expired(ttl, crate::item::timestamp::now_epoch_seconds()));
        let user_filter = self.filter.clone().map(Expression::from);
        let filter = [type_filter, ttl_filter, user_filter]
            .into_iter()
            .flatten()
            .reduce(Expression::and);
        let projection = self.decode.attributes().map(|attributes| {
            let mut list = attributes.to_vec();
            if check_type {
                list.push(entity_attribute);
            }
            if projection::carries(
                schema,
                index_name,
                crate::item::stored::SCHEMA_VERSION_ATTRIBUTE,
            ) {
                list.push(crate::item::stored::SCHEMA_VERSION_ATTRIBUTE);
            }
            list
        });
        // The parts: entity type, index, partition values (joined by a zero
        // byte), shards, sort condition and direction.
        let mut print = cursor::Fingerprint::default();
        print.part(entity_type);
        print.part(index_name.unwrap_or(""));
        for (i, value) in partition.iter().enumerate() {
            if i > 0 {
                print.end_part();
            }
            let _ = print.write_str(value.as_str());
        }
        print.end_part();
        let _ = write!(print, "{shards}");
        print.end_part();
        let _ = sort.describe(&mut print);
        print.end_part();
        print.part(if self.forward { "asc" } else { "desc" });
        let fingerprint = print.finish();
        let consistent =
            self.consistent && !matches!(index.map(|i| i.kind), Some(IndexKind::Global));
        let all_attributes = projection.is_none()
            && index.is_some_and(|i| {
                i.kind == IndexKind::Local
                    && i.projection != crate::declaration::model::IndexProjection::All
            });
        Ok(Plan {
            entity: entity_type,
            table_name: self.db.table_name::<E::Table>().to_owned(),
            index: index_name,
            all_attributes,
            pk_attributes,
            sk_attributes,
            partitions,
            sort,
            filter,
            projection,
            key_attributes,
            forward: self.forward,
            consistent,
            fingerprint,
            cursor_keys: self.db.cursor_keys(),
            // Without the entity type to filter on, the table key tells;
            // with the type a key attribute of the index, each item's type.
            keep: match (check_type, type_is_key) {
                (false, _) => Some(owns_key::<E> as fn(&Item) -> bool),
                (true, true) => Some(of_entity::<E>),
                (true, false) => None,
            },
            exact_end: self.exact_end,
        })
    }

    async fn page_with(&self, plan: &Plan, cursor: Option<&Cursor>) -> Result<Page<D::Output>> {
        let raw = plan.page(&self.db, cursor, self.limit).await?;
        self.decode_page(raw).await
    }

    async fn decode_page(&self, raw: crate::reads::fetch::RawPage) -> Result<Page<D::Output>> {
        Ok(Page {
            items: self
                .decode
                .decode_for_query(&self.db, raw.items, self.include_expired)
                .await?,
            cursor: raw.cursor,
            has_more: match raw.has_more {
                Some(true) if !self.decode.keeps_every_item() => None,
                more => more,
            },
            consumed_capacity: raw.consumed_capacity,
            requests: raw.requests,
        })
    }

    /// Sends the query and returns one page (see [`limit`](Self::limit)).
    pub fn send(self) -> BoxFuture<'static, Result<Page<D::Output>>>
    where
        (P, D): Ready,
    {
        Box::pin(async move {
            let plan = self.plan()?;
            self.page_with(&plan, self.cursor.as_ref()).await
        })
    }

    /// Every page, from the cursor (if any) to the end.
    ///
    /// On a sharded index the shards are read concurrently and merged in
    /// sort-key order, and what a shard read beyond one page is kept for the
    /// next, so every item is read once. Without a [`limit`](Self::limit),
    /// pages hold 100 items and, on an index of up to 16 shards, each shard
    /// is read a whole DynamoDB page (up to 1 MB) at a time, as a
    /// hand-written fan-out reads it. With a limit, or more shards, each
    /// request of a shard reads what the page misses, four times more on each
    /// further request, so that a few items cost a few reads: set a limit to
    /// read only a few items of a large sharded index. A stream resumed from
    /// a cursor reads again at most what the shards had read ahead: for each
    /// shard, less than a page plus its last request.
    pub fn pages(self) -> BoxStream<'static, Result<Page<D::Output>>>
    where
        (P, D): Ready,
    {
        // A sharded read keeps what its shards read beyond one page for the
        // next, so a stream reads every item once.
        let cursor = self.cursor.clone();
        let start = (self, cursor, None, false);
        Box::pin(futures::stream::try_unfold(
            start,
            |(query, cursor, fanout, done)| async move {
                if done {
                    return Ok(None);
                }
                let plan = query.plan()?;
                let (raw, fanout) = plan
                    .page_continuing(&query.db, cursor.as_ref(), fanout, query.limit, true)
                    .await?;
                let page = query.decode_page(raw).await?;
                let next = page.cursor.clone();
                let done = next.is_none();
                Ok(Some((page, (query, next, fanout, done))))
            },
        ))
    }

    /// Every item, page after page.
    pub fn items(self) -> BoxStream<'static, Result<D::Output>>
    where
        (P, D): Ready,
    {
        Box::pin(flatten(self.pages()))
    }

    /// Every item, collected.
    pub fn collect(self) -> BoxFuture<'static, Result<Vec<D::Output>>>
    where
        (P, D): Ready,
    {
        Box::pin(self.items().try_collect())
    }
}
