//! Transactions: TransactWriteItems over mixed entities with a pinned
//! ClientRequestToken, and TransactGetItems.

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, TransactWriteItem};
use futures::future::BoxFuture;

use tracing::{Instrument, Span};

use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{ActionFailure, Error, ExistingItem, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::size::ITEM_SIZE_LIMIT;
use crate::keys::guard::shown_key;
use crate::keys::key::{Key, KeyValues};
use crate::telemetry;
use crate::telemetry::Capacity;
use crate::transport::attempts::Attempts;
use crate::transport::sent::transact_items as sent_transact_items;
use crate::writes::delete::Delete;
use crate::writes::plan::{Action as WriteAction, WritePlan};
use crate::writes::put::Put;
use crate::writes::update::Update;

/// DynamoDB's limit on actions in one transaction.
pub const MAX_ACTIONS: usize = 100;
/// DynamoDB's limit on a transaction's total size.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

/// What to say about one prepared action.
struct Action {
    entity: &'static str,
    key: KeyValues,
    size: usize,
}

/// An update that may read first: the action it makes once it has read.
type Later = BoxFuture<'static, Result<(TransactWriteItem, Action)>>;

/// A TransactWriteItems; add actions, then [`send`](TransactWrite::send).
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
    /// The first failure of building the transaction, returned at send.
    error: Option<Error>,
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
            error: None,
        }
    }
}

/// A fresh ClientRequestToken: 32 hex digits, unique across calls and
/// processes. The first 16 hash the time and the process id under std's
/// randomly keyed SipHash (keys from the OS, drawn once per process): a
/// forked process or a restored snapshot, which share those keys, still
/// differ. The last 16 are a process-wide counter through a bijection keyed
/// the same way (an odd multiplier, then a mask): no two calls of a process
/// share a token. No random-number crate is needed.
fn request_token() -> String {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static PROCESS: std::sync::OnceLock<(std::collections::hash_map::RandomState, u64, u64)> =
        std::sync::OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (keys, multiplier, mask) = PROCESS.get_or_init(|| {
        let keys = std::collections::hash_map::RandomState::new();
        let (multiplier, mask) = (keys.hash_one(1u8) | 1, keys.hash_one(2u8));
        (keys, multiplier, mask)
    });
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let first = keys.hash_one((nanos, std::process::id()));
    let mut token = String::with_capacity(32);
    for half in [first, count.wrapping_mul(*multiplier) ^ mask] {
        for digit in (0..16).rev().map(|at| (half >> (4 * at)) & 0xf) {
            token.push(char::from_digit(digit as u32, 16).unwrap_or('0'));
        }
    }
    token
}

/// A transaction does not keep the guards of unique values: an entity that
/// has them is refused (before anything is sent) rather than written
/// without its guards.
fn keeps_no_guards<E: Entity>() -> Result<()> {
    if E::SCHEMA.unique.is_empty() {
        return Ok(());
    }
    Err(invalid(
        E::SCHEMA.entity_type,
        "the entity keeps unique values, whose guards a transaction does not write; \
         write it with Db::create, put or delete, which keep them"
            .into(),
    ))
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
    /// to retry a transaction built again after a crash.
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
        let action = rendered(&self.db, plan)
            .map(|(item, size)| (item, Action::new::<E>(plan.key.values().clone(), size)));
        self.push(action);
        self
    }

    /// Creates `entity` only if no item has its key (an item past its
    /// `#[ddb(ttl)]` time counts as none, judged at the time the action is
    /// added).
    pub fn create<E: Entity + 'static>(self, entity: &E) -> Self {
        let plan = keeps_no_guards::<E>().and_then(|()| self.db.create(entity).plan());
        self.push_plan(plan)
    }

    /// A put built with [`Db::put`] (its version check and condition included).
    pub fn put<E: Entity + 'static>(self, put: Put<E>) -> Self {
        let plan = keeps_no_guards::<E>().and_then(|()| put.plan());
        self.push_plan(plan)
    }

    /// An update built with [`Db::update`].
    pub fn update<E: Entity + 'static>(mut self, update: Update<E>) -> Self {
        if let Err(error) = keeps_no_guards::<E>() {
            self.failed(error);
            return self;
        }
        let db = self.db.clone();
        let read = Box::pin(async move { action(&db, update.plan().await?) });
        // A place the update's action takes once it has read.
        self.later.push((self.items.len(), read));
        self.items.push(TransactWriteItem::builder().build());
        self.actions.push(Action {
            entity: E::SCHEMA.entity_type,
            key: KeyValues {
                pk: crate::keys::key::KeyValue::S(String::new()),
                sk: None,
            },
            size: 0,
        });
        self
    }

    /// A delete built with [`Db::delete`] or [`Db::delete_entity`].
    pub fn delete<E: Entity + 'static>(self, delete: Delete<E>) -> Self {
        let plan = keeps_no_guards::<E>().and_then(|()| delete.plan());
        self.push_plan(plan)
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
        self.send_with_capacity().await.map(|(token, _)| token)
    }

    /// [`send`](Self::send), with the capacity DynamoDB reported, summed
    /// over the tables and indexes the actions touched.
    pub async fn send_with_capacity(self) -> Result<(String, Capacity)> {
        self.send_recorded(&Attempts::keeping_sent()).await
    }

    /// [`send_with_capacity`](Self::send_with_capacity), every attempt of
    /// every send (the SDK's retries included) recorded into `attempts`.
    /// Sent again (after a conflict, or an unsettled attempt under the same
    /// token), the actions are read back from the body `attempts` kept
    /// ([`Attempts::keeping_sent`]), or, when the caller's client has
    /// interceptors of its own ([`Sdk::intercepted`](crate::sdk::Sdk::intercepted)),
    /// from a copy taken before sending. Without either, the failure is
    /// returned.
    pub(crate) async fn send_recorded(self, attempts: &Attempts) -> Result<(String, Capacity)> {
        if let Some(error) = self.error {
            return Err(error);
        }
        check_action_count(self.items.len())?;
        let (mut items, mut actions) = (self.items, self.actions);
        // The updates that read first read at the same time.
        read_updates(self.later, &mut items, &mut actions).await?;
        check_actions(&actions, &items)?;
        let transaction = Sending {
            db: &self.db,
            actions: &actions,
            pinned: self.pinned,
        };
        transaction.send(self.token, items, attempts).await
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

/// Reads the updates that read first, concurrently, and puts each one's
/// action at the place it holds.
async fn read_updates(
    later: Vec<(usize, Later)>,
    items: &mut [TransactWriteItem],
    actions: &mut [Action],
) -> Result<()> {
    if !later.is_empty() {
        let read = later
            .into_iter()
            .map(|(at, action)| async move { action.await.map(|action| (at, action)) });
        for (at, (item, action)) in futures::future::try_join_all(read).await? {
            items[at] = item;
            actions[at] = action;
        }
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

/// A checked transaction being sent: where, what its actions are, and
/// whether the caller pinned its token.
struct Sending<'a> {
    db: &'a Db,
    actions: &'a [Action],
    pinned: bool,
}

impl Sending<'_> {
    /// Sends `items` under `token`, and again after a conflict or an
    /// unsettled attempt while the retry policy allows; returns the token
    /// applied, or the final failure.
    async fn send(
        &self,
        mut token: String,
        items: Vec<TransactWriteItem>,
        attempts: &Attempts,
    ) -> Result<(String, Capacity)> {
        let policy = self.db.retry_policy();
        let mut attempt = 0;
        let mut items = Some(items);
        let intercepted = self.db.sdk().intercepted();
        let span = self.span(items.iter().flatten());
        loop {
            attempt += 1;
            // Read back from what was sent, unless the caller's interceptors
            // may have rewritten it (sent again, they would rewrite it
            // twice): then a copy is kept while a resend is possible.
            let may_resend = !self.pinned && attempt < policy.max_attempts;
            let sending = match intercepted && may_resend {
                true => items.clone(),
                false => items.take(),
            };
            let error = match self.send_once(sending, &token, attempts, &span).await {
                Ok(capacity) => return Ok((token, capacity)),
                Err(error) => error,
            };
            // Lost only to other transactions or throttling, this attempt
            // applied nothing: it is safe to send again (a token pinned by
            // the caller is theirs to retry with). So is one the SDK gave up
            // on after an attempt that may have been applied, under the same
            // token: DynamoDB then answers success instead of applying it
            // twice. Once an attempt may have been applied, the token is
            // never changed.
            let maybe_applied = attempts.maybe_applied();
            let unsettled = maybe_applied && matches!(error, Error::Sdk { .. });
            let again = error.is_transaction_conflict() || (unsettled && error.is_retryable());
            let resend = again && may_resend;
            if resend && !intercepted {
                // Sent again, the actions are those just sent, read back.
                items = read_back_sent(attempts);
            }
            if resend && items.is_some() {
                tokio::time::sleep(policy.delay(attempt)).await;
                if !maybe_applied {
                    token = request_token();
                }
                continue;
            }
            let error = if unsettled {
                Error::WriteOutcomeUnknown {
                    entity: "transaction",
                    key: token,
                    failure: Box::new(error),
                }
            } else {
                error
            };
            // Only the final failure marks the span: a conflict sent again
            // and then applied is a success.
            telemetry::record_error(&span, &error);
            return Err(error);
        }
    }

    /// The span of the transaction: the tables and entity its actions name.
    fn span<'i>(&self, items: impl Iterator<Item = &'i TransactWriteItem> + Clone) -> Span {
        let named = self.actions.iter().zip(items);
        let (tables, entity) =
            crate::telemetry::span_names(named.map(|(a, item)| (a.entity, table_of(item))));
        telemetry::span("TransactWriteItems", &tables, None, entity)
    }

    /// One TransactWriteItems (the SDK's retries included): the capacity
    /// DynamoDB reported, or the failure, a cancellation with one reason per
    /// action; recorded into `span` either way.
    async fn send_once(
        &self,
        sending: Option<Vec<TransactWriteItem>>,
        token: &str,
        attempts: &Attempts,
        span: &Span,
    ) -> Result<Capacity> {
        let request = |client: &aws_sdk_dynamodb::Client| {
            client
                .transact_write_items()
                .set_transact_items(sending)
                .client_request_token(token)
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        };
        let result = self
            .db
            .sdk()
            .send(attempts, request)
            .instrument(span.clone())
            .await;
        let error = match result {
            Ok(output) => {
                let capacity = Capacity::of_tables(output.consumed_capacity);
                telemetry::record(span, capacity.total, self.actions.len(), attempts.count());
                return Ok(capacity);
            }
            Err(error) => canceled(error, self.actions),
        };
        telemetry::record(span, 0.0, 0, attempts.count());
        Err(error)
    }
}

/// The actions of the request just sent, read back from its body to send
/// them again; `None`, with a warning, when they cannot be.
fn read_back_sent(attempts: &Attempts) -> Option<Vec<TransactWriteItem>> {
    let items = attempts.sent().and_then(|body| sent_transact_items(&body));
    if items.is_none() {
        tracing::warn!(
            "a transaction's actions could not be read back from the request \
             sent; its failure is returned instead of sent again"
        );
    }
    items
}

/// Maps a TransactWriteItems error, with one reason per action.
fn canceled(
    error: aws_sdk_dynamodb::error::SdkError<
        TransactWriteItemsError,
        aws_sdk_dynamodb::config::http::HttpResponse,
    >,
    actions: &[Action],
) -> Error {
    match error.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(canceled)) => {
            let reasons = canceled
                .cancellation_reasons()
                .iter()
                .enumerate()
                .map(|(index, reason)| {
                    let action = actions.get(index);
                    ActionFailure {
                        index,
                        entity: action.map(|a| a.entity).unwrap_or(""),
                        key: action.map(|a| shown_key(a.key.text())).unwrap_or_default(),
                        code: reason.code().unwrap_or("None").to_owned(),
                        message: reason.message().map(str::to_owned),
                        existing: reason.item().cloned().map(ExistingItem),
                    }
                })
                .collect();
            Error::TransactionCanceled { reasons }
        }
        _ => Error::sdk("TransactWriteItems", error),
    }
}

/// The plan as one action of a TransactWriteItems, and what describes it;
/// a put's item moves into the action.
fn action<E: Entity + 'static>(
    db: &Db,
    mut plan: WritePlan<E>,
) -> Result<(TransactWriteItem, Action)> {
    let (item, size) = rendered(db, &mut plan)?;
    Ok((item, Action::new::<E>(plan.key.into_values(), size)))
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
    fn new<E: Entity>(key: KeyValues, size: usize) -> Self {
        Self {
            entity: E::SCHEMA.entity_type,
            key,
            size,
        }
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
#[cfg(test)]
mod tests {
    #[test]
    fn request_tokens_are_distinct_and_fit_dynamodb() {
        let tokens: std::collections::HashSet<String> =
            (0..10_000).map(|_| super::request_token()).collect();
        assert_eq!(tokens.len(), 10_000);
        assert!(tokens
            .iter()
            .all(|t| t.len() == 32 && t.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))));
    }
}
