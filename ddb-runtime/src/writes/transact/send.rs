//! Sending a checked transaction: again after a conflict or an unsettled
//! attempt, and its cancellation read as one reason per action.

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::TransactWriteItem;

use crate::db::Db;
use crate::error::{ActionFailure, Error, ExistingItem, Result};
use crate::keys::guard::shown_key;
use crate::telemetry::{Capacity, RequestSpan};
use crate::transport::attempts::Attempts;
use crate::transport::condition_items::TRUSTED_AFTER;
use crate::writes::condition_met::item_met;

use super::action::{table_of, Action};
use super::token::request_token;

/// A checked transaction being sent: where, what its actions are, and
/// whether the caller pinned its token.
pub(super) struct Sending<'a> {
    pub(super) db: &'a Db,
    pub(super) actions: &'a [Action],
    pub(super) pinned: bool,
    pub(super) capacity_asked: bool,
}

impl Sending<'_> {
    /// Sends `items` under `token`, and again after a conflict or an
    /// unsettled attempt while the retry policy allows; returns the token
    /// applied, or the final failure.
    pub(super) async fn send(
        &self,
        mut token: String,
        mut items: Vec<TransactWriteItem>,
        attempts: &Attempts,
    ) -> Result<(String, Capacity)> {
        let policy = self.db.retry_policy();
        let mut attempt = 0;
        loop {
            attempt += 1;
            // A copy is kept while a resend is possible: the request's own
            // actions, before any interceptor of the caller's rewrote them
            // (sent again, they rewrite them again).
            let may_resend = !self.pinned && attempt < policy.max_attempts;
            let sending = match may_resend {
                true => items.clone(),
                false => std::mem::take(&mut items),
            };
            let error = match self.send_once(sending, &token, attempts, may_resend).await {
                Ok(capacity) => return Ok((token, capacity)),
                Err(error) => error,
            };
            if !(may_resend && sent_again(&error, attempts.maybe_applied())) {
                return Err(error);
            }
            tokio::time::sleep(policy.delay(attempt)).await;
            // Once an attempt may have been applied, the token is never
            // changed.
            if !attempts.maybe_applied() {
                token = request_token();
            }
        }
    }

    /// The span of the transaction: the tables and entity its actions name.
    fn span<'i>(&self, items: impl Iterator<Item = &'i TransactWriteItem>) -> RequestSpan {
        let named = self.actions.iter().zip(items);
        let (tables, entity) =
            crate::telemetry::span_names(named.map(|(a, item)| (a.entity, table_of(item))));
        let span = self
            .db
            .span_of_tables("TransactWriteItems", &tables, None, entity);
        span.batch_of(self.actions.len());
        span
    }

    /// One TransactWriteItems (the SDK's retries included), in a span of
    /// its own that counts its attempts only: the capacity DynamoDB
    /// reported, or the failure, a cancellation with one reason per action.
    /// An unsettled failure that is not to be sent again (`may_resend`) is
    /// an unknown outcome.
    async fn send_once(
        &self,
        sending: Vec<TransactWriteItem>,
        token: &str,
        attempts: &Attempts,
        may_resend: bool,
    ) -> Result<Capacity> {
        let span = self.span(sending.iter());
        let request = self
            .db
            .client()
            .transact_write_items()
            .set_transact_items(Some(sending))
            .client_request_token(token)
            .set_return_consumed_capacity(self.db.consumed_capacity(&span, self.capacity_asked));
        let failure = async |refused| {
            let error = canceled(refused, self.actions);
            let unsettled = attempts.maybe_applied() && matches!(error, Error::Sdk { .. });
            if !unsettled || (may_resend && sent_again(&error, true)) {
                return error;
            }
            Error::WriteOutcomeUnknown {
                entity: "transaction",
                key: token.to_owned(),
                failure: Box::new(error),
            }
        };
        let sdk = self.db.sdk();
        let output = sdk.send(&span, attempts, request, failure).await?;
        Ok(Capacity::of_tables(output.consumed_capacity))
    }
}

/// Whether a failed transaction is sent again: lost only to other
/// transactions or throttling, it applied nothing (a token pinned by the
/// caller is theirs to retry with). So is one the SDK gave up on after an
/// attempt that `maybe_applied`, under the same token: DynamoDB then
/// answers success instead of applying it twice.
fn sent_again(error: &Error, maybe_applied: bool) -> bool {
    let unsettled = maybe_applied && matches!(error, Error::Sdk { .. });
    error.is_transaction_conflict() || (unsettled && error.is_retryable())
}

/// `error` with the item each failed condition met: the one DynamoDB
/// returned, or, on a server that left it out, the item read back (see
/// `writes::condition_met`). The read-backs go together, as many at a time
/// as make a server's empty answers trusted: what they find decides
/// whether the next are sent.
pub(super) async fn items_met(db: &Db, actions: &[Action], mut error: Error) -> Error {
    let Error::TransactionCanceled { reasons } = &mut error else {
        return error;
    };
    let mut failed: Vec<_> = actions
        .iter()
        .zip(reasons.iter_mut())
        .filter(|(_, r)| r.code == "ConditionalCheckFailed")
        .collect();
    for together in failed.chunks_mut(TRUSTED_AFTER as usize) {
        let reads = together.iter_mut().map(|(action, reason)| async move {
            let (keys, name) = action.table;
            let at = (name(db), action.entity);
            let returned = reason.existing.take().map(|ExistingItem(item)| item);
            let met = item_met(db, at, || action.key.to_item(keys), returned).await;
            reason.existing = met.map(ExistingItem);
        });
        futures::future::join_all(reads).await;
    }
    error
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
                        error: None,
                        key_values: action.map(|a| a.key.attribute_values()).unwrap_or_default(),
                    }
                })
                .collect();
            Error::TransactionCanceled { reasons }
        }
        _ => Error::sdk("TransactWriteItems", error),
    }
}
