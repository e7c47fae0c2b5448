//! Shared set-up for ddb's integration tests: one local DynamoDB per test
//! process (or `DDB_ENDPOINT`), a fresh client per test, a table per test,
//! and a fault-injecting proxy.

pub mod engine;
pub mod proxy;

use std::sync::OnceLock;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use ddb_local::{unique_table_name, LocalDynamoDb};
use ddb_runtime::model::TableDef;

/// The process's local DynamoDB: started once, shared by every test. Each test
/// uses its own tables, so tests run in parallel without interfering.
pub fn local() -> &'static LocalDynamoDb {
    static LOCAL: OnceLock<LocalDynamoDb> = OnceLock::new();
    undecided_global_subscriber();
    LOCAL.get_or_init(|| LocalDynamoDb::start().expect("start the local DynamoDB"))
}

/// A client for this test's runtime (SDK clients keep connections per runtime).
pub fn client() -> Client {
    local().new_client()
}

/// Creates a uniquely named copy of `table` and returns its name.
pub async fn create_table(client: &Client, table: &TableDef) -> String {
    let name = unique_table_name(table.name);
    ddb_runtime::schema::create_table_if_missing(client, table, &name, Duration::from_secs(60))
        .await
        .expect("create the test table");
    name
}

/// Waits for table `name` to be ACTIVE, as real DynamoDB requires before it
/// takes requests (DescribeTable every 50 ms, for at most a minute).
pub async fn wait_until_active(client: &Client, name: &str) {
    use aws_sdk_dynamodb::types::TableStatus;
    let started = std::time::Instant::now();
    loop {
        let described = client.describe_table().table_name(name).send().await;
        let status = described
            .ok()
            .and_then(|d| d.table)
            .and_then(|t| t.table_status);
        if status == Some(TableStatus::Active) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{name} is not ACTIVE after a minute"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Held by a test while it sets a `tracing` subscriber of its own: tracing
/// caches whether a call site is wanted across every thread's subscriber,
/// and a test dropping its subscriber while another sets one can leave the
/// other's spans cached as unwanted. One such test at a time; each rebuilds
/// the cache once its subscriber is set.
pub async fn one_subscriber_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static SUBSCRIBED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    undecided_global_subscriber();
    SUBSCRIBED.lock().await
}

/// Sets, once, a global subscriber that wants nothing but says so at each
/// span rather than once per call site: with it, no call site is ever
/// cached as unwanted by every subscriber, which a test's own subscriber,
/// set on its thread while another thread registers the call site, would
/// then never see.
fn undecided_global_subscriber() {
    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::Interest;
    use tracing::{Event, Metadata};
    struct Undecided;
    impl tracing::Subscriber for Undecided {
        fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
            Interest::sometimes()
        }
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            false
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
    static SET: OnceLock<()> = OnceLock::new();
    SET.get_or_init(|| {
        // A test binary that set its own global subscriber keeps it.
        let _ = tracing::subscriber::set_global_default(Undecided);
    });
}

/// A `Db` on a fresh copy of table `T`, for this test alone.
pub async fn db_with_table<T: ddb_runtime::Table + 'static>() -> ddb_runtime::Db {
    let client = client();
    let name = create_table(&client, &T::DEF).await;
    ddb_runtime::Db::new(client).with_table_name::<T>(name)
}

/// Writes entities with plain PutItem requests through the SDK (the reads
/// tests do not depend on ddb's own write path).
pub async fn put_raw<E: ddb_runtime::Entity + 'static>(db: &ddb_runtime::Db, entities: &[E]) {
    let table = db.table_name::<E::Table>().to_owned();
    for entity in entities {
        db.client()
            .put_item()
            .table_name(&table)
            .set_item(Some(entity.to_item().expect("encode")))
            .send()
            .await
            .expect("put");
    }
}

/// The item at `key` of `db`'s copy of table `T`, read with a plain
/// consistent GetItem through the SDK (not through ddb).
pub async fn raw_item<T: ddb_runtime::Table + 'static>(
    db: &ddb_runtime::Db,
    key: ddb_runtime::Item,
) -> Option<ddb_runtime::Item> {
    db.client()
        .get_item()
        .table_name(db.table_name::<T>())
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .expect("raw GetItem")
        .item
}

/// `item` as DynamoDB's JSON writes it, for a scripted answer
/// (`Fault::Json`): Strings, Numbers, Booleans, nulls, lists and maps.
pub fn item_json(item: &ddb_runtime::Item) -> serde_json::Value {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    fn json_of(value: &V) -> serde_json::Value {
        match value {
            V::S(text) => serde_json::json!({ "S": text }),
            V::N(number) => serde_json::json!({ "N": number }),
            V::Bool(b) => serde_json::json!({ "BOOL": b }),
            V::Null(_) => serde_json::json!({ "NULL": true }),
            V::L(list) => serde_json::json!({ "L": list.iter().map(json_of).collect::<Vec<_>>() }),
            V::M(map) => serde_json::json!({ "M": item_json(map) }),
            other => panic!("not written as JSON here: {other:?}"),
        }
    }
    let map = item.iter().map(|(name, v)| (name.clone(), json_of(v)));
    serde_json::Value::Object(map.collect())
}

/// Every item of `db`'s copy of table `T`, by a plain consistent Scan
/// through the SDK (not through ddb), all pages.
pub async fn scan_raw<T: ddb_runtime::Table + 'static>(
    db: &ddb_runtime::Db,
) -> Vec<ddb_runtime::Item> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = db
            .client()
            .scan()
            .table_name(db.table_name::<T>())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("raw Scan");
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return items;
        }
    }
}

/// A client through `proxy`, retrying fast (tests wait on backoff otherwise),
/// with a retry bucket of its own, as the SDK's default, so the faults one
/// test injects never use up the retries of another running beside it (the
/// SDK shares its default bucket between every client of a process).
pub fn proxied_client(proxy: &proxy::Proxy) -> Client {
    use aws_sdk_dynamodb::config::retry::{RetryConfig, TokenBucket};
    let retry = RetryConfig::standard()
        .with_max_attempts(4)
        .with_initial_backoff(std::time::Duration::from_millis(5))
        .with_max_backoff(std::time::Duration::from_millis(50));
    client_through(proxy, retry, TokenBucket::default())
}

/// A client through `proxy` that keeps retrying under sustained faults, as a
/// service facing them would be configured: 12 attempts, a fast backoff
/// (tests wait on it otherwise), and a retry bucket of its own that never
/// runs dry (the SDK's default bucket stops retrying after about 100
/// retries without successes in between).
pub fn patient_client(proxy: &proxy::Proxy) -> Client {
    use aws_sdk_dynamodb::config::retry::{RetryConfig, TokenBucket};
    let retry = RetryConfig::standard()
        .with_max_attempts(12)
        .with_initial_backoff(std::time::Duration::from_millis(2))
        .with_max_backoff(std::time::Duration::from_millis(20));
    client_through(proxy, retry, TokenBucket::unlimited())
}

/// A client through `proxy` retrying as `retry` says, from `bucket`, a retry
/// bucket no other client shares.
fn client_through(
    proxy: &proxy::Proxy,
    retry: aws_sdk_dynamodb::config::retry::RetryConfig,
    bucket: aws_sdk_dynamodb::config::retry::TokenBucket,
) -> Client {
    use aws_sdk_dynamodb::config::retry::RetryPartition;
    let local = LocalDynamoDb::connect(proxy.endpoint().to_owned()).expect("proxy endpoint");
    let partition = RetryPartition::custom(format!("ddb-tests-{}", proxy.endpoint()))
        .token_bucket(bucket)
        .build();
    let config = local
        .config_builder()
        .retry_config(retry)
        .retry_partition(partition)
        .build();
    Client::from_conf(config)
}

/// The JSON bodies of the `target` requests (`"Query"`, `"UpdateItem"`, ...)
/// `proxy` recorded, in the order they arrived (see `Proxy::record`).
pub fn recorded_json(proxy: &proxy::Proxy, target: &str) -> Vec<serde_json::Value> {
    proxy
        .recorded(target)
        .iter()
        .map(|body| serde_json::from_slice(body).expect("a JSON request body"))
        .collect()
}

/// The value of request parameter `field` (`"ReturnValues"`) in each
/// `target` request `proxy` recorded, in order; `None` where it was left out.
pub fn recorded_field(
    proxy: &proxy::Proxy,
    target: &str,
    field: &str,
) -> Vec<Option<serde_json::Value>> {
    let sent = recorded_json(proxy, target);
    sent.iter().map(|body| body.get(field).cloned()).collect()
}

/// The attribute names a recorded request's `ProjectionExpression` reads,
/// its placeholders resolved (none without one).
pub fn projected_attributes(body: &serde_json::Value) -> Vec<String> {
    let projection = body["ProjectionExpression"].as_str().unwrap_or_default();
    named_attributes(body, projection)
}

/// The attribute names of `list`, a comma-separated list of names or name
/// placeholders of the recorded request `body` (a projection, a `REMOVE`
/// clause), its placeholders resolved.
pub fn named_attributes(body: &serde_json::Value, list: &str) -> Vec<String> {
    let names = &body["ExpressionAttributeNames"];
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| names[name].as_str().unwrap_or(name).to_owned())
        .collect()
}

/// A fault-injecting proxy in front of the local server, and a `Db` that
/// reaches `db`'s copy of table `T` through it.
pub async fn through_proxy<T: ddb_runtime::Table + 'static>(
    db: &ddb_runtime::Db,
) -> (proxy::Proxy, ddb_runtime::Db) {
    let proxy = proxy::Proxy::start(local().endpoint())
        .await
        .expect("start the fault proxy");
    let through =
        ddb_runtime::Db::new(proxied_client(&proxy)).with_table_name::<T>(db.table_name::<T>());
    (proxy, through)
}

/// SplitMix64: a small, seeded, reproducible generator for stress tests.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}
