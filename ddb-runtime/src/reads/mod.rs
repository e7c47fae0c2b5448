//! Reads: GetItem, the query engine and typed queries, typed scans, item
//! collections, projections, cursors, batch and transactional gets, the
//! coalescing loader.

pub mod batch_get;
#[cfg(feature = "cache")]
pub mod cache;
pub mod collection;
pub mod count;
pub mod cursor;
#[cfg(feature = "bench")]
pub mod cursor_bench;
pub mod fetch;
pub mod get;
pub mod loader;
mod options;
pub mod projection;
pub mod query;
pub mod scan;
pub mod search;
pub mod transact_get;
pub mod unique;
