//! The guide: ddb from a first table to production, one idea per page.
//!
//! Read [`getting_started`] first (ten minutes), then [`modeling`]; the
//! other pages stand alone. Every Rust sample compiles as a doc test, and
//! those that talk to a table run against the in-process DynamoDB of
//! `ddb-local`.
//!
//! | page | what it answers |
//! |---|---|
//! | [`getting_started`] | a table, an entity, a write, a query, in ten minutes |
//! | [`modeling`] | from the access-pattern inventory to keys and indexes |
//! | [`reading`] | gets, queries, pages and cursors, collections, projections, scans, vector search, streams |
//! | [`counting`] | `count()` on queries, collections and scans; the leaderboard rank; pages that end where the items end |
//! | [`writing`] | create, put, update, delete, read-modify-write, batches, what is checked before sending |
//! | [`transactions`] | business operations: transactions, idempotency keys, per-action outcomes, upserts |
//! | [`business_operations`] | three recipes a client can retry (a purchase, a trade, joining a guild), their errors and costs |
//! | [`unique_values`] | unique values and idempotent creates: guarantees, costs, backfill, IAM |
//! | [`indexes`] | adding indexes and changing the design after launch |
//! | [`table_settings`] | table class, encryption, tags, recovery period, throughput, Contributor Insights, resource policy |
//! | [`testing`] | the in-process server, the fault proxy, `DDB_ENDPOINT` |
//! | [`operating`] | infrastructure as code, IAM, the command line, observability, cost |
//! | [`performance`] | what ddb costs over hand-written SDK code |
//! | [`limits`] | what ddb does not do, or does with a caveat |
//! | [`stored_attributes`] | every attribute and item ddb stores beside your fields |
//!
//! The reference for every `#[ddb(...)]` attribute is
//! [`attributes`](crate::attributes).

#[doc = include_str!("getting_started.md")]
pub mod getting_started {}

#[doc = include_str!("modeling.md")]
pub mod modeling {}

#[doc = include_str!("reading.md")]
pub mod reading {}

#[doc = include_str!("writing.md")]
pub mod writing {}

#[doc = include_str!("transactions.md")]
pub mod transactions {}

#[doc = include_str!("business_operations.md")]
pub mod business_operations {}

#[doc = include_str!("unique_values.md")]
pub mod unique_values {}

#[doc = include_str!("counting.md")]
pub mod counting {}

#[doc = include_str!("indexes.md")]
pub mod indexes {}

#[doc = include_str!("table_settings.md")]
pub mod table_settings {}

#[doc = include_str!("testing.md")]
pub mod testing {}

#[doc = include_str!("operating.md")]
pub mod operating {}

#[doc = include_str!("performance.md")]
pub mod performance {}

#[doc = include_str!("limits.md")]
pub mod limits {}

#[doc = include_str!("stored_attributes.md")]
pub mod stored_attributes {}
