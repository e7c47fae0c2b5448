//! Batch writes and reads: a thousand items in chunks, unprocessed items
//! retried until written or read, an exhausted retry budget naming the keys
//! left, and each key's fate reported when a chunk fails or loses its answer.

use ddb_examples::single_table::{Ecommerce, OrderItem};
use ddb_runtime::{Db, Entity, Error};
use ddb_tests::proxy::Fault;

use crate::fixtures::{count_items, line};

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

/// A retry policy of no attempt still sends each chunk once: the items it
/// leaves are reported unprocessed, never items that were not even sent.
#[tokio::test]
async fn a_retry_policy_of_no_attempt_sends_each_chunk_once() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = through.with_retry_policy(ddb_runtime::batch::RetryPolicy {
        max_attempts: 0,
        ..ddb_runtime::batch::RetryPolicy::default()
    });
    proxy.fail("BatchWriteItem", 100, Fault::Unprocessed(Some(1)));
    let items: Vec<OrderItem> = (0..3).map(|i| line("Z1", &format!("P{i}"))).collect();
    match through.batch_put(&items).await {
        Err(Error::Unprocessed { keys, .. }) => {
            assert_eq!(keys, ["ORDER#Z1 / PRODUCT#P0"]);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
    assert_eq!(proxy.seen("BatchWriteItem"), 1);
    assert_eq!(count_items(&db).await, 2);
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

/// `db` with a batch retry policy of three quick attempts, one chunk at a time.
pub(crate) fn fast_batches(db: &Db) -> Db {
    db.with_retry_policy(ddb_runtime::batch::RetryPolicy {
        max_attempts: 3,
        base: std::time::Duration::from_millis(1),
        cap: std::time::Duration::from_millis(5),
        concurrency: 1,
    })
}

/// An SDK error in one chunk does not abort the others: every chunk is sent,
/// the error names each key by what happened to it, and the raw table agrees.
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
                causes,
                ..
            } = *outcome;
            assert_eq!(keys.len(), 25, "the failed chunk: {keys:?}");
            assert_eq!(done.len(), 35);
            assert!(unknown.is_empty());
            assert!(
                matches!(
                    causes.as_slice(),
                    [Error::Sdk {
                        kind: ddb_runtime::SdkErrorKind::Service,
                        ..
                    }]
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

/// When several chunks fail, the error keeps every failure: it is
/// retryable only if each is (a request refused for good fails again), and
/// it carries the throttling reasons of each.
#[tokio::test]
async fn a_batch_error_keeps_every_chunk_s_failure() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    let table = format!(
        "arn:aws:dynamodb:us-east-1:000000000000:table/{}",
        db.table_name::<Ecommerce>()
    );
    // The first chunk is throttled on each of the test client's 4
    // attempts; the second is refused for good.
    let hot = Fault::throttled("TableWriteKeyRangeThroughputExceeded", &table);
    proxy.fail("BatchWriteItem", 4, hot);
    proxy.fail(
        "BatchWriteItem",
        1,
        Fault::Error(400, "ValidationException"),
    );
    let items: Vec<OrderItem> = (0..50).map(|i| line("M1", &format!("P{i:02}"))).collect();
    let error = through.batch_put(&items).await.unwrap_err();
    assert!(!error.is_retryable(), "{error:?}");
    let reasons = error.throttling_reasons();
    assert_eq!(reasons.len(), 1, "{error:?}");
    assert_eq!(reasons[0].reason, "TableWriteKeyRangeThroughputExceeded");
    let Error::Unprocessed { keys, outcome, .. } = error else {
        panic!("{error:?}")
    };
    assert_eq!(keys.len(), 50);
    assert_eq!(outcome.causes.len(), 2, "{outcome:?}");
    assert!(outcome.causes[0].is_retryable() && !outcome.causes[1].is_retryable());
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

/// A batch get with one key left unprocessed keeps what it read: the error
/// names the key not read and carries the items read.
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

/// DynamoDB's answer to one batch request, scripted: `field` (UnprocessedItems
/// or UnprocessedKeys) holds `left` for `db`'s table, and nothing was read.
fn answered_with(db: &Db, field: &str, left: serde_json::Value) -> Fault {
    let table = db.table_name::<Ecommerce>();
    let mut answer = serde_json::json!({ field: { table: left } });
    if field == "UnprocessedKeys" {
        answer["Responses"] = serde_json::json!({ table: [] });
    }
    Fault::Json(200, answer.to_string())
}

/// A write DynamoDB leaves unprocessed under a key that matches none sent
/// cannot be told apart from the keys it reports done: the keys of that
/// request are unknown (writing them again is safe), never reported written,
/// and nothing is sent under a key the caller did not give.
#[tokio::test]
async fn a_write_left_under_a_key_not_sent_leaves_its_request_unknown() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    let stray = serde_json::json!([{ "PutRequest": { "Item": {
        "PK": { "S": "ORDER#NONE" }, "SK": { "S": "PRODUCT#NONE" }
    } } }]);
    proxy.fail(
        "BatchWriteItem",
        1,
        answered_with(&db, "UnprocessedItems", stray),
    );
    let items: Vec<OrderItem> = (0..2).map(|i| line("O1", &format!("P{i}"))).collect();
    match through.batch_put(&items).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert!(keys.is_empty() && outcome.done.is_empty(), "{outcome:?}");
            assert_eq!(
                outcome.unknown,
                ["ORDER#O1 / PRODUCT#P0", "ORDER#O1 / PRODUCT#P1"]
            );
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
    assert_eq!(proxy.seen("BatchWriteItem"), 1, "the stray is not sent");
    assert_eq!(count_items(&db).await, 0);
}

/// A key DynamoDB leaves unread that matches none asked cannot be told
/// apart from the keys it reports read: the keys of that request are
/// unread, never reported not found.
#[tokio::test]
async fn a_read_left_under_a_key_not_asked_leaves_its_request_unread() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let items: Vec<OrderItem> = (0..2).map(|i| line("U1", &format!("P{i}"))).collect();
    db.batch_put(&items).await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    let stray = serde_json::json!({ "Keys": [{
        "PK": { "S": "ORDER#NONE" }, "SK": { "S": "PRODUCT#NONE" }
    }] });
    proxy.fail(
        "BatchGetItem",
        1,
        answered_with(&db, "UnprocessedKeys", stray),
    );
    let keys: Vec<_> = items.iter().map(|i| i.primary_key().unwrap()).collect();
    match through.batch_get(keys).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert_eq!(keys, ["ORDER#U1 / PRODUCT#P0", "ORDER#U1 / PRODUCT#P1"]);
            assert!(outcome.done.is_empty(), "{outcome:?}");
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
    assert_eq!(proxy.seen("BatchGetItem"), 1, "the stray is not asked");
}

/// An item DynamoDB returns at a key not asked cannot be placed: the keys
/// of that request are unread, never reported not found.
#[tokio::test]
async fn an_item_read_at_a_key_not_asked_leaves_its_request_unread() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>();
    let answer = serde_json::json!({ "Responses": { table: [{
        "PK": { "S": "ORDER#NONE" }, "SK": { "S": "PRODUCT#NONE" }
    }] } });
    proxy.fail("BatchGetItem", 1, Fault::Json(200, answer.to_string()));
    let key = line("V1", "P0").primary_key().unwrap();
    match through.batch_get(vec![key]).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert_eq!(keys, ["ORDER#V1 / PRODUCT#P0"]);
            assert!(outcome.done.is_empty(), "{outcome:?}");
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}

/// An item a request returns at a key another request of the batch asks
/// cannot be placed: the keys of the request that returned it are unread,
/// never reported not found.
#[tokio::test]
async fn an_item_read_at_a_key_another_request_asks_leaves_its_request_unread() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let items: Vec<OrderItem> = (0..101).map(|i| line("W1", &format!("P{i:03}"))).collect();
    db.batch_put(&items).await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = fast_batches(&through);
    // The first request asks for the first 100 keys; its answer holds the
    // 101st item, which the second request asks for.
    let last = ddb_tests::item_json(&items[100].to_item().unwrap());
    let table = db.table_name::<Ecommerce>();
    let answer = serde_json::json!({ "Responses": { table: [last] } });
    proxy.fail("BatchGetItem", 1, Fault::Json(200, answer.to_string()));
    let keys: Vec<_> = items.iter().map(|i| i.primary_key().unwrap()).collect();
    match through.batch_get(keys).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert_eq!(keys.len(), 100, "{keys:?}");
            assert_eq!(outcome.done, ["ORDER#W1 / PRODUCT#P100"]);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}
