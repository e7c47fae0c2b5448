//! Which attempts of one request may have been applied: the SDK retries a
//! request whose answer was lost or was a server error, and a conditional
//! write's retry then meets its own first attempt. The write plan records
//! its attempts so that such a failure is reported as an unknown outcome,
//! never as a conflict the caller would answer by writing again.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;

use crate::error::Throttle;
use crate::telemetry::Tried;

/// Set once an attempt sent on the wire ended other than with a client
/// error (4xx): with no answer, a server error (5xx), or a success whose
/// body was lost or could not be read, DynamoDB may have applied it. A 4xx
/// answer (a throttle, a failed condition) applied nothing, and neither did
/// an attempt that failed before it was sent (its credentials, its
/// signature). An attempt that failed to connect is counted (it has no
/// answer either): conservative, never unsafe.
///
/// A request records into the `Attempts` it is sent under
/// ([`crate::sdk::Sdk::send`]), found in the task that polls the request:
/// by the HTTP client of ddb's client copy, or by ddb's interceptor on the
/// caller's client.
#[derive(Debug, Clone, Default)]
pub(crate) struct Attempts(Arc<Recorded>);

/// What the attempts of one request left: shared by the request's caller
/// and what records them.
#[derive(Debug, Default)]
struct Recorded {
    maybe_applied: AtomicBool,
    count: AtomicU32,
    /// The interceptor saw the current attempt go on the wire.
    on_the_wire: AtomicBool,
    /// Whether to keep the body of what was sent.
    keeps_sent: bool,
    /// The body of the last attempt sent, when kept: a copy of its bytes
    /// (a few hundred for a create), cheaper than the SDK's clone of a body,
    /// which rebuilds its wrappers.
    sent: Mutex<Option<Vec<u8>>>,
    /// The throttles DynamoDB answered attempts with, not yet taken by a
    /// span ([`Attempts::tried`]).
    throttles: Mutex<Vec<Throttle>>,
}

tokio::task_local! {
    /// The attempts of the request being polled.
    static SENDING: Attempts;
}

impl Attempts {
    /// Attempts that keep the body of what they sent
    /// ([`sent`](Self::sent)): what a write needs again after its request
    /// was sent is read back from it rather than copied before every send.
    pub(crate) fn keeping_sent() -> Self {
        Self(Arc::new(Recorded {
            keeps_sent: true,
            ..Recorded::default()
        }))
    }

    /// The JSON body of the last attempt that went on the wire, if these
    /// attempts keep it and one did.
    pub(crate) fn sent(&self) -> Option<Vec<u8>> {
        self.0
            .sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Keeps the body of `request`, about to go on the wire, if asked to.
    pub(crate) fn sending_request(&self, request: &HttpRequest) {
        if self.0.keeps_sent {
            let body = request.body().bytes().map(<[u8]>::to_vec);
            *self.0.sent.lock().unwrap_or_else(|e| e.into_inner()) = body;
        }
    }

    /// Whether an attempt that may have been applied came before the answer.
    pub(crate) fn maybe_applied(&self) -> bool {
        self.0.maybe_applied.load(Ordering::Relaxed)
    }

    /// How many attempts the SDK made, retries included.
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

    /// Keeps the throttles of a client error's answer: its `body`, and
    /// its `x-amzn-ErrorType` header (`error_type`) if it had one.
    pub(crate) fn answered(&self, body: &[u8], error_type: Option<&str>) {
        let throttles = crate::error::answered_throttles(body, error_type);
        if !throttles.is_empty() {
            let mut kept = self.0.throttles.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend(throttles);
        }
    }

    /// [`answered`](Self::answered) with `response`, whose body the SDK
    /// has read: a throttled attempt is an HTTP 400.
    fn answered_response(&self, response: &HttpResponse) {
        if response.status().as_u16() != 400 {
            return;
        }
        if let Some(body) = response.body().bytes() {
            self.answered(body, response.headers().get("x-amzn-ErrorType"));
        }
    }

    /// Polls `request` with its attempts recorded here.
    pub(crate) async fn record<F: Future>(&self, request: F) -> F::Output {
        SENDING.scope(self.clone(), request).await
    }

    /// The current attempt, `request`, goes on the wire (called by ddb's
    /// interceptor, in the task that polls the request).
    pub(crate) fn transmitting(request: &HttpRequest) {
        let _ = SENDING.try_with(|attempts| {
            attempts.sending_request(request);
            attempts.0.on_the_wire.store(true, Ordering::Relaxed);
        });
    }

    /// The current attempt ended (called by ddb's interceptor): recorded
    /// if it went on the wire.
    pub(crate) fn attempt_ended(context: &FinalizerInterceptorContextRef<'_>) {
        let _ = SENDING.try_with(|attempts| {
            if attempts.0.on_the_wire.swap(false, Ordering::Relaxed) {
                attempts.ended(context.response());
                // The SDK has read the answer's body by now.
                if let Some(response) = context.response() {
                    attempts.answered_response(response);
                }
            }
        });
    }

    /// The attempts of the request being polled, when it is recorded.
    pub(crate) fn sending() -> Option<Attempts> {
        SENDING.try_with(Attempts::clone).ok()
    }

    /// One attempt on the wire (ddb's client copy records it as its HTTP
    /// client sends it, see [`crate::sdk`]): counted, and taken as
    /// possibly applied unless answered with a client error, also when it
    /// is dropped unanswered (a timeout), polled or not.
    pub(crate) fn attempt<E>(
        self,
        sent: impl Future<Output = Result<HttpResponse, E>>,
    ) -> impl Future<Output = Result<HttpResponse, E>> {
        let mut in_flight = InFlight(Some(self));
        async move {
            let answer = sent.await;
            if let Some(attempts) = in_flight.0.take() {
                attempts.ended(answer.as_ref().ok());
            }
            answer
        }
    }

    /// An attempt ended with `response` (none: no answer).
    fn ended(&self, response: Option<&HttpResponse>) {
        self.0.count.fetch_add(1, Ordering::Relaxed);
        if response.is_none_or(|response| !response.status().is_client_error()) {
            self.0.maybe_applied.store(true, Ordering::Relaxed);
        }
    }
}

/// An attempt not yet answered: dropped so, it may have been applied.
struct InFlight(Option<Attempts>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(attempts) = self.0.take() {
            attempts.ended(None);
        }
    }
}
