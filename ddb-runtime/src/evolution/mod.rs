//! Evolution: schema versions and migrations of stored items, and the
//! backfill that brings stored items in line with today's indexes.

pub mod backfill;
pub mod migrate;
