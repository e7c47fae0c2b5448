//! ddb against the hand-written `aws-sdk-dynamodb` code a careful engineer
//! writes, workload by workload, in one process against one server.
//!
//! `cargo run --release -p ddb-examples --example bench` starts an embedded
//! local DynamoDB (or uses `DDB_ENDPOINT`). Each workload runs `DDB_BENCH_ROUNDS`
//! rounds (default 9), ddb and raw alternating which goes first (which
//! table is created and seeded first, and which side runs first), each on a
//! fresh table. A workload that repeats its operation is cut into parts
//! the two sides take in turn (100 creates of one side, 100 of the other,
//! ...), so a slow moment of the machine weighs on both; a backfill, which
//! changes its whole table, starts each part from fresh tables. It prints the
//! medians (the ratio is the median of the rounds' own ratios):
//! `workload: ddb X ms, raw Y ms, ratio Z`, with the requests each side
//! sent (every attempt) and the read units per item returned where
//! DynamoDB reports them.
//!
//! It runs twice (see `same_requests`). First, the headline, against the
//! minimal request a careful engineer writes by hand, ddb on a plain
//! handle; then against the requests ddb sends, ddb's handle asking for
//! every request's capacity, to separate ddb's client cost from what its
//! requests ask of the server. The hand-written side returns what ddb
//! returns: each page of a query, and a batch get's items, decoded into a
//! `Vec` allocated once (a batch get's left in the order they arrived,
//! where ddb puts them in the order asked). `DDB_BENCH_MINIMAL=1` runs the
//! minimal pass alone (`=0` the other), `DDB_BENCH_SHOW=1` prints both
//! sides' requests,
//! `DDB_BENCH_CPU=1` prints the CPU time each side took on the client's
//! threads and on the embedded server's (Linux), `DDB_BENCH_ONLY=<text>`
//! runs the workloads whose name contains it, and `DDB_BENCH_SIDE=ddb` (or
//! `raw`) runs one side alone, for a profiler (its ratios are then 1).

use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use ddb_examples::single_table::{Customer, CustomerItem, Ecommerce, OpenOrder, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::{Db, Table};
use futures::{StreamExt, TryStreamExt};
use time::format_description::well_known::Rfc3339;
use time::macros::datetime;
use time::OffsetDateTime;

type Item = HashMap<String, AttributeValue>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Whether the hand-written requests carry what ddb's carry beyond a
/// minimal request: the consumed capacity (ddb's handle then asks for it on
/// every call, `with_return_consumed_capacity`), the item on a failed
/// condition (ddb's typed condition errors), the entity type its
/// conditions check, the schema-version guard of its updates and the
/// attributes of its projections. The bench runs twice: against the
/// minimal request (the headline: what a careful engineer sends by hand),
/// then against the same request (ddb's own cost for the same work on the
/// wire). `DDB_BENCH_MINIMAL=1` runs the first alone, `=0` the second.
static SAME_REQUESTS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn same_requests() -> bool {
    SAME_REQUESTS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The consumed capacity ddb's handle asks for in the same-request pass:
/// per table and index.
fn indexes() -> Option<ReturnConsumedCapacity> {
    same_requests().then_some(ReturnConsumedCapacity::Indexes)
}

/// The consumed capacity of a read whose units the bench reports: none in
/// the minimal pass.
fn read_capacity() -> Option<ReturnConsumedCapacity> {
    indexes()
}

/// What ddb asks back on a failed condition: the item as it was.
fn all_old() -> Option<ReturnValuesOnConditionCheckFailure> {
    same_requests().then_some(ReturnValuesOnConditionCheckFailure::AllOld)
}

/// What one side of one round took.
#[derive(Clone, Copy, Default)]
struct Run {
    elapsed: Duration,
    read_units: f64,
    items: usize,
    /// CPU time of the client's threads and of the embedded server's.
    client_cpu: Duration,
    server_cpu: Duration,
    /// Requests sent (attempts).
    requests: usize,
}

impl Run {
    /// This run and `part`, a later part of the same round.
    fn and(self, part: Run) -> Run {
        Run {
            elapsed: self.elapsed + part.elapsed,
            read_units: self.read_units + part.read_units,
            items: self.items + part.items,
            client_cpu: self.client_cpu + part.client_cpu,
            server_cpu: self.server_cpu + part.server_cpu,
            requests: self.requests + part.requests,
        }
    }
}

/// How many times a workload repeats its operation (1 for the workloads of
/// one operation).
fn repeats(workload: Workload) -> usize {
    match workload {
        Workload::Creates | Workload::ExactlyOnceCreates | Workload::Gets => 1000,
        Workload::Ship => 500,
        Workload::Latest20 => 300,
        Workload::Transactions => 200,
        Workload::Collection
        | Workload::Backfill
        | Workload::OpenOrders
        | Workload::BatchGet
        | Workload::Loader => 10,
        Workload::AllPages => 5,
        Workload::BatchPut => 4,
        _ => 1,
    }
}

/// A workload's operations cut into parts the two sides take in turn, so
/// a slow moment of the machine weighs on both: up to ten parts (100
/// creates of one side, then 100 of the other, ...), or one for a single
/// operation.
fn parts(workload: Workload) -> Vec<Range<usize>> {
    let repeats = repeats(workload);
    let size = repeats.div_ceil(10);
    (0..repeats)
        .step_by(size)
        .map(|start| start..(start + size).min(repeats))
        .collect()
}

fn order(customer: &str, i: usize, status: OrderStatus) -> Order {
    Order {
        customer_id: CustomerId(customer.into()),
        order_id: OrderId(format!("B{i:05}")),
        placed_at: datetime!(2026-01-01 00:00:00 UTC) + time::Duration::minutes(i as i64),
        status,
        total_cents: 1000 + i as u64,
        version: 1,
    }
}

/// The 2,500 orders of the batch put's `batch`-th batch, each batch its own.
fn batch_of_orders(batch: usize) -> Vec<Order> {
    (batch * 2500..(batch + 1) * 2500)
        .map(|i| order("C1", i, OrderStatus::Open))
        .collect()
}

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn n(number: impl ToString) -> AttributeValue {
    AttributeValue::N(number.to_string())
}

fn status_text(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Open => "OPEN",
        OrderStatus::Shipped => "SHIPPED",
    }
}

/// The item the raw code writes: the same attributes as ddb's, keys
/// assembled by hand, the open-orders shard from a hash of the table key.
fn raw_item(order: &Order) -> Item {
    let at = order.placed_at.format(&Rfc3339).expect("UTC instant");
    let pk = format!("CUSTOMER#{}", order.customer_id.0);
    let sk = format!("ORDER#{at}#{}", order.order_id.0);
    let shard = shard_of(&pk, &sk, 4);
    let mut item = Item::from([
        ("PK".into(), s(pk)),
        ("SK".into(), s(sk)),
        ("GSI1PK".into(), s(format!("ORDER#{}", order.order_id.0))),
        ("GSI1SK".into(), s("ORDER")),
        ("_type".into(), s("Order")),
        ("customer_id".into(), s(order.customer_id.0.clone())),
        ("order_id".into(), s(order.order_id.0.clone())),
        ("placed_at".into(), s(at.clone())),
        ("status".into(), s(status_text(order.status))),
        ("total_cents".into(), n(order.total_cents)),
        ("version".into(), n(order.version)),
    ]);
    if order.status == OrderStatus::Open {
        item.insert("GSI2PK".into(), s(format!("STATUS#OPEN#{shard}")));
        item.insert("GSI2SK".into(), s(format!("{at}#{}", order.order_id.0)));
    }
    item
}

/// The shard of an item among `shards`, as ddb numbers them: FNV-1a (64
/// bits) of the partition key, a zero byte and the sort key.
fn shard_of(pk: &str, sk: &str, shards: u64) -> u64 {
    let bytes = pk.bytes().chain([0]).chain(sk.bytes());
    let hash = bytes.fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    hash % shards
}

/// The table key of an order, assembled by hand.
fn raw_key(order: &Order) -> Item {
    let at = order.placed_at.format(&Rfc3339).expect("UTC instant");
    Item::from([
        ("PK".into(), s(format!("CUSTOMER#{}", order.customer_id.0))),
        ("SK".into(), s(format!("ORDER#{at}#{}", order.order_id.0))),
    ])
}

fn text(item: &Item, name: &str) -> Result<String, BoxError> {
    Ok(item
        .get(name)
        .and_then(|v| v.as_s().ok())
        .ok_or_else(|| format!("no S attribute {name}"))?
        .clone())
}

fn number(item: &Item, name: &str) -> Result<u64, BoxError> {
    Ok(item
        .get(name)
        .and_then(|v| v.as_n().ok())
        .ok_or_else(|| format!("no N attribute {name}"))?
        .parse()?)
}

/// The raw code's decoding of an order.
fn raw_order(item: &Item) -> Result<Order, BoxError> {
    Ok(Order {
        customer_id: CustomerId(text(item, "customer_id")?),
        order_id: OrderId(text(item, "order_id")?),
        placed_at: OffsetDateTime::parse(&text(item, "placed_at")?, &Rfc3339)?,
        status: match text(item, "status")?.as_str() {
            "OPEN" => OrderStatus::Open,
            _ => OrderStatus::Shipped,
        },
        total_cents: number(item, "total_cents")?,
        version: number(item, "version")?,
    })
}

/// Each item decoded, into a vector allocated once (what ddb's pages do).
fn decode_all<T>(
    items: &[Item],
    decode: impl Fn(&Item) -> Result<T, BoxError>,
) -> Result<Vec<T>, BoxError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(decode(item)?);
    }
    Ok(out)
}

fn raw_open_order(item: &Item) -> Result<OpenOrder, BoxError> {
    Ok(OpenOrder {
        customer_id: CustomerId(text(item, "customer_id")?),
        order_id: OrderId(text(item, "order_id")?),
        placed_at: OffsetDateTime::parse(&text(item, "placed_at")?, &Rfc3339)?,
        total_cents: number(item, "total_cents")?,
    })
}

/// The tables the run created and has not deleted: a workload that fails
/// leaves its tables, and they are deleted before the error is returned (on
/// DynamoDB, `DDB_ENDPOINT` or real AWS, a table left behind stays, and is
/// billed).
static CREATED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn created() -> std::sync::MutexGuard<'static, Vec<String>> {
    CREATED.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh copy of the store's table, for one side of one round.
async fn fresh_table(client: &Client) -> Result<String, BoxError> {
    let name = ddb_local::unique_table_name("Bench");
    // Kept before it is asked for: a table whose creation failed after
    // DynamoDB took it is deleted too.
    created().push(name.clone());
    // Without the store's stream: the embedded server keeps its stream's
    // records with a query whose cost grows with the table (milliseconds a
    // write at a few thousand items), which would make the write workloads
    // time mostly the server. Neither side reads the stream.
    let table = ddb_runtime::model::TableDef {
        stream: None,
        ..Ecommerce::DEF
    };
    ddb_runtime::schema::create_table_if_missing(client, &table, &name, Duration::from_secs(60))
        .await?;
    Ok(name)
}

/// Deletes a table the run created.
async fn delete_table(client: &Client, name: String) -> Result<(), BoxError> {
    client.delete_table().table_name(&name).send().await?;
    created().retain(|table| *table != name);
    Ok(())
}

async fn raw_put_all(client: &Client, table: &str, items: Vec<Item>) -> Result<(), BoxError> {
    let chunks: Vec<Vec<WriteRequest>> = items
        .chunks(25)
        .map(|chunk| {
            chunk
                .iter()
                .map(|item| {
                    let put = aws_sdk_dynamodb::types::PutRequest::builder()
                        .set_item(Some(item.clone()))
                        .build()
                        .expect("item set");
                    WriteRequest::builder().put_request(put).build()
                })
                .collect()
        })
        .collect();
    futures::stream::iter(chunks)
        .map(|mut pending| async move {
            while !pending.is_empty() {
                let output = client
                    .batch_write_item()
                    .request_items(table, pending)
                    .set_return_consumed_capacity(indexes())
                    .send()
                    .await?;
                pending = output
                    .unprocessed_items
                    .and_then(|mut left| left.remove(table))
                    .unwrap_or_default();
            }
            Ok::<(), BoxError>(())
        })
        .buffer_unordered(4)
        .try_collect::<Vec<()>>()
        .await?;
    Ok(())
}

/// The workloads, each as (ddb, raw) on prepared tables.
#[derive(Clone, Copy, Debug)]
enum Workload {
    Creates,
    Gets,
    BatchPut,
    AllPages,
    Latest20,
    Ship,
    OpenOrders,
    Collection,
    Transactions,
    BatchGet,
    Stream,
    Backfill,
    ExactlyOnceCreates,
    Loader,
}

const WORKLOADS: [(Workload, &str); 14] = [
    (Workload::Creates, "1,000 sequential idempotent creates"),
    (
        Workload::ExactlyOnceCreates,
        "1,000 sequential exactly-once creates (one-action transactions)",
    ),
    (Workload::Gets, "1,000 GetItems"),
    (
        Workload::BatchPut,
        "batch put of 2,500 orders, 4 concurrent, x4",
    ),
    (
        Workload::AllPages,
        "all pages of a 2,500-order partition, x5",
    ),
    (Workload::Latest20, "latest 20 orders, newest first, x300"),
    (Workload::Ship, "ship 500 open orders"),
    (
        Workload::OpenOrders,
        "all open orders of a 4-shard index, x10",
    ),
    (
        Workload::Collection,
        "a profile and its 500 orders (collection), x10",
    ),
    (Workload::Transactions, "200 transactions of 4 creates"),
    (Workload::BatchGet, "batch get of 1,000 keys, x10"),
    (
        Workload::Loader,
        "10 resolver tasks loading customers (30% repeats), in 10 waves",
    ),
    (Workload::Stream, "a 10,000-order partition streamed"),
    (
        Workload::Backfill,
        "backfill of 250 open orders stored without GSI2, x10",
    ),
];

fn customer() -> Customer {
    Customer {
        customer_id: CustomerId("C1".into()),
        name: "Ada".into(),
        email: "ada@example.com".into(),
        order_count: 0,
    }
}

/// The customers the resolvers load: the authors of a page of posts.
const AUTHORS: usize = 40;

fn numbered_customer(i: usize) -> Customer {
    Customer {
        customer_id: CustomerId(format!("A{i:02}")),
        name: format!("Author {i}"),
        email: format!("author{i}@example.com"),
        order_count: i as u32,
    }
}

/// The customers the 10 resolvers of `wave` (the fields of one GraphQL
/// response that each load an author) load, one each: 7 distinct, then 3
/// of them again (30% repeats), spread over the 40.
fn resolved(wave: usize) -> Vec<CustomerId> {
    let distinct = (0..7).map(|j| (wave * 7 + j * 5) % AUTHORS);
    let again = (0..3).map(|j| (wave * 7 + j * 5) % AUTHORS);
    distinct
        .chain(again)
        .map(|i| numbered_customer(i).customer_id)
        .collect()
}

fn raw_customer_item(c: &Customer) -> Item {
    Item::from([
        ("PK".into(), s(format!("CUSTOMER#{}", c.customer_id.0))),
        ("SK".into(), s("PROFILE")),
        ("_type".into(), s("Customer")),
        ("customer_id".into(), s(c.customer_id.0.clone())),
        ("name".into(), s(c.name.clone())),
        ("email".into(), s(c.email.clone())),
        ("order_count".into(), n(c.order_count)),
    ])
}

fn raw_customer(item: &Item) -> Result<Customer, BoxError> {
    Ok(Customer {
        customer_id: CustomerId(text(item, "customer_id")?),
        name: text(item, "name")?,
        email: text(item, "email")?,
        order_count: number(item, "order_count")? as u32,
    })
}

/// The peak resident memory of the process so far, in MB (Linux).
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU time so far of the process's threads, split into the embedded
/// server's thread and all the others (the client side: the runtime's
/// workers), from Linux's per-thread scheduler statistics.
fn cpu_by_side() -> Option<(Duration, Duration)> {
    let (mut client, mut server) = (0, 0);
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let task = task.ok()?.path();
        let name = std::fs::read_to_string(task.join("comm")).unwrap_or_default();
        let stat = std::fs::read_to_string(task.join("schedstat")).unwrap_or_default();
        let nanos: u64 = stat.split_whitespace().next()?.parse().ok()?;
        match name.starts_with("ddb-local") {
            true => server += nanos,
            false => client += nanos,
        }
    }
    Some((Duration::from_nanos(client), Duration::from_nanos(server)))
}

/// Runs `side` and adds the client and server CPU time it took, and the
/// requests it sent, to its run.
async fn with_cpu(
    side: impl std::future::Future<Output = Result<Run, BoxError>>,
) -> Result<Run, BoxError> {
    let before = cpu_by_side();
    let sent = REQUESTS.load(std::sync::atomic::Ordering::Relaxed);
    let mut run = side.await?;
    run.requests = REQUESTS.load(std::sync::atomic::Ordering::Relaxed) - sent;
    if let (Some(before), Some(after)) = (before, cpu_by_side()) {
        run.client_cpu = after.0.saturating_sub(before.0);
        run.server_cpu = after.1.saturating_sub(before.1);
    }
    Ok(run)
}

/// The orders a workload starts from (written before the clock starts).
fn seed(workload: Workload) -> Vec<Order> {
    match workload {
        Workload::Creates | Workload::ExactlyOnceCreates | Workload::BatchPut => Vec::new(),
        Workload::Gets => (0..1000)
            .map(|i| order("C1", i, OrderStatus::Open))
            .collect(),
        Workload::AllPages | Workload::Latest20 => (0..2500)
            .map(|i| order("C1", i, OrderStatus::Shipped))
            .collect(),
        Workload::Ship => (0..500)
            .map(|i| order("C1", i, OrderStatus::Open))
            .collect(),
        Workload::OpenOrders => (0..2000)
            .map(|i| order(&format!("C{}", i % 50), i, OrderStatus::Open))
            .collect(),
        Workload::Collection => (0..500)
            .map(|i| order("C1", i, OrderStatus::Shipped))
            .collect(),
        Workload::Transactions | Workload::Loader => Vec::new(),
        Workload::BatchGet => (0..1000)
            .map(|i| order("C1", i, OrderStatus::Shipped))
            .collect(),
        Workload::Stream => (0..10_000)
            .map(|i| order("C1", i, OrderStatus::Shipped))
            .collect(),
        Workload::Backfill => (0..250)
            .map(|i| order(&format!("C{}", i % 50), i, OrderStatus::Open))
            .collect(),
    }
}

/// Two fresh tables, ddb's and the hand-written side's, seeded with what
/// `workload` starts from (before the clock starts). `ddb_first` decides
/// which is created and seeded first: the server's data of the table
/// seeded last is the warmer.
async fn prepare(
    client: &Client,
    handle: &Db,
    workload: Workload,
    ddb_first: bool,
) -> Result<(String, String), BoxError> {
    let seeded = seed(workload);
    let (ddb_table, raw_table) = if ddb_first {
        let ddb_table = fresh_table(client).await?;
        (ddb_table, fresh_table(client).await?)
    } else {
        let raw_table = fresh_table(client).await?;
        (fresh_table(client).await?, raw_table)
    };
    let db = handle.with_table_name::<Ecommerce>(ddb_table.clone());
    for ddb_side in [ddb_first, !ddb_first] {
        let table = if ddb_side { &ddb_table } else { &raw_table };
        if matches!(workload, Workload::Backfill) {
            raw_put_all(client, table, without_gsi2(&seeded)).await?;
        } else if ddb_side && !seeded.is_empty() {
            db.batch_put(&seeded).await?;
        } else if !seeded.is_empty() {
            raw_put_all(client, table, seeded.iter().map(raw_item).collect()).await?;
        }
        if matches!(workload, Workload::Loader) {
            let customers: Vec<Customer> = (0..AUTHORS).map(numbered_customer).collect();
            if ddb_side {
                db.batch_put(&customers).await?;
            } else {
                raw_put_all(
                    client,
                    table,
                    customers.iter().map(raw_customer_item).collect(),
                )
                .await?;
            }
        }
        if !matches!(workload, Workload::Collection) {
            continue;
        }
        if ddb_side {
            db.create(&customer()).send().await?;
        } else {
            client
                .put_item()
                .table_name(table)
                .set_item(Some(raw_customer_item(&customer())))
                .send()
                .await?;
        }
    }
    Ok((ddb_table, raw_table))
}

/// Orders as an earlier version of the code stored them: before GSI2.
fn without_gsi2(orders: &[Order]) -> Vec<Item> {
    orders
        .iter()
        .map(|o| {
            let mut item = raw_item(o);
            item.remove("GSI2PK");
            item.remove("GSI2SK");
            item
        })
        .collect()
}

async fn run_ddb(db: &Db, workload: Workload, part: Range<usize>) -> Result<Run, BoxError> {
    let started = Instant::now();
    let mut run = Run::default();
    match workload {
        Workload::Creates => {
            for i in part.clone() {
                db.create(&order("C1", i, OrderStatus::Open)).send().await?;
            }
            run.items = part.len();
        }
        Workload::ExactlyOnceCreates => {
            for i in part.clone() {
                db.create(&order("C1", i, OrderStatus::Open))
                    .exactly_once(true)
                    .send()
                    .await?;
            }
            run.items = part.len();
        }
        Workload::Gets => {
            for i in part.clone() {
                let o = order("C1", i, OrderStatus::Open);
                let found = db
                    .get(Order::key(&o.customer_id, &o.placed_at, &o.order_id)?)
                    .send()
                    .await?;
                run.items += usize::from(found.is_some());
            }
        }
        Workload::BatchPut => {
            for batch in part.clone() {
                let orders = batch_of_orders(batch);
                db.batch_put(&orders).await?;
                run.items += orders.len();
            }
        }
        Workload::AllPages => {
            for _ in part.clone() {
                let mut pages = db
                    .query(Order::by_customer(&CustomerId("C1".into())))
                    .pages();
                while let Some(page) = pages.try_next().await? {
                    run.items += page.items.len();
                    run.read_units += page.consumed_capacity.total;
                }
            }
        }
        Workload::Latest20 => {
            for _ in part.clone() {
                let page = db
                    .query(Order::by_customer(&CustomerId("C1".into())))
                    .newest_first(true)
                    .limit(20)
                    .send()
                    .await?;
                run.items += page.items.len();
                run.read_units += page.consumed_capacity.total;
            }
        }
        Workload::Ship => {
            for i in part.clone() {
                let o = order("C1", i, OrderStatus::Open);
                db.update(Order::key(&o.customer_id, &o.placed_at, &o.order_id)?)
                    .set(Order::fields().status, OrderStatus::Shipped)
                    .send()
                    .await?;
            }
            run.items = part.len();
        }
        Workload::OpenOrders => {
            for _ in part.clone() {
                let mut pages = db
                    .query(Order::open_orders(&OrderStatus::Open))
                    .project::<OpenOrder>()
                    .pages();
                while let Some(page) = pages.try_next().await? {
                    run.items += page.items.len();
                    run.read_units += page.consumed_capacity.total;
                }
            }
        }
        Workload::Collection => {
            for _ in part.clone() {
                let partition = Customer::pk(&CustomerId("C1".into()))?;
                let mut pages = db.collection::<CustomerItem>(partition).pages();
                while let Some(page) = pages.try_next().await? {
                    run.items += page.items.len();
                    run.read_units += page.consumed_capacity.total;
                }
            }
        }
        Workload::Transactions => {
            for t in part.clone() {
                let mut transaction = db.transact_write();
                for a in 0..4 {
                    transaction = transaction.create(&order("C1", t * 4 + a, OrderStatus::Shipped));
                }
                transaction.send().await?;
            }
            run.items = part.len() * 4;
        }
        Workload::BatchGet => {
            for _ in part.clone() {
                let keys = (0..1000)
                    .map(|i| {
                        let o = order("C1", i, OrderStatus::Shipped);
                        Order::key(&o.customer_id, &o.placed_at, &o.order_id)
                    })
                    .collect::<ddb_runtime::Result<Vec<_>>>()?;
                run.items += db.batch_get(keys).await?.len();
            }
        }
        Workload::Loader => {
            let loader = db.loader::<Customer>();
            for wave in part.clone() {
                // Each resolver a task of its own, as a server runs them.
                let resolvers: Vec<_> = resolved(wave)
                    .into_iter()
                    .map(|id| {
                        let loader = loader.clone();
                        tokio::spawn(async move { loader.load(Customer::key(&id)?).send().await })
                    })
                    .collect();
                for resolver in resolvers {
                    run.items += usize::from(resolver.await??.is_some());
                }
            }
        }
        Workload::Stream => {
            let mut items = db
                .query(Order::by_customer(&CustomerId("C1".into())))
                .items();
            while let Some(order) = items.try_next().await? {
                std::hint::black_box(&order);
                run.items += 1;
            }
        }
        Workload::Backfill => {
            let done = db
                .backfill::<Order>()
                .segments(4)
                .skip_check(true)
                .send()
                .await?;
            run.items = done.updated as usize;
            run.read_units = done.consumed_capacity.total;
        }
    }
    run.elapsed = started.elapsed();
    Ok(run)
}

fn units(output_capacity: Option<&aws_sdk_dynamodb::types::ConsumedCapacity>) -> f64 {
    output_capacity
        .and_then(|c| c.capacity_units())
        .unwrap_or(0.0)
}

async fn run_raw(
    client: &Client,
    table: &str,
    workload: Workload,
    part: Range<usize>,
) -> Result<Run, BoxError> {
    let started = Instant::now();
    let mut run = Run::default();
    match workload {
        Workload::Creates => {
            for i in part.clone() {
                client
                    .put_item()
                    .table_name(table)
                    .set_item(Some(raw_item(&order("C1", i, OrderStatus::Open))))
                    .condition_expression("attribute_not_exists(PK)")
                    .set_return_values_on_condition_check_failure(all_old())
                    .set_return_consumed_capacity(indexes())
                    .send()
                    .await?;
            }
            run.items = part.len();
        }
        Workload::ExactlyOnceCreates => {
            for i in part.clone() {
                let put = aws_sdk_dynamodb::types::Put::builder()
                    .table_name(table)
                    .set_item(Some(raw_item(&order("C1", i, OrderStatus::Open))))
                    .condition_expression("attribute_not_exists(PK)")
                    .set_return_values_on_condition_check_failure(all_old())
                    .build()?;
                client
                    .transact_write_items()
                    .transact_items(
                        aws_sdk_dynamodb::types::TransactWriteItem::builder()
                            .put(put)
                            .build(),
                    )
                    .client_request_token(ddb_local::unique_table_name("t"))
                    .set_return_consumed_capacity(indexes())
                    .send()
                    .await?;
            }
            run.items = part.len();
        }
        Workload::Gets => {
            for i in part.clone() {
                let key = raw_key(&order("C1", i, OrderStatus::Open));
                let output = client
                    .get_item()
                    .table_name(table)
                    .set_key(Some(key))
                    .set_return_consumed_capacity(indexes())
                    .send()
                    .await?;
                if let Some(item) = output.item {
                    raw_order(&item)?;
                    run.items += 1;
                }
            }
        }
        Workload::BatchPut => {
            for batch in part.clone() {
                let orders = batch_of_orders(batch);
                raw_put_all(client, table, orders.iter().map(raw_item).collect()).await?;
                run.items += orders.len();
            }
        }
        Workload::AllPages | Workload::Latest20 => {
            let (rounds, limit, forward) = match workload {
                Workload::AllPages => (part.len(), None, true),
                // 20 and one past them, to know whether more follow, as
                // ddb's page does by default.
                _ => (part.len(), Some(21), false),
            };
            for _ in 0..rounds {
                let mut start = None;
                loop {
                    let query = client
                        .query()
                        .table_name(table)
                        .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
                        .expression_attribute_values(":pk", s("CUSTOMER#C1"))
                        .expression_attribute_values(":sk", s("ORDER#"))
                        .set_scan_index_forward((!forward).then_some(false))
                        .set_limit(limit)
                        .set_exclusive_start_key(start)
                        .set_return_consumed_capacity(read_capacity());
                    let output = query.send().await?;
                    run.read_units += units(output.consumed_capacity());
                    // The page, decoded, as ddb returns it.
                    let mut page = decode_all(output.items(), raw_order)?;
                    if let Some(n) = limit {
                        page.truncate((n - 1) as usize);
                    }
                    run.items += page.len();
                    start = output.last_evaluated_key;
                    if start.is_none() || limit.is_some() {
                        break;
                    }
                }
            }
        }
        Workload::Ship => {
            for i in part.clone() {
                let key = raw_key(&order("C1", i, OrderStatus::Open));
                let update = client
                    .update_item()
                    .table_name(table)
                    .set_key(Some(key))
                    .update_expression(
                        "SET #s = :s, version = version + :one REMOVE GSI2PK, GSI2SK",
                    )
                    .expression_attribute_names("#s", "status")
                    .expression_attribute_values(":s", s("SHIPPED"))
                    .expression_attribute_values(":one", n(1));
                // ddb's schema-version guard.
                let update = if same_requests() {
                    update
                        .condition_expression("attribute_exists(PK) AND attribute_not_exists(#sv)")
                        .expression_attribute_names("#sv", "_schema")
                } else {
                    update.condition_expression("attribute_exists(PK)")
                };
                update
                    .set_return_values_on_condition_check_failure(all_old())
                    .set_return_consumed_capacity(indexes())
                    .send()
                    .await?;
            }
            run.items = part.len();
        }
        Workload::OpenOrders => {
            for _ in part.clone() {
                let shards = (0..4).map(|shard| async move {
                    let mut items = Vec::new();
                    let mut read_units = 0.0;
                    let mut start = None;
                    loop {
                        let output = client
                            .query()
                            .table_name(table)
                            .index_name("GSI2")
                            .key_condition_expression("GSI2PK = :pk")
                            .expression_attribute_values(":pk", s(format!("STATUS#OPEN#{shard}")))
                            .set_exclusive_start_key(start)
                            .set_return_consumed_capacity(read_capacity())
                            .send()
                            .await?;
                        read_units += units(output.consumed_capacity());
                        items.extend(output.items.unwrap_or_default());
                        start = output.last_evaluated_key;
                        if start.is_none() {
                            break;
                        }
                    }
                    Ok::<_, BoxError>((items, read_units))
                });
                let mut all = Vec::new();
                for (items, read_units) in futures::future::try_join_all(shards).await? {
                    all.extend(items);
                    run.read_units += read_units;
                }
                all.sort_by_cached_key(|item| text(item, "GSI2SK").ok());
                let orders = decode_all(&all, raw_open_order)?;
                run.items += orders.len();
            }
        }
        Workload::Collection => {
            for _ in part.clone() {
                let mut start = None;
                loop {
                    let output = client
                        .query()
                        .table_name(table)
                        .key_condition_expression("PK = :pk")
                        .expression_attribute_values(":pk", s("CUSTOMER#C1"))
                        .set_exclusive_start_key(start)
                        .set_return_consumed_capacity(read_capacity())
                        .send()
                        .await?;
                    run.read_units += units(output.consumed_capacity());
                    let page =
                        decode_all(output.items(), |item| match text(item, "_type")?.as_str() {
                            "Customer" => raw_customer(item).map(CustomerItem::Profile),
                            _ => raw_order(item).map(CustomerItem::Order),
                        })?;
                    run.items += page.len();
                    start = output.last_evaluated_key;
                    if start.is_none() {
                        break;
                    }
                }
            }
        }
        Workload::Transactions => {
            for t in part.clone() {
                let puts = (0..4).map(|a| {
                    let item = raw_item(&order("C1", t * 4 + a, OrderStatus::Shipped));
                    let put = aws_sdk_dynamodb::types::Put::builder()
                        .table_name(table)
                        .set_item(Some(item))
                        .condition_expression("attribute_not_exists(PK)")
                        .set_return_values_on_condition_check_failure(all_old())
                        .build()
                        .expect("table and item set");
                    aws_sdk_dynamodb::types::TransactWriteItem::builder()
                        .put(put)
                        .build()
                });
                client
                    .transact_write_items()
                    .set_transact_items(Some(puts.collect()))
                    .client_request_token(format!("bench-{table}-{t}"))
                    .set_return_consumed_capacity(indexes())
                    .send()
                    .await?;
            }
            run.items = part.len() * 4;
        }
        Workload::BatchGet => {
            for _ in part.clone() {
                let chunks: Vec<Vec<Item>> = (0..10)
                    .map(|chunk| {
                        (chunk * 100..(chunk + 1) * 100)
                            .map(|i| raw_key(&order("C1", i, OrderStatus::Shipped)))
                            .collect()
                    })
                    .collect();
                // Each chunk's orders, decoded as they arrive (ddb returns them
                // all, in the order asked).
                let found: Vec<Vec<Order>> = futures::stream::iter(chunks)
                    .map(|mut pending| async move {
                        let mut found = Vec::with_capacity(pending.len());
                        while !pending.is_empty() {
                            let request = aws_sdk_dynamodb::types::KeysAndAttributes::builder()
                                .set_keys(Some(pending))
                                .build()?;
                            let output = client
                                .batch_get_item()
                                .request_items(table, request)
                                .set_return_consumed_capacity(indexes())
                                .send()
                                .await?;
                            for item in output
                                .responses
                                .and_then(|mut r| r.remove(table))
                                .unwrap_or_default()
                            {
                                found.push(raw_order(&item)?);
                            }
                            pending = output
                                .unprocessed_keys
                                .and_then(|mut u| u.remove(table))
                                .map(|k| k.keys)
                                .unwrap_or_default();
                        }
                        Ok::<Vec<Order>, BoxError>(found)
                    })
                    .buffer_unordered(4)
                    .try_collect()
                    .await?;
                run.items += found.iter().map(Vec::len).sum::<usize>();
            }
        }
        Workload::Loader => {
            for wave in part.clone() {
                let resolvers: Vec<_> = resolved(wave)
                    .into_iter()
                    .map(|id| {
                        let (client, table) = (client.clone(), table.to_owned());
                        tokio::spawn(async move {
                            let output = client
                                .get_item()
                                .table_name(table)
                                .key("PK", s(format!("CUSTOMER#{}", id.0)))
                                .key("SK", s("PROFILE"))
                                .set_return_consumed_capacity(indexes())
                                .send()
                                .await?;
                            output.item.as_ref().map(raw_customer).transpose()
                        })
                    })
                    .collect();
                for resolver in resolvers {
                    run.items += usize::from(resolver.await??.is_some());
                }
            }
        }
        Workload::Stream => {
            let mut start = None;
            loop {
                let query = client
                    .query()
                    .table_name(table)
                    .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
                    .expression_attribute_values(":pk", s("CUSTOMER#C1"))
                    .expression_attribute_values(":sk", s("ORDER#"))
                    .set_exclusive_start_key(start)
                    .set_return_consumed_capacity(indexes());
                let output = query.send().await?;
                for item in output.items() {
                    std::hint::black_box(raw_order(item)?);
                    run.items += 1;
                }
                start = output.last_evaluated_key;
                if start.is_none() {
                    break;
                }
            }
        }
        Workload::Backfill => {
            let updated: Vec<(usize, f64)> = futures::stream::iter(0..4)
                .map(|segment| raw_backfill_segment(client, table, segment, 4))
                .buffer_unordered(4)
                .try_collect()
                .await?;
            run.items = updated.iter().map(|(n, _)| n).sum();
            run.read_units = updated.iter().map(|(_, units)| units).sum();
        }
    }
    run.elapsed = started.elapsed();
    Ok(run)
}

/// One segment of the hand-written backfill: a Scan of the orders, and for
/// each open order without its GSI2 keys an UpdateItem that writes them,
/// conditioned on the version and status it read. Returns the orders written
/// and the capacity units consumed.
async fn raw_backfill_segment(
    client: &Client,
    table: &str,
    segment: i32,
    segments: i32,
) -> Result<(usize, f64), BoxError> {
    let (mut written, mut units) = (0, 0.0);
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .segment(segment)
            .total_segments(segments)
            .consistent_read(true)
            .filter_expression("#t = :t")
            .expression_attribute_names("#t", "_type")
            .expression_attribute_values(":t", s("Order"))
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await?;
        units += page
            .consumed_capacity
            .as_ref()
            .and_then(|c| c.capacity_units)
            .unwrap_or(0.0);
        for item in page.items() {
            let order = raw_order(item)?;
            let want = raw_item(&order);
            if order.status != OrderStatus::Open || item.get("GSI2PK") == want.get("GSI2PK") {
                continue;
            }
            let update = client
                .update_item()
                .table_name(table)
                .key("PK", item["PK"].clone())
                .key("SK", item["SK"].clone())
                .update_expression("SET GSI2PK = :pk, GSI2SK = :sk")
                .expression_attribute_names("#s", "status")
                .expression_attribute_values(":pk", want["GSI2PK"].clone())
                .expression_attribute_values(":sk", want["GSI2SK"].clone())
                .expression_attribute_values(":v", item["version"].clone())
                .expression_attribute_values(":s", item["status"].clone())
                .set_return_values_on_condition_check_failure(all_old())
                .set_return_consumed_capacity(read_capacity());
            // ddb also conditions the write on the entity type it read.
            let update = if same_requests() {
                update
                    .condition_expression(
                        "attribute_exists(PK) AND #t = :t AND version = :v AND #s = :s",
                    )
                    .expression_attribute_names("#t", "_type")
                    .expression_attribute_values(":t", s("Order"))
            } else {
                update.condition_expression("attribute_exists(PK) AND version = :v AND #s = :s")
            };
            let output = update.send().await?;
            units += output
                .consumed_capacity
                .and_then(|c| c.capacity_units)
                .unwrap_or(0.0);
            written += 1;
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok((written, units));
        }
    }
}

/// Requests sent so far (every attempt), by either side.
static REQUESTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts every request the bench's client sends ([`REQUESTS`]).
#[derive(Debug)]
struct CountRequests;

impl aws_sdk_dynamodb::config::Intercept for CountRequests {
    fn name(&self) -> &'static str {
        "bench-count-requests"
    }

    fn read_before_transmit(
        &self,
        _: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

/// `DDB_BENCH_SHOW=1`: prints the first request of each operation on each
/// table, so that ddb's requests and the hand-written ones can be read side
/// by side.
#[derive(Debug, Default)]
struct ShowRequests(std::sync::Mutex<HashMap<String, String>>);

impl aws_sdk_dynamodb::config::Intercept for ShowRequests {
    fn name(&self) -> &'static str {
        "bench-show-requests"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let request = context.request();
        let operation = request.headers().get("x-amz-target").unwrap_or_default();
        let body = String::from_utf8_lossy(request.body().bytes().unwrap_or_default());
        // The bench's tables are named Bench-<process>-<n>-<nanos>.
        let table = body
            .split("\"Bench-")
            .nth(1)
            .and_then(|t| t.split('"').next());
        let table = table.unwrap_or_default().to_owned();
        let mut shown = self.0.lock().expect("not poisoned");
        if shown.get(operation) != Some(&table) {
            println!("  {operation}: {body}");
            shown.insert(operation.to_owned(), table);
        }
        Ok(())
    }
}

/// The hand-written side writes the items ddb writes, attribute for
/// attribute, so that both sides' tables hold the same data.
fn same_items() -> Result<(), BoxError> {
    for i in 0..64 {
        for status in [OrderStatus::Open, OrderStatus::Shipped] {
            let order = order(&format!("C{}", i % 7), i, status);
            if ddb_runtime::Entity::to_item(&order)? != raw_item(&order) {
                return Err(format!("the hand-written item of order {i} is not ddb's").into());
            }
        }
    }
    Ok(())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let (client, target, _guard) = ddb_examples::connect::client()
        .await
        .map_err(|e| e.to_string())?;
    let config = client.config().to_builder().interceptor(CountRequests);
    let client = if std::env::var("DDB_BENCH_SHOW").is_ok_and(|v| v == "1") {
        Client::from_conf(config.interceptor(ShowRequests::default()).build())
    } else {
        Client::from_conf(config.build())
    };
    let rounds: usize = std::env::var("DDB_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9);
    println!("ddb against hand-written SDK code on {target:?}, {rounds} round(s), medians");
    same_items()?;
    // `DDB_BENCH_ONLY=creates` runs the workloads whose name contains it.
    let only = std::env::var("DDB_BENCH_ONLY").unwrap_or_default();
    // `DDB_BENCH_SIDE=ddb` (or `raw`) runs that side alone, for a profiler
    // counting one side's work (`valgrind --tool=callgrind`).
    let one_side = std::env::var("DDB_BENCH_SIDE").ok();
    let passes: &[bool] = match std::env::var("DDB_BENCH_MINIMAL").as_deref() {
        Ok("1") => &[false],
        Ok("0") => &[true],
        _ => &[false, true],
    };
    let mut outcome = Ok(());
    for &same in passes {
        SAME_REQUESTS.store(same, std::sync::atomic::Ordering::Relaxed);
        match same {
            false => println!("\nagainst the minimal request a careful engineer writes:"),
            true => println!(
                "\nagainst the same request (capacity, item on a failed condition, guards):"
            ),
        }
        outcome = run_workloads(client.clone(), rounds, &only, one_side.as_deref()).await;
        if outcome.is_err() {
            break;
        }
    }
    // A failed workload leaves its tables: deleted before it is reported.
    let left = std::mem::take(&mut *created());
    for table in left {
        let deleted = client.delete_table().table_name(&table).send().await;
        match deleted {
            // Named before it was asked for, and never created.
            Err(error)
                if error
                    .as_service_error()
                    .is_some_and(|e| e.is_resource_not_found_exception()) => {}
            Err(error) => eprintln!(
                "the bench table {table} could not be deleted: {}",
                aws_sdk_dynamodb::error::DisplayErrorContext(&error)
            ),
            Ok(_) => {}
        }
    }
    outcome
}

/// Runs the workloads whose name contains `only`, `rounds` rounds each,
/// and prints their lines.
async fn run_workloads(
    client: Client,
    rounds: usize,
    only: &str,
    one_side: Option<&str>,
) -> Result<(), BoxError> {
    let handle = match same_requests() {
        true => Db::new(client.clone()).with_return_consumed_capacity(),
        false => Db::new(client.clone()),
    };
    for (workload, name) in WORKLOADS {
        if !name.contains(only) {
            continue;
        }
        let mut ddb_ms = Vec::new();
        let mut raw_ms = Vec::new();
        let mut ratios = Vec::new();
        // Client and server CPU per round, ddb's side then the raw side.
        let mut cpu: [(Vec<f64>, Vec<f64>); 2] = Default::default();
        let (mut ddb_last, mut raw_last) = (Run::default(), Run::default());
        for round in 0..rounds {
            // Each round alternates which side goes first, in everything:
            // which table is created and seeded first (the server's data of
            // the table seeded last is the warmer) and which side runs first.
            let ddb_first = round % 2 == 0;
            // A backfill changes every item of its table: each of its parts
            // starts from fresh tables; the other workloads seed once a round.
            let per_part = matches!(workload, Workload::Backfill);
            let round_tables = if per_part {
                None
            } else {
                Some(prepare(&client, &handle, workload, ddb_first).await?)
            };
            // The parts alternate which side goes first, starting with the
            // side of the round.
            (ddb_last, raw_last) = (Run::default(), Run::default());
            for (p, part) in parts(workload).into_iter().enumerate() {
                let (ddb_table, raw_table) = match &round_tables {
                    Some(tables) => tables.clone(),
                    None => prepare(&client, &handle, workload, ddb_first == (p % 2 == 0)).await?,
                };
                // One handle for the whole run, as a service makes one at
                // startup: each round only points it at its table.
                let db = handle.with_table_name::<Ecommerce>(ddb_table.clone());
                let ddb_part = || with_cpu(run_ddb(&db, workload, part.clone()));
                let raw_part = || with_cpu(run_raw(&client, &raw_table, workload, part.clone()));
                if one_side == Some("ddb") {
                    ddb_last = ddb_last.and(ddb_part().await?);
                } else if one_side == Some("raw") {
                    raw_last = raw_last.and(raw_part().await?);
                } else if ddb_first == (p % 2 == 0) {
                    ddb_last = ddb_last.and(ddb_part().await?);
                    raw_last = raw_last.and(raw_part().await?);
                } else {
                    raw_last = raw_last.and(raw_part().await?);
                    ddb_last = ddb_last.and(ddb_part().await?);
                }
                if round_tables.is_none() {
                    for table in [ddb_table, raw_table] {
                        delete_table(&client, table).await?;
                    }
                }
            }
            match one_side {
                Some("ddb") => raw_last = ddb_last,
                Some("raw") => ddb_last = raw_last,
                _ => {}
            }
            if ddb_last.items != raw_last.items {
                return Err(format!(
                    "{name}: ddb returned {} items, raw {}",
                    ddb_last.items, raw_last.items
                )
                .into());
            }
            ddb_ms.push(ddb_last.elapsed.as_secs_f64() * 1000.0);
            raw_ms.push(raw_last.elapsed.as_secs_f64() * 1000.0);
            for (cpu, run) in cpu.iter_mut().zip([&ddb_last, &raw_last]) {
                cpu.0.push(run.client_cpu.as_secs_f64() * 1000.0);
                cpu.1.push(run.server_cpu.as_secs_f64() * 1000.0);
            }
            ratios.push(ddb_last.elapsed.as_secs_f64() / raw_last.elapsed.as_secs_f64());
            for table in round_tables.into_iter().flat_map(|(d, r)| [d, r]) {
                delete_table(&client, table).await?;
            }
        }
        // The ratio is the median of the rounds' own ratios: each round runs
        // both sides back to back, so a slow moment of the machine weighs on
        // both sides of the same ratio.
        let (ddb, raw, ratio) = (median(ddb_ms), median(raw_ms), median(ratios));
        // For the backfill, the units are its reads and writes together.
        let per_item = |run: Run| {
            if run.read_units > 0.0 && run.items > 0 {
                format!("{:.3}", run.read_units / run.items as f64)
            } else {
                "-".into()
            }
        };
        println!(
            "{name}: ddb {ddb:.1} ms, raw {raw:.1} ms, ratio {ratio:.2}; requests: ddb {}, raw {}; {} per item: ddb {}, raw {}",
            ddb_last.requests,
            raw_last.requests,
            if matches!(workload, Workload::Backfill) {
                "capacity units (read and write)"
            } else {
                "read units"
            },
            per_item(ddb_last),
            per_item(raw_last),
        );
        if std::env::var_os("DDB_BENCH_CPU").is_some() {
            let [(ddb_client, ddb_server), (raw_client, raw_server)] = cpu;
            println!(
                "  CPU (medians): ddb client {:.1} ms, server {:.1} ms; raw client {:.1} ms, server {:.1} ms",
                median(ddb_client),
                median(ddb_server),
                median(raw_client),
                median(raw_server),
            );
        }
        if matches!(workload, Workload::Stream) {
            if let Some(peak) = peak_rss_mb() {
                println!("  peak resident memory of the process so far: {peak:.0} MB");
            }
        }
    }
    Ok(())
}
