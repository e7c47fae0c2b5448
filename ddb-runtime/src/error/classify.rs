//! What kind of failure an error is: how a request to DynamoDB failed,
//! whether sending it again may succeed, and the other questions a caller
//! asks of an error.

use super::Error;

/// How a request to DynamoDB failed, as the SDK tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SdkErrorKind {
    /// DynamoDB answered with an error (a throttle, a validation error, a
    /// failed condition...).
    Service,
    /// The request or its answer timed out: it may or may not have been
    /// applied.
    Timeout,
    /// The request failed on its way (connection refused, reset or closed
    /// before the answer): it may or may not have been applied.
    Dispatch,
    /// An answer came but could not be read: the request may have been
    /// applied.
    Response,
    /// The request could not be built.
    Construction,
}

impl SdkErrorKind {
    /// How `error` failed.
    pub(crate) fn of<E, R>(error: &aws_sdk_dynamodb::error::SdkError<E, R>) -> Self {
        use aws_sdk_dynamodb::error::SdkError;
        match error {
            SdkError::ServiceError(_) => SdkErrorKind::Service,
            SdkError::TimeoutError(_) => SdkErrorKind::Timeout,
            SdkError::DispatchFailure(failure) if failure.is_timeout() => SdkErrorKind::Timeout,
            SdkError::DispatchFailure(_) => SdkErrorKind::Dispatch,
            SdkError::ResponseError(_) => SdkErrorKind::Response,
            _ => SdkErrorKind::Construction,
        }
    }
}

impl Error {
    /// The same error about a request's input (a key, a value, an item, a
    /// sort condition, an update), for a request built once and then sent,
    /// or dry run, more than once: those variants are plain data, copied
    /// whole; any other keeps its message.
    pub(crate) fn clone_input(&self) -> Self {
        use Error as E;
        match self {
            E::InvalidKeySegment {
                entity,
                key,
                field,
                source,
            } => E::InvalidKeySegment {
                entity,
                key,
                field,
                source: source.clone(),
            },
            &E::KeyTooLarge {
                entity,
                key,
                size,
                limit,
            } => E::KeyTooLarge {
                entity,
                key,
                size,
                limit,
            },
            E::KeyMismatch {
                entity,
                key,
                template,
                reason,
            } => E::KeyMismatch {
                entity,
                key,
                template,
                reason: reason.clone(),
            },
            E::Encode { entity, source } => E::Encode {
                entity,
                source: source.clone(),
            },
            E::InvalidRequest { entity, reason } => E::InvalidRequest {
                entity,
                reason: reason.clone(),
            },
            E::InvalidValue { entity, reason } => E::InvalidValue {
                entity,
                reason: reason.clone(),
            },
            &E::ExpressionTooLarge {
                entity,
                expression,
                size,
                limit,
            } => E::ExpressionTooLarge {
                entity,
                expression,
                size,
                limit,
            },
            E::InvalidSortCondition { entity, reason } => E::InvalidSortCondition {
                entity,
                reason: reason.clone(),
            },
            E::InvalidUpdate { entity, reason } => E::InvalidUpdate {
                entity,
                reason: reason.clone(),
            },
            E::ItemTooLarge {
                entity,
                key,
                size,
                limit,
            } => E::ItemTooLarge {
                entity,
                key: key.clone(),
                size: *size,
                limit: *limit,
            },
            other => E::InvalidRequest {
                entity: "",
                reason: other.to_string(),
            },
        }
    }

    pub(crate) fn sdk<E, R>(
        operation: &'static str,
        error: aws_sdk_dynamodb::error::SdkError<E, R>,
    ) -> Self
    where
        aws_sdk_dynamodb::Error: From<aws_sdk_dynamodb::error::SdkError<E, R>>,
    {
        Error::Sdk {
            operation,
            kind: SdkErrorKind::of(&error),
            source: Box::new(aws_sdk_dynamodb::Error::from(error)),
        }
    }

    /// Sending the same request again may succeed: throttling, a server
    /// error, a lost or timed-out request, a transaction that lost to a
    /// concurrent one, an update whose item changed while it read it, batch
    /// items left unprocessed, a table not yet ACTIVE. A write whose answer
    /// was lost may have been applied: retry only what is idempotent (ddb's
    /// conditional writes are, see the README).
    ///
    /// ```
    /// let error = ddb_runtime::Error::NotFound { entity: "Order", key: "ORDER#A1".into() };
    /// assert!(!error.is_retryable());
    /// ```
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Sdk { kind, source, .. } => match kind {
                SdkErrorKind::Timeout | SdkErrorKind::Dispatch | SdkErrorKind::Response => true,
                SdkErrorKind::Construction => false,
                SdkErrorKind::Service => is_retryable_service_error(source),
            },
            // Unprocessed items clear up, unless a request failed for good.
            Error::Unprocessed { outcome, .. } => outcome.causes.iter().all(Error::is_retryable),
            Error::ChangedSinceRead { .. }
            | Error::TableNotActive { .. }
            | Error::IndexNotSearchable { .. } => true,
            // Every failed action would succeed sent again: a conflict, a
            // throttle, a read gone stale.
            Error::TransactionCanceled { reasons } => {
                let mut failed = reasons.iter().filter(|r| r.code != "None").peekable();
                failed.peek().is_some()
                    && failed.all(|r| match r.error() {
                        Some(error) => error.is_retryable(),
                        None => matches!(
                            r.code.as_str(),
                            "TransactionConflict"
                                | "ThrottlingError"
                                | "ProvisionedThroughputExceeded"
                        ),
                    })
            }
            Error::TransactionConflict { .. } => true,
            _ => false,
        }
    }

    /// The input was refused before anything was sent: a key, value,
    /// condition, update or cursor ddb or DynamoDB cannot take. Fix the
    /// input; sending it again fails the same way.
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Error::InvalidKeySegment { .. }
                | Error::KeyTooLarge { .. }
                | Error::KeyMismatch { .. }
                | Error::Encode { .. }
                | Error::InvalidCursor { .. }
                | Error::InvalidRequest { .. }
                | Error::InvalidValue { .. }
                | Error::ExpressionTooLarge { .. }
                | Error::InvalidSortCondition { .. }
                | Error::InvalidUpdate { .. }
                | Error::ItemTooLarge { .. }
                | Error::DuplicateKey { .. }
        )
    }

    /// A condition failed: [`ConditionFailed`](Error::ConditionFailed),
    /// [`AlreadyExists`](Error::AlreadyExists),
    /// [`VersionConflict`](Error::VersionConflict), or a transaction with a
    /// `ConditionalCheckFailed` action.
    pub fn is_condition_failed(&self) -> bool {
        match self {
            Error::ConditionFailed { .. }
            | Error::AlreadyExists { .. }
            | Error::UniqueViolation { .. }
            | Error::IdempotencyKeyReused { .. }
            | Error::VersionConflict { .. } => true,
            Error::TransactionCanceled { reasons } => {
                reasons.iter().any(|r| r.code == "ConditionalCheckFailed")
            }
            _ => false,
        }
    }

    /// Whether this error, or the failure of any action of a canceled
    /// transaction, is one `is` says yes to: a transaction answers the
    /// predicates as each of its writes would.
    fn is_or_any_action(&self, is: fn(&Error) -> bool) -> bool {
        match self {
            Error::TransactionCanceled { reasons } => {
                reasons.iter().filter_map(|r| r.error()).any(is)
            }
            error => is(error),
        }
    }

    /// A unique value is held by another item
    /// ([`UniqueViolation`](Error::UniqueViolation)), by this write or by an
    /// action of a canceled transaction.
    pub fn is_unique_violation(&self) -> bool {
        self.is_or_any_action(|e| matches!(e, Error::UniqueViolation { .. }))
    }

    /// Someone else wrote the item since it was read.
    pub fn is_version_conflict(&self) -> bool {
        self.is_or_any_action(|e| matches!(e, Error::VersionConflict { .. }))
    }

    /// Another writer changed the item between the read an update needed and
    /// its write ([`ChangedSinceRead`](Error::ChangedSinceRead)): nothing was
    /// written, and sending the same update again is safe.
    pub fn is_changed_since_read(&self) -> bool {
        self.is_or_any_action(|e| matches!(e, Error::ChangedSinceRead { .. }))
    }

    /// `create` met a different item at the key.
    pub fn is_already_exists(&self) -> bool {
        self.is_or_any_action(|e| matches!(e, Error::AlreadyExists { .. }))
    }

    /// There is no item at the key.
    pub fn is_not_found(&self) -> bool {
        self.is_or_any_action(|e| matches!(e, Error::NotFound { .. }))
    }

    /// A transaction lost to a concurrent one (every failing reason is a
    /// conflict or throttling): retrying it is safe.
    pub fn is_transaction_conflict(&self) -> bool {
        match self {
            Error::TransactionCanceled { reasons } => {
                let failing: Vec<_> = reasons.iter().filter(|r| r.code != "None").collect();
                !failing.is_empty()
                    && failing.iter().all(|r| {
                        matches!(
                            r.code.as_str(),
                            "TransactionConflict"
                                | "ThrottlingError"
                                | "ProvisionedThroughputExceeded"
                        )
                    })
            }
            Error::Sdk { source, .. } => matches!(
                **source,
                aws_sdk_dynamodb::Error::TransactionConflictException(_)
            ),
            Error::TransactionConflict { .. } => true,
            _ => false,
        }
    }

    /// A write to a global table in multi-Region strong consistency lost
    /// to a concurrent write of the same item in another Region
    /// (`ReplicatedWriteConflictException`): nothing was applied, and
    /// sending it again is safe. The SDK retries it; this is what is left
    /// when its attempts ran out.
    ///
    /// ```
    /// let error = ddb_runtime::Error::NotFound { entity: "Order", key: "ORDER#A1".into() };
    /// assert!(!error.is_replicated_write_conflict());
    /// ```
    pub fn is_replicated_write_conflict(&self) -> bool {
        matches!(self, Error::Sdk { source, .. } if matches!(**source, aws_sdk_dynamodb::Error::ReplicatedWriteConflictException(_)))
    }

    /// The same ClientRequestToken was used with other parameters.
    pub fn is_idempotent_parameter_mismatch(&self) -> bool {
        matches!(self, Error::Sdk { source, .. } if matches!(**source, aws_sdk_dynamodb::Error::IdempotentParameterMismatchException(_)))
    }

    /// The SDK's error, when a request to DynamoDB failed.
    ///
    /// ```
    /// let error = ddb_runtime::Error::WrongEntityType { entity: "Order", found: "Customer".into() };
    /// assert!(error.sdk_error().is_none());
    /// ```
    pub fn sdk_error(&self) -> Option<&aws_sdk_dynamodb::Error> {
        match self {
            Error::Sdk { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// DynamoDB's errors that clear up by themselves.
fn is_retryable_service_error(error: &aws_sdk_dynamodb::Error) -> bool {
    use aws_sdk_dynamodb::Error as E;
    match error {
        E::ProvisionedThroughputExceededException(_)
        | E::RequestLimitExceeded(_)
        | E::InternalServerError(_)
        | E::TransactionConflictException(_)
        | E::TransactionInProgressException(_)
        | E::ReplicatedWriteConflictException(_)
        | E::LimitExceededException(_) => true,
        other => {
            let code = aws_sdk_dynamodb::error::ProvideErrorMetadata::code(other);
            matches!(
                code,
                Some("ThrottlingException" | "ServiceUnavailable" | "InternalFailure")
            )
        }
    }
}
