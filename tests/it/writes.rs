//! Writes over HTTP against the local server (and through a fault-injecting
//! proxy where the server cannot produce the behaviour).

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::{Created, Db, Entity, Error, Table};
use ddb_tests::proxy::Fault;
use serde::{Deserialize, Serialize};
use time::macros::datetime;

fn customer(id: &str) -> Customer {
    Customer {
        customer_id: CustomerId(id.into()),
        name: format!("Customer {id}"),
        email: format!("c{id}@example.com"),
        order_count: 0,
    }
}

fn open_order(id: &str) -> Order {
    Order {
        customer_id: CustomerId("123".into()),
        order_id: OrderId(id.into()),
        placed_at: datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 5600,
        version: 0,
    }
}

fn line(order: &str, product: &str) -> OrderItem {
    OrderItem {
        order_id: OrderId(order.into()),
        product_id: ProductId(product.into()),
        quantity: 1,
        price_cents: 100,
    }
}

async fn raw_item(db: &Db, key: ddb_runtime::Item) -> Option<ddb_runtime::Item> {
    ddb_tests::raw_item::<Ecommerce>(db, key).await
}

async fn count_items(db: &Db) -> usize {
    ddb_tests::scan_raw::<Ecommerce>(db).await.len()
}

#[tokio::test]
async fn create_is_idempotent_and_reports_conflicts() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let ada = customer("123");
    assert_eq!(db.create(&ada).send().await.unwrap(), Created::Created);
    assert_eq!(
        db.create(&ada).send().await.unwrap(),
        Created::AlreadyExisted
    );
    assert_eq!(count_items(&db).await, 1);

    let other = Customer {
        name: "Someone else".into(),
        ..ada.clone()
    };
    match db.create(&other).send().await {
        Err(Error::AlreadyExists {
            entity: "Customer",
            key,
            existing,
        }) => {
            assert_eq!(key, "CUSTOMER#123 / PROFILE");
            assert_eq!(existing.decode::<Customer>().unwrap(), ada);
            assert!(
                !format!("{existing:?}").contains("example.com"),
                "Debug must not print attributes"
            );
        }
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    let stored = db
        .get(Customer::key(&ada.customer_id).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(stored, Some(ada));
}

#[tokio::test]
async fn a_create_whose_response_is_lost_is_applied_once() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail("PutItem", 1, Fault::DropResponse);
    // The SDK retries the lost request; the retry meets the item its first
    // attempt stored, and the create reports it wrote it.
    let outcome = through.create(&open_order("A145")).send().await.unwrap();
    assert_eq!(outcome, Created::Created);
    assert_eq!(proxy.seen("PutItem"), 2);
    assert_eq!(count_items(&db).await, 1);
}

#[derive(Table)]
#[ddb(name = "Counters", pk = "PK")]
struct Counters;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
struct Counter {
    name: String,
    value: u64,
    #[ddb(version)]
    version: u64,
}

#[derive(Table)]
#[ddb(name = "Tallies", pk = "PK")]
struct Tallies;

/// An entity whose keys read as a `Counter`'s, on another table.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Tallies, entity = "Tally", pk = "COUNTER#{name}")]
struct Tally {
    name: String,
}

/// A transaction names an item by its table and key: the same key on two
/// tables is two items, the same key twice on one table is refused before
/// anything is sent, the error naming the key.
#[tokio::test]
async fn a_transaction_names_each_item_by_table_and_key() {
    let counters = ddb_tests::db_with_table::<Counters>().await;
    let tallies = ddb_tests::db_with_table::<Tallies>().await;
    let db = counters.with_table_name::<Tallies>(tallies.table_name::<Tallies>());
    let counter = |name: &str| Counter {
        name: name.into(),
        value: 1,
        version: 0,
    };
    let tally = |name: &str| Tally { name: name.into() };
    db.transact_write()
        .create(&counter("a"))
        .create(&tally("a"))
        .send()
        .await
        .unwrap();
    assert!(counters
        .get(Counter::key(&"a".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .is_some());
    assert!(db
        .get(Tally::key(&"a".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .is_some());

    let twice = db
        .transact_write()
        .create(&counter("b"))
        .create(&tally("b"))
        .create(&tally("c"))
        .delete(db.delete(Tally::key(&"b".to_string()).unwrap()))
        .send()
        .await;
    match twice {
        Err(Error::DuplicateKey {
            entity,
            key,
            operation: "transaction",
        }) => {
            assert_eq!((entity, key.as_str()), ("Tally", "COUNTER#b"));
        }
        other => panic!("expected DuplicateKey, got {other:?}"),
    }
    assert!(db
        .get(Tally::key(&"c".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_versioned_increments_lose_nothing() {
    let db = ddb_tests::db_with_table::<Counters>().await;
    let start = Counter {
        name: "hits".into(),
        value: 0,
        version: 0,
    };
    db.create(&start).send().await.unwrap();
    let key = Counter::key(&"hits".to_string()).unwrap();
    let conflicts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let db = db.clone();
            let key = key.clone();
            let conflicts = conflicts.clone();
            tokio::spawn(async move {
                for _ in 0..25 {
                    loop {
                        let mut counter = db
                            .get(key.clone())
                            .consistent_read(true)
                            .send()
                            .await
                            .unwrap()
                            .unwrap();
                        counter.value += 1;
                        match db.put(&counter).send().await {
                            Ok(written) => {
                                assert_eq!(written.version, Some(counter.version + 1));
                                break;
                            }
                            Err(error) if error.is_version_conflict() => {
                                conflicts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            Err(error) => panic!("{error}"),
                        }
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let end = db
        .get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(end.value, 800);
    assert_eq!(end.version, 801, "created at 1, then 800 versioned writes");
    assert!(
        conflicts.load(std::sync::atomic::Ordering::Relaxed) > 0,
        "the writers did race"
    );
}

#[tokio::test]
async fn a_stale_version_is_a_typed_conflict() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&open_order("A1")).send().await.unwrap();
    let key = Order::key(
        &CustomerId("123".into()),
        &datetime!(2026-10-02 14:31:07 UTC),
        &OrderId("A1".into()),
    )
    .unwrap();
    let loaded = db.get(key.clone()).send().await.unwrap().unwrap();
    assert_eq!(loaded.version, 1);
    db.put(&loaded).send().await.unwrap();
    match db.put(&loaded).send().await {
        Err(Error::VersionConflict {
            expected: 1,
            current: Some(2),
            ..
        }) => {}
        other => panic!("expected a version conflict, got {other:?}"),
    }
    match db.delete_entity(&loaded).send().await {
        Err(error) => assert!(error.is_version_conflict(), "{error}"),
        Ok(_) => panic!("a stale delete must fail"),
    }
    let current = db.get(key.clone()).send().await.unwrap().unwrap();
    let old = db
        .delete_entity(&current)
        .return_old(true)
        .send()
        .await
        .unwrap();
    assert_eq!(old.item.map(|o| o.version), Some(2));
    assert_eq!(db.get(key).send().await.unwrap(), None);
}

#[tokio::test]
async fn shipping_an_order_takes_it_out_of_the_open_orders_index() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let order = open_order("A145");
    db.create(&order).send().await.unwrap();
    let key = order.primary_key().unwrap();
    let before = raw_item(&db, key.to_item()).await.unwrap();
    assert!(before["GSI2PK"].as_s().unwrap().starts_with("STATUS#OPEN#"));

    let fields = Order::fields();
    let written = db
        .update(key.clone())
        .set(fields.status, OrderStatus::Shipped)
        .return_new(true)
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, Some(2));
    assert_eq!(written.item.unwrap().status, OrderStatus::Shipped);

    let after = raw_item(&db, key.to_item()).await.unwrap();
    assert!(
        !after.contains_key("GSI2PK") && !after.contains_key("GSI2SK"),
        "left the sparse index"
    );
    for attribute in [
        "PK",
        "SK",
        "GSI1PK",
        "GSI1SK",
        "_type",
        "customer_id",
        "order_id",
        "placed_at",
    ] {
        assert_eq!(
            after.get(attribute),
            before.get(attribute),
            "{attribute} unchanged"
        );
    }
    assert_eq!(after["status"], AttributeValue::S("SHIPPED".into()));
    let open = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .collect()
        .await
        .unwrap();
    assert!(open.is_empty());

    // And back: reopening puts it in the right shard again.
    db.update(key.clone())
        .set(fields.status, OrderStatus::Open)
        .send()
        .await
        .unwrap();
    let reopened = raw_item(&db, key.to_item()).await.unwrap();
    assert_eq!(reopened["GSI2PK"], before["GSI2PK"]);
    assert_eq!(reopened["GSI2SK"], before["GSI2SK"]);

    // Updating a missing item is NotFound, and creates nothing.
    let ghost = open_order("A999").primary_key().unwrap();
    let missing = db
        .update(ghost.clone())
        .set(fields.total_cents, 1u64)
        .send()
        .await;
    assert!(
        matches!(missing, Err(Error::NotFound { .. })),
        "{missing:?}"
    );
    assert!(raw_item(&db, ghost.to_item()).await.is_none());
}

#[tokio::test]
async fn updates_without_index_fields_are_one_request() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let ada = customer("123");
    db.create(&ada).send().await.unwrap();
    let key = Customer::key(&ada.customer_id).unwrap();
    let fields = Customer::fields();
    let updated = db
        .update(key.clone())
        .add(fields.order_count, 2u32)
        .set(fields.name, "Ada L.".to_string())
        .condition(fields.order_count.eq(0u32))
        .return_new(true)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.item.unwrap().order_count, 2);
    let failed = db
        .update(key)
        .add(fields.order_count, 1u32)
        .condition(fields.order_count.eq(0u32))
        .send()
        .await;
    assert!(
        matches!(
            &failed,
            Err(Error::ConditionFailed {
                existing: Some(_),
                ..
            })
        ),
        "{failed:?}"
    );
    assert!(failed.unwrap_err().is_condition_failed());
}

#[tokio::test]
async fn a_transaction_is_applied_once_and_cancels_whole() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&customer("123")).send().await.unwrap();
    let customer_key = Customer::key(&CustomerId("123".into())).unwrap();
    let fields = Customer::fields();
    let build = |token: &str| {
        db.transact_write()
            .client_request_token(token)
            .create(&open_order("A145"))
            .create(&line("A145", "P9"))
            .create(&line("A145", "P31"))
            .create(&line("A145", "P77"))
            .update(
                db.update(customer_key.clone())
                    .add(fields.order_count, 1u32),
            )
    };
    let token = db.transact_write().token().to_owned();
    build(&token).send().await.unwrap();
    build(&token).send().await.unwrap(); // the same token: not applied again
    let stored = db.get(customer_key.clone()).send().await.unwrap().unwrap();
    assert_eq!(stored.order_count, 1);
    assert_eq!(count_items(&db).await, 5);

    // The same token with other actions is refused as such.
    let mismatch = db
        .transact_write()
        .client_request_token(&token)
        .create(&line("A145", "P1"))
        .send()
        .await;
    assert!(mismatch.unwrap_err().is_idempotent_parameter_mismatch());

    // A failing condition check cancels every action, reason on the right one.
    let result = db
        .transact_write()
        .create(&open_order("A146"))
        .create(&line("A146", "P9"))
        .condition_check(customer_key.clone(), fields.order_count.eq(99u32))
        .send()
        .await;
    match result {
        Err(Error::TransactionCanceled { reasons }) => {
            let codes: Vec<&str> = reasons.iter().map(|r| r.code.as_str()).collect();
            assert_eq!(codes, ["None", "None", "ConditionalCheckFailed"]);
            assert_eq!(reasons[2].entity, "Customer");
            assert_eq!(reasons[2].key, "CUSTOMER#123 / PROFILE");
        }
        other => panic!("expected a cancellation, got {other:?}"),
    }
    assert_eq!(
        count_items(&db).await,
        5,
        "nothing of the canceled transaction applied"
    );

    // Read back in one transaction.
    let read = db
        .transact_get()
        .get(customer_key)
        .get(line("A145", "P9").primary_key().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(read.get::<Customer>(0).unwrap().unwrap().order_count, 1);
    assert_eq!(read.get::<OrderItem>(1).unwrap(), Some(line("A145", "P9")));
}

#[tokio::test]
async fn transactions_are_checked_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let twice = db
        .transact_write()
        .create(&line("A1", "P1"))
        .create(&line("A1", "P1"))
        .send()
        .await;
    assert!(matches!(
        twice,
        Err(Error::DuplicateKey {
            operation: "transaction",
            ..
        })
    ));
    let mut many = db.transact_write();
    for i in 0..101 {
        many = many.create(&line("A1", &format!("P{i}")));
    }
    assert!(matches!(
        many.send().await,
        Err(Error::InvalidRequest { .. })
    ));
    let mut hundred = db.transact_write();
    for i in 0..100 {
        hundred = hundred.create(&line("A1", &format!("P{i}")));
    }
    hundred.send().await.unwrap();
    assert_eq!(count_items(&db).await, 100);
}

#[tokio::test]
async fn a_thousand_items_by_batch() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let items: Vec<OrderItem> = (0..1000)
        .map(|i| line(&format!("B{}", i / 10), &format!("P{i}")))
        .collect();
    db.batch_put(&items).await.unwrap();
    assert_eq!(count_items(&db).await, 1000);
    let keys: Vec<_> = items.iter().map(|i| i.primary_key().unwrap()).collect();
    let read = db.batch_get(keys.clone()).await.unwrap();
    assert_eq!(read, items, "every item exactly once, in key order");
    let mut doubled = keys.clone();
    doubled.push(keys[0].clone());
    assert!(matches!(
        db.batch_get(doubled).await,
        Err(Error::DuplicateKey { .. })
    ));
    db.batch_delete(keys[..500].to_vec()).await.unwrap();
    assert_eq!(count_items(&db).await, 500);
}

#[tokio::test]
async fn unprocessed_batch_items_are_retried_until_written() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    // Three answers in a row leave 10 items of their chunk unprocessed.
    proxy.fail("BatchWriteItem", 3, Fault::Unprocessed(Some(10)));
    let items: Vec<OrderItem> = (0..60).map(|i| line("U1", &format!("P{i:02}"))).collect();
    through.batch_put(&items).await.unwrap();
    assert_eq!(count_items(&db).await, 60);
    assert!(
        proxy.seen("BatchWriteItem") >= 3 + 3,
        "3 chunks, and a retry for each injected fault"
    );

    proxy.fail("BatchGetItem", 2, Fault::Unprocessed(Some(30)));
    let keys: Vec<_> = items.iter().map(|i| i.primary_key().unwrap()).collect();
    assert_eq!(through.batch_get(keys).await.unwrap(), items);
}

#[tokio::test]
async fn an_exhausted_retry_budget_names_the_unwritten_keys() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let policy = ddb_runtime::batch::RetryPolicy {
        max_attempts: 3,
        base: std::time::Duration::from_millis(1),
        cap: std::time::Duration::from_millis(5),
        concurrency: 1,
    };
    let through = through.with_retry_policy(policy);
    // Every attempt leaves the first 2 items of the chunk unprocessed.
    proxy.fail("BatchWriteItem", 100, Fault::Unprocessed(Some(2)));
    let items: Vec<OrderItem> = (0..5).map(|i| line("X1", &format!("P{i}"))).collect();
    match through.batch_put(&items).await {
        Err(Error::Unprocessed {
            operation: "BatchWriteItem",
            keys,
            ..
        }) => {
            // Attempt 1 keeps back P0, P1; the two retries keep them back again.
            assert_eq!(keys, ["ORDER#X1 / PRODUCT#P0", "ORDER#X1 / PRODUCT#P1"]);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
    assert_eq!(count_items(&db).await, 3, "everything else was written");
    assert_eq!(proxy.seen("BatchWriteItem"), 3);

    // Reads name the keys not read the same way.
    proxy.fail("BatchGetItem", 100, Fault::Unprocessed(Some(1)));
    let keys: Vec<_> = items[2..]
        .iter()
        .map(|i| i.primary_key().unwrap())
        .collect();
    match through.batch_get(keys).await {
        Err(Error::Unprocessed {
            operation: "BatchGetItem",
            keys,
            ..
        }) => {
            assert_eq!(keys, ["ORDER#X1 / PRODUCT#P2"]);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}

/// The `PK / SK` texts of the raw table's items.
async fn stored_keys(db: &Db) -> std::collections::BTreeSet<String> {
    ddb_tests::scan_raw::<Ecommerce>(db)
        .await
        .iter()
        .map(|item| {
            format!(
                "{} / {}",
                item["PK"].as_s().unwrap(),
                item["SK"].as_s().unwrap()
            )
        })
        .collect()
}

fn fast_batches(db: &Db) -> Db {
    db.with_retry_policy(ddb_runtime::batch::RetryPolicy {
        max_attempts: 3,
        base: std::time::Duration::from_millis(1),
        cap: std::time::Duration::from_millis(5),
        concurrency: 1,
    })
}

/// An SDK error in one chunk aborted the others and left them in an
/// unknown state. Every chunk is sent; the error names each key by what
/// happened to it, and the raw table agrees.
#[tokio::test]
async fn a_failed_batch_chunk_does_not_abort_the_others() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    proxy.fail(
        "BatchWriteItem",
        1,
        Fault::Error(400, "ValidationException"),
    );
    let items: Vec<OrderItem> = (0..60).map(|i| line("F1", &format!("P{i:02}"))).collect();
    let result = through.batch_put(&items).await;
    // The failed request was refused for good: sending it again fails again.
    assert!(
        result.as_ref().is_err_and(|e| !e.is_retryable()),
        "{result:?}"
    );
    match result {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            let ddb_runtime::BatchOutcome {
                done,
                unknown,
                cause,
                ..
            } = *outcome;
            assert_eq!(keys.len(), 25, "the failed chunk: {keys:?}");
            assert_eq!(done.len(), 35);
            assert!(unknown.is_empty());
            assert!(
                matches!(
                    cause,
                    Some(Error::Sdk {
                        kind: ddb_runtime::SdkErrorKind::Service,
                        ..
                    })
                ),
                "the cause is the failed request"
            );
            let stored = stored_keys(&db).await;
            assert_eq!(stored, done.iter().cloned().collect());
            assert!(keys.iter().all(|k| !stored.contains(k)));
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}

/// A chunk whose answers are all lost is reported as unknown (it may
/// have been written), not as written or unwritten.
#[tokio::test]
async fn a_batch_chunk_whose_answer_is_lost_is_unknown() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    proxy.fail("BatchWriteItem", 100, Fault::DropResponse);
    let items: Vec<OrderItem> = (0..30).map(|i| line("L1", &format!("P{i:02}"))).collect();
    match through.batch_put(&items).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert!(
                keys.is_empty() && outcome.done.is_empty(),
                "{keys:?} {outcome:?}"
            );
            assert_eq!(outcome.unknown.len(), 30);
            // The proxy forwarded every request before dropping its answer.
            assert_eq!(stored_keys(&db).await.len(), 30);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}

/// Batch_get threw away what it read when one key stayed unprocessed.
#[tokio::test]
async fn a_batch_get_with_a_key_left_unread_keeps_what_it_read() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let items: Vec<OrderItem> = (0..5).map(|i| line("G1", &format!("P{i}"))).collect();
    db.batch_put(&items).await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    proxy.fail("BatchGetItem", 100, Fault::Unprocessed(Some(1)));
    let keys: Vec<_> = items.iter().map(|i| i.primary_key().unwrap()).collect();
    match through.batch_get(keys).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert_eq!(keys, ["ORDER#G1 / PRODUCT#P0"]);
            assert_eq!(outcome.done.len(), 4);
            let mut got: Vec<OrderItem> =
                outcome.read.iter().map(|r| r.decode().unwrap()).collect();
            got.sort_by(|a, b| a.product_id.cmp(&b.product_id));
            assert_eq!(got, items[1..]);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}

fn conflict(reasons: &[&str]) -> Fault {
    let reasons: Vec<_> = reasons
        .iter()
        .map(|code| match *code {
            "None" => serde_json::json!({ "Code": "None" }),
            code => serde_json::json!({ "Code": code, "Message": "Transaction is ongoing for the item." }),
        })
        .collect();
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": "Transaction cancelled, please refer cancellation reasons for specific reasons",
        "CancellationReasons": reasons,
    });
    Fault::Json(400, body.to_string())
}

#[tokio::test]
async fn transactions_lost_to_conflicts_are_sent_again() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail(
        "TransactWriteItems",
        2,
        conflict(&["TransactionConflict", "None"]),
    );
    let transaction = through
        .transact_write()
        .create(&line("T1", "P1"))
        .create(&line("T1", "P2"));
    let first_token = transaction.token().to_owned();
    let applied = transaction.send().await.unwrap();
    assert_ne!(applied, first_token, "a canceled token is not reused");
    assert_eq!(proxy.seen("TransactWriteItems"), 3);
    assert_eq!(count_items(&db).await, 2);

    // A condition failure is never retried; nor is a conflict under a pinned token.
    proxy.fail(
        "TransactWriteItems",
        1,
        conflict(&["ConditionalCheckFailed", "TransactionConflict"]),
    );
    let failed = through
        .transact_write()
        .create(&line("T2", "P1"))
        .create(&line("T2", "P2"))
        .send()
        .await;
    assert!(
        failed.as_ref().unwrap_err().is_condition_failed()
            && !failed.unwrap_err().is_transaction_conflict()
    );
    assert_eq!(proxy.seen("TransactWriteItems"), 4);
    proxy.fail(
        "TransactWriteItems",
        1,
        conflict(&["TransactionConflict", "None"]),
    );
    let pinned = through
        .transact_write()
        .client_request_token("pinned-token")
        .create(&line("T3", "P1"))
        .create(&line("T3", "P2"))
        .send()
        .await;
    assert!(pinned.unwrap_err().is_transaction_conflict());
    assert_eq!(proxy.seen("TransactWriteItems"), 5);
}

#[tokio::test]
async fn throttling_and_server_errors_are_retried_by_the_sdk_and_validation_is_not() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail("PutItem", 1, Fault::Error(400, "ThrottlingException"));
    proxy.fail("PutItem", 1, Fault::Error(500, "InternalServerError"));
    assert_eq!(
        through.create(&customer("1")).send().await.unwrap(),
        Created::Created
    );
    assert_eq!(proxy.seen("PutItem"), 3);

    proxy.fail("PutItem", 1, Fault::Error(400, "ValidationException"));
    let error = through.create(&customer("2")).send().await.unwrap_err();
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    assert_eq!(
        error.sdk_error().and_then(|e| e.code()),
        Some("ValidationException")
    );
    assert_eq!(
        proxy.seen("PutItem"),
        4,
        "a validation error is not retried"
    );
}

#[tokio::test]
async fn oversized_items_and_keys_are_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let mut big = customer("big");
    big.name = "x".repeat(401 * 1024);
    match through.create(&big).send().await {
        Err(Error::ItemTooLarge {
            entity: "Customer",
            size,
            limit: 409_600,
            ..
        }) => assert!(size > 409_600),
        other => panic!("expected ItemTooLarge, got {other:?}"),
    }
    let long_sk = line("A1", &"p".repeat(1025 - "PRODUCT#".len()));
    match through.create(&long_sk).send().await {
        Err(Error::KeyTooLarge {
            size: 1025,
            limit: 1024,
            key: "sort key",
            ..
        }) => {}
        other => panic!("expected KeyTooLarge, got {other:?}"),
    }
    assert!(matches!(
        through.batch_put(&[big.clone()]).await,
        Err(Error::ItemTooLarge { .. })
    ));
    assert!(matches!(
        through.put(&big).send().await,
        Err(Error::ItemTooLarge { .. })
    ));
    assert_eq!(
        proxy.seen("PutItem") + proxy.seen("BatchWriteItem"),
        0,
        "nothing was sent"
    );
    assert_eq!(count_items(&db).await, 0);

    // Just under the limit is written.
    let mut fits = customer("fits");
    let overhead = ddb_runtime::write::item_size(&fits.to_item().unwrap()) - fits.name.len();
    fits.name = "y".repeat(409_600 - overhead);
    assert_eq!(
        ddb_runtime::write::item_size(&fits.to_item().unwrap()),
        409_600
    );
    through.create(&fits).send().await.unwrap();
}

#[derive(Table)]
#[ddb(name = "Sessions", pk = "PK", ttl = "expires")]
struct Sessions;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Sessions, entity = "Session", pk = "SESSION#{id}", query = "session")]
struct Session {
    id: String,
    user: String,
    #[ddb(created_at)]
    created: Option<ddb_runtime::Timestamp>,
    #[ddb(updated_at)]
    updated: u64,
    #[ddb(ttl)]
    expires: Option<u64>,
}

#[tokio::test]
async fn the_library_keeps_created_and_updated_times() {
    let db = ddb_tests::db_with_table::<Sessions>().await;
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let session = Session {
        id: "s1".into(),
        user: "ada".into(),
        created: None,
        updated: 0,
        expires: Some(before + 3600),
    };
    db.create(&session).send().await.unwrap();
    // A retried create is still the same item, whatever the clock says now.
    assert_eq!(
        db.create(&session).send().await.unwrap(),
        Created::AlreadyExisted
    );
    let key = Session::key(&"s1".to_string()).unwrap();
    let stored = db.get(key.clone()).send().await.unwrap().unwrap();
    let created = stored.created.expect("created_at set by create");
    assert!(created.0.unix_timestamp() as u64 >= before);
    assert!(stored.updated >= before);

    let raw = db
        .client()
        .get_item()
        .table_name(db.table_name::<Sessions>())
        .set_key(Some(key.to_item()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert!(
        raw["expires"].as_n().is_ok(),
        "ttl is stored as a Number of epoch seconds"
    );

    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let fields = Session::fields();
    db.update(key.clone())
        .set(fields.user, "grace")
        .send()
        .await
        .unwrap();
    let updated = db.get(key).send().await.unwrap().unwrap();
    assert_eq!(
        updated.created,
        Some(created),
        "created_at is never overwritten by an update"
    );
    assert!(
        updated.updated > stored.updated,
        "updated_at moves on every write"
    );

    // A put of the loaded entity keeps its creation time; a put of a new
    // entity without one gets the time of that write.
    db.put(&updated).send().await.unwrap();
    let key = Session::key(&"s1".to_string()).unwrap();
    assert_eq!(
        db.get(key).send().await.unwrap().unwrap().created,
        Some(created)
    );
    let fresh = Session {
        id: "s2".into(),
        ..session
    };
    db.put(&fresh).send().await.unwrap();
    let stored = db
        .get(Session::key(&"s2".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .unwrap();
    assert!(stored.created.is_some());
}

#[derive(Table)]
#[ddb(name = "Carts", pk = "PK", sk = "SK")]
#[ddb(local_index(name = "ByTotal", sk = "total", sk_type = "N"))]
struct Carts;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Carts, entity = "Cart", pk = "USER#{user}", sk = "CART#{id}", query = "carts")]
#[ddb(index(name = "ByTotal", sk = "{total}", query = "by_total"))]
struct Cart {
    user: String,
    id: String,
    total: u64,
    #[serde(with = "serde_dynamo::string_set")]
    tags: std::collections::BTreeSet<String>,
    lines: Vec<String>,
    note: Option<String>,
}

#[tokio::test]
async fn every_update_operation_and_a_local_index() {
    let db = ddb_tests::db_with_table::<Carts>().await;
    let cart = |id: &str, total: u64| Cart {
        user: "ada".into(),
        id: id.into(),
        total,
        tags: ["gift".to_string()].into(),
        lines: vec!["P9".into()],
        note: Some("leave at the door".into()),
    };
    db.create(&cart("c1", 300)).send().await.unwrap();
    db.create(&cart("c2", 100)).send().await.unwrap();
    let key = Cart::key(&"ada".to_string(), &"c1".to_string()).unwrap();
    let fields = Cart::fields();
    let updated = db
        .update(key.clone())
        .add(fields.tags, ["fragile".to_string()].into())
        .append(fields.lines, vec!["P31".to_string()])
        .remove(fields.note)
        .set(fields.total, 50u64)
        .return_new(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        updated.tags,
        ["fragile".to_string(), "gift".to_string()].into()
    );
    assert_eq!(updated.lines, ["P9", "P31"]);
    assert_eq!(updated.note, None);
    let shrunk = db
        .update(key.clone())
        .delete_from_set(fields.tags, ["gift".to_string()].into())
        .return_new(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(shrunk.tags, ["fragile".to_string()].into());
    let empty = db
        .update(key)
        .add(fields.tags, std::collections::BTreeSet::new())
        .send()
        .await;
    assert!(
        matches!(empty, Err(Error::InvalidValue { .. })),
        "an empty set is refused before sending"
    );

    // The local index follows the changed total, and allows consistent reads.
    let by_total = db
        .query(Cart::by_total(&"ada".to_string()))
        .consistent_read(true)
        .collect()
        .await
        .unwrap();
    let order: Vec<_> = by_total.iter().map(|c| (c.id.as_str(), c.total)).collect();
    assert_eq!(order, [("c1", 50), ("c2", 100)]);
    let cheap = db
        .query(Cart::by_total(&"ada".to_string()))
        .lt(&100u64)
        .collect()
        .await
        .unwrap();
    assert_eq!(cheap.len(), 1);
}

#[tokio::test]
async fn expired_items_are_left_out_until_asked_for() {
    let db = ddb_tests::db_with_table::<Sessions>().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let session = |id: &str, expires: Option<u64>| Session {
        id: id.into(),
        user: "ada".into(),
        created: None,
        updated: 0,
        expires,
    };
    db.create(&session("old", Some(now - 60)))
        .send()
        .await
        .unwrap();
    db.create(&session("live", Some(now + 3600)))
        .send()
        .await
        .unwrap();
    db.create(&session("forever", None)).send().await.unwrap();
    let get = |id: &str| db.get(Session::key(&id.to_string()).unwrap());
    assert!(
        get("old").send().await.unwrap().is_none(),
        "expired, though still stored"
    );
    assert!(get("old")
        .include_expired(true)
        .send()
        .await
        .unwrap()
        .is_some());
    assert!(get("live").send().await.unwrap().is_some());
    assert!(get("forever").send().await.unwrap().is_some());
    let query = |id: &str| db.query(Session::session(&id.to_string()));
    assert!(query("old").collect().await.unwrap().is_empty());
    assert_eq!(
        query("old")
            .include_expired(true)
            .collect()
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(query("live").collect().await.unwrap().len(), 1);
    assert_eq!(query("forever").collect().await.unwrap().len(), 1);

    // An expired item is not brought back by an update.
    let fields = Session::fields();
    let revived = db
        .update(Session::key(&"old".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await;
    assert!(
        matches!(revived, Err(Error::NotFound { .. })),
        "{revived:?}"
    );
    db.update(Session::key(&"live".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await
        .unwrap();
    db.update(Session::key(&"forever".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await
        .unwrap();
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Counters, entity = "Reading", pk = "READING#{name}")]
struct Reading {
    name: String,
    value: f64,
    #[serde(with = "serde_dynamo::string_set")]
    tags: std::collections::BTreeSet<String>,
}

#[tokio::test]
async fn values_dynamodb_cannot_store_are_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Counters>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Counters>(&db).await;
    let reading = |value: f64, tags: &[&str]| Reading {
        name: "t".into(),
        value,
        tags: tags.iter().map(|t| t.to_string()).collect(),
    };
    for bad in [
        reading(f64::NAN, &["a"]),
        reading(f64::INFINITY, &["a"]),
        reading(1.0, &[]),
    ] {
        match through.create(&bad).send().await {
            Err(Error::InvalidValue {
                entity: "Reading",
                reason,
            }) => assert!(reason.starts_with("READING#t "), "{reason}"),
            other => panic!("expected InvalidValue, got {other:?}"),
        }
    }
    assert_eq!(proxy.seen("PutItem"), 0, "nothing was sent");
    through
        .create(&reading(21.5, &["celsius"]))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn expressions_over_dynamodb_limit_are_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let fields = Order::fields();
    // 400 alternatives: about 8 KB of condition text.
    let huge = (0..400u64).fold(fields.total_cents.eq(0), |c, n| {
        c | fields.total_cents.eq(n)
    });
    let query = through
        .query(Order::by_customer(&CustomerId("123".into())))
        .filter(huge.clone())
        .send()
        .await;
    match query {
        Err(Error::ExpressionTooLarge {
            expression: "filter",
            limit: 4096,
            ..
        }) => {}
        other => panic!("expected ExpressionTooLarge, got {other:?}"),
    }
    let put = through.put(&open_order("A1")).condition(huge).send().await;
    assert!(
        matches!(
            put,
            Err(Error::ExpressionTooLarge {
                expression: "condition",
                ..
            })
        ),
        "{put:?}"
    );
    assert_eq!(
        proxy.seen("Query") + proxy.seen("PutItem"),
        0,
        "nothing was sent"
    );
    // A condition of ordinary size goes through.
    let small = (0..10u64).fold(fields.total_cents.eq(0), |c, n| {
        c | fields.total_cents.eq(n)
    });
    let page = through
        .query(Order::by_customer(&CustomerId("123".into())))
        .filter(small)
        .send()
        .await
        .unwrap();
    assert!(page.items.is_empty());
}

/// A create whose first answer is lost is sent again by the SDK and
/// meets its own item: it reports Created (a plain create knows an attempt
/// of its own may have written the item; an exactly-once create, a
/// one-action transaction under a ClientRequestToken, knows it did).
#[tokio::test]
async fn an_exactly_once_create_reports_its_own_write_after_a_lost_answer() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;

    proxy.fail("PutItem", 1, Fault::DropResponse);
    let plain = through.create(&customer("1")).send().await.unwrap();
    assert_eq!(plain, Created::Created);
    // Other data at the key after such an attempt: the outcome is unknown.
    proxy.fail("PutItem", 1, Fault::DropResponse);
    let mut other = customer("1");
    other.name = "someone else".into();
    let unknown = through.create(&other).send().await;
    assert!(
        matches!(&unknown, Err(Error::WriteOutcomeUnknown { failure, .. }) if failure.is_already_exists()),
        "{unknown:?}"
    );
    // Without a lost answer, meeting the same data is AlreadyExisted.
    let again = through.create(&customer("1")).send().await.unwrap();
    assert_eq!(again, Created::AlreadyExisted);

    proxy.fail("TransactWriteItems", 1, Fault::DropResponse);
    let exact = through
        .create(&customer("2"))
        .exactly_once(true)
        .send()
        .await
        .unwrap();
    assert_eq!(exact, Created::Created);
    assert!(
        proxy.seen("TransactWriteItems") >= 2,
        "the SDK sent it again"
    );

    // A later call meets the item: the same data, or other data.
    let again = through
        .create(&customer("2"))
        .exactly_once(true)
        .send()
        .await;
    assert_eq!(again.unwrap(), Created::AlreadyExisted);
    let mut other = customer("2");
    other.name = "someone else".into();
    let conflict = through.create(&other).exactly_once(true).send().await;
    assert!(
        matches!(conflict, Err(Error::AlreadyExists { .. })),
        "{conflict:?}"
    );
    assert_eq!(count_items(&db).await, 2);
}

/// A versioned put whose answer is lost is sent again by the SDK and
/// fails its own version check. Reported as a `VersionConflict`, a caller
/// doing what the docs say (re-read, apply again) applies its change twice.
/// A plain put says the outcome is unknown; an exactly-once put (a one-action
/// transaction under a ClientRequestToken) succeeds, applied once.
#[tokio::test]
async fn a_versioned_write_whose_answer_was_lost_is_never_a_version_conflict() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    db.create(&open_order("V1")).send().await.unwrap();
    let key = Order::key(
        &CustomerId("123".into()),
        &open_order("V1").placed_at,
        &OrderId("V1".into()),
    )
    .unwrap();
    let stored_version = |db: Db| {
        let key = key.clone();
        async move {
            db.get(key)
                .consistent_read(true)
                .send()
                .await
                .unwrap()
                .unwrap()
                .version
        }
    };

    // Plain: the first attempt is applied, its answer lost; the retry fails.
    let mut loaded = db.get(key.clone()).send().await.unwrap().unwrap();
    loaded.total_cents += 1;
    proxy.fail("PutItem", 1, Fault::DropResponse);
    let plain = through.put(&loaded).send().await;
    assert!(
        matches!(&plain, Err(Error::WriteOutcomeUnknown { .. })),
        "{plain:?}"
    );
    assert!(!plain.as_ref().unwrap_err().is_retryable());
    assert_eq!(
        stored_version(db.clone()).await,
        2,
        "the first attempt was applied"
    );

    // Exactly once: the retry is recognised by its token.
    let mut loaded = db.get(key.clone()).send().await.unwrap().unwrap();
    loaded.total_cents += 1;
    proxy.fail("TransactWriteItems", 1, Fault::DropResponse);
    let written = through
        .put(&loaded)
        .exactly_once(true)
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, Some(3));
    assert!(
        proxy.seen("TransactWriteItems") >= 2,
        "the SDK sent it again"
    );
    assert_eq!(stored_version(db.clone()).await, 3);

    // An exactly-once put that really is stale is still a version conflict.
    let stale = through.put(&loaded).exactly_once(true).send().await;
    assert!(
        matches!(
            stale,
            Err(Error::VersionConflict {
                expected: 2,
                current: Some(3),
                ..
            })
        ),
        "{stale:?}"
    );

    // An unversioned ADD: exactly once through the token, once applied.
    let customer_key = Customer::key(&CustomerId("7".into())).unwrap();
    db.create(&customer("7")).send().await.unwrap();
    proxy.fail("TransactWriteItems", 1, Fault::DropResponse);
    through
        .update(customer_key.clone())
        .add(Customer::fields().order_count, 1u32)
        .exactly_once(true)
        .send()
        .await
        .unwrap();
    let counted = db.get(customer_key).send().await.unwrap().unwrap();
    assert_eq!(counted.order_count, 1, "applied once, not once per attempt");

    // A versioned delete whose answer was lost: not a conflict either.
    let loaded = db.get(key.clone()).send().await.unwrap().unwrap();
    proxy.fail("DeleteItem", 1, Fault::DropResponse);
    let deleted = through.delete_entity(&loaded).send().await;
    assert!(
        matches!(&deleted, Err(Error::WriteOutcomeUnknown { .. })),
        "{deleted:?}"
    );
    assert!(db.get(key).send().await.unwrap().is_none());
}

/// Found by the transaction campaign: an attempt applied with its answer
/// lost, the SDK's retry canceled by a conflict, and ddb sending the
/// transaction again under a fresh token, which then failed on its own
/// items: reported as canceled although applied. The same token is kept
/// once an attempt may have been applied, and DynamoDB answers success.
#[tokio::test]
async fn a_transaction_whose_answer_was_lost_and_retry_conflicted_is_applied_once() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail("TransactWriteItems", 1, Fault::DropResponse);
    proxy.fail("TransactWriteItems", 1, Fault::TransactionConflict);
    through
        .transact_write()
        .create(&customer("9"))
        .create(&open_order("T9"))
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("TransactWriteItems"), 3);
    assert_eq!(count_items(&db).await, 2);
}

/// When the SDK's retries run out after an attempt that
/// lost its answer, the error was a retryable SDK error, and sending the
/// write again met its own first attempt. A plain write now says the outcome
/// is unknown; an exactly-once write sends again under its token and is
/// applied once.
#[tokio::test]
async fn retries_spent_after_a_lost_answer_are_an_unknown_outcome() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let throttle = Fault::Error(400, "ThrottlingException");
    db.create(&open_order("S1")).send().await.unwrap();
    let key = open_order("S1").primary_key().unwrap();

    let mut loaded = db.get(key.clone()).send().await.unwrap().unwrap();
    loaded.total_cents += 1;
    proxy.fail("PutItem", 1, Fault::DropResponse);
    proxy.fail("PutItem", 10, throttle.clone());
    let plain = through.put(&loaded).send().await;
    assert!(
        matches!(&plain, Err(Error::WriteOutcomeUnknown { failure, .. }) if failure.sdk_error().is_some()),
        "{plain:?}"
    );
    assert!(!plain.unwrap_err().is_retryable());

    let mut loaded = db.get(key.clone()).send().await.unwrap().unwrap();
    loaded.total_cents += 1;
    proxy.fail("TransactWriteItems", 1, Fault::DropResponse);
    proxy.fail("TransactWriteItems", 4, throttle);
    let exact = through
        .put(&loaded)
        .exactly_once(true)
        .send()
        .await
        .unwrap();
    assert_eq!(exact.version, Some(loaded.version + 1));
    let stored = db
        .get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.version, loaded.version + 1, "applied once");
}

#[derive(Table)]
#[ddb(name = "Events", pk = "PK", sk = "SK")]
struct Events;

/// An entity on `chrono::DateTime<Utc>`, keyed and stamped as one on
/// `time` is.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Events, entity = "Event", pk = "STREAM#{stream}", sk = "AT#{at}#{id}", query = "in_stream")]
struct Event {
    stream: String,
    at: chrono::DateTime<chrono::Utc>,
    id: String,
    #[ddb(created_at)]
    created: Option<chrono::DateTime<chrono::Utc>>,
}

#[tokio::test]
async fn chrono_instants_key_sort_and_stamp_like_time() {
    let db = ddb_tests::db_with_table::<Events>().await;
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc();
    let event = |when: &str, id: &str| Event {
        stream: "s".into(),
        at: at(when),
        id: id.into(),
        created: None,
    };
    for (when, id) in [
        ("2026-10-02T14:31:07Z", "b"),
        ("1969-07-20T20:17:40Z", "a"),
        ("2026-10-02T16:31:07+02:00", "c"),
    ] {
        db.create(&event(when, id)).send().await.unwrap();
    }
    let read = db
        .query(Event::in_stream(&"s".to_string()))
        .collect()
        .await
        .unwrap();
    let ids: Vec<&str> = read.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"], "ordered by instant");
    let key = Event::key(
        &"s".to_string(),
        &at("2026-10-02T14:31:07Z"),
        &"b".to_string(),
    )
    .unwrap();
    assert_eq!(
        key.sk().unwrap().as_str(),
        "AT#2026-10-02T14:31:07Z#b",
        "the same text as time::OffsetDateTime"
    );
    let stored = &read[1];
    let created = stored.created.expect("stamped by create");
    assert_eq!(chrono::Timelike::nanosecond(&created), 0, "whole seconds");
    // A fraction of a second is refused, never truncated.
    let fractional = db
        .create(&event("2026-10-02T14:31:07.5Z", "d"))
        .send()
        .await;
    assert!(
        matches!(fractional, Err(Error::InvalidKeySegment { .. })),
        "{fractional:?}"
    );
}

/// #11: ddb sends through a copy of the caller's client with its attempt
/// recorder registered once (a per-request interceptor made the SDK build a
/// configuration override for every request). The copy shares the caller's
/// HTTP client: every request, before and after the switch, and the
/// caller's own, goes over the one keep-alive connection.
#[tokio::test]
async fn ddb_shares_the_callers_connections() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    for i in 0..30 {
        let created = through.create(&open_order(&format!("S{i:02}"))).send();
        assert_eq!(created.await.unwrap(), Created::Created);
    }
    let key = Order::key(
        &CustomerId("123".into()),
        &open_order("S00").placed_at,
        &OrderId("S00".into()),
    )
    .unwrap();
    assert!(through.get(key.clone()).send().await.unwrap().is_some());
    let raw = through
        .client()
        .get_item()
        .table_name(db.table_name::<Ecommerce>());
    let raw = raw.set_key(Some(key.to_item())).send().await.unwrap();
    assert!(raw.item.is_some());
    assert_eq!(proxy.seen("PutItem"), 30);
    assert_eq!(
        proxy.connections(),
        1,
        "one connection for ddb and its caller"
    );
}

/// Sends creates through `through` until it sends through ddb's own copy
/// of its client (after 8 requests; 20 here), and returns the key of the
/// first order created.
async fn past_the_client_switch(through: &Db, prefix: &str) -> ddb_runtime::Key<Order> {
    for i in 0..20 {
        through
            .create(&open_order(&format!("{prefix}{i:02}")))
            .send()
            .await
            .unwrap();
    }
    Order::key(
        &CustomerId("123".into()),
        &open_order(&format!("{prefix}00")).placed_at,
        &OrderId(format!("{prefix}00")),
    )
    .unwrap()
}

/// Credentials that fail while `failing` is set.
#[derive(Debug)]
struct FlakyCredentials(Arc<std::sync::atomic::AtomicBool>);

impl aws_sdk_dynamodb::config::ProvideCredentials for FlakyCredentials {
    fn provide_credentials<'a>(
        &'a self,
    ) -> aws_credential_types::provider::future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        let failing = self.0.load(std::sync::atomic::Ordering::SeqCst);
        aws_credential_types::provider::future::ProvideCredentials::ready(if failing {
            Err(
                aws_credential_types::provider::error::CredentialsError::not_loaded(
                    "the test's credentials are failing",
                ),
            )
        } else {
            Ok(aws_sdk_dynamodb::config::Credentials::for_tests())
        })
    }
}

/// A write that failed before it was sent (its credentials could not be
/// had) applied nothing: it is the SDK's error, not an unknown outcome,
/// whether the handle still sends through the caller's client or already
/// through its own copy.
#[tokio::test]
async fn a_write_that_never_left_is_not_an_unknown_outcome() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let config = ddb_tests::local()
        .config_builder()
        .credentials_provider(FlakyCredentials(failing.clone()))
        .identity_cache(aws_sdk_dynamodb::config::IdentityCache::no_cache())
        .build();
    let through = Db::new(aws_sdk_dynamodb::Client::from_conf(config))
        .with_table_name::<Ecommerce>(db.table_name::<Ecommerce>());
    for switched in [false, true] {
        if switched {
            failing.store(false, std::sync::atomic::Ordering::SeqCst);
            past_the_client_switch(&through, "N").await;
        }
        failing.store(true, std::sync::atomic::Ordering::SeqCst);
        let put = through.put(&open_order("N99")).send().await;
        assert!(
            matches!(&put, Err(Error::Sdk { .. })),
            "own client copy {switched}: {put:?}"
        );
    }
}

/// An attempt the SDK gives up on (its attempt timeout) while the server
/// applies it is a possibly applied attempt too, once ddb sends through its
/// own client copy: the retry meets the write and the put reports an
/// unknown outcome, never a version conflict of its own making.
#[tokio::test]
async fn a_timed_out_attempt_is_an_unknown_outcome_after_many_requests() {
    use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let proxy = ddb_tests::proxy::Proxy::start(ddb_tests::local().endpoint())
        .await
        .unwrap();
    let client = ddb_tests::proxied_client(&proxy);
    let timeouts = TimeoutConfig::builder()
        .operation_attempt_timeout(std::time::Duration::from_millis(300))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(
        client
            .config()
            .to_builder()
            .timeout_config(timeouts)
            .build(),
    );
    let through = Db::new(client).with_table_name::<Ecommerce>(db.table_name::<Ecommerce>());
    let key = past_the_client_switch(&through, "T").await;
    let mut loaded = through.get(key.clone()).send().await.unwrap().unwrap();
    loaded.total_cents += 1;
    let held = proxy.hold("PutItem");
    let put = through.put(&loaded).send().await;
    held.release();
    assert!(
        matches!(&put, Err(Error::WriteOutcomeUnknown { .. })),
        "{put:?}"
    );
    let stored = db.get(key).consistent_read(true).send().await.unwrap();
    assert_eq!(
        stored.unwrap().version,
        2,
        "the timed-out attempt was applied"
    );
}

/// #11: after the switch to ddb's own copy of the client, a write still
/// knows that an earlier attempt of its own may have been applied: a put
/// whose first answer is lost, and whose retry then fails its version
/// condition, is an unknown outcome, not a conflict.
#[tokio::test]
async fn a_lost_answer_is_an_unknown_outcome_after_many_requests() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = past_the_client_switch(&through, "M").await;
    for round in 0..3 {
        let mut loaded = through.get(key.clone()).send().await.unwrap().unwrap();
        loaded.total_cents += 1;
        proxy.fail("PutItem", 1, Fault::DropResponse);
        let put = through.put(&loaded).send().await;
        assert!(
            matches!(&put, Err(Error::WriteOutcomeUnknown { .. })),
            "round {round}: {put:?}"
        );
    }
    let stored = db.get(key).consistent_read(true).send().await.unwrap();
    assert_eq!(
        stored.unwrap().version,
        4,
        "every first attempt was applied"
    );
}

/// A transaction sent again after a conflict reads its actions back from
/// the body it sent (no copy is kept on a client without interceptors of
/// its own): each kind of action, with every field ddb sets, must go again
/// exactly as it went first, under a fresh token.
#[tokio::test]
async fn a_transaction_sent_again_after_a_conflict_sends_the_same_actions() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("TransactWriteItems");
    let shipped = open_order("U1");
    let gone = open_order("D1");
    let profile = customer("123");
    for order in [&shipped, &gone] {
        db.create(order).send().await.unwrap();
    }
    db.create(&profile).send().await.unwrap();
    db.create(&customer("124")).send().await.unwrap();
    let fields = Order::fields();
    let mut replaced = customer("124");
    replaced.name = "Ada, again".into();
    let reasons = [
        "TransactionConflict",
        "None",
        "None",
        "None",
        "None",
        "None",
    ];
    proxy.fail("TransactWriteItems", 2, conflict(&reasons));
    through
        .transact_write()
        .create(&line("X1", "P1"))
        .update(
            through
                .update(shipped.primary_key().unwrap())
                .set(fields.status, OrderStatus::Shipped)
                .add(fields.total_cents, 5u64),
        )
        .delete(through.delete(gone.primary_key().unwrap()))
        .condition_check(
            profile.primary_key().unwrap(),
            Customer::fields().order_count.eq(0u32),
        )
        .put(through.put(&replaced))
        .create(&line("X1", "P2"))
        .send()
        .await
        .unwrap();

    let mut sent = ddb_tests::recorded_json(&proxy, "TransactWriteItems");
    assert_eq!(sent.len(), 3, "two conflicts, then applied");
    let tokens: Vec<_> = sent
        .iter_mut()
        .map(|body| body.as_object_mut().unwrap().remove("ClientRequestToken"))
        .collect();
    assert!(
        tokens[0] != tokens[1] && tokens[1] != tokens[2],
        "{tokens:?}"
    );
    let kinds: Vec<&str> = sent[0]["TransactItems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|action| action.as_object().unwrap().keys().next().unwrap().as_str())
        .collect();
    assert_eq!(
        kinds,
        ["Put", "Update", "Delete", "ConditionCheck", "Put", "Put"]
    );
    assert_eq!(sent[1], sent[0]);
    assert_eq!(sent[2], sent[0]);

    let stored = db.get(shipped.primary_key().unwrap()).send().await.unwrap();
    let stored = stored.unwrap();
    assert_eq!(stored.status, OrderStatus::Shipped);
    assert_eq!(stored.total_cents, shipped.total_cents + 5);
    assert!(db
        .get(gone.primary_key().unwrap())
        .send()
        .await
        .unwrap()
        .is_none());
    let replaced_now = db.get(replaced.primary_key().unwrap()).send().await;
    assert_eq!(replaced_now.unwrap(), Some(replaced));
    assert_eq!(count_items(&db).await, 5);
}

/// A handle on `client` with `interceptor` added to its configuration, as
/// a caller's own interceptors are, writing `Ecommerce` to `table`.
fn intercepted(
    client: &aws_sdk_dynamodb::Client,
    interceptor: impl aws_sdk_dynamodb::config::Intercept + 'static,
    table: &str,
) -> Db {
    let config = client
        .config()
        .to_builder()
        .interceptor(interceptor)
        .build();
    Db::new(aws_sdk_dynamodb::Client::from_conf(config)).with_table_name::<Ecommerce>(table)
}

/// Prefixes the table name of every action of a TransactWriteItems, as an
/// interceptor mapping logical table names to an environment's does.
#[derive(Debug)]
struct TablePrefix(&'static str);

impl aws_sdk_dynamodb::config::Intercept for TablePrefix {
    fn name(&self) -> &'static str {
        "table-prefix"
    }

    fn modify_before_serialization(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
        if let Some(input) = context
            .input_mut()
            .downcast_mut::<TransactWriteItemsInput>()
        {
            for action in input.transact_items.iter_mut().flatten() {
                if let Some(put) = &mut action.put {
                    put.table_name = format!("{}{}", self.0, put.table_name);
                }
            }
        }
        Ok(())
    }
}

/// A transaction sent again after a conflict read its
/// actions back from what went on the wire, after the caller's interceptors
/// had rewritten them, and the interceptors then rewrote them a second time
/// (here: a table prefix applied twice, a table that does not exist). With
/// interceptors on the caller's client, ddb keeps its own copy.
#[tokio::test]
async fn a_transaction_sent_again_through_rewriting_interceptors_is_rewritten_once() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, _) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let prefix: &'static str = Box::leak(table[..4].to_owned().into_boxed_str());
    let through = intercepted(
        &ddb_tests::proxied_client(&proxy),
        TablePrefix(prefix),
        &table[4..],
    );
    // Past the switch to ddb's copy of the client, which keeps the
    // caller's interceptors.
    for i in 0..10 {
        through
            .transact_write()
            .create(&line("Y0", &format!("P{i}")))
            .send()
            .await
            .unwrap();
    }
    proxy.fail("TransactWriteItems", 1, Fault::TransactionConflict);
    through
        .transact_write()
        .create(&line("Y1", "P1"))
        .create(&line("Y1", "P2"))
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("TransactWriteItems"), 12);
    assert_eq!(count_items(&db).await, 12);
}

/// The update expressions ddb sends, pinned to the text: every kind of
/// action (set, remove, add, append, delete from a set), an update that
/// takes an order out of its sparse index, with and without an expected
/// version. A change in how they are written must show here first. Names
/// DynamoDB reads as they are stand as they are; reserved words (`status`,
/// `total`, `lines`) and `_schema` go through placeholders.
#[tokio::test]
async fn update_expressions_are_written_as_pinned() {
    let sent = |proxy: &ddb_tests::proxy::Proxy| -> Vec<serde_json::Value> {
        ddb_tests::recorded_json(proxy, "UpdateItem")
            .iter()
            .map(|body| {
                serde_json::json!({
                    "update": body["UpdateExpression"],
                    "condition": body["ConditionExpression"],
                    "names": body["ExpressionAttributeNames"],
                    "values": body["ExpressionAttributeValues"],
                })
            })
            .collect()
    };

    let carts = ddb_tests::db_with_table::<Carts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Carts>(&carts).await;
    let cart = Cart {
        user: "ada".into(),
        id: "c1".into(),
        total: 300,
        tags: ["gift".to_string()].into(),
        lines: vec!["P9".into()],
        note: Some("leave at the door".into()),
    };
    carts.create(&cart).send().await.unwrap();
    proxy.record("UpdateItem");
    let key = Cart::key(&"ada".to_string(), &"c1".to_string()).unwrap();
    let fields = Cart::fields();
    through
        .update(key.clone())
        .add(fields.tags, ["fragile".to_string()].into())
        .append(fields.lines, vec!["P31".to_string()])
        .remove(fields.note)
        .set(fields.total, 50u64)
        .send()
        .await
        .unwrap();
    through
        .update(key)
        .delete_from_set(fields.tags, ["gift".to_string()].into())
        .send()
        .await
        .unwrap();

    let orders = ddb_tests::db_with_table::<Ecommerce>().await;
    let (order_proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&orders).await;
    orders.create(&open_order("V1")).send().await.unwrap();
    order_proxy.record("UpdateItem");
    let key = open_order("V1").primary_key().unwrap();
    let fields = Order::fields();
    through
        .update(key.clone())
        .set(fields.status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    through
        .update(key)
        .set(fields.total_cents, 7u64)
        .expect_version(2)
        .send()
        .await
        .unwrap();

    let actual = serde_json::json!({ "carts": sent(&proxy), "orders": sent(&order_proxy) });
    // `remove(note)` on a plain `Option` stores what to_item writes for
    // `None`: a NULL.
    let expected: serde_json::Value = serde_json::from_str(
        r##"{
  "carts": [
    {
      "condition": "attribute_exists(PK) AND (attribute_not_exists(#n2) OR #n2 = :v5)",
      "names": {
        "#n0": "lines",
        "#n1": "total",
        "#n2": "_schema"
      },
      "update": "SET #n0 = list_append(if_not_exists(#n0, :v1), :v2), note = :v3, #n1 = :v4 ADD tags :v0",
      "values": {
        ":v0": {
          "SS": [
            "fragile"
          ]
        },
        ":v1": {
          "L": []
        },
        ":v2": {
          "L": [
            {
              "S": "P31"
            }
          ]
        },
        ":v3": {
          "NULL": true
        },
        ":v4": {
          "N": "50"
        },
        ":v5": {
          "N": "1"
        }
      }
    },
    {
      "condition": "attribute_exists(PK) AND (attribute_not_exists(#n0) OR #n0 = :v1)",
      "names": {
        "#n0": "_schema"
      },
      "update": "DELETE tags :v0",
      "values": {
        ":v0": {
          "SS": [
            "gift"
          ]
        },
        ":v1": {
          "N": "1"
        }
      }
    }
  ],
  "orders": [
    {
      "condition": "attribute_exists(PK) AND (attribute_not_exists(#n1) OR #n1 = :v2)",
      "names": {
        "#n0": "status",
        "#n1": "_schema"
      },
      "update": "SET #n0 = :v0 REMOVE GSI2PK, GSI2SK ADD version :v1",
      "values": {
        ":v0": {
          "S": "SHIPPED"
        },
        ":v1": {
          "N": "1"
        },
        ":v2": {
          "N": "1"
        }
      }
    },
    {
      "condition": "attribute_exists(PK) AND (attribute_not_exists(#n0) OR #n0 = :v2) AND version = :v3",
      "names": {
        "#n0": "_schema"
      },
      "update": "SET total_cents = :v0, version = :v1",
      "values": {
        ":v0": {
          "N": "7"
        },
        ":v1": {
          "N": "3"
        },
        ":v2": {
          "N": "1"
        },
        ":v3": {
          "N": "2"
        }
      }
    }
  ]
}"##,
    )
    .unwrap();
    assert_eq!(
        actual,
        expected,
        "{}",
        serde_json::to_string_pretty(&actual).unwrap()
    );
}

/// A create stores version 1 and a put the version after the one it
/// expects, whatever version the entity carries: the stored attribute is
/// rewritten unless the entity already holds the version to write.
#[tokio::test]
async fn writes_store_the_version_they_write_not_the_entitys() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let stored_version = |id: &'static str| {
        let db = db.clone();
        async move {
            let key = open_order(id).primary_key().unwrap().to_item();
            let item = ddb_tests::raw_item::<Ecommerce>(&db, key).await.unwrap();
            item["version"].clone()
        }
    };
    for (id, carried) in [("W0", 0), ("W1", 1), ("W7", 7)] {
        let order = Order {
            version: carried,
            ..open_order(id)
        };
        db.create(&order).send().await.unwrap();
        assert_eq!(
            stored_version(id).await,
            AttributeValue::N("1".into()),
            "{id}"
        );
        let put = Order {
            version: 1,
            total_cents: 10,
            ..open_order(id)
        };
        db.put(&put).send().await.unwrap();
        assert_eq!(
            stored_version(id).await,
            AttributeValue::N("2".into()),
            "{id}"
        );
    }
}

#[derive(Table)]
#[ddb(name = "Ledgers", pk = "PK", sk = "SK")]
struct Ledgers;

/// An entity whose attribute name is long (but plain): written as it is,
/// a few references to it fill an expression.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ledgers, entity = "Ledger", pk = "LEDGER#{id}", sk = "LEDGER", query = "ledger")]
struct Ledger {
    id: String,
    #[serde(
        rename = "balance_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_"
    )]
    balance: u64,
}

/// A name written as it is never makes an expression too large where its
/// placeholder would fit: ddb falls back to placeholders for that
/// expression, in a write's condition, an update and a query's filter.
#[tokio::test]
async fn long_attribute_names_fall_back_to_placeholders_when_an_expression_would_not_fit() {
    let db = ddb_tests::db_with_table::<Ledgers>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ledgers>(&db).await;
    proxy.record("UpdateItem");
    proxy.record("Query");
    let ledger = Ledger {
        id: "L1".into(),
        balance: 10,
    };
    db.create(&ledger).send().await.unwrap();
    let balance = Ledger::fields().balance;
    let mut wide = balance.exists();
    for n in 0..20u64 {
        wide = wide & (balance.between(0u64, 100 + n) | balance.exists());
    }
    through
        .update(ledger.primary_key().unwrap())
        .set(balance, 20u64)
        .condition(wide.clone())
        .send()
        .await
        .unwrap();
    let page = through
        .query(Ledger::ledger(&"L1".to_string()))
        .filter(wide)
        .send()
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].balance, 20);

    let name = "balance_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_";
    let sent = ddb_tests::recorded_json(&proxy, "UpdateItem");
    for body in sent
        .iter()
        .chain(&ddb_tests::recorded_json(&proxy, "Query"))
    {
        for expression in ["ConditionExpression", "FilterExpression"] {
            if let Some(text) = body[expression].as_str() {
                assert!(text.len() <= ddb_runtime::expr::EXPRESSION_LIMIT);
                assert!(!text.contains(name), "{text}");
            }
        }
        let names = body["ExpressionAttributeNames"].as_object().unwrap();
        assert!(names.values().any(|n| n == name));
    }
}

/// Adds a `sig` attribute to every item a PutItem or a transaction's put
/// writes, as an interceptor signing or encrypting items on the client does.
#[derive(Debug)]
struct ItemSignature;

impl aws_sdk_dynamodb::config::Intercept for ItemSignature {
    fn name(&self) -> &'static str {
        "item-signature"
    }

    fn modify_before_serialization(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        use aws_sdk_dynamodb::operation::put_item::PutItemInput;
        use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
        let sign = |item: &mut Option<ddb_runtime::Item>| {
            if let Some(item) = item {
                item.insert("sig".into(), AttributeValue::S("signed".into()));
            }
        };
        let input = context.input_mut();
        if let Some(put) = input.downcast_mut::<PutItemInput>() {
            sign(&mut put.item);
        } else if let Some(transaction) = input.downcast_mut::<TransactWriteItemsInput>() {
            for action in transaction.transact_items.iter_mut().flatten() {
                if let Some(put) = &mut action.put {
                    let mut item = Some(std::mem::take(&mut put.item));
                    sign(&mut item);
                    put.item = item.unwrap_or_default();
                }
            }
        }
        Ok(())
    }
}

/// A create of the same data again meets the item its interceptors stored
/// (here signed): it compares it with what it sent after them, so it is the
/// same item (already there), and other data is still another item. Plain
/// and exactly-once, past the switch to ddb's client copy.
#[tokio::test]
async fn a_create_through_item_rewriting_interceptors_recognises_its_own_item() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let signing = intercepted(db.client(), ItemSignature, db.table_name::<Ecommerce>());
    for i in 0..10 {
        let created = signing.create(&open_order(&format!("S{i}"))).send().await;
        assert_eq!(created.unwrap(), Created::Created);
    }
    let stored =
        ddb_tests::raw_item::<Ecommerce>(&db, open_order("S0").primary_key().unwrap().to_item())
            .await
            .unwrap();
    assert_eq!(stored["sig"], AttributeValue::S("signed".into()));
    for exactly_once in [false, true] {
        let again = signing
            .create(&open_order("S1"))
            .exactly_once(exactly_once)
            .send()
            .await;
        assert_eq!(again.unwrap(), Created::AlreadyExisted, "{exactly_once}");
        let other = Order {
            total_cents: 1,
            ..open_order("S1")
        };
        let conflict = signing
            .create(&other)
            .exactly_once(exactly_once)
            .send()
            .await;
        assert!(
            matches!(conflict, Err(Error::AlreadyExists { .. })),
            "{exactly_once}: {conflict:?}"
        );
    }

    // A create whose first attempt was applied and its answer lost: the
    // retry meets the signed item its first attempt stored, its own.
    let (proxy, _) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let signing = intercepted(
        &ddb_tests::proxied_client(&proxy),
        ItemSignature,
        db.table_name::<Ecommerce>(),
    );
    for i in 0..10 {
        let created = signing.create(&open_order(&format!("T{i}"))).send().await;
        assert_eq!(created.unwrap(), Created::Created);
    }
    proxy.fail("PutItem", 1, Fault::DropResponse);
    let created = signing.create(&open_order("T10")).send().await;
    assert_eq!(created.unwrap(), Created::Created);
    assert_eq!(proxy.injected("PutItem"), 1);
}
