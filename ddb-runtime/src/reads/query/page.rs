//! One page of a query's results, and streams of pages and of their items.

use std::future::Future;

use futures::{Stream, TryStreamExt};

use crate::error::Result;
use crate::reads::cursor::Cursor;
use crate::telemetry::Capacity;

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
    /// Where the page before this one is read from, given to
    /// [`Query::after`] like `cursor`: on a query with a
    /// [`limit`](crate::reads::query::Query::limit), `None` on the first
    /// page. It reads
    /// back from this page's first item (from the end of the range when
    /// this page is empty) and returns the items in the query's order, one
    /// item more read than returned to tell whether another page precedes
    /// it. A page so read has a `cursor` forward again and `has_more`
    /// `None`. A sharded index's merged pages have none.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
    /// # struct Order { customer_id: String, order_id: String }
    /// let orders = || db.query(Order::by_customer(&"123".to_string())).limit(20);
    /// let first = orders().send().await?;
    /// let second = orders().after(first.cursor.clone().unwrap()).send().await?;
    /// // Back to the first page, from the second page's previous-page cursor.
    /// let back = orders().after(second.previous.clone().unwrap()).send().await?;
    /// assert!(back.previous.is_none());
    /// # Ok(()) }
    /// ```
    ///
    /// [`Query::after`]: crate::reads::query::Query::after
    pub previous: Option<Cursor>,
    /// Whether more items follow this page: `Some(false)` at the end (no
    /// cursor), `Some(true)` when the page read a matching item past its
    /// last one. With [`Query::exact_end`] (the default) a limited page
    /// always knows, but on a hydrated query (`.hydrate()`), which drops
    /// items deleted or expired since the index was read. `None` when the
    /// page cannot tell: `exact_end(false)` and DynamoDB stopped exactly at
    /// the page's limit (the cursor's next page may then be empty), a page
    /// without a limit that ended at DynamoDB's 1 MB, or a page read back
    /// from a [`previous`](Self::previous) cursor.
    ///
    /// [`Query::exact_end`]: crate::reads::query::Query::exact_end
    pub has_more: Option<bool>,
    /// The read capacity DynamoDB reported for the page's requests, in all
    /// and by table and index: asked of DynamoDB only on a handle made
    /// [`with_return_consumed_capacity`](crate::Db::with_return_consumed_capacity)
    /// or [`with_capacity_meter`](crate::Db::with_capacity_meter), or when a `tracing` subscriber records the page's spans; zero
    /// otherwise.
    pub consumed_capacity: Capacity,
    /// How many requests the page took.
    pub requests: u32,
}
