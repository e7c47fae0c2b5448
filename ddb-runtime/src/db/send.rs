//! One request sent in its span: its attempts counted, its answer or its
//! failure recorded.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::Client;
use tracing::Instrument;

use super::Db;
use crate::error::Result;
use crate::telemetry::{Answer, Reported, RequestSpan};
use crate::transport::attempts::Attempts;
use crate::transport::operation::Operation;

impl Db {
    /// Sends the request `build` makes under `span`, which records the
    /// answer, with the items it wrote or returned (`items`), or the
    /// failure, as ddb's error.
    pub(crate) async fn send_in_span<O>(
        &self,
        span: &RequestSpan,
        build: impl FnOnce(&Client) -> O,
        items: impl FnOnce(&O::Output) -> usize,
    ) -> Result<O::Output>
    where
        O: Operation,
        O::Output: Reported,
        aws_sdk_dynamodb::Error: From<SdkError<O::Error, HttpResponse>>,
    {
        let attempts = Attempts::default();
        let server = self.sdk().server();
        let output = self
            .sdk()
            .send(&attempts, build)
            .instrument(span.span().clone())
            .await
            .map_err(|e| span.sdk_failure(server, O::OPERATION, e, attempts.tried(0)))?;
        let answer = Answer {
            capacity: output.capacity(),
            items: items(&output),
            tried: attempts.tried(0),
            request_id: aws_sdk_dynamodb::operation::RequestId::request_id(&output),
            scanned: output.scanned(),
        };
        span.answered(server, &answer);
        Ok(output)
    }
}
