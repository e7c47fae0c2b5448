//! Sending requests and knowing what happened to them: the caller's client
//! ddb sends through, every attempt recorded, and the retries batches make
//! of what DynamoDB left unprocessed.

pub mod attempts;
pub mod batch;
pub(crate) mod capture;
pub(crate) mod condition_items;
pub mod dry_run;
#[cfg(feature = "cache")]
pub(crate) mod invalidation;
pub(crate) mod operation;
pub(crate) mod recorder;
pub mod sdk;
pub(crate) mod table_operation;
#[cfg(feature = "cache")]
pub(crate) mod written;
