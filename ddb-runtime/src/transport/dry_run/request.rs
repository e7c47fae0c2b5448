//! The requests a dry run holds: the SDK's own input of each operation ddb
//! sends, and DynamoDB's name of the operation.

use aws_sdk_dynamodb::operation::{
    batch_get_item::BatchGetItemInput, batch_write_item::BatchWriteItemInput,
    delete_item::DeleteItemInput, get_item::GetItemInput, put_item::PutItemInput,
    query::QueryInput, scan::ScanInput, search_vectors::SearchVectorsInput,
    transact_get_items::TransactGetItemsInput, transact_write_items::TransactWriteItemsInput,
    update_item::UpdateItemInput,
};

/// One request a call would send: the SDK's own input, exactly as ddb would
/// send it. Its `Debug` resolves placeholders but prints no value (without
/// its [`DryRun`](super::DryRun), no attribute is known not to be
/// sensitive): print the `DryRun` to see the values that may be shown.
///
/// # Example
///
/// ```no_run
/// # use ddb_runtime::dry_run::Request;
/// # fn demo(request: &Request) {
/// if let Request::QueryInput(input) = request {
///     println!("{:?}", input.key_condition_expression());
/// }
/// # }
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum Request {
    /// A Query.
    QueryInput(QueryInput),
    /// A Scan.
    ScanInput(ScanInput),
    /// A GetItem.
    GetItemInput(GetItemInput),
    /// A PutItem.
    PutItemInput(PutItemInput),
    /// An UpdateItem.
    UpdateItemInput(UpdateItemInput),
    /// A DeleteItem.
    DeleteItemInput(DeleteItemInput),
    /// A BatchGetItem.
    BatchGetItemInput(BatchGetItemInput),
    /// A BatchWriteItem.
    BatchWriteItemInput(BatchWriteItemInput),
    /// A TransactGetItems.
    TransactGetItemsInput(TransactGetItemsInput),
    /// A TransactWriteItems.
    TransactWriteItemsInput(TransactWriteItemsInput),
    /// A SearchVectors.
    SearchVectorsInput(SearchVectorsInput),
}

impl Request {
    /// DynamoDB's name of the operation (`"Query"`, `"PutItem"`, ...).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo(request: &ddb_runtime::dry_run::Request) {
    /// assert_eq!(request.operation(), "Query");
    /// # }
    /// ```
    pub fn operation(&self) -> &'static str {
        match self {
            Self::QueryInput(_) => "Query",
            Self::ScanInput(_) => "Scan",
            Self::GetItemInput(_) => "GetItem",
            Self::PutItemInput(_) => "PutItem",
            Self::UpdateItemInput(_) => "UpdateItem",
            Self::DeleteItemInput(_) => "DeleteItem",
            Self::BatchGetItemInput(_) => "BatchGetItem",
            Self::BatchWriteItemInput(_) => "BatchWriteItem",
            Self::TransactGetItemsInput(_) => "TransactGetItems",
            Self::TransactWriteItemsInput(_) => "TransactWriteItems",
            Self::SearchVectorsInput(_) => "SearchVectors",
        }
    }
}
