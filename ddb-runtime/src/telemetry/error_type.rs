//! The `error.type` of a failed request: low-cardinality, and never the
//! error's text (which can quote a key). A request's span records it from
//! the SDK's error; ddb's logs name an error of ddb's by it too.

use std::borrow::Cow;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;

use crate::error::{Error, SdkErrorKind};

/// What failed, as OpenTelemetry's `error.type` names it: DynamoDB's error
/// code when DynamoDB answered (`ConditionalCheckFailedException`,
/// `TransactionCanceledException`, `ProvisionedThroughputExceededException`),
/// the SDK's failure when it did not (`TimeoutError`, `DispatchFailure`,
/// `ResponseError`, `ConstructionFailure`), and ddb's own name for an error
/// of ddb's (`Invalid`, `Unprocessed`).
///
/// The errors ddb makes of a failed condition (`VersionConflict`,
/// `AlreadyExists`...) have the code of the request that failed: a single
/// write's `ConditionalCheckFailedException`, a transaction's
/// `TransactionCanceledException`.
pub(crate) fn error_type(error: &Error) -> Cow<'static, str> {
    use crate::error::Error as E;
    match error {
        E::Sdk { kind, source, .. } => sdk_error_type(*kind, source.code()),
        E::WriteOutcomeUnknown { failure, .. } => error_type(failure),
        E::Unprocessed { .. } => Cow::Borrowed("Unprocessed"),
        E::IndexNotSearchable { .. } => Cow::Borrowed("IndexNotSearchable"),
        E::Migration { .. } => Cow::Borrowed("Migration"),
        _ => Cow::Borrowed(condition_code(error).unwrap_or("Invalid")),
    }
}

/// The code DynamoDB answered the request ddb read as `error` with, for
/// the errors ddb makes of a failed condition; `None` for any other.
fn condition_code(error: &Error) -> Option<&'static str> {
    use crate::error::Error as E;
    match error {
        // A unique value's and an idempotency key's guards are written in
        // a transaction with the item.
        E::TransactionCanceled { .. }
        | E::UniqueViolation { .. }
        | E::IdempotencyKeyReused { .. } => Some("TransactionCanceledException"),
        E::ConditionFailed { .. }
        | E::VersionConflict { .. }
        | E::AlreadyExists { .. }
        | E::ChangedSinceRead { .. }
        | E::NotFound { .. } => Some("ConditionalCheckFailedException"),
        _ => None,
    }
}

/// The `error.type` of a request the SDK failed `kind`-wise, with
/// DynamoDB's error `code` when DynamoDB answered.
pub(crate) fn sdk_error_type(kind: SdkErrorKind, code: Option<&str>) -> Cow<'static, str> {
    match kind {
        SdkErrorKind::Service => match code {
            Some(code) => Cow::Owned(code.to_owned()),
            None => Cow::Borrowed("_OTHER"),
        },
        SdkErrorKind::Timeout => Cow::Borrowed("TimeoutError"),
        SdkErrorKind::Dispatch => Cow::Borrowed("DispatchFailure"),
        SdkErrorKind::Response => Cow::Borrowed("ResponseError"),
        SdkErrorKind::Construction => Cow::Borrowed("ConstructionFailure"),
    }
}
