//! What errors carry besides their message: a batch's outcome, the item a
//! failed condition returned, a transaction's failed action, why a key
//! segment failed, and an item an index cannot hold.

use super::Error;

/// What a batch that did not finish did with the keys it processed.
#[derive(Debug, Default)]
pub struct BatchOutcome {
    /// The keys processed: written, or read (found or not).
    pub done: Vec<String>,
    /// The keys of a request that failed on its way or whose answer was lost,
    /// or whose answer left a request at a key matching none sent (so which
    /// of its keys were written cannot be told): DynamoDB may or may not have
    /// written them. Writing them again is safe (a batch write is an
    /// unconditional put or delete).
    pub unknown: Vec<String>,
    /// For a read, the items it did read, to decode with
    /// [`ExistingItem::decode`]. A batch get decodes each answer as it
    /// arrives, so these are the entities it read, encoded again
    /// ([`Entity::to_item`](crate::Entity::to_item)): they decode to the same
    /// entities, but attributes the entity does not hold are not kept, and
    /// an item that did not decode, or whose time to live has passed, is
    /// left out.
    pub read: Vec<ExistingItem>,
    /// Each request that failed outright, in the order of its chunk (the
    /// other chunks were still sent); empty when the keys were only left
    /// unprocessed.
    pub causes: Vec<Error>,
}

impl BatchOutcome {
    /// The first request that failed outright: renamed
    /// [`causes`](Self::causes), which holds every one.
    ///
    /// ```
    /// let outcome = ddb_runtime::BatchOutcome::default();
    /// assert!(outcome.causes.first().is_none());
    /// ```
    #[deprecated(
        note = "renamed to the field `causes`, every request that failed: use `causes.first()`"
    )]
    pub fn cause(&self) -> Option<&Error> {
        self.causes.first()
    }
}

/// An item DynamoDB returned with a failed condition. Its `Debug` shows only
/// how many attributes it has (they may be personal data); decode it to read it.
#[derive(Clone, PartialEq)]
pub struct ExistingItem(
    pub std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
);

impl ExistingItem {
    /// The raw item.
    pub fn item(
        &self,
    ) -> &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue> {
        &self.0
    }
}

impl std::fmt::Debug for ExistingItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExistingItem({} attributes)", self.0.len())
    }
}

/// What became of one action the caller added to a canceled transaction:
/// failed, and why, or not failed (another action did). The guards of its
/// unique values are part of it. Reach it by the action's key, with
/// [`Error::action_failure`].
#[derive(Debug)]
#[non_exhaustive]
pub struct ActionFailure {
    /// The action's position among those the caller added, from 0.
    pub index: usize,
    /// Its entity type.
    pub entity: &'static str,
    /// Its key.
    pub key: String,
    /// DynamoDB's code for the action, or for the guard whose failure is
    /// the action's: `None`, `ConditionalCheckFailed`, `TransactionConflict`,
    /// `ValidationError`, `ThrottlingError`, ...
    pub code: String,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// The item as it was, for a failed condition.
    pub existing: Option<ExistingItem>,
    /// The action's failure as the same write sent alone reports it:
    /// [`Error::AlreadyExists`], [`Error::NotFound`],
    /// [`Error::ConditionFailed`], [`Error::VersionConflict`],
    /// [`Error::UniqueViolation`], [`Error::ChangedSinceRead`],
    /// [`Error::TransactionConflict`]... `None` when it did not fail, or
    /// failed for a reason only `code` tells (throttling, a validation
    /// error).
    pub error: Option<Box<Error>>,
    /// The key's attribute values (partition, then sort), by which
    /// [`Error::action_failure`] finds the action: its text may read alike
    /// for two keys.
    pub(crate) key_values: Vec<aws_sdk_dynamodb::types::AttributeValue>,
}

/// What DynamoDB said of one action of a canceled transaction, by its
/// cancellation reason code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancellationReason {
    /// The action did not fail (code `None`): another one did.
    NotFailed,
    /// Its condition did not hold (`ConditionalCheckFailed`); the item as
    /// it was is in [`ActionFailure::existing`].
    ConditionFailed,
    /// Another transaction held the item (`TransactionConflict`).
    TransactionConflict,
    /// Throttled (`ThrottlingError`, `ProvisionedThroughputExceeded`).
    Throttled,
    /// The item collection of a local index is full
    /// (`ItemCollectionSizeLimitExceeded`).
    ItemCollectionFull,
    /// DynamoDB refused the action's input (`ValidationError`).
    Invalid,
    /// A code this version of ddb does not know.
    Other,
}

impl ActionFailure {
    /// The action's failure, in the words of the same write sent alone;
    /// `None` when it did not fail, or failed for a reason only
    /// [`code`](Self::code) tells.
    ///
    /// ```no_run
    /// # fn demo(failure: &ddb_runtime::ActionFailure) {
    /// if let Some(error) = failure.error() {
    ///     assert!(error.is_condition_failed() || error.is_transaction_conflict() || error.is_not_found());
    /// }
    /// # }
    /// ```
    pub fn error(&self) -> Option<&Error> {
        self.error.as_deref()
    }

    /// DynamoDB's reason for the action, typed.
    ///
    /// ```no_run
    /// # fn demo(failure: &ddb_runtime::ActionFailure) {
    /// use ddb_runtime::CancellationReason;
    /// if failure.reason() == CancellationReason::NotFailed {
    ///     assert!(failure.error().is_none());
    /// }
    /// # }
    /// ```
    pub fn reason(&self) -> CancellationReason {
        match self.code.as_str() {
            "None" => CancellationReason::NotFailed,
            "ConditionalCheckFailed" => CancellationReason::ConditionFailed,
            "TransactionConflict" => CancellationReason::TransactionConflict,
            "ThrottlingError" | "ProvisionedThroughputExceeded" => CancellationReason::Throttled,
            "ItemCollectionSizeLimitExceeded" => CancellationReason::ItemCollectionFull,
            "ValidationError" => CancellationReason::Invalid,
            _ => CancellationReason::Other,
        }
    }
}

/// Why a value cannot be written to, or read from, a key segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentError(String);

impl SegmentError {
    /// An error with the given reason, e.g. `"an empty string cannot be a key segment"`.
    ///
    /// ```
    /// let error = ddb_runtime::SegmentError::new("not a valid order id");
    /// assert_eq!(error.to_string(), "not a valid order id");
    /// ```
    pub fn new(reason: impl Into<String>) -> Self {
        Self(reason.into())
    }
}

impl std::fmt::Display for SegmentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SegmentError {}

/// A stored item one of the entity's indexes cannot hold: DynamoDB leaves it
/// out of the index (a key attribute of the wrong type), or refuses writes
/// to it (AWS calls these index key violations), or ddb cannot build its key.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexKeyViolation {
    /// The item's key (`PK / SK`).
    pub key: String,
    /// The attribute, or the index, at fault.
    pub attribute: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for IndexKeyViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.key, self.attribute, self.reason)
    }
}

/// A unique value that more than one stored item holds, found by a
/// backfill's check before it creates the guards of a constraint declared
/// after items were stored. The value itself is not shown.
///
/// ```
/// let duplicate = ddb_runtime::schema::UniqueDuplicate {
///     field: "email",
///     items: vec!["USER#1 / PROFILE".into(), "USER#7 / PROFILE".into()],
/// };
/// assert_eq!(
///     duplicate.to_string(),
///     "unique `email`: one value held by USER#1 / PROFILE, USER#7 / PROFILE"
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UniqueDuplicate {
    /// The constraint: the field's name, or the fields' names joined by `_`.
    pub field: &'static str,
    /// The keys (`PK / SK`) of the items holding the one value.
    pub items: Vec<String>,
}

impl std::fmt::Display for UniqueDuplicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unique `{}`: one value held by {}",
            self.field,
            self.items.join(", ")
        )
    }
}
