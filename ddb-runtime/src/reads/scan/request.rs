//! One DynamoDB Scan request of one segment: its settings, kept apart from
//! sending it (so a dry run can show them), and sending it with its span.
//! The typed scan and the backfill both read through it.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};

use crate::db::Db;
use crate::error::Result;
use crate::item::Item;
use crate::telemetry;
use crate::telemetry::Capacity;

/// Everything one Scan request of one segment sends, but the capacity it
/// asks for (decided with its span).
#[derive(Debug, Clone, Default)]
pub(crate) struct ScanRequest {
    pub entity: &'static str,
    pub table_name: String,
    /// This segment, of `segments` (`Segment`, `TotalSegments`).
    pub segment: u32,
    pub segments: u32,
    pub consistent: bool,
    pub filter: Option<String>,
    pub projection: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
    /// `Limit`: items read (before the filter), not items returned.
    pub limit: Option<i32>,
    pub start: Option<Item>,
    /// Count the items (`Select: COUNT`) rather than return them.
    pub count: bool,
}

/// What one Scan request read.
pub(crate) struct Scanned {
    pub items: Vec<Item>,
    pub capacity: Capacity,
    /// Items read, before the filter (`ScannedCount`).
    pub scanned_count: i32,
    /// Items returned, or counted with `Select: COUNT` (`Count`).
    pub count: i32,
    /// Where the segment resumes; `None` at its end.
    pub last_key: Option<Item>,
}

impl ScanRequest {
    /// `Select`: the count, or only the projected attributes when
    /// projecting.
    fn select(&self) -> Option<Select> {
        if self.count {
            return Some(Select::Count);
        }
        self.projection.as_ref().map(|_| Select::SpecificAttributes)
    }

    /// The SDK request's settings, capacity as given: everything sent, and
    /// nothing sent yet.
    pub(crate) fn settings(
        &self,
        builder: ScanFluentBuilder,
        capacity: Option<ReturnConsumedCapacity>,
    ) -> ScanFluentBuilder {
        // One segment of one is a plain Scan: DynamoDB takes both or neither.
        let (segment, segments) = match self.segments {
            0 | 1 => (None, None),
            n => (Some(self.segment as i32), Some(n as i32)),
        };
        builder
            .table_name(&self.table_name)
            .set_segment(segment)
            .set_total_segments(segments)
            .set_consistent_read(self.consistent.then_some(true))
            .set_filter_expression(self.filter.clone())
            .set_projection_expression(self.projection.clone())
            .set_select(self.select())
            .set_expression_attribute_names(self.names.clone())
            .set_expression_attribute_values(self.values.clone())
            .set_limit(self.limit)
            .set_exclusive_start_key(self.start.clone())
            .set_return_consumed_capacity(capacity)
    }

    /// Sends the request with its span. `capacity` is what to ask of
    /// DynamoDB's consumed capacity whatever the span: `None` asks only
    /// when the handle or a recorded span wants it.
    pub(crate) async fn send(
        &self,
        db: &Db,
        capacity: Option<ReturnConsumedCapacity>,
    ) -> Result<Scanned> {
        let span = db.span("Scan", &self.table_name, None, self.entity);
        let select = self.select();
        let read = telemetry::Read {
            consistent: self.consistent,
            limit: self.limit,
            projection: self.projection.as_deref(),
            select: select.as_ref().map(Select::as_str),
            // Sent only for a parallel scan (see `settings`).
            segment: (self.segments > 1).then_some((self.segment as i32, self.segments as i32)),
            ..Default::default()
        };
        span.reading(&read, self.names.as_ref());
        let capacity = capacity.or_else(|| db.consumed_capacity(&span, false));
        let request =
            |client: &aws_sdk_dynamodb::Client| self.settings(client.scan(), capacity.clone());
        let mut output = db.send_in_span(&span, request(db.client())).await?;
        Ok(Scanned {
            capacity: Capacity::of(output.consumed_capacity.take()),
            items: output.items.take().unwrap_or_default(),
            scanned_count: output.scanned_count,
            count: output.count,
            last_key: output.last_evaluated_key,
        })
    }
}
