//! The store's own command line: `cargo run --example store_cli -- --help`.
//!
//! A service ships the same few lines as `src/bin/ddb.rs`, listing its own
//! entities: the command line is compiled with the types that declare the
//! schema.

#[tokio::main]
async fn main() {
    ddb_cli::run_cli(ddb_examples::cli::store()).await
}
