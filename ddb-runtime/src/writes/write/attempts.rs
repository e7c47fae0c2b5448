//! Which attempts of one request may have been applied: the SDK retries a
//! request whose answer was lost or was a server error, and a conditional
//! write's retry then meets its own first attempt. The write plan records
//! its attempts so that such a failure is reported as an unknown outcome,
//! never as a conflict the caller would answer by writing again.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;

/// Set once an attempt ended other than with a client error (4xx): with no
/// answer, a server error (5xx), or a success whose body was lost or could
/// not be read, DynamoDB may have applied it. A 4xx answer (a throttle, a
/// failed condition) applied nothing. An attempt that failed to connect is
/// counted too (it has no answer either): conservative, never unsafe.
///
/// A request records into the `Attempts` it is sent under
/// ([`crate::sdk::Sdk::send`]): ddb's interceptor finds it in the task that
/// polls the request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Attempts(Arc<Recorded>);

/// What the attempts of one request left: shared by the request's caller
/// and the interceptor that records them.
#[derive(Debug, Default)]
struct Recorded {
    maybe_applied: AtomicBool,
    count: AtomicU32,
}

tokio::task_local! {
    /// The attempts of the request being polled.
    static SENDING: Attempts;
}

impl Attempts {
    /// Whether an attempt that may have been applied came before the answer.
    pub(crate) fn maybe_applied(&self) -> bool {
        self.0.maybe_applied.load(Ordering::Relaxed)
    }

    /// How many attempts the SDK made, retries included.
    pub(crate) fn count(&self) -> u32 {
        self.0.count.load(Ordering::Relaxed)
    }

    /// Polls `request` with its attempts recorded here.
    pub(crate) async fn record<F: std::future::Future>(&self, request: F) -> F::Output {
        SENDING.scope(self.clone(), request).await
    }

    /// One attempt ended (called by ddb's interceptor, in the task that
    /// polls the request): counted into the `Attempts` it is recorded
    /// under, if any.
    pub(crate) fn attempt_ended(context: &FinalizerInterceptorContextRef<'_>) {
        let _ = SENDING.try_with(|attempts| {
            attempts.0.count.fetch_add(1, Ordering::Relaxed);
            let unknown = context
                .response()
                .is_none_or(|response| !response.status().is_client_error());
            if unknown {
                attempts.0.maybe_applied.store(true, Ordering::Relaxed);
            }
        });
    }
}
