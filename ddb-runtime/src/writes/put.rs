//! A put (upsert), versioned when the entity has a version field.

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{cloned, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::Item;
use crate::keys::key::{Key, KeyValues};
use crate::transport::dry_run::sensitive_attributes;
use crate::writes::idempotency::Content;

use super::guarded::{unique_values_changed, write_guarded};
use super::item::{
    absent_or_expired, has_unique, next_version, prepare, version_attribute, version_is, Prepared,
};
use super::plan::{and, Action, WritePlan};
use super::unique::{plan_guarded, GuardedPlan};
use super::written::{return_old_allowed, Written};

impl Db {
    /// Writes `entity`, replacing any item at its key (an upsert).
    ///
    /// With a `#[ddb(version)]` field, the stored version must equal the
    /// entity's (or no item may exist when it is 0), and version + 1 is
    /// written: a stale entity is an [`Error::VersionConflict`](crate::Error::VersionConflict).
    pub fn put<E: Entity + 'static>(&self, entity: &E) -> Put<E> {
        let expected = entity.version();
        let next = expected.map(|v| next_version(E::SCHEMA.entity_type, v));
        Put {
            db: self.clone(),
            prepared: next
                .transpose()
                .and_then(|next| prepare(entity, false, next)),
            expected_version: expected,
            condition: None,
            return_old: false,
            exactly_once: self.exactly_once_writes(),
        }
    }
}

/// A put (upsert); finish with [`send`](Put::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Put<E> {
    db: Db,
    prepared: Result<Prepared<E>>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_old: bool,
    exactly_once: bool,
}

impl<E: Entity + 'static> Put<E> {
    /// Writes only if `condition` holds on the stored item.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the replaced item when `true` (`ReturnValues = ALL_OLD`).
    pub fn return_old(mut self, return_old: bool) -> Self {
        self.return_old = return_old;
        self
    }

    fn full_condition(&self) -> Option<Condition<E>> {
        let mut condition = self.condition.clone();
        if let (Some(attribute), Some(expected)) =
            (version_attribute(&E::SCHEMA), self.expected_version)
        {
            let version = if expected == 0 {
                absent_or_expired::<E>()
            } else {
                version_is(attribute, expected)
            };
            condition = Some(and(condition, version));
        }
        condition
    }

    /// What the put asks, for an idempotency key's fingerprint, and the key
    /// it writes.
    pub(crate) fn content(&self) -> Result<(Content, KeyValues)> {
        let prepared = self
            .prepared
            .as_ref()
            .map_err(crate::error::Error::clone_input)?;
        let content = Content::of::<E>("put")
            .item::<E>(&prepared.item)
            .version(self.expected_version)
            .condition(self.condition.as_ref())?;
        Ok((content, prepared.key.values().clone()))
    }

    /// The put as a write plan, its version check included.
    pub(crate) fn plan(&self) -> Result<WritePlan<E>> {
        let condition = self.full_condition();
        let Prepared { item, key, size } = cloned(&self.prepared)?;
        planned(key, item, size, condition, self.expected_version)
    }

    /// [`plan`](Self::plan), the item moved rather than copied.
    pub(crate) fn into_plan(self) -> Result<WritePlan<E>> {
        let condition = self.full_condition();
        let Prepared { item, key, size } = self.prepared?;
        planned(key, item, size, condition, self.expected_version)
    }

    /// Sends it as a one-action TransactWriteItems under a
    /// ClientRequestToken, so that a retry after a lost answer is never
    /// applied twice nor fails on this call's own write: a
    /// [`VersionConflict`](crate::Error::VersionConflict) is then always another
    /// writer's. Costs two write units per KB instead of one;
    /// [`return_old`](Self::return_old) is not available (a transaction
    /// returns no item). [`Db::with_exactly_once_writes`] makes it the
    /// default of every write; `exactly_once(false)` opts one call out.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Counter", pk = "COUNTER#{name}")]
    /// # struct Counter { name: String, value: u64, #[ddb(version)] version: u64 }
    /// let key = Counter::key(&"visits".to_string())?;
    /// let mut counter: Counter = db.get(key).consistent_read(true).send().await?.unwrap();
    /// counter.value += 1;
    /// db.put(&counter).exactly_once(true).send().await?;
    /// # Ok(()) }
    /// ```
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// The request [`send`](Self::send) would send first, not sent: the
    /// PutItem (or, [`exactly_once`](Self::exactly_once), the one-action
    /// TransactWriteItems). The put of an entity with unique values reads
    /// the item first (to move its guards): its dry run is that strongly
    /// consistent GetItem, and
    /// [`DryRun::reads_first`](crate::transport::dry_run::DryRun::reads_first) is true.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, entity: E) -> ddb_runtime::Result<()> {
    /// let dry = db.put(&entity).dry_run()?;
    /// println!("{dry}"); // PutItem, Item: { ... }, sensitive values as <sensitive>
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.sent(), sensitive, true)
    }

    /// Sends the PutItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    ///
    /// A versioned put whose first attempt lost its answer and whose retry
    /// then fails its condition is [`Error::WriteOutcomeUnknown`](crate::Error::WriteOutcomeUnknown), never a
    /// [`VersionConflict`](crate::Error::VersionConflict): the lost attempt may
    /// have been applied.
    pub async fn send(self) -> Result<Written<E>> {
        if !self.goes_alone()? {
            return self.send_keeping_guards().await;
        }
        let (db, exactly_once, return_old) = (self.db.clone(), self.exactly_once, self.return_old);
        let plan = self.into_plan()?;
        plan.send_alone(&db, exactly_once, return_old).await
    }

    /// [`send`](Self::send) as a dry run sends it, the item copied into the
    /// request (the builder is only borrowed).
    async fn sent(&self) -> Result<Written<E>> {
        if !self.goes_alone()? {
            return self.send_keeping_guards().await;
        }
        let plan = self.plan()?;
        plan.send_alone(&self.db, self.exactly_once, self.return_old)
            .await
    }

    /// Whether the put is one write of its own (an entity without unique
    /// values), once `return_old` is checked to be possible.
    fn goes_alone(&self) -> Result<bool> {
        return_old_allowed::<E>(self.return_old, self.exactly_once)?;
        Ok(!has_unique::<E>())
    }

    /// The put of an entity with unique values: the stored item read, then
    /// the put conditioned on it still holding the values read, with the
    /// guards of the values that change, in one transaction.
    async fn send_keeping_guards(&self) -> Result<Written<E>> {
        let put = &self.guarded()?;
        let (db, item) = (&self.db, Some(&put.item));
        let planned = move |foreign: Vec<KeyValues>| async move {
            plan_guarded(db, &put.key, item, &foreign, |held| put.plan(held)).await
        };
        let stale = unique_values_changed::<E>;
        let (capacity, _) = write_guarded(db, &put.key, self.exactly_once, planned, stale).await?;
        let version = self.expected_version.map(|v| v + 1);
        Ok(Written::applied(version, None, false, capacity))
    }

    /// The put of an entity with unique values as a transaction holds it:
    /// the stored item read, the put conditioned on it, and its guards.
    pub(crate) async fn plan_guarded(&self, db: &Db) -> Result<GuardedPlan<E>> {
        let put = self.guarded()?;
        plan_guarded(db, &put.key, Some(&put.item), &[], |held| put.plan(held)).await
    }

    fn guarded(&self) -> Result<GuardedPut<E>> {
        let condition = self.full_condition();
        let expected_version = self.expected_version;
        let Prepared { item, key, size } = cloned(&self.prepared)?;
        Ok(GuardedPut {
            key,
            item,
            size,
            condition,
            expected_version,
        })
    }
}

/// A put of an entity with unique values, planned once the stored item is
/// read.
struct GuardedPut<E> {
    key: Key<E>,
    item: Item,
    size: usize,
    /// The caller's condition and the version check.
    condition: Option<Condition<E>>,
    expected_version: Option<u64>,
}

impl<E: Entity + 'static> GuardedPut<E> {
    /// The put, conditioned also on `held`, a condition on the stored item.
    fn plan(&self, held: Condition<E>) -> Result<WritePlan<E>> {
        let condition = Some(and(self.condition.clone(), held));
        let (key, item) = (self.key.clone(), self.item.clone());
        planned(key, item, self.size, condition, self.expected_version)
    }
}

/// The put of `item` (of `size` bytes) at `key` under `condition`.
fn planned<E: Entity + 'static>(
    key: Key<E>,
    item: Item,
    size: usize,
    condition: Option<Condition<E>>,
    expected_version: Option<u64>,
) -> Result<WritePlan<E>> {
    let action = Action::Put(item);
    let mut plan = WritePlan::new(key, action, condition.as_ref(), Placeholders::default())?;
    plan.expected_version = expected_version;
    plan.item_size = Some(size);
    Ok(plan)
}
