//! Dry runs: every request builder returns the request it would send, sends
//! nothing, equals what send then really sends, and never prints a
//! sensitive value.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::dry_run::Request;
use ddb_runtime::{Db, DryRun, Entity, Table};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Table)]
#[ddb(name = "DryRuns", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct DryRuns;

// Renaming a member recomputes its GSI1 key from `visits`, which a rename
// does not set: that update reads the item first.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = DryRuns, entity = "Member", pk = "MEMBER#{member_id}", sk = "PROFILE",
      query = "by_member", scan)]
#[ddb(index(name = "GSI1", pk = "NAME#{name}", sk = "{name}#{visits}"))]
struct Member {
    member_id: String,
    name: String,
    #[ddb(sensitive)]
    email: String,
    visits: u64,
}

const EMAIL: &str = "ada@example.com";

/// The guard hash key of the handles that write members under an
/// idempotency key (a member holds a sensitive field).
const GUARD_HASH_KEY: &[u8] = b"32 random bytes for the dry runs";

fn member(id: &str) -> Member {
    Member {
        member_id: id.into(),
        name: "Ada".into(),
        email: EMAIL.into(),
        visits: 3,
    }
}

/// A fresh table, a `Db` through a recording proxy, and the proxy.
async fn recorded(targets: &[&str]) -> (Db, ddb_tests::proxy::Proxy, Db) {
    let db = ddb_tests::db_with_table::<DryRuns>().await;
    let (proxy, through) = ddb_tests::through_proxy::<DryRuns>(&db).await;
    for target in targets {
        proxy.record(target);
    }
    (db, proxy, through)
}

/// A value as DynamoDB's JSON protocol writes it.
fn value(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(value).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": item(m) }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(n) => json!({ "NS": n }),
        other => panic!("no JSON form in these tests: {:?}", other.as_s()),
    }
}

fn item(m: &HashMap<String, AttributeValue>) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.clone(), value(v))).collect())
}

fn items(m: Option<&HashMap<String, AttributeValue>>) -> Value {
    m.map_or(Value::Null, item)
}

fn names(n: Option<&HashMap<String, String>>) -> Value {
    n.map_or(Value::Null, |n| json!(n))
}

fn text(s: Option<&str>) -> Value {
    s.map_or(Value::Null, |s| json!(s))
}

/// The only body of `target` the proxy recorded.
fn only(proxy: &ddb_tests::proxy::Proxy, target: &str) -> Value {
    let mut sent = ddb_tests::recorded_json(proxy, target);
    assert_eq!(sent.len(), 1, "one {target} sent");
    sent.remove(0)
}

/// Every placeholder resolved in the reading.
fn assert_resolved(dry: &DryRun) {
    let shown = dry.to_string();
    for placeholder in ["#n0", ":v0", ":v1"] {
        assert!(
            !shown.contains(placeholder),
            "{placeholder} left in:\n{shown}"
        );
    }
}

/// Neither the reading nor the debug form holds the email.
fn assert_redacted(dry: &DryRun) {
    for shown in [dry.to_string(), format!("{dry:?}")] {
        assert!(!shown.contains(EMAIL), "the email printed:\n{shown}");
        assert!(shown.contains("<sensitive>"), "nothing redacted:\n{shown}");
    }
}

#[tokio::test]
async fn a_query_dry_run_sends_nothing_and_is_the_query_send_sends() {
    let (db, proxy, through) = recorded(&["Query"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let fields = Member::fields();
    let query = || {
        through
            .query(Member::by_member(&"m1".to_string()))
            .filter(fields.visits.ge(2u64))
            .limit(5)
    };
    let dry = query().dry_run().unwrap();
    assert_eq!(proxy.seen("Query"), 0, "a dry run sends nothing");
    assert_eq!(dry.operation(), Some("Query"));
    let page = query().send().await.unwrap();
    assert_eq!(page.items.len(), 1);
    let sent = only(&proxy, "Query");
    let Some(Request::QueryInput(input)) = dry.input() else {
        panic!("a Query: {dry}")
    };
    assert_eq!(sent["TableName"], text(input.table_name()));
    assert_eq!(
        sent["KeyConditionExpression"],
        text(input.key_condition_expression())
    );
    assert_eq!(sent["FilterExpression"], text(input.filter_expression()));
    assert_eq!(
        sent["ExpressionAttributeNames"],
        names(input.expression_attribute_names())
    );
    assert_eq!(
        sent["ExpressionAttributeValues"],
        items(input.expression_attribute_values())
    );
    assert_eq!(sent["Limit"], json!(input.limit()));
    assert_eq!(sent["ScanIndexForward"], json!(input.scan_index_forward()));
    assert_resolved(&dry);
    let shown = dry.to_string();
    assert!(shown.contains("PK = \"MEMBER#m1\""), "{shown}");
    assert!(shown.contains("visits >= 2"), "{shown}");
}

#[tokio::test]
async fn a_filter_on_a_sensitive_attribute_prints_sensitive_not_the_value() {
    let db = ddb_tests::db_with_table::<DryRuns>().await;
    let fields = Member::fields();
    let dry = db
        .query(Member::by_member(&"m1".to_string()))
        .filter(fields.email.eq(EMAIL.to_string()))
        .dry_run()
        .unwrap();
    assert_redacted(&dry);
    assert!(dry.to_string().contains("email = <sensitive>"), "{dry}");
    // The input itself is exact: the value is there for programmatic use.
    let Some(Request::QueryInput(input)) = dry.input() else {
        panic!("a Query")
    };
    let values = input.expression_attribute_values().unwrap();
    assert!(values.values().any(|v| v.as_s().is_ok_and(|s| s == EMAIL)));
}

#[tokio::test]
async fn a_get_dry_run_is_the_get_item_send_sends() {
    let (db, proxy, through) = recorded(&["GetItem"]).await;
    let key = member("m1").primary_key().unwrap();
    db.create(&member("m1")).send().await.unwrap();
    let dry = through
        .get(key.clone())
        .consistent_read(true)
        .dry_run()
        .unwrap();
    assert_eq!(proxy.seen("GetItem"), 0, "a dry run sends nothing");
    through
        .get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap();
    let sent = only(&proxy, "GetItem");
    let Some(Request::GetItemInput(input)) = dry.input() else {
        panic!("a GetItem: {dry}")
    };
    assert_eq!(sent["TableName"], text(input.table_name()));
    assert_eq!(sent["Key"], items(input.key()));
    assert_eq!(sent["ConsistentRead"], json!(true));
    assert_eq!(input.consistent_read(), Some(true));
    assert!(dry.to_string().contains("PK: \"MEMBER#m1\""), "{dry}");
}

#[tokio::test]
async fn a_create_dry_run_is_the_put_send_sends_and_never_prints_the_email() {
    let (_db, proxy, through) = recorded(&["PutItem"]).await;
    let dry = through.create(&member("m1")).dry_run().unwrap();
    assert_eq!(proxy.seen("PutItem"), 0, "a dry run sends nothing");
    through.create(&member("m1")).send().await.unwrap();
    let sent = only(&proxy, "PutItem");
    let Some(Request::PutItemInput(input)) = dry.input() else {
        panic!("a PutItem: {dry}")
    };
    assert_eq!(sent["TableName"], text(input.table_name()));
    assert_eq!(sent["Item"], items(input.item()));
    assert_eq!(
        sent["ConditionExpression"],
        text(input.condition_expression())
    );
    assert_eq!(
        sent["ExpressionAttributeNames"],
        names(input.expression_attribute_names())
    );
    assert_eq!(
        sent["ExpressionAttributeValues"],
        items(input.expression_attribute_values())
    );
    assert_eq!(
        sent["Item"]["email"],
        json!({ "S": EMAIL }),
        "the input is exact"
    );
    assert_resolved(&dry);
    assert_redacted(&dry);
    assert!(dry.to_string().contains("email: <sensitive>"), "{dry}");
    assert!(dry.to_string().contains("name: \"Ada\""), "{dry}");
}

#[tokio::test]
async fn a_put_conditioned_on_the_email_is_sent_as_dry_run_and_redacted() {
    let (db, proxy, through) = recorded(&["PutItem"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let fields = Member::fields();
    let put = || {
        through
            .put(&member("m1"))
            .condition(fields.email.eq(EMAIL.to_string()))
    };
    let dry = put().dry_run().unwrap();
    assert_eq!(proxy.seen("PutItem"), 0, "a dry run sends nothing");
    put().send().await.unwrap();
    let sent = only(&proxy, "PutItem");
    let Some(Request::PutItemInput(input)) = dry.input() else {
        panic!("a PutItem: {dry}")
    };
    assert_eq!(sent["Item"], items(input.item()));
    assert_eq!(
        sent["ConditionExpression"],
        text(input.condition_expression())
    );
    assert_eq!(
        sent["ExpressionAttributeValues"],
        items(input.expression_attribute_values())
    );
    assert_redacted(&dry);
    assert!(dry.to_string().contains("email = <sensitive>"), "{dry}");
}

#[tokio::test]
async fn an_update_setting_the_email_is_sent_as_dry_run_and_redacted() {
    let (db, proxy, through) = recorded(&["UpdateItem"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let key = member("m1").primary_key().unwrap();
    let fields = Member::fields();
    let update = || {
        through
            .update(key.clone())
            .set(fields.email, EMAIL.to_string())
    };
    let dry = update().dry_run().unwrap();
    assert_eq!(proxy.seen("UpdateItem"), 0, "a dry run sends nothing");
    assert!(!dry.reads_first());
    update().send().await.unwrap();
    let sent = only(&proxy, "UpdateItem");
    let Some(Request::UpdateItemInput(input)) = dry.input() else {
        panic!("an UpdateItem: {dry}")
    };
    assert_eq!(sent["Key"], items(input.key()));
    assert_eq!(sent["UpdateExpression"], text(input.update_expression()));
    assert_eq!(
        sent["ConditionExpression"],
        text(input.condition_expression())
    );
    assert_eq!(
        sent["ExpressionAttributeNames"],
        names(input.expression_attribute_names())
    );
    assert_eq!(
        sent["ExpressionAttributeValues"],
        items(input.expression_attribute_values())
    );
    assert_eq!(
        sent["ReturnValues"],
        text(input.return_values().map(|r| r.as_str()))
    );
    assert_resolved(&dry);
    assert_redacted(&dry);
    let shown = dry.to_string();
    assert!(shown.contains("email = <sensitive>"), "{shown}");
}

#[tokio::test]
async fn a_delete_dry_run_is_the_delete_item_send_sends() {
    let (db, proxy, through) = recorded(&["DeleteItem"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let key = member("m1").primary_key().unwrap();
    let dry = through.delete(key.clone()).dry_run().unwrap();
    assert_eq!(proxy.seen("DeleteItem"), 0, "a dry run sends nothing");
    through.delete(key).send().await.unwrap();
    let sent = only(&proxy, "DeleteItem");
    let Some(Request::DeleteItemInput(input)) = dry.input() else {
        panic!("a DeleteItem: {dry}")
    };
    assert_eq!(sent["TableName"], text(input.table_name()));
    assert_eq!(sent["Key"], items(input.key()));
    assert_eq!(
        sent["ConditionExpression"],
        text(input.condition_expression())
    );
}

#[tokio::test]
async fn a_transaction_dry_run_is_the_transaction_send_sends_and_redacted() {
    let (_db, proxy, through) = recorded(&["TransactWriteItems"]).await;
    let transaction = || {
        through
            .transact_write()
            .create(&member("m1"))
            .put(through.put(&member("m2")))
    };
    let dry = transaction().dry_run().unwrap();
    assert_eq!(
        proxy.seen("TransactWriteItems"),
        0,
        "a dry run sends nothing"
    );
    transaction().send().await.unwrap();
    let sent = only(&proxy, "TransactWriteItems");
    let Some(Request::TransactWriteItemsInput(input)) = dry.input() else {
        panic!("a TransactWriteItems: {dry}")
    };
    let actions = sent["TransactItems"].as_array().unwrap();
    assert_eq!(actions.len(), input.transact_items().len());
    for (sent, dry) in actions.iter().zip(input.transact_items()) {
        let put = dry.put().unwrap();
        assert_eq!(sent["Put"]["Item"], item(put.item()));
        assert_eq!(
            sent["Put"]["ConditionExpression"],
            text(put.condition_expression())
        );
        assert_eq!(
            sent["Put"]["ExpressionAttributeValues"],
            items(put.expression_attribute_values())
        );
    }
    assert_resolved(&dry);
    assert_redacted(&dry);
}

#[tokio::test]
async fn a_batch_put_dry_run_is_the_batch_send_sends_and_redacted() {
    let (_db, proxy, through) = recorded(&["BatchWriteItem"]).await;
    let members = [member("m1"), member("m2")];
    let dry = through.batch_put_dry_run(&members).unwrap();
    assert_eq!(proxy.seen("BatchWriteItem"), 0, "a dry run sends nothing");
    through.batch_put(&members).await.unwrap();
    let sent = only(&proxy, "BatchWriteItem");
    let Some(Request::BatchWriteItemInput(input)) = dry.input() else {
        panic!("a BatchWriteItem: {dry}")
    };
    let (table, writes) = input.request_items().unwrap().iter().next().unwrap();
    let sent_writes = sent["RequestItems"][table].as_array().unwrap();
    assert_eq!(sent_writes.len(), writes.len());
    for (sent, dry) in sent_writes.iter().zip(writes) {
        assert_eq!(
            sent["PutRequest"]["Item"],
            item(dry.put_request().unwrap().item())
        );
    }
    assert_redacted(&dry);
}

#[tokio::test]
async fn batch_get_and_transact_get_dry_runs_are_what_they_send() {
    let (db, proxy, through) = recorded(&["BatchGetItem", "TransactGetItems"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let key = || member("m1").primary_key().unwrap();
    let batch = through.batch_get_dry_run(vec![key()]).unwrap();
    let transaction = through.transact_get().get(key());
    let transact = transaction.dry_run().unwrap();
    assert_eq!(
        proxy.seen("BatchGetItem") + proxy.seen("TransactGetItems"),
        0
    );
    through.batch_get(vec![key()]).await.unwrap();
    transaction.send().await.unwrap();
    let Some(Request::BatchGetItemInput(input)) = batch.input() else {
        panic!("a BatchGetItem: {batch}")
    };
    let (table, keys) = input.request_items().unwrap().iter().next().unwrap();
    let sent = only(&proxy, "BatchGetItem");
    assert_eq!(
        sent["RequestItems"][table]["Keys"][0],
        item(&keys.keys()[0])
    );
    let Some(Request::TransactGetItemsInput(input)) = transact.input() else {
        panic!("a TransactGetItems: {transact}")
    };
    let sent = only(&proxy, "TransactGetItems");
    let get = input.transact_items()[0].get().unwrap();
    assert_eq!(sent["TransactItems"][0]["Get"]["Key"], item(get.key()));
    assert_eq!(
        sent["TransactItems"][0]["Get"]["TableName"],
        json!(get.table_name())
    );
}

#[tokio::test]
async fn modify_and_an_update_that_reads_first_show_the_consistent_get_they_send_first() {
    let (db, proxy, through) = recorded(&["GetItem"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let key = member("m1").primary_key().unwrap();
    let update = through
        .update(key.clone())
        .set(Member::fields().name, "Bea".to_string())
        .dry_run()
        .unwrap();
    let modify = through
        .modify(key.clone(), |m: &mut Member| m.visits += 1)
        .dry_run()
        .unwrap();
    for target in ["GetItem", "UpdateItem", "PutItem"] {
        assert_eq!(proxy.seen(target), 0, "a dry run sends no {target}");
    }
    for dry in [&update, &modify] {
        assert!(dry.reads_first(), "{dry}");
        let Some(Request::GetItemInput(input)) = dry.input() else {
            panic!("a GetItem: {dry}")
        };
        assert_eq!(input.consistent_read(), Some(true));
        assert_eq!(input.key(), Some(&key.to_item()));
        assert!(dry.to_string().contains("reads first"), "{dry}");
    }
    through
        .modify(key, |m: &mut Member| m.visits += 1)
        .send()
        .await
        .unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "GetItem");
    let Some(Request::GetItemInput(input)) = modify.input() else {
        unreachable!()
    };
    assert_eq!(sent[0]["Key"], items(input.key()));
    assert_eq!(sent[0]["ConsistentRead"], json!(true));
}

#[tokio::test]
async fn a_sharded_query_dry_run_is_one_query_per_shard_as_sent() {
    use ddb_examples::single_table::{Ecommerce, Order};
    use ddb_examples::OrderStatus;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("Query");
    let query = || {
        through
            .query(Order::open_orders(&OrderStatus::Open))
            .hydrate()
            .limit(5)
    };
    let dry = query().dry_run().unwrap();
    assert_eq!(proxy.seen("Query"), 0, "a dry run sends nothing");
    let shards = Order::SCHEMA.keys[2].shards as usize;
    assert_eq!(dry.requests().len(), shards, "{dry}");
    query().send().await.unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert_eq!(
        sent.len(),
        shards,
        "one Query a shard, none more on an empty index"
    );
    // The shards are read concurrently: matched by their values.
    let mut dry_values: Vec<String> = dry
        .requests()
        .iter()
        .map(|request| {
            let Request::QueryInput(input) = request else {
                panic!("a Query: {dry}")
            };
            assert_eq!(input.limit(), Some(5));
            items(input.expression_attribute_values()).to_string()
        })
        .collect();
    let mut sent_values: Vec<String> = sent
        .iter()
        .map(|body| body["ExpressionAttributeValues"].to_string())
        .collect();
    dry_values.sort();
    sent_values.sort();
    assert_eq!(dry_values, sent_values);
    let shown = dry.to_string();
    for shard in 0..shards {
        assert!(
            shown.contains(&format!("\"STATUS#OPEN#{shard}\"")),
            "{shown}"
        );
    }
}

#[tokio::test]
async fn a_collection_dry_run_is_the_query_send_sends() {
    use ddb_examples::single_table::{Customer, CustomerItem, Ecommerce};
    use ddb_examples::CustomerId;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("Query");
    let partition = Customer::pk(&CustomerId("C1".into())).unwrap();
    let collection = || {
        through
            .collection::<CustomerItem>(partition.clone())
            .limit(10)
    };
    let dry = collection().dry_run().unwrap();
    assert_eq!(proxy.seen("Query"), 0, "a dry run sends nothing");
    collection().send().await.unwrap();
    let sent = only(&proxy, "Query");
    let Some(Request::QueryInput(input)) = dry.input() else {
        panic!("a Query: {dry}")
    };
    assert_eq!(
        sent["KeyConditionExpression"],
        text(input.key_condition_expression())
    );
    assert_eq!(
        sent["ExpressionAttributeValues"],
        items(input.expression_attribute_values())
    );
    assert_eq!(sent["Limit"], json!(input.limit()));
    assert!(dry.to_string().contains("\"CUSTOMER#C1\""), "{dry}");
}

#[tokio::test]
async fn an_idempotent_create_dry_run_is_its_transaction_and_redacted() {
    let (_db, proxy, through) = recorded(&["TransactWriteItems"]).await;
    // A member holds a sensitive field: its record's fingerprint is keyed.
    let through = through.with_guard_hash_key(GUARD_HASH_KEY.to_vec());
    let create = || through.create(&member("m1")).idempotency_key("req-1");
    let dry = create().dry_run().unwrap();
    assert_eq!(
        proxy.seen("TransactWriteItems"),
        0,
        "a dry run sends nothing"
    );
    create().send().await.unwrap();
    let sent = only(&proxy, "TransactWriteItems");
    let Some(Request::TransactWriteItemsInput(input)) = dry.input() else {
        panic!("a TransactWriteItems: {dry}")
    };
    let actions = sent["TransactItems"].as_array().unwrap();
    assert_eq!(
        actions.len(),
        input.transact_items().len(),
        "the item and its guard"
    );
    let own = input.transact_items()[0].put().unwrap();
    assert_eq!(actions[0]["Put"]["Item"], item(own.item()));
    assert_eq!(
        actions[0]["Put"]["ConditionExpression"],
        text(own.condition_expression())
    );
    assert_redacted(&dry);
}

#[tokio::test]
async fn a_vector_search_dry_run_is_the_search_send_sends() {
    use crate::vector::{Catalog, Product};
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<Catalog>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Catalog>(&db).await;
    proxy.record("SearchVectors");
    let query = [0.3, -0.2, 0.9, 0.1];
    let search = || {
        through
            .search(Product::similar(&"lamps".to_string(), &query))
            .top_k(3)
    };
    let dry = search().dry_run().unwrap();
    assert_eq!(proxy.seen("SearchVectors"), 0, "a dry run sends nothing");
    search().send().await.unwrap();
    let sent = only(&proxy, "SearchVectors");
    let Some(Request::SearchVectorsInput(input)) = dry.input() else {
        panic!("a SearchVectors: {dry}")
    };
    assert_eq!(sent["IndexName"], text(input.index_name()));
    assert_eq!(sent["TopK"], json!(input.top_k()));
    assert_eq!(
        sent["SearchConditionExpression"],
        text(input.search_condition_expression())
    );
    assert_eq!(
        sent["ProjectionExpression"],
        text(input.projection_expression())
    );
    assert_eq!(
        sent["ExpressionAttributeValues"],
        items(input.expression_attribute_values())
    );
    assert_resolved(&dry);
    assert!(dry.to_string().contains("<4 dimensions>"), "{dry}");
    // Hydrated, the search asks only for the keys (and the entity type).
    let hydrate = search().dry_run_hydrate().unwrap();
    search().hydrate().await.unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "SearchVectors");
    let Some(Request::SearchVectorsInput(input)) = hydrate.input() else {
        panic!("a SearchVectors: {hydrate}")
    };
    assert_eq!(
        sent.last().unwrap()["ProjectionExpression"],
        text(input.projection_expression())
    );
    assert_ne!(
        input.projection_expression(),
        dry.input().and_then(|r| match r {
            Request::SearchVectorsInput(i) => i.projection_expression(),
            _ => None,
        }),
        "the keys only, not the whole entity"
    );
}

#[tokio::test]
async fn a_scan_dry_run_is_the_first_round_of_scans_send_sends() {
    let (db, proxy, through) = recorded(&["Scan"]).await;
    db.create(&member("m1")).send().await.unwrap();
    let fields = Member::fields();
    let scan = || {
        through
            .scan::<Member>()
            .segments(2)
            .filter(fields.email.eq(EMAIL.to_string()))
            .limit(4)
    };
    let dry = scan().dry_run().unwrap();
    assert_eq!(proxy.seen("Scan"), 0, "a dry run sends nothing");
    assert_eq!(dry.requests().len(), 2, "one Scan a segment read at once");
    let page = scan().send().await.unwrap();
    assert_eq!(page.items.len(), 1);
    let sent = ddb_tests::recorded_json(&proxy, "Scan");
    for request in dry.requests() {
        let Request::ScanInput(input) = request else {
            panic!("a Scan: {dry}")
        };
        let body = sent
            .iter()
            .find(|b| b["Segment"] == json!(input.segment()))
            .expect("the segment was sent");
        assert_eq!(body["TableName"], text(input.table_name()));
        assert_eq!(body["TotalSegments"], json!(input.total_segments()));
        assert_eq!(body["FilterExpression"], text(input.filter_expression()));
        assert_eq!(
            body["ExpressionAttributeValues"],
            items(input.expression_attribute_values())
        );
        assert_eq!(body["Limit"], json!(input.limit()));
    }
    assert_resolved(&dry);
    assert_redacted(&dry);
}

/// A printout with what changes from call to call (the transaction's
/// token, times) evened out.
fn steady(dry: &DryRun) -> String {
    dry.to_string()
        .lines()
        .filter(|line| !line.contains("ClientRequestToken"))
        .map(|line| {
            let mut out = String::with_capacity(line.len());
            let mut digits = false;
            for c in line.chars() {
                if c.is_ascii_digit() {
                    if !digits {
                        out.push('0');
                    }
                    digits = true;
                } else {
                    out.push(c);
                    digits = false;
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_printout_does_not_change_when_only_a_sensitive_value_does() {
    let db = ddb_tests::db_with_table::<DryRuns>().await;
    let with_email = |email: &str| Member {
        email: email.into(),
        ..member("m1")
    };
    let fields = Member::fields();
    let printouts = |email: &str| {
        let member = with_email(email);
        vec![
            steady(&db.create(&member).dry_run().unwrap()),
            // The guard of an idempotency key holds a keyed hash of the
            // whole item.
            steady(
                &db.with_guard_hash_key(GUARD_HASH_KEY.to_vec())
                    .create(&member)
                    .idempotency_key("req-1")
                    .dry_run()
                    .unwrap(),
            ),
            steady(&db.put(&member).dry_run().unwrap()),
            steady(
                &db.update(member.primary_key().unwrap())
                    .set(fields.email, email.to_string())
                    .dry_run()
                    .unwrap(),
            ),
            steady(
                &db.query(Member::by_member(&"m1".to_string()))
                    .filter(fields.email.eq(email.to_string()))
                    .dry_run()
                    .unwrap(),
            ),
        ]
    };
    let a = printouts("a@example.com");
    let b = printouts("b@example.org");
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(a, b, "a sensitive value shows through");
    }
}

#[tokio::test]
async fn a_get_unique_dry_run_is_the_guard_read_send_sends_first() {
    use crate::unique::{Accounts, User};
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
    proxy.record("GetItem");
    let ada = User {
        id: "u1".into(),
        email: "ada@example.com".into(),
        tenant: "acme".into(),
        handle: "@ada".into(),
        name: "Ada".into(),
    };
    db.create(&ada).send().await.unwrap();
    let lookup = || through.get_unique(User::by_email(&"ada@example.com".to_string()));
    let dry = lookup().dry_run().unwrap();
    assert_eq!(proxy.seen("GetItem"), 0, "a dry run sends nothing");
    assert_eq!(lookup().send().await.unwrap(), Some(ada));
    let sent = ddb_tests::recorded_json(&proxy, "GetItem");
    assert_eq!(sent.len(), 2, "the guard, then the user it names");
    let Some(Request::GetItemInput(input)) = dry.input() else {
        panic!("a GetItem: {dry}")
    };
    assert_eq!(sent[0]["Key"], items(input.key()));
    assert_eq!(
        sent[0]["ProjectionExpression"],
        text(input.projection_expression())
    );
    assert_eq!(sent[0]["ConsistentRead"], json!(input.consistent_read()));
    assert_resolved(&dry);
}
