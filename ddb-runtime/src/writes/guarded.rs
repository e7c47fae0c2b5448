//! A single write sent as one TransactWriteItems: exactly once (under a
//! ClientRequestToken), or with the guards of its entity's unique values,
//! read, planned and sent again when the values it read changed under it.

use aws_sdk_dynamodb::types::ReturnValue;

use crate::db::Db;
use crate::declaration::model::UniqueDef;
use crate::entity::Entity;
use crate::error::{Error, ExistingItem, Result};
use crate::item::timestamp::expired;
use crate::item::Item;
use crate::keys::key::{Key, KeyValues};
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;

use super::plan::{Action, WritePlan};
use super::transact::Transaction;
use super::unique::{
    guard_writes, guarded_attributes, kept_changing, same_values, taken, GuardKind, GuardWrite,
    GuardedPlan, UNIQUE_TRIES,
};
use super::written::Written;

impl<E: Entity + 'static> WritePlan<E> {
    /// Sends a put or delete (never an update) by itself: as the one-action
    /// transaction (`exactly_once`), else as the PutItem or DeleteItem,
    /// returning the item it replaced when `return_old`. A put's version
    /// written is the one it expected plus 1.
    pub(crate) async fn send_alone(
        mut self,
        db: &Db,
        exactly_once: bool,
        return_old: bool,
    ) -> Result<Written<E>> {
        let version = match self.action {
            Action::Put(_) => self.expected_version.map(|v| v + 1),
            _ => None,
        };
        if exactly_once {
            let capacity = self.send_exactly_once(db).await?;
            return Ok(Written::applied(version, None, false, capacity));
        }
        let asked = return_old.then_some(ReturnValue::AllOld);
        let (old, capacity) = self.send(db, asked).await?;
        Ok(Written::applied(version, old, true, capacity))
    }

    /// Sends the plan as a one-action TransactWriteItems under a
    /// ClientRequestToken: when an answer is lost, the SDK's retry carries
    /// the same token and DynamoDB does not apply it again (for ten
    /// minutes), so a failure is never this call's own write. Returns no
    /// attributes: a transaction has no return values.
    pub(crate) async fn send_exactly_once(&mut self, db: &Db) -> Result<Capacity> {
        self.send_exactly_once_recorded(db, &Attempts::default())
            .await
    }

    /// [`send_exactly_once`](Self::send_exactly_once), its attempts
    /// recorded into `attempts` (which must keep what they sent: a
    /// transaction sent again after a conflict sends it again).
    pub(crate) async fn send_exactly_once_recorded(
        &mut self,
        db: &Db,
        attempts: &Attempts,
    ) -> Result<Capacity> {
        let transaction = super::transact::Transaction::new(db).plan(self);
        let failed = match transaction.send_recorded(attempts).await {
            Ok((_, capacity)) => return Ok(capacity),
            Err(Error::TransactionCanceled { reasons })
                if reasons
                    .first()
                    .is_some_and(|r| r.code == "ConditionalCheckFailed") =>
            {
                reasons.into_iter().next()
            }
            // Sent under the same token until the SDK and ddb gave up.
            Err(Error::WriteOutcomeUnknown { failure, .. }) => {
                return Err(self.outcome_unknown(*failure))
            }
            Err(error) => return Err(error),
        };
        // The item that failed the condition, as DynamoDB returned it
        // (ALL_OLD) or read back (see `condition_met`): none when there is
        // no item.
        let met = failed.and_then(|r| r.existing);
        Err(self.failure(met.map(|ExistingItem(item)| item)))
    }
}

/// What a guarded write's transaction came to.
pub(crate) enum Guarded {
    /// Applied.
    Written(Capacity),
    /// The item's own condition failed, with the item as it was.
    ItemCondition(Option<Item>),
    /// A value's guard is held by another item.
    Taken(&'static UniqueDef),
    /// A guard to let go names another item, though this item still holds
    /// its value: the value is held twice (stored before its constraint
    /// was declared, and the backfill has not run). The guard is the other
    /// item's to keep.
    HeldElsewhere(KeyValues),
}

impl<E: Entity + 'static> WritePlan<E> {
    /// Sends the plan with `guards`, in one TransactWriteItems under a
    /// ClientRequestToken (so a lost answer is not applied twice).
    /// The plan and `guards` as one transaction, and what each guard is.
    pub(crate) fn guarded_transaction(
        &mut self,
        db: &Db,
        guards: Vec<GuardWrite<E>>,
    ) -> (Transaction, Vec<(GuardKind, KeyValues)>) {
        let mut transaction = Transaction::new(db).plan(self);
        let mut described = Vec::with_capacity(guards.len());
        for mut guard in guards {
            transaction = transaction.plan(&mut guard.plan);
            described.push((guard.kind, guard.plan.key.into_values()));
        }
        (transaction, described)
    }

    pub(crate) async fn send_guarded(
        &mut self,
        db: &Db,
        guards: Vec<GuardWrite<E>>,
        attempts: &Attempts,
    ) -> Result<Guarded> {
        let (transaction, described) = self.guarded_transaction(db, guards);
        let reasons = match transaction.send_recorded(attempts).await {
            Ok((_, capacity)) => return Ok(Guarded::Written(capacity)),
            Err(Error::TransactionCanceled { reasons }) => reasons,
            Err(Error::WriteOutcomeUnknown { failure, .. }) => {
                return Err(self.outcome_unknown(*failure))
            }
            Err(error) => return Err(error),
        };
        let failed = |r: &crate::error::ActionFailure| {
            r.reason() == crate::error::CancellationReason::ConditionFailed
        };
        if let Some(own) = reasons.first().filter(|r| failed(r)) {
            // As DynamoDB returned it, or read back (see `condition_met`).
            let met = own.existing.clone().map(|ExistingItem(item)| item);
            return Ok(Guarded::ItemCondition(met));
        }
        let guard = reasons.iter().skip(1).position(failed);
        match guard.and_then(|g| described.into_iter().nth(g)) {
            Some((GuardKind::Take(unique), _)) => Ok(Guarded::Taken(unique)),
            Some((GuardKind::Release(_), guard)) => Ok(Guarded::HeldElsewhere(guard)),
            None => Err(Error::TransactionCanceled { reasons }),
        }
    }
}

impl<E: Entity + 'static> WritePlan<E> {
    /// Sends the plan with `guards` in one transaction, or, `alone`, by
    /// itself (a plain PutItem, UpdateItem or DeleteItem).
    pub(crate) async fn send_with_guards(
        &mut self,
        db: &Db,
        guards: Vec<GuardWrite<E>>,
        alone: bool,
    ) -> Result<Guarded> {
        if !alone {
            return self.send_guarded(db, guards, &Attempts::default()).await;
        }
        match self.send(db, None).await {
            Ok((_, capacity)) => Ok(Guarded::Written(capacity)),
            Err(Error::ConditionFailed { existing, .. }) => Ok(Guarded::ItemCondition(
                existing.map(|ExistingItem(item)| item),
            )),
            Err(error) => Err(error),
        }
    }
}

/// A write of an item of an entity with unique values, planned by
/// `planned` from the stored item it reads (given the guards found naming
/// another item, which it must not let go), sent with the guards it
/// changes; when no guard changes and there is a stored item, alone, as
/// one request. Read, planned and sent again when the values it read
/// changed under it: when its own condition fails on an item `stale`
/// judges other than the one read (`stale(read, met)`); otherwise the
/// failure is the caller's condition's. Returns the capacity of the write,
/// and the item it read.
pub(crate) async fn write_guarded<E, F>(
    db: &Db,
    key: &Key<E>,
    exactly_once: bool,
    mut planned: impl FnMut(Vec<KeyValues>) -> F,
    stale: fn(Option<&Item>, Option<&Item>) -> bool,
) -> Result<(Capacity, Option<Item>)>
where
    E: Entity + 'static,
    F: std::future::Future<Output = Result<GuardedPlan<E>>>,
{
    let mut foreign = Vec::new();
    for _ in 0..UNIQUE_TRIES {
        let GuardedPlan {
            mut plan,
            guards,
            read,
        } = planned(foreign.clone()).await?;
        // Alone only over a stored item: a put where there is none is
        // conditioned on its absence, which a lost answer's retry fails.
        let alone = guards.is_empty() && !exactly_once && read.is_some();
        match plan.send_with_guards(db, guards, alone).await? {
            Guarded::Written(capacity) => return Ok((capacity, read)),
            Guarded::Taken(unique) => return Err(taken::<E>(unique)),
            Guarded::HeldElsewhere(guard) => foreign.push(guard),
            Guarded::ItemCondition(existing) => {
                let existing = existing.filter(|item| !expired(&E::SCHEMA, item));
                if !stale(read.as_ref(), existing.as_ref()) {
                    return Err(plan.failure(existing));
                }
            }
        }
    }
    Err(kept_changing(key))
}

/// Whether the item a put or delete of an entity with unique values `met`
/// holds other unique values (or time to live) than the one it `read`: its
/// guards were computed from a stale read.
pub(crate) fn unique_values_changed<E: Entity>(read: Option<&Item>, met: Option<&Item>) -> bool {
    !same_values(read, met, &guarded_attributes::<E>())
}

impl<E: Entity + 'static> WritePlan<E> {
    /// A create's plan sent with the guards of the values its item holds:
    /// the item's failed condition is mapped as a create's (the stored item
    /// returned), a value held elsewhere is a [`Error::UniqueViolation`].
    pub(crate) async fn send_taking_guards(
        &mut self,
        db: &Db,
        attempts: &Attempts,
    ) -> Result<Capacity> {
        let Action::Put(item) = &self.action else {
            return Err(kept_changing(&self.key));
        };
        let guards = guard_writes::<E>(db, self.key.values(), None, Some(item))?;
        match self.send_guarded(db, guards, attempts).await? {
            Guarded::Written(capacity) => Ok(capacity),
            Guarded::ItemCondition(existing) => Err(self.failure(existing)),
            Guarded::Taken(unique) => Err(taken::<E>(unique)),
            Guarded::HeldElsewhere(_) => Err(kept_changing(&self.key)),
        }
    }
}
