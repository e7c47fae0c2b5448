//! One failure, several callers: a request sent for keys that several
//! callers wait on fails each of them, each with a copy of its error.

use aws_sdk_dynamodb::error::ErrorMetadata;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemError;

use super::Error;

impl Error {
    /// A copy of a failed request's error: an SDK error keeps its
    /// operation, how it failed, DynamoDB's code and message, and its typed
    /// variant when it is one a read can meet (a throttle, a missing table,
    /// a server error); a batch's outcome is copied with its causes; an
    /// item that did not decode, whole; any other error as
    /// [`clone_input`](Self::clone_input) copies it.
    pub(crate) fn copied(&self) -> Error {
        match self {
            Error::Sdk {
                operation,
                kind,
                source,
            } => Error::Sdk {
                operation,
                kind: *kind,
                source: Box::new(copied_sdk(source)),
            },
            Error::Unprocessed {
                entity,
                operation,
                keys,
                outcome,
            } => Error::Unprocessed {
                entity,
                operation,
                keys: keys.clone(),
                outcome: Box::new(super::BatchOutcome {
                    done: outcome.done.clone(),
                    unknown: outcome.unknown.clone(),
                    read: outcome.read.clone(),
                    causes: outcome.causes.iter().map(Error::copied).collect(),
                }),
            },
            Error::Decode {
                entity,
                key,
                source,
            } => Error::Decode {
                entity,
                key: key.clone(),
                source: source.clone(),
            },
            Error::WrongEntityType { entity, found } => Error::WrongEntityType {
                entity,
                found: found.clone(),
            },
            Error::Migration {
                entity,
                key,
                from,
                reason,
            } => Error::Migration {
                entity,
                key: key.clone(),
                from: *from,
                reason: reason.clone(),
            },
            other => other.clone_input(),
        }
    }
}

/// A copy of the SDK's error: the typed variants a read can meet cloned,
/// any other rebuilt from its code and message.
fn copied_sdk(error: &aws_sdk_dynamodb::Error) -> aws_sdk_dynamodb::Error {
    use aws_sdk_dynamodb::Error as E;
    match error {
        E::ProvisionedThroughputExceededException(e) => {
            E::ProvisionedThroughputExceededException(e.clone())
        }
        E::RequestLimitExceeded(e) => E::RequestLimitExceeded(e.clone()),
        E::ThrottlingException(e) => E::ThrottlingException(e.clone()),
        E::ResourceNotFoundException(e) => E::ResourceNotFoundException(e.clone()),
        E::InternalServerError(e) => E::InternalServerError(e.clone()),
        other => {
            let mut meta = ErrorMetadata::builder();
            if let Some(code) = other.code() {
                meta = meta.code(code);
            }
            let message = other
                .message()
                .map_or_else(|| other.to_string(), str::to_owned);
            E::from(BatchGetItemError::generic(meta.message(message).build()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SdkErrorKind;
    use aws_sdk_dynamodb::types::error::ProvisionedThroughputExceededException;

    fn sdk(source: aws_sdk_dynamodb::Error) -> Error {
        Error::Sdk {
            operation: "BatchGetItem",
            kind: SdkErrorKind::Service,
            source: Box::new(source),
        }
    }

    /// A throttle copied is still the typed throttle, and still retryable.
    #[test]
    fn a_copied_throttle_keeps_its_variant_and_retryability() {
        let throttle = ProvisionedThroughputExceededException::builder()
            .message("slow down")
            .build();
        let error = sdk(aws_sdk_dynamodb::Error::ProvisionedThroughputExceededException(throttle));
        let copy = error.copied();
        assert!(copy.is_retryable());
        assert!(matches!(
            copy.sdk_error(),
            Some(aws_sdk_dynamodb::Error::ProvisionedThroughputExceededException(_))
        ));
        assert_eq!(copy.to_string(), error.to_string());
    }

    /// Any other service error keeps its code and message.
    #[test]
    fn a_copied_service_error_keeps_its_code_and_message() {
        let meta = ErrorMetadata::builder()
            .code("ValidationException")
            .message("bad key")
            .build();
        let error = sdk(BatchGetItemError::generic(meta).into());
        let copy = error.copied();
        assert_eq!(
            copy.sdk_error().and_then(|e| e.code()),
            Some("ValidationException")
        );
        assert_eq!(copy.sdk_error().and_then(|e| e.message()), Some("bad key"));
        assert!(!copy.is_retryable());
    }
}
