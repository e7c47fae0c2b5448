//! Sending an update, once more when what its condition assumed of the
//! stored item (the membership of a sparse index, whether it stores
//! `_schema`) turns out wrong.

use aws_sdk_dynamodb::types::ReturnValue;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::transport::dry_run::sensitive_attributes;
use crate::writes::item::stored_version;
use crate::writes::plan::{Assumptions, WritePlan};
use crate::writes::written::{no_return_values, Written};

use super::{Assumed, Update};

impl<E: Entity + 'static> Update<E> {
    /// Sends the UpdateItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    ///
    /// A plain update whose first attempt lost its answer is sent again by
    /// the SDK: one whose condition still holds after it was applied (no
    /// version check) is then applied twice, which matters for `ADD` and
    /// `append`; one whose retry fails its condition, or whose retries run
    /// out, is [`Error::WriteOutcomeUnknown`].
    pub async fn send(self) -> Result<Written<E>> {
        self.sent().await
    }

    pub(super) async fn sent(&self) -> Result<Written<E>> {
        if self.moves_guards() {
            return self.send_moving_guards().await;
        }
        let schema = &E::SCHEMA;
        let assumes =
            !schema.schema_declared || schema.keys.iter().any(|key| key.membership.is_some());
        let mut absent: Vec<&'static str> = Vec::new();
        let mut schema_stored = false;
        let mut tries = 1;
        loop {
            let assumed = Assumed::InCondition {
                absent: &absent,
                schema_stored,
            };
            let (sent, assumptions) = self.send_with(assumed).await;
            if !assumes || tries == ASSUMPTION_TRIES {
                return sent;
            }
            // A condition that assumed wrong of the stored item (the
            // membership of a sparse index, whether it stores `_schema`)
            // is sent once more with what the failure showed.
            let Err(Error::ConditionFailed {
                existing: Some(existing),
                ..
            }) = &sent
            else {
                return sent;
            };
            let Some((lacking, stored)) = assumptions.corrected_by(existing.item()) else {
                return sent;
            };
            (absent, schema_stored) = (lacking, stored);
            tries += 1;
        }
    }

    /// The request [`send`](Self::send) would send first, not sent: the
    /// UpdateItem (or, [`exactly_once`](Self::exactly_once), the one-action
    /// TransactWriteItems). An update that must read the item first (to
    /// recompute an index key from attributes it does not set, or to move
    /// the guards of unique values) cannot know its write before the read:
    /// its dry run is the strongly consistent GetItem it sends first, and
    /// [`DryRun::reads_first`](crate::transport::dry_run::DryRun::reads_first) is true. Bad
    /// input is the error `send` would return.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(update: ddb_runtime::Update<E>) -> ddb_runtime::Result<()> {
    /// // let update = db.update(key).set(Order::fields().total_cents, 2500);
    /// let dry = update.dry_run()?;
    /// println!("{dry}"); // UpdateExpression: SET total_cents = 2500, ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.sent(), sensitive, true)
    }

    /// Sends the update, assuming of the stored item what `assumed` says;
    /// returns the outcome and what its condition assumed.
    /// What the update asks DynamoDB to return: the whole new item with
    /// `return_new`; for an upsert, the attributes it replaced (none when
    /// it created the item); else nothing.
    fn returned(&self) -> Option<ReturnValue> {
        match (self.upsert, self.return_new) {
            (true, _) => Some(ReturnValue::UpdatedOld),
            (false, true) => Some(ReturnValue::AllNew),
            (false, false) => None,
        }
    }

    async fn send_with(&self, assumed: Assumed<'_>) -> (Result<Written<E>>, Assumptions) {
        let db = &self.db;
        let (return_new, exactly_once) = (self.return_new, self.exactly_once);
        if exactly_once {
            if let Err(error) = no_return_values::<E>(return_new) {
                return (Err(error), Assumptions::default());
            }
        }
        let mut plan = match self.plan_with(assumed).await {
            Ok(plan) => plan,
            Err(error) => return (Err(error), Assumptions::default()),
        };
        let assumptions = std::mem::take(&mut plan.assumed);
        let sent = if exactly_once {
            send_exactly_once(plan, db).await
        } else {
            send_update_item(plan, db, self.returned()).await
        };
        (sent, assumptions)
    }
}

/// Sends `plan` as a one-action transaction.
async fn send_exactly_once<E: Entity + 'static>(
    mut plan: WritePlan<E>,
    db: &Db,
) -> Result<Written<E>> {
    let capacity = plan.send_exactly_once(db).await?;
    Ok(Written::applied(
        version_written(&plan),
        None,
        false,
        capacity,
    ))
}

/// Sends `plan` as an UpdateItem. It asks DynamoDB for the item only
/// `return_new`: the version written is otherwise known from the one the
/// update replaced, or not at all.
async fn send_update_item<E: Entity + 'static>(
    mut plan: WritePlan<E>,
    db: &Db,
    returned: Option<ReturnValue>,
) -> Result<Written<E>> {
    let asked = returned;
    let (returned, capacity) = plan.send(db, asked.clone()).await?;
    let has_version = crate::writes::item::version_attribute(&E::SCHEMA).is_some();
    let version = match (&asked, &returned) {
        (Some(ReturnValue::AllNew), Some(new)) => stored_version(&E::SCHEMA, Some(new)),
        // An upsert's: the version it replaced plus 1, or 1 when it created.
        (Some(ReturnValue::UpdatedOld), Some(old)) => {
            stored_version(&E::SCHEMA, Some(old)).map(|v| v + 1)
        }
        (Some(ReturnValue::UpdatedOld), None) => has_version.then_some(1),
        _ => version_written(&plan),
    };
    let decode = asked == Some(ReturnValue::AllNew);
    Ok(Written::applied(version, returned, decode, capacity))
}

/// The version an applied update wrote, when it knew the one it replaced:
/// the version it expected, or the one it read first.
fn version_written<E: Entity>(plan: &WritePlan<E>) -> Option<u64> {
    let replaced = plan.expected_version.or_else(|| {
        let read = plan.read.as_ref()?;
        stored_version(&E::SCHEMA, Some(&read.item))
    });
    replaced.map(|v| v + 1)
}

/// How many times an update is sent at most when what it assumed of the
/// stored item turns out wrong (once, or again after a concurrent change).
const ASSUMPTION_TRIES: usize = 3;
