//! ddb's spans exported as OpenTelemetry spans (through
//! `tracing-opentelemetry` into the SDK's in-memory exporter), checked
//! against OpenTelemetry's semantic-convention registry as published
//! (`tests/fixtures/opentelemetry`): each attribute's type as the registry
//! defines it, each operation's attributes as its span definition lists
//! them, the span's name and kind, and a failure's status.

use std::collections::{HashMap, HashSet};

use ddb_examples::single_table::{Customer, Ecommerce, OpenOrder, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::Entity;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{Array, Value};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_norway::Value as Yaml;
use time::macros::datetime;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

const REGISTRY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/opentelemetry");

/// What the registry says: each attribute's type, and each group's
/// attributes (its own and those of the groups it extends).
struct Conventions {
    types: HashMap<String, String>,
    groups: HashMap<String, (Vec<String>, Option<String>)>,
}

impl Conventions {
    fn read() -> Self {
        let mut conventions = Conventions {
            types: HashMap::new(),
            groups: HashMap::new(),
        };
        for entry in std::fs::read_dir(REGISTRY).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                conventions.add(&serde_norway::from_str(&text).unwrap());
            }
        }
        conventions
    }

    fn add(&mut self, file: &Yaml) {
        // definition/2 files list attributes at the top, keyed by `key`.
        self.attributes(&file["attributes"]);
        for group in file["groups"].as_sequence().into_iter().flatten() {
            let refs = self.attributes(&group["attributes"]);
            let extends = group["extends"].as_str().map(str::to_owned);
            let id = group["id"].as_str().unwrap().to_owned();
            self.groups.insert(id, (refs, extends));
        }
    }

    /// Records the attributes `list` defines; returns every name it
    /// defines or refers to.
    fn attributes(&mut self, list: &Yaml) -> Vec<String> {
        let mut names = Vec::new();
        for attribute in list.as_sequence().into_iter().flatten() {
            if let Some(name) = attribute["ref"].as_str() {
                names.push(name.to_owned());
                continue;
            }
            let name = attribute["id"]
                .as_str()
                .or(attribute["key"].as_str())
                .unwrap();
            // An enum's members are strings in every attribute ddb sets.
            let kind = match &attribute["type"] {
                Yaml::String(kind) if kind != "enum" => kind.clone(),
                _ => "string".to_owned(),
            };
            self.types.insert(name.to_owned(), kind);
            names.push(name.to_owned());
        }
        names
    }

    /// The attributes of group `id` and of the groups it extends.
    fn of_group(&self, id: &str) -> HashSet<String> {
        let mut all = HashSet::new();
        let mut next = Some(id.to_owned());
        while let Some(id) = next {
            let (refs, extends) = &self.groups[&id];
            all.extend(refs.iter().cloned());
            next = extends.clone();
        }
        all
    }

    /// What a span of `operation` may carry: its DynamoDB span definition
    /// (or, for an operation the conventions do not define, the AWS SDK
    /// span's and the two attributes every DynamoDB span has), and the
    /// database client span's, which DynamoDB spans adhere to.
    fn allowed(&self, operation: &str) -> HashSet<String> {
        let own = format!("span.dynamodb.{}.client", operation.to_lowercase());
        let mut allowed = match self.groups.contains_key(&own) {
            true => self.of_group(&own),
            false => {
                let mut aws = self.of_group("span.aws.client");
                aws.extend([
                    "aws.dynamodb.table_names".into(),
                    "aws.dynamodb.consumed_capacity".into(),
                ]);
                aws
            }
        };
        allowed.extend(self.of_group("trace.db.common.query_and_collection"));
        allowed.insert("db.system.name".into());
        allowed
    }
}

impl Conventions {
    /// Fails unless each of `attributes` is the registry's, of the
    /// registry's type, and one a span of `operation` carries; or one of
    /// ddb's own, of its type.
    fn assert_follows(&self, operation: &str, attributes: &HashMap<String, Value>) {
        let allowed = self.allowed(operation);
        for (name, value) in attributes {
            let expected = match DDB_ATTRIBUTES.iter().find(|(n, _)| n == name) {
                Some((_, kind)) => *kind,
                None => {
                    assert!(
                        allowed.contains(name),
                        "{name} is not an attribute of {operation}'s span"
                    );
                    self.types[name].as_str()
                }
            };
            assert_eq!(
                type_of(value),
                expected,
                "{name} of {operation}: {attributes:?}"
            );
        }
    }
}

/// ddb's own measures and their types.
const DDB_ATTRIBUTES: [(&str, &str); 6] = [
    ("ddb.entity", "string"),
    ("ddb.items", "int"),
    ("ddb.capacity_units", "double"),
    ("ddb.attempts", "int"),
    ("ddb.error", "string"),
    ("ddb.throttling_reasons", "string"),
];

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "boolean",
        Value::I64(_) => "int",
        Value::F64(_) => "double",
        Value::String(_) => "string",
        Value::Array(Array::Bool(_)) => "boolean[]",
        Value::Array(Array::I64(_)) => "int[]",
        Value::Array(Array::F64(_)) => "double[]",
        Value::Array(Array::String(_)) => "string[]",
        _ => "other",
    }
}

fn attributes(span: &SpanData) -> HashMap<String, Value> {
    let attributes = span.attributes.iter();
    attributes
        .map(|kv| (kv.key.to_string(), kv.value.clone()))
        .collect()
}

fn order(id: &str) -> Order {
    Order {
        customer_id: CustomerId("Ada".into()),
        order_id: OrderId(id.into()),
        placed_at: datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 5600,
        version: 0,
    }
}

/// Every operation ddb sends, once each, with the one failure (a create
/// meeting another item) last.
async fn every_operation(db: &ddb_runtime::Db) {
    db.plan_sync::<Ecommerce>().await.unwrap();
    db.create(&order("T1")).send().await.unwrap();
    let key = order("T1").primary_key().unwrap();
    db.update(key.clone())
        .set(Order::fields().status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    db.get(key.clone())
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    db.get(key.clone())
        .project::<OpenOrder>()
        .send()
        .await
        .unwrap();
    let ada = CustomerId("Ada".into());
    db.query(Order::by_customer(&ada))
        .limit(1)
        .newest_first(true)
        .send()
        .await
        .unwrap();
    db.query(Order::by_order_id(&OrderId("T1".into())))
        .collect()
        .await
        .unwrap();
    db.batch_put(&[order("T2"), order("T3")]).await.unwrap();
    let keys = ["T2", "T3"].map(|id| order(id).primary_key().unwrap());
    db.batch_get(keys.to_vec()).await.unwrap();
    let customer = Customer {
        customer_id: ada.clone(),
        name: "Ada Lovelace".into(),
        email: "ada@example.com".into(),
        order_count: 0,
    };
    db.transact_write().create(&customer).send().await.unwrap();
    db.transact_get().get(key.clone()).send().await.unwrap();
    // Reporting progress, the backfill asks DescribeTable for the table's
    // item count.
    db.backfill::<Order>()
        .segments(2)
        .on_progress(|_| {})
        .send()
        .await
        .unwrap();
    // One segment: a Scan that sends no `Segment`.
    db.backfill::<Order>().segments(1).send().await.unwrap();
    db.delete(order("T3").primary_key().unwrap())
        .send()
        .await
        .unwrap();
    let failed = db.create(&order("T1")).send().await;
    assert!(failed.is_err(), "{failed:?}");
}

/// The spans `work` makes, as OpenTelemetry exports them: ddb's own.
async fn exported(work: impl std::future::Future<Output = ()>) -> Vec<SpanData> {
    let ddb = tracing_subscriber::filter::Targets::new().with_target("ddb", tracing::Level::INFO);
    exported_through(ddb, work).await
}

/// The spans `work` makes that `filter` lets through, as OpenTelemetry
/// exports them.
async fn exported_through(
    filter: tracing_subscriber::filter::Targets,
    work: impl std::future::Future<Output = ()>,
) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("ddb-tests"))
        .with_location(false)
        .with_threads(false)
        .with_level(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_filter(filter);
    let subscriber = tracing_subscriber::registry().with(layer);
    {
        let _one = ddb_tests::one_subscriber_at_a_time().await;
        let _guard = tracing::subscriber::set_default(subscriber);
        tracing::callsite::rebuild_interest_cache();
        work.await;
    }
    exporter.get_finished_spans().unwrap()
}

/// The SDK opens a span of its own per operation, at DEBUG and under the
/// same name as ddb's: unfiltered, a pipeline exports both (and the SDK's
/// orchestration spans); the filter the README and the `telemetry` module
/// show (`ddb` at INFO, the SDK's targets at WARN) exports ddb's alone.
#[tokio::test]
async fn the_sdk_span_of_a_request_is_filtered_out_by_its_targets() {
    use tracing::level_filters::LevelFilter;
    use tracing_subscriber::filter::Targets;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let unfiltered = Targets::new().with_default(LevelFilter::TRACE);
    let spans = exported_through(unfiltered, async {
        db.put(&order("S1")).send().await.unwrap();
    })
    .await;
    let puts: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.name == "DynamoDB.PutItem")
        .collect();
    assert_eq!(puts.len(), 2, "{puts:#?}");
    let ours = puts.iter().find(|s| s.span_kind == SpanKind::Client);
    let ours = ours.expect("ddb's CLIENT span");
    let sdk = puts.iter().find(|s| s.span_kind == SpanKind::Internal);
    let sdk = sdk.expect("the SDK's span, INTERNAL");
    assert_eq!(
        sdk.parent_span_id,
        ours.span_context.span_id(),
        "the SDK's span is the child of ddb's"
    );
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert!(names.contains(&"try_attempt"), "{names:?}");

    // The application's own spans at INFO, or at DEBUG, which the SDK's
    // would pass without their own directives.
    for (id, default) in [("S2", LevelFilter::INFO), ("S3", LevelFilter::DEBUG)] {
        let filter = Targets::new()
            .with_default(default)
            .with_target("ddb", LevelFilter::INFO)
            .with_target("aws_sdk_dynamodb", LevelFilter::WARN)
            .with_target("aws_smithy_runtime", LevelFilter::WARN);
        let spans = exported_through(filter, async {
            db.put(&order(id)).send().await.unwrap();
        })
        .await;
        let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
        let puts: Vec<&SpanData> = spans
            .iter()
            .filter(|s| s.name == "DynamoDB.PutItem")
            .collect();
        assert_eq!(puts.len(), 1, "{names:?}");
        assert_eq!(puts[0].span_kind, SpanKind::Client);
        assert!(!names.contains(&"try_attempt"), "{names:?}");
    }
}

#[tokio::test]
async fn exported_spans_follow_the_registry_of_the_dynamodb_conventions() {
    let conventions = Conventions::read();
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let spans = exported(every_operation(&db)).await;
    let mut seen = HashSet::new();
    for span in &spans {
        let attributes = attributes(span);
        let operation = match &attributes["rpc.method"] {
            Value::String(method) => method.to_string(),
            other => panic!("rpc.method {other:?}"),
        };
        seen.insert(operation.clone());
        let context = format!("{operation}: {attributes:?}");
        assert_eq!(span.name, format!("DynamoDB.{operation}"), "{context}");
        assert_eq!(span.span_kind, SpanKind::Client, "{context}");

        conventions.assert_follows(&operation, &attributes);

        // What every span has.
        let text = |name: &str| attributes.get(name).map(|v| v.as_str().into_owned());
        assert_eq!(
            text("db.system.name").as_deref(),
            Some("aws.dynamodb"),
            "{context}"
        );
        assert_eq!(text("rpc.system").as_deref(), Some("aws-api"), "{context}");
        assert_eq!(
            text("rpc.service").as_deref(),
            Some("DynamoDB"),
            "{context}"
        );
        assert_eq!(
            text("db.operation.name").as_deref(),
            Some(operation.as_str()),
            "{context}"
        );
        assert_eq!(
            text("cloud.region").as_deref(),
            Some("us-east-1"),
            "{context}"
        );
        let names = Value::Array(Array::String(vec![table.clone().into()]));
        assert_eq!(
            attributes.get("aws.dynamodb.table_names"),
            Some(&names),
            "{context}"
        );
        assert_eq!(
            text("db.collection.name").as_deref(),
            Some(table.as_str()),
            "{context}"
        );
        assert!(attributes.contains_key("aws.request_id"), "{context}");
        for name in ["server.address", "server.port"] {
            assert!(attributes.contains_key(name), "{name} of {context}");
        }

        // What each operation has, and has only where the registry puts it.
        let has = |name: &str| attributes.contains_key(name);
        if let Some(consistent) = attributes.get("aws.dynamodb.consistent_read") {
            // Sent, and so recorded, only when not DynamoDB's default.
            let reads = ["GetItem", "Query", "Scan"].contains(&operation.as_str());
            assert!(reads, "{context}");
            assert_eq!(consistent, &Value::Bool(true), "{context}");
        }
        if has("aws.dynamodb.scan_forward") {
            // Sent, and so recorded, only when not DynamoDB's default.
            assert_eq!(operation, "Query", "{context}");
            assert_eq!(
                attributes["aws.dynamodb.scan_forward"],
                Value::Bool(false),
                "{context}"
            );
        }
        for scan in ["aws.dynamodb.count", "aws.dynamodb.scanned_count"] {
            assert_eq!(has(scan), operation == "Scan", "{scan} of {context}");
        }
        // `Segment` and `TotalSegments` are sent, and recorded, by a
        // parallel Scan only.
        let parallel =
            matches!(attributes.get("aws.dynamodb.total_segments"), Some(Value::I64(n)) if *n >= 2);
        assert_eq!(has("aws.dynamodb.segment"), parallel, "{context}");
        assert_eq!(has("aws.dynamodb.total_segments"), parallel, "{context}");
        assert!(!parallel || operation == "Scan", "{context}");
        if let Some(index) = attributes.get("aws.dynamodb.index_name") {
            assert_eq!(
                index.as_str(),
                "GSI1",
                "only the GSI1 query names an index: {context}"
            );
        }
        if let Some(Value::Array(Array::String(each))) =
            attributes.get("aws.dynamodb.consumed_capacity")
        {
            for capacity in each {
                let json: serde_json::Value = serde_json::from_str(capacity.as_str()).unwrap();
                assert_eq!(json["TableName"], table.as_str(), "{context}");
                assert!(json["CapacityUnits"].as_f64().unwrap() > 0.0, "{context}");
            }
        }
        let failed = has("error.type");
        let status_is_error = matches!(span.status, Status::Error { .. });
        assert_eq!(
            failed, status_is_error,
            "a failure, and only a failure, has status Error: {context}"
        );

        // Never a key value nor an item's content.
        let values = attributes
            .iter()
            .map(|(name, value)| (name, value.as_str()));
        crate::telemetry::assert_no_key_values(values, &context);
    }
    for operation in [
        "DescribeTable",
        "PutItem",
        "UpdateItem",
        "GetItem",
        "Query",
        "BatchWriteItem",
        "BatchGetItem",
        "TransactWriteItems",
        "TransactGetItems",
        "Scan",
        "DeleteItem",
    ] {
        assert!(
            seen.contains(operation),
            "no {operation} span among {seen:?}"
        );
    }
    let by = |operation: &str, with: &str| {
        spans
            .iter()
            .filter(move |s| {
                attributes(s)["rpc.method"].as_str() == operation
                    && attributes(s).contains_key(with)
            })
            .count()
    };
    assert_eq!(
        by("Query", "aws.dynamodb.index_name"),
        1,
        "the GSI1 query names its index"
    );
    let scans = by("Scan", "aws.dynamodb.count");
    let parallel = by("Scan", "aws.dynamodb.segment");
    assert!(
        parallel >= 2 && scans > parallel,
        "the parallel scan's segments ({parallel}) and the one-segment scan's pages, of {scans}"
    );
    // Two puts in one BatchWriteItem are a batch; a transaction of one get
    // is a single operation.
    let batch_writes = by("BatchWriteItem", "rpc.method");
    assert!(batch_writes >= 1);
    assert_eq!(
        by("BatchWriteItem", "db.operation.batch.size"),
        batch_writes
    );
    assert_eq!(by("TransactGetItems", "db.operation.batch.size"), 0);
    assert_eq!(
        by("Query", "aws.dynamodb.limit"),
        1,
        "the limited query sends its limit"
    );
    assert_eq!(
        by("Query", "aws.dynamodb.scan_forward"),
        1,
        "the query read newest first sends its direction"
    );
    let consistent = by("GetItem", "aws.dynamodb.consistent_read");
    assert!(
        consistent >= 1 && by("GetItem", "rpc.method") > consistent,
        "the strongly consistent get sends ConsistentRead, the eventual one does not"
    );
    assert!(
        by("GetItem", "aws.dynamodb.projection") >= 1,
        "the projected get names its attributes"
    );
    assert!(
        by("PutItem", "aws.dynamodb.consumed_capacity") >= 1,
        "a write reports its capacity"
    );
    let entity_of = |operation: &str| {
        let named = spans.iter().map(attributes).filter(|a| {
            a["rpc.method"].as_str() == operation
                && a.get("ddb.entity").is_some_and(|e| e.as_str() == "Order")
        });
        named.count()
    };
    assert_eq!(
        entity_of("DescribeTable"),
        1,
        "the backfill's DescribeTable names the entity it backfills"
    );

    // The failure: the create that met another item.
    let failure: Vec<_> = spans
        .iter()
        .map(attributes)
        .filter(|a| a.contains_key("error.type"))
        .collect();
    assert_eq!(failure.len(), 1, "{failure:?}");
    assert_eq!(
        failure[0]["error.type"].as_str(),
        "ConditionalCheckFailedException"
    );
    // The request's failure as ddb reads it: a create that met another item.
    assert_eq!(failure[0]["ddb.error"].as_str(), "AlreadyExists");
    assert_eq!(failure[0]["rpc.method"].as_str(), "PutItem");
}

/// A table with a global and a local index, as first created.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Schema", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByOwner", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(local_index(name = "ByDate", sk = "LSI1SK"))]
struct SchemaV1;

/// The same table with one more global index.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Schema", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByOwner", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "ByStatus", pk = "GSI2PK", sk = "GSI2SK"))]
#[ddb(local_index(name = "ByDate", sk = "LSI1SK"))]
struct SchemaV2;

/// Each item of a string[] attribute, as JSON.
fn json_items(attributes: &HashMap<String, Value>, name: &str) -> Vec<serde_json::Value> {
    match attributes.get(name) {
        Some(Value::Array(Array::String(each))) => each
            .iter()
            .map(|item| serde_json::from_str(item.as_str()).unwrap())
            .collect(),
        other => panic!("{name} is {other:?}: {attributes:?}"),
    }
}

/// CreateTable and UpdateTable record the schema they send, as the
/// registry's recommended attributes: each index created, and the
/// attribute definitions an index update needs.
#[tokio::test]
async fn table_operations_record_the_schema_they_send() {
    let conventions = Conventions::read();
    let name = ddb_local::unique_table_name("Schema");
    let db = ddb_runtime::Db::new(ddb_tests::client())
        .with_table_name::<SchemaV1>(name.clone())
        .with_table_name::<SchemaV2>(name.clone());
    let spans = exported(async {
        db.create_table::<SchemaV1>().await.unwrap();
        db.sync_table::<SchemaV2>().await.unwrap();
    })
    .await;
    let of = |operation: &str| -> Vec<HashMap<String, Value>> {
        let spans = spans.iter().map(attributes);
        spans
            .filter(|a| a["rpc.method"].as_str() == operation)
            .collect()
    };
    for span in spans.iter().map(attributes) {
        conventions.assert_follows(&span["rpc.method"].as_str(), &span);
    }

    let created = of("CreateTable");
    assert_eq!(created.len(), 1, "{spans:?}");
    let globals = json_items(&created[0], "aws.dynamodb.global_secondary_indexes");
    assert_eq!(globals.len(), 1, "{globals:?}");
    assert_eq!(globals[0]["IndexName"], "ByOwner");
    assert_eq!(
        globals[0]["KeySchema"],
        serde_json::json!([
            {"AttributeName": "GSI1PK", "KeyType": "HASH"},
            {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
        ])
    );
    assert_eq!(globals[0]["Projection"]["ProjectionType"], "ALL");
    let locals = json_items(&created[0], "aws.dynamodb.local_secondary_indexes");
    assert_eq!(locals.len(), 1, "{locals:?}");
    assert_eq!(locals[0]["IndexName"], "ByDate");
    assert_eq!(locals[0]["KeySchema"][1]["AttributeName"], "LSI1SK");

    let updated = of("UpdateTable");
    assert_eq!(updated.len(), 1, "{spans:?}");
    let updates = json_items(&updated[0], "aws.dynamodb.global_secondary_index_updates");
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert_eq!(updates[0]["Create"]["IndexName"], "ByStatus");
    assert_eq!(
        updates[0]["Create"]["KeySchema"][0]["AttributeName"],
        "GSI2PK"
    );
    let mut definitions: Vec<(String, String)> =
        json_items(&updated[0], "aws.dynamodb.attribute_definitions")
            .iter()
            .map(|d| {
                let text = |key: &str| d[key].as_str().unwrap().to_owned();
                (text("AttributeName"), text("AttributeType"))
            })
            .collect();
    definitions.sort();
    assert!(
        definitions.contains(&("GSI2PK".into(), "S".into())),
        "{definitions:?}"
    );
}
