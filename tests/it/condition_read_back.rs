//! A failed condition answered without the item it met. ddb asks for the
//! item back (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) and maps the
//! failure from it; on a server that answers none, the item is read back
//! once, until the server has shown that it returns them.

use ddb_examples::single_table::{Ecommerce, Order};
use ddb_runtime::{Db, Entity, Error, Item, Table};
use ddb_tests::proxy::Fault;
use serde::{Deserialize, Serialize};

use crate::fixtures::open_order;
use crate::unique::{Accounts, User};

/// A ConditionalCheckFailedException without the item, as a server that
/// ignores ALL_OLD answers it.
pub(crate) fn condition_failed_without_item() -> Fault {
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        "message": "The conditional request failed",
    });
    Fault::Json(400, body.to_string())
}

/// A transaction cancelled by the conditions of its first `n` actions,
/// without their items.
fn conditions_failed_without_items(n: usize) -> Fault {
    let reason = serde_json::json!({
        "Code": "ConditionalCheckFailed",
        "Message": "The conditional request failed",
    });
    let codes = vec!["ConditionalCheckFailed"; n].join(", ");
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": format!("Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"),
        "CancellationReasons": vec![reason; n],
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

    proxy.fail("TransactWriteItems", 1, conditions_failed_without_items(1));
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

#[tokio::test]
async fn a_guarded_write_in_a_transaction_answered_without_the_item_reads_it_back() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
    let ada = User {
        id: "1".into(),
        email: "ada@example.com".into(),
        tenant: "acme".into(),
        handle: "@ada".into(),
        name: "Ada".into(),
    };
    db.create(&ada).send().await.unwrap();

    // The caller's condition fails on the item as it was read: the server
    // leaves the item out, and without it the put would look changed since
    // its read.
    proxy.fail("TransactWriteItems", 1, conditions_failed_without_items(1));
    let put = through
        .put(&ada)
        .condition(User::fields().name.eq("nobody"));
    let sent = through.transact_write().put(put).send().await;
    match sent {
        Err(Error::TransactionCanceled { reasons }) => {
            let existing = reasons[0].existing.as_ref().expect("read back");
            let stored: User = existing.decode().unwrap();
            assert_eq!(stored, ada);
        }
        other => panic!("the caller's condition failed: {other:?}"),
    }
    assert_eq!(
        proxy.seen("GetItem"),
        2,
        "the put's read, then the read-back"
    );
}

/// Two actions of a transaction fail their conditions, answered without
/// their items: both items are read back at once, not one after the other
/// (the first read-back is held until the second has arrived).
#[tokio::test]
async fn the_items_of_several_failed_actions_are_read_back_concurrently() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let first = order_changed_since_read(&db, "R5").await;
    let second = order_changed_since_read(&db, "R6").await;
    proxy.fail("TransactWriteItems", 1, conditions_failed_without_items(2));
    let held = proxy.hold("GetItem");

    let transaction = through
        .transact_write()
        .put(through.put(&first))
        .put(through.put(&second));
    let sent = tokio::spawn(transaction.send());
    let applied = tokio::time::timeout(std::time::Duration::from_secs(10), held.applied());
    applied.await.expect("the first item is read back");
    let mut waited = 0;
    while proxy.seen("GetItem") < 2 && waited < 200 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
    }
    let seen = proxy.seen("GetItem");
    held.release();
    assert_eq!(seen, 2, "the second read-back waited for the first");
    match sent.await.unwrap() {
        Err(Error::TransactionCanceled { reasons }) => {
            for reason in &reasons {
                let stored: Order = reason
                    .existing
                    .as_ref()
                    .expect("read back")
                    .decode()
                    .unwrap();
                assert_eq!(stored.version, 2);
            }
        }
        other => panic!("both conditions failed: {other:?}"),
    }
}

/// Ten actions fail their conditions on items that are not there, answered
/// without items, on a handle that has not seen the server's answers: the
/// items are read back until the empty answers are trusted (eight reads
/// that found nothing), not once per action.
#[tokio::test]
async fn the_read_backs_of_one_transaction_stop_once_empty_answers_are_trusted() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail("TransactWriteItems", 1, conditions_failed_without_items(10));
    let mut transaction = through.transact_write();
    for i in 0..10 {
        transaction = transaction.create(&open_order(&format!("M{i}")));
    }
    let failed = transaction.send().await;
    assert!(
        matches!(&failed, Err(Error::TransactionCanceled { reasons }) if reasons.len() == 10),
        "{failed:?}"
    );
    assert_eq!(proxy.seen("GetItem"), 8, "read back until trusted");
}

#[derive(Table)]
#[ddb(name = "Profiles", pk = "PK", sk = "SK")]
struct Profiles;

/// A profile as first stored, under the sort key `V1`.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Profile", pk = "PROFILE#{id}", sk = "V1")]
struct ProfileV1 {
    id: String,
    name: String,
}

/// The profile moved to the sort key `V2`.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Profile", pk = "PROFILE#{id}", sk = "V2")]
#[ddb(schema_version = 2, migrate(from = 1, with = unchanged))]
struct Profile {
    id: String,
    name: String,
}

fn unchanged(_: &mut Item) -> Result<(), String> {
    Ok(())
}

#[tokio::test]
async fn a_backfill_move_answered_without_the_item_reads_it_back_and_moves_it() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let id = "p1".to_string();
    let old = ProfileV1 {
        id: id.clone(),
        name: "Ada".into(),
    };
    db.create(&old).send().await.unwrap();

    // The move's transaction fails its condition, answered without the
    // item: read back, the item is still there to move, not gone.
    proxy.fail("TransactWriteItems", 1, conditions_failed_without_items(1));
    let moved = through.backfill::<Profile>().send().await.unwrap();
    assert_eq!(moved.updated, 1, "{moved:?}");
    let items = ddb_tests::scan_raw::<Profiles>(&db).await;
    assert_eq!(items.len(), 1, "{items:?}");
    let found = db.get(Profile::key(&id).unwrap()).send().await.unwrap();
    assert_eq!(found.map(|p| p.name), Some(old.name));
}
