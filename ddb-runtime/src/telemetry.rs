//! Observability: one `tracing` span per DynamoDB request ddb sends, named
//! and attributed by OpenTelemetry's database conventions for DynamoDB, and
//! the capacity DynamoDB reports for it.
//!
//! A span (level INFO, target `ddb`) carries `db.system` (`"dynamodb"`),
//! `db.system.name` (`"aws.dynamodb"`), `db.operation.name` (`"PutItem"`,
//! `"Query"`, ...), `aws.dynamodb.table_names`, `aws.dynamodb.index_name`
//! (empty for the table), `ddb.entity`, and, once the answer is in,
//! `aws.dynamodb.consumed_capacity` (total units), `aws.dynamodb.count` (items
//! returned or written), `ddb.attempts` (the SDK's attempts, retries
//! included) and `error.type` on failure. Never a key value or an item's
//! content: keys and items may be personal data. A `tracing-opentelemetry`
//! layer exports them as OpenTelemetry spans.

use std::sync::OnceLock;

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::field::Field;

/// The capacity DynamoDB reported a request consumed: the total, the table's
/// share and each index's (`ReturnConsumedCapacity::INDEXES`), so a write's
/// cost across its global secondary indexes is visible.
///
/// ```
/// let capacity = ddb_runtime::Capacity::default();
/// assert_eq!(capacity.total, 0.0);
/// assert!(capacity.indexes.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Capacity {
    /// Capacity units in all.
    pub total: f64,
    /// The table's units.
    pub table: f64,
    /// Each index's units, by index name.
    pub indexes: Vec<(String, f64)>,
}

impl Capacity {
    /// The capacity of one answer's `ConsumedCapacity`, its index names
    /// moved out of it.
    pub(crate) fn of(capacity: Option<ConsumedCapacity>) -> Self {
        let Some(capacity) = capacity else {
            return Capacity::default();
        };
        let total = Self::total_of(Some(&capacity));
        let table = capacity.table.and_then(|t| t.capacity_units);
        let mut indexes: Vec<(String, f64)> = capacity
            .global_secondary_indexes
            .into_iter()
            .chain(capacity.local_secondary_indexes)
            .flatten()
            .map(|(name, c)| (name, c.capacity_units.unwrap_or(0.0)))
            .collect();
        indexes.sort_by(|a, b| a.0.cmp(&b.0));
        Capacity {
            total,
            table: table.unwrap_or(total),
            indexes,
        }
    }

    /// The total units of one answer's `ConsumedCapacity`, for a caller
    /// that needs no more (no index names copied).
    pub(crate) fn total_of(capacity: Option<&ConsumedCapacity>) -> f64 {
        capacity.and_then(|c| c.capacity_units()).unwrap_or(0.0)
    }

    /// The capacity of an answer that reports it per table (a batch, a
    /// transaction), summed over its tables.
    pub(crate) fn of_tables(capacity: Option<Vec<ConsumedCapacity>>) -> Self {
        let mut tables = capacity
            .into_iter()
            .flatten()
            .map(|c| Capacity::of(Some(c)));
        // The first table's capacity is the sum so far, as it is.
        let mut sum = tables.next().unwrap_or_default();
        for other in tables {
            sum.add(&other);
        }
        sum
    }

    /// The sum of several answers' capacity (a transaction's tables, a
    /// batch's requests).
    pub(crate) fn add(&mut self, other: &Capacity) {
        self.total += other.total;
        self.table += other.table;
        for (name, units) in &other.indexes {
            match self.indexes.iter_mut().find(|(n, _)| n == name) {
                Some((_, sum)) => *sum += units,
                None => self.indexes.push((name.clone(), *units)),
            }
        }
    }
}

/// The span of one request: its operation, table, index and entity.
pub(crate) fn span(
    operation: &'static str,
    table: &str,
    index: Option<&str>,
    entity: &'static str,
) -> tracing::Span {
    tracing::info_span!(
        target: "ddb",
        "dynamodb",
        otel.name = %format_args!("{operation} {table}"),
        otel.kind = "client",
        db.system = "dynamodb",
        db.system.name = "aws.dynamodb",
        db.operation.name = operation,
        aws.dynamodb.table_names = table,
        aws.dynamodb.index_name = index.unwrap_or(""),
        ddb.entity = entity,
        aws.dynamodb.consumed_capacity = tracing::field::Empty,
        aws.dynamodb.count = tracing::field::Empty,
        ddb.attempts = tracing::field::Empty,
        error.type = tracing::field::Empty,
    )
}

/// The fields [`span`]'s answer fills in, found once: recording by name
/// searches the span's twelve fields on every request.
struct AnswerFields {
    capacity: Field,
    count: Field,
    attempts: Field,
    error: Field,
}

/// The answer fields of `span` (made by [`span`], one call site); `None`
/// when the span has no fields to record (no subscriber nor log wants it).
fn answer_fields(span: &tracing::Span) -> Option<&'static AnswerFields> {
    static FIELDS: OnceLock<AnswerFields> = OnceLock::new();
    let fields = span.metadata()?.fields();
    if let Some(found) = FIELDS.get() {
        return Some(found);
    }
    let found = AnswerFields {
        capacity: fields.field("aws.dynamodb.consumed_capacity")?,
        count: fields.field("aws.dynamodb.count")?,
        attempts: fields.field("ddb.attempts")?,
        error: fields.field("error.type")?,
    };
    Some(FIELDS.get_or_init(|| found))
}

/// Records what the answer said on `span`.
pub(crate) fn record(span: &tracing::Span, capacity: f64, count: usize, attempts: u32) {
    let Some(fields) = answer_fields(span) else {
        return;
    };
    span.record(&fields.capacity, capacity);
    span.record(&fields.count, count as u64);
    if attempts > 0 {
        span.record(&fields.attempts, attempts);
    }
}

/// The SDK's failure of `operation` as ddb's error, recorded on `span`.
pub(crate) fn sdk_failure<E, R>(
    span: &tracing::Span,
    operation: &'static str,
    error: aws_sdk_dynamodb::error::SdkError<E, R>,
) -> crate::error::Error
where
    aws_sdk_dynamodb::Error: From<aws_sdk_dynamodb::error::SdkError<E, R>>,
{
    let error = crate::error::Error::sdk(operation, error);
    record_error(span, &error);
    error
}

/// Records a failed request on `span`: the error's kind, never its text
/// (which can quote a key).
pub(crate) fn record_error(span: &tracing::Span, error: &crate::error::Error) {
    if let Some(fields) = answer_fields(span) {
        span.record(&fields.error, error_type(error));
    }
}

/// The kind of `error`, for spans and logs (never its text, which can
/// quote a key).
pub(crate) fn error_type(error: &crate::error::Error) -> &'static str {
    use crate::error::Error as E;
    match error {
        E::ConditionFailed { .. } => "ConditionalCheckFailed",
        E::VersionConflict { .. } => "VersionConflict",
        E::AlreadyExists { .. } => "AlreadyExists",
        E::ChangedSinceRead { .. } => "ChangedSinceRead",
        E::NotFound { .. } => "NotFound",
        E::WriteOutcomeUnknown { .. } => "WriteOutcomeUnknown",
        E::TransactionCanceled { .. } => "TransactionCanceled",
        E::Unprocessed { .. } => "Unprocessed",
        E::Migration { .. } => "Migration",
        E::Sdk { .. } => "Sdk",
        _ => "Invalid",
    }
}

/// What a transaction's span names, from each action's entity type and
/// table: the table (the tables, each once, sorted and comma-joined, when
/// the actions are on several), and the entity type ("" when they are of
/// several).
pub(crate) fn span_names<'a>(
    actions: impl Iterator<Item = (&'static str, &'a str)> + Clone,
) -> (std::borrow::Cow<'a, str>, &'static str) {
    let mut rest = actions.clone();
    let Some((entity, table)) = rest.next() else {
        return (std::borrow::Cow::Borrowed(""), "");
    };
    let (mut one_table, mut one_entity) = (true, true);
    for (other_entity, other_table) in rest {
        one_table &= other_table == table;
        one_entity &= other_entity == entity;
    }
    let tables = if one_table {
        std::borrow::Cow::Borrowed(table)
    } else {
        let mut tables: Vec<&str> = actions.map(|(_, table)| table).collect();
        tables.sort_unstable();
        tables.dedup();
        std::borrow::Cow::Owned(tables.join(","))
    };
    (tables, if one_entity { entity } else { "" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_span_names_one_table_or_each_once_and_one_entity_type() {
        let names = |actions: &[(&'static str, &'static str)]| {
            let (tables, entity) = super::span_names(actions.iter().copied());
            (tables.into_owned(), entity)
        };
        assert_eq!(
            names(&[("Order", "T"), ("Order", "T")]),
            ("T".into(), "Order")
        );
        assert_eq!(
            names(&[("Order", "B"), ("Customer", "A"), ("Order", "B")]),
            ("A,B".into(), "")
        );
        assert_eq!(names(&[]), (String::new(), ""));
    }
}
