//! The schema from code creates real tables, and the report in the docs is
//! the one the code produces.

use aws_sdk_dynamodb::types::{KeyType, ProjectionType, ScalarAttributeType};
use ddb_examples::{separate_tables as sep, single_table as one};
use ddb_runtime::schema::{create_table_if_missing, TableCreated};
use ddb_runtime::{Entity, Table};
use ddb_tools::access_pattern_report;

#[tokio::test]
async fn single_table_schema_creates_a_real_table() {
    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &one::Ecommerce::DEF).await;
    let table = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap()
        .table
        .unwrap();

    let keys: Vec<_> = table
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name(), k.key_type().clone()))
        .collect();
    assert_eq!(keys, [("PK", KeyType::Hash), ("SK", KeyType::Range)]);
    let mut definitions: Vec<_> = table
        .attribute_definitions()
        .iter()
        .map(|a| (a.attribute_name().to_owned(), a.attribute_type().clone()))
        .collect();
    definitions.sort();
    let expected: Vec<_> = ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "PK", "SK"]
        .iter()
        .map(|n| (n.to_string(), ScalarAttributeType::S))
        .collect();
    assert_eq!(definitions, expected);

    let gsi2 = table
        .global_secondary_indexes()
        .iter()
        .find(|i| i.index_name() == Some("GSI2"))
        .expect("GSI2 exists");
    let projection = gsi2.projection().unwrap();
    assert_eq!(projection.projection_type(), Some(&ProjectionType::Include));
    let mut included = projection.non_key_attributes().to_vec();
    included.sort();
    // The entity type and schema version are always projected, so index
    // items can be told apart and read at their version.
    assert_eq!(
        included,
        [
            "_schema",
            "_type",
            "customer_id",
            "order_id",
            "placed_at",
            "status",
            "total_cents"
        ]
    );
    assert_eq!(table.global_secondary_indexes().len(), 2);

    // Creating it again finds it there.
    let again = create_table_if_missing(
        &client,
        &one::Ecommerce::DEF,
        &name,
        std::time::Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(again, TableCreated::AlreadyExisted);
}

#[tokio::test]
async fn separate_table_schemas_create_real_tables() {
    let client = ddb_tests::client();
    let customers = ddb_tests::create_table(&client, &sep::Customers::DEF).await;
    let table = client
        .describe_table()
        .table_name(&customers)
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let keys: Vec<_> = table
        .key_schema()
        .iter()
        .map(|k| k.attribute_name().to_owned())
        .collect();
    assert_eq!(keys, ["customerId"]);

    let orders = ddb_tests::create_table(&client, &sep::Orders::DEF).await;
    let table = client
        .describe_table()
        .table_name(&orders)
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let index = &table.global_secondary_indexes()[0];
    assert_eq!(index.index_name(), Some("OrderIdIndex"));
    let keys: Vec<_> = index
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name(), k.key_type().clone()))
        .collect();
    assert_eq!(keys, [("orderId", KeyType::Hash)]);

    let items = ddb_tests::create_table(&client, &sep::OrderItems::DEF).await;
    let table = client
        .describe_table()
        .table_name(&items)
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    assert_eq!(
        table.global_secondary_indexes()[0].index_name(),
        Some("ProductOrdersIndex")
    );

    // An item written by ddb is readable by key with the plain SDK.
    let customer = sep::Customer {
        customer_id: ddb_examples::CustomerId("123".into()),
        name: "Ada".into(),
        email: "ada@example.com".into(),
    };
    client
        .put_item()
        .table_name(&customers)
        .set_item(Some(customer.to_item().unwrap()))
        .send()
        .await
        .unwrap();
    let got = client
        .get_item()
        .table_name(&customers)
        .set_key(Some(
            sep::Customer::key(&customer.customer_id).unwrap().to_item(),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        sep::Customer::from_item(got.item.unwrap()).unwrap(),
        customer
    );
}

fn report() -> String {
    let mut report = String::from("# Access patterns of the online store\n\n");
    report.push_str("Generated from the entity declarations in `examples/lib.rs`; ");
    report.push_str("the test `schema::access_pattern_report_is_current` keeps it current ");
    report.push_str("(run it with `DDB_BLESS=1` to rewrite this file).\n\n");
    report.push_str("## Single table (`Ecommerce`)\n\n");
    report.push_str(&access_pattern_report(&[
        &one::Customer::SCHEMA,
        &one::Order::SCHEMA,
        &one::OrderItem::SCHEMA,
    ]));
    report.push_str("\n## Separate tables (`Customers`, `Orders`, `OrderItems`)\n\n");
    report.push_str(&access_pattern_report(&[
        &sep::Customer::SCHEMA,
        &sep::Order::SCHEMA,
        &sep::OrderItem::SCHEMA,
    ]));
    report
}

#[test]
fn access_pattern_report_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/access-patterns.md");
    let generated = report();
    if std::env::var_os("DDB_BLESS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        checked_in, generated,
        "docs/access-patterns.md is stale: run with DDB_BLESS=1"
    );
    assert!(generated.contains(
        "| Order | by_customer | Query | table | PK = CUSTOMER#{customer_id}, SK begins_with ORDER# | strong or eventual |"
    ));
    assert!(generated.contains(
        "| Order | open_orders | Query ×4 (sharded) | GSI2 | GSI2PK = STATUS#{status}#<shard 0..3> | eventual |"
    ));
}

/// The table as first deployed: one index, one that the code later drops.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Evolving", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByOrder", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "Legacy", pk = "LegacyPK"))]
struct EvolvingV1;

/// The code after a new access pattern: a new global index, a
/// multi-attribute one, time to live, and no `Legacy` any more.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Evolving", pk = "PK", sk = "SK", ttl = "expiresAt")]
#[ddb(index(name = "ByOrder", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "ByStatus", pk = "GSI2PK", sk = "GSI2SK"))]
#[ddb(index(name = "ByCustomerStatus", pk("customerId", "status"), sk("placedAt")))]
struct EvolvingV2;

/// Syncing a table to the code adds what is missing, one index at a
/// time, turns on time to live, and leaves what it must not change,
/// reporting it; the dry run says the same without changing anything.
#[tokio::test]
async fn sync_brings_a_table_in_line_with_the_code() {
    use ddb_runtime::schema::{plan_sync, sync_table, SyncChange};
    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &EvolvingV1::DEF).await;

    let plan = plan_sync(&client, &EvolvingV2::DEF, &name).await.unwrap();
    assert_eq!(
        plan.changes,
        [
            SyncChange::AddIndex("ByStatus"),
            SyncChange::AddIndex("ByCustomerStatus"),
            SyncChange::EnableTimeToLive("expiresAt"),
        ]
    );
    assert_eq!(plan.differences.len(), 1, "{plan}");
    assert!(plan
        .to_string()
        .contains("! global index Legacy is in the table and not in the code"));
    // A dry run changes nothing.
    assert_eq!(
        plan_sync(&client, &EvolvingV2::DEF, &name).await.unwrap(),
        plan
    );

    let applied = sync_table(
        &client,
        &EvolvingV2::DEF,
        &name,
        std::time::Duration::from_secs(60),
    )
    .await
    .unwrap();
    assert_eq!(applied, plan);
    let table = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let mut indexes: Vec<&str> = table
        .global_secondary_indexes()
        .iter()
        .filter_map(|i| i.index_name())
        .collect();
    indexes.sort_unstable();
    assert_eq!(
        indexes,
        ["ByCustomerStatus", "ByOrder", "ByStatus", "Legacy"]
    );
    let after = plan_sync(&client, &EvolvingV2::DEF, &name).await.unwrap();
    assert!(after.changes.is_empty(), "{after}");
    assert_eq!(after.differences, plan.differences);

    // A table that does not exist is created.
    let missing = ddb_local::unique_table_name("Evolving");
    let plan = plan_sync(&client, &EvolvingV2::DEF, &missing)
        .await
        .unwrap();
    assert_eq!(plan.changes, [SyncChange::CreateTable]);
}

/// A table as first deployed: an INCLUDE index and two KEYS_ONLY ones.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Projected", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByStatus", pk = "GSI1PK", sk = "GSI1SK", include("status")))]
#[ddb(index(name = "ByOrder", pk = "GSI2PK", projection = "keys_only"))]
#[ddb(local_index(name = "ByTotal", sk = "LSI1SK", projection = "keys_only"))]
struct ProjectedV1;

/// The code later: the INCLUDE index holds one more attribute, the
/// KEYS_ONLY one everything, the local one an INCLUDE list.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Projected", pk = "PK", sk = "SK")]
#[ddb(index(
    name = "ByStatus",
    pk = "GSI1PK",
    sk = "GSI1SK",
    include("status", "total")
))]
#[ddb(index(name = "ByOrder", pk = "GSI2PK"))]
#[ddb(local_index(name = "ByTotal", sk = "LSI1SK", include("total")))]
struct ProjectedV2;

/// Sync reports an index whose projection differs from the code's (DynamoDB
/// cannot change it in place, and ddb's queries read what the code
/// declares) and changes nothing; a table created from the code, INCLUDE
/// lists that name keys and an INCLUDE of keys alone included, has no
/// difference.
#[tokio::test]
async fn sync_reports_an_index_projection_other_than_the_code() {
    use ddb_runtime::schema::plan_sync;
    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &ProjectedV1::DEF).await;
    let same = plan_sync(&client, &ProjectedV1::DEF, &name).await.unwrap();
    assert!(same.is_empty(), "{same}");

    let plan = plan_sync(&client, &ProjectedV2::DEF, &name).await.unwrap();
    assert!(plan.changes.is_empty(), "{plan}");
    assert_eq!(
        plan.differences,
        [
            "global index ByStatus holds its keys and _schema, _type, status in the table, \
             and the code declares its keys and _schema, _type, status, total",
            "global index ByOrder holds its keys only (KEYS_ONLY) in the table, \
             and the code declares every attribute (ALL)",
            "local index ByTotal holds its keys only (KEYS_ONLY) in the table, \
             and the code declares its keys and _schema, _type, total",
        ]
    );

    let labels = ddb_tests::create_table(&client, &Labels::DEF).await;
    let same = plan_sync(&client, &Labels::DEF, &labels).await.unwrap();
    assert!(same.is_empty(), "{same}");

    // The code without the local index: reported, never deleted.
    let plan = plan_sync(&client, &EvolvingV1::DEF, &name).await.unwrap();
    assert!(plan
        .differences
        .contains(&"local index ByTotal is in the table and not in the code".to_owned()));
}

/// A table whose INCLUDE lists name key attributes: the entity-type
/// attribute keys two indexes (one sorted by the schema version), and the
/// lists name the table's and the indexes' own keys.
#[derive(ddb_runtime::Table)]
// Two indexes keyed on `_type`: clippy reads the equal `pk = "_type"`
// arguments of two `#[ddb(index(...))]` attributes as one attribute twice.
#[allow(clippy::duplicated_attributes)]
#[ddb(name = "Labels", pk = "PK", sk = "SK")]
#[ddb(index(
    name = "ByType",
    pk = "_type",
    sk = "TypeSK",
    include("label", "PK", "TypeSK", "GSI1PK")
))]
#[ddb(index(
    name = "GSI1",
    pk = "GSI1PK",
    sk = "GSI1SK",
    include("SK", "GSI1SK", "label")
))]
#[ddb(local_index(name = "ByLabel", sk = "LabelSK", include("label", "LabelSK", "PK")))]
#[ddb(index(
    name = "ByVersion",
    pk = "_type",
    sk = "_schema",
    sk_type = "N",
    include("PK")
))]
struct Labels;

/// An index's key attributes and the table's are in every index already:
/// `NonKeyAttributes` names none of them (not the entity type where it keys
/// the index), only what the index would not hold otherwise, another
/// index's key included. An INCLUDE list of keys alone (ddb's additions
/// included) would be empty, which DynamoDB refuses: it is KEYS_ONLY,
/// which holds the same. The table is created.
#[tokio::test]
async fn include_projections_list_no_key_attribute_of_the_index_or_table() {
    let input = ddb_runtime::schema::create_table_input(&Labels::DEF, "Labels");
    let include = |projection: Option<&aws_sdk_dynamodb::types::Projection>| {
        let projection = projection.expect("a projection");
        assert_eq!(projection.projection_type(), Some(&ProjectionType::Include));
        let mut names = projection.non_key_attributes().to_vec();
        names.sort();
        names
    };
    let globals = input.global_secondary_indexes();
    assert_eq!(
        include(globals[0].projection()),
        ["GSI1PK", "_schema", "label"],
        "ByType, keyed on _type / TypeSK"
    );
    assert_eq!(
        include(globals[1].projection()),
        ["_schema", "_type", "label"],
        "GSI1"
    );
    let by_version = globals[2].projection().unwrap();
    assert_eq!(
        by_version.projection_type(),
        Some(&ProjectionType::KeysOnly)
    );
    assert!(by_version.non_key_attributes.is_none());
    assert_eq!(
        include(input.local_secondary_indexes()[0].projection()),
        ["_schema", "_type", "label"],
        "ByLabel, keyed on PK / LabelSK"
    );

    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &Labels::DEF).await;
    let table = client.describe_table().table_name(&name).send().await;
    assert_eq!(
        table
            .unwrap()
            .table
            .unwrap()
            .global_secondary_indexes()
            .len(),
        3
    );
}

#[derive(Table)]
#[ddb(name = "Watched", pk = "PK", sk = "SK")]
struct Unwatched;

#[derive(Table)]
#[ddb(name = "Watched", pk = "PK", sk = "SK", stream = "new_and_old_images")]
struct Watched;

#[derive(Table)]
#[ddb(name = "Watched", pk = "PK", sk = "SK", stream = "keys_only")]
struct WatchedKeys;

fn described_view(table: &aws_sdk_dynamodb::types::TableDescription) -> Option<String> {
    let stream = table.stream_specification()?;
    stream
        .stream_enabled()
        .then(|| stream.stream_view_type().unwrap().as_str().to_owned())
}

#[tokio::test]
async fn a_declared_stream_is_created_with_the_table() {
    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &Watched::DEF).await;
    let described = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap();
    let view = described_view(described.table().unwrap());
    assert_eq!(view.as_deref(), Some("NEW_AND_OLD_IMAGES"));
    let plan = ddb_runtime::schema::plan_sync(&client, &Watched::DEF, &name)
        .await
        .unwrap();
    assert!(plan.is_empty(), "{plan}");
    let narrower = ddb_runtime::schema::plan_sync(&client, &WatchedKeys::DEF, &name)
        .await
        .unwrap();
    assert!(
        narrower.is_empty(),
        "both images carry the keys: {narrower}"
    );
}

#[tokio::test]
async fn sync_turns_on_a_stream_the_code_reads() {
    use ddb_runtime::model::StreamView;
    use ddb_runtime::schema::{plan_sync, sync_table, SyncChange};
    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &Unwatched::DEF).await;
    let plan = plan_sync(&client, &Watched::DEF, &name).await.unwrap();
    assert_eq!(
        plan.changes,
        [SyncChange::EnableStream(StreamView::NewAndOldImages)]
    );
    assert_eq!(
        plan.to_string(),
        "+ turn on the stream with NEW_AND_OLD_IMAGES\n"
    );
    sync_table(
        &client,
        &Watched::DEF,
        &name,
        std::time::Duration::from_secs(60),
    )
    .await
    .unwrap();
    let described = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap();
    let view = described_view(described.table().unwrap());
    assert_eq!(view.as_deref(), Some("NEW_AND_OLD_IMAGES"));
    assert!(plan_sync(&client, &Watched::DEF, &name)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_stream_without_the_images_the_code_reads_is_a_difference() {
    use ddb_runtime::schema::plan_sync;
    let client = ddb_tests::client();
    let name = ddb_tests::create_table(&client, &WatchedKeys::DEF).await;
    let plan = plan_sync(&client, &Watched::DEF, &name).await.unwrap();
    assert!(plan.changes.is_empty(), "{plan}");
    assert_eq!(
        plan.differences,
        ["the stream carries KEYS_ONLY, and the code reads NEW_AND_OLD_IMAGES"]
    );
}

/// A provisioned table's new global index gets the table's throughput:
/// DynamoDB refuses a global index without throughput on a provisioned
/// table.
#[tokio::test]
async fn a_global_index_added_to_a_provisioned_table_gets_its_throughput() {
    use aws_sdk_dynamodb::types::{AttributeDefinition, KeySchemaElement, ProvisionedThroughput};
    #[derive(Table)]
    #[ddb(name = "Provisioned", pk = "PK", sk = "SK")]
    #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
    struct Provisioned;

    let client = ddb_tests::client();
    let name = ddb_local::unique_table_name("provisioned");
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .unwrap()
    };
    client
        .create_table()
        .table_name(&name)
        .attribute_definitions(attribute("PK"))
        .attribute_definitions(attribute("SK"))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        .provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(5)
                .write_capacity_units(3)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    ddb_tests::wait_until_active(&client, &name).await;

    let proxy = ddb_tests::proxy::Proxy::start(ddb_tests::local().endpoint())
        .await
        .unwrap();
    proxy.record("UpdateTable");
    let through = ddb_tests::proxied_client(&proxy);
    let timeout = std::time::Duration::from_secs(60);
    ddb_runtime::schema::sync_table(&through, &Provisioned::DEF, &name, timeout)
        .await
        .unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "UpdateTable");
    assert_eq!(sent.len(), 1, "{sent:?}");
    let create = &sent[0]["GlobalSecondaryIndexUpdates"][0]["Create"];
    assert_eq!(create["IndexName"], "GSI1");
    assert_eq!(
        create["ProvisionedThroughput"],
        serde_json::json!({ "ReadCapacityUnits": 5, "WriteCapacityUnits": 3 })
    );
}
