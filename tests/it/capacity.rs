//! Consumed capacity: asked of DynamoDB only when someone reads it, and
//! read the same way whatever the builder: a handle with a meter asks for
//! every request's capacity and sums what each answer reported.

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use ddb_examples::single_table::{Ecommerce, Order};
use ddb_examples::OrderStatus;
use ddb_runtime::{Capacity, CapacityMeter, Entity};

use crate::fixtures::open_order;

/// What each recorded request of `operation` asked of its capacity
/// (`ReturnConsumedCapacity`), in the order sent.
fn asked(proxy: &ddb_tests::proxy::Proxy, operation: &str) -> Vec<Option<String>> {
    ddb_tests::recorded_json(proxy, operation)
        .iter()
        .map(|body| body["ReturnConsumedCapacity"].as_str().map(str::to_owned))
        .collect()
}

/// Units compared as DynamoDB reports them: sums of halves and wholes.
fn units(capacity: &Capacity) -> f64 {
    (capacity.total * 1000.0).round() / 1000.0
}

/// DynamoDB is asked for a request's capacity only when someone reads it:
/// the caller (`send_with_capacity`, or a handle made
/// `with_return_consumed_capacity`) or a recorded span; the minimal
/// request otherwise.
#[tokio::test]
async fn capacity_is_asked_only_when_someone_reads_it() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    for target in ["PutItem", "Query"] {
        proxy.record(target);
    }
    let asked = |target: &str| asked(&proxy, target);
    let orders = || Order::by_customer(&open_order("T1").customer_id);

    through.create(&open_order("T1")).send().await.unwrap();
    let page = through.query(orders()).send().await.unwrap();
    assert_eq!(asked("PutItem"), [None]);
    assert_eq!(asked("Query"), [None]);
    assert_eq!(page.consumed_capacity.total, 0.0, "nothing was asked");

    let (_, capacity) = through
        .create(&open_order("T2"))
        .send_with_capacity()
        .await
        .unwrap();
    assert!(capacity.total > 0.0);
    assert_eq!(asked("PutItem")[1].as_deref(), Some("INDEXES"));

    let costed = through.with_return_consumed_capacity();
    costed.create(&open_order("T3")).send().await.unwrap();
    let page = costed.query(orders()).send().await.unwrap();
    assert_eq!(asked("PutItem")[2].as_deref(), Some("INDEXES"));
    assert_eq!(asked("Query")[1].as_deref(), Some("INDEXES"));
    assert!(page.consumed_capacity.total > 0.0);
}

/// Every request a metered handle sends asks for its capacity, and the
/// meter holds the sum of what the answers reported: the figures each
/// result (or `send_with_capacity`) reports for the same requests.
#[tokio::test]
async fn a_meter_sums_what_every_request_through_its_handle_reported() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let operations = [
        "PutItem",
        "GetItem",
        "UpdateItem",
        "Query",
        "TransactWriteItems",
        "DeleteItem",
    ];
    for operation in operations {
        proxy.record(operation);
    }
    let meter = CapacityMeter::default();
    let metered = through.with_capacity_meter(&meter);
    let (first, second) = (open_order("M1"), open_order("M2"));
    let key = first.primary_key().unwrap();

    let mut reported = Capacity::default();
    reported.add(&metered.put(&first).send().await.unwrap().capacity);
    let (found, capacity) = metered.get(key.clone()).send_with_capacity().await.unwrap();
    assert!(found.is_some());
    reported.add(&capacity);
    let updated = metered
        .update(key.clone())
        .set(Order::fields().status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    reported.add(&updated.capacity);
    let page = metered
        .query(Order::by_customer(&first.customer_id))
        .send()
        .await
        .unwrap();
    reported.add(&page.consumed_capacity);
    let transaction = metered.transact_write().create(&second);
    let (_, capacity) = transaction.send_with_capacity().await.unwrap();
    reported.add(&capacity);
    reported.add(&metered.delete(key).send().await.unwrap().capacity);

    // A dry run shows the request as the metered handle sends it.
    let dry = metered.put(&first).dry_run().unwrap();
    let Some(ddb_runtime::dry_run::Request::PutItemInput(put)) = dry.input() else {
        panic!("a put's dry run is a PutItem: {dry}");
    };
    let indexes = Some(&ReturnConsumedCapacity::Indexes);
    assert_eq!(put.return_consumed_capacity(), indexes);

    for operation in operations {
        let indexes = Some("INDEXES".to_owned());
        assert_eq!(asked(&proxy, operation), [indexes], "{operation}");
    }
    assert!(reported.total > 0.0);
    assert_eq!(units(&meter.capacity()), units(&reported));
    assert_eq!(units(&meter.take()), units(&reported));
    assert_eq!(meter.capacity(), Capacity::default(), "taken");

    // A get and a transaction sent plainly (`send_with_capacity` asks on
    // any handle) ask because of the meter, and add to it.
    let third = open_order("M3");
    metered
        .get(third.primary_key().unwrap())
        .send()
        .await
        .unwrap();
    metered
        .transact_write()
        .create(&third)
        .send()
        .await
        .unwrap();
    for operation in ["GetItem", "TransactWriteItems"] {
        let asked = asked(&proxy, operation);
        assert_eq!(asked[1].as_deref(), Some("INDEXES"), "{operation}");
    }
    assert!(meter.capacity().total > 0.0);
}

/// A meter follows the handle: a clone, a handle made from the metered
/// one, and a loader of it add to the same sum; the handle it was made
/// from adds nothing and asks for nothing.
#[tokio::test]
async fn a_meter_follows_its_handle_and_only_its_handle() {
    ddb_tests::requires!(CapacityByItemSize);
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("PutItem");
    let meter = CapacityMeter::default();
    let metered = through.with_capacity_meter(&meter);
    let order = open_order("F1");

    through.put(&order).send().await.unwrap();
    assert_eq!(meter.capacity(), Capacity::default());
    assert_eq!(asked(&proxy, "PutItem"), [None]);

    let derived = metered.clone().with_exactly_once_writes();
    derived.put(&open_order("F2")).send().await.unwrap();
    let after_put = meter.capacity().total;
    assert!(
        after_put > 0.0,
        "a transaction of one put reports its units"
    );

    let loaded = metered
        .loader::<Order>()
        .load(order.primary_key().unwrap())
        .send()
        .await
        .unwrap();
    assert!(loaded.is_some());
    assert!(
        meter.capacity().total > after_put,
        "the loader's BatchGetItem"
    );
}
