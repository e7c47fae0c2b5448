//! Single writes against the local server, and through the fault proxy where
//! the server cannot produce the behaviour: create, put and delete,
//! optimistic versions, exactly-once writes, and writes whose answer is lost.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId};
use ddb_runtime::{Created, Db, Entity, Error};
use ddb_tests::proxy::Fault;
use time::macros::datetime;

use crate::fixtures::{ada, count_items, customer, open_order, Counter, Counters};

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

/// A failed condition's item is asked for only by a write that has a
/// condition: a plain put or delete cannot fail one, and its request is the
/// minimal one.
#[tokio::test]
async fn only_a_conditioned_write_asks_for_the_item_its_condition_met() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    for target in ["PutItem", "DeleteItem"] {
        proxy.record(target);
    }
    let ada = customer("124");
    let key = ada.primary_key().unwrap();
    let name_is = |name: &str| Customer::fields().name.eq(name.to_string());

    through.put(&ada).send().await.unwrap();
    through.create(&customer("125")).send().await.unwrap();
    through
        .put(&ada)
        .condition(name_is(&ada.name))
        .send()
        .await
        .unwrap();
    through
        .delete(key.clone())
        .condition(name_is(&ada.name))
        .send()
        .await
        .unwrap();
    through.delete(key).send().await.unwrap();

    let all_old = Some(serde_json::json!("ALL_OLD"));
    let asked =
        |target| ddb_tests::recorded_field(&proxy, target, "ReturnValuesOnConditionCheckFailure");
    assert_eq!(asked("PutItem"), [None, all_old.clone(), all_old.clone()]);
    assert_eq!(asked("DeleteItem"), [all_old, None]);
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

/// A create whose first answer is lost is sent again by the SDK and
/// meets its own item: it reports Created (a plain create knows an attempt
/// of its own may have written the item; an exactly-once create, a
/// one-action transaction under a ClientRequestToken, knows it did).
#[tokio::test]
async fn an_exactly_once_create_reports_its_own_write_after_a_lost_answer() {
    ddb_tests::requires!(ClientRequestToken);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_versioned_increments_lose_nothing() {
    ddb_tests::requires!(AtomicConditionalWrites);
    let db = ddb_tests::db_with_table::<Counters>().await;
    let start = Counter {
        name: "hits".into(),
        value: 0,
        version: 0,
    };
    db.create(&start).send().await.unwrap();
    let key = Counter::key(&"hits".to_string()).unwrap();
    let conflicts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // The version each applied put was conditioned on.
    let applied_over = Arc::new(std::sync::Mutex::new(Vec::new()));
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let db = db.clone();
            let key = key.clone();
            let conflicts = conflicts.clone();
            let applied_over = applied_over.clone();
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
                                applied_over.lock().unwrap().push(counter.version);
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
    let mut applied_over = applied_over.lock().unwrap().clone();
    applied_over.sort_unstable();
    let twice: Vec<u64> = applied_over
        .windows(2)
        .filter(|pair| pair[0] == pair[1])
        .map(|pair| pair[0])
        .collect();
    assert!(
        twice.is_empty(),
        "the server applied two puts conditioned on the same version: {twice:?}"
    );
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

/// `expect_version` on an entity without a version field is refused before
/// anything is sent, by an update and by a delete.
#[tokio::test]
async fn expect_version_without_a_version_field_is_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&ada()).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = Customer::key(&ada().customer_id).unwrap();
    let update = through
        .update(key.clone())
        .set(Customer::fields().name, "Ada L.".to_string())
        .expect_version(3)
        .send()
        .await;
    assert!(
        matches!(&update, Err(Error::InvalidRequest { reason, .. }) if reason.contains("#[ddb(version)]")),
        "{update:?}"
    );
    let delete = through.delete(key).expect_version(3).send().await;
    assert!(
        matches!(&delete, Err(Error::InvalidRequest { .. })),
        "{delete:?}"
    );
    assert_eq!(proxy.seen("UpdateItem") + proxy.seen("DeleteItem"), 0);
}

/// A versioned put whose answer is lost is sent again by the SDK and fails its
/// own version check; that is never a `VersionConflict`, which would have a
/// caller doing what the docs say (re-read, apply again) apply its change
/// twice. A plain put says the outcome is unknown; an exactly-once put (a
/// one-action transaction under a ClientRequestToken) succeeds, applied once.
#[tokio::test]
async fn a_versioned_write_whose_answer_was_lost_is_never_a_version_conflict() {
    ddb_tests::requires!(ClientRequestToken);
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

/// When the SDK's retries run out after an attempt that lost its answer, a
/// plain write says the outcome is unknown, not a retryable SDK error (sent
/// again, the write would meet its own first attempt); an exactly-once write
/// sends again under its token and is applied once.
#[tokio::test]
async fn retries_spent_after_a_lost_answer_are_an_unknown_outcome() {
    ddb_tests::requires!(ClientRequestToken);
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

/// Writes an item the entity cannot decode (its `name` is a number).
async fn put_undecodable(db: &Db, customer: &Customer) {
    let mut item = customer.to_item().unwrap();
    item.insert(
        "name".into(),
        aws_sdk_dynamodb::types::AttributeValue::N("7".into()),
    );
    db.client()
        .put_item()
        .table_name(db.table_name::<Ecommerce>())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

/// A write DynamoDB applied is `Ok` even when the item it returns does not
/// decode (an `Err` would invite a retry that applies it twice): the item comes
/// back raw, for a put, an update and a delete.
#[tokio::test]
async fn an_applied_write_is_ok_even_when_the_returned_item_does_not_decode() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let customer = ada();
    let key = Customer::key(&customer.customer_id).unwrap();
    put_undecodable(&db, &customer).await;

    let put = db.put(&customer).return_old(true).send().await;
    let written = put.expect("the put was applied");
    assert!(written.item.is_none(), "the old item does not decode");
    assert!(written.raw.as_ref().is_some_and(|raw| raw["name"].is_n()));
    assert!(Customer::from_item(written.raw.unwrap()).is_err());

    put_undecodable(&db, &customer).await;
    let updated = db
        .update(key.clone())
        .add(Customer::fields().order_count, 1u32)
        .return_new(true)
        .send()
        .await
        .expect("the increment was applied");
    assert!(updated.item.is_none());
    let raw = updated.raw.expect("the new item is returned");
    assert_eq!(raw["order_count"].as_n().unwrap(), "1");

    let deleted = db
        .delete(key)
        .return_old(true)
        .send()
        .await
        .expect("the delete was applied");
    assert!(deleted.item.is_none() && deleted.raw.is_some());
}
