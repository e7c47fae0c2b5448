//! Throttles as DynamoDB reports them: the `ThrottlingReasons` of a
//! throttling error, injected by the proxy, typed on ddb's error with the
//! table or index they name, and recorded on the request's span; the ones
//! the SDK's retries absorb never reach the caller.

use ddb_examples::single_table::{Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_local::{Fault, ThrottlingError};
use ddb_runtime::{Entity, ThrottleLimit, ThrottledResource};

use crate::telemetry::Capture;

fn order(id: &str) -> Order {
    Order {
        customer_id: CustomerId("C1".into()),
        order_id: OrderId(id.into()),
        placed_at: time::macros::datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 100,
        version: 0,
    }
}

fn arn(table: &str) -> String {
    format!("arn:aws:dynamodb:us-east-1:000000000000:table/{table}")
}

#[tokio::test]
async fn a_throttle_the_retries_do_not_absorb_names_its_reason_and_resource() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    // The test client makes 4 attempts: every one is throttled.
    let hot = Fault::throttled("TableWriteKeyRangeThroughputExceeded", &arn(&table));
    proxy.fail("PutItem", 4, hot);
    let error = through.create(&order("A1")).send().await.unwrap_err();
    assert!(error.is_retryable(), "{error}");
    let reasons = error.throttling_reasons();
    assert_eq!(reasons.len(), 1, "{error:?}");
    let reason = &reasons[0];
    assert_eq!(reason.reason, "TableWriteKeyRangeThroughputExceeded");
    assert_eq!(reason.resource_type, Some(ThrottledResource::Table));
    assert!(reason.write && reason.is_hot_partition());
    assert_eq!(reason.limit, ThrottleLimit::KeyRangeThroughputExceeded);
    assert_eq!(reason.table(), Some(table.as_str()));
    assert_eq!(reason.index(), None);
    // Nothing was written.
    assert!(ddb_tests::scan_raw::<Ecommerce>(&db).await.is_empty());
}

#[tokio::test]
async fn an_index_throttle_names_the_index() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let index = format!("{}/index/GSI1", arn(&table));
    proxy.fail(
        "Query",
        4,
        Fault::throttled("IndexReadProvisionedThroughputExceeded", &index),
    );
    let error = through
        .query(Order::by_order_id(&OrderId("A1".into())))
        .send()
        .await
        .unwrap_err();
    let reasons = error.throttling_reasons();
    assert_eq!(reasons.len(), 1, "{error:?}");
    assert_eq!(reasons[0].resource_type, Some(ThrottledResource::Index));
    assert_eq!(
        reasons[0].limit,
        ThrottleLimit::ProvisionedThroughputExceeded
    );
    assert!(!reasons[0].write);
    assert_eq!(reasons[0].index(), Some("GSI1"));
}

#[tokio::test]
async fn throttles_the_sdk_retries_absorb_never_reach_the_caller() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let hot = Fault::throttled("TableWriteKeyRangeThroughputExceeded", &arn(&table));
    proxy.fail("PutItem", 2, hot);
    through.create(&order("A1")).send().await.unwrap();
    assert_eq!(ddb_tests::scan_raw::<Ecommerce>(&db).await.len(), 1);
}

/// Each of DynamoDB's three throttling errors carries its reasons under
/// its own name (`throttlingReasons` for `ThrottlingException`): each
/// reaches the caller typed, with the table it throttled.
#[tokio::test]
async fn each_throttling_error_reaches_the_caller_with_its_reasons() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    for (error, reason) in [
        (
            ThrottlingError::ProvisionedThroughputExceeded,
            "TableWriteProvisionedThroughputExceeded",
        ),
        (
            ThrottlingError::Throttling,
            "TableWriteMaxOnDemandThroughputExceeded",
        ),
        (
            ThrottlingError::RequestLimitExceeded,
            "TableWriteAccountLimitExceeded",
        ),
    ] {
        // The test client makes 4 attempts: every one is throttled.
        proxy.fail(
            "PutItem",
            4,
            Fault::throttled_by(error, reason, &arn(&table)),
        );
        let refused = through.create(&order("A1")).send().await.unwrap_err();
        assert!(refused.is_retryable(), "{error:?}: {refused}");
        let reasons = refused.throttling_reasons();
        assert_eq!(reasons.len(), 1, "{error:?}: {refused:?}");
        assert_eq!(reasons[0].reason, reason);
        assert_eq!(reasons[0].table(), Some(table.as_str()));
    }
    assert!(ddb_tests::scan_raw::<Ecommerce>(&db).await.is_empty());
}

/// Every throttled attempt is counted on its request's span, per reason and
/// table or index, also those the SDK's retries absorbed: through the
/// caller's client (a handle's first requests) and through ddb's copy of it
/// (the later ones).
#[tokio::test]
async fn every_throttled_attempt_is_counted_on_the_span_per_table_and_index() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let capture = Capture::default();
    let _one = ddb_tests::one_subscriber_at_a_time().await;
    let _guard = tracing::subscriber::set_default(capture.clone());
    tracing::callsite::rebuild_interest_cache();
    let hot = || Fault::throttled("TableWriteKeyRangeThroughputExceeded", &arn(&table));
    let index = format!("{}/index/GSI1", arn(&table));
    let cold_index = Fault::throttled_by(
        ThrottlingError::Throttling,
        "IndexReadMaxOnDemandThroughputExceeded",
        &index,
    );
    let recorded = |operation: &str| -> Vec<(Option<String>, Option<String>)> {
        let spans = capture.spans.lock().unwrap();
        let of = spans
            .iter()
            .filter(|s| s.get("db.operation.name").map(String::as_str) == Some(operation));
        of.map(|s| {
            (
                s.get("ddb.throttling_reasons").cloned(),
                s.get("ddb.attempts").cloned(),
            )
        })
        .collect()
    };
    let counted = |n: u32| Some(format!("TableWriteKeyRangeThroughputExceeded {table}: {n}"));

    // Through the caller's client: two throttles absorbed, then a third
    // and a fourth the caller sees.
    proxy.fail("PutItem", 2, hot());
    through.create(&order("A1")).send().await.unwrap();
    proxy.fail("PutItem", 4, hot());
    through.create(&order("A2")).send().await.unwrap_err();
    proxy.fail("Query", 1, cold_index.clone());
    through
        .query(Order::by_order_id(&OrderId("A1".into())))
        .send()
        .await
        .unwrap();
    // Past the handle's first requests, through ddb's copy of the client.
    for id in 0..8 {
        through
            .get(order(&format!("B{id}")).primary_key().unwrap())
            .send()
            .await
            .unwrap();
    }
    proxy.fail("PutItem", 1, hot());
    through.create(&order("A3")).send().await.unwrap();
    proxy.fail("Query", 2, cold_index);
    through
        .query(Order::by_order_id(&OrderId("A1".into())))
        .send()
        .await
        .unwrap();

    let attempts = |n: u32| Some(n.to_string());
    assert_eq!(
        recorded("PutItem"),
        [
            (counted(2), attempts(3)),
            (counted(4), attempts(4)),
            (counted(1), attempts(2))
        ]
    );
    let index_counted = |n: u32| {
        Some(format!(
            "IndexReadMaxOnDemandThroughputExceeded {table}/GSI1: {n}"
        ))
    };
    assert_eq!(
        recorded("Query"),
        [
            (index_counted(1), attempts(2)),
            (index_counted(2), attempts(3))
        ]
    );
    // A request no attempt of which was throttled records none.
    assert!(recorded("GetItem")
        .iter()
        .all(|(reasons, _)| reasons.is_none()));
}

/// The hot-partition report of `throttles` on the store's entities.
fn store_report(throttles: &[ddb_runtime::Throttle]) -> String {
    use ddb_examples::single_table::{Customer, OrderItem};
    let entities = [&Customer::SCHEMA, &Order::SCHEMA, &OrderItem::SCHEMA];
    ddb_tools::hot_partition_report(&entities, throttles)
}

/// The row of `report` that starts with `text`.
fn row_of(report: &str, text: &str) -> String {
    report
        .lines()
        .find(|line| line.starts_with(text))
        .unwrap_or_else(|| panic!("no row {text:?} in\n{report}"))
        .to_owned()
}

#[tokio::test]
async fn the_hot_partition_report_points_at_the_declared_keys_and_what_spreads_them() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = arn(db.table_name::<Ecommerce>());
    let mut throttles = Vec::new();
    for (id, reason, resource) in [
        (
            "H1",
            "IndexWriteKeyRangeThroughputExceeded",
            format!("{table}/index/GSI1"),
        ),
        (
            "H2",
            "IndexWriteKeyRangeThroughputExceeded",
            format!("{table}/index/GSI1"),
        ),
        (
            "H3",
            "IndexWriteKeyRangeThroughputExceeded",
            format!("{table}/index/GSI2"),
        ),
        (
            "H4",
            "TableWriteProvisionedThroughputExceeded",
            table.clone(),
        ),
    ] {
        proxy.fail("PutItem", 4, Fault::throttled(reason, &resource));
        let error = through.create(&order(id)).send().await.unwrap_err();
        throttles.extend(error.throttling_reasons());
    }
    assert_eq!(throttles.len(), 4);
    let report = store_report(&throttles);
    let row = |text: &str| row_of(&report, text);
    // GSI1 holds Order's and OrderItem's keys, neither sharded.
    let order_gsi1 = row(
        "| GSI1 | IndexWriteKeyRangeThroughputExceeded | 2 | Order | GSI1PK = ORDER#{order_id} |",
    );
    assert!(
        order_gsi1.contains("`shards = N` on this index"),
        "{order_gsi1}"
    );
    row("| GSI1 | IndexWriteKeyRangeThroughputExceeded | 2 | OrderItem | GSI1PK = PRODUCT#{product_id} |");
    // GSI2 is sharded four ways.
    let gsi2 = row(
        "| GSI2 | IndexWriteKeyRangeThroughputExceeded | 1 | Order | GSI2PK = STATUS#{status} |",
    );
    assert!(gsi2.contains("already sharded 4 ways"), "{gsi2}");
    // The table's capacity is not one key's.
    let capacity = row("| table | TableWriteProvisionedThroughputExceeded | 1 | Customer | PK = CUSTOMER#{customer_id} |");
    assert!(capacity.contains("not one key"), "{capacity}");
    assert_eq!(report.lines().count(), 2 + 2 + 1 + 3, "{report}");
}

/// A hot key read from a global index is spread by sharding it for a query
/// that reads the whole key, which reads each shard for its share; a key
/// sharding does not apply to is not.
#[test]
fn the_hot_partition_report_advises_sharding_for_hot_index_reads() {
    use ddb_runtime::Throttle;
    let table = arn("Ecommerce");
    let throttles = [
        (
            "IndexReadKeyRangeThroughputExceeded",
            format!("{table}/index/GSI1"),
        ),
        (
            "IndexReadKeyRangeThroughputExceeded",
            format!("{table}/index/GSI2"),
        ),
        ("TableReadKeyRangeThroughputExceeded", table.clone()),
    ]
    .map(|(reason, resource)| Throttle::parse(reason, &resource));
    let report = store_report(&throttles);
    let row = |text: &str| row_of(&report, text);
    let unsharded = row("| GSI1 | IndexReadKeyRangeThroughputExceeded | 1 | Order |");
    assert!(
        unsharded.contains("`shards = N` on this index spreads a query that reads the whole key"),
        "{unsharded}"
    );
    let sharded = row("| GSI2 | IndexReadKeyRangeThroughputExceeded | 1 | Order |");
    assert!(sharded.contains("already sharded 4 ways"), "{sharded}");
    let item = row("| table | TableReadKeyRangeThroughputExceeded | 1 | Customer |");
    assert!(
        item.contains("sharding does not apply to this key"),
        "{item}"
    );
}
