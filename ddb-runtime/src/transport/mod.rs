//! Sending requests and knowing what happened to them: the SDK client ddb
//! sends through, every attempt recorded, what was sent read back, and the
//! retries batches make of what DynamoDB left unprocessed.

pub(crate) mod answer_body;
pub mod attempts;
pub mod batch;
pub(crate) mod condition_items;
pub mod dry_run;
pub mod sdk;
pub mod sent;
