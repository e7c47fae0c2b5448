//! The one interceptor every request ddb sends carries: it records each
//! attempt into the request's [`Attempts`] where it goes on the wire, and
//! learns where the client's requests go, for their spans.
//!
//! ddb sends through the caller's client as it is (its connections, its
//! credentials cache, its own interceptors), adding the recorder to each
//! request (`customize().interceptor(..)`): one route for every operation,
//! and nothing of the SDK's but its public interceptor hooks. The SDK runs
//! `read_after_attempt` after every attempt, a timed-out one included, once
//! the answer's body is read; a request dropped mid-attempt leaves its
//! attempt on the wire, which [`Attempts::maybe_applied`] counts.

use std::sync::Arc;

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, BeforeTransmitInterceptorContextRef,
    FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;

use super::attempts::Attempts;
use crate::telemetry::Server;

/// Records one request's attempts (see [the module](self)).
#[derive(Debug, Clone)]
pub(crate) struct Recorder {
    attempts: Attempts,
    server: Arc<Server>,
}

impl Recorder {
    /// Records into `attempts`, and learns the endpoint for `server`.
    pub(crate) fn new(attempts: &Attempts, server: &Arc<Server>) -> Self {
        Self {
            attempts: attempts.clone(),
            server: server.clone(),
        }
    }
}

impl Intercept for Recorder {
    fn name(&self) -> &'static str {
        "ddb-attempts"
    }

    /// Runs after every interceptor's `modify_before_serialization` (the
    /// caller's own, which may rewrite the item): the put item as sent.
    fn read_before_serialization(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if !self.attempts.keeps_put() {
            return Ok(());
        }
        let input = context.input();
        let item = match input.downcast_ref::<PutItemInput>() {
            Some(put) => put.item.as_ref(),
            None => input
                .downcast_ref::<TransactWriteItemsInput>()
                .and_then(|transaction| transaction.transact_items.as_deref())
                .and_then(|actions| actions.first())
                .and_then(|action| action.put.as_ref())
                .map(|put| &put.item),
        };
        if let Some(item) = item {
            self.attempts.sending_put(item);
        }
        Ok(())
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.server.sending_to(context.request().uri());
        self.attempts.transmitting();
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.attempts.ended(context.response());
        Ok(())
    }
}
