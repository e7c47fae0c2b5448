//! One page of a scan's results, with the scan's progress.

use crate::reads::cursor::Cursor;
use crate::telemetry::Capacity;

/// One page of a [`Scan`](super::Scan): the items, where to resume, and
/// how far the scan has come.
///
/// A query's [`Page`](crate::Page) plus the progress a scan needs: how many
/// items DynamoDB read for the page ([`scanned`](Self::scanned), which is
/// what it bills) against how many it returned, and how many segments are
/// finished.
///
/// ```no_run
/// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", scan)]
/// # struct Order { customer_id: String, order_id: String }
/// use futures::TryStreamExt;
///
/// let mut pages = db.scan::<Order>().segments(8).limit(500).pages();
/// while let Some(page) = pages.try_next().await? {
///     println!(
///         "{} orders of {} items read; {}/{} segments done; {} RCU",
///         page.items.len(),
///         page.scanned,
///         page.segments_done,
///         page.segments,
///         page.consumed_capacity.total
///     );
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct ScanPage<T> {
    /// The items, segment after segment (in DynamoDB's order inside each).
    pub items: Vec<T>,
    /// Where to resume, `None` when every segment is read to its end.
    pub cursor: Option<Cursor>,
    /// Whether more items follow this page: `Some(false)` at the end (no
    /// cursor), `Some(true)` when the page read a matching item past its
    /// last one. With [`Scan::exact_end`](super::Scan::exact_end) (the
    /// default) a limited page always knows; `None` when it cannot tell
    /// (`exact_end(false)`, or no limit) and a segment stopped without
    /// saying whether more follow (the cursor's next page may then be
    /// empty).
    pub has_more: Option<bool>,
    /// Items DynamoDB read for this page (its `ScannedCount`, summed over
    /// the page's requests): every entity of the table, and the items the
    /// filter dropped. DynamoDB bills what is read, so this, not
    /// `items.len()`, tells what the page cost.
    pub scanned: u64,
    /// Segments read to their end, after this page.
    pub segments_done: u32,
    /// Segments of the scan.
    pub segments: u32,
    /// The read capacity DynamoDB reported for the page's requests: asked
    /// of DynamoDB only on a handle made
    /// [`with_return_consumed_capacity`](crate::Db::with_return_consumed_capacity)
    /// or [`with_capacity_meter`](crate::Db::with_capacity_meter), or when a `tracing` subscriber records the page's spans; zero
    /// otherwise.
    pub consumed_capacity: Capacity,
    /// How many requests the page took.
    pub requests: u32,
}
