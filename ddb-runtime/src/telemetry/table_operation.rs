//! Table operations (CreateTable, DescribeTable, UpdateTable and the time
//! to live's), each sent in a span of its own that records where it went,
//! its request id and its failure.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::{BoxError, SdkError};
use aws_sdk_dynamodb::Client;

use super::span::{RequestSpan, Server};
use crate::error::Error;

/// A table operation's fluent builder.
pub(crate) trait TableOperation: Sized {
    /// What the operation answers.
    type Output: aws_sdk_dynamodb::operation::RequestId;
    /// How it fails.
    type Error: aws_sdk_dynamodb::error::ProvideErrorMetadata;
    /// DynamoDB's name of the operation.
    const OPERATION: &'static str;

    /// Sends the request, its endpoint and attempts learned by `seen`.
    fn send_to(
        self,
        seen: EndpointSeen,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send;

    /// Records on `span` what the request sends that the conventions name
    /// as string[] attributes.
    #[cfg(feature = "opentelemetry")]
    fn record_sent(&self, span: &tracing::Span);

    /// Sends the operation on table `table` in a span of its own.
    fn send_spanned(
        self,
        client: &Client,
        table: &str,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> {
        self.send_spanned_for(client, (table, ""), |_| false)
    }

    /// [`send_spanned`](Self::send_spanned), for the work of an entity (a
    /// backfill's, `""` for none), which its span names; a service error
    /// the caller `handles` is recorded as an answer, not a failure.
    fn send_spanned_for(
        self,
        client: &Client,
        (table, entity): (&str, &'static str),
        handles: impl Fn(&Self::Error) -> bool,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> {
        let region = client.config().region().map(ToString::to_string);
        let seen = EndpointSeen {
            server: Arc::new(Server::new(region)),
            attempts: Arc::default(),
        };
        let span = RequestSpan::new(&seen.server, Self::OPERATION, table, None, entity);
        #[cfg(feature = "opentelemetry")]
        if span.is_recorded() {
            self.record_sent(span.span());
        }
        async move {
            let sent = self.send_to(seen.clone());
            span.table_request((&seen.server, &seen.attempts), sent, handles)
                .await
        }
    }

    /// [`send_spanned`](Self::send_spanned), its failure as ddb's error.
    fn send_on(
        self,
        client: &Client,
        table: &str,
    ) -> impl Future<Output = Result<Self::Output, Error>>
    where
        aws_sdk_dynamodb::Error: From<SdkError<Self::Error, HttpResponse>>,
    {
        let sent = self.send_spanned(client, table);
        async move { sent.await.map_err(|e| Error::sdk(Self::OPERATION, e)) }
    }
}

/// Learns the endpoint a table operation is sent to, and counts its
/// attempts on the wire, for its span.
#[derive(Debug, Clone)]
pub(crate) struct EndpointSeen {
    server: Arc<Server>,
    attempts: Arc<AtomicU32>,
}

impl Intercept for EndpointSeen {
    fn name(&self) -> &'static str {
        "ddb-table-operation-endpoint"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.server.sending_to(context.request().uri());
        self.attempts.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

macro_rules! table_operation {
    ($($op:ident: $builder:ident -> $output:ident, $error:ident, $name:literal, $sent:ident;)*) => {$(
        impl TableOperation for aws_sdk_dynamodb::operation::$op::builders::$builder {
            type Output = aws_sdk_dynamodb::operation::$op::$output;
            type Error = aws_sdk_dynamodb::operation::$op::$error;
            const OPERATION: &'static str = $name;

            fn send_to(
                self,
                seen: EndpointSeen,
            ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send {
                self.customize().interceptor(seen).send()
            }

            #[cfg(feature = "opentelemetry")]
            fn record_sent(&self, span: &tracing::Span) {
                super::opentelemetry::$sent(self.as_input(), span)
            }
        }
    )*};
}

table_operation! {
    create_table: CreateTableFluentBuilder -> CreateTableOutput, CreateTableError, "CreateTable", create_table_sent;
    describe_table: DescribeTableFluentBuilder -> DescribeTableOutput, DescribeTableError, "DescribeTable", nothing_sent;
    update_table: UpdateTableFluentBuilder -> UpdateTableOutput, UpdateTableError, "UpdateTable", update_table_sent;
    describe_time_to_live: DescribeTimeToLiveFluentBuilder -> DescribeTimeToLiveOutput, DescribeTimeToLiveError, "DescribeTimeToLive", nothing_sent;
    update_time_to_live: UpdateTimeToLiveFluentBuilder -> UpdateTimeToLiveOutput, UpdateTimeToLiveError, "UpdateTimeToLive", nothing_sent;
}
