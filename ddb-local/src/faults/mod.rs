//! A fault-injecting proxy for tests: what the emulator never does on its
//! own (unprocessed batch items, throttling, server errors, responses lost
//! after the write was applied), scripted or at random, with counters.

mod connection;
mod http;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::net::TcpListener;

use super::LocalDynamoDb;
use connection::serve;

/// What the proxy does to a matching request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Fault {
    /// For a BatchWriteItem or BatchGetItem: keeps back up to `n` items of
    /// each table of the request (all when `None`) and answers them as
    /// unprocessed; the others are forwarded and applied. Ignored for other
    /// operations.
    Unprocessed(Option<usize>),
    /// For a BatchWriteItem or BatchGetItem: keeps back this share (0 to 1,
    /// rounded down) of each table's items and answers them as unprocessed,
    /// so that a request of one item always goes through. Ignored for other
    /// operations.
    UnprocessedShare(f64),
    /// Answers with this HTTP status and error type, without forwarding.
    Error(u16, &'static str),
    /// Answers with this HTTP status and JSON body, without forwarding.
    Json(u16, String),
    /// Forwards the request (so it is applied), then closes the connection
    /// without answering: a lost response.
    DropResponse,
    /// For a TransactWriteItems: answers, without forwarding, a
    /// TransactionCanceledException whose every reason is a
    /// `TransactionConflict` (another transaction held an item). Ignored for
    /// other operations.
    TransactionConflict,
    /// Forwards the request, signals `forwarded`, and answers only once
    /// `release` is notified: a slow response, for a test to act in between.
    Hold {
        /// Notified once the request has been applied upstream.
        forwarded: Arc<tokio::sync::Notify>,
        /// Notify it to let the answer go.
        release: Arc<tokio::sync::Notify>,
    },
    /// Keeps the request, signals `arrived`, and forwards it (so it is
    /// applied) only once `release` is notified, then answers: a request
    /// that reaches DynamoDB late, after its caller may have given up.
    Delay {
        /// Notified once the request has reached the proxy.
        arrived: Arc<tokio::sync::Notify>,
        /// Notify it to let the request go on.
        release: Arc<tokio::sync::Notify>,
    },
}

/// The error a throttle is answered with ([`Fault::throttled_by`]): each
/// carries DynamoDB's throttling reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThrottlingError {
    /// `ProvisionedThroughputExceededException`: a provisioned table or
    /// index over its capacity.
    ProvisionedThroughputExceeded,
    /// `ThrottlingException`: an on-demand table or index over a limit
    /// (the account's per-table quota, its maximum throughput, a hot
    /// partition).
    Throttling,
    /// `RequestLimitExceeded`: the account's throughput quota.
    RequestLimitExceeded,
}

impl Fault {
    /// A throttle as DynamoDB answers a provisioned table or index:
    /// `ProvisionedThroughputExceededException` (HTTP 400) with one
    /// `ThrottlingReasons` entry, `reason` for the table or index ARN
    /// `resource`. The SDK retries it as a throttle.
    ///
    /// ```
    /// let hot = ddb_local::Fault::throttled(
    ///     "TableWriteKeyRangeThroughputExceeded",
    ///     "arn:aws:dynamodb:us-east-1:000000000000:table/Ecommerce",
    /// );
    /// # let _ = hot;
    /// ```
    pub fn throttled(reason: &str, resource: &str) -> Fault {
        Fault::throttled_by(
            ThrottlingError::ProvisionedThroughputExceeded,
            reason,
            resource,
        )
    }

    /// A throttle answered with `error` (HTTP 400), its one reason `reason`
    /// for the table or index ARN `resource`, under the name that error
    /// carries its reasons (`throttlingReasons` for `ThrottlingException`,
    /// `ThrottlingReasons` for the others), as DynamoDB answers it.
    ///
    /// ```
    /// use ddb_local::{Fault, ThrottlingError};
    /// let on_demand = Fault::throttled_by(
    ///     ThrottlingError::Throttling,
    ///     "TableWriteMaxOnDemandThroughputExceeded",
    ///     "arn:aws:dynamodb:us-east-1:000000000000:table/Ecommerce",
    /// );
    /// # let _ = on_demand;
    /// ```
    pub fn throttled_by(error: ThrottlingError, reason: &str, resource: &str) -> Fault {
        let (name, member, message) = match error {
            ThrottlingError::ProvisionedThroughputExceeded => (
                "ProvisionedThroughputExceededException",
                "ThrottlingReasons",
                "The level of configured provisioned throughput for the table was exceeded.",
            ),
            ThrottlingError::Throttling => (
                "ThrottlingException",
                "throttlingReasons",
                "Throughput exceeds the current capacity of your table or index.",
            ),
            ThrottlingError::RequestLimitExceeded => (
                "RequestLimitExceeded",
                "ThrottlingReasons",
                "Throughput exceeds the current throughput limit for your account.",
            ),
        };
        let body = serde_json::json!({
            "__type": format!("com.amazonaws.dynamodb.v20120810#{name}"),
            "message": message,
            member: [{ "reason": reason, "resource": resource }],
        });
        Fault::Json(400, body.to_string())
    }

    /// What the fault is, as the proxy's counters name it.
    fn kind(&self) -> String {
        match self {
            Fault::Unprocessed(_) | Fault::UnprocessedShare(_) => "unprocessed".into(),
            Fault::Error(status, kind) => format!("{status} {kind}"),
            Fault::Json(status, _) => format!("{status} scripted"),
            Fault::DropResponse => "lost response".into(),
            Fault::TransactionConflict => "TransactionConflict".into(),
            Fault::Hold { .. } => "held".into(),
            Fault::Delay { .. } => "delayed".into(),
        }
    }
}

/// A request whose answer the proxy holds back (see [`FaultProxy::hold`]).
pub struct Held {
    forwarded: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Notify>,
}

impl Held {
    /// Waits until the request has been applied upstream.
    pub async fn applied(&self) {
        self.forwarded.notified().await;
    }

    /// Lets the answer go to the client.
    pub fn release(&self) {
        self.release.notify_one();
    }
}

/// A request [`FaultProxy::delay`] keeps on its way to the server.
#[derive(Debug, Clone)]
pub struct Delayed {
    arrived: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Notify>,
}

impl Delayed {
    /// Waits until the request has reached the proxy (it is not applied
    /// yet).
    pub async fn arrived(&self) {
        self.arrived.notified().await;
    }

    /// Lets the request go on to the server, which applies and answers it.
    pub fn release(&self) {
        self.release.notify_one();
    }
}

#[derive(Debug)]
struct Rule {
    target: &'static str,
    /// Requests left to fault; `None`: every one that the chance picks.
    remaining: Option<usize>,
    /// The chance a matching request is faulted, with its generator's state.
    chance: Option<(f64, u64)>,
    fault: Fault,
}

impl Rule {
    /// Whether this rule faults the next request of its target.
    fn fires(&mut self) -> bool {
        if self.remaining == Some(0) {
            return false;
        }
        if let Some((probability, state)) = &mut self.chance {
            // splitmix64: reproducible from the seed, uniform from the first draw.
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let draw = (z >> 11) as f64 / (1u64 << 53) as f64;
            if draw >= *probability {
                return false;
            }
        }
        if let Some(remaining) = &mut self.remaining {
            *remaining -= 1;
        }
        true
    }
}

#[derive(Default, Debug)]
struct State {
    rules: Vec<Rule>,
    seen: HashMap<String, usize>,
    injected: HashMap<String, usize>,
    injected_kinds: std::collections::BTreeMap<(String, String), usize>,
    connections: usize,
    /// The bodies of the requests of the operations being recorded.
    recorded: HashMap<String, Vec<Vec<u8>>>,
}

/// A fault-injecting proxy in front of a DynamoDB endpoint (the in-process
/// server, or any other), listening on `127.0.0.1`: it forwards every
/// request, except those a rule picks, which it throttles, fails, answers
/// with unprocessed batch items, or forwards and then drops the answer of
/// (the write is applied and the client never hears of it). It counts the
/// requests it saw and the faults it injected, per operation.
///
/// For testing code against what an emulator never does. A client built for
/// [`endpoint`](Self::endpoint) (or [`client`](Self::client)) goes through
/// it.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use ddb_local::{Fault, FaultProxy, LocalDynamoDb};
/// let local = LocalDynamoDb::start()?;
/// let proxy = FaultProxy::start(local.endpoint()).await?;
/// proxy.fail("BatchWriteItem", 2, Fault::Unprocessed(Some(5)));
/// proxy.fail("PutItem", 1, Fault::DropResponse);
/// proxy.fail_randomly("GetItem", 0.1, 7, Fault::Error(400, "ThrottlingException"));
/// let client = proxy.client()?; // for ddb, `ddb_runtime::Db::new(client)`
/// // ... run the code under test with `db` ...
/// assert_eq!(proxy.injected("PutItem"), 1);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct FaultProxy {
    endpoint: String,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for FaultProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultProxy")
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl FaultProxy {
    /// Starts a proxy forwarding to `upstream` (`http://host:port`), on a
    /// free port of `127.0.0.1`, served by the current tokio runtime.
    pub async fn start(upstream: &str) -> std::io::Result<FaultProxy> {
        if upstream.starts_with("https://") {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the fault proxy speaks plain HTTP: give it an http:// endpoint (a local server)",
            ));
        }
        let upstream = upstream
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                if let Ok(mut state) = shared.lock() {
                    state.connections += 1;
                }
                tokio::spawn(serve(stream, upstream.clone(), shared.clone()));
            }
        });
        Ok(FaultProxy { endpoint, state })
    }

    /// Where clients reach the proxy: `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// An SDK client that goes through the proxy (local credentials and
    /// region, as [`LocalDynamoDb::connect`] builds them).
    pub fn client(&self) -> Result<aws_sdk_dynamodb::Client, super::LocalError> {
        Ok(LocalDynamoDb::connect(self.endpoint.clone())?.new_client())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Applies `fault` to the next `times` requests of operation `target`
    /// (e.g. `"BatchWriteItem"`).
    pub fn fail(&self, target: &'static str, times: usize, fault: Fault) {
        self.state().rules.push(Rule {
            target,
            remaining: Some(times),
            chance: None,
            fault,
        });
    }

    /// Applies `fault` to each request of `target` with chance
    /// `probability` (clamped to 0..=1; NaN is 0), drawn from a generator
    /// seeded with `seed`: the same requests in the same order get the same
    /// faults. Rules apply in the order they were added.
    pub fn fail_randomly(&self, target: &'static str, probability: f64, seed: u64, fault: Fault) {
        let probability = if probability.is_nan() {
            0.0
        } else {
            probability.clamp(0.0, 1.0)
        };
        self.state().rules.push(Rule {
            target,
            remaining: None,
            chance: Some((probability, seed)),
            fault,
        });
    }

    /// Holds the answer to the next request of `target`: it is applied, and
    /// answered only once the returned [`Held`] is released.
    pub fn hold(&self, target: &'static str) -> Held {
        let held = Held {
            forwarded: Arc::new(tokio::sync::Notify::new()),
            release: Arc::new(tokio::sync::Notify::new()),
        };
        self.fail(
            target,
            1,
            Fault::Hold {
                forwarded: held.forwarded.clone(),
                release: held.release.clone(),
            },
        );
        held
    }

    /// Delays the next request of `target` on its way: it is applied, and
    /// answered, only once the returned [`Delayed`] is released, whether
    /// or not its caller is still waiting.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = ddb_local::LocalDynamoDb::start()?;
    /// let proxy = ddb_local::FaultProxy::start(server.endpoint()).await?;
    /// let delayed = proxy.delay("PutItem");
    /// // ... a put is sent, and its caller gives up ...
    /// delayed.arrived().await;
    /// delayed.release(); // now it is applied
    /// # Ok(()) }
    /// ```
    pub fn delay(&self, target: &'static str) -> Delayed {
        let delayed = Delayed {
            arrived: Arc::new(tokio::sync::Notify::new()),
            release: Arc::new(tokio::sync::Notify::new()),
        };
        self.fail(
            target,
            1,
            Fault::Delay {
                arrived: delayed.arrived.clone(),
                release: delayed.release.clone(),
            },
        );
        delayed
    }

    /// Keeps the body of every request of `target` from now on, faulted or
    /// not, for [`recorded`](Self::recorded).
    pub fn record(&self, target: &str) {
        self.state().recorded.entry(target.to_owned()).or_default();
    }

    /// The bodies of the requests of `target` since [`record`](Self::record),
    /// in the order they arrived: to check what a client sent, byte for
    /// byte.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = ddb_local::LocalDynamoDb::start()?;
    /// let proxy = ddb_local::FaultProxy::start(server.endpoint()).await?;
    /// proxy.record("ListTables");
    /// proxy.client()?.list_tables().send().await?;
    /// assert_eq!(proxy.recorded("ListTables"), [b"{}".to_vec()]);
    /// # Ok(()) }
    /// ```
    pub fn recorded(&self, target: &str) -> Vec<Vec<u8>> {
        self.state()
            .recorded
            .get(target)
            .cloned()
            .unwrap_or_default()
    }

    /// How many TCP connections clients opened to the proxy.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = ddb_local::LocalDynamoDb::start()?;
    /// let proxy = ddb_local::FaultProxy::start(server.endpoint()).await?;
    /// proxy.client()?.list_tables().send().await?;
    /// assert_eq!(proxy.connections(), 1);
    /// # Ok(()) }
    /// ```
    pub fn connections(&self) -> usize {
        self.state().connections
    }

    /// How many requests of `target` reached the proxy.
    pub fn seen(&self, target: &str) -> usize {
        self.state().seen.get(target).copied().unwrap_or(0)
    }

    /// How many faults the proxy injected into requests of `target`.
    pub fn injected(&self, target: &str) -> usize {
        self.state().injected.get(target).copied().unwrap_or(0)
    }

    /// The faults injected into requests of `target`, by kind (such as
    /// `"lost response"`, `"400 ThrottlingException"`, `"unprocessed"`), in
    /// the order of their names.
    ///
    /// ```no_run
    /// # async fn demo(proxy: ddb_local::FaultProxy) {
    /// for (kind, count) in proxy.injected_by_kind("PutItem") {
    ///     println!("{kind}: {count}");
    /// }
    /// # }
    /// ```
    pub fn injected_by_kind(&self, target: &str) -> Vec<(String, usize)> {
        self.state()
            .injected_kinds
            .iter()
            .filter(|((t, _), _)| t == target)
            .map(|((_, kind), count)| (kind.clone(), *count))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random rules draw uniformly from their first request, whatever the
    /// seed (a raw xorshift of a small seed always fired first).
    #[test]
    fn random_rules_are_uniform_from_the_first_draw() {
        let first_fires = (0..1000u64)
            .filter(|&seed| {
                let mut rule = Rule {
                    target: "GetItem",
                    remaining: None,
                    chance: Some((0.5, seed)),
                    fault: Fault::DropResponse,
                };
                rule.fires()
            })
            .count();
        assert!((400..600).contains(&first_fires), "{first_fires} of 1000");
    }
}
