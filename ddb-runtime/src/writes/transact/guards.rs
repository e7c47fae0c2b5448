//! The writes of entities with unique values in a transaction: each planned
//! from the stored item, its guard actions added after the caller's
//! actions (a cancellation a guard caused is read in `outcome.rs`).

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::keys::key::KeyValues;
use crate::writes::unique::{guarded_attributes, GuardKind, GuardWrite, GuardedPlan};

use super::action::{action, Compare, Prepared, Role};

/// What a write that reads first makes once it has read: its own action,
/// and the guard writes it adds after every action the caller added.
pub(crate) struct Made {
    pub(super) own: Prepared,
    pub(super) guards: Vec<PendingGuard>,
}

impl Made {
    /// A write's own action, with no guard.
    pub(crate) fn alone(own: Prepared) -> Self {
        Self {
            own,
            guards: Vec::new(),
        }
    }
}

/// A guard write not yet made an action: a take may still fold in the
/// release of its value by another item of the transaction.
pub(super) struct PendingGuard {
    entity: &'static str,
    table: String,
    kind: GuardKind,
    guard: KeyValues,
    owner: KeyValues,
    make: MakeGuard,
}

/// Makes a guard's action; given an item, the take of a value that item
/// lets go.
type MakeGuard = Box<dyn FnOnce(Option<&KeyValues>) -> Result<Prepared> + Send>;

/// The actions of a guarded write: the item's own, and its guards.
pub(crate) fn guarded_actions<E: Entity + 'static>(
    db: &Db,
    planned: GuardedPlan<E>,
    compare: Compare,
) -> Result<Made> {
    let GuardedPlan { plan, guards, read } = planned;
    let guarded = guarded_attributes::<E>();
    let (item, mut own) = action(db, plan)?;
    own.role = Role::Guarded {
        read,
        compare,
        schema: &E::SCHEMA,
    };
    own.guarded = guarded.clone();
    let table = db.table_name::<E::Table>().to_owned();
    let guards = guards
        .into_iter()
        .map(|write| pending(db, &table, &guarded, write))
        .collect();
    Ok(Made {
        own: (item, own),
        guards,
    })
}

/// `write` as a pending guard of the transaction.
fn pending<E: Entity + 'static>(
    db: &Db,
    table: &str,
    guarded: &[&'static str],
    write: GuardWrite<E>,
) -> PendingGuard {
    let (kind, guard, owner) = (write.kind(), write.guard().clone(), write.owner().clone());
    let (db, guarded, text) = (db.clone(), guarded.to_vec(), owner.text());
    let make = move |previous: Option<&KeyValues>| {
        let write = match (previous, write.kind()) {
            (Some(other), GuardKind::Release(_)) => write.released_with(other)?,
            (Some(previous), _) => write.taking_over(previous)?,
            (None, _) => write,
        };
        let (item, mut action) = action(&db, write.into_plan())?;
        action.role = Role::Guard { kind, owner: text };
        action.guarded = guarded;
        Ok((item, action))
    };
    PendingGuard {
        entity: E::SCHEMA.entity_type,
        table: table.to_owned(),
        kind,
        guard,
        owner,
        make: Box::new(make),
    }
}

/// The actions of the transaction's pending guards. A value one item lets
/// go and another takes is one put, conditioned on the guard naming the
/// item letting it go; a value two items take is refused before sending.
pub(super) fn guard_actions(pending: Vec<PendingGuard>) -> Result<Vec<Prepared>> {
    let same = |a: &PendingGuard, b: &PendingGuard| a.table == b.table && a.guard == b.guard;
    let takes = |p: &PendingGuard| matches!(p.kind, GuardKind::Take(_));
    for (i, take) in pending.iter().enumerate().filter(|(_, p)| takes(p)) {
        let rival = |p: &PendingGuard| takes(p) && same(p, take) && p.owner != take.owner;
        if let (GuardKind::Take(unique), true) = (take.kind, pending[..i].iter().any(rival)) {
            return Err(Error::UniqueViolation {
                entity: take.entity,
                field: unique.name,
            });
        }
    }
    let mut previous: Vec<Option<KeyValues>> = vec![None; pending.len()];
    let mut folded = vec![false; pending.len()];
    let releases = |p: &PendingGuard| matches!(p.kind, GuardKind::Release(_));
    // Two items letting one value go: one delete, naming either.
    for (i, release) in pending.iter().enumerate().filter(|(_, p)| releases(p)) {
        if folded[i] {
            continue;
        }
        let twin = (i + 1..pending.len()).find(|&j| {
            releases(&pending[j]) && same(&pending[j], release) && pending[j].owner != release.owner
        });
        if let Some(j) = twin {
            previous[i] = Some(pending[j].owner.clone());
            folded[j] = true;
        }
    }
    for (i, take) in pending.iter().enumerate().filter(|(_, p)| takes(p)) {
        let release = (0..pending.len()).find(|&r| {
            let p = &pending[r];
            !folded[r] && releases(p) && same(p, take) && p.owner != take.owner
        });
        if let Some(r) = release {
            previous[i] = Some(pending[r].owner.clone());
            folded[r] = true;
        }
    }
    pending
        .into_iter()
        .zip(previous)
        .zip(folded)
        .filter(|(_, folded)| !folded)
        .map(|((p, previous), _)| (p.make)(previous.as_ref()))
        .collect()
}
