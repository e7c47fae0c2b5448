//! Writes: every write is a plan (one file per operation) that single
//! requests, transactions and batches send.

pub mod batch;
pub(crate) mod condition_met;
pub mod create;
pub mod delete;
pub(crate) mod guarded;
pub(crate) mod idempotency;
pub mod idempotent;
pub mod item;
pub mod modify;
pub mod plan;
pub mod put;
pub mod transact;
pub mod transaction;
pub mod unique;
pub mod update;
pub mod written;
