//! One client connection of the proxy: each request counted, matched
//! against the rules, and forwarded or answered with its fault.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::http::{forward, read_message, response, with_body, Request};
use super::{Fault, State};

/// Splits a batch request into what is forwarded and what is answered as
/// unprocessed: `kept(n)` of each table's `n` items.
fn split_batch(body: &Value, kept: impl Fn(usize) -> usize) -> (Value, Value) {
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
            let take = kept(list.len()).min(list.len());
            if take == 0 {
                continue;
            }
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

/// What the proxy does with one request.
enum Answer {
    /// Sends this reply; closes the connection when it cannot.
    Reply(Vec<u8>),
    /// Sends this reply, whether it gets through or not, and reads on.
    ReplyAnyway(Vec<u8>),
    /// Closes the connection without answering.
    Close,
}

/// One client connection: each request counted, recorded, and forwarded or
/// faulted as the rules say, until the client or the upstream goes away.
pub(super) async fn serve(mut stream: TcpStream, upstream: String, state: Arc<Mutex<State>>) {
    let mut buffer = Vec::new();
    while let Some(request) = read_message(&mut stream, &mut buffer).await {
        let target = request
            .header("x-amz-target")
            .and_then(|t| t.split('.').nth(1))
            .unwrap_or("")
            .to_owned();
        let fault = pick_fault(&state, &target, &request);
        match answer(fault, &request, &target, &upstream).await {
            Answer::Reply(reply) => {
                if stream.write_all(&reply).await.is_err() {
                    return;
                }
            }
            Answer::ReplyAnyway(reply) => {
                let _ = stream.write_all(&reply).await;
            }
            Answer::Close => return,
        }
    }
}

/// Counts a request of operation `target` (and records its body when that
/// operation is recorded), and returns the fault of the first rule that
/// fires for it, counted too.
fn pick_fault(state: &Mutex<State>, target: &str, request: &Request) -> Option<Fault> {
    let mut state = state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *state.seen.entry(target.to_owned()).or_default() += 1;
    if let Some(bodies) = state.recorded.get_mut(target) {
        bodies.push(request.body.clone());
    }
    // Unprocessed items exist only in batch answers.
    let batch = target.starts_with("Batch");
    let transaction = target == "TransactWriteItems";
    let fault = state
        .rules
        .iter_mut()
        .filter(|r| r.target == target)
        .filter(|r| batch || !matches!(r.fault, Fault::Unprocessed(_) | Fault::UnprocessedShare(_)))
        .filter(|r| transaction || !matches!(r.fault, Fault::TransactionConflict))
        .find_map(|r| r.fires().then(|| r.fault.clone()));
    if let Some(fault) = &fault {
        *state.injected.entry(target.to_owned()).or_default() += 1;
        *state
            .injected_kinds
            .entry((target.to_owned(), fault.kind()))
            .or_default() += 1;
    }
    fault
}

/// The answer to `request`: forwarded upstream when no rule fired, else
/// what `fault` makes of it.
async fn answer(fault: Option<Fault>, request: &Request, target: &str, upstream: &str) -> Answer {
    let raw = with_body(request, &request.body);
    match fault {
        None => match forward(upstream, &raw).await {
            Some((status, body)) => Answer::Reply(response(status, &body)),
            None => Answer::Close,
        },
        Some(Fault::Error(status, kind)) => {
            let body = serde_json::json!({
                "__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"),
                "message": "injected by the test proxy",
            });
            Answer::Reply(response(status, body.to_string().as_bytes()))
        }
        Some(Fault::Json(status, body)) => Answer::Reply(response(status, body.as_bytes())),
        Some(Fault::TransactionConflict) => Answer::Reply(transaction_conflict(request)),
        Some(Fault::Hold { forwarded, release }) => {
            let reply = forward(upstream, &raw).await;
            forwarded.notify_one();
            release.notified().await;
            match reply {
                Some((status, body)) => Answer::Reply(response(status, &body)),
                None => Answer::Close,
            }
        }
        Some(Fault::Delay { arrived, release }) => {
            arrived.notify_one();
            release.notified().await;
            match forward(upstream, &raw).await {
                Some((status, body)) => Answer::Reply(response(status, &body)),
                None => Answer::Close,
            }
        }
        Some(Fault::DropResponse) => {
            let _ = forward(upstream, &raw).await;
            Answer::Close
        }
        Some(fault @ (Fault::Unprocessed(_) | Fault::UnprocessedShare(_))) => {
            answer_unprocessed(&fault, request, target, upstream).await
        }
    }
}

/// A TransactionCanceledException whose every reason, one per action of
/// the request, is a `TransactionConflict`.
fn transaction_conflict(request: &Request) -> Vec<u8> {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let actions = body
        .get("TransactItems")
        .and_then(Value::as_array)
        .map_or(1, Vec::len);
    let reason = serde_json::json!({
        "Code": "TransactionConflict",
        "Message": "Transaction is ongoing for the item",
    });
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": "Transaction cancelled, please refer cancellation reasons for specific reasons",
        "CancellationReasons": vec![reason; actions],
    });
    response(400, body.to_string().as_bytes())
}

/// A batch with items kept back: the rest forwarded (when any is left),
/// and the kept ones added to its answer as UnprocessedItems or
/// UnprocessedKeys. An upstream error is passed on as it is.
async fn answer_unprocessed(
    fault: &Fault,
    request: &Request,
    target: &str,
    upstream: &str,
) -> Answer {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let (forwarded, unprocessed) = split_batch(&body, |len| match fault {
        Fault::Unprocessed(n) => n.unwrap_or(len),
        Fault::UnprocessedShare(share) => (len as f64 * share.clamp(0.0, 1.0)).floor() as usize,
        _ => 0,
    });
    let mut answer = serde_json::json!({});
    let has_rest = forwarded
        .get("RequestItems")
        .and_then(Value::as_object)
        .is_some_and(|t| !t.is_empty());
    if has_rest {
        let bytes = serde_json::to_vec(&forwarded).unwrap_or_default();
        match forward(upstream, &with_body(request, &bytes)).await {
            Some((200, body)) => {
                answer = serde_json::from_slice(&body)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or(answer)
            }
            Some((status, body)) => return Answer::ReplyAnyway(response(status, &body)),
            None => return Answer::Close,
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
    Answer::Reply(response(200, answer.to_string().as_bytes()))
}
