//! Transactions: TransactWriteItems over mixed entities with a pinned
//! ClientRequestToken, and TransactGetItems.

use aws_sdk_dynamodb::types::TransactWriteItem;
use futures::future::BoxFuture;
use futures::FutureExt;

use crate::db::Db;
use crate::declaration::model::TableDef;
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::size::ITEM_SIZE_LIMIT;
use crate::keys::guard::shown_key;
use crate::keys::key::{Key, KeyValues};
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;
use crate::transport::dry_run::{sensitive_attributes, DryRun};
use crate::writes::delete::Delete;
use crate::writes::item::has_unique;
use crate::writes::plan::{Action as WriteAction, FailureReader, WritePlan};
use crate::writes::put::Put;
use crate::writes::unique::{guard_writes, GuardedPlan};
use crate::writes::update::Update;

/// DynamoDB's limit on actions in one transaction.
pub const MAX_ACTIONS: usize = 100;
/// DynamoDB's limit on a transaction's total size.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

mod guards;
mod outcome;
mod send;
mod token;

use guards::{guard_actions, guarded_actions, Compare, Made, Role};
use outcome::caller_failures;
use send::{items_met, Sending};
use token::request_token;

/// What to say about one prepared action.
#[derive(Clone)]
struct Action {
    entity: &'static str,
    key: KeyValues,
    /// The table the action writes: its key attributes, and its name
    /// under the handle that sends it.
    table: (&'static TableDef, fn(&Db) -> &str),
    size: usize,
    /// What the action is to the transaction.
    role: Role,
    /// For the write of an entity with unique values and its guards, the
    /// attributes the guards depend on.
    guarded: Vec<&'static str>,
    /// How the action's own failed condition reads, as the write sent
    /// alone reads it.
    failure: Option<FailureReader>,
}

/// One action as the request sends it, and what describes it.
type Prepared = (TransactWriteItem, Action);

/// A write that reads first (an update, or a write of an entity with
/// unique values): the actions it makes once it has read, its own first.
/// Made again for each send (or dry run) of the transaction.
type Later = std::sync::Arc<dyn Fn(Db) -> BoxFuture<'static, Result<Made>> + Send + Sync>;

/// A TransactWriteItems; add actions, then [`send`](TransactWrite::send).
///
/// The writes of an entity with unique values keep their guards: their
/// guard actions follow the caller's actions in the request (count them in
/// the 100), and a put, delete or guarded update reads its item first. A
/// value another item holds is [`Error::UniqueViolation`]; values changed
/// between that read and the send are [`Error::ChangedSinceRead`].
///
/// The ClientRequestToken is generated when the transaction is built and kept
/// for its lifetime: sending the same `TransactWrite` again (or another one
/// with [`client_request_token`](Self::client_request_token) set to
/// [`token`](Self::token)) within 10 minutes applies it at most once.
#[must_use = "a transaction does nothing until it is sent"]
pub struct TransactWrite {
    db: Db,
    /// The actions to send, in the order added; an update that reads first
    /// holds its place with an empty one until it has read.
    items: Vec<TransactWriteItem>,
    /// What to say about each action, at the same positions.
    actions: Vec<Action>,
    /// The updates that read first, and the positions their actions take.
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

impl Clone for TransactWrite {
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

impl Db {
    /// A new write transaction (TransactWriteItems); [`transact_get`](Self::transact_get)
    /// is its read counterpart.
    pub fn transact_write(&self) -> TransactWrite {
        TransactWrite {
            db: self.clone(),
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
}

pub(crate) fn invalid(entity: &'static str, reason: String) -> Error {
    Error::InvalidRequest { entity, reason }
}

impl TransactWrite {
    /// The ClientRequestToken this transaction sends.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Sends `token` (1 to 36 characters) instead of the generated one, e.g.
    /// to retry a transaction built again after a crash. The writes of an
    /// entity with unique values read when the transaction is sent, so a
    /// rebuilt one may differ: DynamoDB then answers
    /// `IdempotentParameterMismatch`.
    pub fn client_request_token(mut self, token: impl Into<String>) -> Self {
        let token = token.into();
        if token.is_empty() || token.len() > 36 {
            self.failed(invalid(
                "transaction",
                "a ClientRequestToken has 1 to 36 characters".into(),
            ));
        }
        self.token = token;
        self.pinned = true;
        self
    }

    /// Keeps `error` to return at send, unless an earlier one is kept.
    fn failed(&mut self, error: Error) {
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
        let action = rendered(&self.db, plan).map(|(item, size)| {
            let mut action = Action::new::<E>(plan.key.values().clone(), size);
            action.failure = Some(failure);
            (item, action)
        });
        self.push(action);
        self
    }

    /// Creates `entity` only if no item has its key (an item past its
    /// `#[ddb(ttl)]` time counts as none, judged at the time the action is
    /// added). An entity with unique values adds the puts of their guards.
    pub fn create<E: Entity + 'static>(self, entity: &E) -> Self {
        let create = self.db.create(entity);
        if !has_unique::<E>() {
            return self.push_plan(create.plan());
        }
        let create = std::sync::Arc::new(create);
        self.push_later::<E>(move |db| {
            let create = create.clone();
            Box::pin(async move {
                let plan = create.plan()?;
                let item = match &plan.action {
                    WriteAction::Put(item) => Some(item.clone()),
                    _ => None,
                };
                let guards = guard_writes::<E>(&db, plan.key.values(), None, item.as_ref())?;
                let read = None;
                let planned = GuardedPlan { plan, guards, read };
                guarded_actions(&db, planned, Compare::Nothing)
            })
        })
    }

    /// A put built with [`Db::put`] (its version check and condition
    /// included). An entity with unique values is read first (a strongly
    /// consistent GetItem) and adds the guards of the values it changes.
    pub fn put<E: Entity + 'static>(self, put: Put<E>) -> Self {
        if !has_unique::<E>() {
            return self.push_plan(put.plan());
        }
        let put = std::sync::Arc::new(put);
        self.push_later::<E>(move |db| {
            let put = put.clone();
            Box::pin(
                async move { guarded_actions(&db, put.plan_guarded(&db).await?, Compare::Guarded) },
            )
        })
    }

    /// An update built with [`Db::update`]. One that sets a unique value
    /// (or the time to live its guards carry) is planned from the item
    /// read first and adds the guards it moves.
    pub fn update<E: Entity + 'static>(self, update: Update<E>) -> Self {
        if update.moves_guards() {
            let update = std::sync::Arc::new(update);
            return self.push_later::<E>(move |db| {
                let update = update.clone();
                Box::pin(async move {
                    let planned = update.plan_moving_guards(&[]).await?;
                    guarded_actions(&db, planned, Compare::Whole)
                })
            });
        }
        // An update that needs no read is planned now; one that reads
        // first, once it has read.
        match update.plan_unread() {
            Ok(Some(plan)) => return self.push_plan(Ok(plan)),
            Ok(None) => {}
            Err(error) => return self.push_plan::<E>(Err(error)),
        }
        let update = std::sync::Arc::new(update);
        self.push_later::<E>(move |db| {
            let update = update.clone();
            Box::pin(async move {
                let own = action(&db, update.plan().await?)?;
                let guards = Vec::new();
                Ok(Made { own, guards })
            })
        })
    }

    /// A delete built with [`Db::delete`] or [`Db::delete_entity`]. An
    /// entity with unique values is read first and adds the deletes of
    /// their guards.
    pub fn delete<E: Entity + 'static>(self, delete: Delete<E>) -> Self {
        if !has_unique::<E>() {
            return self.push_plan(delete.plan());
        }
        let delete = std::sync::Arc::new(delete);
        self.push_later::<E>(move |db| {
            let delete = delete.clone();
            Box::pin(async move {
                guarded_actions(&db, delete.plan_guarded(&db).await?, Compare::Guarded)
            })
        })
    }

    /// Holds a place for the actions `later` makes once it has read.
    fn push_later<E: Entity + 'static>(
        mut self,
        later: impl Fn(Db) -> BoxFuture<'static, Result<Made>> + Send + Sync + 'static,
    ) -> Self {
        self.writes::<E>();
        self.later
            .push((self.items.len(), std::sync::Arc::new(later)));
        self.items.push(TransactWriteItem::builder().build());
        self.actions.push(Action::new::<E>(
            KeyValues {
                pk: crate::keys::key::KeyValue::S(String::new()),
                sk: None,
            },
            0,
        ));
        self
    }

    /// Cancels the transaction unless `condition` holds on the item at `key`
    /// (which must exist).
    pub fn condition_check<E: Entity + 'static>(
        self,
        key: Key<E>,
        condition: Condition<E>,
    ) -> Self {
        let exists = Condition::<E>::attribute_exists(<E::Table as Table>::DEF.pk.name);
        let plan = WritePlan::new(
            key,
            WriteAction::ConditionCheck,
            Some(&(exists & condition)),
            Placeholders::default(),
        )
        .map(|mut plan| {
            plan.must_exist = true;
            plan
        });
        self.push_plan(plan)
    }

    /// `plan`, made when the action was added, as an action (or the error
    /// of making it, returned at send).
    fn push_plan<E: Entity + 'static>(mut self, plan: Result<WritePlan<E>>) -> Self {
        self.writes::<E>();
        let action = plan.and_then(|plan| action(&self.db, plan));
        self.push(action);
        self
    }

    /// Sends the TransactWriteItems and returns the ClientRequestToken that
    /// was applied. Checked first, with nothing sent on failure: at most 100
    /// actions, no item named twice, items within 400 KB and the whole within
    /// 4 MB.
    ///
    /// A cancellation whose every reason is a conflict with another
    /// transaction or throttling applied nothing; it is sent again after a
    /// backoff (the batch [`RetryPolicy`](crate::batch::RetryPolicy)), under a
    /// fresh token unless the caller pinned one with
    /// [`client_request_token`](Self::client_request_token), in which case the
    /// error is returned for the caller to retry with that token.
    pub async fn send(self) -> Result<String> {
        let sent = self.send_read(&Attempts::default()).await;
        sent.map(|(token, _)| token)
    }

    /// The TransactWriteItems [`send`](Self::send) would send, not sent,
    /// checked as `send` checks it (bad input is the same error). When an
    /// action reads first (an update that recomputes an index key from
    /// attributes it does not set, a put, delete or update of an entity
    /// with unique values), the transaction cannot be known before those
    /// reads: the dry run is then the GetItems they send first, and
    /// [`DryRun::reads_first`] says so. The ClientRequestToken shown is this
    /// transaction's ([`token`](Self::token)); one built again generates its
    /// own unless given this one with
    /// [`client_request_token`](Self::client_request_token).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, a: E, b: E) -> ddb_runtime::Result<()> {
    /// let dry = db.transact_write().create(&a).put(db.put(&b)).dry_run()?;
    /// println!("{dry}"); // TransactWriteItems: Put ..., Put ..., ClientRequestToken
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<DryRun> {
        let attempts = Attempts::default();
        let send = self.clone().send_read(&attempts);
        self.db.dry_run(send, self.sensitive.clone(), true)
    }

    /// [`send`](Self::send), with the capacity DynamoDB reported, summed
    /// over the tables and indexes the actions touched.
    pub async fn send_with_capacity(mut self) -> Result<(String, Capacity)> {
        self.capacity_asked = true;
        self.send_read(&Attempts::default()).await
    }

    /// Sends it, its failure read as one entry per action the caller added
    /// (see [`Error::TransactionCanceled`]).
    async fn send_read(self, attempts: &Attempts) -> Result<(String, Capacity)> {
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
        // At most 100 actions: a search of those before is cheaper than
        // hashing each key.
        let table = table_of(item);
        let before = actions[..i].iter().zip(items);
        if before
            .into_iter()
            .any(|(a, other)| a.key == action.key && table_of(other) == table)
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

/// The plan as one action of a TransactWriteItems, and what describes it;
/// a put's item moves into the action.
fn action<E: Entity + 'static>(
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
fn rendered<E: Entity + 'static>(
    db: &Db,
    plan: &mut WritePlan<E>,
) -> Result<(TransactWriteItem, usize)> {
    let size = plan.size();
    let item = plan.transact_item(db.table_name::<E::Table>())?;
    Ok((item, size))
}

impl Action {
    fn new<E: Entity + 'static>(key: KeyValues, size: usize) -> Self {
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

    /// Whether the caller added the action (not a guard of another).
    fn is_callers(&self) -> bool {
        matches!(self.role, Role::Plain | Role::Guarded { .. })
    }

    /// Whether this action is a guard of `action`'s unique values.
    fn guards(&self, action: &Action) -> bool {
        let same_table = std::ptr::eq(self.table.0, action.table.0);
        matches!(&self.role, Role::Guard { owner, .. } if same_table && *owner == action.key.text())
    }
}

/// The table an action writes, as its request names it.
fn table_of(item: &TransactWriteItem) -> &str {
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
