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
//! every item can be held by the entity's indexes, hands out a checkpoint
//! after every page so that an interrupted run resumes, reports its
//! progress, and can be held to a rate.

use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::cursor::{self, Position};
use crate::db::Db;
use crate::error::{Error, ExistingItem, Result};
use crate::expr::{Condition, Conjunction, Placeholders};
use crate::model::{EntitySchema, KeyAttribute, ScalarType};
use tracing::Instrument;

use crate::telemetry::Capacity;
use crate::write::{key_text, Action, ClauseActions, WritePlan};
use crate::{Cursor, Entity, Item, Key};

/// Where a backfill stands: per scan segment, the key it stopped after (or
/// that it is done). Print it, store it, and give it back to
/// [`Backfill::resume`] to continue an interrupted run.
///
/// ```
/// let checkpoint: ddb_runtime::schema::Checkpoint = "4:1200:eyJ2IjoxfQ".parse().unwrap();
/// assert_eq!(checkpoint.to_string(), "4:1200:eyJ2IjoxfQ"); // checked when resumed
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Checkpoint(String);

impl fmt::Display for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Checkpoint({} bytes)", self.0.len())
    }
}

impl FromStr for Checkpoint {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        Ok(Checkpoint(text.to_owned()))
    }
}

impl Checkpoint {
    fn fingerprint<E: Entity>(table: &str, segments: usize) -> String {
        cursor::fingerprint(&[
            "backfill",
            table,
            E::SCHEMA.entity_type,
            &segments.to_string(),
        ])
    }

    /// `segments:scanned:positions`: the segment count and the items
    /// scanned so far (for the estimate) travel with the positions.
    fn encode<E: Entity>(table: &str, positions: &[Position], scanned: u64) -> Self {
        let fingerprint = Self::fingerprint::<E>(table, positions.len());
        let text = cursor::encode(&fingerprint, positions, None);
        Checkpoint(format!("{}:{scanned}:{}", positions.len(), text.as_str()))
    }

    /// The positions and the items scanned before, for `E` on `table`.
    fn decode<E: Entity>(&self, table: &str) -> Result<(Vec<Position>, u64)> {
        let invalid = || Error::InvalidCursor {
            reason: "not a backfill checkpoint of this entity and table".into(),
        };
        let mut parts = self.0.splitn(3, ':');
        let (Some(segments), Some(scanned), Some(text)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid());
        };
        let segments: usize = segments.parse().map_err(|_| invalid())?;
        let scanned: u64 = scanned.parse().map_err(|_| invalid())?;
        if !(1..=MAX_SEGMENTS as usize).contains(&segments) {
            return Err(invalid());
        }
        let keys: Vec<&str> = std::iter::once(E::SCHEMA.table.pk.name)
            .chain(E::SCHEMA.table.sk.map(|a| a.name))
            .collect();
        let text: Cursor = text.to_owned().into();
        let fingerprint = Self::fingerprint::<E>(table, segments);
        let positions = cursor::decode(&text, &fingerprint, segments, &keys, None)?;
        Ok((positions, scanned))
    }
}

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
    /// Writes that met an item changed since it was read, and took it again.
    pub retried: u64,
    /// Items left as they were because they could not be brought in line
    /// (they no longer decode, or kept changing under the backfill): each
    /// is logged with its key.
    pub failed: u64,
    /// Capacity units DynamoDB reported for the check pass, the scan and the
    /// writes that were applied (not for the conditional writes that failed).
    pub consumed_capacity: f64,
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

/// A stored item one of the entity's indexes cannot hold: DynamoDB leaves it
/// out of the index (a key attribute of the wrong type), or refuses writes
/// to it (AWS calls these index key violations), or ddb cannot build its key.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexKeyViolation {
    /// The item's key (`PK / SK`).
    pub key: String,
    /// The attribute, or the index, at fault.
    pub attribute: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for IndexKeyViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.key, self.attribute, self.reason)
    }
}

type Report = Arc<dyn Fn(&Progress) + Send + Sync>;

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
        self.check_pass().await.map(|(violations, _)| violations)
    }

    /// The check pass: the violations, and the capacity it consumed.
    async fn check_pass(&self) -> Result<(Vec<IndexKeyViolation>, f64)> {
        let positions = vec![Position::Start; self.segments as usize];
        let run = Run::<E>::new(self, positions, 0, None);
        futures::future::try_join_all((0..self.segments).map(|s| run.segment(s, Pass::Check)))
            .await?;
        let state = run.state();
        Ok((state.violations.clone(), state.consumed))
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
                || schema.fields.iter().any(|f| f.attribute == name)
                || written.contains(&name.as_str());
            if kept {
                return Err(invalid(format!(
                    "`{name}` is a key, the entity type, a field or an index attribute of {}; \
                     the backfill removes only attributes nothing writes any more",
                    schema.rust_name
                )));
            }
        }
        Ok(())
    }

    /// Checks every item (unless [`skip_check`](Self::skip_check)), then
    /// writes. Returns the final progress; an
    /// [`Error::IndexKeyViolations`] when the check found items the indexes
    /// cannot hold, with nothing written.
    pub async fn send(mut self) -> Result<Progress> {
        let table = self.db.table_name::<E::Table>().to_owned();
        let (positions, scanned) = match &self.checkpoint {
            Some(checkpoint) => checkpoint.decode::<E>(&table)?,
            None => (vec![Position::Start; self.segments as usize], 0),
        };
        self.segments = positions.len() as u32;
        self.validate()?;
        let mut checked = 0.0;
        if self.check_first {
            let (violations, consumed) = self.check_pass().await?;
            if !violations.is_empty() {
                return Err(Error::IndexKeyViolations {
                    entity: E::SCHEMA.entity_type,
                    violations,
                });
            }
            checked = consumed;
        }
        let run = Run::<E>::new(&self, positions, scanned, None);
        run.state().consumed = checked;
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
        let described = self
            .db
            .client()
            .describe_table()
            .table_name(self.db.table_name::<E::Table>())
            .send()
            .instrument(crate::telemetry::span(
                "DescribeTable",
                self.db.table_name::<E::Table>(),
                None,
                E::SCHEMA.entity_type,
            ))
            .await
            .ok()?;
        described
            .table
            .and_then(|t| t.item_count)
            .and_then(|n| u64::try_from(n).ok())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Pass {
    Check,
    Write,
}

/// One run's shared state.
struct State {
    positions: Vec<Position>,
    scanned: u64,
    matched: u64,
    updated: u64,
    skipped: u64,
    retried: u64,
    failed: u64,
    consumed: f64,
    table_items: Option<u64>,
    violations: Vec<IndexKeyViolation>,
}

impl State {
    fn progress<E: Entity>(&self, table: &str) -> Progress {
        Progress {
            scanned: self.scanned,
            matched: self.matched,
            updated: self.updated,
            skipped: self.skipped,
            retried: self.retried,
            failed: self.failed,
            consumed_capacity: self.consumed,
            table_items: self.table_items,
            segments_done: self
                .positions
                .iter()
                .filter(|p| matches!(p, Position::Done))
                .count() as u32,
            segments: self.positions.len() as u32,
            checkpoint: Checkpoint::encode::<E>(table, &self.positions, self.scanned),
        }
    }
}

/// Spaces requests so that `rate` units per second are not exceeded, over
/// every segment: each request reserves its share of time after the last.
struct Pacer {
    per_unit: Duration,
    next: Mutex<Instant>,
}

impl Pacer {
    fn new(rate: f64) -> Self {
        Pacer {
            per_unit: Duration::from_secs_f64(1.0 / rate),
            next: Mutex::new(Instant::now()),
        }
    }

    /// How long to wait before spending `units` at `now`.
    fn reserve(&self, units: f64, now: Instant) -> Duration {
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let start = (*next).max(now);
        *next = start + self.per_unit.mul_f64(units.max(0.0));
        start - now
    }

    async fn take(&self, units: f64) {
        let wait = self.reserve(units, Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

struct Run<E> {
    db: Db,
    table: String,
    /// What each item's update reads and writes.
    shape: UpdateShape,
    segments: u32,
    page_size: Option<i32>,
    items: Option<Pacer>,
    units: Option<Pacer>,
    report: Option<Report>,
    state: Mutex<State>,
    entity: PhantomData<fn() -> E>,
}

impl<E: Entity + Send + Sync + 'static> Run<E> {
    fn new(
        backfill: &Backfill<E>,
        positions: Vec<Position>,
        scanned: u64,
        table_items: Option<u64>,
    ) -> Self {
        Run {
            db: backfill.db.clone(),
            table: backfill.db.table_name::<E::Table>().to_owned(),
            shape: UpdateShape::of::<E>(backfill.removed.clone()),
            segments: positions.len() as u32,
            page_size: backfill.page_size,
            items: backfill.items_per_second.map(Pacer::new),
            units: backfill.units_per_second.map(Pacer::new),
            report: backfill.report.clone(),
            state: Mutex::new(State {
                positions,
                scanned,
                matched: 0,
                updated: 0,
                skipped: 0,
                retried: 0,
                failed: 0,
                consumed: 0.0,
                table_items,
                violations: Vec::new(),
            }),
            entity: PhantomData,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn spend(&self, units: f64) {
        if let Some(pacer) = &self.units {
            pacer.take(units).await;
        }
    }

    /// Scans segment `segment` from where it stands to its end.
    async fn segment(&self, segment: u32, pass: Pass) -> Result<()> {
        let table = &self.table;
        let type_attribute = E::SCHEMA.table.entity_attribute;
        let mut start = match &self.state().positions[segment as usize] {
            Position::Start => None,
            Position::After(key) => Some(key.clone()),
            Position::Done => return Ok(()),
        };
        loop {
            let span = crate::telemetry::span("Scan", table, None, E::SCHEMA.entity_type);
            let page = self
                .db
                .client()
                .scan()
                .table_name(table)
                .segment(segment as i32)
                .total_segments(self.segments as i32)
                .consistent_read(true)
                .filter_expression("#t = :t")
                .expression_attribute_names("#t", type_attribute)
                .expression_attribute_values(
                    ":t",
                    AttributeValue::S(E::SCHEMA.entity_type.to_owned()),
                )
                .set_limit(self.page_size)
                .set_exclusive_start_key(start)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .instrument(span.clone())
                .await
                .map_err(|e| crate::telemetry::sdk_failure(&span, "Scan", e))?;
            let units = Capacity::total_of(page.consumed_capacity.as_ref());
            let items = page.items.unwrap_or_default();
            crate::telemetry::record(&span, units, items.len(), 0);
            self.spend(units).await;
            if let Some(pacer) = &self.items {
                pacer.take(page.scanned_count.max(1) as f64).await;
            }
            let matched = items.len() as u64;
            let mut written = Vec::with_capacity(items.len());
            for item in items {
                match pass {
                    Pass::Check => {
                        let found = violations::<E>(&item);
                        if !found.is_empty() {
                            self.state().violations.extend(found);
                        }
                    }
                    Pass::Write => written.push(self.bring_in_line(item).await?),
                }
            }
            start = page.last_evaluated_key;
            let progress = {
                let mut state = self.state();
                state.scanned += page.scanned_count.max(0) as u64;
                state.matched += matched;
                state.consumed += units;
                for outcome in written {
                    state.consumed += outcome.units;
                    state.retried += u64::from(outcome.retried);
                    if outcome.failed {
                        state.failed += 1;
                    } else if outcome.updated {
                        state.updated += 1;
                    } else {
                        state.skipped += 1;
                    }
                }
                state.positions[segment as usize] = match &start {
                    Some(key) => Position::After(key.clone()),
                    None => Position::Done,
                };
                state.progress::<E>(&self.table)
            };
            if pass == Pass::Write {
                if let Some(report) = &self.report {
                    report(&progress);
                }
            }
            if start.is_none() {
                return Ok(());
            }
        }
    }

    /// Writes `item`'s index attributes if they are not what its fields make
    /// them, conditioned on everything they were computed from. An item that
    /// cannot be brought in line is counted as failed and logged; the
    /// backfill goes on (only a request DynamoDB refuses for good stops it).
    async fn bring_in_line(&self, mut item: Item) -> Result<Outcome> {
        let mut outcome = Outcome::default();
        let policy = self.db.retry_policy();
        loop {
            let mut plan = match plan::<E>(item, &self.shape) {
                Ok(Some(plan)) => plan,
                Ok(None) => return Ok(outcome),
                Err(error) => {
                    tracing::warn!(
                        entity = E::SCHEMA.entity_type,
                        error = crate::telemetry::error_type(&error),
                        "ddb backfill left an item"
                    );
                    outcome.failed = true;
                    return Ok(outcome);
                }
            };
            let (sent, key) = match &mut plan {
                Step::Update(plan) | Step::Upgrade(plan) => {
                    (plan.send(&self.db, None).await, plan.key.clone())
                }
                Step::Move { delete, put } => {
                    let sent = self
                        .db
                        .transact_write()
                        .plan(delete)
                        .plan(put.as_mut())
                        .send_with_capacity()
                        .await;
                    (moved(sent), delete.key.clone())
                }
            };
            let error = match sent {
                Ok((_, capacity)) => {
                    let units = capacity.total;
                    self.spend(units).await;
                    outcome.updated = true;
                    outcome.units += units;
                    return Ok(outcome);
                }
                Err(
                    error @ (Error::ConditionFailed { .. } | Error::WriteOutcomeUnknown { .. }),
                ) => error,
                // The new key of a moved item is taken: left for the user.
                // The new key of a moved item is taken, the item is at
                // another schema version, or DynamoDB refused the write for
                // good: this item is left; the others go on.
                Err(
                    error @ (Error::TransactionCanceled { .. }
                    | Error::Migration { .. }
                    | Error::Sdk { .. }),
                ) if !error.is_retryable() => {
                    tracing::warn!(
                        entity = E::SCHEMA.entity_type,
                        error = crate::telemetry::error_type(&error),
                        "ddb backfill left an item"
                    );
                    outcome.failed = true;
                    return Ok(outcome);
                }
                Err(error) => return Err(error),
            };
            // Changed since read: take it as it is now (ALL_OLD, or no item),
            // or, when an attempt whose answer was lost may have written it,
            // read it (the write changes no input, so sending it again is
            // safe). A busy item is taken again after a backoff.
            outcome.retried += 1;
            if outcome.retried >= policy.max_attempts {
                tracing::warn!(
                    entity = E::SCHEMA.entity_type,
                    error = crate::telemetry::error_type(&error),
                    "ddb backfill gave up on a busy item"
                );
                outcome.failed = true;
                return Ok(outcome);
            }
            let now = match error {
                Error::ConditionFailed { existing, .. } => existing.map(|ExistingItem(now)| now),
                _ => {
                    self.db
                        .get(key)
                        .consistent_read(true)
                        .include_expired(true)
                        .raw()
                        .await?
                }
            };
            match now {
                Some(now) if crate::query::of_entity::<E>(&now) => item = now,
                // Deleted, or replaced by another entity: nothing to do.
                _ => return Ok(outcome),
            }
            tokio::time::sleep(policy.delay(outcome.retried)).await;
        }
    }
}

/// A move's transaction as a write's outcome: a failed condition on the
/// old item is a [`Error::ConditionFailed`] with it, like an update's.
fn moved(sent: Result<(String, Capacity)>) -> Result<(Option<Item>, Capacity)> {
    match sent {
        Ok((_, capacity)) => Ok((None, capacity)),
        Err(Error::TransactionCanceled { reasons })
            if reasons
                .first()
                .is_some_and(|r| r.code == "ConditionalCheckFailed") =>
        {
            let first = reasons.into_iter().next();
            Err(Error::ConditionFailed {
                entity: first.as_ref().map_or("", |r| r.entity),
                key: first.as_ref().map(|r| r.key.clone()).unwrap_or_default(),
                existing: first.and_then(|r| r.existing),
            })
        }
        Err(error) => Err(error),
    }
}

#[derive(Default)]
struct Outcome {
    updated: bool,
    failed: bool,
    retried: u32,
    units: f64,
}

/// The index key attributes ddb writes for `E` (not the fields' own
/// attributes, which DynamoDB indexes as they are).
fn written<E: Entity>() -> Vec<&'static str> {
    crate::write::maintained_index_attributes(&E::SCHEMA)
}

/// What the backfill sends for one item.
enum Step<E> {
    /// An UpdateItem of its index attributes.
    Update(WritePlan<E>),
    /// Today's shape of an item stored at an older schema version, put in
    /// its place on condition that the old one is unchanged.
    Upgrade(WritePlan<E>),
    /// The same, when its key template changed: a transaction deleting the
    /// old item (unchanged) and creating the new one (where none is).
    Move {
        delete: WritePlan<E>,
        put: Box<WritePlan<E>>,
    },
}

/// What brings `item` in line: its upgrade when it is stored at an older
/// schema version, else the update of its index attributes; `None` when
/// it is in line. The item is taken, not copied: what a write is
/// conditioned on is copied out of it before it is decoded.
fn plan<E: Entity + 'static>(item: Item, shape: &UpdateShape) -> Result<Option<Step<E>>> {
    let stored =
        super::schema::stored_schema_version(&item).map_err(|reason| Error::Migration {
            entity: E::SCHEMA.entity_type,
            key: super::schema::item_key_text(E::SCHEMA.table, &item),
            from: 0,
            reason,
        })?;
    if stored < E::SCHEMA.schema_version {
        return upgrade::<E>(item, &shape.cleared).map(Some);
    }
    Ok(update::<E>(item, shape)?.map(Step::Update))
}

/// `item`, stored at an older schema version, in today's shape.
fn upgrade<E: Entity + 'static>(item: Item, cleared: &[String]) -> Result<Step<E>> {
    let schema = &E::SCHEMA;
    // Under the key template it was stored with, which may not be today's.
    let old_key = Key::<E>::read_item(&item)?;
    let mut p = Placeholders::default();
    let unchanged = unchanged::<E>(&item, &mut p);
    let entity = E::from_item(item).map_err(|e| e.with_key(&old_key))?;
    let mut new_item = entity.to_item()?;
    for attribute in cleared {
        new_item.remove(attribute);
    }
    let new_key = entity.primary_key()?;
    if new_key.to_item() == old_key.to_item() {
        let put = WritePlan::with_condition(old_key, Action::Put(new_item), unchanged, p)?;
        return Ok(Step::Upgrade(put));
    }
    let delete = WritePlan::with_condition(old_key, Action::Delete, unchanged, p)?;
    let absent = Condition::<E>::attribute_not_exists(schema.table.pk.name);
    let put = WritePlan::new(
        new_key,
        Action::Put(new_item),
        Some(&absent),
        Placeholders::default(),
    )?;
    Ok(Step::Move {
        delete,
        put: Box::new(put),
    })
}

/// A condition that holds while the stored item is still `item`: when the
/// entity keeps a version and the item has it, that version and schema
/// version (every write of the entity moves the version); otherwise every
/// attribute equal, and today's attributes it lacks still absent.
fn unchanged<E: Entity>(
    item: &Item,
    p: &mut Placeholders,
) -> std::result::Result<Option<String>, String> {
    let schema_version = super::schema::SCHEMA_VERSION_ATTRIBUTE;
    let mut condition = Conjunction::default();
    let mut equal = |name: &str| p.write_as_read(name, item.get(name).cloned(), condition.term());
    let version = crate::write::version_attribute(&E::SCHEMA).filter(|v| item.contains_key(*v));
    match version {
        Some(version) => {
            for name in [E::SCHEMA.table.pk.name, version, schema_version] {
                equal(name);
            }
        }
        None => {
            let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
            for field in E::SCHEMA.fields {
                if !names.contains(&field.attribute) {
                    names.push(field.attribute);
                }
            }
            if !names.contains(&schema_version) {
                names.push(schema_version);
            }
            names.sort_unstable();
            for name in names {
                equal(name);
            }
        }
    }
    condition.finish()
}

/// What the update of an item's index attributes reads and writes, worked
/// out once per run from the schema.
struct UpdateShape {
    /// The index key attributes ddb writes ([`written`]), each with whether
    /// decoding the item reads it: the entity type or the schema version,
    /// when an index is keyed on them. Those are copied out of a scanned
    /// item, the others (no field's own) taken out.
    written: Vec<(&'static str, bool)>,
    /// What the update is conditioned on beside the item's existence and
    /// type: the attributes an index key is built from, and the version.
    conditioned: Vec<&'static str>,
    /// Attributes the items must not keep ([`Backfill::remove_attributes`]).
    cleared: Vec<String>,
}

impl UpdateShape {
    fn of<E: Entity>(cleared: Vec<String>) -> Self {
        let schema = &E::SCHEMA;
        let decoded = |name: &str| {
            name == schema.table.entity_attribute || name == super::schema::SCHEMA_VERSION_ATTRIBUTE
        };
        let written = written::<E>()
            .into_iter()
            .map(|a| (a, decoded(a)))
            .collect();
        // A handful of names: a sorted vector, not a hash set.
        let mut conditioned: Vec<&'static str> = schema
            .keys
            .iter()
            .skip(1)
            .flat_map(|key| crate::write::index_inputs(schema, key))
            .chain(crate::write::version_attribute(schema))
            .collect();
        conditioned.sort_unstable();
        conditioned.dedup();
        Self {
            written,
            conditioned,
            cleared,
        }
    }
}

/// The UpdateItem of `item`'s index attributes, `None` when they are right.
fn update<E: Entity + 'static>(
    mut item: Item,
    shape: &UpdateShape,
) -> Result<Option<WritePlan<E>>> {
    let schema = &E::SCHEMA;
    let key = Key::<E>::from_item(&item)?;
    // What the write is conditioned on, copied before the item is decoded.
    let read: Vec<(&str, Option<AttributeValue>)> = shape
        .conditioned
        .iter()
        .map(|&attribute| (attribute, item.get(attribute).cloned()))
        .collect();
    let cleared: Vec<&str> = shape
        .cleared
        .iter()
        .map(String::as_str)
        .filter(|attribute| item.contains_key(*attribute))
        .collect();
    // The index attributes as stored.
    let stored: Vec<Option<AttributeValue>> = shape
        .written
        .iter()
        .map(|&(attribute, decoded)| match decoded {
            true => item.get(attribute).cloned(),
            false => item.remove(attribute),
        })
        .collect();
    let mut expected = E::from_item(item)
        .and_then(|entity| entity.to_item())
        .map_err(|e| e.with_key(&key))?;
    let mut p = Placeholders::default();
    let mut sets = ClauseActions::default();
    let mut removes = ClauseActions::default();
    for (&(attribute, _), have) in shape.written.iter().zip(stored) {
        match (expected.remove(attribute), have) {
            (Some(want), Some(have)) if crate::write::same_value(&have, &want) => {}
            (Some(want), _) => sets.assign(&mut p, attribute, want),
            (None, Some(_)) => removes.name(&mut p, attribute),
            (None, None) => {}
        }
    }
    for attribute in cleared {
        removes.name(&mut p, attribute);
    }
    if sets.is_empty() && removes.is_empty() {
        return Ok(None);
    }
    let mut expression = String::new();
    sets.close("SET", &mut expression);
    removes.close("REMOVE", &mut expression);
    let expression = p.fit(schema.entity_type, "update", expression)?;
    // The item as read, written after the update expression (its
    // placeholders are numbered after the update's): it exists, is still
    // this entity, with the values read above.
    let mut condition = Conjunction::default();
    p.write_call(
        "attribute_exists",
        schema.table.pk.name,
        None,
        condition.term(),
    );
    let entity_type = AttributeValue::S(schema.entity_type.to_owned());
    p.write_comparison(
        schema.table.entity_attribute,
        "=",
        entity_type,
        condition.term(),
    );
    for (attribute, value) in read {
        p.write_as_read(attribute, value, condition.term());
    }
    WritePlan::with_condition(key, Action::Update(expression), condition.finish(), p).map(Some)
}

/// What keeps `item` out of `E`'s indexes, or makes writes to it fail.
fn violations<E: Entity>(item: &Item) -> Vec<IndexKeyViolation> {
    let schema: &EntitySchema = &E::SCHEMA;
    let key = Key::<E>::read_item(item)
        .map(|k| key_text(&k))
        .unwrap_or_else(|_| "(no key)".into());
    let violation = |attribute: &str, reason: String| IndexKeyViolation {
        key: key.clone(),
        attribute: attribute.to_owned(),
        reason,
    };
    let mut found = Vec::new();
    // What the backfill would write: the item migrated to today's shape.
    let target = match E::from_item(item.clone()).and_then(|entity| entity.to_item()) {
        Ok(target) => target,
        Err(error) => {
            found.push(violation(schema.entity_type, error.to_string()));
            return found;
        }
    };
    let item = &target;
    // The fields' own attributes that an index keys on: DynamoDB leaves an
    // item out of the index when one has another type, and refuses writes
    // that would put an empty or oversized value in it.
    let table = schema.table;
    let own = |attribute: &KeyAttribute| !crate::write::maintained_by_ddb(schema, attribute.name);
    let mut checked = HashSet::new();
    let indexes = schema
        .keys
        .iter()
        .skip(1)
        .filter_map(|k| k.index)
        .chain(schema.multi_attribute_keys.iter().map(|k| k.index));
    for index in indexes.filter_map(|name| table.index(name)) {
        let partition = std::iter::once(&index.pk).chain(index.pk_more);
        let sort = index.sk.iter().chain(index.sk_more);
        let attributes = partition
            .map(|a| (a, crate::key::PARTITION_KEY_LIMIT))
            .chain(sort.map(|a| (a, crate::key::SORT_KEY_LIMIT)));
        for (attribute, limit) in attributes.filter(|(a, _)| own(a)) {
            if !checked.insert((index.name, attribute.name)) {
                continue;
            }
            let Some(value) = item.get(attribute.name) else {
                continue;
            };
            let problem = match (attribute.ty, value) {
                (ScalarType::S, AttributeValue::S(s)) if s.is_empty() => {
                    Some("an empty string cannot be an index key".to_owned())
                }
                (ScalarType::S, AttributeValue::S(s)) if s.len() > limit => Some(format!(
                    "{} bytes; index {} keys hold at most {limit}",
                    s.len(),
                    index.name
                )),
                (ScalarType::S, AttributeValue::S(_)) | (ScalarType::N, AttributeValue::N(_)) => {
                    None
                }
                (ty, _) => Some(format!(
                    "index {} keys it as {}, and this item holds another type",
                    index.name,
                    ty.as_str()
                )),
            };
            if let Some(reason) = problem {
                found.push(violation(attribute.name, reason));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::Pacer;
    use std::time::{Duration, Instant};

    /// Requests are spaced by their units over the rate, across callers,
    /// and time not used is not saved up beyond now.
    #[test]
    fn the_pacer_spaces_requests_by_their_units() {
        let pacer = Pacer::new(100.0); // 10 ms per unit
        let now = Instant::now();
        *pacer.next.lock().unwrap() = now;
        assert_eq!(pacer.reserve(5.0, now), Duration::ZERO);
        assert_eq!(pacer.reserve(1.0, now), Duration::from_millis(50));
        assert_eq!(pacer.reserve(1.0, now), Duration::from_millis(60));
        let later = now + Duration::from_secs(1);
        assert_eq!(pacer.reserve(1.0, later), Duration::ZERO);
    }
}
