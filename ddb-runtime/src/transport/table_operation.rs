//! Table operations (CreateTable, DescribeTable, UpdateTable and the time
//! to live's), each sent through a client by the one route, in a span of
//! its own that records where it went, its request id and its failure.

use std::future::Future;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::Client;

use super::operation::{operation, Operation};
use super::recorder::Recorder;
use super::sdk::Sdk;
use crate::error::{Error, Result};
use crate::telemetry::{Reported, RequestSpan};

/// A table operation (CreateTable, UpdateTable, ...), sent through a
/// client in a span of its own that records where it went, its request id
/// and its failure.
pub(crate) trait TableOperation: Operation
where
    Self::Output: Reported,
    Self::Error: aws_sdk_dynamodb::error::ProvideErrorMetadata,
{
    /// Records on `span` what the request sends that the conventions name
    /// as string[] attributes.
    #[cfg(feature = "opentelemetry")]
    fn record_sent(&self, span: &tracing::Span);

    /// Sends the operation on table `table` in a span of its own, its
    /// failure as ddb's error.
    fn send_on(self, client: &Client, table: &str) -> impl Future<Output = Result<Self::Output>>
    where
        aws_sdk_dynamodb::Error: From<SdkError<Self::Error, HttpResponse>>,
    {
        self.send_on_for(client, (table, ""), |_| false)
    }

    /// [`send_on`](Self::send_on), for the work of an entity (a
    /// backfill's, `""` for none), which its span names; a failure the
    /// caller `handles` is recorded as an answer.
    fn send_on_for(
        self,
        client: &Client,
        (table, entity): (&str, &'static str),
        handles: fn(&Error) -> bool,
    ) -> impl Future<Output = Result<Self::Output>>
    where
        aws_sdk_dynamodb::Error: From<SdkError<Self::Error, HttpResponse>>,
    {
        let sdk = Sdk::new(client.clone());
        let span = RequestSpan::new(sdk.server(), Self::OPERATION, table, None, entity);
        let span = span.answering(handles);
        #[cfg(feature = "opentelemetry")]
        if span.is_recorded() {
            self.record_sent(span.span());
        }
        async move { sdk.send_plain(&span, self).await }
    }
}

macro_rules! table_operations {
    ($($op:ident: $builder:ident -> $output:ident, $error:ident, $name:literal, $sent:ident;)*) => {$(
        operation!($op: $builder -> $output, $error, $name);

        impl TableOperation for aws_sdk_dynamodb::operation::$op::builders::$builder {
            #[cfg(feature = "opentelemetry")]
            fn record_sent(&self, span: &tracing::Span) {
                crate::telemetry::$sent(self.as_input(), span)
            }
        }
    )*};
}

table_operations! {
    create_table: CreateTableFluentBuilder -> CreateTableOutput, CreateTableError, "CreateTable", create_table_sent;
    describe_table: DescribeTableFluentBuilder -> DescribeTableOutput, DescribeTableError, "DescribeTable", nothing_sent;
    update_table: UpdateTableFluentBuilder -> UpdateTableOutput, UpdateTableError, "UpdateTable", update_table_sent;
    describe_time_to_live: DescribeTimeToLiveFluentBuilder -> DescribeTimeToLiveOutput, DescribeTimeToLiveError, "DescribeTimeToLive", nothing_sent;
    update_time_to_live: UpdateTimeToLiveFluentBuilder -> UpdateTimeToLiveOutput, UpdateTimeToLiveError, "UpdateTimeToLive", nothing_sent;
    update_continuous_backups: UpdateContinuousBackupsFluentBuilder -> UpdateContinuousBackupsOutput, UpdateContinuousBackupsError, "UpdateContinuousBackups", nothing_sent;
    describe_continuous_backups: DescribeContinuousBackupsFluentBuilder -> DescribeContinuousBackupsOutput, DescribeContinuousBackupsError, "DescribeContinuousBackups", nothing_sent;
    update_contributor_insights: UpdateContributorInsightsFluentBuilder -> UpdateContributorInsightsOutput, UpdateContributorInsightsError, "UpdateContributorInsights", nothing_sent;
    describe_contributor_insights: DescribeContributorInsightsFluentBuilder -> DescribeContributorInsightsOutput, DescribeContributorInsightsError, "DescribeContributorInsights", nothing_sent;
    tag_resource: TagResourceFluentBuilder -> TagResourceOutput, TagResourceError, "TagResource", nothing_sent;
    list_tags_of_resource: ListTagsOfResourceFluentBuilder -> ListTagsOfResourceOutput, ListTagsOfResourceError, "ListTagsOfResource", nothing_sent;
    put_resource_policy: PutResourcePolicyFluentBuilder -> PutResourcePolicyOutput, PutResourcePolicyError, "PutResourcePolicy", nothing_sent;
    get_resource_policy: GetResourcePolicyFluentBuilder -> GetResourcePolicyOutput, GetResourcePolicyError, "GetResourcePolicy", nothing_sent;
}
