//! What ddb adds to each request, with the server taken out: an HTTP client
//! inside the process answers every request at once with a fixed DynamoDB
//! response, so what is measured is the client's own work (the SDK's
//! serialization, signing and orchestration, and ddb's) for one operation,
//! next to the hand-written SDK call that sends the same request.
//!
//! `cargo bench -p ddb-runtime --features time --bench request` (with
//! `--features time,cache`, a hit of the read-through cache too). Before
//! measuring, each pair's two requests are compared: their JSON bodies must
//! be equal, so both sides do the same work on the wire. It then prints the
//! allocations each side makes per request, counted by this binary's global
//! allocator (the system allocator, as in any Rust program, with a count
//! added): unlike times, they do not move from run to run. The end-to-end bench
//! (`cargo run --release -p ddb-examples --example bench`) measures the same
//! operations against a real server.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::{
    BehaviorVersion, Credentials, HttpClient, Region, RuntimeComponents,
};
use aws_sdk_dynamodb::types::{
    AttributeValue, KeysAndAttributes, Put, PutRequest, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use aws_smithy_runtime_api::client::http::{
    HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_types::body::SdkBody;
use criterion::{criterion_group, criterion_main, Criterion};
use ddb_runtime::Db;

mod common;
use common::{by_hand, from_hand, order, Order};

type Item = HashMap<String, AttributeValue>;

/// The system allocator, counting allocations and the bytes they ask for.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED: AtomicU64 = AtomicU64::new(0);

fn count(bytes: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    ALLOCATED.fetch_add(bytes as u64, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and bytes allocated per call of `request`, over 20 calls.
async fn allocations<F: Future>(mut request: impl FnMut() -> F) -> (f64, f64) {
    const CALLS: u64 = 20;
    let (calls, bytes) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        ALLOCATED.load(Ordering::Relaxed),
    );
    for _ in 0..CALLS {
        request().await;
    }
    let per_call = |now: u64, before: u64| (now - before) as f64 / CALLS as f64;
    (
        per_call(ALLOCATIONS.load(Ordering::Relaxed), calls),
        per_call(ALLOCATED.load(Ordering::Relaxed), bytes),
    )
}

/// Prints the allocations per request of a pair: ddb's side, then the
/// hand-written one.
fn print_allocations(operation: &str, ddb: (f64, f64), by_hand: (f64, f64)) {
    println!(
        "{operation}: allocations per request: ddb {:.0} ({:.1} KB), by hand {:.0} ({:.1} KB)",
        ddb.0,
        ddb.1 / 1024.0,
        by_hand.0,
        by_hand.1 / 1024.0,
    );
}

/// Answers each DynamoDB operation with a fixed response, and keeps the
/// last request body of each operation so that two sides can be compared.
#[derive(Debug, Clone, Default)]
struct Answers {
    responses: Arc<HashMap<&'static str, String>>,
    last_body: Arc<Mutex<HashMap<String, String>>>,
    recording: Arc<std::sync::atomic::AtomicBool>,
}

impl HttpConnector for Answers {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let target = request.headers().get("x-amz-target").unwrap_or_default();
        let operation = target.rsplit('.').next().unwrap_or_default().to_owned();
        if self.recording.load(std::sync::atomic::Ordering::Relaxed) {
            let body = String::from_utf8_lossy(request.body().bytes().unwrap_or_default());
            let mut last = self.last_body.lock().unwrap();
            last.insert(operation.clone(), body.into_owned());
        }
        let body = self
            .responses
            .get(operation.as_str())
            .cloned()
            .unwrap_or_else(|| "{}".into());
        let mut response = HttpResponse::new(200.try_into().unwrap(), SdkBody::from(body));
        response
            .headers_mut()
            .insert("content-type", "application/x-amz-json-1.0");
        HttpConnectorFuture::ready(Ok(response))
    }
}

impl HttpClient for Answers {
    fn http_connector(
        &self,
        _: &HttpConnectorSettings,
        _: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

/// DynamoDB's JSON of an item of strings and numbers.
fn item_json(item: &Item) -> String {
    let attributes: Vec<String> = item
        .iter()
        .map(|(name, value)| match value {
            AttributeValue::S(s) => format!("{name:?}:{{\"S\":{s:?}}}"),
            AttributeValue::N(n) => format!("{name:?}:{{\"N\":{n:?}}}"),
            other => panic!("the bench item has only strings and numbers, not {other:?}"),
        })
        .collect();
    format!("{{{}}}", attributes.join(","))
}

/// The orders a batch get reads: A0 to A99, at version 1.
fn hundred() -> Vec<Order> {
    (0..100)
        .map(|i| Order {
            order_id: format!("A{i}"),
            version: 1,
            ..order()
        })
        .collect()
}

fn answers() -> Answers {
    let item = item_json(&by_hand(&order()));
    let found: Vec<String> = hundred().iter().map(|o| item_json(&by_hand(o))).collect();
    let written = r#"{"TableName":"Ecommerce","CapacityUnits":2.0,"Table":{"CapacityUnits":1.0},"GlobalSecondaryIndexes":{"GSI1":{"CapacityUnits":1.0}}}"#;
    let read = r#"{"TableName":"Ecommerce","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}"#;
    // A page of 20 read with one item past it: 21 items.
    let page = vec![item.as_str(); 21].join(",");
    let responses = HashMap::from([
        ("PutItem", format!(r#"{{"ConsumedCapacity":{written}}}"#)),
        ("UpdateItem", format!(r#"{{"ConsumedCapacity":{written}}}"#)),
        (
            "GetItem",
            format!(r#"{{"Item":{item},"ConsumedCapacity":{read}}}"#),
        ),
        (
            "Query",
            format!(
                r#"{{"Items":[{page}],"Count":21,"ScannedCount":21,"LastEvaluatedKey":{{"PK":{{"S":"CUSTOMER#C1"}},"SK":{{"S":"ORDER#2026-01-01T00:00:00Z#B00001"}}}},"ConsumedCapacity":{read}}}"#
            ),
        ),
        (
            "TransactWriteItems",
            format!(r#"{{"ConsumedCapacity":[{written}]}}"#),
        ),
        (
            "BatchGetItem",
            format!(
                r#"{{"Responses":{{"Ecommerce":[{}]}},"UnprocessedKeys":{{}},"ConsumedCapacity":[{read}]}}"#,
                found.join(",")
            ),
        ),
    ]);
    Answers {
        responses: Arc::new(responses),
        ..Answers::default()
    }
}

fn client(answers: &Answers) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "bench"))
        .endpoint_url("http://localhost:8000")
        .http_client(answers.clone())
        .build();
    Client::from_conf(config)
}

/// The hand-written requests, each the same as ddb's.
mod raw {
    use super::*;

    /// An order's table key, assembled by hand.
    pub fn key_by_hand(order: &Order) -> Item {
        let at = order
            .placed_at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap();
        Item::from([
            (
                "PK".to_owned(),
                AttributeValue::S(format!("CUSTOMER#{}", order.customer_id.0)),
            ),
            (
                "SK".to_owned(),
                AttributeValue::S(format!("ORDER#{at}#{}", order.order_id)),
            ),
        ])
    }

    pub async fn create(client: &Client, order: &Order) {
        client
            .put_item()
            .table_name("Ecommerce")
            .set_item(Some(by_hand(order)))
            .condition_expression("attribute_not_exists(PK)")
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await
            .unwrap();
    }

    pub async fn get(client: &Client, order: &Order) -> Order {
        let output = client
            .get_item()
            .table_name("Ecommerce")
            .set_key(Some(key_by_hand(order)))
            .send()
            .await
            .unwrap();
        from_hand(output.item.unwrap()).unwrap()
    }

    /// The 20 newest orders and whether more follow: one item more read
    /// than returned tells.
    pub async fn query(client: &Client, customer: &str) -> (Vec<Order>, bool) {
        let output = client
            .query()
            .table_name("Ecommerce")
            .key_condition_expression("PK = :v0 AND begins_with(SK, :v1)")
            .expression_attribute_values(":v0", AttributeValue::S(format!("CUSTOMER#{customer}")))
            .expression_attribute_values(":v1", AttributeValue::S("ORDER#".into()))
            .scan_index_forward(false)
            .limit(21)
            .send()
            .await
            .unwrap();
        let mut items = output.items.unwrap_or_default();
        let more = items.len() > 20;
        items.truncate(20);
        let orders = items
            .into_iter()
            .map(|item| from_hand(item).unwrap())
            .collect();
        (orders, more)
    }

    pub async fn ship(client: &Client, order: &Order) {
        client
            .update_item()
            .table_name("Ecommerce")
            .set_key(Some(key_by_hand(order)))
            .update_expression("SET #n0 = :v0 ADD version :v1")
            .condition_expression("attribute_exists(PK) AND attribute_not_exists(#n1)")
            .expression_attribute_names("#n0", "status")
            .expression_attribute_names("#n1", "_schema")
            .expression_attribute_values(":v0", AttributeValue::S("SHIPPED".into()))
            .expression_attribute_values(":v1", AttributeValue::N("1".into()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await
            .unwrap();
    }

    pub async fn batch_put(client: &Client, orders: &[Order]) {
        let requests = orders.iter().map(|order| {
            let put = PutRequest::builder()
                .set_item(Some(by_hand(order)))
                .build()
                .unwrap();
            WriteRequest::builder().put_request(put).build()
        });
        client
            .batch_write_item()
            .request_items("Ecommerce", requests.collect())
            .send()
            .await
            .unwrap();
    }

    pub async fn batch_get(client: &Client, orders: &[Order]) -> Vec<Order> {
        let keys = orders.iter().map(key_by_hand);
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys.collect()))
            .build()
            .unwrap();
        let output = client
            .batch_get_item()
            .request_items("Ecommerce", request)
            .send()
            .await
            .unwrap();
        let mut items = output.responses.unwrap_or_default();
        let found = items.remove("Ecommerce").unwrap_or_default();
        found
            .into_iter()
            .map(|item| from_hand(item).unwrap())
            .collect()
    }

    pub async fn transaction(client: &Client, orders: &[Order]) {
        let actions = orders.iter().map(|order| {
            let put = Put::builder()
                .table_name("Ecommerce")
                .set_item(Some(by_hand(order)))
                .condition_expression("attribute_not_exists(PK)")
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .build()
                .unwrap();
            TransactWriteItem::builder().put(put).build()
        });
        client
            .transact_write_items()
            .set_transact_items(Some(actions.collect()))
            .send()
            .await
            .unwrap();
    }
}

/// ddb's side of each pair.
mod typed {
    use super::*;

    pub async fn create(db: &Db, order: &Order) {
        db.create(order).send().await.unwrap();
    }

    pub async fn get(db: &Db, order: &Order) -> Order {
        let key = Order::key(&order.customer_id, &order.placed_at, &order.order_id).unwrap();
        db.get(key).send().await.unwrap().unwrap()
    }

    /// The 20 newest orders and whether more follow (read one past the
    /// page, ddb's default).
    pub async fn query(db: &Db, customer: &str) -> (Vec<Order>, bool) {
        let page = db
            .query(Order::by_customer(&common::CustomerId(customer.into())))
            .newest_first(true)
            .limit(20)
            .send()
            .await
            .unwrap();
        (page.items, page.has_more == Some(true))
    }

    pub async fn ship(db: &Db, order: &Order) {
        let key = Order::key(&order.customer_id, &order.placed_at, &order.order_id).unwrap();
        db.update(key)
            .set(Order::fields().status, "SHIPPED".to_owned())
            .send()
            .await
            .unwrap();
    }

    pub async fn exactly_once_create(db: &Db, order: &Order) {
        db.create(order).exactly_once(true).send().await.unwrap();
    }

    pub async fn batch_put(db: &Db, orders: &[Order]) {
        db.batch_put(orders).await.unwrap();
    }

    pub async fn batch_get(db: &Db, orders: &[Order]) -> Vec<Order> {
        let keys = orders
            .iter()
            .map(|o| Order::key(&o.customer_id, &o.placed_at, &o.order_id).unwrap());
        db.batch_get(keys.collect()).await.unwrap()
    }

    pub async fn transaction(db: &Db, orders: &[Order]) {
        let mut transaction = db.transact_write();
        for order in orders {
            transaction = transaction.create(order);
        }
        transaction.send().await.unwrap();
    }
}

/// The bodies of the last request of `operation` sent by each side, which
/// must be the same JSON (but for a transaction's ClientRequestToken, which
/// is unique to each request).
fn same_request(answers: &Answers, operation: &str, typed: String) {
    let raw = answers.last_body.lock().unwrap()[operation].clone();
    let parse = |body: &str| {
        let mut json = serde_json::from_str::<serde_json::Value>(body).unwrap();
        json.as_object_mut().unwrap().remove("ClientRequestToken");
        json
    };
    assert_eq!(
        parse(&typed),
        parse(&raw),
        "{operation}: ddb sent {typed}, the hand-written code {raw}"
    );
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answers = answers();
    let client = client(&answers);
    let db = Db::new(client.clone()).with_table_name::<common::Ecommerce>("Ecommerce");
    // A created order is at version 1.
    let order = Order {
        version: 1,
        ..order()
    };
    let orders: Vec<Order> = (0..4)
        .map(|i| Order {
            order_id: format!("A{i}"),
            ..order.clone()
        })
        .collect();

    let batch: Vec<Order> = (0..25)
        .map(|i| Order {
            order_id: format!("B{i}"),
            ..order.clone()
        })
        .collect();

    let hundred = hundred();

    // The two sides send the same requests.
    answers
        .recording
        .store(true, std::sync::atomic::Ordering::Relaxed);
    runtime.block_on(async {
        let last = |operation: &str| answers.last_body.lock().unwrap()[operation].clone();
        typed::create(&db, &order).await;
        let typed_put = last("PutItem");
        raw::create(&client, &order).await;
        same_request(&answers, "PutItem", typed_put);
        assert_eq!(
            typed::get(&db, &order).await,
            raw::get(&client, &order).await
        );
        let typed_get = last("GetItem");
        raw::get(&client, &order).await;
        same_request(&answers, "GetItem", typed_get);
        assert_eq!(
            typed::query(&db, "123").await,
            raw::query(&client, "123").await
        );
        typed::query(&db, "123").await;
        let typed_query = last("Query");
        raw::query(&client, "123").await;
        same_request(&answers, "Query", typed_query);
        typed::ship(&db, &order).await;
        let typed_update = last("UpdateItem");
        raw::ship(&client, &order).await;
        same_request(&answers, "UpdateItem", typed_update);
        typed::transaction(&db, &orders).await;
        let typed_transaction = last("TransactWriteItems");
        raw::transaction(&client, &orders).await;
        same_request(&answers, "TransactWriteItems", typed_transaction);
        typed::exactly_once_create(&db, &order).await;
        let typed_transaction = last("TransactWriteItems");
        raw::transaction(&client, std::slice::from_ref(&order)).await;
        same_request(&answers, "TransactWriteItems", typed_transaction);
        assert_eq!(
            typed::batch_get(&db, &hundred).await,
            raw::batch_get(&client, &hundred).await
        );
        typed::batch_get(&db, &hundred).await;
        let typed_get = last("BatchGetItem");
        raw::batch_get(&client, &hundred).await;
        same_request(&answers, "BatchGetItem", typed_get);
        typed::batch_put(&db, &batch).await;
        let typed_batch = last("BatchWriteItem");
        raw::batch_put(&client, &batch).await;
        same_request(&answers, "BatchWriteItem", typed_batch);
    });
    answers
        .recording
        .store(false, std::sync::atomic::Ordering::Relaxed);

    // Each pair once: the operation, the name of ddb's side, ddb's call
    // and the hand-written one. It is counted, then measured.
    macro_rules! for_each_pair {
        ($each:ident) => {
            $each!(
                "PutItem",
                "ddb create",
                typed::create(&db, &order),
                raw::create(&client, &order)
            );
            $each!(
                "GetItem",
                "ddb get",
                typed::get(&db, &order),
                raw::get(&client, &order)
            );
            $each!(
                "Query of 20",
                "ddb query",
                typed::query(&db, "123"),
                raw::query(&client, "123")
            );
            $each!(
                "UpdateItem",
                "ddb update",
                typed::ship(&db, &order),
                raw::ship(&client, &order)
            );
            $each!(
                "TransactWriteItems of 4",
                "ddb transaction",
                typed::transaction(&db, &orders),
                raw::transaction(&client, &orders)
            );
            $each!(
                "TransactWriteItems of 1",
                "ddb exactly-once create",
                typed::exactly_once_create(&db, &order),
                raw::transaction(&client, std::slice::from_ref(&order))
            );
            $each!(
                "BatchGetItem of 100",
                "ddb batch_get",
                typed::batch_get(&db, &hundred),
                raw::batch_get(&client, &hundred)
            );
            $each!(
                "BatchWriteItem of 25",
                "ddb batch_put",
                typed::batch_put(&db, &batch),
                raw::batch_put(&client, &batch)
            );
        };
    }

    runtime.block_on(async {
        macro_rules! count {
            ($operation:literal, $name:literal, $ddb:expr, $by_hand:expr) => {
                print_allocations(
                    $operation,
                    allocations(|| $ddb).await,
                    allocations(|| $by_hand).await,
                );
            };
        }
        for_each_pair!(count);
    });

    let mut group = c.benchmark_group("request");
    macro_rules! measure {
        ($operation:literal, $name:literal, $ddb:expr, $by_hand:expr) => {
            group.bench_function(concat!($operation, ": ", $name), |b| {
                b.to_async(&runtime).iter(|| $ddb)
            });
            group.bench_function(concat!($operation, ": by hand"), |b| {
                b.to_async(&runtime).iter(|| $by_hand)
            });
        };
    }
    for_each_pair!(measure);
    // A hit of the read-through cache sends nothing: its cost is the
    // client's alone, next to the GetItem it saves.
    #[cfg(feature = "cache")]
    {
        let limits =
            ddb_runtime::cache::CacheLimits::new(1000, std::time::Duration::from_secs(3600));
        let cache = db.cache::<Order>(limits);
        let key = Order::key(&order.customer_id, &order.placed_at, &order.order_id).unwrap();
        runtime.block_on(cache.get(key.clone())).unwrap();
        group.bench_function("GetItem: ddb cache hit", |b| {
            b.to_async(&runtime).iter(|| cache.get(key.clone()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
