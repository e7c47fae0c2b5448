//! Fault campaigns. Each runs its operations through the fault proxy,
//! then scans the raw table with the plain SDK (not through ddb) and counts
//! what went wrong: items lost, items duplicated, wrong outcomes (a create
//! reported as a conflict, an update applied twice, a page item missing or
//! repeated) and index entries out of step with their items. Those four must
//! be zero; outcomes ddb reported as unknown (a lost answer it cannot
//! resolve) are counted apart, and checked to be the only slack.
//!
//! The suite runs each campaign small. The full sizes, printed as the
//! table in `docs/reliability.md`:
//!
//! ```text
//! DDB_CAMPAIGNS=full cargo test --release -p ddb-tests --test it campaigns -- --nocapture --test-threads 1
//! ```

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ddb_examples::single_table::{Customer, CustomerItem, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::batch::RetryPolicy;
use ddb_runtime::{Created, Db, Entity, Error, Item, Table};
use ddb_tests::proxy::{Fault, Proxy};
use futures::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use time::macros::datetime;

const THROTTLE: Fault = Fault::Error(400, "ThrottlingException");
const SERVER_ERROR: Fault = Fault::Error(500, "InternalServerError");
/// Concurrent callers in every campaign.
const CALLERS: usize = 16;

fn full() -> bool {
    std::env::var("DDB_CAMPAIGNS").is_ok_and(|v| v == "full")
}

/// The suite's size, or the full size under `DDB_CAMPAIGNS=full`.
fn size(small: usize, full_size: usize) -> usize {
    if full() {
        full_size
    } else {
        small
    }
}

/// One row of the campaign table.
#[derive(Default)]
struct Row {
    campaign: String,
    operations: usize,
    faults: Vec<String>,
    lost: usize,
    duplicated: usize,
    wrong: usize,
    out_of_step: usize,
    unknown: usize,
    failed: usize,
}

impl Row {
    fn new(campaign: impl Into<String>, operations: usize) -> Self {
        Row {
            campaign: campaign.into(),
            operations,
            ..Row::default()
        }
    }

    /// Records the faults the proxy injected into `targets`.
    fn faults(mut self, proxy: &Proxy, targets: &[&str]) -> Self {
        for target in targets {
            for (kind, count) in proxy.injected_by_kind(target) {
                self.faults.push(format!("{target} {kind}: {count}"));
            }
        }
        self
    }

    /// Prints the row and checks the promised zeros.
    fn report(self) {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.campaign,
            self.operations,
            self.faults.join("; "),
            self.lost,
            self.duplicated,
            self.wrong,
            self.out_of_step,
            self.unknown,
            self.failed
        );
        assert!(
            !self.faults.is_empty(),
            "{}: no fault was injected",
            self.campaign
        );
        assert_eq!(
            (self.lost, self.duplicated, self.wrong, self.out_of_step),
            (0, 0, 0, 0),
            "{}: lost, duplicated, wrong, out of step",
            self.campaign
        );
    }
}

/// A proxy in front of `db`'s table, and a `Db` through it whose SDK client
/// retries as a service under sustained faults would be configured to.
async fn through_proxy(db: &Db) -> (Proxy, Db) {
    through_proxy_to::<Ecommerce>(db).await
}

/// [`through_proxy`] to the table of `T`.
async fn through_proxy_to<T: Table + 'static>(db: &Db) -> (Proxy, Db) {
    let proxy = Proxy::start(ddb_tests::local().endpoint())
        .await
        .expect("start the fault proxy");
    let through = Db::new(ddb_tests::patient_client(&proxy))
        .with_table_name::<T>(db.table_name::<T>())
        .with_retry_policy(RetryPolicy {
            max_attempts: 30,
            base: std::time::Duration::from_millis(2),
            cap: std::time::Duration::from_millis(20),
            ..RetryPolicy::default()
        });
    (proxy, through)
}

fn customer(i: usize) -> Customer {
    Customer {
        customer_id: CustomerId(format!("C{i}")),
        name: format!("Customer {i}"),
        email: format!("c{i}@example.com"),
        order_count: 0,
    }
}

fn order(customer: usize, i: usize) -> Order {
    Order {
        customer_id: CustomerId(format!("C{customer}")),
        order_id: OrderId(format!("O{i}")),
        placed_at: datetime!(2026-10-02 14:31:07 UTC) + time::Duration::seconds(i as i64),
        status: OrderStatus::Open,
        total_cents: 100 + i as u64,
        version: 0,
    }
}

fn line(order: usize, product: usize) -> OrderItem {
    OrderItem {
        order_id: OrderId(format!("O{order}")),
        product_id: ProductId(format!("P{product}")),
        quantity: 1,
        price_cents: 100,
    }
}

/// The raw table: every item by its `PK`/`SK`.
struct Stored {
    items: HashMap<(String, String), Item>,
    /// Items the scan returned twice.
    repeated: usize,
}

impl Stored {
    fn contains(&self, key: &Item) -> bool {
        self.items.contains_key(&key_of(key))
    }

    /// Items stored twice, or at a key the campaign did not write.
    fn duplicated(&self, written: &HashSet<(String, String)>) -> usize {
        self.repeated + self.items.keys().filter(|k| !written.contains(*k)).count()
    }
}

async fn scan(db: &Db) -> Stored {
    let raw = ddb_tests::scan_raw::<Ecommerce>(db).await;
    let total = raw.len();
    let items: HashMap<_, _> = raw.into_iter().map(|item| (key_of(&item), item)).collect();
    Stored {
        repeated: total - items.len(),
        items,
    }
}

fn keys<'a>(keys: impl IntoIterator<Item = &'a Item>) -> HashSet<(String, String)> {
    keys.into_iter().map(key_of).collect()
}

fn key_of(item: &Item) -> (String, String) {
    (
        item["PK"].as_s().unwrap().clone(),
        item["SK"].as_s().unwrap().clone(),
    )
}

/// Stored orders whose index attributes are not what their fields make them.
fn out_of_step(items: &HashMap<(String, String), Item>) -> usize {
    let index_attributes = ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"];
    items
        .values()
        .filter(|item| {
            item.get("_type")
                .and_then(|t| t.as_s().ok())
                .map(String::as_str)
                == Some("Order")
        })
        .filter(|stored| {
            let expected = Order::from_item((*stored).clone())
                .and_then(|order| order.to_item())
                .expect("a stored order decodes");
            index_attributes
                .iter()
                .any(|a| stored.get(*a) != expected.get(*a))
        })
        .count()
}

async fn creates(exactly_once: bool) {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = through_proxy(&db).await;
    let through = if exactly_once {
        through.with_exactly_once_writes()
    } else {
        through
    };
    let target = if exactly_once {
        "TransactWriteItems"
    } else {
        "PutItem"
    };
    proxy.fail_randomly(target, 0.2, 11, THROTTLE);
    proxy.fail_randomly(target, 0.1, 12, Fault::DropResponse);
    proxy.fail_randomly(target, 0.1, 13, SERVER_ERROR);
    let n = size(200, 2_000);
    let outcomes: Vec<_> = futures::stream::iter(0..n)
        .map(|i| {
            let through = through.clone();
            async move { (i, through.create(&customer(i)).send().await) }
        })
        .buffer_unordered(CALLERS)
        .collect()
        .await;
    let stored = scan(&db).await;
    let mode = if exactly_once {
        "exactly once"
    } else {
        "plain"
    };
    let mut row = Row::new(format!("idempotent creates ({mode})"), n).faults(&proxy, &[target]);
    let written: Vec<Item> = (0..n)
        .map(|i| Customer::key(&customer(i).customer_id).unwrap().to_item())
        .collect();
    for (i, outcome) in outcomes {
        let present = stored.contains(&written[i]);
        match outcome {
            Ok(Created::Created) if present => {}
            Ok(Created::Created) => row.lost += 1,
            // Every id is new: only this call can have written it.
            Ok(Created::AlreadyExisted) => row.wrong += 1,
            Err(Error::WriteOutcomeUnknown { .. }) => row.unknown += 1,
            // Any other failure says nothing was written.
            Err(_) if present => row.wrong += 1,
            Err(_) => row.failed += 1,
        }
    }
    row.duplicated = stored.duplicated(&keys(&written));
    if exactly_once {
        assert_eq!(row.unknown, 0, "exactly once leaves no outcome unknown");
    }
    row.report();
}

/// "Place an order" under an idempotency key: each call tried once
/// through faults, then tried again with a fresh timestamp (a new item
/// key) and the same key. Exactly one order per key, and every call that
/// answers tells the same key.
#[tokio::test]
async fn orders_placed_under_idempotency_keys() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = through_proxy(&db).await;
    let target = "TransactWriteItems";
    proxy.fail_randomly(target, 0.2, 21, THROTTLE);
    proxy.fail_randomly(target, 0.15, 22, Fault::DropResponse);
    proxy.fail_randomly(target, 0.1, 23, Fault::TransactionConflict);
    let n = size(200, 2_000);
    let outcomes: Vec<_> = futures::stream::iter(0..n)
        .map(|i| {
            let through = through.clone();
            async move {
                let request = format!("req-{i}");
                let first = through
                    .create(&order(i % 7, i))
                    .idempotency_key(&request)
                    .send()
                    .await;
                // The client's retry: a new timestamp, so a new item key.
                let mut again = order(i % 7, i);
                again.placed_at += time::Duration::days(1);
                let second = through
                    .create(&again)
                    .idempotency_key(&request)
                    .send()
                    .await;
                (i, first, second)
            }
        })
        .buffer_unordered(CALLERS)
        .collect()
        .await;
    let stored = scan(&db).await;
    let mut row = Row::new(
        "orders placed under idempotency keys, each tried twice",
        2 * n,
    )
    .faults(&proxy, &[target]);
    let mut orders_of: HashMap<String, usize> = HashMap::new();
    for item in stored.items.values() {
        if item
            .get("_type")
            .and_then(|t| t.as_s().ok())
            .map(String::as_str)
            == Some("Order")
        {
            let order = Order::from_item(item.clone()).expect("a stored order decodes");
            *orders_of.entry(order.order_id.0).or_default() += 1;
        }
    }
    for (i, first, second) in outcomes {
        let count = orders_of.get(&format!("O{i}")).copied().unwrap_or(0);
        row.lost += usize::from(count == 0 && (first.is_ok() || second.is_ok()));
        row.duplicated += count.saturating_sub(1);
        match (&first, &second) {
            (Ok(a), Ok(b)) if a.key != b.key || b.created != Created::AlreadyExisted => {
                row.wrong += 1
            }
            (Ok(a), Ok(_)) if a.created != Created::Created => row.wrong += 1,
            (Ok(_), Ok(_)) => {}
            (Err(Error::WriteOutcomeUnknown { .. }), _)
            | (_, Err(Error::WriteOutcomeUnknown { .. })) => row.unknown += 1,
            (_, Err(_)) => row.failed += 1,
            (Err(_), Ok(_)) => {}
        }
    }
    row.report();
}

#[tokio::test]
async fn idempotent_creates() {
    creates(false).await;
}

#[tokio::test]
async fn idempotent_creates_exactly_once() {
    creates(true).await;
}

#[tokio::test]
async fn batch_writes() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = through_proxy(&db).await;
    // Every request that is not throttled keeps back 30% of its items.
    proxy.fail_randomly("BatchWriteItem", 0.1, 21, THROTTLE);
    proxy.fail_randomly("BatchWriteItem", 1.0, 22, Fault::UnprocessedShare(0.3));
    let n = size(500, 5_000);
    let lines: Vec<OrderItem> = (0..n).map(|i| line(i / 10, i % 10)).collect();
    let chunks: Vec<Vec<OrderItem>> = lines.chunks(n / 4).map(<[_]>::to_vec).collect();
    let results =
        futures::future::join_all(chunks.iter().map(|chunk| through.batch_put(chunk))).await;
    let stored = scan(&db).await;
    let mut row = Row::new("batch writes", n).faults(&proxy, &["BatchWriteItem"]);
    let written: Vec<Item> = lines
        .iter()
        .map(|l| l.primary_key().unwrap().to_item())
        .collect();
    let text_of = |l: &OrderItem| format!("ORDER#{} / PRODUCT#{}", l.order_id.0, l.product_id.0);
    for (chunk, result) in chunks.iter().zip(results) {
        let missing = |l: &&OrderItem| !stored.contains(&l.primary_key().unwrap().to_item());
        match result {
            Ok(_) => row.lost += chunk.iter().filter(missing).count(),
            Err(Error::Unprocessed { keys, outcome, .. }) => {
                let done: HashSet<&String> = outcome.done.iter().collect();
                let unwritten: HashSet<&String> = keys.iter().collect();
                for line in chunk {
                    let text = text_of(line);
                    if done.contains(&text) && missing(&line) {
                        row.lost += 1;
                    }
                    if unwritten.contains(&text) {
                        row.failed += 1;
                    }
                }
                row.unknown += outcome.unknown.len();
            }
            Err(error) => panic!("{error}"),
        }
    }
    row.duplicated = stored.duplicated(&keys(&written));
    row.report();
}

#[tokio::test]
async fn batch_gets() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let n = size(500, 5_000);
    // Every other key is stored; the rest are asked for and absent.
    let lines: Vec<OrderItem> = (0..n).map(|i| line(i / 10, i % 10)).collect();
    let stored: Vec<OrderItem> = lines.iter().step_by(2).cloned().collect();
    db.batch_put(&stored).await.unwrap();
    let (proxy, through) = through_proxy(&db).await;
    proxy.fail_randomly("BatchGetItem", 1.0, 31, Fault::UnprocessedShare(0.3));
    let keys: Vec<_> = lines.iter().map(|l| l.primary_key().unwrap()).collect();
    let read = through.batch_get(keys).await.unwrap();
    let mut row = Row::new("batch gets", n).faults(&proxy, &["BatchGetItem"]);
    let mut seen = HashSet::new();
    for item in &read {
        if !seen.insert((item.order_id.0.clone(), item.product_id.0.clone())) {
            row.duplicated += 1;
        }
        if !stored.contains(item) {
            row.wrong += 1;
        }
    }
    row.lost = stored.len() - seen.len().min(stored.len());
    row.report();
}

#[tokio::test]
async fn transactions() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = through_proxy(&db).await;
    proxy.fail_randomly("TransactWriteItems", 0.1, 41, Fault::DropResponse);
    proxy.fail_randomly("TransactWriteItems", 0.1, 42, Fault::TransactionConflict);
    let n = size(100, 500);
    let outcomes: Vec<_> = futures::stream::iter(0..n)
        .map(|i| {
            let through = through.clone();
            async move {
                let sent = through
                    .transact_write()
                    .create(&customer(i))
                    .create(&order(i, i))
                    .create(&line(i, 1))
                    .create(&line(i, 2))
                    .send()
                    .await;
                (i, sent)
            }
        })
        .buffer_unordered(CALLERS)
        .collect()
        .await;
    let stored = scan(&db).await;
    let mut row =
        Row::new("transactions (4 actions, 3 entities)", n).faults(&proxy, &["TransactWriteItems"]);
    let mut written = HashSet::new();
    for (i, outcome) in outcomes {
        let actions = [
            customer(i).primary_key().unwrap().to_item(),
            order(i, i).primary_key().unwrap().to_item(),
            line(i, 1).primary_key().unwrap().to_item(),
            line(i, 2).primary_key().unwrap().to_item(),
        ];
        written.extend(keys(&actions));
        let present = actions.iter().filter(|k| stored.contains(k)).count();
        // All or nothing, whatever was reported.
        if present != 0 && present != 4 {
            eprintln!("transaction {i}: {present} of 4 actions stored");
            row.wrong += 1;
            continue;
        }
        match outcome {
            Ok(_) => row.lost += 4 - present,
            Err(Error::WriteOutcomeUnknown { .. }) => row.unknown += 1,
            // Canceled or failed: nothing of it may be stored.
            Err(error) if present > 0 => {
                eprintln!("transaction {i}: {error:?}, {present} stored");
                row.wrong += 1;
            }
            Err(_) => row.failed += 1,
        }
    }
    row.duplicated = stored.duplicated(&written);
    row.out_of_step = out_of_step(&stored.items);
    row.report();
}

#[derive(ddb_runtime::Table)]
#[ddb(name = "Counters", pk = "PK")]
struct Counters;

#[derive(ddb_runtime::Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
struct Counter {
    name: String,
    value: u64,
    #[ddb(version)]
    version: u64,
}

/// Writers each make their increments of one versioned counter: get, add
/// one, put with the version read, again on a version conflict. A plain put
/// whose answer was lost cannot know whether it counted: ddb says so
/// (`WriteOutcomeUnknown`), and the caller does not count it again. The end
/// value is then at least what was acknowledged and at most that plus the
/// unknowns; exactly once, it is exactly what was acknowledged.
async fn counter(exactly_once: bool) {
    let db = ddb_tests::db_with_table::<Counters>().await;
    let proxy = Proxy::start(ddb_tests::local().endpoint())
        .await
        .expect("start the fault proxy");
    let mut through = Db::new(ddb_tests::patient_client(&proxy))
        .with_table_name::<Counters>(db.table_name::<Counters>());
    if exactly_once {
        through = through.with_exactly_once_writes();
    }
    let target = if exactly_once {
        "TransactWriteItems"
    } else {
        "PutItem"
    };
    proxy.fail_randomly(target, 0.1, 51, Fault::DropResponse);
    proxy.fail_randomly(target, 0.1, 52, THROTTLE);
    let start = Counter {
        name: "hits".into(),
        value: 0,
        version: 0,
    };
    db.create(&start).send().await.unwrap();
    let key = Counter::key(&"hits".to_string()).unwrap();
    let (writers, each) = if full() { (64, 50) } else { (8, 10) };
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let unknown = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..writers)
        .map(|_| {
            let (through, key) = (through.clone(), key.clone());
            let (acknowledged, unknown) = (acknowledged.clone(), unknown.clone());
            let failed = failed.clone();
            tokio::spawn(async move {
                for _ in 0..each {
                    loop {
                        let mut counter = through
                            .get(key.clone())
                            .consistent_read(true)
                            .send()
                            .await
                            .unwrap()
                            .unwrap();
                        counter.value += 1;
                        match through.put(&counter).send().await {
                            Ok(_) => {
                                acknowledged.fetch_add(1, Ordering::Relaxed);
                                break;
                            }
                            Err(error) if error.is_version_conflict() => continue,
                            Err(Error::WriteOutcomeUnknown { .. }) => {
                                unknown.fetch_add(1, Ordering::Relaxed);
                                break;
                            }
                            // Retries spent with no attempt applied.
                            Err(error) if error.is_retryable() => {
                                failed.fetch_add(1, Ordering::Relaxed);
                                break;
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
    let stored = ddb_tests::scan_raw::<Counters>(&db).await;
    let value: usize = stored[0]["value"].as_n().unwrap().parse().unwrap();
    let (acknowledged, unknown) = (
        acknowledged.load(Ordering::Relaxed),
        unknown.load(Ordering::Relaxed),
    );
    let mode = if exactly_once {
        "exactly once"
    } else {
        "plain"
    };
    let mut row = Row::new(
        format!("versioned counter, {writers} writers × {each} ({mode})"),
        writers * each,
    )
    .faults(&proxy, &[target]);
    row.unknown = unknown;
    row.failed = failed.load(Ordering::Relaxed);
    // An acknowledged increment missing is lost; one applied beyond what was
    // acknowledged or possibly applied was applied twice.
    row.lost = acknowledged.saturating_sub(value);
    row.wrong = value.saturating_sub(acknowledged + unknown);
    if exactly_once {
        assert_eq!(unknown, 0, "exactly once leaves no outcome unknown");
    }
    row.report();
}

#[tokio::test]
async fn versioned_counter() {
    counter(false).await;
}

#[tokio::test]
async fn versioned_counter_exactly_once() {
    counter(true).await;
}

/// Every page of a partition, of a sharded index and of an item collection,
/// read while some pages are throttled, fail or lose their answer.
#[tokio::test]
async fn pagination() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let n = size(300, 3_000);
    let orders: Vec<Order> = (0..n).map(|i| order(1, i)).collect();
    db.batch_put(&orders).await.unwrap();
    db.create(&customer(1)).send().await.unwrap();
    let (proxy, through) = through_proxy(&db).await;
    proxy.fail_randomly("Query", 0.1, 61, THROTTLE);
    proxy.fail_randomly("Query", 0.05, 62, SERVER_ERROR);
    proxy.fail_randomly("Query", 0.05, 63, Fault::DropResponse);

    let partition: Vec<Order> = through
        .query(Order::by_customer(&CustomerId("C1".into())))
        .limit(50)
        .collect()
        .await
        .unwrap();
    let sharded: Vec<Order> = through
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .limit(50)
        .collect()
        .await
        .unwrap();
    let partition_key = Customer::pk(&CustomerId("C1".into())).unwrap();
    let collection: Vec<CustomerItem> = through
        .collection::<CustomerItem>(partition_key)
        .limit(50)
        .collect()
        .await
        .unwrap();
    let collected: Vec<Order> = collection
        .into_iter()
        .filter_map(|item| match item {
            CustomerItem::Order(order) => Some(order),
            CustomerItem::Profile(_) => None,
        })
        .collect();

    let mut row = Row::new("pagination: partition, 4-shard index, collection", 3 * n)
        .faults(&proxy, &["Query"]);
    for read in [partition, sharded, collected] {
        let ids: HashSet<&str> = read.iter().map(|o| o.order_id.0.as_str()).collect();
        row.duplicated += read.len() - ids.len();
        row.lost += orders
            .iter()
            .filter(|o| !ids.contains(o.order_id.0.as_str()))
            .count();
        row.wrong += read.iter().filter(|o| !orders.contains(o)).count();
    }
    row.report();
}

/// Updates that take orders in and out of the sparse, sharded open-orders
/// index, with some answers lost. Each order is updated by one caller in
/// turn, with the version it read; a lost answer is resolved by reading the
/// order back (no one else writes it), as a caller of a plain write does.
#[tokio::test]
async fn updates_moving_sparse_index_membership() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let orders_count = 50;
    let orders: Vec<Order> = (0..orders_count).map(|i| order(1, i)).collect();
    for order in &orders {
        db.create(order).send().await.unwrap();
    }
    let (proxy, through) = through_proxy(&db).await;
    proxy.fail_randomly("UpdateItem", 0.1, 71, Fault::DropResponse);
    let n = size(200, 2_000);
    let applied = Arc::new(std::sync::Mutex::new(
        HashMap::<usize, (u64, OrderStatus)>::new(),
    ));
    let unknown = Arc::new(AtomicUsize::new(0));
    futures::stream::iter(0..orders_count)
        .map(|o| {
            let (through, applied, unknown) = (through.clone(), applied.clone(), unknown.clone());
            let order = orders[o].clone();
            async move {
                let key = order.primary_key().unwrap();
                for step in 0..n / orders_count {
                    let status = if step % 2 == 0 {
                        OrderStatus::Shipped
                    } else {
                        OrderStatus::Open
                    };
                    let current = through
                        .get(key.clone())
                        .consistent_read(true)
                        .send()
                        .await?
                        .unwrap();
                    let sent = through
                        .update(key.clone())
                        .set(Order::fields().status, status)
                        .add(Order::fields().total_cents, 1u64)
                        .expect_version(current.version)
                        .send()
                        .await;
                    let done = match sent {
                        Ok(_) => true,
                        Err(Error::WriteOutcomeUnknown { .. }) => {
                            unknown.fetch_add(1, Ordering::Relaxed);
                            let now = through
                                .get(key.clone())
                                .consistent_read(true)
                                .send()
                                .await?
                                .unwrap();
                            now.version == current.version + 1
                        }
                        Err(error) => return Err(error),
                    };
                    if done {
                        let mut applied = applied.lock().unwrap();
                        let entry = applied.entry(o).or_insert((0, OrderStatus::Open));
                        *entry = (entry.0 + 1, status);
                    }
                }
                Ok::<(), Error>(())
            }
        })
        .buffer_unordered(CALLERS)
        .try_collect::<Vec<()>>()
        .await
        .unwrap();
    let stored = scan(&db).await;
    let written: Vec<Item> = orders
        .iter()
        .map(|o| o.primary_key().unwrap().to_item())
        .collect();
    let written = keys(&written);
    let mut row =
        Row::new("updates moving sparse index membership", n).faults(&proxy, &["UpdateItem"]);
    row.unknown = unknown.load(Ordering::Relaxed);
    let applied = applied.lock().unwrap();
    for (o, original) in orders.iter().enumerate() {
        let key = key_of(&original.primary_key().unwrap().to_item());
        let Some(item) = stored.items.get(&key) else {
            row.lost += 1;
            continue;
        };
        let now = Order::from_item(item.clone()).unwrap();
        let (count, status) = applied.get(&o).cloned().unwrap_or((0, OrderStatus::Open));
        // Each applied update added one cent and one version, once.
        if now.version != 1 + count
            || now.total_cents != original.total_cents + count
            || now.status != status
        {
            row.wrong += 1;
        }
    }
    row.duplicated = stored.duplicated(&written);
    row.out_of_step = out_of_step(&stored.items);
    row.report();
}

#[derive(Table)]
#[ddb(name = "Members", pk = "PK", sk = "SK")]
pub struct Members;

/// A member: one per email.
#[derive(Entity, Serialize, Deserialize, Clone, Debug)]
#[ddb(table = Members, entity = "Member", pk = "MEMBER#{id}", sk = "PROFILE")]
pub struct Member {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
}

/// Creates, puts, updates, deletes and two-action transactions over a few
/// emails, every request through faults (lost answers, throttling,
/// transaction conflicts). At the end: no email held by two members (items
/// duplicated), no member whose email has no guard (items lost), no guard
/// naming a member that does not hold its email (out of step).
#[tokio::test]
async fn unique_values_under_every_write() {
    let db = ddb_tests::db_with_table::<Members>().await;
    let (proxy, through) = through_proxy_to::<Members>(&db).await;
    let targets = ["TransactWriteItems", "PutItem", "GetItem"];
    for (n, target) in targets.into_iter().enumerate() {
        proxy.fail_randomly(target, 0.1, 41 + n as u64, Fault::DropResponse);
        proxy.fail_randomly(target, 0.1, 51 + n as u64, THROTTLE);
    }
    proxy.fail_randomly("TransactWriteItems", 0.1, 61, Fault::TransactionConflict);
    let n = size(300, 3_000);
    let emails: Vec<String> = (0..12).map(|e| format!("{e}@x.io")).collect();
    let emails = &emails;
    let member = |id: u64, email: &str| Member {
        id: id.to_string(),
        email: email.to_owned(),
    };
    let outcomes: Vec<ddb_runtime::Result<()>> = futures::stream::iter(0..n as u64)
        .map(|i| {
            let db = through.clone();
            async move {
                let mut rng = ddb_tests::SplitMix64(i);
                let id = rng.below(16);
                let email = emails[rng.below(emails.len() as u64) as usize].as_str();
                let key = |id: u64| Member::key(&id.to_string()).unwrap();
                let set_email = db.update(key(id)).set(Member::fields().email, email);
                match rng.below(5) {
                    0 => db.create(&member(id, email)).send().await.map(|_| ()),
                    1 => db.put(&member(id, email)).send().await.map(|_| ()),
                    2 => set_email.send().await.map(|_| ()),
                    3 => db.delete(key(id)).send().await.map(|_| ()),
                    _ => {
                        let other = db.delete(key((id + 1) % 16));
                        let sent = db.transact_write().update(set_email).delete(other);
                        sent.send().await.map(|_| ())
                    }
                }
            }
        })
        .buffer_unordered(CALLERS)
        .collect()
        .await;
    let mut row = Row::new(
        "unique values under creates, puts, updates, deletes and transactions",
        n,
    )
    .faults(&proxy, &targets);
    for outcome in outcomes {
        match outcome {
            Ok(()) => {}
            Err(Error::WriteOutcomeUnknown { .. }) => row.unknown += 1,
            // A single write's failure, or a transaction's action's.
            Err(error)
                if error.is_unique_violation()
                    || error.is_already_exists()
                    || error.is_not_found()
                    || error.is_changed_since_read() =>
            {
                row.failed += 1
            }
            Err(error) if error.is_retryable() => row.failed += 1,
            Err(error) => panic!("unexpected: {error:?}"),
        }
    }
    let raw = ddb_tests::scan_raw::<Members>(&db).await;
    let text = |item: &Item, name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
    let mut holders: HashMap<String, Vec<String>> = HashMap::new();
    let mut guards: HashMap<String, String> = HashMap::new();
    for item in &raw {
        let pk = text(item, "PK").unwrap_or_default();
        if let Some(email) = pk.strip_prefix("_DDB#UNIQUE#Member#email#S:") {
            guards.insert(
                email.to_owned(),
                text(item, "_ddb_owner_pk").unwrap_or_default(),
            );
        } else if let Some(email) = text(item, "email") {
            holders.entry(email).or_default().push(pk);
        }
    }
    for (email, members) in &holders {
        row.duplicated += members.len() - 1;
        row.lost += usize::from(!guards.contains_key(email));
    }
    for (email, owner) in &guards {
        let holds = holders.get(email).is_some_and(|m| m.contains(owner));
        row.out_of_step += usize::from(!holds);
    }
    row.report();
}

#[derive(Table)]
#[ddb(name = "Game", pk = "PK", sk = "SK")]
pub struct Game;

/// A player and their coins.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Game, entity = "Player", pk = "PLAYER#{player}", sk = "PROFILE")]
pub struct Player {
    pub player: usize,
    pub coins: i64,
}

/// A purchase, keyed on the time the server took it.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Game, entity = "Purchase", pk = "PLAYER#{player}", sk = "PURCHASE#{at}")]
pub struct Purchase {
    pub player: usize,
    pub at: u64,
    pub request: String,
    pub price: i64,
}

/// Players in the purchases campaign, and a purchase's price.
const PLAYERS: usize = 40;
const PRICE: i64 = 30;

/// A purchase and its debit, under `request`, at `at`: the business
/// operation a client retries.
fn purchase(db: &Db, player: usize, at: u64, request: &str) -> ddb_runtime::TransactWrite {
    let coins = Player::fields().coins;
    let debit = db
        .update(Player::key(&player).unwrap())
        .add(coins, -PRICE)
        .condition(coins.ge(PRICE));
    let bought = Purchase {
        player,
        at,
        request: request.to_owned(),
        price: PRICE,
    };
    db.transact_write()
        .idempotency_key(request)
        .create(&bought)
        .update(debit)
}

/// What a caller was told: the purchase's key, or a failure in the
/// vocabulary a client answers (coins too few, or an error to retry).
#[derive(Debug, PartialEq)]
enum Told {
    Bought(ddb_runtime::Key<Purchase>),
    TooFewCoins,
    Unknown,
    Other(String),
}

fn told(
    sent: ddb_runtime::Result<ddb_runtime::Transacted>,
    key: &ddb_runtime::Key<Purchase>,
    player: usize,
) -> Told {
    match sent {
        Ok(done) => Told::Bought(done.key(key).expect("the purchase is an action")),
        Err(error) => {
            let debit = error.action_failure(&Player::key(&player).unwrap());
            match debit.and_then(|d| d.error()) {
                Some(Error::ConditionFailed { .. }) => Told::TooFewCoins,
                _ if matches!(error, Error::WriteOutcomeUnknown { .. }) => Told::Unknown,
                _ => Told::Other(format!("{error:?}")),
            }
        }
    }
}

/// Purchases (a create keyed on the server's time and a conditional debit,
/// in one transaction under the request's idempotency key), each tried
/// again by a second handle with a fresh timestamp, through lost answers,
/// throttles and conflicts; a player's later purchases find too few coins.
/// Exactly one purchase and one debit per request, every balance exact,
/// and both tries told the same.
#[tokio::test]
async fn purchases_retried_under_idempotency_keys() {
    let db = ddb_tests::db_with_table::<Game>().await;
    let n = size(160, 2_000);
    // Coins for half a player's purchases: the later ones find too few.
    let coins = PRICE * (n / PLAYERS / 2) as i64;
    for player in 0..PLAYERS {
        db.create(&Player { player, coins }).send().await.unwrap();
    }
    let (proxy, first) = through_proxy_to::<Game>(&db).await;
    // Another process: a handle of its own, through the same faults.
    let second = Db::new(ddb_tests::patient_client(&proxy))
        .with_table_name::<Game>(db.table_name::<Game>())
        .with_retry_policy(first.retry_policy());
    let target = "TransactWriteItems";
    proxy.fail_randomly(target, 0.15, 31, THROTTLE);
    proxy.fail_randomly(target, 0.15, 32, Fault::DropResponse);
    proxy.fail_randomly(target, 0.1, 33, Fault::TransactionConflict);
    let outcomes: Vec<_> = futures::stream::iter(0..n)
        .map(|i| {
            let (first, second) = (first.clone(), second.clone());
            async move {
                let (player, request) = (i % PLAYERS, format!("req-{i}"));
                let (at, again) = (2 * i as u64, 2 * i as u64 + 1);
                let key = |at: u64| Purchase::key(&player, &at).unwrap();
                let a = purchase(&first, player, at, &request).send().await;
                // The client's retry, from another process: a new time.
                let b = purchase(&second, player, again, &request).send().await;
                (i, told(a, &key(at), player), told(b, &key(again), player))
            }
        })
        .buffer_unordered(CALLERS)
        .collect()
        .await;
    let mut row = Row::new(
        "purchases with a debit under idempotency keys, each tried twice",
        2 * n,
    )
    .faults(&proxy, &[target]);
    let raw = ddb_tests::scan_raw::<Game>(&db).await;
    let of_type = |t: &'static str| {
        raw.iter().filter(move |item| {
            item.get("_type")
                .and_then(|v| v.as_s().ok())
                .map(String::as_str)
                == Some(t)
        })
    };
    let mut bought: HashMap<String, Vec<ddb_runtime::Key<Purchase>>> = HashMap::new();
    let mut per_player = vec![0i64; PLAYERS];
    for item in of_type("Purchase") {
        let stored = Purchase::from_item(item.clone()).expect("a stored purchase decodes");
        per_player[stored.player] += 1;
        let key = stored.primary_key().unwrap();
        bought.entry(stored.request).or_default().push(key);
    }
    for item in of_type("Player") {
        let player = Player::from_item(item.clone()).expect("a stored player decodes");
        let expected = coins - PRICE * per_player[player.player];
        row.wrong += usize::from(player.coins != expected);
    }
    let mut too_few = 0;
    for (i, a, b) in outcomes {
        let stored = bought.remove(&format!("req-{i}")).unwrap_or_default();
        row.duplicated += stored.len().saturating_sub(1);
        match (&a, &b) {
            (Told::Unknown, _) | (_, Told::Unknown) => row.unknown += 1,
            (Told::Other(_), _) | (_, Told::Other(_)) => row.failed += 1,
            _ => {}
        }
        match (&a, &b) {
            (Told::Bought(x), Told::Bought(y)) => {
                row.wrong += usize::from(x != y || stored.as_slice() != [x.clone()]);
            }
            (Told::TooFewCoins, Told::TooFewCoins) => {
                too_few += 1;
                row.wrong += usize::from(!stored.is_empty());
            }
            // The first try's answer was lost or refused for good: the
            // second's is the truth.
            (Told::Unknown | Told::Other(_), Told::Bought(y)) => {
                row.lost += usize::from(stored.as_slice() != [y.clone()]);
            }
            (Told::Unknown | Told::Other(_), Told::TooFewCoins) => {
                row.wrong += usize::from(!stored.is_empty())
            }
            // The second try's answer is lost or refused: the first's
            // stands, and the table holds what it said.
            (Told::Bought(x), Told::Unknown | Told::Other(_)) => {
                row.wrong += usize::from(stored.as_slice() != [x.clone()]);
            }
            (Told::TooFewCoins, Told::Unknown | Told::Other(_)) => {
                row.wrong += usize::from(!stored.is_empty());
            }
            // Both refused with nothing applied: nothing is stored.
            (Told::Other(_), Told::Other(_)) => row.wrong += usize::from(!stored.is_empty()),
            (Told::Unknown, Told::Unknown | Told::Other(_)) | (Told::Other(_), Told::Unknown) => {}
            // Told differently by the two tries.
            (Told::Bought(_), Told::TooFewCoins) | (Told::TooFewCoins, Told::Bought(_)) => {
                row.wrong += 1
            }
        }
    }
    assert!(too_few > 0, "no purchase found too few coins");
    row.duplicated += bought.values().map(Vec::len).sum::<usize>();
    row.report();
}
