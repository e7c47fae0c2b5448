//! Transactions: each item named by its table and key, applied once under
//! their token and canceled whole, checked before sending, and sent again
//! after a conflict with the same actions (under a fresh token, unless an
//! attempt may have been applied).

use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderStatus};
use ddb_runtime::{Entity, Error, Table};
use ddb_tests::proxy::Fault;
use serde::{Deserialize, Serialize};

use crate::fixtures::{count_items, customer, line, open_order, Counter, Counters};

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

/// A transaction sent again with its `ClientRequestToken` is applied once;
/// the same token with other actions is refused as such.
#[tokio::test]
async fn a_transaction_sent_again_with_its_token_is_applied_once() {
    ddb_tests::requires!(ClientRequestToken);
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&customer("123")).send().await.unwrap();
    let customer_key = Customer::key(&CustomerId("123".into())).unwrap();
    let build = |token: &str| placing_order(&db, &customer_key, "A145").client_request_token(token);
    let token = db.transact_write().token().to_owned();
    build(&token).send().await.unwrap();
    build(&token).send().await.unwrap(); // the same token: not applied again
    let stored = db.get(customer_key.clone()).send().await.unwrap().unwrap();
    assert_eq!(stored.order_count, 1);
    assert_eq!(count_items(&db).await, 5);

    let mismatch = db
        .transact_write()
        .client_request_token(&token)
        .create(&line("A145", "P1"))
        .send()
        .await;
    assert!(mismatch.unwrap_err().is_idempotent_parameter_mismatch());
}

/// An order of three lines placed in one transaction, counted on its
/// customer.
fn placing_order(
    db: &ddb_runtime::Db,
    customer_key: &ddb_runtime::Key<Customer>,
    order: &str,
) -> ddb_runtime::TransactWrite {
    db.transact_write()
        .create(&open_order(order))
        .create(&line(order, "P9"))
        .create(&line(order, "P31"))
        .create(&line(order, "P77"))
        .update(
            db.update(customer_key.clone())
                .add(Customer::fields().order_count, 1u32),
        )
}

/// A transaction is applied whole and read back whole; a failing condition
/// check cancels every action, its reason on the action that failed.
#[tokio::test]
async fn a_transaction_is_applied_whole_and_cancels_whole() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&customer("123")).send().await.unwrap();
    let customer_key = Customer::key(&CustomerId("123".into())).unwrap();
    let fields = Customer::fields();
    placing_order(&db, &customer_key, "A145")
        .send()
        .await
        .unwrap();
    assert_eq!(count_items(&db).await, 5);

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
            let typed: Vec<_> = reasons.iter().map(|r| r.reason()).collect();
            use ddb_runtime::CancellationReason::{ConditionFailed, NotFailed};
            assert_eq!(typed, [NotFailed, NotFailed, ConditionFailed]);
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

/// A TransactionCanceledException answer with `reasons` as its cancellation
/// reasons, in order.
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
    assert_ne!(
        applied.token(),
        first_token,
        "a canceled token is not reused"
    );
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

/// A transaction whose first attempt is applied with its answer lost, and whose
/// SDK retry is canceled by a conflict, is applied once and reported as
/// applied: once an attempt may have been applied ddb sends again under the
/// same token (under a fresh one the transaction would fail on its own items),
/// and DynamoDB answers success.
#[tokio::test]
async fn a_transaction_whose_answer_was_lost_and_retry_conflicted_is_applied_once() {
    ddb_tests::requires!(ClientRequestToken);
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
