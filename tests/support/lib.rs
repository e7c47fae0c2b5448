//! Shared set-up for ddb's integration tests: one local DynamoDB per test
//! process (or `DDB_ENDPOINT`), a fresh client per test, a table per test.

use std::sync::OnceLock;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use ddb_runtime::local::{unique_table_name, LocalDynamoDb};
use ddb_runtime::model::TableDef;

/// The process's local DynamoDB: started once, shared by every test. Each test
/// uses its own tables, so tests run in parallel without interfering.
pub fn local() -> &'static LocalDynamoDb {
    static LOCAL: OnceLock<LocalDynamoDb> = OnceLock::new();
    LOCAL.get_or_init(|| LocalDynamoDb::start().expect("start the local DynamoDB"))
}

/// A client for this test's runtime (SDK clients keep connections per runtime).
pub fn client() -> Client {
    local().new_client()
}

/// Creates a uniquely named copy of `table` and returns its name.
pub async fn create_table(client: &Client, table: &TableDef) -> String {
    let name = unique_table_name(table.name);
    ddb_runtime::schema::create_table_if_missing(client, table, &name, Duration::from_secs(60))
        .await
        .expect("create the test table");
    name
}
