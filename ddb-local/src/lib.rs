//! A local DynamoDB for tests and development, one call away, and a
//! fault-injecting proxy in front of it.
//!
//! Without `DDB_ENDPOINT` in the environment, [`LocalDynamoDb::start`] starts
//! [Dynoxide](https://crates.io/crates/dynoxide-rs), a DynamoDB-compatible
//! server backed by an in-memory SQLite database, on a free port of
//! `127.0.0.1`, and hands back an [`aws_sdk_dynamodb::Client`] configured for
//! it. The client talks to the server over HTTP exactly as it talks to AWS, so
//! a test exercises the same request path as production. With `DDB_ENDPOINT`
//! set (DynamoDB Local, a dynoxide binary, real DynamoDB), nothing is started
//! and the client points there instead.
//!
//! It is a crate of its own, a dev-dependency, so that production builds
//! never compile SQLite:
//!
//! ```toml
//! [dev-dependencies]
//! ddb-local = "0.1"
//! ```
//!
//! Limits of the emulator worth knowing: every read is consistent, and it never
//! throttles, never returns unprocessed batch items and never reports a
//! transaction conflict. Test those paths through a fault-injecting proxy.

mod faults;
pub use faults::{Delayed, Fault, FaultProxy, Held, ThrottlingError};

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::Client;

/// The environment variable that points tests and examples at another endpoint.
pub const ENDPOINT_VAR: &str = "DDB_ENDPOINT";

/// Why a local DynamoDB could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// Binding `127.0.0.1:0` failed.
    #[error("cannot bind a local port for the embedded DynamoDB: {0}")]
    Bind(#[source] std::io::Error),
    /// The server's runtime or thread could not be created.
    #[error("cannot start the embedded DynamoDB: {0}")]
    Start(String),
    /// `DDB_ENDPOINT` is set but is not an `http://` or `https://` URL.
    #[error("DDB_ENDPOINT must be an http:// or https:// URL, got `{0}`")]
    InvalidEndpoint(String),
}

/// A DynamoDB endpoint for tests and local development, with a client for it.
///
/// Holds the embedded server, when one was started, until dropped: dropping it
/// stops the server. Clones of the [`Client`] taken from it stop working then.
///
/// # Example
///
/// A user's own test gets a real local DynamoDB in one line:
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let local = ddb_local::LocalDynamoDb::start()?;
/// let tables = local.client().list_tables().send().await?;
/// assert!(tables.table_names().iter().all(|name| !name.is_empty()));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct LocalDynamoDb {
    client: Client,
    endpoint: String,
    server: Option<EmbeddedServer>,
}

impl LocalDynamoDb {
    /// Connects to `DDB_ENDPOINT` when it is set; otherwise starts an embedded
    /// server on a free port of `127.0.0.1`.
    pub fn start() -> Result<Self, LocalError> {
        match std::env::var(ENDPOINT_VAR) {
            Ok(endpoint) if !endpoint.trim().is_empty() => Self::connect(endpoint.trim()),
            _ => Self::embedded(),
        }
    }

    /// Starts an embedded server, whatever `DDB_ENDPOINT` says.
    ///
    /// The server runs on a thread of its own, so it serves any caller: a
    /// `#[tokio::test]` on a current-thread runtime, another runtime, or
    /// synchronous code.
    ///
    /// ```
    /// let local = ddb_local::LocalDynamoDb::embedded()?;
    /// assert!(local.endpoint().starts_with("http://127.0.0.1:"));
    /// # Ok::<(), ddb_local::LocalError>(())
    /// ```
    pub fn embedded() -> Result<Self, LocalError> {
        let server = EmbeddedServer::start()?;
        let endpoint = format!("http://{}", server.addr);
        Ok(Self {
            client: client_for(&endpoint),
            endpoint,
            server: Some(server),
        })
    }

    /// Uses the DynamoDB-compatible server at `endpoint` and starts nothing.
    ///
    /// Credentials come from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
    /// `AWS_SESSION_TOKEN` when set (as real DynamoDB needs), else fixed test
    /// credentials; the region from `AWS_REGION`, else `us-east-1`.
    ///
    /// ```
    /// let local = ddb_local::LocalDynamoDb::connect("http://127.0.0.1:8000")?;
    /// assert_eq!(local.endpoint(), "http://127.0.0.1:8000");
    /// assert!(!local.is_embedded());
    /// # Ok::<(), ddb_local::LocalError>(())
    /// ```
    pub fn connect(endpoint: impl Into<String>) -> Result<Self, LocalError> {
        let endpoint = endpoint.into();
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            return Err(LocalError::InvalidEndpoint(endpoint));
        }
        Ok(Self {
            client: client_for(&endpoint),
            endpoint,
            server: None,
        })
    }

    /// The client, configured for this endpoint.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Whether this value started (and owns) an embedded server.
    pub fn is_embedded(&self) -> bool {
        self.server.is_some()
    }

    /// A new client for the same endpoint.
    ///
    /// An SDK client keeps its connections on the Tokio runtime that first used
    /// it; a test that shares one server across several runtimes (one per
    /// `#[tokio::test]`) takes a fresh client in each.
    pub fn new_client(&self) -> Client {
        client_for(&self.endpoint)
    }

    /// The configuration of [`new_client`](Self::new_client), to adjust
    /// (retries, timeouts) before building a client from it.
    ///
    /// ```
    /// use aws_sdk_dynamodb::config::retry::RetryConfig;
    /// let local = ddb_local::LocalDynamoDb::connect("http://127.0.0.1:8000")?;
    /// let config = local.config_builder().retry_config(RetryConfig::disabled()).build();
    /// let client = aws_sdk_dynamodb::Client::from_conf(config);
    /// # let _ = client;
    /// # Ok::<(), ddb_local::LocalError>(())
    /// ```
    pub fn config_builder(&self) -> aws_sdk_dynamodb::config::Builder {
        config_for(&self.endpoint)
    }
}

/// A table name no other call in this process, or any other process, returns:
/// `<prefix>-<pid>-<counter>-<nanos>`, so parallel tests never share a table.
///
/// ```
/// let a = ddb_local::unique_table_name("orders");
/// let b = ddb_local::unique_table_name("orders");
/// assert_ne!(a, b);
/// assert!(a.starts_with("orders-"));
/// ```
pub fn unique_table_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{n}-{nanos}", std::process::id())
}

/// A client for `endpoint` with the standard retry policy, credentials from the
/// environment or fixed test ones, and the region from `AWS_REGION`.
fn client_for(endpoint: &str) -> Client {
    Client::from_conf(config_for(endpoint).build())
}

fn config_for(endpoint: &str) -> aws_sdk_dynamodb::config::Builder {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let credentials = match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        (Some(id), Some(secret)) => {
            Credentials::new(id, secret, env("AWS_SESSION_TOKEN"), None, "environment")
        }
        _ => Credentials::new("ddblocal", "ddblocal", None, None, "ddb-local"),
    };
    let region = env("AWS_REGION").unwrap_or_else(|| "us-east-1".to_owned());
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region))
        .credentials_provider(credentials)
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::standard())
}

/// Dynoxide on a thread of its own, stopped when dropped.
#[derive(Debug)]
struct EmbeddedServer {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl EmbeddedServer {
    fn start() -> Result<Self, LocalError> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(LocalError::Bind)?;
        listener.set_nonblocking(true).map_err(LocalError::Bind)?;
        let addr = listener.local_addr().map_err(LocalError::Bind)?;
        let db = dynoxide::Database::memory().map_err(|e| LocalError::Start(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LocalError::Start(e.to_string()))?;
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        thread::Builder::new()
            .name(format!("ddb-local-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => listener,
                        Err(error) => {
                            tracing::error!(%error, "embedded DynamoDB cannot listen");
                            return;
                        }
                    };
                    let signal = async move {
                        let _ = stopped.await;
                    };
                    if let Err(error) =
                        dynoxide::server::serve_with_shutdown(listener, db, signal).await
                    {
                        tracing::error!(%error, "embedded DynamoDB stopped with an error");
                    }
                });
            })
            .map_err(|e| LocalError::Start(e.to_string()))?;
        Ok(Self {
            addr,
            shutdown: Some(shutdown),
        })
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            // The thread finishes the requests under way, then exits on its own;
            // joining it here could block a caller's runtime on a slow client.
            let _ = shutdown.send(());
        }
    }
}
