//! A canceled transaction read as the caller added it: one entry per action,
//! with its failure in the words of the same write sent alone. The guards
//! of an action's unique values are part of it: a guard's failure is its
//! action's, unless the action's own condition failed, which explains it (a
//! create over a stored item meets that item's own guards).

use crate::entity::Entity;
use crate::error::{ActionFailure, CancellationReason, Error, ExistingItem, UniqueDuplicate};
use crate::item::timestamp::expired;
use crate::item::Item;
use crate::keys::guard::{owner_of, shown_key};
use crate::keys::key::Key;
use crate::writes::unique::{same_values, GuardKind};

use super::action::{Action, Compare, Role};

impl Error {
    /// The failure of the action of a canceled transaction at `key`, as
    /// the caller added it; `None` when this is not a canceled transaction,
    /// or it has no action at `key`.
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Game", pk = "PK", sk = "SK")]
    /// # struct Game;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Game, entity = "Player", pk = "PLAYER#{player}", sk = "PROFILE")]
    /// # struct Player { player: String, coins: u64 }
    /// # fn demo(error: ddb_runtime::Error, debit: ddb_runtime::Key<Player>) {
    /// if let Some(failure) = error.action_failure(&debit) {
    ///     if failure.error().is_some_and(|e| e.is_condition_failed()) {
    ///         // not enough coins: the purchase was not made
    ///     }
    /// }
    /// # }
    /// ```
    pub fn action_failure<E: Entity>(&self, key: &Key<E>) -> Option<&ActionFailure> {
        let Error::TransactionCanceled { reasons } = self else {
            return None;
        };
        let values = key.values().attribute_values();
        reasons
            .iter()
            .find(|r| r.entity == E::SCHEMA.entity_type && r.key_values == values)
    }
}

/// `error`, a cancellation with one reason per action sent, read as one
/// entry per action the caller added (those come first); any other error
/// as it is.
pub(super) fn caller_failures(actions: &[Action], error: Error) -> Error {
    let Error::TransactionCanceled { reasons } = error else {
        return error;
    };
    let sent: Vec<(&Action, &ActionFailure)> = actions.iter().zip(&reasons).collect();
    let callers = sent.iter().take_while(|(action, _)| action.is_callers());
    let reasons = callers
        .enumerate()
        .map(|(index, &(action, own))| {
            let guards = sent.iter().filter(|(guard, _)| guard.guards(action));
            let failed_guard = guards.into_iter().find(|(_, r)| r.code != "None");
            let (reason, error) = match (own.reason(), failed_guard) {
                (CancellationReason::NotFailed, Some(&(guard, reason))) => {
                    (reason, guard_failure(action, guard, reason))
                }
                _ => (own, own_failure(action, own)),
            };
            ActionFailure {
                index,
                entity: action.entity,
                key: shown_key(action.key.text()),
                code: reason.code.clone(),
                message: reason.message.clone(),
                existing: reason.existing.clone(),
                error: error.map(Box::new),
                key_values: action.key.attribute_values(),
            }
        })
        .collect();
    Error::TransactionCanceled { reasons }
}

/// What the reason DynamoDB gave for the caller's `action` means.
fn own_failure(action: &Action, reason: &ActionFailure) -> Option<Error> {
    let (entity, key) = (action.entity, shown_key(action.key.text()));
    match reason.reason() {
        CancellationReason::ConditionFailed => {
            let existing = reason.existing.as_ref().map(|e| e.item().clone());
            if stale(action, existing.as_ref()) {
                let attributes = action.guarded.iter().map(|a| (*a).to_owned()).collect();
                return Some(Error::ChangedSinceRead {
                    entity,
                    key,
                    attributes,
                });
            }
            action.failure.as_ref().map(|failure| failure(existing))
        }
        CancellationReason::TransactionConflict => Some(Error::TransactionConflict { entity, key }),
        _ => None,
    }
}

/// Whether a guarded write's own condition failed on an item other than the
/// one it was planned from: the values its guards were computed from
/// changed, not the caller's condition.
fn stale(action: &Action, existing: Option<&Item>) -> bool {
    let Role::Guarded {
        read,
        compare,
        schema,
    } = &action.role
    else {
        return false;
    };
    let existing = existing.filter(|item| !expired(schema, item));
    match compare {
        Compare::Nothing => false,
        Compare::Guarded => !same_values(read.as_ref(), existing, &action.guarded),
        Compare::Whole => read.as_ref() != existing,
    }
}

/// What the failure of `guard`, a guard of the caller's `action`, means for
/// the action.
fn guard_failure(action: &Action, guard: &Action, reason: &ActionFailure) -> Option<Error> {
    let (entity, key) = (action.entity, shown_key(action.key.text()));
    let Role::Guard { kind, owner } = &guard.role else {
        return None;
    };
    match (reason.reason(), kind) {
        (CancellationReason::TransactionConflict, _) => {
            Some(Error::TransactionConflict { entity, key })
        }
        (CancellationReason::ConditionFailed, GuardKind::Take(unique)) => {
            Some(Error::UniqueViolation {
                entity,
                field: unique.name,
            })
        }
        // A guard to let go that names another item: the value is held
        // twice, from before its constraint.
        (CancellationReason::ConditionFailed, GuardKind::Release(unique)) => {
            let existing = reason.existing.as_ref().map(ExistingItem::item);
            let other = existing.and_then(owner_of).map(|o| o.text());
            let items = [Some(owner.clone()), other].into_iter().flatten().collect();
            let duplicates = vec![UniqueDuplicate {
                field: unique.name,
                items,
            }];
            Some(Error::UniqueDuplicates { entity, duplicates })
        }
        _ => None,
    }
}
