//! ddb's one error type.

mod classify;
mod copy;
mod details;
mod display;
mod throttle;

pub use classify::SdkErrorKind;
pub use details::{
    ActionFailure, BatchOutcome, CancellationReason, ExistingItem, IndexKeyViolation, SegmentError,
    UniqueDuplicate,
};
use display::{describe_reasons, key_suffix, ServiceText};
pub(crate) use throttle::answered_throttles;
pub use throttle::{Throttle, ThrottleLimit, ThrottledResource};

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
    #[error("cannot decode {entity} item{}: {source}", key_suffix(key))]
    Decode {
        /// The entity type.
        entity: &'static str,
        /// The item's key (`PK / SK`), when known.
        key: Option<String>,
        /// The deserializer's error.
        source: serde_dynamo::Error,
    },
    /// A cursor is not one this query produced: garbage, another entity,
    /// index, partition or sort condition. Nothing was sent.
    #[error("invalid cursor: {reason}")]
    InvalidCursor {
        /// Why.
        reason: String,
    },
    /// A query or write cannot be expressed as asked. Nothing was sent.
    #[error("invalid request for {entity}: {reason}")]
    InvalidRequest {
        /// The entity type.
        entity: &'static str,
        /// Why.
        reason: String,
    },
    /// A value DynamoDB cannot store or compare: a number that is not one
    /// (NaN, infinity), has over 38 digits or is out of range, an empty set,
    /// lists or maps nested over 32 levels, a value larger than an item, or a
    /// multi-attribute index key value of the wrong type or empty. Nothing
    /// was sent.
    #[error("invalid value for {entity}: {reason}")]
    InvalidValue {
        /// The entity type.
        entity: &'static str,
        /// Which value, and why.
        reason: String,
    },
    /// An expression (condition, filter, key condition, update, projection)
    /// is over DynamoDB's 4 KB limit. Nothing was sent.
    #[error(
        "the {expression} expression of {entity} is {size} bytes; DynamoDB takes at most {limit}"
    )]
    ExpressionTooLarge {
        /// The entity type.
        entity: &'static str,
        /// Which expression.
        expression: &'static str,
        /// Its size in bytes.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A sort-key condition that has no key condition: `between` bounds out
    /// of order, `begins_with` on a Number, a comparison over two attributes
    /// of a multi-attribute key, a condition on a key without a sort key.
    /// Nothing was sent.
    #[error("invalid sort condition for {entity}: {reason}")]
    InvalidSortCondition {
        /// The entity type.
        entity: &'static str,
        /// Why.
        reason: String,
    },
    /// An update ddb cannot send as asked: no change, an attribute changed
    /// twice, a field ddb writes itself, `expect_version` without a version
    /// field, a list or set op on a key attribute. Nothing was sent.
    #[error("invalid update of {entity}: {reason}")]
    InvalidUpdate {
        /// The entity type.
        entity: &'static str,
        /// Why.
        reason: String,
    },
    /// A batch did not process every key: DynamoDB left items unprocessed
    /// after every retry, or a request failed outright
    /// ([`BatchOutcome::causes`]). The keys listed (`PK=... / SK=...`) were
    /// not read or written; [`BatchOutcome::unknown`] were sent but their
    /// answer was lost; every other one was processed.
    #[error("{operation} left {} {entity} item(s) unprocessed and {} unknown", keys.len(), outcome.unknown.len())]
    Unprocessed {
        /// The entity type.
        entity: &'static str,
        /// `"BatchGetItem"` or `"BatchWriteItem"`.
        operation: &'static str,
        /// The keys not processed: not written, or not read.
        keys: Vec<String>,
        /// What happened to every other key.
        outcome: Box<BatchOutcome>,
    },
    /// `create` found a different item at the key. Nothing was written.
    #[error("{entity} {key} already exists with different attributes")]
    AlreadyExists {
        /// The entity type.
        entity: &'static str,
        /// The key (`PK / SK`).
        key: String,
        /// The stored item.
        existing: ExistingItem,
    },
    /// A write's condition did not hold. Nothing was written.
    #[error("the condition on {entity} {key} failed")]
    ConditionFailed {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
        /// The stored item, when there is one.
        existing: Option<ExistingItem>,
    },
    /// The stored version is not the one the write expected: someone else
    /// wrote the item since it was read. Nothing was written.
    #[error("{entity} {key} is at version {}, not {expected}", current.map(|v| v.to_string()).unwrap_or_else(|| "none (deleted)".into()))]
    VersionConflict {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
        /// The version the write expected.
        expected: u64,
        /// The stored version (`None` when the item is gone).
        current: Option<u64>,
    },
    /// An update had to read the item to recompute index keys, and another
    /// writer changed what it read before the update landed. Nothing was
    /// written; sending the update again recomputes from the new item.
    #[error("{entity} {key} changed while the update recomputed its index keys (attributes {}); nothing was written", attributes.join(", "))]
    ChangedSinceRead {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
        /// The attributes the update read that changed.
        attributes: Vec<String>,
    },
    /// An attempt of this write lost its answer (a dropped connection, a
    /// timeout, a server error) and may have been applied, and then the
    /// SDK's retry failed: on its condition (which may be this call's own
    /// write, met again) or for good (retries spent). Read the item to know
    /// before writing again. An
    /// [`exactly_once`](crate::write::Put::exactly_once) write or a
    /// transaction meets this only when DynamoDB could not be reached again
    /// in time; for a transaction, `key` is its ClientRequestToken, under
    /// which sending it again (within ten minutes) applies it at most once.
    #[error("{entity} {key}: an attempt whose answer was lost may have been applied, and the retry then failed ({failure}); read the item before writing again")]
    WriteOutcomeUnknown {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
        /// How the retry failed, e.g. [`Error::VersionConflict`].
        failure: Box<Error>,
    },
    /// A backfill's check found stored items the entity's indexes cannot
    /// hold (AWS calls these index key violations). Nothing was written.
    #[error("{} {entity} item(s) cannot be held by its indexes, first: {}", violations.len(), violations.first().map(ToString::to_string).unwrap_or_default())]
    IndexKeyViolations {
        /// The entity type.
        entity: &'static str,
        /// Every item at fault, and why.
        violations: Vec<IndexKeyViolation>,
    },
    /// A backfill's check found unique values held by more than one stored
    /// item: the guards of a constraint declared after they were stored
    /// cannot be created until each value is held once. Nothing was
    /// written.
    #[error("{} value(s) of unique {entity} constraints held by several items, first: {}", duplicates.len(), duplicates.first().map(ToString::to_string).unwrap_or_default())]
    UniqueDuplicates {
        /// The entity type.
        entity: &'static str,
        /// Every value held more than once, by the items holding it.
        duplicates: Vec<UniqueDuplicate>,
    },
    /// A stored item could not be brought to today's schema version: its
    /// migration failed, or it was written by a newer version of the code.
    #[error("{entity} {key} at schema version {from} cannot be migrated: {reason}")]
    Migration {
        /// The entity type.
        entity: &'static str,
        /// The item's key (`PK / SK`).
        key: String,
        /// The version the item is stored at.
        from: u32,
        /// Why.
        reason: String,
    },
    /// A DynamoDB Streams record did not decode.
    #[error("stream record {sequence_number}: {source}")]
    StreamRecord {
        /// The record's sequence number.
        sequence_number: String,
        /// Why.
        source: Box<Error>,
    },
    /// An update or condition check found no item at the key.
    #[error("{entity} {key} does not exist")]
    NotFound {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
    },
    /// An item is over DynamoDB's 400 KB limit (attribute names and values,
    /// counted by DynamoDB's rules). Nothing was sent.
    #[error("{entity} {key} is {size} bytes; DynamoDB items hold at most {limit}")]
    ItemTooLarge {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
        /// Its size.
        size: usize,
        /// The limit (409,600 bytes).
        limit: usize,
    },
    /// Two requests of one batch or transaction name the same item. Nothing
    /// was sent.
    #[error("{entity} {key} appears twice in one {operation}")]
    DuplicateKey {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
        /// `"batch"` or `"transaction"`.
        operation: &'static str,
    },
    /// A unique value (`#[ddb(unique)]`, `unique(a, b)`) is held by another
    /// item of the entity. Nothing was written. The value is not shown.
    #[error("{entity}: the unique `{field}` is held by another item")]
    UniqueViolation {
        /// The entity type.
        entity: &'static str,
        /// The constraint: its field, or its fields joined by `_`.
        field: &'static str,
    },
    /// A create under an idempotency key already used by a create of other
    /// content (beyond its primary key's fields and the stamps). Nothing was
    /// written.
    #[error("{entity}: the idempotency key was used by a create of other content")]
    IdempotencyKeyReused {
        /// The entity type.
        entity: &'static str,
    },
    /// DynamoDB canceled a transaction; nothing of it was applied. One
    /// entry per action the caller added, in the order added, each with its
    /// failure as the write sent alone reports it (or none): reach an
    /// action's by its key with [`Error::action_failure`]. What an action's
    /// entry says does not depend on what the other actions did.
    #[error("transaction canceled: {}", describe_reasons(reasons))]
    TransactionCanceled {
        /// What became of each action (`code` `"None"` for those that did
        /// not fail).
        reasons: Vec<ActionFailure>,
    },
    /// Another transaction held the item while this write's transaction
    /// ran: nothing was written, and sending it again is safe.
    #[error("{entity} {key} was held by another transaction; nothing was written")]
    TransactionConflict {
        /// The entity type.
        entity: &'static str,
        /// The key.
        key: String,
    },
    /// A collection query met an item of an entity type the collection does
    /// not list, and the caller asked for an error in that case.
    #[error("unknown entity type `{found}` in the item collection")]
    UnknownEntityType {
        /// The stored entity type (empty when missing).
        found: String,
    },
    /// An item stores another entity type than the one asked for.
    #[error("item is a `{found}`, not a `{entity}`")]
    WrongEntityType {
        /// The entity type asked for.
        entity: &'static str,
        /// The entity type stored in the item (empty when missing).
        found: String,
    },
    /// A request to DynamoDB failed; the SDK's error is the source, and
    /// `kind` says how it failed (DynamoDB answered with an error, the
    /// request timed out, could not be sent, or its answer was lost).
    #[error("DynamoDB {operation} failed ({kind:?}): {}", ServiceText(source))]
    Sdk {
        /// The operation, e.g. `"CreateTable"`.
        operation: &'static str,
        /// How the request failed.
        kind: SdkErrorKind,
        /// The SDK error.
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A vector index is not searchable yet: added to a live table, it
    /// refuses searches while DynamoDB fills it (and for a while after it
    /// reports ACTIVE). Retryable: search again later.
    #[error("vector index `{index}` of table `{table}` is not searchable yet (DynamoDB is filling it); search again later")]
    IndexNotSearchable {
        /// The table name.
        table: String,
        /// The vector index.
        index: &'static str,
    },
    /// A deployment template could not be read: not JSON (or YAML), or not
    /// a CloudFormation template or Terraform configuration.
    #[error("the template cannot be read: {reason}")]
    InvalidTemplate {
        /// Why.
        reason: String,
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

/// `Result<T, ddb_runtime::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A copy of what a builder made of its input: a request is sent (or dry
/// run) from a copy, so the builder can be sent again.
pub(crate) fn cloned<T: Clone>(made: &Result<T>) -> Result<T> {
    match made {
        Ok(made) => Ok(made.clone()),
        Err(error) => Err(error.clone_input()),
    }
}

/// `f` applied to each of `items`, in order, into a vector allocated once;
/// the first error stops it. Collecting an iterator of results grows its
/// vector from nothing: for a page of entities of a hundred bytes or more
/// that is several reallocations, and with glibc each step past 1 KB
/// consolidates the allocator's free lists (microseconds per page).
pub(crate) fn try_map_all<T, U>(
    items: impl ExactSizeIterator<Item = T>,
    mut f: impl FnMut(T) -> Result<U>,
) -> Result<Vec<U>> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(f(item)?);
    }
    Ok(out)
}
