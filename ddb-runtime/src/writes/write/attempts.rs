//! Which attempts of one request may have been applied: the SDK retries a
//! request whose answer was lost or was a server error, and a conditional
//! write's retry then meets its own first attempt. The write plan records
//! its attempts so that such a failure is reported as an unknown outcome,
//! never as a conflict the caller would answer by writing again.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// Set once an attempt ended other than with a client error (4xx): with no
/// answer, a server error (5xx), or a success whose body was lost or could
/// not be read, DynamoDB may have applied it. A 4xx answer (a throttle, a
/// failed condition) applied nothing. An attempt that failed to connect is
/// counted too (it has no answer either): conservative, never unsafe.
#[derive(Debug, Clone, Default)]
pub(crate) struct Attempts {
    maybe_applied: Arc<AtomicBool>,
    count: Arc<AtomicU32>,
}

impl Attempts {
    /// Whether an attempt that may have been applied came before the answer.
    pub(crate) fn maybe_applied(&self) -> bool {
        self.maybe_applied.load(Ordering::Relaxed)
    }

    /// How many attempts the SDK made, retries included.
    pub(crate) fn count(&self) -> u32 {
        self.count.load(Ordering::Relaxed)
    }
}

impl Intercept for Attempts {
    fn name(&self) -> &'static str {
        "ddb-write-attempts"
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.count.fetch_add(1, Ordering::Relaxed);
        let unknown = context
            .response()
            .is_none_or(|response| !response.status().is_client_error());
        if unknown {
            self.maybe_applied.store(true, Ordering::Relaxed);
        }
        Ok(())
    }
}
