//! One run of a backfill: its segments scanned in parallel, each item
//! brought in line, progress shared.

use std::marker::PhantomData;
use std::sync::Mutex;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::db::Db;
use crate::error::{Error, ExistingItem, Result};
use crate::reads::cursor::Position;
use crate::reads::scan::request::ScanRequest;
use crate::transport::batch::RetryPolicy;

use crate::entity::Entity;
use crate::item::Item;
use crate::keys::key::Key;
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;
use crate::writes::transact::Transaction;

use super::guards::{is_guard_of, put_missing, upgrade_guarded, GuardsPut, Values};
use super::*;
use crate::writes::item::has_unique;

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Pass {
    Check,
    Write,
}

/// One run's shared state.
pub(super) struct State {
    pub(super) positions: Vec<Position>,
    pub(super) scanned: u64,
    pub(super) matched: u64,
    pub(super) updated: u64,
    pub(super) skipped: u64,
    pub(super) retried: u64,
    pub(super) failed: u64,
    pub(super) consumed: Capacity,
    pub(super) table_items: Option<u64>,
    pub(super) violations: Vec<IndexKeyViolation>,
    /// The unique values the check pass saw, and their stored guards.
    pub(super) values: Values,
    pub(super) guards_written: u64,
}

impl State {
    pub(super) fn progress<E: Entity>(&self, table: &str) -> Progress {
        Progress {
            scanned: self.scanned,
            matched: self.matched,
            updated: self.updated,
            skipped: self.skipped,
            guards_written: self.guards_written,
            retried: self.retried,
            failed: self.failed,
            consumed_capacity: self.consumed.clone(),
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

pub(super) struct Run<E> {
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
    /// What the check pass saw of the unique values: the guards the write
    /// pass need not put.
    checked: Values,
    entity: PhantomData<fn() -> E>,
}

impl<E: Entity + Send + Sync + 'static> Run<E> {
    pub(super) fn new(
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
                consumed: Capacity::default(),
                table_items,
                violations: Vec::new(),
                values: Values::default(),
                guards_written: 0,
            }),
            checked: Values::default(),
            entity: PhantomData,
        }
    }

    /// The run, told what the check pass saw of the unique values.
    pub(super) fn with_checked(mut self, checked: Values) -> Self {
        self.checked = checked;
        self
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the writes ask DynamoDB for their capacity: only to pace by
    /// it (`capacity_per_second`). A handle made
    /// [`with_return_consumed_capacity`](crate::Db::with_return_consumed_capacity)
    /// or [`with_capacity_meter`](crate::Db::with_capacity_meter), or a
    /// recorded span, asks for it all the same. The scans always do.
    fn writes_ask_capacity(&self) -> bool {
        self.units.is_some()
    }

    pub(super) async fn spend(&self, units: f64) {
        if let Some(pacer) = &self.units {
            pacer.take(units).await;
        }
    }

    /// Scans segment `segment` from where it stands to its end.
    pub(super) async fn segment(&self, segment: u32, pass: Pass) -> Result<()> {
        let mut start = match &self.state().positions[segment as usize] {
            Position::Start => None,
            Position::After(key) => Some(key.clone()),
            Position::Done => return Ok(()),
        };
        loop {
            let page = self.scan_page(segment, start, pass).await?;
            self.spend(page.capacity.total).await;
            if let Some(pacer) = &self.items {
                pacer.take(page.scanned_count.max(1) as f64).await;
            }
            let (items, guards): (Vec<Item>, Vec<Item>) = page
                .items
                .into_iter()
                .partition(|item| !is_guard_of::<E>(item));
            if pass == Pass::Check {
                let mut state = self.state();
                guards
                    .iter()
                    .for_each(|guard| state.values.note_guard::<E>(guard));
            }
            let matched = items.len() as u64;
            let written = self.pass_over(items, pass).await?;
            start = page.last_evaluated_key;
            let progress = self.record_page(
                segment,
                page.scanned_count,
                matched,
                &page.capacity,
                written,
                &start,
            );
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

    /// One page of the Scan of segment `segment` from `start`: a consistent
    /// read of the entity's items, its consumed capacity returned.
    async fn scan_page(
        &self,
        segment: u32,
        start: Option<Item>,
        pass: Pass,
    ) -> Result<ScannedPage> {
        let (filter, names, values) = scan_filter::<E>(pass);
        let request = ScanRequest {
            entity: E::SCHEMA.entity_type,
            table_name: self.table.clone(),
            segment,
            segments: self.segments,
            consistent: true,
            filter: Some(filter.to_owned()),
            names: Some(names),
            values: Some(values),
            limit: self.page_size,
            start,
            ..Default::default()
        };
        // Progress reports the capacity and `capacity_per_second` paces by
        // it: every page asks for it.
        let page = request
            .send(&self.db, Some(ReturnConsumedCapacity::Total))
            .await?;
        Ok(ScannedPage {
            items: page.items,
            capacity: page.capacity,
            scanned_count: page.scanned_count,
            last_evaluated_key: page.last_key,
        })
    }

    /// The pass over a page's items: the check collects the index keys they
    /// break, the write brings each in line and returns what it did.
    async fn pass_over(&self, items: Vec<Item>, pass: Pass) -> Result<Vec<Outcome>> {
        let mut written = Vec::with_capacity(items.len());
        for item in items {
            match pass {
                Pass::Check => {
                    let mut found = violations::<E>(&item);
                    let mut state = self.state();
                    if has_unique::<E>() {
                        found.extend(state.values.note_item::<E>(&self.db, &item));
                    }
                    state.violations.extend(found);
                }
                Pass::Write => {
                    let guarded = has_unique::<E>().then(|| item.clone());
                    let mut outcome = self.bring_in_line(item).await?;
                    if let (Some(item), false) = (guarded, outcome.failed || outcome.guarded) {
                        self.guard(item, &mut outcome).await?;
                    }
                    written.push(outcome);
                }
            }
        }
        Ok(written)
    }

    /// Counts a scanned page and its writes in the shared state, moves the
    /// segment's position to `start`, and returns the progress so far.
    fn record_page(
        &self,
        segment: u32,
        scanned_count: i32,
        matched: u64,
        capacity: &Capacity,
        written: Vec<Outcome>,
        start: &Option<Item>,
    ) -> Progress {
        let mut state = self.state();
        state.scanned += scanned_count.max(0) as u64;
        state.matched += matched;
        state.consumed.add(capacity);
        for outcome in written {
            state.consumed.add(&outcome.capacity);
            state.guards_written += outcome.guards;
            state.retried += u64::from(outcome.retried);
            if outcome.failed {
                state.failed += 1;
            } else if outcome.updated {
                state.updated += 1;
            } else {
                state.skipped += 1;
            }
        }
        state.positions[segment as usize] = match start {
            Some(key) => Position::After(key.clone()),
            None => Position::Done,
        };
        state.progress::<E>(&self.table)
    }

    /// Writes `item`'s index attributes if they are not what its fields make
    /// them, conditioned on everything they were computed from. An item that
    /// cannot be brought in line is counted as failed and logged; the
    /// backfill goes on (only a request DynamoDB refuses for good stops it).
    pub(super) async fn bring_in_line(&self, mut item: Item) -> Result<Outcome> {
        let mut outcome = Outcome::default();
        let policy = self.db.retry_policy();
        let mut attempts = StepAttempts::new(policy);
        loop {
            let mut plan = match plan::<E>(item, &self.shape) {
                Ok(Some(plan)) => plan,
                Ok(None) => return Ok(outcome),
                Err(error) => return Ok(left_item::<E>(outcome, &error)),
            };
            let (sent, key) = self.send_step(&mut plan).await;
            let error = match sent {
                Ok((_, capacity)) => {
                    self.spend(capacity.total).await;
                    outcome.updated = true;
                    // An upgrade of an entity with unique values took every
                    // guard its item needs.
                    outcome.guarded = matches!(plan, Step::Upgrade { .. }) && has_unique::<E>();
                    outcome.capacity.add(&capacity);
                    return Ok(outcome);
                }
                Err(
                    error @ (Error::ConditionFailed { .. } | Error::WriteOutcomeUnknown { .. }),
                ) => error,
                // The new key of a moved item is taken, the item is at
                // another schema version, or DynamoDB refused the write for
                // good: this item is left; the others go on.
                Err(
                    error @ (Error::TransactionCanceled { .. }
                    | Error::Migration { .. }
                    | Error::UniqueViolation { .. }
                    | Error::InvalidRequest { .. }
                    | Error::Sdk { .. }),
                ) if !error.is_retryable() => return Ok(left_item::<E>(outcome, &error)),
                Err(error) => return Err(error),
            };
            // Changed since read: take it as it is now (ALL_OLD, or no item),
            // or, when an attempt whose answer was lost may have written it,
            // read it (the write changes no input, so sending it again is
            // safe). A busy item is taken again after a backoff.
            if !attempts.another() {
                gave_up::<E>(&crate::telemetry::error_type(&error));
                outcome.failed = true;
                return Ok(outcome);
            }
            match self.item_now(error, key).await? {
                Some(now) if crate::reads::query::of_entity::<E>(&now) => item = now,
                // Deleted, or replaced by another entity: nothing to do.
                _ => return Ok(outcome),
            }
            outcome.retried += 1;
            tokio::time::sleep(attempts.backoff(policy)).await;
        }
    }

    /// Puts the guards of `item`'s unique values it lacks, taking the item
    /// again when it changed since it was read; a value whose guard names
    /// another item leaves the item, counted as failed and logged. It has
    /// attempts of its own: those the write before it spent are not taken
    /// from it.
    async fn guard(&self, mut item: Item, outcome: &mut Outcome) -> Result<()> {
        let policy = self.db.retry_policy();
        let mut attempts = StepAttempts::new(policy);
        loop {
            if crate::item::timestamp::expired(&E::SCHEMA, &item) {
                return Ok(());
            }
            let asked = self.writes_ask_capacity();
            let put = match put_missing::<E>(&self.db, &item, &self.checked, asked).await {
                Ok(put) => put,
                // Busy or unsettled: the same item again, after a backoff
                // (a put whose answer was lost is put again, the guard
                // naming this item).
                Err(error) if busy(&error) && attempts.another() => {
                    outcome.retried += 1;
                    tokio::time::sleep(attempts.backoff(policy)).await;
                    continue;
                }
                Err(error) => {
                    *outcome = left_item::<E>(std::mem::take(outcome), &error);
                    return Ok(());
                }
            };
            match put {
                GuardsPut::Done { written, capacity } => {
                    self.spend(capacity.total).await;
                    outcome.guards += written;
                    outcome.updated |= written > 0;
                    outcome.capacity.add(&capacity);
                    return Ok(());
                }
                GuardsPut::Taken(field) => {
                    let error = Error::UniqueViolation {
                        entity: E::SCHEMA.entity_type,
                        field,
                    };
                    *outcome = left_item::<E>(std::mem::take(outcome), &error);
                    return Ok(());
                }
                GuardsPut::Changed(Some(now)) if crate::reads::query::of_entity::<E>(&now) => {
                    if !attempts.another() {
                        // Its transaction was canceled by the item's check.
                        gave_up::<E>("TransactionCanceledException");
                        outcome.failed = true;
                        return Ok(());
                    }
                    outcome.retried += 1;
                    item = now;
                    tokio::time::sleep(attempts.backoff(policy)).await;
                }
                // Deleted, or replaced by another entity: nothing to guard.
                GuardsPut::Changed(_) => return Ok(()),
            }
        }
    }

    /// Sends what brings an item in line: an UpdateItem or PutItem, or a
    /// move's transaction; returns its outcome and the key it was sent for.
    async fn send_step(&self, step: &mut Step<E>) -> (Result<(Option<Item>, Capacity)>, Key<E>) {
        let asked = self.writes_ask_capacity();
        match step {
            Step::Update(plan) | Step::Upgrade { put: plan, .. } => plan.capacity_asked = asked,
            Step::Move { delete, put } => {
                delete.capacity_asked = asked;
                put.capacity_asked = asked;
            }
        }
        match step {
            Step::Upgrade { put, read } if has_unique::<E>() => {
                (upgrade_guarded(&self.db, put, read).await, put.key.clone())
            }
            Step::Update(plan) | Step::Upgrade { put: plan, .. } => {
                (plan.send(&self.db, None).await, plan.key.clone())
            }
            Step::Move { delete, .. } if has_unique::<E>() => {
                let moving = Error::InvalidRequest {
                    entity: E::SCHEMA.entity_type,
                    reason: "an upgrade that moves an item of an entity with unique values \
                             would move its guards' owner: read and put it instead"
                        .into(),
                };
                (Err(moving), delete.key.clone())
            }
            Step::Move { delete, put } => {
                let sent = Transaction::new(&self.db)
                    .plan(delete)
                    .plan(put.as_mut())
                    .send_recorded(&Attempts::default())
                    .await;
                (moved(sent), delete.key.clone())
            }
        }
    }

    /// The item as it is now, after a write that did not apply: the one a
    /// failed condition returned (ALL_OLD), else read again consistently.
    async fn item_now(&self, error: Error, key: Key<E>) -> Result<Option<Item>> {
        Ok(match error {
            Error::ConditionFailed { existing, .. } => existing.map(|ExistingItem(now)| now),
            _ => {
                self.db
                    .get(key)
                    .consistent_read(true)
                    .include_expired(true)
                    .raw()
                    .await?
            }
        })
    }
}

/// The attempts of one step of bringing an item in line (its write, or its
/// guards): a budget of the retry policy's `max_attempts` (one at least) of
/// its own, the first counted as made.
struct StepAttempts {
    made: u32,
    max: u32,
}

impl StepAttempts {
    fn new(policy: RetryPolicy) -> Self {
        Self {
            made: 1,
            max: policy.max_attempts.max(1),
        }
    }

    /// Whether another attempt is left, counting it when it is.
    fn another(&mut self) -> bool {
        let left = self.made < self.max;
        self.made += u32::from(left);
        left
    }

    /// The backoff before the attempt just counted.
    fn backoff(&self, policy: RetryPolicy) -> std::time::Duration {
        policy.delay(self.made - 1)
    }
}

/// Logs that a busy item is left: its entity and the last error's type
/// (`error.type`), never its key or values.
fn gave_up<E: Entity>(error_type: &str) {
    tracing::warn!(
        entity = E::SCHEMA.entity_type,
        error = error_type,
        "ddb backfill gave up on a busy item"
    );
}

/// Whether a failed write may succeed sent again: throttled, conflicting
/// with another transaction, or its answer lost.
fn busy(error: &Error) -> bool {
    error.is_retryable()
        || error.is_transaction_conflict()
        || matches!(error, Error::WriteOutcomeUnknown { .. })
}

/// One page of a segment's Scan.
struct ScannedPage {
    items: Vec<Item>,
    capacity: Capacity,
    scanned_count: i32,
    last_evaluated_key: Option<Item>,
}

/// An item the backfill leaves (it cannot be brought in line, or DynamoDB
/// refused its write for good): logged, counted as failed; the others go on.
fn left_item<E: Entity>(mut outcome: Outcome, error: &Error) -> Outcome {
    tracing::warn!(
        entity = E::SCHEMA.entity_type,
        error = %crate::telemetry::error_type(error),
        "ddb backfill left an item"
    );
    outcome.failed = true;
    outcome
}

/// A move's transaction as a write's outcome: a failed condition on the
/// old item is a [`Error::ConditionFailed`] with it, like an update's.
pub(super) fn moved(sent: Result<(String, Capacity)>) -> Result<(Option<Item>, Capacity)> {
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
pub(super) struct Outcome {
    updated: bool,
    failed: bool,
    retried: u32,
    /// Guards of unique values put.
    guards: u64,
    /// Whether the item's write took every guard it needs.
    guarded: bool,
    capacity: Capacity,
}

/// The Scan's filter: the items of `E`, and in the check pass of an entity
/// with unique values also the guards of its values.
fn scan_filter<E: Entity>(
    pass: Pass,
) -> (
    &'static str,
    std::collections::HashMap<String, String>,
    std::collections::HashMap<String, AttributeValue>,
) {
    let table = E::SCHEMA.table;
    let mut names =
        std::collections::HashMap::from([("#t".to_owned(), table.entity_attribute.to_owned())]);
    let text = |s: String| AttributeValue::S(s);
    let mut values = std::collections::HashMap::from([(
        ":t".to_owned(),
        text(E::SCHEMA.entity_type.to_owned()),
    )]);
    if pass == Pass::Write || !has_unique::<E>() {
        return ("#t = :t", names, values);
    }
    names.insert("#k".into(), table.pk.name.to_owned());
    values.insert(":g".into(), text(crate::keys::guard::GUARD_TYPE.to_owned()));
    let prefix = crate::keys::guard::unique_guard_prefix(E::SCHEMA.entity_type);
    values.insert(":p".into(), text(prefix));
    (
        "#t = :t OR (#t = :g AND begins_with(#k, :p))",
        names,
        values,
    )
}
