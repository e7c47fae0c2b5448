//! The SDK's operations as ddb sends them: each fluent builder is sent with
//! the [`Recorder`] added, under DynamoDB's name for it, and an item
//! operation's input is what a dry run keeps.

use std::future::Future;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{BuildError, SdkError};

use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder;

use super::dry_run::Request;
use super::recorder::Recorder;

/// A request of the SDK's fluent builders.
pub(crate) trait Operation: Sized {
    /// What the operation answers.
    type Output;
    /// How it fails.
    type Error;
    /// DynamoDB's name of the operation (`GetItem`).
    const OPERATION: &'static str;

    /// Sends the request with `recorder` added to its interceptors.
    fn send_recorded(
        self,
        recorder: Recorder,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send + 'static;

    /// How many items the request sends (a batch's requests, a
    /// transaction's actions), for its span.
    fn sent_items(&self) -> usize {
        1
    }

    /// Calls `each` with every item the request writes (its table, and its
    /// key or whole item), for the caches it invalidates.
    #[cfg(feature = "cache")]
    fn written(&self, each: super::written::Each<'_>) {
        let _ = each;
    }

    /// The input the request would send (copied out of the builder), for a
    /// dry run; `None` for a table operation, which no dry run sends.
    fn request(&self) -> Option<Result<Request, BuildError>> {
        None
    }
}

macro_rules! operation {
    ($op:ident: $builder:ident -> $output:ident, $error:ident, $name:literal $(, input $variant:ident)? $(, sent $sent:expr)? $(, written $written:path)?) => {
        impl Operation for aws_sdk_dynamodb::operation::$op::builders::$builder {
            type Output = aws_sdk_dynamodb::operation::$op::$output;
            type Error = aws_sdk_dynamodb::operation::$op::$error;
            const OPERATION: &'static str = $name;

            fn send_recorded(
                self,
                recorder: Recorder,
            ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>>
                   + Send
                   + 'static {
                // Boxed: the SDK's future is large, and each layer above
                // would otherwise move it by value.
                Box::pin(self.customize().interceptor(recorder).send())
            }

            $(fn sent_items(&self) -> usize {
                $sent(self.as_input())
            })?

            $(#[cfg(feature = "cache")]
            fn written(&self, each: super::written::Each<'_>) {
                $written(self.as_input(), each)
            })?

            $(fn request(&self) -> Option<Result<Request, BuildError>> {
                Some(self.as_input().clone().build().map(Request::$variant))
            })?
        }
    };
}
pub(super) use operation;

macro_rules! item_operations {
    ($($op:ident: $builder:ident -> $output:ident, $error:ident, $variant:ident, $name:literal $(, sent $sent:expr)? $(, written $written:path)?;)*) => {$(
        operation!($op: $builder -> $output, $error, $name, input $variant $(, sent $sent)? $(, written $written)?);
    )*};
}

item_operations! {
    put_item: PutItemFluentBuilder -> PutItemOutput, PutItemError, PutItemInput, "PutItem",
        written super::written::put;
    update_item: UpdateItemFluentBuilder -> UpdateItemOutput, UpdateItemError, UpdateItemInput, "UpdateItem",
        written super::written::update;
    delete_item: DeleteItemFluentBuilder -> DeleteItemOutput, DeleteItemError, DeleteItemInput, "DeleteItem",
        written super::written::delete;
    get_item: GetItemFluentBuilder -> GetItemOutput, GetItemError, GetItemInput, "GetItem";
    query: QueryFluentBuilder -> QueryOutput, QueryError, QueryInput, "Query";
    transact_write_items: TransactWriteItemsFluentBuilder -> TransactWriteItemsOutput, TransactWriteItemsError, TransactWriteItemsInput, "TransactWriteItems",
        sent |input: &TransactWriteItemsInputBuilder| input.get_transact_items().as_ref().map_or(0, Vec::len),
        written super::written::transaction;
    search_vectors: SearchVectorsFluentBuilder -> SearchVectorsOutput, SearchVectorsError, SearchVectorsInput, "SearchVectors";
    scan: ScanFluentBuilder -> ScanOutput, ScanError, ScanInput, "Scan";
    batch_get_item: BatchGetItemFluentBuilder -> BatchGetItemOutput, BatchGetItemError, BatchGetItemInput, "BatchGetItem";
    batch_write_item: BatchWriteItemFluentBuilder -> BatchWriteItemOutput, BatchWriteItemError, BatchWriteItemInput, "BatchWriteItem",
        sent |input: &BatchWriteItemInputBuilder| input.get_request_items().iter().flat_map(|r| r.values()).map(Vec::len).sum(),
        written super::written::batch;
    transact_get_items: TransactGetItemsFluentBuilder -> TransactGetItemsOutput, TransactGetItemsError, TransactGetItemsInput, "TransactGetItems";
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
    use aws_sdk_dynamodb::Client;

    /// Each operation's name is the one its dry run gives.
    #[test]
    fn an_operation_is_named_as_its_dry_run_names_it() {
        fn named<O: Operation>(request: O) {
            let input = request.request().unwrap().expect("an empty input builds");
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
}
