//! The runtime handle: the user's client and the physical table names.

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use aws_sdk_dynamodb::Client;

use crate::entity::Table;
mod cursor_keys;
mod send;

use crate::transport::batch::RetryPolicy;
pub(crate) use cursor_keys::{CursorKeys, SEALED};

/// ddb over an `aws_sdk_dynamodb::Client`: every typed request starts here.
///
/// Cheap to clone (an `Arc`), `Send + Sync`. The physical name of each table
/// is its declared name unless overridden, e.g. per environment or per test.
///
/// ```no_run
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> Result<(), ddb_runtime::Error> {
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String, name: String }
/// let db = ddb_runtime::Db::new(client).with_table_name::<Ecommerce>("Ecommerce-staging");
/// let customer: Option<Customer> = db.get(Customer::key(&"123".to_string())?).send().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    sdk: Arc<crate::transport::sdk::Sdk>,
    names: HashMap<TypeId, String>,
    retry: RetryPolicy,
    cursor_keys: Option<Arc<CursorKeys>>,
    guard_hash_key: Option<Arc<Vec<u8>>>,
    exactly_once_writes: bool,
    return_consumed_capacity: bool,
    capacity_meter: Option<crate::telemetry::CapacityMeter>,
}

impl fmt::Debug for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Db")
            .field(
                "table_names",
                &self.inner.names.values().collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Db {
    /// ddb over `client`.
    ///
    /// ddb sends every request through `client` itself (its configuration,
    /// connections, credentials cache and interceptors), adding to each one
    /// an interceptor that records its attempts. Make one `Db` and clone it
    /// (a clone is an `Arc`).
    ///
    /// ```no_run
    /// # fn demo(client: aws_sdk_dynamodb::Client) {
    /// let db = ddb_runtime::Db::new(client);
    /// let for_a_task = db.clone(); // cheap: an Arc
    /// # let _ = for_a_task;
    /// # }
    /// ```
    pub fn new(client: Client) -> Self {
        Self {
            inner: Arc::new(Inner {
                sdk: crate::transport::sdk::Sdk::new(client),
                names: HashMap::new(),
                retry: RetryPolicy::default(),
                cursor_keys: None,
                guard_hash_key: None,
                exactly_once_writes: false,
                return_consumed_capacity: false,
                capacity_meter: None,
            }),
        }
    }

    /// A copy of this handle with `change` applied to its settings.
    fn with(&self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = (*self.inner).clone();
        change(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The same handle with table `T` stored under `name`.
    #[must_use]
    pub fn with_table_name<T: Table + 'static>(&self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.with(|inner| {
            inner.names.insert(TypeId::of::<T>(), name);
        })
    }

    /// The same handle retrying unprocessed batch items with `policy`.
    #[must_use]
    pub fn with_retry_policy(&self, policy: RetryPolicy) -> Self {
        self.with(|inner| inner.retry = policy)
    }

    /// The same handle signing the cursors it returns with `key`
    /// (HMAC-SHA256), and taking only cursors signed under it or a key it
    /// replaced: a client can no longer forge a position. Called again with
    /// a new key, it rotates: the old key still verifies cursors already
    /// handed out. Use at least 32 random bytes. Cursors stay readable (they
    /// are signed, not encrypted): they hold the keys of the last items;
    /// [`with_cursor_encryption`](Self::with_cursor_encryption) hides them.
    ///
    /// ```
    /// # fn demo(db: ddb_runtime::Db) {
    /// let signed = db.with_cursor_key(b"32 random bytes from a secret store".to_vec());
    /// let rotated = signed.with_cursor_key(b"the next 32 random bytes, rotated".to_vec());
    /// # }
    /// ```
    #[must_use]
    pub fn with_cursor_key(&self, key: impl Into<Vec<u8>>) -> Self {
        let key = key.into();
        self.with(|inner| {
            let keys = match &inner.cursor_keys {
                Some(keys) => keys.rotated(key),
                None => CursorKeys::new(key),
            };
            inner.cursor_keys = Some(Arc::new(keys));
        })
    }

    /// The same handle encrypting the cursors it returns under `key`
    /// (AES-256-GCM-SIV, with a key derived from `key`): clients can neither
    /// read the item keys in a cursor nor forge one, and only encrypted
    /// cursors are taken. Called again, it rotates like
    /// [`with_cursor_key`](Self::with_cursor_key): cursors made under the
    /// previous key still open. Use at least 32 random bytes.
    ///
    /// ```
    /// # fn demo(db: ddb_runtime::Db) {
    /// let private = db.with_cursor_encryption(b"32 random bytes from a secret store".to_vec());
    /// # }
    /// ```
    #[must_use]
    pub fn with_cursor_encryption(&self, key: impl Into<Vec<u8>>) -> Self {
        self.with_cursor_key(key).with(|inner| {
            if let Some(keys) = &inner.cursor_keys {
                inner.cursor_keys = Some(Arc::new(keys.encrypting()));
            }
        })
    }

    /// The same handle also taking cursors signed under `key` (a key retired
    /// elsewhere, such as another instance's previous key); it signs with
    /// its current key only. Without a current key, `key` becomes it.
    #[must_use]
    pub fn with_previous_cursor_key(&self, key: impl Into<Vec<u8>>) -> Self {
        let key = key.into();
        self.with(|inner| {
            let keys = match &inner.cursor_keys {
                Some(keys) => keys.with_previous(key),
                None => CursorKeys::new(key),
            };
            inner.cursor_keys = Some(Arc::new(keys));
        })
    }

    /// The same handle asking DynamoDB for the capacity of every request
    /// (`ReturnConsumedCapacity: INDEXES`), so that every result reports it:
    /// [`Written::capacity`](crate::write::Written::capacity),
    /// `Page::consumed_capacity`, a batch's and a transaction's. Without it,
    /// a request asks only when its caller reads the capacity
    /// (`send_with_capacity`, a handle made
    /// [`with_capacity_meter`](Self::with_capacity_meter)) or a `tracing`
    /// subscriber records its span;
    /// any other result reports zero, and DynamoDB is asked for nothing
    /// nobody reads.
    ///
    /// ```
    /// # fn demo(db: ddb_runtime::Db) {
    /// let costed = db.with_return_consumed_capacity();
    /// # }
    /// ```
    #[must_use]
    pub fn with_return_consumed_capacity(&self) -> Self {
        self.with(|inner| inner.return_consumed_capacity = true)
    }

    /// The same handle adding the capacity of every request it (or a
    /// clone) sends to `meter`, whatever the builder: each asks DynamoDB
    /// for its capacity. The way to read the capacity of any call, or of a
    /// whole unit of work (a service's request handler), however many
    /// requests it sends. A handle made from this one keeps the meter.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "SignUp", pk = "SIGNUP#{email}")]
    /// # struct SignUp { email: String }
    /// let meter = ddb_runtime::CapacityMeter::default();
    /// let metered = db.with_capacity_meter(&meter);
    /// let sign_up = SignUp { email: "ada@example.com".into() };
    /// metered.put(&sign_up).send().await?;
    /// metered.get(SignUp::key(&sign_up.email)?).send().await?;
    /// println!("{} units for the put and the get", meter.take());
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn with_capacity_meter(&self, meter: &crate::telemetry::CapacityMeter) -> Self {
        self.with(|inner| inner.capacity_meter = Some(meter.clone()))
    }

    /// The same handle sending every create, put, update and delete
    /// [`exactly_once`](crate::write::Put::exactly_once): as a one-action
    /// TransactWriteItems under a ClientRequestToken, so that no lost answer
    /// can make a write apply twice or report its own write as a conflict.
    /// Each write then costs two write units per KB instead of one and
    /// returns no item. Batches are not affected (BatchWriteItem has no
    /// token; its puts and deletes are idempotent).
    ///
    /// ```
    /// # fn demo(db: ddb_runtime::Db) {
    /// let exact = db.with_exactly_once_writes();
    /// # }
    /// ```
    #[must_use]
    pub fn with_exactly_once_writes(&self) -> Self {
        self.with(|inner| inner.exactly_once_writes = true)
    }

    /// The same handle keying the guards of unique values that hold a
    /// `#[ddb(sensitive)]` field by HMAC-SHA256 of the value under `key`
    /// (the value never appears in a key), and the fingerprint an
    /// idempotency record keeps of an entity with such a field. Every handle writing such an
    /// entity needs the same key (a guard keyed under another key guards
    /// nothing); use at least 32 random bytes from a secret store.
    ///
    /// ```
    /// # fn demo(db: ddb_runtime::Db) {
    /// let db = db.with_guard_hash_key(b"32 random bytes from a secret store".to_vec());
    /// # }
    /// ```
    #[must_use]
    pub fn with_guard_hash_key(&self, key: impl Into<Vec<u8>>) -> Self {
        let key = Arc::new(key.into());
        self.with(|inner| inner.guard_hash_key = Some(key))
    }

    /// The keyed hash (HMAC-SHA256) of a sensitive unique value or
    /// content, hex: `None` without a guard hash key.
    pub(crate) fn guard_hash(&self, value: impl AsRef<[u8]>) -> Option<String> {
        use hmac::{KeyInit, Mac};
        let key = self.inner.guard_hash_key.as_ref()?;
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).ok()?;
        mac.update(value.as_ref());
        let digest = mac.finalize().into_bytes();
        Some(digest.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Whether writes go exactly once by default.
    pub(crate) fn exactly_once_writes(&self) -> bool {
        self.inner.exactly_once_writes
    }

    /// What a request asks of DynamoDB's capacity: the detail per index when
    /// its caller reads it (`asked`), the handle reports every request's,
    /// or `span` is recorded; nothing otherwise.
    pub(crate) fn consumed_capacity(
        &self,
        span: &crate::telemetry::RequestSpan,
        asked: bool,
    ) -> Option<aws_sdk_dynamodb::types::ReturnConsumedCapacity> {
        let wanted = asked || self.inner.return_consumed_capacity || span.reads_capacity();
        wanted.then_some(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes)
    }

    pub(crate) fn cursor_keys(&self) -> Option<Arc<CursorKeys>> {
        self.inner.cursor_keys.clone()
    }

    /// How batches retry unprocessed items.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.inner.retry
    }

    /// The physical name of table `T`.
    pub fn table_name<T: Table + 'static>(&self) -> &str {
        self.inner
            .names
            .get(&TypeId::of::<T>())
            .map(String::as_str)
            .unwrap_or(T::DEF.name)
    }

    /// The SDK client this handle was made with, for anything ddb does not
    /// cover.
    pub fn client(&self) -> &Client {
        self.inner.sdk.caller()
    }

    /// The caller's client, as ddb sends through it.
    pub(crate) fn sdk(&self) -> &Arc<crate::transport::sdk::Sdk> {
        &self.inner.sdk
    }

    /// The span of one request of `operation` on `table` (and `index`),
    /// for `entity` ("" when it is of several); in a dry run, a span that
    /// records nothing.
    pub(crate) fn span(
        &self,
        operation: &'static str,
        table: &str,
        index: Option<&str>,
        entity: &'static str,
    ) -> crate::telemetry::RequestSpan {
        self.span_of_tables(operation, &[table], index, entity)
    }

    /// The span of one request of `operation` on each of `tables` (a
    /// transaction's), for `entity` ("" when it is of several).
    pub(crate) fn span_of_tables(
        &self,
        operation: &'static str,
        tables: &[&str],
        index: Option<&str>,
        entity: &'static str,
    ) -> crate::telemetry::RequestSpan {
        use crate::telemetry::RequestSpan;
        let span = if crate::transport::capture::in_dry_run() {
            RequestSpan::disabled()
        } else {
            let server = self.inner.sdk.server();
            RequestSpan::of_tables(server, operation, tables, index, entity)
        };
        // A dry run's request asks for the capacity as the one sent would.
        span.metered(self.inner.capacity_meter.as_ref())
    }

    /// The dry run of a call: the requests its `send` would send first,
    /// not sent, printed without the values of `sensitive` attributes. A
    /// write (`writes`) whose first request is a GetItem reads first.
    pub(crate) fn dry_run<T>(
        &self,
        send: impl std::future::Future<Output = crate::error::Result<T>>,
        sensitive: Vec<&'static str>,
        writes: bool,
    ) -> crate::error::Result<crate::transport::dry_run::DryRun> {
        use crate::transport::dry_run::Request;
        let requests = crate::transport::capture::requests_sent_first(send)?;
        let reads_first = writes && matches!(requests.first(), Some(Request::GetItemInput(_)));
        let dry = crate::transport::dry_run::DryRun::new(requests, sensitive);
        Ok(if reads_first {
            dry.reading_first()
        } else {
            dry
        })
    }

    /// One GetItem of the item at `key` of table `T`, as DynamoDB stores
    /// it (`attributes` only, when given, each name through a placeholder
    /// where it needs one): the reads ddb makes for itself, of a guard or of
    /// the item a write reads first. A span of `entity`'s.
    pub(crate) async fn get_stored<T: Table + 'static>(
        &self,
        entity: &'static str,
        key: crate::item::Item,
        consistent: bool,
        attributes: &[&str],
    ) -> crate::error::Result<Option<crate::item::Item>> {
        let name = self.table_name::<T>();
        self.get_stored_in(name, entity, key, consistent, attributes)
            .await
    }

    /// [`get_stored`](Self::get_stored) from the table named `name`.
    pub(crate) async fn get_stored_in(
        &self,
        name: &str,
        entity: &'static str,
        key: crate::item::Item,
        consistent: bool,
        attributes: &[&str],
    ) -> crate::error::Result<Option<crate::item::Item>> {
        let (projection, names) = stored_projection(attributes);
        let span = self.span("GetItem", name, None, entity);
        let read = crate::telemetry::Read {
            consistent,
            projection: projection.as_deref(),
            ..Default::default()
        };
        span.reading(&read, names.as_ref());
        let request = self
            .client()
            .get_item()
            .table_name(name)
            .set_key(Some(key))
            .set_consistent_read(consistent.then_some(true))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .set_return_consumed_capacity(self.consumed_capacity(&span, false));
        Ok(self.send_in_span(&span, request).await?.item)
    }
}

/// The projection expression of a stored read of `attributes` (none when
/// empty), each name through a placeholder where it needs one.
fn stored_projection(attributes: &[&str]) -> (Option<String>, crate::expression::NameMap) {
    let mut placeholders = crate::expression::Placeholders::default();
    let projection =
        (!attributes.is_empty()).then(|| placeholders.projection(attributes.iter().copied()));
    let (names, _) = placeholders.into_maps();
    (projection, names)
}
