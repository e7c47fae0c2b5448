//! The capacity DynamoDB reports a request consumed.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::ConsumedCapacity;

/// The capacity DynamoDB reported a request consumed: the total, the table's
/// share and each index's (`ReturnConsumedCapacity::INDEXES`), so a write's
/// cost across its global secondary indexes is visible.
///
/// ```
/// let capacity = ddb_runtime::Capacity::default();
/// assert_eq!(capacity.total, 0.0);
/// assert!(capacity.indexes.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Capacity {
    /// Capacity units in all.
    pub total: f64,
    /// The table's units.
    pub table: f64,
    /// Each index's units, by index name.
    pub indexes: Vec<(String, f64)>,
}

/// The total, as DynamoDB reports units (`2.5`): what `{}` prints where
/// a figure used to be an `f64`.
///
/// ```
/// let capacity = ddb_runtime::Capacity { total: 2.5, ..Default::default() };
/// assert_eq!(capacity.to_string(), "2.5");
/// ```
impl std::fmt::Display for Capacity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.total, f)
    }
}

impl Capacity {
    /// The capacity of one answer's `ConsumedCapacity`, its index names
    /// moved out of it.
    pub(crate) fn of(capacity: Option<ConsumedCapacity>) -> Self {
        let Some(capacity) = capacity else {
            return Capacity::default();
        };
        let total = Self::total_of(Some(&capacity));
        let table = capacity.table.and_then(|t| t.capacity_units);
        let mut indexes: Vec<(String, f64)> = capacity
            .global_secondary_indexes
            .into_iter()
            .chain(capacity.local_secondary_indexes)
            .flatten()
            .map(|(name, c)| (name, c.capacity_units.unwrap_or(0.0)))
            .collect();
        indexes.sort_by(|a, b| a.0.cmp(&b.0));
        Capacity {
            total,
            table: table.unwrap_or(total),
            indexes,
        }
    }

    /// The total units of one answer's `ConsumedCapacity`, for a caller
    /// that needs no more (no index names copied).
    pub(crate) fn total_of(capacity: Option<&ConsumedCapacity>) -> f64 {
        capacity.and_then(|c| c.capacity_units()).unwrap_or(0.0)
    }

    /// The capacity of an answer that reports it per table (a batch, a
    /// transaction), summed over its tables.
    pub(crate) fn of_tables(capacity: Option<Vec<ConsumedCapacity>>) -> Self {
        let mut tables = capacity
            .into_iter()
            .flatten()
            .map(|c| Capacity::of(Some(c)));
        // The first table's capacity is the sum so far, as it is.
        let mut sum = tables.next().unwrap_or_default();
        for other in tables {
            sum.add(&other);
        }
        sum
    }

    /// Adds `other`'s units: the total, the table's, and each index's.
    ///
    /// ```
    /// use ddb_runtime::Capacity;
    /// let mut sum = Capacity { total: 1.0, table: 1.0, indexes: vec![("GSI1".into(), 0.5)] };
    /// sum.add(&Capacity { total: 1.5, table: 0.5, indexes: vec![("GSI1".into(), 1.0)] });
    /// assert_eq!((sum.total, sum.table), (2.5, 1.5));
    /// assert_eq!(sum.indexes, [("GSI1".to_owned(), 1.5)]);
    /// ```
    pub fn add(&mut self, other: &Capacity) {
        self.total += other.total;
        self.table += other.table;
        for (name, units) in &other.indexes {
            match self.indexes.iter_mut().find(|(n, _)| n == name) {
                Some((_, sum)) => *sum += units,
                None => self.indexes.push((name.clone(), *units)),
            }
        }
    }
}

/// The capacity of every request sent through a handle, summed: make a
/// handle with [`Db::with_capacity_meter`](crate::Db::with_capacity_meter),
/// send through it (any builder, any number of requests: a page, a batch
/// and its retries, a write that reads first, a loader's batches), and
/// read the sum. Each request the handle sends asks DynamoDB for its
/// capacity (`ReturnConsumedCapacity: INDEXES`, or `TOTAL` where ddb asks
/// for that already: a backfill's scans).
///
/// It sums what DynamoDB's answers reported, so it leaves out: a request
/// DynamoDB refused (its error answer carries no capacity, though a failed
/// condition is charged), a request whose answer never came (dropped by
/// its caller, timed out), and a vector search, whose cost DynamoDB
/// reports in bytes, not capacity units (the BatchGetItem of a hydrated
/// search is summed). A clone adds to the same sum; index figures are
/// summed by index name.
///
/// ```no_run
/// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
/// let meter = ddb_runtime::CapacityMeter::default();
/// let metered = db.with_capacity_meter(&meter);
/// // ... any requests through `metered` (or its clones) ...
/// println!("{} units", meter.capacity());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct CapacityMeter(Arc<Mutex<Capacity>>);

impl CapacityMeter {
    /// The capacity summed so far.
    ///
    /// ```
    /// let meter = ddb_runtime::CapacityMeter::default();
    /// assert_eq!(meter.capacity().total, 0.0);
    /// ```
    pub fn capacity(&self) -> Capacity {
        self.sum().clone()
    }

    /// The capacity summed so far, the sum starting again from zero.
    ///
    /// ```
    /// let meter = ddb_runtime::CapacityMeter::default();
    /// assert_eq!(meter.take(), ddb_runtime::Capacity::default());
    /// ```
    pub fn take(&self) -> Capacity {
        std::mem::take(&mut *self.sum())
    }

    /// Adds one answer's capacity, reported per table.
    pub(crate) fn add(&self, reported: &[ConsumedCapacity]) {
        let mut sum = self.sum();
        for table in reported {
            sum.add(&Capacity::of(Some(table.clone())));
        }
    }

    fn sum(&self) -> std::sync::MutexGuard<'_, Capacity> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
