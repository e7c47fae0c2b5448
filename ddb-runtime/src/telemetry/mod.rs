//! Observability: one `tracing` span per DynamoDB request ddb sends, named
//! and attributed by OpenTelemetry's conventions for DynamoDB, and the
//! capacity DynamoDB reports for it.
//!
//! A span has level INFO and target `ddb`; a `tracing-opentelemetry` layer
//! exports it as an OpenTelemetry CLIENT span named `DynamoDB.<Operation>`
//! (`DynamoDB.PutItem`), as the AWS SDK conventions require. Its
//! attributes follow the semantic-convention registry, with the registry's
//! types:
//!
//! | Attribute | Type | On |
//! |---|---|---|
//! | `db.system.name` (`aws.dynamodb`), `db.operation.name`, `rpc.system` (`aws-api`), `rpc.service` (`DynamoDB`), `rpc.method` | string | every span, from its start |
//! | `db.collection.name` | string | a request on one table |
//! | `aws.dynamodb.table_names` | string[] | every span (feature `opentelemetry`) |
//! | `aws.dynamodb.index_name` | string | a Query or Scan of an index; absent on the table |
//! | `aws.dynamodb.projection` | string | GetItem, Query, Scan, when sent |
//! | `aws.dynamodb.consistent_read`, `aws.dynamodb.limit`, `aws.dynamodb.scan_forward`, `aws.dynamodb.select` | boolean, int, boolean, string | GetItem (`consistent_read`), Query, Scan (but `scan_forward`), when sent: ddb sends none at DynamoDB's default |
//! | `aws.dynamodb.global_secondary_indexes`, `aws.dynamodb.local_secondary_indexes` | string[] (each index as JSON) | CreateTable, each index it creates (feature `opentelemetry`) |
//! | `aws.dynamodb.attribute_definitions`, `aws.dynamodb.global_secondary_index_updates` | string[] (each as JSON) | UpdateTable, when sent (feature `opentelemetry`) |
//! | `aws.dynamodb.segment`, `aws.dynamodb.total_segments` | int | a parallel Scan (the only one that sends them) |
//! | `aws.dynamodb.count`, `aws.dynamodb.scanned_count` | int | Scan |
//! | `aws.dynamodb.consumed_capacity` | string[] (each `ConsumedCapacity` as JSON) | an answer that reports capacity (feature `opentelemetry`) |
//! | `aws.request_id`, `server.address`, `server.port`, `cloud.region` | string, string, int, string | once the answer is in |
//! | `error.type` | string | a failure: DynamoDB's error code (`ConditionalCheckFailedException`, `ProvisionedThroughputExceededException`; `_OTHER` for an answer without one), or the SDK's failure (`TimeoutError`, `DispatchFailure`, `ResponseError`, `ConstructionFailure`), or `Unprocessed` for the last request of a batch that gives up |
//! | `db.response.status_code` | string | a failure DynamoDB answered: its error code, as `error.type` |
//! | `db.operation.batch.size` | int | a BatchWriteItem of two or more requests, a transaction of two or more actions (a BatchGetItem reads keys, not operations) |
//!
//! A failed request sets the span status to Error (`otel.status_code`),
//! with no description: DynamoDB's messages can quote a request's values.
//! A batch that gives up on items DynamoDB left unprocessed fails the span
//! of each chunk's last request, which left them (`error.type`
//! `Unprocessed`).
//! An error ddb handles as an answer is not a failure: CreateTable's
//! `ResourceInUseException` for a table `create_table` finds existing, and
//! DescribeTable's `ResourceNotFoundException` for one `plan_sync` probes
//! for.
//! ddb's own measures are under `ddb.`: `ddb.entity` (the entity type, when
//! the request is of one), `ddb.items` (items written or returned),
//! `ddb.capacity_units` (the total), `ddb.attempts` (the SDK's attempts,
//! retries included), `ddb.error` (ddb's reading of a failure:
//! `VersionConflict`, `ConditionFailed`...) and `ddb.throttling_reasons`
//! (every throttled attempt of the request, whether the SDK's retries
//! absorbed it or not, counted per reason and the table or index it names:
//! `TableWriteKeyRangeThroughputExceeded Ecommerce: 2`). `tracing` fields
//! cannot hold arrays, so the
//! string[] attributes are set through `tracing-opentelemetry` itself, with
//! the feature `opentelemetry` (the same `tracing-opentelemetry` version as
//! the application's layer).
//!
//! A span never holds a key value or an item's content: keys and items may
//! be personal data. The SDK's own spans and TRACE logs are another matter:
//! at TRACE, `aws-smithy-runtime` logs whole requests and answers, the item
//! a failed condition returns included, `sensitive` fields too.
//!
//! The SDK opens spans of its own at DEBUG: one per operation, named as
//! ddb's (`DynamoDB.PutItem`, target `aws_sdk_dynamodb::operation::put_item`)
//! and a child of it, and under that its orchestrator's (`try_attempt`,
//! `serialization`..., target `aws_smithy_runtime::client::orchestrator`).
//! An OpenTelemetry layer that exports every span therefore exports two
//! `DynamoDB.PutItem` spans per request: ddb's CLIENT span, and the SDK's
//! INTERNAL one with `rpc.*` and `sdk_invocation_id` only. Filter the layer
//! to keep `ddb` at INFO and the SDK's targets at WARN (as an `EnvFilter`
//! directive, `info,ddb=info,aws_sdk_dynamodb=warn,aws_smithy_runtime=warn`;
//! `tests/it/telemetry_conventions.rs` checks the filter below):
//!
//! ```ignore
//! use tracing_subscriber::filter::{LevelFilter, Targets};
//! use tracing_subscriber::prelude::*;
//!
//! let spans = Targets::new()
//!     .with_default(LevelFilter::INFO)
//!     .with_target("ddb", LevelFilter::INFO)
//!     .with_target("aws_sdk_dynamodb", LevelFilter::WARN)
//!     .with_target("aws_smithy_runtime", LevelFilter::WARN);
//! tracing_subscriber::registry()
//!     .with(tracing_opentelemetry::layer().with_tracer(tracer).with_filter(spans))
//!     .init();
//! ```

mod capacity;
mod error_type;
#[cfg(feature = "opentelemetry")]
mod opentelemetry;
mod reported;
mod span;
#[cfg(feature = "opentelemetry")]
mod table_schema;

pub use capacity::{Capacity, CapacityMeter};
pub(crate) use error_type::error_type;
#[cfg(feature = "opentelemetry")]
pub(crate) use opentelemetry::{create_table_sent, nothing_sent, update_table_sent};
pub(crate) use reported::Reported;
pub(crate) use span::{span_names, Read, RequestSpan, Server, Tried};
