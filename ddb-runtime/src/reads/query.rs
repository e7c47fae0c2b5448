//! Typed queries: one entry point per key or index declared with
//! `query = "name"`, sort-key conditions on the template's leading fields,
//! pages with cursors, and streams of all pages.
//!
//! Here: the query key generated entry points build, the [`Query`], which
//! decodings it can send ([`Ready`]), and sending it. Its parts are next to
//! it: the index markers, the decodings, the page, the builder methods and
//! the plan the engine runs.

mod builder;
mod decode;
mod page;
mod plan;
mod target;

pub use decode::{Decode, Hydrate, Project, Whole};
pub use page::Page;
pub(crate) use page::{flatten, paginate};
pub(crate) use target::index_name;
pub use target::{
    Full, GlobalIndex, IndexKindOf, IndexTarget, MultiAttributeIndex, Partial, ProjectionOf,
    Select, TableIndex,
};

use std::marker::PhantomData;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::TryStreamExt;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::item::Item;
use crate::keys::key::KeyValue;
use crate::keys::sort::SortCondition;
use crate::reads::count::Count;
use crate::reads::cursor::Cursor;
use crate::reads::fetch::Plan;
use crate::reads::options::ReadOptions;
use crate::reads::projection;
use crate::reads::projection::Projection;
use crate::transport::dry_run::{sensitive_attributes, DryRun};

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

/// A typed Query; built by [`Db::query`], finished with
/// [`send`](Query::send), [`pages`](Query::pages), [`items`](Query::items)
/// or [`collect`](Query::collect).
#[must_use = "a query does nothing until it is sent"]
pub struct Query<E, S, I, P, D, const K: usize> {
    db: Db,
    partition: Result<Vec<KeyValue>>,
    sort: Result<SortCondition>,
    forward: bool,
    consistent: bool,
    options: ReadOptions<E>,
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
            consistent: self.consistent,
            options: self.options.clone(),
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

/// Whether `item` is an `E` by its entity-type attribute.
pub(crate) fn of_entity<E: Entity>(item: &Item) -> bool {
    let entity_type = item
        .get(E::SCHEMA.table.entity_attribute)
        .and_then(|t| t.as_s().ok());
    entity_type.map(String::as_str) == Some(E::SCHEMA.entity_type)
}

impl<E: Entity, S, I: IndexTarget, P, D, const K: usize> Query<E, S, I, P, D, K> {
    /// Decodes projection type `X`, asking only for its attributes (a
    /// global index that projects some attributes, all of `X`'s among
    /// them, returns its projection: no expression is needed). A type that
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
            consistent: self.consistent,
            options: self.options,
            decode,
            marker: PhantomData,
        }
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
    async fn page_with(&self, plan: &Plan, cursor: Option<&Cursor>) -> Result<Page<D::Output>> {
        let raw = plan.page(&self.db, cursor, self.options.limit).await?;
        self.decode_page(raw).await
    }

    async fn decode_page(&self, raw: crate::reads::fetch::RawPage) -> Result<Page<D::Output>> {
        Ok(Page {
            items: self
                .decode
                .decode_for_query(&self.db, raw.items, self.options.include_expired)
                .await?,
            cursor: raw.cursor,
            previous: raw.previous,
            has_more: match raw.has_more {
                Some(true) if !self.decode.keeps_every_item() => None,
                more => more,
            },
            consumed_capacity: raw.consumed_capacity,
            requests: raw.requests,
        })
    }

    /// The Query request [`send`](Self::send) would send first, not sent:
    /// on a sharded index, one per shard (the first request of each for the
    /// page). A query whose sort range is empty sends nothing: its dry run
    /// holds no request. Bad input is the error `send` would return.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # async fn demo<E, S, I, P, D, const K: usize>(query: ddb_runtime::Query<E, S, I, P, D, K>) -> ddb_runtime::Result<()>
    /// # where E: ddb_runtime::Entity + Send + 'static, S: 'static, I: ddb_runtime::query::IndexTarget + 'static, P: 'static, D: ddb_runtime::query::Decode<E>, (P, D): ddb_runtime::query::Ready {
    /// // let query = db.query(Order::by_customer(&customer)).limit(10);
    /// let dry = query.dry_run()?;
    /// println!("{dry}"); // KeyConditionExpression: PK = "CUSTOMER#123" ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<DryRun>
    where
        (P, D): Ready,
    {
        let page = async {
            let plan = self.plan()?;
            self.page_with(&plan, self.options.cursor.as_ref()).await
        };
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(page, sensitive, false)
    }

    /// Sends the query and returns one page (see [`limit`](Self::limit)).
    pub fn send(self) -> BoxFuture<'static, Result<Page<D::Output>>>
    where
        (P, D): Ready,
    {
        Box::pin(async move {
            let plan = self.plan()?;
            self.page_with(&plan, self.options.cursor.as_ref()).await
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
        let cursor = self.options.cursor.clone();
        let start = (self, cursor, None, false);
        Box::pin(futures::stream::try_unfold(
            start,
            |(query, cursor, fanout, done)| async move {
                if done {
                    return Ok(None);
                }
                let plan = query.plan()?;
                let (raw, fanout) = plan
                    .page_continuing(
                        &query.db,
                        cursor.as_ref(),
                        fanout,
                        query.options.limit,
                        true,
                    )
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

    /// How many of the entity's items the query matches: its key and
    /// sort-key condition, then its [`filter`](Self::filter). DynamoDB
    /// counts them (`Select: COUNT`, no item returned) page after page to
    /// the end of the range, on a sharded index every shard concurrently.
    ///
    /// A count is a read: DynamoDB reads, and bills, every item in the
    /// range, as a query returning them would, 1 MB per request, and
    /// applies the filter after the read, so a filter lowers the count,
    /// not the read capacity. Only the entity's items are counted (ddb
    /// sends a filter on the entity type, not other entities or guard
    /// items met in the range); on an index that does not carry the entity
    /// type, DynamoDB returns the keys of the range instead, and ddb counts
    /// the entity's. A count reads the whole range whatever the query's
    /// [`limit`](Self::limit) (a page size) and [`after`](Self::after)
    /// cursor: it counts from the start of the range to its end.
    /// [`count_with_capacity`](Self::count_with_capacity) says what was
    /// read and what it cost; [`dry_run_count`](Self::dry_run_count)
    /// shows the request.
    ///
    /// # Example: a player's rank on a leaderboard
    ///
    /// A player's absolute rank is one plus the number of scores above
    /// theirs: a count of the leaderboard's partition past the player's
    /// score. It reads every higher score (about 200 bytes each: 4 KB,
    /// half a read unit eventually consistent, per 20 scores above), never
    /// the whole board.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// #[derive(ddb_runtime::Table)]
    /// #[ddb(name = "Games", pk = "PK", sk = "SK")]
    /// struct Games;
    ///
    /// #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// #[ddb(table = Games, entity = "Score", pk = "BOARD#{board}",
    ///       sk = "SCORE#{points}#{player}", query = "by_board")]
    /// struct Score { board: String, points: u64, player: String }
    ///
    /// let board = "2026-week-49".to_string();
    /// let points = 4_200u64;
    /// // Query PK = "BOARD#2026-week-49" AND SK > "SCORE#...4200$",
    /// // Select: COUNT, filtered on the entity type.
    /// let above = db.query(Score::by_board(&board)).gt(&points).count().await?;
    /// let rank = above + 1;
    /// # let _ = rank;
    /// # Ok(()) }
    /// ```
    pub fn count(self) -> BoxFuture<'static, Result<u64>> {
        Box::pin(async move {
            let plan = self.plan()?;
            Ok(plan.count(&self.db, false).await?.count)
        })
    }

    /// [`count`](Self::count), with what DynamoDB read to count
    /// (`scanned`), the capacity it consumed (asked of DynamoDB for every
    /// request) and the number of requests.
    pub fn count_with_capacity(self) -> BoxFuture<'static, Result<Count>> {
        Box::pin(async move {
            let plan = self.plan()?;
            Ok(plan.count(&self.db, true).await?.into())
        })
    }

    /// The Query requests [`count`](Self::count) would send first, not
    /// sent: `Select: COUNT` and no projection, one per shard on a sharded
    /// index. Bad input is the error `count` would return.
    ///
    /// ```no_run
    /// # fn demo<E, S, I, P, D, const K: usize>(query: ddb_runtime::Query<E, S, I, P, D, K>) -> ddb_runtime::Result<()>
    /// # where E: ddb_runtime::Entity + Send + 'static, S: 'static, I: ddb_runtime::query::IndexTarget + 'static, P: 'static, D: ddb_runtime::query::Decode<E> {
    /// // let query = db.query(Order::by_customer(&customer));
    /// println!("{}", query.dry_run_count()?); // Select: COUNT ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run_count(&self) -> Result<DryRun> {
        let count = async {
            let plan = self.plan()?;
            plan.count(&self.db, false).await
        };
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(count, sensitive, false)
    }
}
