//! What an answer reports that its span records, beside its request id:
//! the capacity it consumed, the items it wrote or returned, and a Scan's
//! counts.

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::operation::create_table::CreateTableOutput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput;
use aws_sdk_dynamodb::operation::describe_continuous_backups::DescribeContinuousBackupsOutput;
use aws_sdk_dynamodb::operation::describe_contributor_insights::DescribeContributorInsightsOutput;
use aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput;
use aws_sdk_dynamodb::operation::describe_time_to_live::DescribeTimeToLiveOutput;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::operation::get_resource_policy::GetResourcePolicyOutput;
use aws_sdk_dynamodb::operation::list_tags_of_resource::ListTagsOfResourceOutput;
use aws_sdk_dynamodb::operation::put_item::PutItemOutput;
use aws_sdk_dynamodb::operation::put_resource_policy::PutResourcePolicyOutput;
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::operation::scan::ScanOutput;
use aws_sdk_dynamodb::operation::search_vectors::SearchVectorsOutput;
use aws_sdk_dynamodb::operation::tag_resource::TagResourceOutput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsOutput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput;
use aws_sdk_dynamodb::operation::update_continuous_backups::UpdateContinuousBackupsOutput;
use aws_sdk_dynamodb::operation::update_contributor_insights::UpdateContributorInsightsOutput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
use aws_sdk_dynamodb::operation::update_table::UpdateTableOutput;
use aws_sdk_dynamodb::operation::update_time_to_live::UpdateTimeToLiveOutput;
use aws_sdk_dynamodb::operation::RequestId;
use aws_sdk_dynamodb::types::ConsumedCapacity;

/// An answer as its span reads it.
pub(crate) trait Reported: RequestId {
    /// The answer's `ConsumedCapacity`, one per table.
    fn capacity(&self) -> &[ConsumedCapacity] {
        &[]
    }

    /// The items the request wrote or returned, of the `sent` it sent (its
    /// batch's requests, its transaction's actions; 1 otherwise); `None`
    /// for a table operation.
    fn items(&self, sent: usize) -> Option<usize>;

    /// A Scan's `Count` and `ScannedCount`.
    fn scanned(&self) -> Option<(i32, i32)> {
        None
    }
}

/// A single item's write: the one item, and its capacity.
macro_rules! item_write {
    ($($output:ty),*) => {$(
        impl Reported for $output {
            fn capacity(&self) -> &[ConsumedCapacity] {
                self.consumed_capacity.as_slice()
            }

            fn items(&self, _: usize) -> Option<usize> {
                Some(1)
            }
        }
    )*};
}

item_write!(PutItemOutput, UpdateItemOutput, DeleteItemOutput);

/// A table operation: no items, no capacity.
macro_rules! table_operation {
    ($($output:ty),*) => {$(
        impl Reported for $output {
            fn items(&self, _: usize) -> Option<usize> {
                None
            }
        }
    )*};
}

table_operation!(
    CreateTableOutput,
    DescribeTableOutput,
    UpdateTableOutput,
    DescribeTimeToLiveOutput,
    UpdateTimeToLiveOutput,
    UpdateContinuousBackupsOutput,
    DescribeContinuousBackupsOutput,
    UpdateContributorInsightsOutput,
    DescribeContributorInsightsOutput,
    TagResourceOutput,
    ListTagsOfResourceOutput,
    PutResourcePolicyOutput,
    GetResourcePolicyOutput
);

impl Reported for GetItemOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_slice()
    }

    fn items(&self, _: usize) -> Option<usize> {
        Some(usize::from(self.item.is_some()))
    }
}

impl Reported for QueryOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_slice()
    }

    fn items(&self, _: usize) -> Option<usize> {
        Some(self.items.as_ref().map_or(0, Vec::len))
    }
}

impl Reported for ScanOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_slice()
    }

    fn items(&self, _: usize) -> Option<usize> {
        Some(self.items.as_ref().map_or(0, Vec::len))
    }

    fn scanned(&self) -> Option<(i32, i32)> {
        Some((self.count, self.scanned_count))
    }
}

impl Reported for BatchGetItemOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }

    fn items(&self, _: usize) -> Option<usize> {
        let responses = self.responses.iter().flat_map(|r| r.values());
        Some(responses.map(Vec::len).sum())
    }
}

impl Reported for BatchWriteItemOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }

    /// The requests sent but those DynamoDB returned unprocessed.
    fn items(&self, sent: usize) -> Option<usize> {
        let left = self.unprocessed_items.iter().flat_map(|u| u.values());
        Some(sent.saturating_sub(left.map(Vec::len).sum()))
    }
}

impl Reported for TransactGetItemsOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }

    fn items(&self, _: usize) -> Option<usize> {
        let responses = self.responses.as_deref().unwrap_or_default();
        Some(responses.iter().filter(|r| r.item.is_some()).count())
    }
}

impl Reported for TransactWriteItemsOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }

    fn items(&self, sent: usize) -> Option<usize> {
        Some(sent)
    }
}

impl Reported for SearchVectorsOutput {
    fn items(&self, _: usize) -> Option<usize> {
        Some(self.search_results.as_ref().map_or(0, Vec::len))
    }
}
