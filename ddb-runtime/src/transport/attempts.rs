//! Which attempts of one request may have been applied: the SDK retries a
//! request whose answer was lost or was a server error, and a conditional
//! write's retry then meets its own first attempt. Every request records
//! its attempts ([`Recorder`](super::recorder::Recorder)), so that such a
//! failure is reported as an unknown outcome, never as a conflict the caller
//! would answer by writing again.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::http::HttpResponse;

use crate::error::Throttle;
use crate::item::Item;
use crate::telemetry::Tried;

/// What the attempts of one request left, shared by the request's caller
/// and the [`Recorder`](super::recorder::Recorder) that sees them go on the
/// wire.
///
/// An attempt sent on the wire that ended other than with a client error
/// (4xx) may have been applied: with no answer, a server error (5xx), or a
/// success whose body was lost or could not be read. A 4xx answer (a
/// throttle, a failed condition) applied nothing, and neither did an
/// attempt that failed before it was sent (its credentials, its signature).
/// An attempt that failed to connect is counted (it has no answer either):
/// conservative, never unsafe. So is an attempt still on the wire when its
/// request was dropped (a caller's timeout).
#[derive(Debug, Clone, Default)]
pub(crate) struct Attempts(Arc<Recorded>);

#[derive(Debug, Default)]
struct Recorded {
    maybe_applied: AtomicBool,
    count: AtomicU32,
    /// An attempt went on the wire and has not ended.
    on_the_wire: AtomicBool,
    /// An attempt ended with no answer at all (a timeout, a connection
    /// lost): DynamoDB may still apply it after the request returns.
    #[cfg_attr(not(feature = "cache"), allow(dead_code))]
    unanswered: AtomicBool,
    /// The throttles DynamoDB answered attempts with, not yet taken by a
    /// span ([`Attempts::tried`]).
    throttles: Mutex<Vec<Throttle>>,
    /// Set when the request's put item is to be kept as sent: after the
    /// caller's own interceptors, which may rewrite it.
    put_sent: Option<Mutex<Option<Item>>>,
}

impl Attempts {
    /// Attempts that keep the item a PutItem (or the first put of a
    /// TransactWriteItems) sends, as the caller's interceptors left it: a
    /// create compares the item a failed condition met with it.
    pub(crate) fn keeping_put() -> Self {
        Self(Arc::new(Recorded {
            put_sent: Some(Mutex::new(None)),
            ..Recorded::default()
        }))
    }

    /// Whether these attempts keep the put item sent.
    pub(crate) fn keeps_put(&self) -> bool {
        self.0.put_sent.is_some()
    }

    /// Keeps `item`, the put item about to be sent, if asked to.
    pub(crate) fn sending_put(&self, item: &Item) {
        if let Some(kept) = &self.0.put_sent {
            *kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(item.clone());
        }
    }

    /// The put item sent, when kept.
    pub(crate) fn put_sent(&self) -> Option<Item> {
        let kept = self.0.put_sent.as_ref()?;
        kept.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether an attempt that may have been applied came before the answer.
    pub(crate) fn maybe_applied(&self) -> bool {
        self.0.maybe_applied.load(Ordering::Relaxed) || self.0.on_the_wire.load(Ordering::Relaxed)
    }

    /// Whether an attempt may still reach DynamoDB and be applied after
    /// the request returned: one ended with no answer, or is on the wire
    /// still (its request dropped).
    #[cfg(feature = "cache")]
    pub(crate) fn may_land_later(&self) -> bool {
        self.0.unanswered.load(Ordering::Relaxed) || self.0.on_the_wire.load(Ordering::Relaxed)
    }

    /// How many attempts went on the wire, retries included.
    pub(crate) fn count(&self) -> u32 {
        self.0.count.load(Ordering::Relaxed)
    }

    /// What the attempts after the first `before` met, for one request's
    /// span: the throttles are taken, so that a request sent again under
    /// these attempts (a transaction's) records only its own.
    pub(crate) fn tried(&self, before: u32) -> Tried {
        let mut throttles = self.0.throttles.lock().unwrap_or_else(|e| e.into_inner());
        Tried {
            count: self.count() - before,
            throttles: std::mem::take(&mut *throttles),
        }
    }

    /// An attempt goes on the wire.
    pub(crate) fn transmitting(&self) {
        self.0.on_the_wire.store(true, Ordering::Relaxed);
    }

    /// The attempt on the wire ended with `response` (none: no answer),
    /// whose body the SDK has read.
    pub(crate) fn ended(&self, response: Option<&HttpResponse>) {
        if !self.0.on_the_wire.swap(false, Ordering::Relaxed) {
            return;
        }
        self.0.count.fetch_add(1, Ordering::Relaxed);
        match response {
            Some(response) if response.status().is_client_error() => self.answered(response),
            Some(_) => self.0.maybe_applied.store(true, Ordering::Relaxed),
            None => {
                self.0.maybe_applied.store(true, Ordering::Relaxed);
                self.0.unanswered.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Keeps the throttles of a client error's answer: a throttled attempt
    /// is an HTTP 400, its reasons in the body and the `x-amzn-ErrorType`
    /// header.
    fn answered(&self, response: &HttpResponse) {
        let Some(body) = response.body().bytes() else {
            return;
        };
        let error_type = response.headers().get("x-amzn-ErrorType");
        let throttles = crate::error::answered_throttles(body, error_type);
        if !throttles.is_empty() {
            let mut kept = self.0.throttles.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend(throttles);
        }
    }
}
