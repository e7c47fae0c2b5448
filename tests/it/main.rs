//! ddb's integration tests: one binary, so the SDK and the server link once.

mod backfill;
mod campaigns;
mod compile;
mod convert;
mod encoding;
mod fuzz;
mod hostile;
mod iam;
mod index_invariant;
mod keys;
mod local;
mod manifest;
mod migrations;
mod multi_attribute;
mod reads;
mod schema;
mod segments;
mod store;
mod streams;
mod sweep;
mod telemetry;
mod writes;
