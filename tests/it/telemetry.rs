//! Every request ddb sends is a `tracing` span with OpenTelemetry's
//! DynamoDB attribute names and the capacity it consumed, never a key value
//! or an item's content; writes report their capacity, table and indexes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ddb_examples::single_table::{Customer, Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use time::macros::datetime;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

pub(crate) type Fields = HashMap<String, String>;

/// A subscriber that keeps every span's fields.
#[derive(Clone, Default)]
pub(crate) struct Capture {
    pub(crate) spans: Arc<Mutex<Vec<Fields>>>,
    next: Arc<AtomicU64>,
}

struct Visitor<'a>(&'a mut Fields);

impl Visit for Visitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "ddb"
    }
    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut fields = Fields::new();
        attributes.record(&mut Visitor(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push(fields);
        self.next.store(spans.len() as u64, Ordering::Relaxed);
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        if let Some(fields) = spans.get_mut(span.into_u64() as usize - 1) {
            values.record(&mut Visitor(fields));
        }
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn order(id: &str) -> Order {
    Order {
        customer_id: CustomerId("Ada".into()),
        order_id: OrderId(id.into()),
        placed_at: datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 5600,
        version: 0,
    }
}

#[tokio::test]
async fn every_request_is_a_span_with_capacity_and_no_key_values() {
    use ddb_tests::engine::{has, Behaviour::CapacityByItemSize};
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let capture = Capture::default();
    let _one = ddb_tests::one_subscriber_at_a_time().await;
    let _guard = tracing::subscriber::set_default(capture.clone());
    // A call site another test's thread was registering while this
    // subscriber was set may have cached that no subscriber wants it
    // (tracing's interest cache is global, this subscriber is the thread's):
    // its interest is asked again, now that this subscriber is there.
    tracing::callsite::rebuild_interest_cache();

    let (_, created) = db.create(&order("T1")).send_with_capacity().await.unwrap();
    let key = ddb_runtime::Entity::primary_key(&order("T1")).unwrap();
    let written = db
        .update(key.clone())
        .set(Order::fields().status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    db.get(key).send().await.unwrap().unwrap();
    db.query(Order::by_customer(&CustomerId("Ada".into())))
        .collect()
        .await
        .unwrap();
    let batched = db.batch_put(&[order("T2"), order("T3")]).await.unwrap();
    let (_, transacted) = db
        .transact_write()
        .create(&Customer {
            customer_id: CustomerId("Ada".into()),
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            order_count: 0,
        })
        .send_with_capacity()
        .await
        .unwrap();

    // The capacity of each write: the table's and the indexes' shares.
    let capacity = has(CapacityByItemSize);
    if capacity {
        assert!(created.total > 0.0, "{created:?}");
        let gsi = |c: &ddb_runtime::Capacity, name: &str| c.indexes.iter().any(|(n, _)| n == name);
        assert!(
            gsi(&created, "GSI1") && gsi(&created, "GSI2"),
            "{created:?}"
        );
        assert!(written.capacity.total > 0.0, "{:?}", written.capacity);
        assert!(transacted.total > 0.0, "{transacted:?}");
        assert!(
            batched.total >= 2.0 && gsi(&batched, "GSI1"),
            "two orders, table and indexes: {batched:?}"
        );
    }

    // A failed request names its error's kind.
    let again = db.create(&order("T1")).send().await;
    assert!(
        matches!(again, Err(ddb_runtime::Error::AlreadyExists { .. })),
        "{again:?}"
    );

    // A transaction sent again after a conflict is one span per request,
    // each counting its own attempts.
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail(
        "TransactWriteItems",
        1,
        ddb_tests::proxy::Fault::TransactionConflict,
    );
    through
        .transact_write()
        .create(&order("T9"))
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("TransactWriteItems"), 2, "sent again once");

    let spans = capture.spans.lock().unwrap().clone();
    let failed: Vec<&str> = spans
        .iter()
        .filter_map(|s| s.get("error.type").map(String::as_str))
        .collect();
    assert_eq!(
        failed,
        [
            "ConditionalCheckFailedException",
            "TransactionCanceledException"
        ],
        "the create met its item, the transaction its conflict: {spans:?}"
    );
    let operations: Vec<&str> = spans
        .iter()
        .map(|s| s["db.operation.name"].as_str())
        .collect();
    for operation in [
        "PutItem",
        "UpdateItem",
        "GetItem",
        "Query",
        "BatchWriteItem",
        "TransactWriteItems",
    ] {
        assert!(
            operations.contains(&operation),
            "{operation}: {operations:?}"
        );
    }
    for span in &spans {
        assert_eq!(span["db.system.name"], "aws.dynamodb", "{span:?}");
        assert_eq!(span["db.collection.name"], table, "{span:?}");
        if !span.contains_key("error.type") && capacity {
            assert!(span.contains_key("ddb.capacity_units"), "{span:?}");
            assert!(span.contains_key("ddb.items"), "{span:?}");
        }
        assert_no_key_values(span, format_args!("a span: {span:?}"));
    }
    let query = spans
        .iter()
        .find(|s| s["db.operation.name"] == "Query")
        .unwrap();
    assert!(!query.contains_key("aws.dynamodb.index_name"), "{query:?}");
    assert!(query["ddb.attempts"].parse::<u32>().unwrap() >= 1);
    let resent: Vec<&Fields> = spans
        .iter()
        .filter(|s| s["db.operation.name"] == "TransactWriteItems")
        .skip(1)
        .collect();
    assert_eq!(resent.len(), 2, "the conflict, then the applied resend");
    let (conflict, applied) = (resent[0], resent[1]);
    assert_eq!(
        conflict["error.type"], "TransactionCanceledException",
        "{conflict:?}"
    );
    assert_eq!(conflict["ddb.attempts"], "1", "{conflict:?}");
    assert_eq!(applied["ddb.attempts"], "1", "{applied:?}");
    assert!(!applied.contains_key("error.type"), "{applied:?}");
}

/// The report's write cost of each entity, from a sample item, is
/// what DynamoDB reports for writing it, table and indexes.
#[tokio::test]
async fn the_cost_report_matches_what_dynamodb_reports() {
    ddb_tests::requires!(CapacityByItemSize);
    use ddb_examples::single_table::{Customer, OrderItem};
    use ddb_examples::ProductId;
    use ddb_runtime::Entity;
    use ddb_tools::cost::{cost_report, write_cost};
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let customer = Customer {
        customer_id: CustomerId("C9".into()),
        name: "A".repeat(1500),
        email: "c9@example.com".into(),
        order_count: 0,
    };
    let line = OrderItem {
        order_id: OrderId("O9".into()),
        product_id: ProductId("P9".into()),
        quantity: 1,
        price_cents: 100,
    };
    let open = order("O9");
    let mut shipped = order("O10");
    shipped.status = OrderStatus::Shipped;

    async fn check<E: Entity + 'static>(db: &ddb_runtime::Db, entity: &E) {
        let item = entity.to_item().unwrap();
        let predicted = write_cost(&E::SCHEMA, &item);
        let (_, reported) = db.create(entity).send_with_capacity().await.unwrap();
        assert_eq!(
            reported.total,
            predicted.total(),
            "{predicted:?} vs {reported:?}"
        );
        assert_eq!(reported.table, predicted.table);
        let mut reported_indexes: Vec<String> =
            reported.indexes.iter().map(|(n, _)| n.clone()).collect();
        let mut predicted_indexes: Vec<String> = predicted
            .indexes
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        reported_indexes.sort();
        predicted_indexes.sort();
        assert_eq!(reported_indexes, predicted_indexes);
    }
    check(&db, &customer).await;
    check(&db, &line).await;
    check(&db, &open).await;
    check(&db, &shipped).await;

    let report = cost_report(
        &[
            (&Customer::SCHEMA, customer.to_item().unwrap()),
            (&Order::SCHEMA, open.to_item().unwrap()),
        ],
        100,
    );
    assert!(report.contains("| Customer |"), "{report}");
    assert!(report.contains("GSI2"), "{report}");
}

/// An error ddb handles as an answer is no failure on its span: the table
/// `create_table` finds existing, the one `plan_sync` probes for and does
/// not find. A failure DynamoDB answered carries its code in
/// `db.response.status_code`, and a table operation counts its attempts.
#[tokio::test]
async fn handled_errors_are_answers_and_failures_carry_dynamodb_s_code() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let capture = Capture::default();
    let _one = ddb_tests::one_subscriber_at_a_time().await;
    let _guard = tracing::subscriber::set_default(capture.clone());
    tracing::callsite::rebuild_interest_cache();

    let existing = db.create_table::<Ecommerce>().await.unwrap();
    assert_eq!(existing, ddb_runtime::schema::TableCreated::AlreadyExisted);
    let missing =
        db.with_table_name::<Ecommerce>(format!("{}-missing", db.table_name::<Ecommerce>()));
    let plan = missing.plan_sync::<Ecommerce>().await.unwrap();
    assert!(!plan.changes.is_empty());
    db.create(&order("T1")).send().await.unwrap();
    // Met by its own item: `AlreadyExisted`, from a failed condition.
    db.create(&order("T1")).send().await.unwrap();

    let spans = capture.spans.lock().unwrap().clone();
    let of = |operation: &str| -> Vec<&Fields> {
        spans
            .iter()
            .filter(|s| s["db.operation.name"] == operation)
            .collect()
    };
    let create_table = of("CreateTable");
    assert_eq!(create_table.len(), 1, "{spans:?}");
    for handled in create_table.iter().chain(&of("DescribeTable")) {
        assert!(!handled.contains_key("error.type"), "{handled:?}");
        assert!(!handled.contains_key("otel.status_code"), "{handled:?}");
        assert_eq!(
            handled.get("ddb.attempts").map(String::as_str),
            Some("1"),
            "{handled:?}"
        );
    }
    let puts = of("PutItem");
    let codes: Vec<Option<&str>> = puts
        .iter()
        .map(|s| s.get("db.response.status_code").map(String::as_str))
        .collect();
    assert_eq!(
        codes,
        [None, Some("ConditionalCheckFailedException")],
        "{puts:?}"
    );
    assert_eq!(puts[1]["error.type"], "ConditionalCheckFailedException");
}

/// A batch that gives up on items DynamoDB keeps leaving unprocessed
/// fails the span of its last request, which left them: each request was
/// answered, but the operation did not complete. The requests before it,
/// whose leftovers were sent again, are answers.
#[tokio::test]
async fn a_batch_that_gives_up_on_unprocessed_items_fails_its_last_request() {
    use ddb_tests::proxy::Fault;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let through = crate::batches::fast_batches(&through);
    proxy.fail("BatchWriteItem", 100, Fault::Unprocessed(Some(1)));
    proxy.fail("BatchGetItem", 100, Fault::Unprocessed(Some(1)));
    let capture = Capture::default();
    let _one = ddb_tests::one_subscriber_at_a_time().await;
    let _guard = tracing::subscriber::set_default(capture.clone());
    tracing::callsite::rebuild_interest_cache();

    let orders = [order("T1"), order("T2")];
    let written = through.batch_put(&orders).await;
    assert!(written.is_err(), "{written:?}");
    let keys = orders
        .iter()
        .map(|o| ddb_runtime::Entity::primary_key(o).unwrap());
    let read = through.batch_get(keys.collect()).await;
    assert!(read.is_err(), "{read:?}");

    let spans = capture.spans.lock().unwrap().clone();
    for operation in ["BatchWriteItem", "BatchGetItem"] {
        let sent: Vec<&Fields> = spans
            .iter()
            .filter(|s| s["db.operation.name"] == operation)
            .collect();
        assert_eq!(sent.len(), 3, "{operation}: {sent:?}");
        let failed: Vec<Option<&str>> = sent
            .iter()
            .map(|s| s.get("error.type").map(String::as_str))
            .collect();
        assert_eq!(failed, [None, None, Some("Unprocessed")], "{sent:?}");
        let last = sent[2];
        assert_eq!(last["otel.status_code"], "error", "{last:?}");
        assert_eq!(last["ddb.error"], "Unprocessed", "{last:?}");
        // DynamoDB answered with success: no code of its own.
        assert!(!last.contains_key("db.response.status_code"), "{last:?}");
    }
}

/// Fails when an attribute of a span, `aws.request_id` aside, holds a key
/// value or item content of the fixtures these tests write (the customer
/// `Ada`, a `CUSTOMER#` key, the tenant `T1`). The server's request id is
/// random text, which may hold any of these by chance.
pub(crate) fn assert_no_key_values<N, V>(
    attributes: impl IntoIterator<Item = (N, V)>,
    context: impl std::fmt::Display,
) where
    N: AsRef<str>,
    V: AsRef<str>,
{
    let values = attributes
        .into_iter()
        .filter(|(name, _)| name.as_ref() != "aws.request_id");
    for (_, value) in values {
        let value = value.as_ref();
        assert!(
            !value.contains("Ada") && !value.contains("CUSTOMER#") && !value.contains("T1"),
            "a key value or item content in {context}"
        );
    }
}
