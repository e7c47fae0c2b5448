//! ddb's one error type.

use crate::segment::SegmentError;

/// Everything that can go wrong in ddb, as one type.
///
/// Messages name the entity, the key and the reason; they never print item
/// attribute values, which may be personal data.
///
/// ```
/// use ddb_runtime::Error;
/// let error = Error::KeyTooLarge { entity: "Order", key: "sort key", size: 1025, limit: 1024 };
/// assert_eq!(
///     error.to_string(),
///     "Order sort key is 1025 bytes; DynamoDB allows at most 1024"
/// );
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A field's value cannot be written into a key (an empty string, a
    /// timestamp out of range, ...). Nothing was sent.
    #[error("{entity} {key}: field `{field}` cannot be a key segment: {source}")]
    InvalidKeySegment {
        /// The entity type.
        entity: &'static str,
        /// Which key: `"partition key"`, `"GSI1 sort key"`, ...
        key: &'static str,
        /// The Rust field name.
        field: &'static str,
        /// Why.
        source: SegmentError,
    },
    /// An encoded key exceeds DynamoDB's limit (partition key 2048 bytes, sort
    /// key 1024 bytes). Nothing was sent.
    #[error("{entity} {key} is {size} bytes; DynamoDB allows at most {limit}")]
    KeyTooLarge {
        /// The entity type.
        entity: &'static str,
        /// Which key.
        key: &'static str,
        /// Its size in UTF-8 bytes.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A stored key does not match the entity's template, so it cannot be
    /// parsed back into typed fields.
    #[error("{entity} {key} does not match its template `{template}`: {reason}")]
    KeyMismatch {
        /// The entity type.
        entity: &'static str,
        /// Which key.
        key: &'static str,
        /// The template.
        template: &'static str,
        /// Why.
        reason: String,
    },
    /// An entity could not be turned into a DynamoDB item.
    #[error("cannot encode {entity} as a DynamoDB item: {source}")]
    Encode {
        /// The entity type.
        entity: &'static str,
        /// The serializer's error.
        source: serde_dynamo::Error,
    },
    /// A DynamoDB item could not be decoded into the entity.
    #[error("cannot decode {entity} item: {source}")]
    Decode {
        /// The entity type.
        entity: &'static str,
        /// The deserializer's error.
        source: serde_dynamo::Error,
    },
    /// An item stores another entity type than the one asked for.
    #[error("item is a `{found}`, not a `{entity}`")]
    WrongEntityType {
        /// The entity type asked for.
        entity: &'static str,
        /// The entity type stored in the item (empty when missing).
        found: String,
    },
    /// A request to DynamoDB failed; the SDK's error is the source.
    #[error("DynamoDB {operation} failed: {source}")]
    Sdk {
        /// The operation, e.g. `"CreateTable"`.
        operation: &'static str,
        /// The SDK error.
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A table did not become ACTIVE in time.
    #[error("table `{table}` is not ACTIVE after {waited_ms} ms (status {status})")]
    TableNotActive {
        /// The table name.
        table: String,
        /// Its last status.
        status: String,
        /// How long ddb waited.
        waited_ms: u128,
    },
}

impl Error {
    pub(crate) fn sdk<E, R>(
        operation: &'static str,
        error: aws_sdk_dynamodb::error::SdkError<E, R>,
    ) -> Self
    where
        aws_sdk_dynamodb::Error: From<aws_sdk_dynamodb::error::SdkError<E, R>>,
    {
        Error::Sdk {
            operation,
            source: Box::new(aws_sdk_dynamodb::Error::from(error)),
        }
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

/// `Result<T, ddb_runtime::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
