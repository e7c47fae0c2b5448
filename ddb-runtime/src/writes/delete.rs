//! A delete by key or of a loaded entity, versioned and conditioned.

use super::item::version_attribute;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{cloned, Result};
use crate::expression::{Condition, Placeholders};
use crate::keys::key::{Key, KeyValues};
use crate::transport::dry_run::sensitive_attributes;
use crate::writes::idempotency::Content;

use super::guarded::{unique_values_changed, write_guarded};
use super::item::{has_unique, version_is};
use super::plan::{and, Action, WritePlan};
use super::unique::{plan_guarded, GuardedPlan};
use super::written::{require_version, return_old_allowed, Written};

impl Db {
    /// Deletes the item at `key`. Deleting a missing item is not an error
    /// unless a condition says so.
    pub fn delete<E: Entity + 'static>(&self, key: Key<E>) -> Delete<E> {
        Delete {
            db: self.clone(),
            key: Ok(key),
            expected_version: None,
            condition: None,
            return_old: false,
            exactly_once: self.exactly_once_writes(),
        }
    }

    /// Deletes a loaded entity, checking its `#[ddb(version)]` if it has one.
    pub fn delete_entity<E: Entity + 'static>(&self, entity: &E) -> Delete<E> {
        Delete {
            db: self.clone(),
            key: entity.primary_key(),
            expected_version: entity.version(),
            condition: None,
            return_old: false,
            exactly_once: self.exactly_once_writes(),
        }
    }
}

/// A delete; finish with [`send`](Delete::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Delete<E> {
    db: Db,
    key: Result<Key<E>>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_old: bool,
    exactly_once: bool,
}

impl<E: Entity + 'static> Delete<E> {
    /// Deletes only if the stored version is `version`. On an entity
    /// without `#[ddb(version)]` the delete fails with
    /// [`Error::InvalidRequest`](crate::Error::InvalidRequest) and nothing is sent.
    pub fn expect_version(mut self, version: u64) -> Self {
        self.key = self.key.and_then(|key| {
            require_version::<E>()?;
            Ok(key)
        });
        self.expected_version = Some(version);
        self
    }

    /// Deletes only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the deleted item when `true` (`ReturnValues = ALL_OLD`).
    pub fn return_old(mut self, return_old: bool) -> Self {
        self.return_old = return_old;
        self
    }

    /// What the delete asks, for an idempotency key's fingerprint, and the
    /// key it names.
    pub(crate) fn content(&self) -> Result<(Content, KeyValues)> {
        let key = self
            .key
            .as_ref()
            .map_err(crate::error::Error::clone_input)?;
        let content = Content::of::<E>("delete")
            .key(key.values())
            .version(self.expected_version)
            .condition(self.condition.as_ref())?;
        Ok((content, key.values().clone()))
    }

    /// The delete as a write plan, its version check included.
    pub(crate) fn plan(&self) -> Result<WritePlan<E>> {
        let condition = self.full_condition();
        planned(cloned(&self.key)?, condition, self.expected_version)
    }

    /// The caller's condition and the version check.
    fn full_condition(&self) -> Option<Condition<E>> {
        let mut condition = self.condition.clone();
        if let (Some(attribute), Some(expected)) =
            (version_attribute(&E::SCHEMA), self.expected_version)
        {
            condition = Some(and(condition, version_is(attribute, expected)));
        }
        condition
    }

    /// Sends it as a one-action TransactWriteItems under a
    /// ClientRequestToken: see [`Put::exactly_once`](crate::write::Put::exactly_once).
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// The request [`send`](Self::send) would send first, not sent: the
    /// DeleteItem (or, [`exactly_once`](Self::exactly_once), the one-action
    /// TransactWriteItems). The delete of an entity with unique values reads
    /// the item first (to release its guards): its dry run is that
    /// strongly consistent GetItem, and
    /// [`DryRun::reads_first`](crate::transport::dry_run::DryRun::reads_first) is true.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, key: ddb_runtime::Key<E>) -> ddb_runtime::Result<()> {
    /// let dry = db.delete(key).expect_version(3).dry_run()?;
    /// println!("{dry}"); // DeleteItem, Key, ConditionExpression: version = 3
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.sent(), sensitive, true)
    }

    /// Sends the DeleteItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    pub async fn send(self) -> Result<Written<E>> {
        self.sent().await
    }

    async fn sent(&self) -> Result<Written<E>> {
        return_old_allowed::<E>(self.return_old, self.exactly_once)?;
        if has_unique::<E>() {
            return self.send_releasing_guards().await;
        }
        let plan = self.plan()?;
        plan.send_alone(&self.db, self.exactly_once, self.return_old)
            .await
    }

    /// The delete of an entity with unique values: the stored item read,
    /// then the delete conditioned on it still holding the values read,
    /// with the deletes of their guards, in one transaction.
    async fn send_releasing_guards(&self) -> Result<Written<E>> {
        let (db, delete) = (&self.db, self.guarded()?);
        let delete = &delete;
        let planned = move |foreign: Vec<KeyValues>| async move {
            plan_guarded(db, &delete.key, None, &foreign, |held| delete.plan(held)).await
        };
        let stale = unique_values_changed::<E>;
        let (capacity, _) =
            write_guarded(db, &delete.key, self.exactly_once, planned, stale).await?;
        Ok(Written::applied(None, None, false, capacity))
    }

    /// The delete of an entity with unique values as a transaction holds
    /// it: the stored item read, the delete conditioned on it, and the
    /// deletes of its guards.
    pub(crate) async fn plan_guarded(&self, db: &Db) -> Result<GuardedPlan<E>> {
        let delete = self.guarded()?;
        plan_guarded(db, &delete.key, None, &[], |held| delete.plan(held)).await
    }

    fn guarded(&self) -> Result<GuardedDelete<E>> {
        Ok(GuardedDelete {
            condition: self.full_condition(),
            expected_version: self.expected_version,
            key: cloned(&self.key)?,
        })
    }
}

/// A delete of an entity with unique values, planned once the stored item
/// is read.
struct GuardedDelete<E> {
    key: Key<E>,
    /// The caller's condition and the version check.
    condition: Option<Condition<E>>,
    expected_version: Option<u64>,
}

impl<E: Entity + 'static> GuardedDelete<E> {
    /// The delete, conditioned also on `held`, a condition on the stored item.
    fn plan(&self, held: Condition<E>) -> Result<WritePlan<E>> {
        let condition = Some(and(self.condition.clone(), held));
        planned(self.key.clone(), condition, self.expected_version)
    }
}

/// The delete of the item at `key` under `condition`.
fn planned<E: Entity + 'static>(
    key: Key<E>,
    condition: Option<Condition<E>>,
    expected_version: Option<u64>,
) -> Result<WritePlan<E>> {
    let mut plan = WritePlan::new(
        key,
        Action::Delete,
        condition.as_ref(),
        Placeholders::default(),
    )?;
    plan.expected_version = expected_version;
    Ok(plan)
}
