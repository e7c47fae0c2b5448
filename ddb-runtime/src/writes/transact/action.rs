//! One action of a TransactWriteItems as ddb keeps it: the request's
//! action, and what describes it (its entity, key, table and size, what it
//! is to the transaction, and how its failed condition reads).

use aws_sdk_dynamodb::types::TransactWriteItem;

use crate::db::Db;
use crate::declaration::model::{EntitySchema, TableDef};
use crate::entity::Entity;
use crate::error::Result;
use crate::item::Item;
use crate::keys::key::KeyValues;
use crate::writes::plan::{FailureReader, WritePlan};
use crate::writes::unique::GuardKind;

/// What to say about one prepared action.
#[derive(Clone)]
pub(crate) struct Action {
    pub(super) entity: &'static str,
    pub(super) key: KeyValues,
    /// The table the action writes: its key attributes, and its name
    /// under the handle that sends it.
    pub(super) table: (&'static TableDef, fn(&Db) -> &str),
    pub(super) size: usize,
    /// What the action is to the transaction.
    pub(super) role: Role,
    /// For the write of an entity with unique values and its guards, the
    /// attributes the guards depend on.
    pub(super) guarded: Vec<&'static str>,
    /// How the action's own failed condition reads, as the write sent
    /// alone reads it.
    pub(super) failure: Option<FailureReader>,
}

/// One action as the request sends it, and what describes it.
pub(crate) type Prepared = (TransactWriteItem, Action);

/// What an action is to the transaction.
#[derive(Clone)]
pub(crate) enum Role {
    /// An action the caller added, of an entity without unique values.
    Plain,
    /// The write of an item of an entity with unique values, planned from
    /// the stored item `read` (`None` when there was none, or when it did
    /// not read).
    Guarded {
        read: Option<Item>,
        compare: Compare,
        schema: &'static EntitySchema,
    },
    /// The put or delete of a guard, for the item whose key reads `owner`.
    Guard { kind: GuardKind, owner: String },
    /// The record of an idempotency key.
    Record,
}

/// How a guarded write's own failed condition tells a read gone stale
/// (the transaction is then [`Error::ChangedSinceRead`]) from the caller's
/// condition failing.
#[derive(Clone, Copy)]
pub(crate) enum Compare {
    /// A create: it read nothing, its failure is the caller's.
    Nothing,
    /// A put or delete: conditioned on the unique values and time to live
    /// read.
    Guarded,
    /// An update: conditioned on the item as read (its version, its
    /// indexes' membership).
    Whole,
}

/// The plan as one action of a TransactWriteItems, and what describes it;
/// a put's item moves into the action.
pub(crate) fn action<E: Entity + 'static>(
    db: &Db,
    mut plan: WritePlan<E>,
) -> Result<(TransactWriteItem, Action)> {
    let failure = plan.failure_reader();
    let (item, size) = rendered(db, &mut plan)?;
    let mut action = Action::new::<E>(plan.key.into_values(), size);
    action.failure = Some(failure);
    Ok((item, action))
}

/// The plan as one action of a TransactWriteItems, and the size DynamoDB
/// counts for it; a put's item moves into the action.
pub(super) fn rendered<E: Entity + 'static>(
    db: &Db,
    plan: &mut WritePlan<E>,
) -> Result<(TransactWriteItem, usize)> {
    let size = plan.size();
    let item = plan.transact_item(db.table_name::<E::Table>())?;
    Ok((item, size))
}

impl Action {
    pub(super) fn new<E: Entity + 'static>(key: KeyValues, size: usize) -> Self {
        Self {
            entity: E::SCHEMA.entity_type,
            key,
            table: (E::SCHEMA.table, Db::table_name::<E::Table>),
            size,
            role: Role::Plain,
            guarded: Vec::new(),
            failure: None,
        }
    }

    /// The put of an idempotency key's record at `key`, in `table`.
    pub(super) fn record(
        table: &'static TableDef,
        name: fn(&Db) -> &str,
        entity: &'static str,
        key: KeyValues,
        size: usize,
    ) -> Self {
        Self {
            entity,
            key,
            table: (table, name),
            size,
            role: Role::Record,
            guarded: Vec::new(),
            failure: None,
        }
    }

    /// Whether the caller added the action (not a guard of another).
    pub(super) fn is_callers(&self) -> bool {
        matches!(self.role, Role::Plain | Role::Guarded { .. })
    }

    /// Whether this action is a guard of `action`'s unique values.
    pub(super) fn guards(&self, action: &Action) -> bool {
        let same_table = std::ptr::eq(self.table.0, action.table.0);
        matches!(&self.role, Role::Guard { owner, .. } if same_table && *owner == action.key.text())
    }
}

/// The table an action writes, as its request names it.
pub(super) fn table_of(item: &TransactWriteItem) -> &str {
    match (
        item.put(),
        item.update(),
        item.delete(),
        item.condition_check(),
    ) {
        (Some(put), ..) => put.table_name(),
        (_, Some(update), ..) => update.table_name(),
        (_, _, Some(delete), _) => delete.table_name(),
        (.., Some(check)) => check.table_name(),
        _ => "",
    }
}
