//! A fault-injecting HTTP proxy in front of the local DynamoDB, for what the
//! emulator never does on its own: unprocessed batch items, throttling,
//! server errors, and responses lost after the write was applied.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy does to a matching request.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answers a BatchWriteItem or BatchGetItem itself, without forwarding,
    /// reporting up to `n` of the request's items (all when `None`) as
    /// unprocessed; the others are forwarded and applied.
    Unprocessed(Option<usize>),
    /// Answers with this HTTP status and error type, without forwarding.
    Error(u16, &'static str),
    /// Answers with this HTTP status and JSON body, without forwarding.
    Json(u16, String),
    /// Forwards the request (so it is applied), then closes the connection
    /// without answering: a lost response.
    DropResponse,
    /// Forwards the request, signals `forwarded`, and answers only once
    /// `release` is notified: a slow response, for a test to act in between.
    Hold {
        forwarded: Arc<tokio::sync::Notify>,
        release: Arc<tokio::sync::Notify>,
    },
}

/// A request whose answer the proxy holds back (see [`Proxy::hold`]).
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

#[derive(Debug)]
struct Rule {
    target: &'static str,
    remaining: usize,
    fault: Fault,
}

#[derive(Default, Debug)]
struct State {
    rules: Vec<Rule>,
    seen: HashMap<String, usize>,
}

/// A proxy listening on `127.0.0.1`, forwarding to `upstream`.
#[derive(Clone)]
pub struct Proxy {
    pub endpoint: String,
    state: Arc<Mutex<State>>,
}

impl Proxy {
    pub async fn start(upstream: &str) -> Proxy {
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, upstream.clone(), shared.clone()));
            }
        });
        Proxy { endpoint, state }
    }

    /// Applies `fault` to the next `times` requests of operation `target`
    /// (e.g. `"BatchWriteItem"`).
    pub fn fail(&self, target: &'static str, times: usize, fault: Fault) {
        self.state.lock().unwrap().rules.push(Rule {
            target,
            remaining: times,
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

    /// How many requests of `target` reached the proxy.
    pub fn seen(&self, target: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .seen
            .get(target)
            .copied()
            .unwrap_or(0)
    }
}

struct Request {
    head: String,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

async fn read_message(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Request> {
    loop {
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_string();
            let length = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.trim()
                        .eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            let chunked = head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked");
            let mut rest = buffer[end + 4..].to_vec();
            if chunked {
                loop {
                    if let Some(body) = dechunk(&rest) {
                        buffer.clear();
                        return Some(Request { head, body });
                    }
                    let mut chunk = [0u8; 8192];
                    let n = stream.read(&mut chunk).await.ok()?;
                    if n == 0 {
                        return None;
                    }
                    rest.extend_from_slice(&chunk[..n]);
                }
            }
            while rest.len() < length {
                let mut chunk = [0u8; 8192];
                let n = stream.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                rest.extend_from_slice(&chunk[..n]);
            }
            let body = rest[..length].to_vec();
            *buffer = rest[length..].to_vec();
            return Some(Request { head, body });
        }
        let mut chunk = [0u8; 8192];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The body of a complete chunked message, `None` while incomplete.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = find(data, b"\r\n")?;
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..line_end]).trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        if data.len() < size + 2 {
            return None;
        }
        body.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

fn response(status: u16, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: {}\r\nx-amzn-requestid: proxy\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn with_body(request: &Request, body: &[u8]) -> Vec<u8> {
    let mut head: Vec<String> = request
        .head
        .lines()
        .filter(|l| {
            let lower = l.to_ascii_lowercase();
            !lower.starts_with("content-length:") && !lower.starts_with("transfer-encoding:")
        })
        .map(str::to_owned)
        .collect();
    head.push(format!("content-length: {}", body.len()));
    let mut out = head.join("\r\n").into_bytes();
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(body);
    out
}

async fn forward(upstream: &str, bytes: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(upstream).await.ok()?;
    stream.write_all(bytes).await.ok()?;
    let mut buffer = Vec::new();
    let reply = read_message(&mut stream, &mut buffer).await?;
    let status = reply.head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, reply.body))
}

/// Splits a batch request: the first `n` items of each table are kept back as
/// unprocessed, the rest forwarded.
fn split_batch(body: &Value, n: Option<usize>) -> (Value, Value) {
    let mut forwarded = body.clone();
    let mut unprocessed = serde_json::Map::new();
    if let Some(tables) = forwarded
        .get_mut("RequestItems")
        .and_then(Value::as_object_mut)
    {
        for (table, requests) in tables.iter_mut() {
            // BatchWriteItem: a list; BatchGetItem: {"Keys": [...]}.
            let list = match requests {
                Value::Array(list) => list,
                Value::Object(object) => match object.get_mut("Keys") {
                    Some(Value::Array(list)) => list,
                    _ => continue,
                },
                _ => continue,
            };
            let take = n.unwrap_or(list.len()).min(list.len());
            let kept: Vec<Value> = list.drain(..take).collect();
            let kept = match requests {
                Value::Array(_) => Value::Array(kept),
                Value::Object(_) => serde_json::json!({ "Keys": kept }),
                _ => continue,
            };
            unprocessed.insert(table.clone(), kept);
        }
        tables.retain(|_, requests| match requests {
            Value::Array(list) => !list.is_empty(),
            Value::Object(o) => o
                .get("Keys")
                .and_then(Value::as_array)
                .is_some_and(|l| !l.is_empty()),
            _ => false,
        });
    }
    (forwarded, Value::Object(unprocessed))
}

async fn serve(mut stream: TcpStream, upstream: String, state: Arc<Mutex<State>>) {
    let mut buffer = Vec::new();
    while let Some(request) = read_message(&mut stream, &mut buffer).await {
        let target = request
            .header("x-amz-target")
            .and_then(|t| t.split('.').nth(1))
            .unwrap_or("")
            .to_owned();
        let fault = {
            let mut state = state.lock().unwrap();
            *state.seen.entry(target.clone()).or_default() += 1;
            let rule = state
                .rules
                .iter_mut()
                .find(|r| r.target == target && r.remaining > 0);
            rule.map(|r| {
                r.remaining -= 1;
                r.fault.clone()
            })
        };
        let raw = with_body(&request, &request.body);
        let reply = match fault {
            None => match forward(&upstream, &raw).await {
                Some((status, body)) => response(status, &body),
                None => return,
            },
            Some(Fault::Error(status, kind)) => {
                let body = serde_json::json!({
                    "__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"),
                    "message": "injected by the test proxy",
                });
                response(status, body.to_string().as_bytes())
            }
            Some(Fault::Json(status, body)) => response(status, body.as_bytes()),
            Some(Fault::Hold { forwarded, release }) => {
                let reply = forward(&upstream, &raw).await;
                forwarded.notify_one();
                release.notified().await;
                match reply {
                    Some((status, body)) => response(status, &body),
                    None => return,
                }
            }
            Some(Fault::DropResponse) => {
                let _ = forward(&upstream, &raw).await;
                return;
            }
            Some(Fault::Unprocessed(n)) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                let (forwarded, unprocessed) = split_batch(&body, n);
                let mut answer = serde_json::json!({});
                let has_rest = forwarded
                    .get("RequestItems")
                    .and_then(Value::as_object)
                    .is_some_and(|t| !t.is_empty());
                if has_rest {
                    let bytes = serde_json::to_vec(&forwarded).unwrap();
                    match forward(&upstream, &with_body(&request, &bytes)).await {
                        Some((200, body)) => {
                            answer = serde_json::from_slice(&body).unwrap_or(answer)
                        }
                        Some((status, body)) => {
                            let _ = stream.write_all(&response(status, &body)).await;
                            continue;
                        }
                        None => return,
                    }
                }
                let field = if target == "BatchGetItem" {
                    "UnprocessedKeys"
                } else {
                    "UnprocessedItems"
                };
                answer[field] = unprocessed;
                if target == "BatchGetItem" && answer.get("Responses").is_none() {
                    answer["Responses"] = serde_json::json!({});
                }
                response(200, answer.to_string().as_bytes())
            }
        };
        if stream.write_all(&reply).await.is_err() {
            return;
        }
    }
}
