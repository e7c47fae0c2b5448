//! What an answer reports that its span records, beside its request id:
//! the capacity it consumed and a Scan's counts.

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::operation::scan::ScanOutput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsOutput;
use aws_sdk_dynamodb::operation::RequestId;
use aws_sdk_dynamodb::types::ConsumedCapacity;

/// An answer as its span reads it (see [`Answer`](super::Answer)).
pub(crate) trait Reported: RequestId {
    /// The answer's `ConsumedCapacity`, one per table.
    fn capacity(&self) -> &[ConsumedCapacity];

    /// A Scan's `Count` and `ScannedCount`.
    fn scanned(&self) -> Option<(i32, i32)> {
        None
    }
}

impl Reported for GetItemOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_slice()
    }
}

impl Reported for QueryOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_slice()
    }
}

impl Reported for ScanOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_slice()
    }

    fn scanned(&self) -> Option<(i32, i32)> {
        Some((self.count, self.scanned_count))
    }
}

impl Reported for BatchGetItemOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

impl Reported for BatchWriteItemOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

impl Reported for TransactGetItemsOutput {
    fn capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}
