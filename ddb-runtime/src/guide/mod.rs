//! The guide: how to design, read, write and operate a table with ddb, one
//! idea per page. Every sample compiles, and those that talk to a table run
//! against the in-process server in `cargo test`.

#[doc = include_str!("business_operations.md")]
pub mod business_operations {}
