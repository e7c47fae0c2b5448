//! A dry run is a call's own send, run until it would wait for DynamoDB's
//! first answer: the route keeps each request instead of sending it, and
//! the call waits forever there, so nothing after its first requests runs.
//! What a dry run shows is what a send sends because it is the same code,
//! every decision taken once.
//!
//! A dry run is polled once on the caller's thread, which holds the
//! requests kept: ddb's sends run in the caller's task (no request is
//! spawned on another), so every request of the call meets the route on
//! this thread.

use std::cell::RefCell;
use std::future::Future;

use aws_sdk_dynamodb::error::BuildError;
use futures::FutureExt;

use super::dry_run::Request;
use crate::error::{Error, Result};

thread_local! {
    /// The requests kept by the dry run polled on this thread; `None` when
    /// none is.
    static KEPT: RefCell<Option<Vec<Result<Request, BuildError>>>> = const { RefCell::new(None) };
}

/// The requests `send` (a call's send) would send before it waits for
/// DynamoDB's first answer, kept, not sent: none when it sends nothing. A
/// call that fails before it sends (bad input) is that failure.
pub(crate) fn requests_sent_first<T>(
    send: impl Future<Output = Result<T>>,
) -> Result<Vec<Request>> {
    let outer = KEPT.replace(Some(Vec::new()));
    let ended = send.now_or_never();
    let kept = KEPT.replace(outer).unwrap_or_default();
    if let Some(Err(error)) = ended {
        return Err(error);
    }
    kept.into_iter()
        .collect::<Result<_, _>>()
        .map_err(|e| Error::InvalidRequest {
            entity: "",
            reason: e.to_string(),
        })
}

/// Whether a dry run is polled on this thread: the route keeps its
/// requests, and nothing is recorded of them.
pub(crate) fn in_dry_run() -> bool {
    KEPT.with_borrow(Option::is_some)
}

/// Keeps `request` for the dry run polled on this thread.
pub(crate) fn keep(request: Result<Request, BuildError>) {
    KEPT.with_borrow_mut(|kept| {
        if let Some(kept) = kept {
            kept.push(request);
        }
    });
}
