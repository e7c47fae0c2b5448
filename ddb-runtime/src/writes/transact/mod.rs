//! One TransactWriteItems of planned writes, as ddb sends it: the actions
//! in order (the guards of unique values after the caller's), checked
//! before sending, sent again after a conflict, and a cancellation read as
//! one entry per action the caller added. Single writes that need a
//! transaction (exactly once, with guards) and the public `TransactWrite`
//! both build one.

use aws_sdk_dynamodb::types::TransactWriteItem;
use futures::future::BoxFuture;
use futures::FutureExt;

use crate::db::Db;
use crate::declaration::model::TableDef;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::Placeholders;
use crate::item::size::{item_size, ITEM_SIZE_LIMIT};
use crate::keys::guard::shown_key;
use crate::keys::key::{KeyValue, KeyValues};
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;
use crate::transport::dry_run::sensitive_attributes;
use crate::writes::idempotency::Record;
use crate::writes::plan::WritePlan;

/// DynamoDB's limit on actions in one transaction.
pub const MAX_ACTIONS: usize = 100;
/// DynamoDB's limit on a transaction's total size.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

mod action;
mod guards;
mod outcome;
mod send;
mod token;

use action::Action;
pub(crate) use action::{action, Compare};
use guards::guard_actions;
pub(crate) use guards::{guarded_actions, Made};
use outcome::caller_failures;
use send::{items_met, Sending};
use token::request_token;

/// A write that reads first (an update, or a write of an entity with
/// unique values): the actions it makes once it has read, its own first.
/// Made again for each send (or dry run) of the transaction.
type Later = std::sync::Arc<dyn Fn(Db) -> BoxFuture<'static, Result<Made>> + Send + Sync>;

/// Where an idempotency key's record goes: the table, its name under a
/// handle, and the entity type of the first write the record covers.
pub(crate) type RecordTarget = (&'static TableDef, fn(&Db) -> &str, &'static str);

/// One TransactWriteItems of planned writes (see [the module](self)).
pub(crate) struct Transaction {
    db: Db,
    /// The actions to send, in the order added; a write that reads first
    /// holds its place with an empty one until it has read.
    items: Vec<TransactWriteItem>,
    /// What describes each action, at the same positions.
    actions: Vec<Action>,
    /// The writes that read first, and the positions their actions take.
    later: Vec<(usize, Later)>,
    token: String,
    pinned: bool,
    /// The caller reads the capacity the transaction consumed.
    capacity_asked: bool,
    /// The first failure of building the transaction, returned at send.
    error: Option<Error>,
    /// The attributes of the `#[ddb(sensitive)]` fields of the entities
    /// the actions write, for a dry run's reading.
    sensitive: Vec<&'static str>,
}

impl Clone for Transaction {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            items: self.items.clone(),
            actions: self.actions.clone(),
            later: self.later.clone(),
            token: self.token.clone(),
            pinned: self.pinned,
            capacity_asked: self.capacity_asked,
            error: self.error.as_ref().map(Error::clone_input),
            sensitive: self.sensitive.clone(),
        }
    }
}

pub(crate) fn invalid(entity: &'static str, reason: String) -> Error {
    Error::InvalidRequest { entity, reason }
}

impl Transaction {
    /// An empty transaction on `db`, under a fresh ClientRequestToken.
    pub(crate) fn new(db: &Db) -> Self {
        Self {
            db: db.clone(),
            items: Vec::new(),
            actions: Vec::new(),
            later: Vec::new(),
            token: request_token(),
            pinned: false,
            capacity_asked: false,
            error: None,
            sensitive: Vec::new(),
        }
    }

    /// The handle it is sent through.
    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    /// The ClientRequestToken it sends.
    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// The attributes of the sensitive fields of the entities it writes.
    pub(crate) fn sensitive(&self) -> Vec<&'static str> {
        self.sensitive.clone()
    }

    /// Sends `token` (1 to 36 characters) instead of the generated one; a
    /// cancellation is then not sent again under a fresh token.
    pub(crate) fn pin_token(&mut self, token: String) {
        if token.is_empty() || token.len() > 36 {
            self.failed(invalid(
                "transaction",
                "a ClientRequestToken has 1 to 36 characters".into(),
            ));
        }
        self.token = token;
        self.pinned = true;
    }

    /// Asks DynamoDB for the capacity it consumes.
    pub(crate) fn ask_capacity(&mut self) {
        self.capacity_asked = true;
    }

    /// Keeps `error` to return at send, unless an earlier one is kept.
    pub(crate) fn failed(&mut self, error: Error) {
        self.error.get_or_insert(error);
    }

    /// Notes the sensitive attributes of `E`, which a dry run redacts.
    fn writes<E: Entity>(&mut self) {
        for attribute in sensitive_attributes(&E::SCHEMA) {
            if !self.sensitive.contains(&attribute) {
                self.sensitive.push(attribute);
            }
        }
    }

    /// Adds an action and what describes it, at the same position; or
    /// keeps the failure of making it, returned at send.
    fn push(&mut self, action: Result<(TransactWriteItem, Action)>) {
        match action {
            Ok((item, action)) => {
                self.items.push(item);
                self.actions.push(action);
            }
            Err(error) => self.failed(error),
        }
    }

    /// A write already planned (an exactly-once write sends itself this
    /// way); a put's item moves into the transaction, the plan keeps its key.
    pub(crate) fn plan<E: Entity + 'static>(mut self, plan: &mut WritePlan<E>) -> Self {
        self.writes::<E>();
        self.capacity_asked |= plan.capacity_asked;
        let failure = plan.failure_reader();
        let action = action::rendered(&self.db, plan).map(|(item, size)| {
            let mut action = Action::new::<E>(plan.key.values().clone(), size);
            action.failure = Some(failure);
            (item, action)
        });
        self.push(action);
        self
    }

    /// `plan`, made when the write was added, as an action (or the error of
    /// making it, returned at send).
    pub(crate) fn push_plan<E: Entity + 'static>(&mut self, plan: Result<WritePlan<E>>) {
        self.writes::<E>();
        let action = plan.and_then(|plan| action(&self.db, plan));
        self.push(action);
    }

    /// Holds a place for the actions `later` makes once it has read.
    pub(crate) fn push_later<E: Entity + 'static>(
        &mut self,
        later: impl Fn(Db) -> BoxFuture<'static, Result<Made>> + Send + Sync + 'static,
    ) {
        self.writes::<E>();
        self.later
            .push((self.items.len(), std::sync::Arc::new(later)));
        self.items.push(TransactWriteItem::builder().build());
        let nothing = KeyValue::S(String::new());
        let key = KeyValues {
            pk: nothing,
            sk: None,
        };
        self.actions.push(Action::new::<E>(key, 0));
    }

    /// Adds the put of an idempotency key's `record`, in the table
    /// `table`'s handle names `name`, for writes whose first is of
    /// `entity`.
    pub(crate) fn push_record(&mut self, (table, name, entity): RecordTarget, record: Record) {
        let Record { key, item, free } = record;
        let size = item_size(&item);
        let mut placeholders = Placeholders::default();
        let rendered = free.render(&mut placeholders);
        let (names, values) = placeholders.into_maps();
        let put = rendered
            .map_err(|reason| invalid(entity, reason))
            .and_then(|condition| {
                let put = aws_sdk_dynamodb::types::Put::builder()
                    .table_name(name(&self.db))
                    .set_item(Some(item))
                    .condition_expression(condition)
                    .set_expression_attribute_names(names)
                    .set_expression_attribute_values(values)
                    .build()
                    .map_err(|e| invalid(entity, e.to_string()))?;
                Ok(TransactWriteItem::builder().put(put).build())
            });
        let action = put.map(|item| (item, Action::record(table, name, entity, key, size)));
        self.push(action);
    }

    /// Sends it, its failure read as one entry per action the caller added
    /// (see [`Error::TransactionCanceled`]).
    pub(crate) async fn send_read(self, attempts: &Attempts) -> Result<(String, Capacity)> {
        let (sent, actions) = self.send_actions(attempts).await;
        sent.map_err(|error| caller_failures(&actions, error))
    }

    /// Sends it, every attempt of every send (the SDK's retries included)
    /// recorded into `attempts`; a cancellation has one reason per action
    /// sent, guards included, in the order sent.
    pub(crate) async fn send_recorded(self, attempts: &Attempts) -> Result<(String, Capacity)> {
        self.send_actions(attempts).await.0
    }

    /// [`send_recorded`](Self::send_recorded), with the actions sent (none
    /// when it failed before sending). While it may be sent again (after a
    /// conflict, or an unsettled attempt under the same token), a copy of
    /// its actions is kept to send.
    async fn send_actions(self, attempts: &Attempts) -> (Result<(String, Capacity)>, Vec<Action>) {
        if let Some(error) = self.error {
            return (Err(error), Vec::new());
        }
        let (mut items, mut actions) = (self.items, self.actions);
        let checked = async {
            check_action_count(items.len())?;
            // The writes that read first read at the same time.
            read_later(&self.db, &self.later, &mut items, &mut actions).await?;
            check_action_count(items.len())?;
            check_actions(&actions, &items)
        };
        if let Err(error) = checked.await {
            return (Err(error), Vec::new());
        }
        let transaction = Sending {
            db: &self.db,
            actions: &actions,
            pinned: self.pinned,
            capacity_asked: self.capacity_asked,
        };
        let sent = match transaction.send(self.token, items, attempts).await {
            Ok(sent) => Ok(sent),
            Err(error) => Err(items_met(&self.db, &actions, error).await),
        };
        (sent, actions)
    }
}

/// Refuses a transaction of no action or more than [`MAX_ACTIONS`].
fn check_action_count(count: usize) -> Result<()> {
    if count == 0 {
        return Err(invalid(
            "transaction",
            "a transaction needs at least one action".into(),
        ));
    }
    if count > MAX_ACTIONS {
        return Err(invalid(
            "transaction",
            format!("{count} actions; a transaction holds at most {MAX_ACTIONS}"),
        ));
    }
    Ok(())
}

/// Reads the writes that read first, concurrently, and puts each one's own
/// action at the place it holds, and the actions of its guards after every
/// action the caller added.
async fn read_later(
    db: &Db,
    later: &[(usize, Later)],
    items: &mut Vec<TransactWriteItem>,
    actions: &mut Vec<Action>,
) -> Result<()> {
    if later.is_empty() {
        return Ok(());
    }
    let read = later
        .iter()
        .map(|(at, made)| made(db.clone()).map(|made| made.map(|made| (*at, made))));
    let mut guards = Vec::new();
    for (at, made) in futures::future::try_join_all(read).await? {
        (items[at], actions[at]) = made.own;
        guards.extend(made.guards);
    }
    for (item, action) in guard_actions(guards)? {
        items.push(item);
        actions.push(action);
    }
    Ok(())
}

/// Refuses, before sending, an item named twice, an item over 400 KB, or a
/// transaction over [`MAX_TRANSACTION_BYTES`].
fn check_actions(actions: &[Action], items: &[TransactWriteItem]) -> Result<()> {
    let mut total = 0;
    for (i, (action, item)) in actions.iter().zip(items).enumerate() {
        if let Some(reason) = action.table.0.transactions_refused() {
            return Err(invalid(action.entity, reason));
        }
        // At most 100 actions: a search of those before is cheaper than
        // hashing each key.
        let table = action::table_of(item);
        let before = actions[..i].iter().zip(items);
        if before
            .into_iter()
            .any(|(a, other)| a.key == action.key && action::table_of(other) == table)
        {
            return Err(Error::DuplicateKey {
                entity: action.entity,
                key: shown_key(action.key.text()),
                operation: "transaction",
            });
        }
        if action.size > ITEM_SIZE_LIMIT {
            return Err(Error::ItemTooLarge {
                entity: action.entity,
                key: shown_key(action.key.text()),
                size: action.size,
                limit: ITEM_SIZE_LIMIT,
            });
        }
        total += action.size;
    }
    if total > MAX_TRANSACTION_BYTES {
        return Err(invalid(
            "transaction",
            format!("{total} bytes; a transaction holds at most {MAX_TRANSACTION_BYTES}"),
        ));
    }
    Ok(())
}
