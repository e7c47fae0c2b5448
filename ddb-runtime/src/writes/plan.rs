//! The one write plan every write goes through: single PutItem, UpdateItem
//! and DeleteItem requests, transaction actions and batch requests are all
//! rendered from it, and every failed condition is mapped by it.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, DeleteRequest, Put, PutRequest, ReturnValue,
    ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update, WriteRequest,
};

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, ExistingItem, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::Item;
use crate::keys::key::Key;
use crate::telemetry;
use crate::telemetry::Capacity;

use super::item::{key_text, same_value, stored_version, version_attribute};
use crate::item::size::item_size;
use crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
use crate::transport::attempts::Attempts;
use crate::transport::operation::Operation;

/// What a write does to its item.
pub(crate) enum Action {
    /// PutItem: the whole item.
    Put(Item),
    /// UpdateItem: the update expression (its names and values are in the
    /// plan's placeholders).
    Update(String),
    /// DeleteItem.
    Delete,
    /// A transaction's ConditionCheck.
    ConditionCheck,
}

/// One item write: its target, action, condition, the version the caller
/// expects, and what an update read first to maintain index keys.
pub(crate) struct WritePlan<E> {
    pub key: Key<E>,
    pub action: Action,
    pub condition: Option<String>,
    pub placeholders: Placeholders,
    /// The version the caller expects: a failure is a version conflict.
    pub expected_version: Option<u64>,
    /// A missing item fails the write as [`Error::NotFound`].
    pub must_exist: bool,
    /// A create: an item met fails it as [`Error::AlreadyExists`].
    pub creates: bool,
    /// The item an update read first, if it did.
    pub read: Option<ReadFirst>,
    /// A put's item size, when it was measured as the item was checked.
    pub item_size: Option<usize>,
    /// What an update's condition assumed of the stored item.
    pub assumed: Assumptions,
    /// The caller reads the capacity the write consumed
    /// (`send_with_capacity`): DynamoDB is asked for it.
    pub capacity_asked: bool,
}

/// What an update read before writing, and what its write is conditioned on.
#[derive(Clone)]
pub(crate) struct ReadFirst {
    pub item: Item,
    /// Attributes the write requires unchanged (entities without a version).
    pub conditioned: Vec<&'static str>,
    /// Whether the write requires the version it read.
    pub version_derived: bool,
}

/// What an update's condition assumed of the stored item without reading
/// it. An update sent by itself is sent again when the item a failed
/// condition returns shows an assumption wrong.
#[derive(Debug, Default)]
pub(crate) struct Assumptions {
    /// The sparse indexes written side by side: the attribute whose
    /// presence the condition requires (`true`) or refuses (`false`).
    pub markers: Vec<(&'static str, bool)>,
    /// The condition refuses any `_schema`: the item of an entity that
    /// declares no schema version is assumed to store none.
    pub no_stored_schema: bool,
}

impl Assumptions {
    /// What `item`, as a failed condition returned it, shows wrong: the
    /// marker attributes it lacks (the sparse indexes it is not in) and
    /// whether it stores `_schema`; `None` when every assumption held.
    pub fn corrected_by(&self, item: &Item) -> Option<(Vec<&'static str>, bool)> {
        let stored = |attribute: &str| item.contains_key(attribute);
        let schema_stored = stored(SCHEMA_VERSION_ATTRIBUTE);
        let held = self
            .markers
            .iter()
            .all(|&(marker, member)| stored(marker) == member)
            && !(self.no_stored_schema && schema_stored);
        if held {
            return None;
        }
        let absent = self
            .markers
            .iter()
            .map(|&(marker, _)| marker)
            .filter(|marker| !stored(marker))
            .collect();
        Some((absent, schema_stored))
    }
}

/// The parts of a DynamoDB request every write action shares.
struct Parts {
    key: Item,
    condition: Option<String>,
    names: crate::expression::NameMap,
    values: crate::expression::ValueMap,
}

/// `builder` (a single write's request or a transaction's action) with
/// what every conditioned write ddb sends carries: the condition, its names
/// and values, and the item back when the condition fails. A write without
/// a condition cannot fail one, and asks for no item.
macro_rules! conditioned {
    ($builder:expr, $parts:ident) => {{
        let item_on_failure = $parts
            .condition
            .as_ref()
            .map(|_| ReturnValuesOnConditionCheckFailure::AllOld);
        $builder
            .set_condition_expression($parts.condition)
            .set_expression_attribute_names($parts.names)
            .set_expression_attribute_values($parts.values)
            .set_return_values_on_condition_check_failure(item_on_failure)
    }};
}

impl<E: Entity + 'static> WritePlan<E> {
    /// A plan with `condition` rendered (and checked against DynamoDB's
    /// expression limit) into `placeholders`, which may already hold an
    /// update's names and values.
    pub(crate) fn new(
        key: Key<E>,
        action: Action,
        condition: Option<&Condition<E>>,
        mut placeholders: Placeholders,
    ) -> Result<Self> {
        let condition = condition.map(|c| c.render(&mut placeholders)).transpose();
        Self::with_condition(key, action, condition, placeholders)
    }

    /// [`new`](Self::new) with the condition already rendered into
    /// `placeholders` (or the first value that could not be converted).
    pub(crate) fn with_condition(
        key: Key<E>,
        action: Action,
        condition: std::result::Result<Option<String>, String>,
        mut placeholders: Placeholders,
    ) -> Result<Self> {
        let entity = E::SCHEMA.entity_type;
        let condition = condition
            .map_err(|reason| Error::InvalidRequest { entity, reason })?
            .map(|text| placeholders.fit(entity, "condition", text))
            .transpose()?;
        placeholders.check(entity)?;
        Ok(Self {
            key,
            action,
            condition,
            placeholders,
            expected_version: None,
            must_exist: false,
            creates: false,
            read: None,
            item_size: None,
            assumed: Assumptions::default(),
            capacity_asked: false,
        })
    }

    /// The size DynamoDB counts for the action: the item for a put, the key
    /// and expression otherwise.
    pub(crate) fn size(&self) -> usize {
        match &self.action {
            Action::Put(item) => self.item_size.unwrap_or_else(|| item_size(item)),
            Action::Update(expression) => item_size(&self.key.to_item()) + expression.len(),
            Action::Delete | Action::ConditionCheck => item_size(&self.key.to_item()),
        }
    }

    /// The parts of the request, moved out: a plan is sent once.
    fn take_parts(&mut self) -> Parts {
        let (names, values) = std::mem::take(&mut self.placeholders).into_maps();
        Parts {
            // A put names its key in its item.
            key: match self.action {
                Action::Put(_) => Item::new(),
                _ => self.key.to_item(),
            },
            condition: self.condition.take(),
            names,
            values,
        }
    }

    /// Sends the plan as a PutItem, UpdateItem or DeleteItem, in a span of
    /// its own, and returns the attributes `return_values` asked for and the
    /// capacity DynamoDB reports it consumed (table and indexes). A put's
    /// item moves into the request: the plan no longer holds it.
    pub(crate) async fn send(
        &mut self,
        db: &Db,
        return_values: Option<ReturnValue>,
    ) -> Result<(Option<Item>, Capacity)> {
        self.send_recorded(db, return_values, &Attempts::default())
            .await
    }

    /// [`send`](Self::send), its attempts recorded into `attempts`.
    pub(crate) async fn send_recorded(
        &mut self,
        db: &Db,
        return_values: Option<ReturnValue>,
        attempts: &Attempts,
    ) -> Result<(Option<Item>, Capacity)> {
        let table = db.table_name::<E::Table>();
        let operation = match &self.action {
            Action::Put(_) => "PutItem",
            Action::Update(_) => "UpdateItem",
            Action::Delete => "DeleteItem",
            Action::ConditionCheck => {
                return Err(Error::InvalidRequest {
                    entity: E::SCHEMA.entity_type,
                    reason: "a condition check is sent inside a transaction".into(),
                })
            }
        };
        let span = db.span(operation, table, None, E::SCHEMA.entity_type);
        let parts = self.take_parts();
        let capacity = db.consumed_capacity(&span, self.capacity_asked);
        let client = db.client();
        match &mut self.action {
            Action::Put(item) => {
                let put = client.put_item().set_item(Some(std::mem::take(item)));
                let request = conditioned!(put.table_name(table), parts)
                    .set_return_values(return_values)
                    .set_return_consumed_capacity(capacity);
                self.answer(db, &span, attempts, request).await
            }
            Action::Update(expression) => {
                let update = client
                    .update_item()
                    .set_key(Some(parts.key))
                    .update_expression(std::mem::take(expression));
                let request = conditioned!(update.table_name(table), parts)
                    .set_return_values(return_values)
                    .set_return_consumed_capacity(capacity);
                self.answer(db, &span, attempts, request).await
            }
            Action::Delete | Action::ConditionCheck => {
                let delete = client.delete_item().set_key(Some(parts.key));
                let request = conditioned!(delete.table_name(table), parts)
                    .set_return_values(return_values)
                    .set_return_consumed_capacity(capacity);
                self.answer(db, &span, attempts, request).await
            }
        }
    }

    /// Sends a single write's `request`: the attributes it returned and
    /// the capacity it consumed, or its failure (see `sdk_failure`).
    async fn answer<O>(
        &self,
        db: &Db,
        span: &telemetry::RequestSpan,
        attempts: &Attempts,
        request: O,
    ) -> Result<(Option<Item>, Capacity)>
    where
        O: Operation,
        O::Output: WriteAnswer,
        O::Error: ConditionFailure + ProvideErrorMetadata,
        aws_sdk_dynamodb::Error: From<SdkError<O::Error, HttpResponse>>,
    {
        let failure = async |refused: SdkError<O::Error, HttpResponse>| {
            let met = match refused
                .as_service_error()
                .and_then(ConditionFailure::condition_failed)
            {
                Some(returned) => Some(self.item_met(db, returned).await),
                None => None,
            };
            self.sdk_failure(O::OPERATION, refused, met, attempts)
        };
        let output = db.sdk().send(span, attempts, request, failure).await?;
        let (attributes, consumed) = output.into_parts();
        Ok((attributes, Capacity::of(consumed)))
    }

    /// The item a failed condition met (see `writes::condition_met`).
    async fn item_met(&self, db: &Db, returned: Option<Item>) -> Option<Item> {
        let at = (db.table_name::<E::Table>(), E::SCHEMA.entity_type);
        super::condition_met::item_met(db, at, || self.key.to_item(), returned).await
    }

    /// A failed request: the condition failure, given the item it met
    /// (`met`), or the SDK's error; either is an unknown outcome when an
    /// attempt may have been applied.
    fn sdk_failure<O>(
        &self,
        operation: &'static str,
        error: SdkError<O, aws_sdk_dynamodb::config::http::HttpResponse>,
        met: Option<Option<Item>>,
        attempts: &Attempts,
    ) -> Error
    where
        aws_sdk_dynamodb::Error: From<SdkError<O, aws_sdk_dynamodb::config::http::HttpResponse>>,
    {
        match met {
            Some(existing) if attempts.maybe_applied() => {
                self.outcome_unknown(self.failure(existing))
            }
            Some(existing) => self.failure(existing),
            // The SDK gave up (retries spent, a timeout) after an attempt
            // that may have been applied: sending it again is not safe.
            None if attempts.maybe_applied() => self.outcome_unknown(Error::sdk(operation, error)),
            None => Error::sdk(operation, error),
        }
    }

    pub(super) fn outcome_unknown(&self, failure: Error) -> Error {
        Error::WriteOutcomeUnknown {
            entity: E::SCHEMA.entity_type,
            key: key_text(&self.key),
            failure: Box::new(failure),
        }
    }

    /// The plan as one action of a TransactWriteItems on `table`. A put's
    /// item moves into the action: the plan no longer holds it.
    pub(crate) fn transact_item(&mut self, table: &str) -> Result<TransactWriteItem> {
        let parts = self.take_parts();
        let invalid = |e: aws_sdk_dynamodb::error::BuildError| Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: e.to_string(),
        };
        let item = TransactWriteItem::builder();
        Ok(match &mut self.action {
            Action::Put(put) => {
                let put = Put::builder().set_item(Some(std::mem::take(put)));
                let put = conditioned!(put.table_name(table), parts);
                item.put(put.build().map_err(invalid)?)
            }
            Action::Update(expression) => {
                let update = Update::builder()
                    .set_key(Some(parts.key))
                    .update_expression(expression.as_str());
                let update = conditioned!(update.table_name(table), parts);
                item.update(update.build().map_err(invalid)?)
            }
            Action::Delete => {
                let delete = Delete::builder().set_key(Some(parts.key));
                let delete = conditioned!(delete.table_name(table), parts);
                item.delete(delete.build().map_err(invalid)?)
            }
            Action::ConditionCheck => {
                let check = ConditionCheck::builder().set_key(Some(parts.key));
                let check = conditioned!(check.table_name(table), parts);
                item.condition_check(check.build().map_err(invalid)?)
            }
        }
        .build())
    }

    /// The plan as one request of a BatchWriteItem, which takes no
    /// conditions: only an unconditional put or delete.
    pub(crate) fn into_write_request(self) -> Result<WriteRequest> {
        let invalid = |reason: String| Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason,
        };
        if self.condition.is_some() {
            return Err(invalid(
                "BatchWriteItem takes no conditions; use a transaction".into(),
            ));
        }
        Ok(match self.action {
            Action::Put(item) => WriteRequest::builder()
                .put_request(
                    PutRequest::builder()
                        .set_item(Some(item))
                        .build()
                        .map_err(|e| invalid(e.to_string()))?,
                )
                .build(),
            Action::Delete => WriteRequest::builder()
                .delete_request(
                    DeleteRequest::builder()
                        .set_key(Some(self.key.to_item()))
                        .build()
                        .map_err(|e| invalid(e.to_string()))?,
                )
                .build(),
            Action::Update(_) | Action::ConditionCheck => {
                return Err(invalid("BatchWriteItem puts and deletes only".into()))
            }
        })
    }

    /// Maps a failed condition, given the item as it was (ALL_OLD): see
    /// [`FailureReading::failure`].
    pub(crate) fn failure(&self, existing: Option<Item>) -> Error {
        self.reading().failure(existing)
    }

    /// What the write knows that reads its failed condition.
    pub(crate) fn reading(&self) -> FailureReading<'_, E> {
        FailureReading {
            key: &self.key,
            expected_version: self.expected_version,
            updates: matches!(self.action, Action::Update(_)),
            must_exist: self.must_exist,
            creates: self.creates,
            read: self.read.as_ref(),
        }
    }

    /// [`failure`](Self::failure), kept for later: a transaction reads its
    /// actions' failures once DynamoDB answers.
    pub(crate) fn failure_reader(&self) -> FailureReader {
        let (key, read) = (self.key.clone(), self.read.clone());
        let reading = self.reading();
        let (expected_version, updates, must_exist, creates) = (
            reading.expected_version,
            reading.updates,
            reading.must_exist,
            reading.creates,
        );
        std::sync::Arc::new(move |existing| {
            let reading = FailureReading {
                key: &key,
                expected_version,
                updates,
                must_exist,
                creates,
                read: read.as_ref(),
            };
            reading.failure(existing)
        })
    }
}

/// A write's failed condition read as ddb's error, from the item as it was.
pub(crate) type FailureReader = std::sync::Arc<dyn Fn(Option<Item>) -> Error + Send + Sync>;

/// What a write knew that reads its failed condition.
pub(crate) struct FailureReading<'a, E> {
    key: &'a Key<E>,
    /// The version the caller expected.
    expected_version: Option<u64>,
    /// The write is an update.
    updates: bool,
    must_exist: bool,
    creates: bool,
    /// What an update read first.
    read: Option<&'a ReadFirst>,
}

impl<E: Entity> FailureReading<'_, E> {
    /// Maps a failed condition, given the item as it was (ALL_OLD): a
    /// version the caller expected is a [`Error::VersionConflict`], a
    /// missing item [`Error::NotFound`] when the write needed one, a change
    /// to what an update read first [`Error::ChangedSinceRead`], an item a
    /// create met [`Error::AlreadyExists`], anything else
    /// [`Error::ConditionFailed`] with the stored item.
    pub(crate) fn failure(&self, existing: Option<Item>) -> Error {
        let schema = &E::SCHEMA;
        let entity = schema.entity_type;
        let key = key_text(self.key);
        if let Some(expected) = self.expected_version {
            let current = stored_version(schema, existing.as_ref());
            if current != Some(expected) && !(expected == 0 && existing.is_none()) {
                return Error::VersionConflict {
                    entity,
                    key,
                    expected,
                    current,
                };
            }
        }
        if let (Some(item), true) = (&existing, self.updates) {
            let stored = crate::item::stored::stored_schema_version(item).unwrap_or(0);
            let current = schema.schema_version;
            if stored != current {
                let reason = if stored > current {
                    format!(
                        "the item was written by code at schema version {stored}, newer than \
                         this code's {current}: deploy the newer code everywhere before it writes"
                    )
                } else {
                    format!(
                        "the item is stored at schema version {stored} and this write needs \
                         version {current}'s shape: read and put it (reads migrate it), or run \
                         the backfill, which upgrades every item"
                    )
                };
                return Error::Migration {
                    entity,
                    key,
                    from: stored,
                    reason,
                };
            }
        }
        let gone = existing
            .as_ref()
            .is_none_or(|item| crate::item::timestamp::expired(schema, item));
        if self.must_exist && gone {
            return Error::NotFound { entity, key };
        }
        if let (Some(read), Some(existing)) = (self.read, &existing) {
            let differs =
                |attribute: &str| match (read.item.get(attribute), existing.get(attribute)) {
                    (Some(a), Some(b)) => !same_value(a, b),
                    (a, b) => a.is_some() != b.is_some(),
                };
            let mut changed: Vec<String> = read
                .conditioned
                .iter()
                .filter(|a| differs(a))
                .map(|a| (*a).to_owned())
                .collect();
            if let Some(version) = version_attribute(schema) {
                if read.version_derived && differs(version) {
                    changed.push(version.to_owned());
                }
            }
            if !changed.is_empty() {
                return Error::ChangedSinceRead {
                    entity,
                    key,
                    attributes: changed,
                };
            }
        }
        match existing {
            Some(existing) if self.creates => Error::AlreadyExists {
                entity,
                key,
                existing: ExistingItem(existing),
            },
            existing => Error::ConditionFailed {
                entity,
                key,
                existing: existing.map(ExistingItem),
            },
        }
    }
}

/// `a AND b`, where `a` may be absent.
pub(crate) fn and<E>(a: Option<Condition<E>>, b: Condition<E>) -> Condition<E> {
    match a {
        Some(a) => a & b,
        None => b,
    }
}

/// What a PutItem, UpdateItem or DeleteItem answers: the attributes its
/// return values asked for, and the capacity it consumed.
pub(crate) trait WriteAnswer: telemetry::Reported {
    fn into_parts(
        self,
    ) -> (
        Option<Item>,
        Option<aws_sdk_dynamodb::types::ConsumedCapacity>,
    );
}

macro_rules! write_answer {
    ($($output:ty),* $(,)?) => {$(
        impl WriteAnswer for $output {
            fn into_parts(
                self,
            ) -> (
                Option<Item>,
                Option<aws_sdk_dynamodb::types::ConsumedCapacity>,
            ) {
                (self.attributes, self.consumed_capacity)
            }
        }
    )*};
}

write_answer!(
    aws_sdk_dynamodb::operation::put_item::PutItemOutput,
    aws_sdk_dynamodb::operation::update_item::UpdateItemOutput,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput,
);

/// Service errors that can be a ConditionalCheckFailedException.
pub(crate) trait ConditionFailure {
    /// `Some(item)` for a failed condition (the item when ALL_OLD returned one).
    fn condition_failed(&self) -> Option<Option<Item>>;
}

macro_rules! condition_failure {
    ($($error:ty => $variant:path),* $(,)?) => {$(
        impl ConditionFailure for $error {
            fn condition_failed(&self) -> Option<Option<Item>> {
                match self {
                    $variant(e) => Some(e.item.clone()),
                    _ => None,
                }
            }
        }
    )*};
}

condition_failure!(
    aws_sdk_dynamodb::operation::put_item::PutItemError => aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemError => aws_sdk_dynamodb::operation::delete_item::DeleteItemError::ConditionalCheckFailedException,
    aws_sdk_dynamodb::operation::update_item::UpdateItemError => aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException,
);
