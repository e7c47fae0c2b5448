//! Unique values kept by guard items. A write of an entity with unique
//! constraints goes as one TransactWriteItems: the item's own action,
//! conditioned on the item still holding the unique values the write read,
//! then a put of the guard of each value it takes (`attribute_not_exists`,
//! or the guard's time to live passed) and a delete of the guard of each
//! value it lets go (conditioned on the guard naming this item).

use crate::db::Db;
use crate::declaration::model::UniqueDef;
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::timestamp::expired;
use crate::item::Item;
use crate::keys::guard::{
    guard_item, unique_guard_key, unique_value_of, unique_value_taken_of, OWNER_PK, OWNER_SK,
};
use crate::keys::key::{Key, KeyValues};

use super::item::has_unique;
use super::plan::{Action, WritePlan};

/// How many times a write that read the unique values is sent again after
/// they changed under it.
pub(crate) const UNIQUE_TRIES: usize = 4;

/// One guard a write changes.
pub(crate) struct GuardWrite<E> {
    pub(crate) kind: GuardKind,
    pub(crate) plan: WritePlan<E>,
    /// The key of the item the guard is for.
    owner: KeyValues,
}

/// What a guard write does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GuardKind {
    /// Takes a unique value (a put of its guard).
    Take(&'static UniqueDef),
    /// Lets a unique value go (a delete of its guard).
    Release(&'static UniqueDef),
}

impl<E: Entity + 'static> GuardWrite<E> {
    /// What the write does.
    pub(crate) fn kind(&self) -> GuardKind {
        self.kind
    }

    /// The guard's key.
    pub(crate) fn guard(&self) -> &KeyValues {
        self.plan.key.values()
    }

    /// The key of the item the guard is for.
    pub(crate) fn owner(&self) -> &KeyValues {
        &self.owner
    }

    /// The write's plan.
    pub(crate) fn into_plan(self) -> WritePlan<E> {
        self.plan
    }

    /// A take of a value that `previous`, another item written in the same
    /// transaction, lets go: one put of the guard, conditioned also on the
    /// guard naming `previous` (DynamoDB takes one action per item, so the
    /// delete of `previous`'s guard is left out). Other writes are
    /// unchanged.
    pub(crate) fn taking_over(self, previous: &KeyValues) -> Result<Self> {
        let GuardWrite { kind, plan, owner } = self;
        let Action::Put(stored) = plan.action else {
            return Ok(GuardWrite { kind, plan, owner });
        };
        let free = super::item::absent_or_expired::<E>() | owned_by::<E>(previous);
        let plan = guard_put::<E>(plan.key.into_values(), stored, &free)?;
        Ok(GuardWrite { kind, plan, owner })
    }

    /// A release of a value that `other`, another item written in the same
    /// transaction, lets go too (their reads saw one value on both, stored
    /// twice or read at different times): one delete, conditioned on the
    /// guard naming either, or being gone. The items' own conditions tell
    /// which read is stale. Other writes are unchanged.
    pub(crate) fn released_with(self, other: &KeyValues) -> Result<Self> {
        let GuardWrite { kind, plan, owner } = self;
        if !matches!(plan.action, Action::Delete) {
            return Ok(GuardWrite { kind, plan, owner });
        }
        let pk = <E::Table as Table>::DEF.pk.name;
        let either =
            Condition::<E>::attribute_not_exists(pk) | owned_by::<E>(&owner) | owned_by::<E>(other);
        let plan = WritePlan::new(
            plan.key,
            Action::Delete,
            Some(&either),
            Placeholders::default(),
        )?;
        Ok(GuardWrite { kind, plan, owner })
    }
}

/// The guard writes that take an item from the unique values of `old` (the
/// stored item, `None` when there is none) to those of `new` (`None` for a
/// delete): nothing for a value that stays (values compare normalised, so
/// a change of case under `ignore_case` moves no guard). An empty value
/// `new` takes is refused, unless its constraint allows it.
pub(crate) fn guard_writes<E: Entity + 'static>(
    db: &Db,
    owner: &KeyValues,
    old: Option<&Item>,
    new: Option<&Item>,
) -> Result<Vec<GuardWrite<E>>> {
    let schema = &E::SCHEMA;
    let mut writes = Vec::new();
    for unique in schema.unique {
        // The value let go is read as stored; the value taken must be one
        // the constraint accepts (an empty one only under `allow_empty`).
        let before = match old {
            Some(item) => unique_value_of(schema, unique, item)?,
            None => None,
        };
        let after = match new {
            Some(item) => unique_value_taken_of(schema, unique, item)?,
            None => None,
        };
        if before == after {
            // A guard expires with its item: a new time to live moves it.
            if let (Some(value), true) = (&after, expires_differently::<E>(old, new)) {
                let guard = unique_guard_key(schema, unique, value, |v| db.guard_hash(v))?;
                let plan = take::<E>(guard, owner, new, true)?;
                writes.push(GuardWrite {
                    kind: GuardKind::Take(unique),
                    plan,
                    owner: owner.clone(),
                });
            }
            continue;
        }
        if let Some(before) = before {
            let guard = unique_guard_key(schema, unique, &before, |v| db.guard_hash(v))?;
            let plan = release::<E>(guard, owner)?;
            writes.push(GuardWrite {
                kind: GuardKind::Release(unique),
                plan,
                owner: owner.clone(),
            });
        }
        if let Some(after) = after {
            let guard = unique_guard_key(schema, unique, &after, |v| db.guard_hash(v))?;
            let plan = take::<E>(guard, owner, new, false)?;
            writes.push(GuardWrite {
                kind: GuardKind::Take(unique),
                plan,
                owner: owner.clone(),
            });
        }
    }
    Ok(writes)
}

/// Whether the two states of an item expire at different times.
fn expires_differently<E: Entity>(old: Option<&Item>, new: Option<&Item>) -> bool {
    match crate::item::timestamp::ttl_attribute(&E::SCHEMA) {
        Some(ttl) => old.and_then(|i| i.get(ttl)) != new.and_then(|i| i.get(ttl)),
        None => false,
    }
}

/// The put of a guard naming `owner`, unless a live guard has its key (or,
/// `ours`, one naming `owner`: its time to live moves). It expires with the
/// item it guards (the item's time to live, copied).
fn take<E: Entity + 'static>(
    guard: KeyValues,
    owner: &KeyValues,
    item: Option<&Item>,
    ours: bool,
) -> Result<WritePlan<E>> {
    let table = <E::Table as Table>::DEF;
    check_guard_size::<E>(&guard)?;
    let mut stored = guard_item(&table, &guard, owner);
    if let Some(ttl) = crate::item::timestamp::ttl_attribute(&E::SCHEMA) {
        if let Some(expires) = item.and_then(|item| item.get(ttl)) {
            stored.insert(ttl.to_owned(), expires.clone());
        }
    }
    let free = match ours {
        true => super::item::absent_or_expired::<E>() | owned_by::<E>(owner),
        false => super::item::absent_or_expired::<E>(),
    };
    guard_put(guard, stored, &free)
}

/// The put of the guard item `stored` at `guard`, if `free` holds.
fn guard_put<E: Entity + 'static>(
    guard: KeyValues,
    stored: Item,
    free: &Condition<E>,
) -> Result<WritePlan<E>> {
    let size = crate::item::size::item_size(&stored);
    let mut plan = WritePlan::new(
        Key::from_values(guard),
        Action::Put(stored),
        Some(free),
        Placeholders::default(),
    )?;
    plan.item_size = Some(size);
    Ok(plan)
}

/// The delete of a guard, conditioned on it naming `owner` or being gone
/// (an item written before its constraint was declared has none).
fn release<E: Entity + 'static>(guard: KeyValues, owner: &KeyValues) -> Result<WritePlan<E>> {
    let pk = <E::Table as Table>::DEF.pk.name;
    let names_owner = Condition::<E>::attribute_not_exists(pk) | owned_by::<E>(owner);
    WritePlan::new(
        Key::from_values(guard),
        Action::Delete,
        Some(&names_owner),
        Placeholders::default(),
    )
}

/// A guard's key within DynamoDB's key limits: a value too long for one is
/// refused before sending.
pub(crate) fn check_guard_size<E: Entity>(guard: &KeyValues) -> Result<()> {
    use crate::keys::key::{check_size, PARTITION_KEY_LIMIT, SORT_KEY_LIMIT};
    let entity = E::SCHEMA.entity_type;
    check_size(
        entity,
        "guard partition key",
        guard.pk.as_str().len(),
        PARTITION_KEY_LIMIT,
    )?;
    match &guard.sk {
        Some(sk) => check_size(entity, "guard sort key", sk.as_str().len(), SORT_KEY_LIMIT),
        None => Ok(()),
    }
}

/// The guard names `owner`.
fn owned_by<E>(owner: &KeyValues) -> Condition<E> {
    let pk = Condition::compare_value(OWNER_PK, "=", owner.pk.to_attribute_value());
    match &owner.sk {
        Some(sk) => pk & Condition::compare_value(OWNER_SK, "=", sk.to_attribute_value()),
        None => pk,
    }
}

/// The stored item still holds the unique values and time to live of `old`
/// (each attribute equal, or absent where `old` lacks it), so that the
/// guards the write computed from `old` are the ones to change. `None` for
/// no constraint.
pub(crate) fn holds_values_of<E: Entity>(old: &Item) -> Option<Condition<E>> {
    guarded_attributes::<E>()
        .into_iter()
        .map(|attribute| match old.get(attribute) {
            Some(value) => Condition::compare_value(attribute, "=", value.clone()),
            None => Condition::attribute_not_exists(attribute),
        })
        .reduce(|all, one| all & one)
}

/// The stored item at `key`, read strongly consistent: the unique values a
/// write changes guards from. `None` when there is none.
pub(crate) async fn read_stored<E: Entity + 'static>(
    db: &Db,
    key: &Key<E>,
) -> Result<Option<Item>> {
    db.get_stored::<E::Table>(E::SCHEMA.entity_type, key.to_item(), true, &[])
        .await
}

/// A write of an item of an entity with unique values, planned from the
/// stored item: the write, conditioned on the item still holding the values
/// read (or there being none), and the guards it changes.
pub(crate) struct GuardedPlan<E> {
    /// The write of the item.
    pub(crate) plan: WritePlan<E>,
    /// The guards it takes and lets go.
    pub(crate) guards: Vec<GuardWrite<E>>,
    /// The stored item read, `None` when there was none (or it had expired).
    pub(crate) read: Option<Item>,
}

/// Reads the stored item at `key` (strongly consistent), and plans the
/// write `plan(held)` of `new` (`None` for a delete) with the guards it
/// changes: `held` is the condition that the stored item still holds the
/// values read, or that there is none. The guards of `foreign` (found
/// naming another item) are not let go.
pub(crate) async fn plan_guarded<E: Entity + 'static>(
    db: &Db,
    key: &Key<E>,
    new: Option<&Item>,
    foreign: &[KeyValues],
    plan: impl FnOnce(Condition<E>) -> Result<WritePlan<E>>,
) -> Result<GuardedPlan<E>> {
    let old = read_stored::<E>(db, key).await?;
    // An item past its time to live is absent to every read, and its
    // guards expired with it: the write takes its place.
    let read = old.filter(|item| !expired(&E::SCHEMA, item));
    let held = read.as_ref().and_then(holds_values_of::<E>);
    let plan = plan(held.unwrap_or_else(super::item::absent_or_expired::<E>))?;
    // The values an item stored at an older schema version holds are those
    // of its upgrade (the guards were taken under today's attributes).
    let current = read.as_ref().map(todays_shape::<E>);
    let current = current.as_ref().map(|item| item.as_ref());
    let mut guards = guard_writes::<E>(db, key.values(), current, new)?;
    guards.retain(|g| !matches!(g.kind, GuardKind::Release(_)) || !foreign.contains(g.guard()));
    Ok(GuardedPlan { plan, guards, read })
}

/// `item` in today's shape: upgraded when it is stored at an older schema
/// version (as it is, when its migration fails).
pub(crate) fn todays_shape<E: Entity>(item: &Item) -> std::borrow::Cow<'_, Item> {
    let stored = crate::item::stored::stored_schema_version(item);
    if !stored.is_ok_and(|version| version < E::SCHEMA.schema_version) {
        return std::borrow::Cow::Borrowed(item);
    }
    match E::from_item(item.clone()).and_then(|entity| entity.to_item()) {
        Ok(upgraded) => std::borrow::Cow::Owned(upgraded),
        Err(_) => std::borrow::Cow::Borrowed(item),
    }
}

/// The attributes the guards of `E`'s unique values depend on, each once:
/// those the constraints read, and the time to live the guards carry.
/// None when `E` has no unique value.
pub(crate) fn guarded_attributes<E: Entity>() -> Vec<&'static str> {
    let schema = &E::SCHEMA;
    let ttl = crate::item::timestamp::ttl_attribute(schema).filter(|_| has_unique::<E>());
    let mut attributes: Vec<&'static str> = schema
        .unique
        .iter()
        .flat_map(|u| u.attributes.iter().copied())
        .chain(ttl)
        .collect();
    attributes.sort_unstable();
    attributes.dedup();
    attributes
}

/// Whether two states of an item hold the same `attributes` (an absent item
/// holds none).
pub(crate) fn same_values(a: Option<&Item>, b: Option<&Item>, attributes: &[&str]) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => attributes
            .iter()
            .all(|attribute| a.get(*attribute) == b.get(*attribute)),
        _ => false,
    }
}

/// A batch cannot keep unique values: refused before sending.
pub(crate) fn refuse_batch<E: Entity>() -> Result<()> {
    if !has_unique::<E>() {
        return Ok(());
    }
    Err(Error::InvalidRequest {
        entity: E::SCHEMA.entity_type,
        reason: "the entity keeps unique values, whose guards a batch cannot write with its \
                 items (BatchWriteItem is not atomic); write the items one by one or in a \
                 transaction"
            .into(),
    })
}

/// A unique value held elsewhere, as the caller sees it.
pub(crate) fn taken<E: Entity>(unique: &UniqueDef) -> Error {
    Error::UniqueViolation {
        entity: E::SCHEMA.entity_type,
        field: unique.name,
    }
}

/// The values changed under every try.
pub(crate) fn kept_changing<E: Entity>(key: &Key<E>) -> Error {
    Error::ChangedSinceRead {
        entity: E::SCHEMA.entity_type,
        key: key.values().text(),
        attributes: guarded_attributes::<E>()
            .into_iter()
            .map(str::to_owned)
            .collect(),
    }
}
