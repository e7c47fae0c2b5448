//! A failed condition answered without the item it met. ddb asks for the
//! item back (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) and maps the
//! failure from it; on a server that answers none, the item is read back
//! once, until the server has shown that it returns them.

use ddb_examples::single_table::{Ecommerce, Order};
use ddb_runtime::{Db, Entity, Error};
use ddb_tests::proxy::Fault;

use crate::fixtures::open_order;

/// A ConditionalCheckFailedException without the item, as a server that
/// ignores ALL_OLD answers it.
fn condition_failed_without_item() -> Fault {
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        "message": "The conditional request failed",
    });
    Fault::Json(400, body.to_string())
}

/// A transaction cancelled by its one action's condition, without the item.
fn transaction_condition_failed_without_item() -> Fault {
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]",
        "CancellationReasons": [{ "Code": "ConditionalCheckFailed", "Message": "The conditional request failed" }],
    });
    Fault::Json(400, body.to_string())
}

/// Order `id` written, then written again: stored at version 2. Returns
/// the order as it was at version 1.
async fn order_changed_since_read(db: &Db, id: &str) -> Order {
    db.create(&open_order(id)).send().await.unwrap();
    let key = open_order(id).primary_key().unwrap();
    let read = db.get(key).send().await.unwrap().unwrap();
    let mut changed = read.clone();
    changed.total_cents += 1;
    db.put(&changed).send().await.unwrap();
    read
}

#[tokio::test]
async fn a_version_conflict_answered_without_the_item_reads_the_stored_version() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let stale = order_changed_since_read(&db, "R1").await;

    proxy.fail("PutItem", 1, condition_failed_without_item());
    let failed = through.put(&stale).send().await;
    assert!(
        matches!(
            &failed,
            Err(Error::VersionConflict {
                expected: 1,
                current: Some(2),
                ..
            })
        ),
        "{failed:?}"
    );
    assert_eq!(proxy.seen("GetItem"), 1, "read back once");
}

#[tokio::test]
async fn an_exactly_once_write_answered_without_the_item_reads_the_stored_version() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let stale = order_changed_since_read(&db, "R2").await;

    proxy.fail(
        "TransactWriteItems",
        1,
        transaction_condition_failed_without_item(),
    );
    let failed = through.put(&stale).exactly_once(true).send().await;
    assert!(
        matches!(
            &failed,
            Err(Error::VersionConflict {
                current: Some(2),
                ..
            })
        ),
        "{failed:?}"
    );
}

#[tokio::test]
async fn a_create_answered_without_the_item_reports_the_item_that_exists() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    db.create(&open_order("R3")).send().await.unwrap();
    let other = Order {
        total_cents: 1,
        ..open_order("R3")
    };

    proxy.fail("PutItem", 1, condition_failed_without_item());
    let failed = through.create(&other).send().await;
    match failed {
        Err(Error::AlreadyExists { existing, .. }) => {
            let stored: Order = existing.decode().unwrap();
            assert_eq!(stored.total_cents, open_order("R3").total_cents);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn once_the_server_returns_an_item_an_empty_answer_is_not_read_back() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let stale = order_changed_since_read(&db, "R4").await;

    // The server returns the item a failed condition met.
    let other = Order {
        total_cents: 1,
        ..open_order("R4")
    };
    let met = through.create(&other).send().await;
    assert!(matches!(met, Err(Error::AlreadyExists { .. })), "{met:?}");

    proxy.fail("PutItem", 1, condition_failed_without_item());
    let failed = through.put(&stale).send().await;
    assert!(
        matches!(&failed, Err(Error::VersionConflict { current: None, .. })),
        "the answer is trusted: {failed:?}"
    );
    assert_eq!(proxy.seen("GetItem"), 0, "nothing read back");
}
