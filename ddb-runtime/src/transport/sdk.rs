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

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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
use aws_smithy_types::body::SdkBody;

use crate::transport::answer_body::ClientErrorBody;
use crate::transport::attempts::Attempts;

/// How many requests a handle sends through the caller's client before it
/// builds its own copy.
pub(crate) const OWN_CLIENT_AFTER: u32 = 8;

/// The caller's client and, once built, ddb's copy of it.
pub(crate) struct Sdk {
    caller: Client,
    own: OnceLock<Client>,
    sent: AtomicU32,
    intercepted: bool,
    slots: Slots,
    server: Arc<crate::telemetry::Server>,
    condition_items: super::condition_items::ConditionItems,
}

impl Sdk {
    pub(crate) fn new(caller: Client) -> Arc<Self> {
        let intercepted = caller.config().interceptors().next().is_some();
        let region = caller.config().region().map(ToString::to_string);
        Arc::new(Self {
            caller,
            own: OnceLock::new(),
            sent: AtomicU32::new(0),
            intercepted,
            slots: Slots::default(),
            server: Arc::new(crate::telemetry::Server::new(region)),
            condition_items: Default::default(),
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

    /// Where the client's requests go, for their spans.
    pub(crate) fn server(&self) -> &crate::telemetry::Server {
        &self.server
    }

    /// What the server's failed conditions have shown about the items
    /// they met.
    pub(crate) fn condition_items(&self) -> &super::condition_items::ConditionItems {
        &self.condition_items
    }

    /// The caller's client.
    pub(crate) fn caller(&self) -> &Client {
        &self.caller
    }

    /// The input of the request `build` makes from a client, not sent: a
    /// dry run of what [`send`](Self::send) would send.
    pub(crate) fn dry<O: Operation>(
        &self,
        entity: &'static str,
        build: impl FnOnce(&Client) -> O,
    ) -> crate::error::Result<super::dry_run::Request> {
        build(&self.caller)
            .dry()
            .map_err(|e| crate::error::Error::InvalidRequest {
                entity,
                reason: e.to_string(),
            })
    }

    /// Sends the request `build` makes from a client, its attempts recorded
    /// into `attempts`.
    pub(crate) async fn send<O: Operation>(
        self: &Arc<Self>,
        attempts: &Attempts,
        build: impl FnOnce(&Client) -> O,
    ) -> Result<O::Output, SdkError<O::Error, HttpResponse>> {
        match self.own.get() {
            Some(own) => {
                let slot = self.slots.holding(build(own).send_request());
                let (output, slot) = send_in_slot(attempts, slot).await;
                self.slots.give_back(slot);
                output
            }
            // The first requests of a handle: their slots are not kept, the
            // handle's later requests go through its own client.
            None => {
                let recorder = Recorder {
                    building: self.clone(),
                };
                let request = build(&self.caller).send_intercepted(recorder);
                send_in_slot(attempts, Box::pin(Some(request))).await.0
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
                .http_client(SharedHttpClient::new(RecordingClient(
                    http_client,
                    self.server.clone(),
                )))
                .identity_cache(used.identity_cache())
                .build();
            Client::from_conf(config)
        });
    }
}

/// Polls the request in `slot` to its end, its attempts recorded into
/// `attempts`; the slot comes back with the output.
async fn send_in_slot<F: Future>(attempts: &Attempts, mut slot: Slot<F>) -> (F::Output, Slot<F>) {
    let output = attempts
        .record(std::future::poll_fn(|cx| {
            match slot.as_mut().as_pin_mut() {
                Some(request) => request.poll(cx),
                // Holding its request, and not polled again once ready.
                None => std::task::Poll::Pending,
            }
        }))
        .await;
    (output, slot)
}

/// How many heap slots a handle keeps for its requests' futures (about
/// 6 KB each).
const KEPT_SLOTS: usize = 16;

/// A request's future on the heap; `None` between requests.
type Slot<F> = Pin<Box<Option<F>>>;

/// The heap slots of finished requests, each of one operation's future
/// type, kept for the next request of that operation.
///
/// The SDK's request futures are large (about 5.5 KB): on the heap, they do
/// not add their size to every future that sends one, but a block that
/// large takes glibc's slow path on every request, consolidating its free
/// lists (about 3k instructions of a ship's client thread, by callgrind).
/// A kept slot is reused instead. The slots are shared by the handle's
/// clones and taken without waiting: when another request holds the lock,
/// a request takes a new block and drops it after.
#[derive(Default)]
struct Slots(Mutex<Vec<Box<dyn Any + Send>>>);

impl Slots {
    /// `request` on the heap: in a kept slot for futures of its type, or
    /// in a new one. Not async, so that the request is not held (and
    /// copied) in the state of the future that sends it.
    fn holding<F: Send + 'static>(&self, request: F) -> Slot<F> {
        // Never waits: with the slots busy, the request takes a new one.
        let kept = self.0.try_lock().ok().and_then(|mut slots| {
            let kept = slots.iter().position(|slot| slot.is::<Slot<F>>());
            kept.map(|i| slots.swap_remove(i))
        });
        match kept.map(|slot| slot.downcast::<Slot<F>>()) {
            Some(Ok(mut slot)) => {
                slot.set(Some(request));
                *slot
            }
            _ => Box::pin(Some(request)),
        }
    }

    /// Empties `slot` and keeps it; with `KEPT_SLOTS` kept, it takes the
    /// place of the first (so a burst of one operation cannot keep the
    /// others from being kept).
    fn give_back<F: Send + 'static>(&self, mut slot: Slot<F>) {
        slot.set(None);
        if let Ok(mut slots) = self.0.try_lock() {
            if slots.len() < KEPT_SLOTS {
                slots.push(Box::new(slot));
            } else {
                slots[0] = Box::new(slot);
            }
        }
    }
}

/// The caller's HTTP client, each attempt recorded into the [`Attempts`]
/// of the request that sends it: its connectors are the caller's, so are
/// its connections.
#[derive(Debug)]
struct RecordingClient(SharedHttpClient, Arc<crate::telemetry::Server>);

impl HttpClient for RecordingClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        let connector = self.0.http_connector(settings, components);
        RecordingConnector(connector, self.1.clone()).into_shared()
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
struct RecordingConnector(SharedHttpConnector, Arc<crate::telemetry::Server>);

impl HttpConnector for RecordingConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        // Where the handle's requests go, for their spans, learned here
        // too: the caller's client may never have sent one.
        self.1.sending_to(request.uri());
        // Called as the request is polled: the request's own attempts.
        match Attempts::sending() {
            Some(attempts) => {
                attempts.sending_request(&request);
                let answer = attempts.clone().attempt(self.0.call(request));
                HttpConnectorFuture::new(async move {
                    let mut response = answer.await?;
                    // A client error's body is kept as the SDK reads it,
                    // for its throttling reasons.
                    if response.status().as_u16() == 400 {
                        let error_type = response.headers().get("x-amzn-ErrorType");
                        let error_type = error_type.map(str::to_owned);
                        let body = std::mem::replace(response.body_mut(), SdkBody::taken());
                        *response.body_mut() = ClientErrorBody::wrap(body, error_type, attempts);
                    }
                    Ok(response)
                })
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
        let request = context.request();
        self.building.server.sending_to(request.uri());
        Attempts::transmitting(request);
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
    /// DynamoDB's name of the operation (`GetItem`).
    const OPERATION: &'static str;

    fn send_request(
        self,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send + 'static;

    fn send_intercepted(
        self,
        recorder: Recorder,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send + 'static;

    /// The input the request would send, for a dry run (the input is
    /// copied out of the builder: never on the way to sending).
    fn dry(self) -> Result<super::dry_run::Request, aws_sdk_dynamodb::error::BuildError>;
}

macro_rules! operation {
    ($($op:ident: $builder:ident -> $output:ident, $error:ident, $variant:ident, $name:literal;)*) => {$(
        impl Operation for aws_sdk_dynamodb::operation::$op::builders::$builder {
            type Output = aws_sdk_dynamodb::operation::$op::$output;
            type Error = aws_sdk_dynamodb::operation::$op::$error;
            const OPERATION: &'static str = $name;

            fn send_request(
                self,
            ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send + 'static
            {
                self.send()
            }

            fn send_intercepted(
                self,
                recorder: Recorder,
            ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send + 'static
            {
                self.customize().interceptor(recorder).send()
            }

            fn dry(self) -> Result<super::dry_run::Request, aws_sdk_dynamodb::error::BuildError> {
                self.as_input().clone().build().map(super::dry_run::Request::$variant)
            }
        }
    )*};
}

operation! {
    put_item: PutItemFluentBuilder -> PutItemOutput, PutItemError, PutItemInput, "PutItem";
    update_item: UpdateItemFluentBuilder -> UpdateItemOutput, UpdateItemError, UpdateItemInput, "UpdateItem";
    delete_item: DeleteItemFluentBuilder -> DeleteItemOutput, DeleteItemError, DeleteItemInput, "DeleteItem";
    get_item: GetItemFluentBuilder -> GetItemOutput, GetItemError, GetItemInput, "GetItem";
    query: QueryFluentBuilder -> QueryOutput, QueryError, QueryInput, "Query";
    transact_write_items: TransactWriteItemsFluentBuilder -> TransactWriteItemsOutput, TransactWriteItemsError, TransactWriteItemsInput, "TransactWriteItems";
    search_vectors: SearchVectorsFluentBuilder -> SearchVectorsOutput, SearchVectorsError, SearchVectorsInput, "SearchVectors";
    scan: ScanFluentBuilder -> ScanOutput, ScanError, ScanInput, "Scan";
    batch_get_item: BatchGetItemFluentBuilder -> BatchGetItemOutput, BatchGetItemError, BatchGetItemInput, "BatchGetItem";
    batch_write_item: BatchWriteItemFluentBuilder -> BatchWriteItemOutput, BatchWriteItemError, BatchWriteItemInput, "BatchWriteItem";
    transact_get_items: TransactGetItemsFluentBuilder -> TransactGetItemsOutput, TransactGetItemsError, TransactGetItemsInput, "TransactGetItems";
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

    /// A finished request's block serves the next request of its future
    /// type; another type takes its own; a request that finds the slots
    /// busy takes a new block and keeps none; no more than `KEPT_SLOTS`
    /// are kept, and a full set still takes a new type's slot.
    #[test]
    fn a_finished_request_leaves_its_block_to_the_next_of_its_type() {
        let slots = Slots::default();
        let address = |slot: &Slot<std::future::Ready<u8>>| &**slot as *const _ as usize;
        let first = slots.holding(std::future::ready(1u8));
        let at = address(&first);
        slots.give_back(first);
        let other = slots.holding(std::future::ready("another type"));
        let again = slots.holding(std::future::ready(2u8));
        assert_eq!(address(&again), at, "the kept block is reused");
        assert!(again.is_some() && other.is_some());
        slots.give_back(again);
        slots.give_back(other);
        assert_eq!(slots.0.lock().unwrap().len(), 2);

        let busy = slots.0.lock().unwrap();
        let while_busy = slots.holding(std::future::ready(3u8));
        assert_ne!(address(&while_busy), at, "a busy lock is not waited for");
        slots.give_back(while_busy);
        drop(busy);
        assert_eq!(slots.0.lock().unwrap().len(), 2, "nor kept");

        let many: Vec<_> = (0..KEPT_SLOTS + 4)
            .map(|i| slots.holding(std::future::ready(i as u8)))
            .collect();
        for slot in many {
            slots.give_back(slot);
        }
        assert_eq!(slots.0.lock().unwrap().len(), KEPT_SLOTS);
        // Full of one type, another type's slot still takes a place.
        slots.give_back(slots.holding(std::future::ready(())));
        let kept = slots.0.lock().unwrap();
        assert_eq!(kept.len(), KEPT_SLOTS);
        assert!(kept
            .iter()
            .any(|slot| slot.is::<Slot<std::future::Ready<()>>>()));
    }

    /// Each operation's name is the one its dry run gives.
    #[test]
    fn an_operation_is_named_as_its_dry_run_names_it() {
        fn named<O: Operation>(request: O) {
            let input = request.dry().expect("an empty input builds");
            assert_eq!(O::OPERATION, input.operation());
        }
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"));
        let client = Client::from_conf(config.build());
        named(client.put_item());
        named(client.update_item());
        named(client.delete_item());
        named(client.get_item());
        named(client.query());
        named(client.transact_write_items());
        named(client.search_vectors());
        named(client.scan());
        named(client.batch_get_item());
        named(client.batch_write_item());
        named(client.transact_get_items());
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
