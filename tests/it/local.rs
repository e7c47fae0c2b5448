//! The local DynamoDB: a real server over HTTP, and `DDB_ENDPOINT`.

use std::process::Command;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use ddb_local::{unique_table_name, LocalDynamoDb, ENDPOINT_VAR};

async fn create_plain_table(client: &Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("PK")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("PK")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    ddb_tests::wait_until_active(client, name).await;
}

async fn get_note(client: &Client, table: &str, pk: &str) -> Option<String> {
    let output = client
        .get_item()
        .table_name(table)
        .key("PK", AttributeValue::S(pk.to_owned()))
        .send()
        .await
        .unwrap();
    output
        .item()
        .and_then(|item| item.get("note"))
        .and_then(|note| note.as_s().ok())
        .cloned()
}

#[tokio::test]
async fn put_and_get_through_the_sdk() {
    let client = ddb_tests::client();
    let table = unique_table_name("plain");
    create_plain_table(&client, &table).await;
    client
        .put_item()
        .table_name(&table)
        .item("PK", AttributeValue::S("CUSTOMER#123".into()))
        .item("note", AttributeValue::S("hello".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(
        get_note(&client, &table, "CUSTOMER#123").await.as_deref(),
        Some("hello")
    );
    assert_eq!(get_note(&client, &table, "CUSTOMER#124").await, None);
}

#[tokio::test]
async fn an_embedded_server_stops_when_dropped() {
    let local = LocalDynamoDb::embedded().unwrap();
    let client = local.client().clone();
    client.list_tables().send().await.unwrap();
    drop(local);
    // The guard stopped the server: the same client now fails to connect.
    let mut stopped = false;
    for _ in 0..50 {
        if client.list_tables().send().await.is_err() {
            stopped = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(
        stopped,
        "the server still answers after its guard was dropped"
    );
}

#[test]
fn an_endpoint_must_be_a_url() {
    assert!(LocalDynamoDb::connect("localhost:8000").is_err());
}

/// Run only as a child of `ddb_endpoint_is_honoured`, with `DDB_ENDPOINT` and
/// `DDB_TEST_TABLE` set: writes one item wherever `start()` points.
#[tokio::test]
#[ignore = "run by ddb_endpoint_is_honoured in a child process"]
async fn child_writes_through_start() {
    let table = std::env::var("DDB_TEST_TABLE").expect("DDB_TEST_TABLE");
    let local = LocalDynamoDb::start().unwrap();
    assert!(
        !local.is_embedded(),
        "DDB_ENDPOINT was set, yet a server was started"
    );
    local
        .client()
        .put_item()
        .table_name(table)
        .item("PK", AttributeValue::S("from-child".into()))
        .item("note", AttributeValue::S("via DDB_ENDPOINT".into()))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn ddb_endpoint_is_honoured() {
    // A second server, which only the child process can learn about through
    // DDB_ENDPOINT: the item lands there, not in the process's shared server.
    let second = LocalDynamoDb::embedded().unwrap();
    let table = unique_table_name("endpoint");
    create_plain_table(second.client(), &table).await;
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "local::child_writes_through_start",
            "--test-threads=1",
        ])
        .env(ENDPOINT_VAR, second.endpoint())
        .env("DDB_TEST_TABLE", &table)
        .output()
        .unwrap();
    assert!(
        child.status.success(),
        "the child test failed:\n{}\n{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    assert_eq!(
        get_note(second.client(), &table, "from-child")
            .await
            .as_deref(),
        Some("via DDB_ENDPOINT")
    );
}

/// The fault proxy as users get it with the `local` feature: a
/// user's own code (here, a batch load and a create) survives a throttled
/// BatchWriteItem and a lost PutItem answer, and the counters say what the
/// proxy did. Random faults replay from their seed.
#[tokio::test]
async fn users_inject_faults_into_their_own_tests() {
    use ddb_examples::single_table::{Customer, Ecommerce};
    use ddb_examples::CustomerId;
    use ddb_local::{Fault, FaultProxy};

    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let proxy = FaultProxy::start(ddb_tests::local().endpoint())
        .await
        .unwrap();
    let through = ddb_runtime::Db::new(proxy.client().unwrap())
        .with_table_name::<Ecommerce>(db.table_name::<Ecommerce>());
    let customer = |i: usize| Customer {
        customer_id: CustomerId(format!("{i}")),
        name: format!("c{i}"),
        email: format!("c{i}@example.com"),
        order_count: 0,
    };

    proxy.fail(
        "BatchWriteItem",
        1,
        Fault::Error(400, "ThrottlingException"),
    );
    proxy.fail("BatchWriteItem", 1, Fault::Unprocessed(Some(3)));
    let customers: Vec<Customer> = (0..10).map(customer).collect();
    through.batch_put(&customers).await.unwrap();
    assert_eq!(proxy.injected("BatchWriteItem"), 2);

    proxy.fail("PutItem", 1, Fault::DropResponse);
    let created = through.create(&customer(99)).send().await.unwrap();
    assert!(matches!(
        created,
        ddb_runtime::Created::Created | ddb_runtime::Created::AlreadyExisted
    ));
    assert_eq!(proxy.injected("PutItem"), 1);
    assert!(proxy.seen("PutItem") >= 2, "the SDK sent the create again");
    assert_eq!(ddb_tests::scan_raw::<Ecommerce>(&db).await.len(), 11);

    // The same seed injects the same faults.
    let table = db.table_name::<Ecommerce>().to_owned();
    let injected = |seed: u64| {
        let table = table.clone();
        async move {
            let proxy = FaultProxy::start(ddb_tests::local().endpoint())
                .await
                .unwrap();
            proxy.fail_randomly(
                "GetItem",
                0.5,
                seed,
                Fault::Error(400, "ValidationException"),
            );
            let through =
                ddb_runtime::Db::new(proxy.client().unwrap()).with_table_name::<Ecommerce>(table);
            let mut outcomes = Vec::new();
            for i in 0..20 {
                let key = Customer::key(&CustomerId(format!("{}", i % 10))).unwrap();
                outcomes.push(through.get(key).send().await.is_ok());
            }
            (outcomes, proxy.injected("GetItem"))
        }
    };
    let (first, count) = injected(42).await;
    let (again, _) = injected(42).await;
    assert_eq!(first, again);
    assert!(count > 0 && count < 20, "{count} of 20");
}
