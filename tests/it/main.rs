//! ddb's integration tests: one binary, so the SDK and the server link once.

mod compile;
mod keys;
mod local;
mod reads;
mod schema;
mod segments;
mod store;
mod writes;
