//! Idempotency keys: a create whose item key a retry computes afresh (a new
//! timestamp) applied once per request, the first call's key reported to
//! every later call, across handles; other content under a used key
//! refused; a key forgotten once its time is up.

use ddb_examples::single_table::{Customer, Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::{Created, Error};
use time::OffsetDateTime;

/// An order placed now: its key carries the time of this try.
fn placed(order_id: &str, total_cents: u64) -> Order {
    Order {
        customer_id: CustomerId("C1".into()),
        order_id: OrderId(order_id.into()),
        placed_at: (OffsetDateTime::now_utc() + time::Duration::seconds(placed_tick()))
            .replace_nanosecond(0)
            .unwrap(),
        status: OrderStatus::Open,
        total_cents,
        version: 0,
    }
}

/// A second later than the last call: each try's key differs.
fn placed_tick() -> i64 {
    use std::sync::atomic::{AtomicI64, Ordering};
    static TICK: AtomicI64 = AtomicI64::new(0);
    TICK.fetch_add(1, Ordering::Relaxed)
}

async fn orders(db: &ddb_runtime::Db) -> usize {
    ddb_tests::scan_raw::<Ecommerce>(db)
        .await
        .iter()
        .filter(|item| {
            item.get("_type")
                .and_then(|t| t.as_s().ok())
                .map(String::as_str)
                == Some("Order")
        })
        .count()
}

#[tokio::test]
async fn a_retry_with_a_fresh_timestamp_reports_the_first_order() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let first = db
        .create(&placed("O1", 1999))
        .idempotency_key("req-1")
        .send()
        .await
        .unwrap();
    assert_eq!(first.created, Created::Created);
    // Another process, a new timestamp, the same request.
    let other = ddb_runtime::Db::new(ddb_tests::client())
        .with_table_name::<Ecommerce>(db.table_name::<Ecommerce>());
    let retry = other
        .create(&placed("O1", 1999))
        .idempotency_key("req-1")
        .send()
        .await
        .unwrap();
    assert_eq!(retry.created, Created::AlreadyExisted);
    assert_eq!(retry.key, first.key);
    assert_eq!(orders(&db).await, 1);
    // Another request is another order.
    let next = db
        .create(&placed("O2", 1999))
        .idempotency_key("req-2")
        .send()
        .await
        .unwrap();
    assert_eq!(next.created, Created::Created);
    assert_eq!(orders(&db).await, 2);
    let stored: Option<Order> = db.get(first.key).send().await.unwrap();
    assert_eq!(stored.map(|o| o.total_cents), Some(1999));
}

#[tokio::test]
async fn other_content_under_a_used_key_is_refused() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&placed("O1", 1999))
        .idempotency_key("req-1")
        .send()
        .await
        .unwrap();
    match db
        .create(&placed("O1", 2500))
        .idempotency_key("req-1")
        .send()
        .await
    {
        Err(Error::IdempotencyKeyReused { entity: "Order" }) => {}
        other => panic!("expected the key refused, got {other:?}"),
    }
    assert_eq!(orders(&db).await, 1);
    match db.create(&placed("O3", 1)).idempotency_key("").send().await {
        Err(Error::InvalidRequest {
            entity: "Order", ..
        }) => {}
        other => panic!("an empty key is refused, got {other:?}"),
    }
}

#[tokio::test]
async fn a_key_is_forgotten_once_its_time_is_up() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let keep = std::time::Duration::from_secs(1);
    let first = db
        .create(&placed("O1", 1999))
        .idempotency_key("req-1")
        .keep_for(keep)
        .send()
        .await
        .unwrap();
    // Past the key's expiry (epoch seconds): the next call is a new request.
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let later = db
        .create(&placed("O1", 1999))
        .idempotency_key("req-1")
        .keep_for(keep)
        .send()
        .await
        .unwrap();
    assert_eq!(later.created, Created::Created);
    assert_ne!(later.key, first.key);
}

#[tokio::test]
async fn a_key_met_by_the_same_item_is_recorded_for_later_retries() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let order = placed("O1", 1999);
    // Created without a key, then sent again under one: the same item.
    db.create(&order).send().await.unwrap();
    let again = db
        .create(&order)
        .idempotency_key("req-1")
        .send()
        .await
        .unwrap();
    assert_eq!(again.created, Created::AlreadyExisted);
    // A retry with a fresh timestamp finds the request, and writes nothing.
    let retry = db
        .create(&placed("O1", 1999))
        .idempotency_key("req-1")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (retry.created, &retry.key),
        (Created::AlreadyExisted, &again.key)
    );
    assert_eq!(orders(&db).await, 1);
}

/// A create under an idempotency key that meets another item at its key is
/// `AlreadyExists`, with the stored item, as a plain create's is.
#[tokio::test]
async fn an_idempotent_create_over_another_item_is_already_exists() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let order = placed("O1", 1999);
    db.create(&order).send().await.unwrap();
    let other = Order {
        total_cents: 2500,
        ..order.clone()
    };
    let plain = db.create(&other).send().await;
    let keyed = db.create(&other).idempotency_key("req-1").send().await;
    for outcome in [plain.map(|_| ()), keyed.map(|_| ())] {
        match outcome {
            Err(Error::AlreadyExists {
                entity: "Order",
                existing,
                ..
            }) => {
                let stored: Order = existing.decode().unwrap();
                assert_eq!(stored.total_cents, 1999);
            }
            other => panic!("expected AlreadyExists, got {other:?}"),
        }
    }
    assert_eq!(orders(&db).await, 1);
}

/// The idempotency record of an entity with a `sensitive` field holds a
/// fingerprint keyed by the handle's guard hash key: the same content under
/// two keys stores two fingerprints, so a reader of the table cannot test a
/// guessed value by hashing it; no attribute of the record holds the value.
/// Without a guard hash key, such a create is refused before sending.
#[tokio::test]
async fn the_idempotency_fingerprint_of_a_sensitive_entity_is_keyed() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let customer = |id: &str| Customer {
        customer_id: CustomerId(id.into()),
        name: "Ada".into(),
        email: "ada@example.com".into(),
        order_count: 0,
    };
    match db
        .create(&customer("C1"))
        .idempotency_key("req-0")
        .send()
        .await
    {
        Err(Error::InvalidRequest {
            entity: "Customer", ..
        }) => {}
        other => panic!("expected a refusal without a guard hash key, got {other:?}"),
    }
    assert!(ddb_tests::scan_raw::<Ecommerce>(&db).await.is_empty());
    // The same customer under the same request, through three handles on
    // three tables: two share a key.
    let first: &[u8] = b"the first 32 random bytes, a key";
    let other: &[u8] = b"the other 32 random bytes, a key";
    let mut records = Vec::new();
    for key in [first, other, first] {
        let handle = ddb_tests::db_with_table::<Ecommerce>()
            .await
            .with_guard_hash_key(key.to_vec());
        let created = handle
            .create(&customer("C1"))
            .idempotency_key("req-1")
            .send();
        assert_eq!(created.await.unwrap().created, Created::Created);
        let stored = ddb_tests::scan_raw::<Ecommerce>(&handle).await.into_iter();
        records.extend(stored.filter(|item| item.contains_key("_ddb_fingerprint")));
    }
    assert_eq!(records.len(), 3);
    let fingerprint = |i: usize| records[i]["_ddb_fingerprint"].as_s().unwrap().clone();
    assert_eq!(fingerprint(0), fingerprint(2), "one key, one fingerprint");
    assert_ne!(
        fingerprint(0),
        fingerprint(1),
        "another key, another fingerprint"
    );
    for record in &records {
        let shown = format!("{record:?}");
        assert!(!shown.contains("ada@example.com"), "{shown}");
    }
}
