//! The policy of what keeps the tables in step with the code (creating and
//! syncing them, the backfill), which no application's policy holds.

use serde_json::json;

use super::policy::Policy;

/// The policy of what keeps the tables in step with the code, which no
/// application's policy holds: `create_table` and `sync_table` (CreateTable,
/// DescribeTable, UpdateTable, and DescribeTimeToLive/UpdateTimeToLive for
/// time to live), and the backfill and the command line's `check` (Scan,
/// DescribeTable for the estimate, and the writes a backfill makes: its
/// updates and the guards of unique values and idempotency keys). Give it
/// to a migration job or a deployment, never to the service.
///
/// ```
/// let policy = ddb_tools::iam::maintenance_policy(&[
///     "arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce",
/// ]);
/// let actions = policy.document["Statement"][1]["Action"].as_array().unwrap();
/// assert!(actions.contains(&"dynamodb:Scan".into()));
/// ```
pub fn maintenance_policy(table_arns: &[&str]) -> Policy {
    let tables: Vec<&str> = table_arns.to_vec();
    let statements = vec![
        json!({
            "Sid": "DdbTables",
            "Effect": "Allow",
            "Action": [
                "dynamodb:CreateTable",
                "dynamodb:DescribeTable",
                "dynamodb:UpdateTable",
                "dynamodb:DescribeTimeToLive",
                "dynamodb:UpdateTimeToLive",
            ],
            "Resource": tables,
        }),
        json!({
            "Sid": "DdbBackfill",
            "Effect": "Allow",
            "Action": [
                "dynamodb:Scan",
                "dynamodb:DescribeTable",
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:ConditionCheckItem",
            ],
            "Resource": tables,
        }),
    ];
    Policy {
        document: json!({ "Version": "2012-10-17", "Statement": statements }),
        left_out: vec![
            "reading a table's stream (DescribeStream, GetShardIterator, GetRecords, on the \
             stream's ARN) is the stream handler's, granted with its event source"
                .to_owned(),
        ],
    }
}
