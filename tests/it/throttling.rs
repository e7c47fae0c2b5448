//! Throttles as DynamoDB reports them: the `ThrottlingReasons` of a
//! throttling error, injected by the proxy, typed on ddb's error with the
//! table or index they name, and recorded on the request's span; the ones
//! the SDK's retries absorb never reach the caller.

use ddb_examples::single_table::{Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::local::Fault;
use ddb_runtime::{ThrottleLimit, ThrottledResource};

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
