//! The caller's client, as ddb sends through it: every request with its
//! attempts recorded ([`Recorder`]), and what ddb learns of the server.

use std::future::Future;
use std::sync::Arc;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::Client;

use super::attempts::Attempts;
use super::condition_items::ConditionItems;
use super::operation::{ItemOperation, Operation};
use super::recorder::Recorder;
use crate::telemetry::Server;

/// The caller's client, where its requests go, and what the server's
/// answers have shown.
pub(crate) struct Sdk {
    caller: Client,
    intercepted: bool,
    server: Arc<Server>,
    condition_items: ConditionItems,
}

impl Sdk {
    pub(crate) fn new(caller: Client) -> Arc<Self> {
        let intercepted = caller.config().interceptors().next().is_some();
        Arc::new(Self {
            server: Arc::new(Server::of(&caller)),
            caller,
            intercepted,
            condition_items: ConditionItems::default(),
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
    pub(crate) fn server(&self) -> &Server {
        &self.server
    }

    /// What the server's failed conditions have shown about the items
    /// they met.
    pub(crate) fn condition_items(&self) -> &ConditionItems {
        &self.condition_items
    }

    /// The caller's client.
    pub(crate) fn caller(&self) -> &Client {
        &self.caller
    }

    /// The input of the request `build` makes from the caller's client,
    /// not sent: a dry run of what [`send`](Self::send) would send.
    pub(crate) fn dry<O: ItemOperation>(
        &self,
        entity: &'static str,
        build: impl FnOnce(&Client) -> O,
    ) -> crate::error::Result<super::dry_run::Request> {
        build(&self.caller)
            .request()
            .map_err(|e| crate::error::Error::InvalidRequest {
                entity,
                reason: e.to_string(),
            })
    }

    /// Sends the request `build` makes from the caller's client, its
    /// attempts recorded into `attempts`.
    pub(crate) fn send<O: Operation>(
        &self,
        attempts: &Attempts,
        build: impl FnOnce(&Client) -> O,
    ) -> impl Future<Output = Result<O::Output, SdkError<O::Error, HttpResponse>>> + Send + 'static
    {
        build(&self.caller).send_recorded(Recorder::new(attempts, &self.server))
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
