//! The SDK client ddb sends through: a copy of the caller's client whose
//! HTTP client records each attempt, sharing the caller's connections and
//! credentials cache.
//!
//! Every write needs to know which of its attempts may have been applied
//! ([`Attempts`]). Registering an interceptor per request
//! (`customize().interceptor(..)`) makes the SDK build a configuration
//! override for every request, and even registered on the client an
//! interceptor is called at each of the SDK's twenty-odd hooks of every
//! request (a microsecond, measured). ddb's copy of the client instead
//! wraps the caller's HTTP client ([`RecordingClient`]): an attempt is
//! recorded where it goes on the wire. A handle's first requests go
//! through the caller's client with an interceptor added; once a handle has
//! sent [`OWN_CLIENT_AFTER`] of them, the copy is built from the caller's
//! configuration, with the HTTP client and credentials cache those requests
//! used (a handle made for one request never builds one).

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents, SharedHttpClient};
use aws_sdk_dynamodb::error::{BoxError, SdkError};
use aws_sdk_dynamodb::Client;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder;
use aws_smithy_runtime_api::shared::IntoShared;

use crate::write::Attempts;

/// How many requests a handle sends through the caller's client before it
/// builds its own copy.
pub(crate) const OWN_CLIENT_AFTER: u32 = 8;

/// The caller's client and, once built, ddb's copy of it.
pub(crate) struct Sdk {
    caller: Client,
    own: OnceLock<Client>,
    sent: AtomicU32,
    intercepted: bool,
}

impl Sdk {
    pub(crate) fn new(caller: Client) -> Arc<Self> {
        let intercepted = caller.config().interceptors().next().is_some();
        Arc::new(Self {
            caller,
            own: OnceLock::new(),
            sent: AtomicU32::new(0),
            intercepted,
        })
    }

    /// Whether the caller's client has interceptors of its own: they may
    /// rewrite a request after ddb built it (a table prefix, client-side
    /// encryption), so what went on the wire is not what ddb would send
    /// again, and a transaction keeps its own copy of its actions instead of
    /// reading them back to send again ([`Attempts::keeping_sent`]), and a
    /// create compares the item it meets with its own item before them as
    /// well as with the one read back after them.
    pub(crate) fn intercepted(&self) -> bool {
        self.intercepted
    }

    /// The caller's client.
    pub(crate) fn caller(&self) -> &Client {
        &self.caller
    }

    /// Sends the request `build` makes from a client, its attempts recorded
    /// into `attempts`.
    pub(crate) async fn send<O: Operation>(
        self: &Arc<Self>,
        attempts: &Attempts,
        build: impl FnOnce(&Client) -> O,
    ) -> Result<O::Output, SdkError<O::Error, HttpResponse>> {
        // The SDK's request futures are large: boxed, they do not add
        // their size to every future that sends one.
        match self.own.get() {
            Some(own) => attempts.record(Box::pin(build(own).send_request())).await,
            None => {
                let recorder = Recorder {
                    building: self.clone(),
                };
                let request = build(&self.caller).send_intercepted(recorder);
                attempts.record(Box::pin(request)).await
            }
        }
    }

    /// Builds ddb's copy of the caller's client with the HTTP client and
    /// credentials cache a request of the caller's client used.
    fn build_own(&self, used: &RuntimeComponents) {
        let Some(http_client) = used.http_client() else {
            return;
        };
        self.own.get_or_init(|| {
            let config = self
                .caller
                .config()
                .to_builder()
                .http_client(SharedHttpClient::new(RecordingClient(http_client)))
                .identity_cache(used.identity_cache())
                .build();
            Client::from_conf(config)
        });
    }
}

/// The caller's HTTP client, each attempt recorded into the [`Attempts`]
/// of the request that sends it: its connectors are the caller's, so are
/// its connections.
#[derive(Debug)]
struct RecordingClient(SharedHttpClient);

impl HttpClient for RecordingClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        RecordingConnector(self.0.http_connector(settings, components)).into_shared()
    }

    fn validate_base_client_config(
        &self,
        components: &RuntimeComponentsBuilder,
        config: &ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.validate_base_client_config(components, config)
    }

    fn validate_final_config(
        &self,
        components: &RuntimeComponents,
        config: &ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.validate_final_config(components, config)
    }

    fn connector_metadata(
        &self,
    ) -> Option<aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata> {
        self.0.connector_metadata()
    }
}

/// One of the caller's connectors, recording each request it sends.
#[derive(Debug)]
struct RecordingConnector(SharedHttpConnector);

impl HttpConnector for RecordingConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        // Called as the request is polled: the request's own attempts.
        match Attempts::sending() {
            Some(attempts) => {
                attempts.sending_request(&request);
                HttpConnectorFuture::new(attempts.attempt(self.0.call(request)))
            }
            None => self.0.call(request),
        }
    }
}

/// Records each attempt of a request sent through the caller's client into
/// the request's [`Attempts`], counts the requests and builds the own client
/// (`building`).
#[derive(Clone)]
pub(crate) struct Recorder {
    building: Arc<Sdk>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recorder")
    }
}

impl Intercept for Recorder {
    fn name(&self) -> &'static str {
        "ddb-write-attempts"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        Attempts::transmitting(context.request());
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        used: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        Attempts::attempt_ended(context);
        let sdk = &self.building;
        if sdk.sent.fetch_add(1, Ordering::Relaxed) + 1 >= OWN_CLIENT_AFTER {
            sdk.build_own(used);
        }
        Ok(())
    }
}

/// A request of the SDK's fluent builders, sent as it is or with an
/// interceptor added.
pub(crate) trait Operation: Sized {
    type Output;
    type Error;

    fn send_request(
        self,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send;

    fn send_intercepted(
        self,
        recorder: Recorder,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send;
}

macro_rules! operation {
    ($($op:ident: $builder:ident -> $output:ident, $error:ident;)*) => {$(
        impl Operation for aws_sdk_dynamodb::operation::$op::builders::$builder {
            type Output = aws_sdk_dynamodb::operation::$op::$output;
            type Error = aws_sdk_dynamodb::operation::$op::$error;

            fn send_request(
                self,
            ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send
            {
                self.send()
            }

            fn send_intercepted(
                self,
                recorder: Recorder,
            ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send
            {
                self.customize().interceptor(recorder).send()
            }
        }
    )*};
}

operation! {
    put_item: PutItemFluentBuilder -> PutItemOutput, PutItemError;
    update_item: UpdateItemFluentBuilder -> UpdateItemOutput, UpdateItemError;
    delete_item: DeleteItemFluentBuilder -> DeleteItemOutput, DeleteItemError;
    get_item: GetItemFluentBuilder -> GetItemOutput, GetItemError;
    query: QueryFluentBuilder -> QueryOutput, QueryError;
    transact_write_items: TransactWriteItemsFluentBuilder -> TransactWriteItemsOutput, TransactWriteItemsError;
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::config::{BehaviorVersion, Region};

    #[derive(Debug)]
    struct Watching;

    impl Intercept for Watching {
        fn name(&self) -> &'static str {
            "watching"
        }
    }

    /// Only the caller's own interceptors make transactions keep copies: a plain
    /// client (whose SDK interceptors are not in its configuration) reads
    /// back what it sent.
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
