//! What a count of a query, a collection or a scan found, and what it cost.

use crate::reads::fetch::Counted;
use crate::telemetry::Capacity;

/// What a count found: the items counted, the items DynamoDB read to count
/// them, and what that cost. Returned by `count_with_capacity()` on
/// [`Query`](crate::Query::count_with_capacity),
/// [`CollectionQuery`](crate::CollectionQuery::count_with_capacity) and
/// [`Scan`](crate::Scan::count_with_capacity); `count()` returns
/// [`count`](Self::count) alone.
///
/// A count is a read: DynamoDB reads, and bills, every item in the range
/// (`scanned`), then applies the filters (the entity type, the time to
/// live, the caller's) and counts what is left (`count`). A filter lowers
/// the count, never the read capacity.
///
/// ```no_run
/// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
/// # struct Order { customer_id: String, order_id: String, total_cents: u64 }
/// let big = db
///     .query(Order::by_customer(&"123".to_string()))
///     .filter(Order::fields().total_cents.gt(10_000u64))
///     .count_with_capacity()
///     .await?;
/// println!(
///     "{} of {} orders read are big; {} RCU in {} requests",
///     big.count, big.scanned, big.consumed_capacity.total, big.requests
/// );
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Count {
    /// The items counted: those of the entity (or the collection's
    /// members) that pass every filter.
    pub count: u64,
    /// The items DynamoDB read to count them (its `ScannedCount`, summed):
    /// what it bills, whatever the filters kept. On an index that does
    /// not carry the entity type, items of other entities read in the
    /// range are among them.
    pub scanned: u64,
    /// The read capacity DynamoDB reported, in all and by table and index
    /// (asked for by `count_with_capacity()` always).
    pub consumed_capacity: Capacity,
    /// How many requests the count took.
    pub requests: u32,
}

impl From<Counted> for Count {
    fn from(counted: Counted) -> Self {
        Count {
            count: counted.count,
            scanned: counted.scanned,
            consumed_capacity: counted.capacity,
            requests: counted.requests,
        }
    }
}
