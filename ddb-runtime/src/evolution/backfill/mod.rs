//! Backfill: brings the stored items of an entity in line with the indexes
//! the code now declares for it, without losing a concurrent write.
//!
//! When an entity gains an index whose key attributes ddb writes (`GSI3PK`,
//! `GSI3SK`, a sparse or sharded key), the items stored before have no such
//! attributes and the index does not see them. [`Db::backfill`] scans the
//! table in parallel segments, decodes the items of the entity, and writes
//! each one's missing or stale index attributes with an UpdateItem
//! conditioned on the item being as it was read (its version and every
//! attribute the keys are built from); an item another writer changed in
//! between is taken again as that writer left it. An item stored at an older
//! schema version (`#[ddb(schema_version = N)]`) is written in today's shape
//! instead, and moved when its key template changed. It checks first that
//! every item can be held by the entity's indexes (and, for an entity with
//! unique values, that no value is held by two items), creates the guards
//! of unique values stored before their constraint, hands out a checkpoint
//! after every page so that an interrupted run resumes, reports its
//! progress, and can be held to a rate.

mod checkpoint;
mod guards;
mod pacing;
mod plan;
mod run;
mod throughput;

use crate::transport::table_operation::TableOperation;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use crate::db::Db;
use crate::error::{Error, Result};
pub use crate::error::{IndexKeyViolation, UniqueDuplicate};
use crate::reads::cursor::Position;
use crate::telemetry::Capacity;

use crate::entity::Entity;

pub use checkpoint::Checkpoint;
use pacing::Pacer;
use plan::*;
use run::*;
pub use throughput::ThroughputPlan;

/// The most scan segments a backfill runs (DynamoDB allows 1,000,000).
pub const MAX_SEGMENTS: u32 = 1024;

/// How far a backfill got, reported after every page of every segment of
/// the write pass (the check pass before it reports nothing) and returned at
/// the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Items the scan read, of every entity type (counting those of the runs
    /// this one resumes).
    pub scanned: u64,
    /// Items of the entity among them.
    pub matched: u64,
    /// Items whose index attributes were written.
    pub updated: u64,
    /// Items already right (or deleted before their turn): nothing written.
    pub skipped: u64,
    /// Guards of unique values put, for items stored before their
    /// constraint was declared (or whose guard was missing).
    pub guards_written: u64,
    /// Writes sent again: after meeting their item changed since it was
    /// read (taken again), or busy (throttled, conflicting with a
    /// transaction, or its answer lost). Each write of an item, and its
    /// guards, has the retry policy's `max_attempts` of its own.
    pub retried: u64,
    /// Items left as they were because they could not be brought in line
    /// (they no longer decode, or kept changing under the backfill): each
    /// is logged with its entity and the error's type, never its key.
    pub failed: u64,
    /// Capacity units DynamoDB reported for the check pass and the scan, and
    /// for the writes that were applied (not for the conditional writes that
    /// failed) when they asked for it: a backfill held to
    /// [`capacity_per_second`](Backfill::capacity_per_second), on a handle
    /// made [`with_return_consumed_capacity`](crate::Db::with_return_consumed_capacity)
    /// or [`with_capacity_meter`](crate::Db::with_capacity_meter), or whose
    /// write spans a `tracing` subscriber records. Otherwise each
    /// write asks DynamoDB for nothing back and counts zero here.
    pub consumed_capacity: Capacity,
    /// The table's item count by DescribeTable, asked for as the run starts
    /// when the backfill reports its progress
    /// ([`on_progress`](Backfill::on_progress)); DynamoDB refreshes it
    /// about every six hours. The base of the estimate. `None` without
    /// `on_progress`, when unavailable, and in a report that comes before
    /// DynamoDB answered (a first page scanned faster than a DescribeTable).
    pub table_items: Option<u64>,
    /// Segments finished, of `segments`.
    pub segments_done: u32,
    /// Segments of the scan.
    pub segments: u32,
    /// Where to resume from.
    pub checkpoint: Checkpoint,
}

impl Progress {
    /// About how many items are left to scan, from the table's item count
    /// (`None` when DynamoDB's count, refreshed about every six hours, is
    /// already below what was scanned).
    pub fn estimated_remaining(&self) -> Option<u64> {
        if self.segments_done == self.segments {
            return Some(0);
        }
        self.table_items
            .filter(|n| *n > self.scanned)
            .map(|n| n - self.scanned)
    }

    /// Whether the backfill finished.
    pub fn is_done(&self) -> bool {
        self.segments_done == self.segments
    }
}

type Report = Arc<dyn Fn(&Progress) + Send + Sync>;

/// What the check pass found.
#[derive(Default)]
struct Checked {
    /// Items the indexes cannot hold (or whose values cannot have guards).
    violations: Vec<IndexKeyViolation>,
    /// The unique values and their stored guards.
    values: guards::Values,
    consumed: Capacity,
}

/// A backfill of entity `E`'s index attributes; configure, then
/// [`send`](Backfill::send).
#[must_use = "a backfill does nothing until it is sent"]
pub struct Backfill<E> {
    db: Db,
    segments: u32,
    checkpoint: Option<Checkpoint>,
    items_per_second: Option<f64>,
    units_per_second: Option<f64>,
    page_size: Option<i32>,
    check_first: bool,
    report: Option<Report>,
    removed: Vec<String>,
    warm_throughput: Option<crate::tables::Units>,
    max_throughput: Option<crate::tables::Units>,
    entity: PhantomData<fn() -> E>,
}

impl Db {
    /// Writes the index attributes every stored `E` lacks or holds stale,
    /// after checking that every item can be held by `E`'s indexes. See
    /// [`Backfill`].
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # #[ddb(index(name = "GSI3", pk = "GSI3PK", sk = "GSI3SK"))]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Product", pk = "PRODUCT#{id}", sk = "PRODUCT")]
    /// # #[ddb(index(name = "GSI3", pk = "CATEGORY#{category}", sk = "PRODUCT#{id}"))]
    /// # struct Product { id: String, category: String }
    /// let done = db
    ///     .backfill::<Product>()
    ///     .segments(8)
    ///     .items_per_second(500.0)
    ///     .on_progress(|p| eprintln!("{} of ~{:?} scanned", p.scanned, p.table_items))
    ///     .send()
    ///     .await?;
    /// assert!(done.is_done());
    /// # Ok(()) }
    /// ```
    pub fn backfill<E: Entity + Send + Sync + 'static>(&self) -> Backfill<E> {
        Backfill {
            db: self.clone(),
            segments: 4,
            checkpoint: None,
            items_per_second: None,
            units_per_second: None,
            page_size: None,
            check_first: true,
            report: None,
            removed: Vec::new(),
            warm_throughput: None,
            max_throughput: None,
            entity: PhantomData,
        }
    }
}

impl<E: Entity + Send + Sync + 'static> Backfill<E> {
    /// Scan segments read in parallel (1 to 1024; 4 unless set).
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments;
        self
    }

    /// Continues from `checkpoint` (its segment count wins over
    /// [`segments`](Self::segments)).
    pub fn resume(mut self, checkpoint: Checkpoint) -> Self {
        self.checkpoint = Some(checkpoint);
        self
    }

    /// At most `rate` items scanned per second, over all segments.
    pub fn items_per_second(mut self, rate: f64) -> Self {
        self.items_per_second = Some(rate);
        self
    }

    /// At most `rate` capacity units (read and write) per second, over all
    /// segments, paced by what DynamoDB reports each request consumed.
    pub fn capacity_per_second(mut self, rate: f64) -> Self {
        self.units_per_second = Some(rate);
        self
    }

    /// Items per Scan page (DynamoDB's `Limit`; 1 MB pages unless set).
    pub fn page_size(mut self, items: i32) -> Self {
        self.page_size = Some(items);
        self
    }

    /// Also removes these attributes from every item of `E`: the key
    /// attributes of an index `E` no longer uses (after moving to a
    /// multi-attribute index, say). Refused, before anything is sent, for
    /// the table's key, the entity-type attribute, a field of `E` or an
    /// attribute one of `E`'s indexes writes.
    pub fn remove_attributes<I, A>(mut self, attributes: I) -> Self
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        self.removed.extend(attributes.into_iter().map(Into::into));
        self
    }

    /// Skips the check pass when `true` (for a resumed run whose items were
    /// checked).
    pub fn skip_check(mut self, skip: bool) -> Self {
        self.check_first = !skip;
        self
    }

    /// Calls `report` after every page of every segment, from the task
    /// running the backfill: keep it short. Its
    /// [`checkpoint`](Progress::checkpoint) is where to resume.
    pub fn on_progress(mut self, report: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.report = Some(Arc::new(report));
        self
    }

    /// The items `E`'s indexes cannot hold, found by a scan that writes
    /// nothing.
    pub async fn check(self) -> Result<Vec<IndexKeyViolation>> {
        self.validate()?;
        self.check_pass().await.map(|checked| checked.violations)
    }

    /// The unique values of `E` that more than one stored item holds, found
    /// by a scan that writes nothing (the check [`send`](Self::send) makes
    /// before it creates any guard). Empty for an entity without unique
    /// values.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Accounts", pk = "PK")]
    /// # struct Accounts;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Accounts, entity = "User", pk = "USER#{id}")]
    /// # struct User { id: String, #[ddb(unique)] email: String }
    /// for duplicate in db.backfill::<User>().duplicates().await? {
    ///     eprintln!("{duplicate}"); // unique `email`: one value held by USER#1, USER#7
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn duplicates(self) -> Result<Vec<UniqueDuplicate>> {
        self.validate()?;
        self.check_pass()
            .await
            .map(|checked| checked.values.duplicates())
    }

    /// The check pass: what it found, and the capacity it consumed.
    async fn check_pass(&self) -> Result<Checked> {
        let positions = vec![Position::Start; self.segments as usize];
        let run = Run::<E>::new(self, positions, 0, None);
        futures::future::try_join_all((0..self.segments).map(|s| run.segment(s, Pass::Check)))
            .await?;
        let mut state = run.state();
        Ok(Checked {
            violations: std::mem::take(&mut state.violations),
            values: std::mem::take(&mut state.values),
            consumed: state.consumed.clone(),
        })
    }

    fn validate(&self) -> Result<()> {
        let invalid = |reason: String| Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason,
        };
        if !(1..=MAX_SEGMENTS).contains(&self.segments) {
            return Err(invalid(format!(
                "a backfill runs 1 to {MAX_SEGMENTS} segments, not {}",
                self.segments
            )));
        }
        for rate in [self.items_per_second, self.units_per_second]
            .into_iter()
            .flatten()
        {
            if !(rate.is_finite() && rate > 0.0 && Duration::try_from_secs_f64(1.0 / rate).is_ok())
            {
                return Err(invalid(format!("a rate must be positive, not {rate}")));
            }
        }
        if self.page_size.is_some_and(|n| n < 1) {
            return Err(invalid("a page holds at least one item".into()));
        }
        let schema = &E::SCHEMA;
        let written = written::<E>();
        for name in &self.removed {
            let kept = name == schema.table.pk.name
                || Some(name.as_str()) == schema.table.sk.map(|a| a.name)
                || name == schema.table.entity_attribute
                || name == crate::item::stored::SCHEMA_VERSION_ATTRIBUTE
                || schema.fields.iter().any(|f| f.attribute == name)
                || written.contains(&name.as_str());
            if kept {
                return Err(invalid(format!(
                    "`{name}` is a key, the entity type, the schema version, a field or an \
                     index attribute of {}; the backfill removes only attributes nothing \
                     writes any more",
                    schema.rust_name
                )));
            }
        }
        Ok(())
    }

    /// On an on-demand table, raises the table's warm throughput to
    /// `units` before the backfill starts, so that its writes meet no
    /// throttle while DynamoDB scales (DynamoDB never lowers it: it stays).
    /// A provisioned table is left as it is.
    pub fn warm_throughput(mut self, units: crate::tables::Units) -> Self {
        self.warm_throughput = Some(units);
        self
    }

    /// On an on-demand table, caps its on-demand throughput at `units`
    /// while the backfill runs (UpdateTable's `OnDemandThroughput`), and
    /// restores the maximum it had after, whether the backfill succeeds or
    /// fails: the backfill cannot cost more than the cap allows, and the
    /// application's requests share it meanwhile. A provisioned table is
    /// left as it is. Each unit of the cap is the lower of the table's own
    /// maximum and `units`: a tighter maximum stays. A backfill dropped
    /// while it runs (a timeout, a cancelled task) restores the maximum
    /// from a task of its own. When the backfill fails and restoring fails
    /// too, the backfill's error is returned, and the table keeps the cap
    /// until an UpdateTable (or a sync of settings that declare a maximum)
    /// sets another. [`throughput_plan`](Self::throughput_plan) says what
    /// will change.
    pub fn max_throughput(mut self, units: crate::tables::Units) -> Self {
        self.max_throughput = Some(units);
        self
    }

    /// What [`send`](Self::send) changes of the table's throughput and
    /// restores after, read from DescribeTable; printed, it reads as a
    /// plan.
    ///
    /// ```no_run
    /// # async fn demo<E: ddb_runtime::Entity + Send + Sync + 'static>(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// use ddb_runtime::schema::Units;
    /// let backfill = db
    ///     .backfill::<E>()
    ///     .warm_throughput(Units { read: 12_000, write: 4_000 })
    ///     .max_throughput(Units { read: 2_000, write: 1_000 });
    /// print!("{}", backfill.throughput_plan().await?);
    /// // raise the warm throughput from none to 12000 reads and 4000 writes per second
    /// // cap the on-demand throughput at 2000 reads and 1000 writes per second while the backfill runs, then restore no maximum of reads and no maximum of writes per second
    /// backfill.send().await?;
    /// # Ok(()) }
    /// ```
    pub async fn throughput_plan(&self) -> Result<ThroughputPlan> {
        throughput::check(self.warm_throughput)?;
        throughput::check(self.max_throughput)?;
        let name = self.db.table_name::<E::Table>();
        let (warm, max) = (self.warm_throughput, self.max_throughput);
        throughput::plan(self.db.client(), name, warm, max).await
    }

    /// Checks every item (unless [`skip_check`](Self::skip_check)), then
    /// writes. Returns the final progress; an
    /// [`Error::IndexKeyViolations`] when the check found items the indexes
    /// cannot hold, or an [`Error::UniqueDuplicates`] when it found a unique
    /// value held by more than one item, with nothing written. The write
    /// pass puts the guards of unique values an item lacks (after a check,
    /// those it saw missing; without, every guard, again).
    pub async fn send(mut self) -> Result<Progress> {
        let table = self.db.table_name::<E::Table>().to_owned();
        let (positions, scanned) = match &self.checkpoint {
            Some(checkpoint) => checkpoint.decode::<E>(&table)?,
            None => (vec![Position::Start; self.segments as usize], 0),
        };
        self.segments = positions.len() as u32;
        self.validate()?;
        if self.warm_throughput.is_none() && self.max_throughput.is_none() {
            return self.run(positions, scanned).await;
        }
        let plan = self.throughput_plan().await?;
        let client = self.db.client().clone();
        throughput::warm(&client, &table, &plan).await?;
        let capped = throughput::Capped::set(&client, &table, &plan).await?;
        let ran = self.run(positions, scanned).await;
        let restored = capped.restore().await;
        let progress = ran?;
        restored?;
        Ok(progress)
    }

    /// The check, then the write pass, from `positions`.
    async fn run(self, positions: Vec<Position>, scanned: u64) -> Result<Progress> {
        let table = self.db.table_name::<E::Table>().to_owned();
        let mut checked = Checked::default();
        if self.check_first {
            checked = self.check_pass().await?;
            let entity = E::SCHEMA.entity_type;
            if !checked.violations.is_empty() {
                let violations = checked.violations;
                return Err(Error::IndexKeyViolations { entity, violations });
            }
            let duplicates = checked.values.duplicates();
            if !duplicates.is_empty() {
                return Err(Error::UniqueDuplicates { entity, duplicates });
            }
        }
        let run = Run::<E>::new(&self, positions, scanned, None).with_checked(checked.values);
        run.state().consumed = checked.consumed;
        // The estimate's base is asked for beside the first scans, not
        // before them (the backfill does not wait a round trip for it), and
        // only for a backfill that reports its progress.
        let estimate = async {
            if self.report.is_some() {
                let table_items = self.table_items().await;
                run.state().table_items = table_items;
            }
            Ok::<(), Error>(())
        };
        let segments =
            futures::future::try_join_all((0..self.segments).map(|s| run.segment(s, Pass::Write)));
        futures::future::try_join(estimate, segments).await?;
        let progress = run.state().progress::<E>(&table);
        Ok(progress)
    }

    /// DescribeTable's item count, for the estimate; `None` if unavailable.
    async fn table_items(&self) -> Option<u64> {
        let table = self.db.table_name::<E::Table>();
        let client = self.db.client();
        let described = client
            .describe_table()
            .table_name(table)
            .send_on_for(client, (table, E::SCHEMA.entity_type), |_| false)
            .await
            .ok()?;
        described
            .table
            .and_then(|t| t.item_count)
            .and_then(|n| u64::try_from(n).ok())
    }
}
