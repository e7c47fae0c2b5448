//! Global tables: the declared consistency mode and the deployment's
//! Regions, checked before anything is sent; the UpdateTable requests that
//! add replicas and a witness once the table is ACTIVE (recorded: the
//! in-process server has one Region); sync adds the Regions a table lacks;
//! and what eventual consistency cannot promise is refused.

use std::time::Duration;

use ddb_runtime::model::MultiRegionConsistency;
use ddb_runtime::schema::{
    create_table_if_missing_with, create_table_input_with, plan_sync_with, sync_table_with,
    SyncChange, TableSettings,
};
use ddb_runtime::{Entity, Table};
use ddb_tests::proxy::{Fault, Proxy};
use ddb_tests::{local, recorded_json};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Every write agreed by the Regions before it returns.
#[derive(Table)]
#[ddb(
    name = "Accounts",
    pk = "PK",
    sk = "SK",
    multi_region_consistency = "strong"
)]
struct Accounts;

/// Last writer wins; each item is written in one Region.
#[derive(Table)]
#[ddb(
    name = "Profiles",
    pk = "PK",
    sk = "SK",
    stream = "new_and_old_images",
    multi_region_consistency = "eventual",
    single_region_writes
)]
struct Profiles;

/// Last writer wins, written from any Region.
#[derive(Table)]
#[ddb(
    name = "Sessions",
    pk = "PK",
    sk = "SK",
    stream = "new_and_old_images",
    multi_region_consistency = "eventual"
)]
struct Sessions;

/// Not a global table.
#[derive(Table)]
#[ddb(name = "Local", pk = "PK", sk = "SK")]
struct Local;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Sessions, entity = "Session", pk = "SESSION#{id}", sk = "SESSION")]
struct Session {
    id: String,
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Profile", pk = "PROFILE#{id}", sk = "PROFILE")]
struct Profile {
    id: String,
    #[ddb(unique)]
    email: String,
}

#[test]
fn the_declared_mode_is_in_the_table_definition() {
    assert_eq!(
        Accounts::DEF.multi_region_consistency,
        Some(MultiRegionConsistency::Strong)
    );
    assert!(Accounts::DEF.conditions_hold_across_regions());
    const { assert!(Profiles::DEF.single_region_writes) };
    assert!(Profiles::DEF.conditions_hold_across_regions());
    assert!(!Sessions::DEF.conditions_hold_across_regions());
    assert_eq!(Local::DEF.multi_region_consistency, None);
    assert!(Local::DEF.conditions_hold_across_regions());
}

#[test]
fn regions_dynamodb_would_refuse_are_a_typed_error() {
    let refused = |table: &ddb_runtime::model::TableDef, settings: TableSettings| {
        let error = create_table_input_with(table, table.name, &settings).unwrap_err();
        assert!(
            matches!(error, ddb_runtime::Error::InvalidRequest { .. }),
            "{error:?}"
        );
        error.to_string()
    };
    // Replicas of a table that declares no mode.
    let message = refused(&Local::DEF, TableSettings::default().replica("us-east-2"));
    assert!(message.contains("multi_region_consistency"), "{message}");
    // Strong: three Regions, or two and a witness, in one Region set.
    let message = refused(
        &Accounts::DEF,
        TableSettings::default().replica("us-east-2"),
    );
    assert!(message.contains("three Regions"), "{message}");
    let three_and_witness = TableSettings::default()
        .replica("us-east-2")
        .replica("us-west-2")
        .witness("us-east-1");
    refused(&Accounts::DEF, three_and_witness);
    let across_sets = TableSettings::default()
        .replica("us-east-2")
        .replica("eu-west-1");
    let message = refused(&Accounts::DEF, across_sets);
    assert!(message.contains("one set"), "{message}");
    // A witness serves strong consistency only.
    let message = refused(
        &Sessions::DEF,
        TableSettings::default()
            .replica("eu-west-1")
            .witness("eu-west-2"),
    );
    assert!(message.contains("witness"), "{message}");
    // A customer managed key belongs to one Region: each replica needs its own.
    let keyed = TableSettings::default()
        .kms_key("arn:aws:kms:us-east-1:111122223333:key/home")
        .replica("eu-west-1");
    let message = refused(&Sessions::DEF, keyed.clone());
    assert!(message.contains("replica_kms_key"), "{message}");
    let keyed = keyed.replica_kms_key("eu-west-1", "arn:aws:kms:eu-west-1:111122223333:key/eu");
    assert!(create_table_input_with(&Sessions::DEF, "Sessions", &keyed).is_ok());
    // Names that are not Regions; a witness that is also a replica.
    refused(&Sessions::DEF, TableSettings::default().replica("Europe"));
    refused(
        &Accounts::DEF,
        TableSettings::default()
            .replica("us-east-2")
            .witness("us-east-2"),
    );
    // What DynamoDB takes.
    let two_and_witness = TableSettings::default()
        .replica("us-east-2")
        .witness("us-west-2");
    assert!(create_table_input_with(&Accounts::DEF, "Accounts", &two_and_witness).is_ok());
    let many = TableSettings::default()
        .replica("eu-west-1")
        .replica("ap-southeast-2");
    assert!(create_table_input_with(&Sessions::DEF, "Sessions", &many).is_ok());
}

/// Creates table `name` of `table` with `settings` if missing.
async fn create(
    client: &aws_sdk_dynamodb::Client,
    table: &ddb_runtime::model::TableDef,
    name: &str,
    settings: &TableSettings,
) -> Result<ddb_runtime::schema::TableCreated, ddb_runtime::Error> {
    create_table_if_missing_with(client, table, name, settings, Duration::from_secs(60)).await
}

/// Brings table `name` in line with `table` and `settings`.
async fn sync(
    client: &aws_sdk_dynamodb::Client,
    table: &ddb_runtime::model::TableDef,
    name: &str,
    settings: &TableSettings,
) -> Result<ddb_runtime::schema::SyncPlan, ddb_runtime::Error> {
    sync_table_with(client, table, name, settings, Duration::from_secs(60)).await
}

/// A proxy in front of the local server that records UpdateTable and
/// answers it as DynamoDB does when it starts adding Regions.
async fn replicas_proxy() -> Proxy {
    let proxy = Proxy::start(local().endpoint()).await.unwrap();
    proxy.record("CreateTable");
    proxy.record("UpdateTable");
    let answer = json!({ "TableDescription": { "TableStatus": "UPDATING" } });
    proxy.fail(
        "UpdateTable",
        usize::MAX,
        Fault::Json(200, answer.to_string()),
    );
    proxy
}

#[tokio::test]
async fn strong_consistency_adds_its_replicas_and_witness_in_one_update() {
    let proxy = replicas_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Accounts");
    let settings = TableSettings::default()
        .replica("us-east-2")
        .witness("us-west-2");
    create(&client, &Accounts::DEF, &name, &settings)
        .await
        .unwrap();
    assert_eq!(
        recorded_json(&proxy, "UpdateTable"),
        [json!({
            "TableName": name,
            "ReplicaUpdates": [{ "Create": { "RegionName": "us-east-2" } }],
            "GlobalTableWitnessUpdates": [{ "Create": { "RegionName": "us-west-2" } }],
            "MultiRegionConsistency": "STRONG"
        })]
    );
}

#[tokio::test]
async fn eventual_consistency_adds_one_replica_an_update() {
    let proxy = replicas_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Sessions");
    let settings = TableSettings::default()
        .kms_key("alias/sessions")
        .replica("eu-west-1")
        .replica_kms_key("eu-west-1", "arn:aws:kms:eu-west-1:111122223333:key/eu")
        .replica("ap-southeast-2")
        .replica_kms_key(
            "ap-southeast-2",
            "arn:aws:kms:ap-southeast-2:111122223333:key/ap",
        );
    create(&client, &Sessions::DEF, &name, &settings)
        .await
        .unwrap();
    let created = recorded_json(&proxy, "CreateTable");
    assert_eq!(
        created[0]["StreamSpecification"]["StreamViewType"],
        "NEW_AND_OLD_IMAGES"
    );
    let updates = recorded_json(&proxy, "UpdateTable");
    let regions: Vec<&serde_json::Value> = updates
        .iter()
        .map(|u| &u["ReplicaUpdates"][0]["Create"]["RegionName"])
        .collect();
    assert_eq!(regions, ["eu-west-1", "ap-southeast-2"]);
    let keys: Vec<&serde_json::Value> = updates
        .iter()
        .map(|u| &u["ReplicaUpdates"][0]["Create"]["KMSMasterKeyId"])
        .collect();
    assert_eq!(
        keys,
        [
            "arn:aws:kms:eu-west-1:111122223333:key/eu",
            "arn:aws:kms:ap-southeast-2:111122223333:key/ap"
        ]
    );
    assert!(updates
        .iter()
        .all(|u| u["ReplicaUpdates"].as_array().unwrap().len() == 1));
    assert!(updates
        .iter()
        .all(|u| u.get("MultiRegionConsistency").is_none()));
}

#[tokio::test]
async fn bad_regions_send_nothing() {
    let proxy = replicas_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Accounts");
    // The client's Region is us-east-1: it is the table's, not a replica.
    let home = TableSettings::default()
        .replica("us-east-1")
        .replica("us-east-2");
    let witness_at_home = TableSettings::default()
        .replica("us-east-2")
        .witness("us-east-1");
    for settings in [&home, &witness_at_home] {
        let created = create(&client, &Accounts::DEF, &name, settings).await;
        assert!(created.is_err());
    }
    assert!(plan_sync_with(&client, &Accounts::DEF, &name, &home)
        .await
        .is_err());
    assert_eq!(proxy.seen("CreateTable"), 0);
    assert_eq!(proxy.seen("DescribeTable"), 0);
}

#[tokio::test]
async fn sync_adds_the_regions_a_table_lacks() {
    let proxy = replicas_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Sessions");
    let none = TableSettings::default();
    create(&client, &Sessions::DEF, &name, &none).await.unwrap();
    assert!(recorded_json(&proxy, "UpdateTable").is_empty());
    let settings = TableSettings::default().replica("eu-west-1");
    let plan = plan_sync_with(&client, &Sessions::DEF, &name, &settings)
        .await
        .unwrap();
    assert_eq!(plan.changes, [SyncChange::AddReplica("eu-west-1".into())]);
    assert!(
        plan.to_string().contains("add a replica in eu-west-1"),
        "{plan}"
    );
    sync(&client, &Sessions::DEF, &name, &settings)
        .await
        .unwrap();
    let sent = recorded_json(&proxy, "UpdateTable");
    assert_eq!(
        sent[0]["ReplicaUpdates"][0]["Create"]["RegionName"],
        "eu-west-1"
    );
}

/// Under last writer wins, an idempotency key's record could be written
/// in two Regions: refused before sending, unless each item is written in
/// one Region.
#[tokio::test]
async fn an_idempotency_key_needs_conditions_that_hold_across_regions() {
    let db = ddb_tests::db_with_table::<Sessions>().await;
    let (proxy, db) = ddb_tests::through_proxy::<Sessions>(&db).await;
    let session = Session { id: "s1".into() };
    let refused = db
        .transact_write()
        .create(&session)
        .idempotency_key("request-1")
        .send()
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("single_region_writes"),
        "{refused}"
    );
    assert_eq!(proxy.seen("TransactWriteItems"), 0);

    let db = ddb_tests::db_with_table::<Profiles>().await;
    let profile = Profile {
        id: "p1".into(),
        email: "ada@example.com".into(),
    };
    db.transact_write()
        .create(&profile)
        .idempotency_key("request-1")
        .send()
        .await
        .unwrap();
}

#[test]
fn the_access_pattern_report_says_what_holds_in_each_mode() {
    let report = ddb_tools::access_pattern_report(&[&Session::SCHEMA, &Profile::SCHEMA]);
    let replication = report.split("Replication (global tables):").nth(1).unwrap();
    assert!(
        replication.contains("- Sessions: eventual: conditions"),
        "{report}"
    );
    assert!(replication.contains("idempotency keys at send"), "{report}");
    assert!(
        replication.contains("- Profiles: eventual, each item written in one Region"),
        "{report}"
    );
    let local = ddb_tools::access_pattern_report(&[]);
    assert!(!local.contains("Replication"), "{local}");
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Account", pk = "ACCOUNT#{id}", sk = "ACCOUNT")]
struct Account {
    id: String,
    balance: u64,
}

/// DynamoDB runs no transaction on a table with multi-Region strong
/// consistency: every form of one ddb sends (a transaction, a read
/// transaction, an exactly-once create, an idempotency key) is refused
/// with nothing sent; a single create is not.
#[tokio::test]
async fn no_transaction_is_sent_to_a_table_with_strong_consistency() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, db) = ddb_tests::through_proxy::<Accounts>(&db).await;
    let account = |id: &str| Account {
        id: id.into(),
        balance: 10,
    };
    let refusals = [
        db.transact_write().create(&account("a")).send().await.err(),
        db.create(&account("b"))
            .exactly_once(true)
            .send()
            .await
            .err(),
        db.transact_write()
            .create(&account("c"))
            .idempotency_key("request-1")
            .send()
            .await
            .err(),
    ];
    for refused in refusals {
        let refused = refused.expect("refused");
        assert!(refused.to_string().contains("no transaction"), "{refused}");
    }
    let key = Account::key(&"a".to_string()).unwrap();
    let read = db.transact_get().get(key).send().await.unwrap_err();
    assert!(read.to_string().contains("no transaction"), "{read}");
    assert_eq!(
        proxy.seen("TransactWriteItems") + proxy.seen("TransactGetItems"),
        0
    );
    db.create(&account("d")).send().await.unwrap();
}

/// A strong global table gains its Regions in one request while empty: a
/// sync of a live table reports the Regions it lacks and sends nothing.
#[tokio::test]
async fn sync_reports_the_regions_a_strong_table_lacks() {
    let proxy = replicas_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Accounts");
    let none = TableSettings::default();
    create(&client, &Accounts::DEF, &name, &none).await.unwrap();
    let settings = TableSettings::default()
        .replica("us-east-2")
        .witness("us-west-2");
    let plan = sync(&client, &Accounts::DEF, &name, &settings)
        .await
        .unwrap();
    assert!(plan.changes.is_empty(), "{plan}");
    assert!(
        plan.differences
            .iter()
            .any(|d| d.starts_with("the table lacks us-east-2, us-west-2")),
        "{plan}"
    );
    assert!(recorded_json(&proxy, "UpdateTable").is_empty());
}
