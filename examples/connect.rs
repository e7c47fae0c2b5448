//! Where the examples run: a client built the way production code builds it.

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::Credentials;
use aws_sdk_dynamodb::Client;
use ddb_local::{LocalDynamoDb, ENDPOINT_VAR};

/// Set to `1` to run against real DynamoDB with the standard AWS environment
/// (credentials, `AWS_REGION`, `AWS_PROFILE`, ...).
pub const REAL_AWS_VAR: &str = "DDB_REAL_AWS";

/// Where a client points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Real DynamoDB, through aws-config's defaults.
    Aws,
    /// The endpoint in `DDB_ENDPOINT`.
    Endpoint(String),
    /// An embedded local DynamoDB.
    Embedded(String),
}

/// A client from aws-config's defaults (so `AWS_MAX_ATTEMPTS`,
/// `AWS_RETRY_MODE` and the rest apply), overriding only the endpoint and, for
/// a local server, the credentials:
///
/// - `DDB_REAL_AWS=1`: real DynamoDB, nothing overridden;
/// - `DDB_ENDPOINT=http://...`: that endpoint;
/// - otherwise: an embedded local DynamoDB, kept alive by the returned guard.
pub async fn client() -> Result<(Client, Target, Option<LocalDynamoDb>), Box<dyn std::error::Error>>
{
    let real = std::env::var(REAL_AWS_VAR).is_ok_and(|v| v == "1");
    let config = aws_config::load_defaults(BehaviorVersion::latest()).await;
    if real {
        return Ok((Client::new(&config), Target::Aws, None));
    }
    let local = match std::env::var(ENDPOINT_VAR) {
        Ok(endpoint) if !endpoint.is_empty() => LocalDynamoDb::connect(endpoint)?,
        _ => LocalDynamoDb::embedded()?,
    };
    let mut builder =
        aws_sdk_dynamodb::config::Builder::from(&config).endpoint_url(local.endpoint());
    if local.is_embedded() || config.credentials_provider().is_none() {
        builder = builder.credentials_provider(Credentials::new(
            "ddblocal",
            "ddblocal",
            None,
            None,
            "ddb-local",
        ));
    }
    if config.region().is_none() {
        builder = builder.region(aws_sdk_dynamodb::config::Region::new("us-east-1"));
    }
    let target = if local.is_embedded() {
        Target::Embedded(local.endpoint().to_owned())
    } else {
        Target::Endpoint(local.endpoint().to_owned())
    };
    let guard = local.is_embedded().then_some(local);
    Ok((Client::from_conf(builder.build()), target, guard))
}
