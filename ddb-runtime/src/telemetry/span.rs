//! The span of one request: created with what the request asks, filled in
//! with what its answer said.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::RequestId;
use std::collections::HashMap;
use std::sync::OnceLock;

use tracing::field::{Empty, Field};

use super::Reported;
use crate::error::{Error, Throttle};

/// Where a client's requests go: its region, known when the client is
/// made, and the endpoint's host and port, known once a request went out.
#[derive(Debug, Default)]
pub(crate) struct Server {
    region: Option<String>,
    endpoint: OnceLock<(String, u16)>,
}

impl Server {
    /// The server of `client`, as its configuration names it (the
    /// endpoint is learned as requests go out).
    pub(crate) fn of(client: &aws_sdk_dynamodb::Client) -> Self {
        Self {
            region: client.config().region().map(ToString::to_string),
            endpoint: OnceLock::new(),
        }
    }

    /// Learns the endpoint from the URI of a request about to be sent.
    pub(crate) fn sending_to(&self, uri: &str) {
        if self.endpoint.get().is_none() {
            if let Some(endpoint) = host_and_port(uri) {
                let _ = self.endpoint.set(endpoint);
            }
        }
    }
}

/// The host and port of `uri` (`https://dynamodb.eu-west-1.amazonaws.com/`
/// is port 443), an IPv6 host without its brackets.
pub(crate) fn host_and_port(uri: &str) -> Option<(String, u16)> {
    let (scheme, rest) = uri.split_once("://")?;
    let authority = rest.split(['/', '?']).next()?;
    let authority = authority.rsplit('@').next()?;
    let default_port = match scheme {
        "http" => 80,
        _ => 443,
    };
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let port = match port {
        Some(port) => port.parse().ok()?,
        None => default_port,
    };
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

/// What a read asks, as the span records it.
#[derive(Debug, Default)]
pub(crate) struct Read<'a> {
    /// `ConsistentRead`.
    pub(crate) consistent: bool,
    /// `Limit`, when sent.
    pub(crate) limit: Option<i32>,
    /// `ProjectionExpression`, as sent.
    pub(crate) projection: Option<&'a str>,
    /// `ScanIndexForward` (a Query's).
    pub(crate) forward: Option<bool>,
    /// `Select`, when sent.
    pub(crate) select: Option<&'a str>,
    /// A Scan's `Segment` and `TotalSegments`.
    pub(crate) segment: Option<(i32, i32)>,
}

/// What the attempts of one request met, for its span: how many the SDK
/// made, and each throttle DynamoDB answered one with, whether the SDK's
/// retries absorbed it or it reached the caller.
#[derive(Debug, Default)]
pub(crate) struct Tried {
    /// The SDK's attempts (0: not counted).
    pub(crate) count: u32,
    /// Each throttled attempt's reasons.
    pub(crate) throttles: Vec<Throttle>,
}

/// The span of one DynamoDB request (see [the module](super)).
#[derive(Debug, Clone)]
pub(crate) struct RequestSpan(tracing::Span, Recorded, Answers, Metered);

/// The errors a request's caller handles as an answer (a table that
/// already exists, one probed for that does not): the operation completes,
/// and its span is not failed.
type Answers = Option<fn(&Error) -> bool>;

/// Where the capacity of the request's answer is summed, besides its span.
type Metered = Option<super::CapacityMeter>;

/// What DynamoDB (or the SDK) answered a failed request with, read before
/// ddb reads the failure as its own error.
#[derive(Debug, Default)]
pub(crate) struct Refusal {
    request_id: Option<String>,
    /// `error.type`, and DynamoDB's code when it answered one.
    error_type: String,
    code: Option<String>,
}

/// Whether a subscriber records the span, decided when it is made.
#[derive(Debug, Clone, Copy)]
struct Recorded(bool);

impl Recorded {
    /// A call site that another thread's subscriber always wants is
    /// created on every thread, with no subscriber where none is set: such
    /// a span is not recorded. The subscriber is not asked again (a filter
    /// asked outside tracing's own sequence can drop what follows).
    fn of(span: &tracing::Span) -> Self {
        let nobody = |(_, subscriber): (&tracing::Id, &tracing::Dispatch)| {
            subscriber.is::<tracing::subscriber::NoSubscriber>()
        };
        Recorded(!span.is_disabled() && !span.with_subscriber(nobody).unwrap_or(true))
    }
}

impl RequestSpan {
    /// The span of `operation` on `table` (and `index`), for `entity` (""
    /// when the request is of several).
    pub(crate) fn new(
        server: &Server,
        operation: &'static str,
        table: &str,
        index: Option<&str>,
        entity: &'static str,
    ) -> Self {
        Self::of_tables(server, operation, &[table], index, entity)
    }

    /// A span that records nothing: a dry run's requests are not sent.
    pub(crate) fn disabled() -> Self {
        Self(tracing::Span::none(), Recorded(false), None, None)
    }

    /// The span of `operation` on each of `tables`.
    pub(crate) fn of_tables(
        server: &Server,
        operation: &'static str,
        tables: &[&str],
        index: Option<&str>,
        entity: &'static str,
    ) -> Self {
        let span = tracing::info_span!(
            target: "ddb",
            "dynamodb",
            otel.name = %format_args!("DynamoDB.{operation}"),
            otel.kind = "client",
            otel.status_code = Empty,
            db.system.name = "aws.dynamodb",
            db.operation.name = operation,
            db.collection.name = Empty,
            rpc.system = "aws-api",
            rpc.service = "DynamoDB",
            rpc.method = operation,
            cloud.region = Empty,
            server.address = Empty,
            server.port = Empty,
            aws.request_id = Empty,
            aws.dynamodb.index_name = Empty,
            aws.dynamodb.consistent_read = Empty,
            aws.dynamodb.limit = Empty,
            aws.dynamodb.projection = Empty,
            aws.dynamodb.scan_forward = Empty,
            aws.dynamodb.select = Empty,
            aws.dynamodb.segment = Empty,
            aws.dynamodb.total_segments = Empty,
            aws.dynamodb.count = Empty,
            aws.dynamodb.scanned_count = Empty,
            error.type = Empty,
            db.response.status_code = Empty,
            db.operation.batch.size = Empty,
            ddb.entity = Empty,
            ddb.items = Empty,
            ddb.capacity_units = Empty,
            ddb.attempts = Empty,
            ddb.error = Empty,
            ddb.throttling_reasons = Empty,
        );
        let recorded = Recorded::of(&span);
        let this = Self(span, recorded, None, None);
        let Some(fields) = this.fields() else {
            return this;
        };
        if let [table] = tables {
            this.0.record(&fields.collection, *table);
        }
        if let Some(index) = index {
            this.0.record(&fields.index, index);
        }
        if !entity.is_empty() {
            this.0.record(&fields.entity, entity);
        }
        if let Some(region) = &server.region {
            this.0.record(&fields.region, region.as_str());
        }
        #[cfg(feature = "opentelemetry")]
        super::opentelemetry::table_names(&this.0, tables);
        this
    }

    /// This span, recording a failure `handled` by its caller as an
    /// answer.
    pub(crate) fn answering(mut self, handled: fn(&Error) -> bool) -> Self {
        self.2 = Some(handled);
        self
    }

    /// This span, its answer's capacity also summed into `meter`.
    pub(crate) fn metered(mut self, meter: Option<&super::CapacityMeter>) -> Self {
        self.3 = meter.cloned();
        self
    }

    /// Whether the answer's capacity is read: by a meter, or by a
    /// subscriber that records the span.
    pub(crate) fn reads_capacity(&self) -> bool {
        self.3.is_some() || self.is_recorded()
    }

    /// Whether a subscriber records this span: what only the span reads is
    /// asked of DynamoDB only then.
    pub(crate) fn is_recorded(&self) -> bool {
        self.1 .0
    }

    /// The `tracing` span, to instrument the request with.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.0
    }

    /// Records what a read asks, its projection's placeholders resolved
    /// through `names`.
    pub(crate) fn reading(&self, read: &Read<'_>, names: Option<&HashMap<String, String>>) {
        let Some(fields) = self.fields() else { return };
        // Sent only when strong: eventual is DynamoDB's default.
        if read.consistent {
            self.0.record(&fields.consistent_read, true);
        }
        if let Some(limit) = read.limit {
            self.0.record(&fields.limit, i64::from(limit));
        }
        if let Some(projection) = read.projection {
            let projection = crate::expression::names_resolved(projection, names);
            self.0.record(&fields.projection, projection.as_ref());
        }
        if let Some(forward) = read.forward {
            self.0.record(&fields.scan_forward, forward);
        }
        if let Some(select) = read.select {
            self.0.record(&fields.select, select);
        }
        if let Some((segment, total)) = read.segment {
            self.0.record(&fields.segment, i64::from(segment));
            self.0.record(&fields.total_segments, i64::from(total));
        }
    }

    /// Records that the request holds `operations` operations sent as one
    /// (a BatchWriteItem's requests, a transaction's actions): a batch of
    /// two or more, as the conventions define one; one is a single
    /// operation, and records nothing.
    pub(crate) fn batch_of(&self, operations: usize) {
        let Some(fields) = self.fields() else { return };
        if operations >= 2 {
            self.0.record(&fields.batch_size, operations as i64);
        }
    }

    /// Records that the request left items unprocessed and the batch gives
    /// up on them: DynamoDB answered, but the operation did not complete.
    pub(crate) fn left_unprocessed(&self) {
        let Some(fields) = self.fields() else { return };
        // DynamoDB answered: no code of its own.
        self.failure(fields, ("Unprocessed", None), "Unprocessed");
    }

    /// Records a failure: the status, its `error.type` and DynamoDB's
    /// `code` when it answered one, and ddb's reading of it.
    fn failure(&self, fields: &Fields, (error_type, code): (&str, Option<&str>), ddb: &str) {
        self.0.record(&fields.status, "error");
        self.0.record(&fields.error_type, error_type);
        if let Some(code) = code {
            self.0.record(&fields.response_code, code);
        }
        self.0.record(&fields.ddb_error, ddb);
    }

    /// Records what the answer said (`output`, of a request that sent
    /// `sent` items), what its attempts met, and where it came from.
    pub(crate) fn answered(
        &self,
        server: &Server,
        output: &impl Reported,
        sent: usize,
        tried: Tried,
    ) {
        if let Some(meter) = &self.3 {
            meter.add(output.capacity());
        }
        let Some(fields) = self.fields() else { return };
        if let Some(items) = output.items(sent) {
            // As i64: `tracing-opentelemetry` exports a u64 as text.
            self.0.record(&fields.items, items as i64);
        }
        let capacity = output.capacity();
        if !capacity.is_empty() {
            let units: f64 = capacity.iter().filter_map(|c| c.capacity_units).sum();
            self.0.record(&fields.capacity, units);
            #[cfg(feature = "opentelemetry")]
            super::opentelemetry::consumed_capacity(&self.0, capacity);
        }
        if let Some((count, scanned)) = output.scanned() {
            self.0.record(&fields.count, i64::from(count));
            self.0.record(&fields.scanned_count, i64::from(scanned));
        }
        self.ended(fields, server, output.request_id(), &tried);
    }

    /// What the SDK's `error` says of a failed request, kept for its span
    /// (nothing when no subscriber records it): its request id, and what
    /// failed, as `error.type` names it (never the error's text, which can
    /// quote a key).
    pub(crate) fn refusal<E>(&self, error: &SdkError<E, HttpResponse>) -> Refusal
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata,
    {
        if !self.is_recorded() {
            return Refusal::default();
        }
        let service = error.as_service_error();
        let code = service.and_then(|e| e.code());
        let kind = crate::error::SdkErrorKind::of(error);
        Refusal {
            request_id: RequestId::request_id(error).map(str::to_owned),
            error_type: super::error_type::sdk_error_type(kind, code).into_owned(),
            code: code.map(str::to_owned),
        }
    }

    /// Records a failed request: DynamoDB's `refusal`, ddb's reading of it
    /// (`error`), and what its attempts met; a failure the caller handles
    /// ([`answering`](Self::answering)) is recorded as an answer.
    pub(crate) fn failed(
        &self,
        server: &Server,
        refusal: Refusal,
        error: &Error,
        mut tried: Tried,
    ) {
        let Some(fields) = self.fields() else { return };
        if !self.2.is_some_and(|handled| handled(error)) {
            let failed = (refusal.error_type.as_str(), refusal.code.as_deref());
            self.failure(fields, failed, ddb_error(error));
        }
        // The last attempt's throttles are among those the attempts kept;
        // the error's stand in when no attempt's answer could be read.
        if tried.throttles.is_empty() {
            tried.throttles = error.throttling_reasons();
        }
        self.ended(fields, server, refusal.request_id.as_deref(), &tried);
    }

    /// What any answer, or failure, records.
    fn ended(&self, fields: &Fields, server: &Server, request_id: Option<&str>, tried: &Tried) {
        if let Some(request_id) = request_id {
            self.0.record(&fields.request_id, request_id);
        }
        if tried.count > 0 {
            self.0.record(&fields.attempts, i64::from(tried.count));
        }
        if !tried.throttles.is_empty() {
            self.0
                .record(&fields.throttles, throttled(&tried.throttles).as_str());
        }
        if let Some((host, port)) = server.endpoint.get() {
            self.0.record(&fields.address, host.as_str());
            self.0.record(&fields.port, i64::from(*port));
        }
    }

    /// The recorded fields, found once: recording by name would search the
    /// span's fields on every request. `None` when the span has no
    /// fields to record (no subscriber nor log wants it).
    fn fields(&self) -> Option<&'static Fields> {
        static FIELDS: OnceLock<Fields> = OnceLock::new();
        // A span no subscriber records keeps its metadata: nothing would
        // read a record.
        if !self.is_recorded() {
            return None;
        }
        let fields = self.0.metadata()?.fields();
        if let Some(found) = FIELDS.get() {
            return Some(found);
        }
        let field = |name: &str| fields.field(name);
        let found = Fields {
            status: field("otel.status_code")?,
            collection: field("db.collection.name")?,
            region: field("cloud.region")?,
            address: field("server.address")?,
            port: field("server.port")?,
            request_id: field("aws.request_id")?,
            index: field("aws.dynamodb.index_name")?,
            consistent_read: field("aws.dynamodb.consistent_read")?,
            limit: field("aws.dynamodb.limit")?,
            projection: field("aws.dynamodb.projection")?,
            scan_forward: field("aws.dynamodb.scan_forward")?,
            select: field("aws.dynamodb.select")?,
            segment: field("aws.dynamodb.segment")?,
            total_segments: field("aws.dynamodb.total_segments")?,
            count: field("aws.dynamodb.count")?,
            scanned_count: field("aws.dynamodb.scanned_count")?,
            error_type: field("error.type")?,
            entity: field("ddb.entity")?,
            items: field("ddb.items")?,
            capacity: field("ddb.capacity_units")?,
            attempts: field("ddb.attempts")?,
            ddb_error: field("ddb.error")?,
            throttles: field("ddb.throttling_reasons")?,
            response_code: field("db.response.status_code")?,
            batch_size: field("db.operation.batch.size")?,
        };
        Some(FIELDS.get_or_init(|| found))
    }
}

/// The fields [`RequestSpan`] records after its start.
struct Fields {
    status: Field,
    collection: Field,
    region: Field,
    address: Field,
    port: Field,
    request_id: Field,
    index: Field,
    consistent_read: Field,
    limit: Field,
    projection: Field,
    scan_forward: Field,
    select: Field,
    segment: Field,
    total_segments: Field,
    count: Field,
    scanned_count: Field,
    error_type: Field,
    entity: Field,
    items: Field,
    capacity: Field,
    attempts: Field,
    ddb_error: Field,
    throttles: Field,
    response_code: Field,
    batch_size: Field,
}

/// `ddb.throttling_reasons`: each reason, what it throttled (the table or
/// index by name) and how many of the request's attempts it throttled, in
/// the order first met (`TableWriteKeyRangeThroughputExceeded Ecommerce: 2,
/// IndexReadProvisionedThroughputExceeded Ecommerce/GSI1: 1`).
fn throttled(throttles: &[crate::error::Throttle]) -> String {
    let mut counted: Vec<(String, u32)> = Vec::new();
    for t in throttles {
        let table = t.table().unwrap_or(&t.resource);
        let named = match t.index() {
            Some(index) => format!("{} {table}/{index}", t.reason),
            None => format!("{} {table}", t.reason),
        };
        match counted.iter_mut().find(|(n, _)| *n == named) {
            Some((_, count)) => *count += 1,
            None => counted.push((named, 1)),
        }
    }
    let each = counted
        .iter()
        .map(|(named, count)| format!("{named}: {count}"));
    each.collect::<Vec<_>>().join(", ")
}

/// ddb's name of `error`, for `ddb.error`.
fn ddb_error(error: &Error) -> &'static str {
    use crate::error::Error as E;
    match error {
        E::ConditionFailed { .. } => "ConditionFailed",
        E::VersionConflict { .. } => "VersionConflict",
        E::AlreadyExists { .. } => "AlreadyExists",
        E::ChangedSinceRead { .. } => "ChangedSinceRead",
        E::NotFound { .. } => "NotFound",
        E::WriteOutcomeUnknown { .. } => "WriteOutcomeUnknown",
        E::TransactionCanceled { .. } => "TransactionCanceled",
        E::Unprocessed { .. } => "Unprocessed",
        E::UniqueViolation { .. } => "UniqueViolation",
        E::IdempotencyKeyReused { .. } => "IdempotencyKeyReused",
        E::Migration { .. } => "Migration",
        E::IndexNotSearchable { .. } => "IndexNotSearchable",
        E::Sdk { .. } => "Sdk",
        _ => "Invalid",
    }
}

/// What a transaction's or batch's span names, from each action's entity
/// type and table: the tables, each once, sorted, and the entity type (""
/// when the actions are of several).
pub(crate) fn span_names<'a>(
    actions: impl Iterator<Item = (&'static str, &'a str)>,
) -> (Vec<&'a str>, &'static str) {
    let mut tables = Vec::new();
    let mut entity = None;
    for (action_entity, table) in actions {
        if !tables.contains(&table) {
            tables.push(table);
        }
        entity = match entity {
            None => Some(action_entity),
            Some(e) if e == action_entity => Some(e),
            Some(_) => Some(""),
        };
    }
    tables.sort_unstable();
    (tables, entity.unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_names_each_table_once_and_one_entity_type() {
        let names = |actions: &[(&'static str, &'static str)]| span_names(actions.iter().copied());
        assert_eq!(
            names(&[("Order", "T"), ("Order", "T")]),
            (vec!["T"], "Order")
        );
        assert_eq!(
            names(&[("Order", "B"), ("Customer", "A"), ("Order", "B")]),
            (vec!["A", "B"], "")
        );
        assert_eq!(names(&[]), (vec![], ""));
    }

    #[test]
    fn the_endpoint_is_the_host_and_port_of_the_uri() {
        let cases = [
            (
                "https://dynamodb.eu-west-1.amazonaws.com/",
                Some(("dynamodb.eu-west-1.amazonaws.com", 443)),
            ),
            ("http://127.0.0.1:8000/", Some(("127.0.0.1", 8000))),
            ("http://localhost", Some(("localhost", 80))),
            ("http://[::1]:8000/", Some(("::1", 8000))),
            ("https://[::1]/", Some(("::1", 443))),
            ("http://user@host:1/", Some(("host", 1))),
            ("http://host:port/", None),
            ("no scheme", None),
            ("http:///path", None),
        ];
        for (uri, expected) in cases {
            let found = host_and_port(uri);
            let found = found.as_ref().map(|(h, p)| (h.as_str(), *p));
            assert_eq!(found, expected, "{uri}");
        }
    }
}
