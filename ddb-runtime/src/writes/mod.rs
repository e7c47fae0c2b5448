//! Writes: every write is a plan (one file per operation) that single
//! requests, transactions and batches send.

pub mod batch;
pub(crate) mod condition_met;
pub mod create;
pub mod delete;
pub mod idempotent;
pub mod item;
pub mod modify;
pub mod plan;
pub mod put;
pub mod transact;
pub mod unique;
pub mod update;
pub mod written;
