//! The caller's TransactWriteItems: writes of mixed entities applied
//! together, their unique values' guards kept, one typed outcome per
//! action, and under an idempotency key, applied once per request however
//! often a client retries it.

use std::time::Duration;

use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::keys::key::{Key, KeyValues};
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;
use crate::transport::dry_run::DryRun;
use crate::writes::create::Create;
use crate::writes::delete::Delete;
use crate::writes::idempotency::{self, Content, DEFAULT_KEEP};
use crate::writes::item::has_unique;
use crate::writes::plan::{Action as WriteAction, WritePlan};
use crate::writes::put::Put;
use crate::writes::transact::{action, guarded_actions, Compare, Made, RecordTarget, Transaction};
use crate::writes::unique::{guard_writes, GuardedPlan};
use crate::writes::update::Update;

/// A TransactWriteItems; add actions, then [`send`](TransactWrite::send).
///
/// The writes of an entity with unique values keep their guards: their
/// guard actions follow the caller's actions in the request (count them in
/// the 100), and a put, delete or guarded update reads its item first. A
/// canceled transaction is [`Error::TransactionCanceled`], with one entry
/// per action added: reach an action's failure by its key with
/// [`Error::action_failure`], in the words of the same write sent alone.
///
/// The ClientRequestToken is generated when the transaction is built and kept
/// for its lifetime: sending the same `TransactWrite` again (or another one
/// with [`client_request_token`](Self::client_request_token) set to
/// [`token`](Self::token)) within 10 minutes applies it at most once.
/// Across processes and restarts, an
/// [`idempotency_key`](Self::idempotency_key) does.
#[must_use = "a transaction does nothing until it is sent"]
#[derive(Clone)]
pub struct TransactWrite {
    tx: Transaction,
    /// What each action added asks and the key it names, in order.
    added: Vec<Added>,
    /// The table, its name under a handle, and the entity type of the
    /// write whose entity type sorts first: where an idempotency key's
    /// record goes.
    first: Option<RecordTarget>,
    /// Whether `first` is a write's (a condition check's otherwise).
    record_writes: bool,
    /// The idempotency key.
    idempotency: Option<String>,
    /// How long an idempotency key is remembered.
    keep: Duration,
}

/// One action the caller added.
#[derive(Clone)]
struct Added {
    entity: &'static str,
    key: KeyValues,
    content: Content,
}

impl Db {
    /// A new write transaction (TransactWriteItems); [`transact_get`](Self::transact_get)
    /// is its read counterpart.
    pub fn transact_write(&self) -> TransactWrite {
        TransactWrite {
            tx: Transaction::new(self),
            added: Vec::new(),
            first: None,
            record_writes: false,
            idempotency: None,
            keep: DEFAULT_KEEP,
        }
    }

    /// A new write transaction: renamed [`transact_write`](Self::transact_write).
    ///
    /// ```
    /// # fn f(db: &ddb_runtime::Db) {
    /// let transaction = db.transact_write();
    /// # let _ = transaction;
    /// # }
    /// ```
    #[deprecated(note = "renamed to `transact_write`, after TransactWriteItems")]
    pub fn transaction(&self) -> TransactWrite {
        self.transact_write()
    }
}

/// What a transaction applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transacted {
    token: String,
    replayed: bool,
    /// Each action added: its entity type and the key it named.
    added: Vec<(&'static str, KeyValues)>,
    /// The key each action wrote: the one it named, or, replayed, the one
    /// the first call's action wrote.
    written: Vec<KeyValues>,
}

impl Transacted {
    /// The ClientRequestToken the transaction was sent under.
    ///
    /// ```no_run
    /// # fn demo(done: ddb_runtime::Transacted) {
    /// println!("applied under {}", done.token());
    /// # }
    /// ```
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether the transaction's writes were found applied under its
    /// idempotency key, by an earlier call (or by an attempt of this one
    /// whose answer was lost), and this call wrote nothing more.
    ///
    /// ```no_run
    /// # fn demo(done: ddb_runtime::Transacted) {
    /// if done.replayed() {
    ///     // the client retried a request already applied: answer as the first time
    /// }
    /// # }
    /// ```
    pub fn replayed(&self) -> bool {
        self.replayed
    }

    /// The key the action added at `added` wrote: `added` itself, or, when
    /// [`replayed`](Self::replayed), the key the first call's action wrote
    /// (its sort key's timestamp, say). `None` when no action was added at
    /// `added`.
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity>(done: ddb_runtime::Transacted, purchase: ddb_runtime::Key<E>) {
    /// let stored = done.key(&purchase).expect("the purchase was one of the actions");
    /// # }
    /// ```
    pub fn key<E: Entity>(&self, added: &Key<E>) -> Option<Key<E>> {
        let entity = E::SCHEMA.entity_type;
        let at = self
            .added
            .iter()
            .position(|(e, key)| *e == entity && key == added.values())?;
        self.written.get(at).cloned().map(Key::from_values)
    }
}

impl TransactWrite {
    /// The ClientRequestToken this transaction sends.
    pub fn token(&self) -> &str {
        self.tx.token()
    }

    /// Sends `token` (1 to 36 characters) instead of the generated one, e.g.
    /// to retry a transaction built again after a crash. The writes of an
    /// entity with unique values read when the transaction is sent, so a
    /// rebuilt one may differ: DynamoDB then answers
    /// `IdempotentParameterMismatch`; an
    /// [`idempotency_key`](Self::idempotency_key) covers that case.
    pub fn client_request_token(mut self, token: impl Into<String>) -> Self {
        self.tx.pin_token(token.into());
        self
    }

    /// Applies the transaction at most once for `request` (a request id
    /// the client sends with every try of one operation: a purchase, a
    /// trade). The first call writes, in the same TransactWriteItems, a
    /// record of the request: a fingerprint of what its actions ask and the
    /// keys they write. A later call under the same key, from any process,
    /// after any crash, writes nothing and returns the first call's keys
    /// ([`Transacted::replayed`], [`Transacted::key`]), even when its parts
    /// a retry computes afresh differ (a sort key's timestamp, the stamps),
    /// and even when its writes read first. The same key with other content
    /// is [`Error::IdempotencyKeyReused`]. The record is kept for 24 hours
    /// unless [`keep_for`](Self::keep_for) says otherwise, in the table of
    /// the write whose entity type sorts first by name (whatever the order
    /// the actions were added in; a condition check only when nothing is
    /// written), keyed by that entity type and the request id; it is one more action (2 write units per KB).
    ///
    /// What a retry computes afresh is left out of the comparison: the
    /// stamps, the version ddb writes, and every field a sort key template
    /// reads (a purchase keyed on the time the server took it). A request
    /// id names one operation: reused for another whose actions differ
    /// only in such fields, it reports the first operation as replayed.
    /// Build a retried operation from the request, not from a fresh read:
    /// an expected version or a value computed from a read differs on a
    /// retry after the first call applied, and is `IdempotencyKeyReused`.
    ///
    /// The fingerprint of an entity with a `#[ddb(sensitive)]` field is
    /// keyed by the handle's [`with_guard_hash_key`](Db::with_guard_hash_key),
    /// which it then needs.
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Game", pk = "PK", sk = "SK")]
    /// # struct Game;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Game, entity = "Purchase", pk = "PLAYER#{player}", sk = "PURCHASE#{at}")]
    /// # struct Purchase { player: String, at: u64, item: String }
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Game, entity = "Player", pk = "PLAYER#{player}", sk = "PROFILE")]
    /// # struct Player { player: String, coins: i64 }
    /// # async fn demo(db: ddb_runtime::Db, request_id: &str, now: u64) -> ddb_runtime::Result<()> {
    /// use ddb_runtime::Entity;
    /// let purchase = Purchase { player: "ada".into(), at: now, item: "sword".into() };
    /// let coins = Player::fields().coins;
    /// let debit = db
    ///     .update(Player::key(&"ada".to_string())?)
    ///     .add(coins, -50)
    ///     .condition(coins.ge(50));
    /// let done = db
    ///     .transact_write()
    ///     .idempotency_key(request_id)
    ///     .create(&purchase)
    ///     .update(debit)
    ///     .send()
    ///     .await?;
    /// let bought = done.key(&purchase.primary_key()?); // the first call's, on a retry
    /// # Ok(()) }
    /// ```
    pub fn idempotency_key(mut self, request: impl Into<String>) -> Self {
        self.idempotency = Some(request.into());
        self
    }

    /// Remembers the idempotency key for `keep` (at least a second).
    pub fn keep_for(mut self, keep: Duration) -> Self {
        self.keep = keep.max(Duration::from_secs(1));
        self
    }

    /// Notes a write the caller added: what it asks and the key it names,
    /// or the failure of reading them.
    fn added<E: Entity + 'static>(&mut self, content: Result<(Content, KeyValues)>) {
        self.note::<E>(content, true);
    }

    /// Notes a condition check the caller added, as [`added`](Self::added)
    /// does a write: it holds the idempotency record only when nothing is
    /// written (a policy granting the entity only reads would refuse it).
    fn added_check<E: Entity + 'static>(&mut self, content: Result<(Content, KeyValues)>) {
        self.note::<E>(content, false);
    }

    fn note<E: Entity + 'static>(&mut self, content: Result<(Content, KeyValues)>, writes: bool) {
        let table = (
            E::SCHEMA.table,
            Db::table_name::<E::Table> as fn(&Db) -> &str,
        );
        // The record goes with the write whose entity type sorts first,
        // whatever the order the actions were added in: a retry that adds
        // them in another order meets the same record.
        let target = (table.0, table.1, E::SCHEMA.entity_type);
        let before = |first: RecordTarget| match (writes, self.record_writes) {
            (true, false) => true,
            (false, true) => false,
            _ => target.2 < first.2,
        };
        if self.first.is_none_or(before) {
            self.first = Some(target);
            self.record_writes = writes;
        }
        match content {
            Ok((content, key)) => self.added.push(Added {
                entity: E::SCHEMA.entity_type,
                key,
                content,
            }),
            Err(error) => self.tx.failed(error),
        }
    }

    /// Notes `create` as covered by the idempotency key, without adding it:
    /// the record of a create an earlier call without the key made.
    pub(crate) fn recording<E: Entity + 'static>(mut self, create: &Create<E>) -> Self {
        self.added::<E>(create.content());
        self
    }

    /// Creates `entity` only if no item has its key (an item past its
    /// `#[ddb(ttl)]` time counts as none, judged at the time the action is
    /// added). An entity with unique values adds the puts of their guards.
    pub fn create<E: Entity + 'static>(self, entity: &E) -> Self {
        let create = self.tx.db().create(entity);
        self.create_built(create)
    }

    /// A create built with [`Db::create`].
    pub(crate) fn create_built<E: Entity + 'static>(mut self, create: Create<E>) -> Self {
        self.added::<E>(create.content());
        if !has_unique::<E>() {
            self.tx.push_plan(create.into_plan());
            return self;
        }
        let create = std::sync::Arc::new(create);
        self.tx.push_later::<E>(move |db| {
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
        });
        self
    }

    /// A put built with [`Db::put`] (its version check and condition
    /// included). An entity with unique values is read first (a strongly
    /// consistent GetItem) and adds the guards of the values it changes.
    pub fn put<E: Entity + 'static>(mut self, put: Put<E>) -> Self {
        self.added::<E>(put.content());
        if !has_unique::<E>() {
            self.tx.push_plan(put.into_plan());
            return self;
        }
        let put = std::sync::Arc::new(put);
        self.tx.push_later::<E>(move |db| {
            let put = put.clone();
            Box::pin(
                async move { guarded_actions(&db, put.plan_guarded(&db).await?, Compare::Guarded) },
            )
        });
        self
    }

    /// An update built with [`Db::update`]. One that sets a unique value
    /// (or the time to live its guards carry) is planned from the item
    /// read first and adds the guards it moves.
    pub fn update<E: Entity + 'static>(mut self, update: Update<E>) -> Self {
        self.added::<E>(update.content());
        if update.moves_guards() {
            let update = std::sync::Arc::new(update);
            self.tx.push_later::<E>(move |db| {
                let update = update.clone();
                Box::pin(async move {
                    let planned = update.plan_moving_guards(&[]).await?;
                    guarded_actions(&db, planned, Compare::Whole)
                })
            });
            return self;
        }
        // An update that needs no read is planned now; one that reads
        // first, once it has read.
        match update.plan_unread() {
            Ok(Some(plan)) => self.tx.push_plan(Ok(plan)),
            Ok(None) => {
                let update = std::sync::Arc::new(update);
                self.tx.push_later::<E>(move |db| {
                    let update = update.clone();
                    Box::pin(async move { Ok(Made::alone(action(&db, update.plan().await?)?)) })
                });
            }
            Err(error) => self.tx.push_plan::<E>(Err(error)),
        }
        self
    }

    /// A delete built with [`Db::delete`] or [`Db::delete_entity`]. An
    /// entity with unique values is read first and adds the deletes of
    /// their guards.
    pub fn delete<E: Entity + 'static>(mut self, delete: Delete<E>) -> Self {
        self.added::<E>(delete.content());
        if !has_unique::<E>() {
            self.tx.push_plan(delete.plan());
            return self;
        }
        let delete = std::sync::Arc::new(delete);
        self.tx.push_later::<E>(move |db| {
            let delete = delete.clone();
            Box::pin(async move {
                guarded_actions(&db, delete.plan_guarded(&db).await?, Compare::Guarded)
            })
        });
        self
    }

    /// Cancels the transaction unless `condition` holds on the item at `key`
    /// (which must exist).
    pub fn condition_check<E: Entity + 'static>(
        mut self,
        key: Key<E>,
        condition: Condition<E>,
    ) -> Self {
        let content = Content::of::<E>("check")
            .key(key.values())
            .condition(Some(&condition));
        self.added_check::<E>(content.map(|content| (content, key.values().clone())));
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
        self.tx.push_plan(plan);
        self
    }

    /// Sends the TransactWriteItems. Checked first, with nothing sent on
    /// failure: at most 100 actions, no item named twice, items within 400 KB
    /// and the whole within 4 MB.
    ///
    /// A cancellation whose every reason is a conflict with another
    /// transaction or throttling applied nothing; it is sent again after a
    /// backoff (the batch [`RetryPolicy`](crate::batch::RetryPolicy)), under a
    /// fresh token unless the caller pinned one with
    /// [`client_request_token`](Self::client_request_token), in which case the
    /// error is returned for the caller to retry with that token.
    pub async fn send(self) -> Result<Transacted> {
        self.sent().await.map(|(done, _)| done)
    }

    /// [`send`](Self::send), with the capacity DynamoDB reported, summed
    /// over the tables and indexes the actions touched (none when
    /// replayed).
    pub async fn send_with_capacity(mut self) -> Result<(Transacted, Capacity)> {
        self.tx.ask_capacity();
        self.sent().await
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
        let db = self.tx.db().clone();
        db.dry_run(self.clone().sent(), self.tx.sensitive(), true)
    }

    /// Sends it; under an idempotency key, with its record, and a failure
    /// after which the record is there is the first call's outcome.
    async fn sent(self) -> Result<(Transacted, Capacity)> {
        let TransactWrite {
            mut tx,
            added,
            first,
            idempotency,
            keep,
            ..
        } = self;
        let db = tx.db().clone();
        let written: Vec<KeyValues> = added.iter().map(|a| a.key.clone()).collect();
        let mut done = Transacted {
            token: tx.token().to_owned(),
            replayed: false,
            added: added.iter().map(|a| (a.entity, a.key.clone())).collect(),
            written: written.clone(),
        };
        let (Some(request), Some(first)) = (idempotency, first) else {
            let (token, capacity) = tx.send_read(&Attempts::default()).await?;
            return Ok((Transacted { token, ..done }, capacity));
        };
        let contents: Vec<Content> = added.into_iter().map(|a| a.content).collect();
        let fingerprint = idempotency::fingerprint(&db, first.2, &contents)?;
        let record = idempotency::record(
            (first.0, first.2),
            &request,
            fingerprint.clone(),
            &written,
            keep,
        )?;
        let record_key = record.key.clone();
        tx.push_record(first, record);
        let error = match tx.send_read(&Attempts::default()).await {
            Ok((token, capacity)) => return Ok((Transacted { token, ..done }, capacity)),
            Err(error) if error.is_invalid_input() => return Err(error),
            Err(error) => error,
        };
        // Whatever failed, a record of the request means an earlier call
        // (or a lost attempt of this one) applied it.
        let at = (first.0, first.1(&db), first.2);
        // A record unreadable now tells nothing: the transaction's own
        // failure stands.
        let Ok(earlier) = idempotency::earlier(&db, at, &record_key).await else {
            return Err(error);
        };
        match earlier {
            Some(earlier) if earlier.fingerprint == fingerprint => {
                done.replayed = true;
                done.written = earlier.written;
                Ok((done, Capacity::default()))
            }
            Some(_) => Err(Error::IdempotencyKeyReused { entity: first.2 }),
            None => Err(record_only(error, first.2, &record_key)),
        }
    }
}

/// A cancellation in which none of the caller's actions failed: only the
/// record did, held by a concurrent try under the same key that had not
/// finished when the record was read. Sending it again is safe; it is a
/// conflict on the record, not an unexplained cancellation.
fn record_only(error: Error, entity: &'static str, record: &KeyValues) -> Error {
    match &error {
        Error::TransactionCanceled { reasons } if reasons.iter().all(|r| r.code == "None") => {
            Error::TransactionConflict {
                entity,
                key: crate::keys::guard::shown_key(record.text()),
            }
        }
        _ => error,
    }
}
