//! One request sent in its span, its failure read as the SDK's error.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use super::Db;
use crate::error::Result;
use crate::telemetry::{Reported, RequestSpan};
use crate::transport::operation::Operation;

impl Db {
    /// Sends `request` in `span`, which records the answer or the failure,
    /// as the SDK's error (see [`Sdk::send`](crate::transport::sdk::Sdk::send)).
    pub(crate) async fn send_in_span<O>(&self, span: &RequestSpan, request: O) -> Result<O::Output>
    where
        O: Operation,
        O::Output: Reported,
        O::Error: ProvideErrorMetadata,
        aws_sdk_dynamodb::Error: From<SdkError<O::Error, HttpResponse>>,
    {
        self.sdk().send_plain(span, request).await
    }
}
