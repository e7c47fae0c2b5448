//! The caller's client, as ddb sends through it: every request with its
//! attempts recorded ([`Recorder`]), and what ddb learns of the server.

use std::sync::Arc;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::Client;
use tracing::Instrument;

use super::attempts::Attempts;
use super::capture;
use super::condition_items::ConditionItems;
use super::operation::Operation;
use super::recorder::Recorder;
use crate::error::{Error, Result};
use crate::telemetry::{Reported, RequestSpan, Server};

/// The caller's client, where its requests go, and what the server's
/// answers have shown.
pub(crate) struct Sdk {
    caller: Client,
    intercepted: bool,
    server: Arc<Server>,
    condition_items: ConditionItems,
    #[cfg(feature = "cache")]
    caches: Arc<super::invalidation::Caches>,
}

impl Sdk {
    pub(crate) fn new(caller: Client) -> Arc<Self> {
        let intercepted = caller.config().interceptors().next().is_some();
        Arc::new(Self {
            server: Arc::new(Server::of(&caller)),
            caller,
            intercepted,
            condition_items: ConditionItems::default(),
            #[cfg(feature = "cache")]
            caches: Default::default(),
        })
    }

    /// Whether the caller's client has interceptors of its own: they may
    /// rewrite a request after ddb built it (a table prefix, client-side
    /// encryption), so a create compares the item it meets with its own
    /// item before them as well as with the one they sent.
    pub(crate) fn intercepted(&self) -> bool {
        self.intercepted
    }

    /// Where the client's requests go, for their spans.
    pub(crate) fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// What the server's failed conditions have shown about the items
    /// they met.
    pub(crate) fn condition_items(&self) -> &ConditionItems {
        &self.condition_items
    }

    /// The caches this client's writes invalidate.
    #[cfg(feature = "cache")]
    pub(crate) fn caches(&self) -> &super::invalidation::Caches {
        &self.caches
    }

    /// The caller's client.
    pub(crate) fn caller(&self) -> &Client {
        &self.caller
    }

    /// Sends `request` in `span`: the one route every request takes. Its
    /// attempts are recorded into `attempts` (and counted from what they
    /// held before: a transaction sends several requests under one); the
    /// span records the answer, or DynamoDB's refusal and ddb's reading of
    /// it, `failure`'s. The items a write writes leave every cache once it
    /// has returned, failed or been dropped (feature `cache`). In a dry
    /// run, the request is kept, not sent, and its caller waits forever
    /// ([`capture`]).
    pub(crate) async fn send<O>(
        &self,
        span: &RequestSpan,
        attempts: &Attempts,
        request: O,
        failure: impl AsyncFnOnce(SdkError<O::Error, HttpResponse>) -> Error,
    ) -> Result<O::Output>
    where
        O: Operation,
        O::Output: Reported,
        O::Error: ProvideErrorMetadata,
    {
        if capture::in_dry_run() {
            if let Some(input) = request.request() {
                capture::keep(input);
            }
            return std::future::pending().await;
        }
        #[cfg(feature = "cache")]
        let mut invalidation = self.caches.written(&request);
        let before = attempts.count();
        let sent = request.sent_items();
        let recorder = Recorder::new(attempts, &self.server);
        let answer = request
            .send_recorded(recorder)
            .instrument(span.span().clone())
            .await;
        // A request refused after an attempt that may have been applied
        // (a server error, a transaction in progress) may still land.
        #[cfg(feature = "cache")]
        invalidation
            .settle(!attempts.may_land_later() && (answer.is_ok() || !attempts.maybe_applied()));
        match answer {
            Ok(output) => {
                span.answered(&self.server, &output, sent, attempts.tried(before));
                Ok(output)
            }
            Err(refused) => {
                let refusal = span.refusal(&refused);
                let error = failure(refused).await;
                span.failed(&self.server, refusal, &error, attempts.tried(before));
                Err(error)
            }
        }
    }

    /// [`send`](Self::send) with attempts of its own, a failure read as the
    /// SDK's error.
    pub(crate) async fn send_plain<O>(&self, span: &RequestSpan, request: O) -> Result<O::Output>
    where
        O: Operation,
        O::Output: Reported,
        O::Error: ProvideErrorMetadata,
        aws_sdk_dynamodb::Error: From<SdkError<O::Error, HttpResponse>>,
    {
        let failure = async |refused| Error::sdk(O::OPERATION, refused);
        self.send(span, &Attempts::default(), request, failure)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::config::{BehaviorVersion, Intercept, Region};

    #[derive(Debug)]
    struct Watching;

    impl Intercept for Watching {
        fn name(&self) -> &'static str {
            "watching"
        }
    }

    /// Only the caller's own interceptors count: a plain client (whose SDK
    /// interceptors are not in its configuration) has none.
    #[test]
    fn a_client_is_intercepted_only_with_interceptors_of_its_own() {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"));
        let plain = Client::from_conf(config.clone().build());
        assert!(!Sdk::new(plain).intercepted());
        let watched = Client::from_conf(config.interceptor(Watching).build());
        assert!(Sdk::new(watched).intercepted());
    }
}
