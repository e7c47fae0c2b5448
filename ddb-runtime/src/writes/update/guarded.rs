//! An update that changes a unique value, or the time to live its guards
//! carry: the item is read first, and the update goes in one
//! TransactWriteItems with the guards it moves.

use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
use crate::item::timestamp::expired;
use crate::item::Item;
use crate::keys::guard::refuse_empty_part;
use crate::keys::key::KeyValues;
use crate::writes::guarded::write_guarded;
use crate::writes::item::{stored_version, version_attribute, version_is};
use crate::writes::plan::and;
use crate::writes::unique::{
    guard_writes, guarded_attributes, holds_values_of, read_stored, GuardKind, GuardedPlan,
};
use crate::writes::written::{no_return_values, Written};

use super::{read_first::apply, Assumed, Op, Update};

impl<E: Entity + 'static> Update<E> {
    /// Whether the update changes an attribute the guards of unique values
    /// depend on.
    pub(crate) fn moves_guards(&self) -> bool {
        let guarded = guarded_attributes::<E>();
        self.ops.iter().any(|op| guarded.contains(&op.attribute()))
    }

    /// Reads the item (strongly consistent), then sends the update with the
    /// guards it moves from the values read to the values it sets, the
    /// update conditioned on the item still holding the values read (and,
    /// on a versioned entity, the version read). Read and sent again when
    /// they changed in between; a condition of the caller's that fails on
    /// the item as read is the caller's failure.
    pub(super) async fn send_moving_guards(&self) -> Result<Written<E>> {
        no_return_values::<E>(self.return_new)?;
        let planned =
            move |foreign: Vec<KeyValues>| async move { self.plan_moving_guards(&foreign).await };
        // The update is conditioned on the whole item as read: a failure on
        // another item is a stale read, on the item read the caller's.
        let stale = |read: Option<&Item>, met: Option<&Item>| met.is_some() && met != read;
        let (db, key) = (&self.db, &self.key);
        let (capacity, read) = write_guarded(db, key, self.exactly_once, planned, stale).await?;
        let version = read.and_then(|read| self.version_after(&read));
        Ok(Written::applied(version, None, false, capacity))
    }

    /// Reads the item (strongly consistent) and plans the update
    /// conditioned on the values and version read, with the guards it
    /// moves (but the releases of `foreign`, guards found naming another
    /// item). An item that is not there (or has expired) is
    /// [`Error::NotFound`].
    pub(crate) async fn plan_moving_guards(&self, foreign: &[KeyValues]) -> Result<GuardedPlan<E>> {
        self.refusal()?;
        let old = read_stored::<E>(&self.db, &self.key).await?;
        let Some(old) = old.filter(|item| !expired(&E::SCHEMA, item)) else {
            return Err(Error::NotFound {
                entity: E::SCHEMA.entity_type,
                key: crate::writes::item::key_text(&self.key),
            });
        };
        let new = self.guarded_values_after(&old);
        let mut guards = guard_writes::<E>(&self.db, self.key.values(), Some(&old), Some(&new))?;
        guards
            .retain(|g| !matches!(g.kind(), GuardKind::Release(_)) || !foreign.contains(g.guard()));
        let absent = absent_key_attributes::<E>(&old);
        let update = self.conditioned_on_read(&old);
        let plan = update
            .plan_with(Assumed::InCondition {
                absent: &absent,
                schema_stored: old.contains_key(SCHEMA_VERSION_ATTRIBUTE),
            })
            .await?;
        let planned = GuardedPlan {
            plan,
            guards,
            read: Some(old),
        };
        Ok(planned)
    }

    /// A copy of the update, to condition on what was read (its builder's
    /// failure, if any, was taken out before: see `refusal`).
    pub(super) fn copied(&self) -> Self {
        Self {
            db: self.db.clone(),
            key: self.key.clone(),
            ops: self.ops.clone(),
            expected_version: self.expected_version,
            condition: self.condition.clone(),
            return_new: self.return_new,
            exactly_once: self.exactly_once,
            upsert: self.upsert,
            error: None,
        }
    }

    /// The item read with the changes to guarded attributes applied: the
    /// values the guards move to.
    fn guarded_values_after(&self, old: &Item) -> Item {
        let guarded = guarded_attributes::<E>();
        let mut new = old.clone();
        for op in self
            .ops
            .iter()
            .filter(|op| guarded.contains(&op.attribute()))
        {
            apply(&mut new, op);
        }
        new
    }

    /// The update to send after reading `old`: conditioned on `old`'s
    /// guarded values, and on its version (a condition, not an expected
    /// version: the caller asked for none).
    fn conditioned_on_read(&self, old: &Item) -> Self {
        let mut update = self.copied();
        if let Some(held) = holds_values_of::<E>(old) {
            update.condition = Some(and(update.condition.take(), held));
        }
        let read = stored_version(&E::SCHEMA, Some(old));
        if let (None, Some(attribute), Some(read)) =
            (update.expected_version, version_attribute(&E::SCHEMA), read)
        {
            let same = version_is(attribute, read);
            update.condition = Some(and(update.condition.take(), same));
        }
        update
    }

    /// The version the update writes over `old`, when known: the one it
    /// expects, or the one read, plus 1.
    fn version_after(&self, old: &Item) -> Option<u64> {
        let replaced = self
            .expected_version
            .or_else(|| stored_version(&E::SCHEMA, Some(old)));
        replaced.map(|v| v + 1)
    }
}

/// The index key attributes `item` lacks: the sparse indexes it is not in,
/// which the update's condition then expects it to stay out of.
fn absent_key_attributes<E: Entity>(item: &Item) -> Vec<&'static str> {
    let table = <E::Table as Table>::DEF;
    table
        .indexes
        .iter()
        .flat_map(|index| std::iter::once(index.pk).chain(index.sk))
        .map(|attribute| attribute.name)
        .filter(|name| !item.contains_key(*name))
        .collect()
}

/// Only a SET or a REMOVE can change a guarded attribute: the others would
/// be applied to the value read by ddb's own arithmetic, not DynamoDB's. A
/// SET of a value a constraint refuses (an empty one) is refused before
/// the item is read.
pub(super) fn sets_or_removes<E: Entity>(op: Op) -> Result<Op> {
    let guarded = guarded_attributes::<E>();
    let name = op.attribute();
    match op {
        Op::Set(attribute, ref value) => {
            let constraints = E::SCHEMA.unique.iter();
            for unique in constraints.filter(|u| u.attributes.contains(&attribute)) {
                refuse_empty_part(E::SCHEMA.entity_type, unique, value)?;
            }
            Ok(op)
        }
        Op::Remove(_) => Ok(op),
        _ if guarded.contains(&name) => Err(Error::InvalidUpdate {
            entity: E::SCHEMA.entity_type,
            reason: format!(
                "attribute `{name}` holds a unique value (or the time to live its guard \
                 carries): set or remove it"
            ),
        }),
        _ => Ok(op),
    }
}
