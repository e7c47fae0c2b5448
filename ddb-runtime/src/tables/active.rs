//! Waiting for a table to be ACTIVE, as DynamoDB requires between a
//! table's changes.

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::TableStatus;
use aws_sdk_dynamodb::Client;

use crate::error::Error;
use crate::transport::table_operation::TableOperation;

/// Waits until the table and every global index are ACTIVE (at most
/// `timeout`).
pub(crate) async fn wait_until_active(
    client: &Client,
    name: &str,
    timeout: Duration,
) -> Result<(), Error> {
    let started = Instant::now();
    let mut delay = Duration::from_millis(20);
    loop {
        let described = client
            .describe_table()
            .table_name(name)
            .send_on(client, name)
            .await?;
        let status = described.table().and_then(|t| t.table_status().cloned());
        let active = |s: Option<&aws_sdk_dynamodb::types::IndexStatus>| {
            s.is_none_or(|s| *s == aws_sdk_dynamodb::types::IndexStatus::Active)
        };
        let indexes_active = described
            .table()
            .map(|t| {
                let globals = t.global_secondary_indexes().iter();
                let vectors = t.vector_indexes().iter();
                globals.clone().all(|i| active(i.index_status()))
                    && vectors.clone().all(|i| active(i.index_status()))
            })
            .unwrap_or(true);
        if status == Some(TableStatus::Active) && indexes_active {
            return Ok(());
        }
        if started.elapsed() >= timeout {
            return Err(Error::TableNotActive {
                table: name.to_owned(),
                status: status.map(|s| s.as_str().to_owned()).unwrap_or_default(),
                waited_ms: started.elapsed().as_millis(),
            });
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}
