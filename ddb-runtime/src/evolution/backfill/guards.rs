//! The guards of unique values a backfill creates, for items stored before
//! their constraint was declared: the check pass finds every value more
//! than one item holds (and nothing is written while any is), the write
//! pass puts each missing guard in one transaction with a check that the
//! item still holds its value.

use std::collections::HashMap;

use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{Error, ExistingItem, IndexKeyViolation, Result, UniqueDuplicate};
use crate::expression::{Condition, Placeholders};
use crate::item::Item;
use crate::keys::guard::{owner_of, unique_guard_prefix, GUARD_TYPE};
use crate::keys::key::{Key, KeyValues};
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;
use crate::writes::guarded::Guarded;
use crate::writes::plan::{Action, WritePlan};
use crate::writes::unique::{
    guard_writes, holds_values_of, taken, todays_shape, GuardKind, GuardWrite,
};

/// What the check pass learned of the entity's unique values.
#[derive(Default)]
pub(super) struct Values {
    /// By guard key: the constraint, and the keys of the items holding
    /// its value.
    holders: HashMap<String, (&'static str, Vec<String>)>,
    /// By guard key: the key of the item the stored guard names.
    stored: HashMap<String, String>,
}

impl Values {
    /// Notes the unique values of `item`, a stored item of `E`; a value
    /// that cannot have a guard (too long for a key, a sensitive value
    /// without the Db's hash key) is a violation.
    pub(super) fn note_item<E: Entity + 'static>(
        &mut self,
        db: &Db,
        item: &Item,
    ) -> Option<IndexKeyViolation> {
        if crate::item::timestamp::expired(&E::SCHEMA, item) {
            return None;
        }
        // An item at an older schema version holds the values its upgrade
        // gives it.
        let item = todays_shape::<E>(item);
        let item = item.as_ref();
        let key = Key::<E>::read_item(item).ok()?;
        let owner = key.values().text();
        match guard_writes::<E>(db, key.values(), None, Some(item)) {
            Ok(guards) => {
                for guard in guards {
                    let GuardKind::Take(unique) = guard.kind() else {
                        continue;
                    };
                    let holders = self.holders.entry(guard.guard().text());
                    let (_, items) = holders.or_insert((unique.name, Vec::new()));
                    items.push(owner.clone());
                }
                None
            }
            Err(error) => Some(IndexKeyViolation {
                key: owner,
                attribute: "unique".into(),
                reason: error.to_string(),
            }),
        }
    }

    /// Notes a stored guard of the entity's values.
    pub(super) fn note_guard<E: Entity>(&mut self, guard: &Item) {
        let table = <E::Table as Table>::DEF;
        let key = KeyValues::read_table_key(&table, guard);
        if let (Ok(key), Some(owner)) = (key, owner_of(guard)) {
            self.stored.insert(key.text(), owner.text());
        }
    }

    /// Every value more than one item holds, by constraint and first key.
    pub(super) fn duplicates(&self) -> Vec<UniqueDuplicate> {
        let mut found: Vec<UniqueDuplicate> = self
            .holders
            .values()
            .filter(|(_, items)| items.len() > 1)
            .map(|(field, items)| {
                let mut items = items.clone();
                items.sort();
                UniqueDuplicate { field, items }
            })
            .collect();
        found.sort_by(|a, b| (a.field, &a.items).cmp(&(b.field, &b.items)));
        found
    }

    /// Whether the guard at `guard` is stored and names `owner`.
    fn names(&self, guard: &KeyValues, owner: &KeyValues) -> bool {
        self.stored.get(&guard.text()) == Some(&owner.text())
    }
}

/// Whether a scanned item is a guard of `E`'s unique values.
pub(super) fn is_guard_of<E: Entity>(item: &Item) -> bool {
    let table = <E::Table as Table>::DEF;
    let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok());
    let prefix = unique_guard_prefix(E::SCHEMA.entity_type);
    text(table.entity_attribute).map(String::as_str) == Some(GUARD_TYPE)
        && text(table.pk.name).is_some_and(|pk| pk.starts_with(&prefix))
}

/// What putting an item's missing guards came to.
pub(super) enum GuardsPut {
    /// Every guard is there: `written` of them were put.
    Done { written: u64, capacity: Capacity },
    /// The item changed since it was read: here it is now (`None`: gone).
    Changed(Option<Item>),
    /// The guard of this constraint's value names another item: the value
    /// is held twice.
    Taken(&'static str),
}

/// Puts the guards `item` (of `E`, as read) lacks, in one transaction with a
/// condition check that the item still holds the values read. A guard the
/// check pass saw naming the item is left as it is. `capacity_asked`: the
/// transaction asks DynamoDB for its capacity.
pub(super) async fn put_missing<E: Entity + 'static>(
    db: &Db,
    item: &Item,
    values: &Values,
    capacity_asked: bool,
) -> Result<GuardsPut> {
    let Ok(key) = Key::<E>::read_item(item) else {
        return Ok(GuardsPut::Done {
            written: 0,
            capacity: Capacity::default(),
        });
    };
    let owner = key.values().clone();
    let missing: Vec<GuardWrite<E>> = guard_writes::<E>(db, &owner, None, Some(item))?
        .into_iter()
        .filter(|guard| !values.names(guard.guard(), &owner))
        .collect();
    if missing.is_empty() {
        return Ok(GuardsPut::Done {
            written: 0,
            capacity: Capacity::default(),
        });
    }
    let written = missing.len() as u64;
    let mut guards = Vec::with_capacity(missing.len());
    for guard in missing {
        guards.push(guard.taking_over(&owner)?);
    }
    let mut check = still_holding::<E>(key, item)?;
    check.capacity_asked = capacity_asked;
    match check.send_guarded(db, guards, &Attempts::default()).await? {
        Guarded::Written(capacity) => Ok(GuardsPut::Done { written, capacity }),
        Guarded::ItemCondition(now) => Ok(GuardsPut::Changed(now)),
        Guarded::Taken(unique) => Ok(GuardsPut::Taken(unique.name)),
        // No guard is let go, and none records a request.
        Guarded::HeldElsewhere(_) => Err(crate::writes::unique::kept_changing(&check.key)),
    }
}

/// A condition check that the item at `key` is there and holds the unique
/// values (and time to live) of `item`.
fn still_holding<E: Entity + 'static>(key: Key<E>, item: &Item) -> Result<WritePlan<E>> {
    let exists = Condition::<E>::attribute_exists(<E::Table as Table>::DEF.pk.name);
    let condition = match holds_values_of::<E>(item) {
        Some(held) => exists & held,
        None => exists,
    };
    WritePlan::new(
        key,
        Action::ConditionCheck,
        Some(&condition),
        Placeholders::default(),
    )
}

/// The upgrade of an item of an entity with unique values: the put of its
/// new shape, conditioned on the item being as `read`, with the guards it
/// moves, in one TransactWriteItems: the delete of each value its
/// migration changes, and the put of each value it holds (kept when its
/// guard names the item). A failed condition of the put is a
/// [`Error::ConditionFailed`] with the item as it is now, as a plain
/// upgrade's; a value whose guard names another item leaves the item.
pub(super) async fn upgrade_guarded<E: Entity + 'static>(
    db: &Db,
    put: &mut WritePlan<E>,
    read: &Item,
) -> Result<(Option<Item>, Capacity)> {
    let Action::Put(new) = &put.action else {
        return put.send(db, None).await;
    };
    let new = &new.clone();
    let owner = put.key.values().clone();
    let entity = E::SCHEMA.entity_type;
    let mut foreign: Vec<KeyValues> = Vec::new();
    // A transaction takes the put's item, condition and placeholders: each
    // attempt sends them afresh.
    let (condition, placeholders) = (put.condition.clone(), put.placeholders.clone());
    loop {
        put.action = Action::Put(new.clone());
        put.condition = condition.clone();
        put.placeholders = placeholders.clone();
        let changed = guard_writes::<E>(db, &owner, Some(read), Some(new))?;
        // A value let go whose guard names another item is that item's.
        let releases = changed.into_iter().filter(|guard| {
            matches!(guard.kind(), GuardKind::Release(_)) && !foreign.contains(guard.guard())
        });
        let mut guards: Vec<GuardWrite<E>> = releases.collect();
        for take in guard_writes::<E>(db, &owner, None, Some(new))? {
            guards.push(take.taking_over(&owner)?);
        }
        match put.send_guarded(db, guards, &Attempts::default()).await? {
            Guarded::Written(capacity) => return Ok((None, capacity)),
            Guarded::ItemCondition(existing) => {
                return Err(Error::ConditionFailed {
                    entity,
                    key: owner.text(),
                    existing: existing.map(ExistingItem),
                })
            }
            Guarded::Taken(unique) => return Err(taken::<E>(unique)),
            Guarded::HeldElsewhere(guard) => foreign.push(guard),
        }
    }
}
