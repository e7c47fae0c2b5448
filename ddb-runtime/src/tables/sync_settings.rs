//! The table's settings against a live table's (or a template's): its
//! class, key, tags, maximum and warm throughput, recovery period,
//! Contributor Insights and resource policy; and the calls that change them.

use aws_sdk_dynamodb::types::{
    ContributorInsightsStatus, GlobalSecondaryIndexUpdate, PointInTimeRecoveryStatus, SseType,
    TableDescription, Tag, UpdateGlobalSecondaryIndexAction,
};
use aws_sdk_dynamodb::Client;

use crate::declaration::model::{ContributorInsights, MultiRegionConsistency, TableDef};
use crate::error::Error;
use crate::transport::table_operation::TableOperation;

use super::create::{
    enable_contributor_insights, enable_point_in_time_recovery, on_demand_throughput,
    sse_specification, warm_throughput,
};
use super::settings::{TableSettings, Units};
use super::sync_plan::{SyncChange, SyncPlan};

/// What DescribeTable does not tell of a table, read only for the settings
/// the code declares (`None`: not read). Built from the live table by
/// `plan_sync`, from a template's properties by drift.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// Point-in-time recovery: on, and its period (`None`: DynamoDB's 35).
    pub recovery: Option<(bool, Option<i32>)>,
    /// The table's tags.
    pub tags: Option<Vec<(String, String)>>,
    /// Contributor Insights: on, and its mode (`None`: accessed and
    /// throttled keys).
    pub contributor_insights: Option<(bool, Option<String>)>,
    /// The resource-based policy, `Some(None)` when the table has none.
    pub resource_policy: Option<Option<String>>,
}

/// Reads what [`compare_settings`] needs beyond DescribeTable, of table
/// `name` (ARN `arn`), for the settings declared.
pub(super) async fn observe(
    client: &Client,
    table: &TableDef,
    settings: &TableSettings,
    name: &str,
    arn: Option<&str>,
) -> Result<Observed, Error> {
    let mut observed = Observed::default();
    if table.recovery_period_days.is_some() {
        let described = client
            .describe_continuous_backups()
            .table_name(name)
            .send_on(client, name)
            .await?;
        let recovery = described
            .continuous_backups_description()
            .and_then(|d| d.point_in_time_recovery_description());
        observed.recovery = Some((
            recovery.and_then(|r| r.point_in_time_recovery_status())
                == Some(&PointInTimeRecoveryStatus::Enabled),
            recovery.and_then(|r| r.recovery_period_in_days()),
        ));
    }
    if table.contributor_insights.is_some() {
        let described = client
            .describe_contributor_insights()
            .table_name(name)
            .send_on(client, name)
            .await?;
        let on = matches!(
            described.contributor_insights_status(),
            Some(ContributorInsightsStatus::Enabled | ContributorInsightsStatus::Enabling)
        );
        let mode = described
            .contributor_insights_mode()
            .map(|m| m.as_str().to_owned());
        observed.contributor_insights = Some((on, mode));
    }
    let Some(arn) = arn else {
        return Ok(observed);
    };
    if !settings.tags().is_empty() {
        let listed = client
            .list_tags_of_resource()
            .resource_arn(arn)
            .send_on(client, name)
            .await?;
        let tags = listed
            .tags()
            .iter()
            .map(|t| (t.key().to_owned(), t.value().to_owned()))
            .collect();
        observed.tags = Some(tags);
    }
    if settings.resource_policy_document().is_some() {
        let policy = client
            .get_resource_policy()
            .resource_arn(arn)
            .send_on_for(client, (name, ""), no_policy)
            .await;
        observed.resource_policy = Some(match policy {
            Ok(found) => found.policy().map(str::to_owned),
            Err(error) if no_policy(&error) => None,
            Err(error) => return Err(error),
        });
    }
    Ok(observed)
}

/// GetResourcePolicy's answer for a table without a policy.
fn no_policy(error: &Error) -> bool {
    matches!(
        error.sdk_error(),
        Some(aws_sdk_dynamodb::Error::PolicyNotFoundException(_))
    )
}

/// The table's settings against `current` and `observed`: the changes
/// that bring it in line, and the differences DynamoDB refuses to change
/// (lowering a warm throughput).
pub fn compare_settings(
    plan: &mut SyncPlan,
    table: &TableDef,
    settings: &TableSettings,
    current: &TableDescription,
    observed: &Observed,
) {
    let class = current
        .table_class_summary()
        .and_then(|s| s.table_class())
        .map_or("STANDARD", |c| c.as_str());
    if class != table.table_class.as_str() {
        plan.changes
            .push(SyncChange::SetTableClass(table.table_class));
    }
    if let Some(key) = settings.kms_key_id() {
        plan_encryption(plan, key, current);
    }
    // A maximum on-demand throughput applies on demand only: DynamoDB
    // refuses one on a provisioned table, and the exports leave it out.
    let provisioned = current
        .billing_mode_summary()
        .and_then(|b| b.billing_mode())
        .is_some_and(|mode| *mode == aws_sdk_dynamodb::types::BillingMode::Provisioned);
    if provisioned
        && (settings.table_max_throughput().is_some()
            || table
                .indexes
                .iter()
                .any(|i| settings.max_throughput_of(i.name).is_some()))
    {
        plan.differences.push(
            "the table is provisioned: its maximum on-demand throughput is not set".to_owned(),
        );
    }
    if let Some(wanted) = settings.table_max_throughput().filter(|_| !provisioned) {
        let found = current
            .on_demand_throughput()
            .map(|t| (t.max_read_request_units(), t.max_write_request_units()));
        if found != Some((Some(wanted.read), Some(wanted.write))) {
            plan.changes.push(SyncChange::SetMaxThroughput {
                index: None,
                units: wanted,
            });
        }
    }
    if let Some(wanted) = settings.table_warm_throughput() {
        let found = current
            .warm_throughput()
            .map(|t| (t.read_units_per_second(), t.write_units_per_second()));
        plan_warm(plan, None, wanted, found);
    }
    for index in table.indexes {
        let described = current
            .global_secondary_indexes()
            .iter()
            .find(|i| i.index_name() == Some(index.name));
        let Some(described) = described else {
            continue;
        };
        if let Some(wanted) = settings
            .max_throughput_of(index.name)
            .filter(|_| !provisioned)
        {
            let found = described
                .on_demand_throughput()
                .map(|t| (t.max_read_request_units(), t.max_write_request_units()));
            if found != Some((Some(wanted.read), Some(wanted.write))) {
                plan.changes.push(SyncChange::SetMaxThroughput {
                    index: Some(index.name.to_owned()),
                    units: wanted,
                });
            }
        }
        if let Some(wanted) = settings.warm_throughput_of(index.name) {
            let found = described
                .warm_throughput()
                .map(|t| (t.read_units_per_second(), t.write_units_per_second()));
            plan_warm(plan, Some(index.name), wanted, found);
        }
    }
    if let (Some(days), Some((on, found))) = (table.recovery_period_days, observed.recovery) {
        if !on || found.unwrap_or(35) != i32::from(days) {
            plan.changes.push(SyncChange::SetRecoveryPeriod(days));
        }
    }
    if let (Some(mode), Some((on, found))) = (
        table.contributor_insights,
        observed.contributor_insights.as_ref(),
    ) {
        let found = found
            .as_deref()
            .and_then(ContributorInsights::from_name)
            .unwrap_or(ContributorInsights::AccessedAndThrottledKeys);
        if !on || found != mode {
            plan.changes
                .push(SyncChange::EnableContributorInsights(mode));
        }
    }
    if let Some(found) = &observed.tags {
        let missing: Vec<(String, String)> = settings
            .tags()
            .iter()
            .filter(|tag| !found.contains(tag))
            .cloned()
            .collect();
        if !missing.is_empty() {
            plan.changes.push(SyncChange::Tag(missing));
        }
    }
    if let (Some(wanted), Some(found)) = (
        settings.resource_policy_document(),
        observed.resource_policy.as_ref(),
    ) {
        if !same_policy(wanted, found.as_deref()) {
            plan.changes.push(SyncChange::PutResourcePolicy);
        }
    }
    compare_replication(plan, table, settings, current);
}

/// The replicas, witness and consistency mode against the table's: missing
/// Regions are added; a replica or witness the settings do not name, and
/// another consistency mode, are differences (ddb removes no replica, and
/// DynamoDB sets the mode only on an empty table).
fn compare_replication(
    plan: &mut SyncPlan,
    table: &TableDef,
    settings: &TableSettings,
    current: &TableDescription,
) {
    let found: Vec<&str> = current
        .replicas()
        .iter()
        .filter_map(|r| r.region_name())
        .collect();
    let witnesses: Vec<&str> = current
        .global_table_witnesses()
        .iter()
        .filter_map(|w| w.region_name())
        .collect();
    // DescribeTable lists the other Regions, not the one that answers.
    let wanted = settings.replica_regions();
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|r| !found.contains(&r.as_str()))
        .collect();
    let witness_missing = settings
        .witness_region()
        .filter(|witness| !witnesses.contains(witness));
    if table.multi_region_consistency == Some(MultiRegionConsistency::Strong) {
        // DynamoDB adds a strong global table's Regions in one request,
        // while the table is empty: not something a sync does to a live table.
        let regions: Vec<&str> = missing
            .iter()
            .map(|r| r.as_str())
            .chain(witness_missing)
            .collect();
        if !regions.is_empty() {
            plan.differences.push(format!(
                "the table lacks {}: DynamoDB adds a strong global table's Regions in one request while it is empty (create_table_if_missing_with does, creating it)",
                regions.join(", ")
            ));
        }
    } else {
        for region in missing {
            plan.changes.push(SyncChange::AddReplica(region.clone()));
        }
    }
    for extra in found.iter().filter(|r| !wanted.iter().any(|w| w == *r)) {
        plan.differences.push(format!(
            "the table has a replica in {extra}, which the settings do not name"
        ));
    }
    if let (None, [extra, ..]) = (settings.witness_region(), witnesses.as_slice()) {
        plan.differences.push(format!(
            "the table has a witness in {extra}, which the settings do not name"
        ));
    }
    // A global table that names no mode is EVENTUAL, DynamoDB's default.
    let mode = current
        .multi_region_consistency()
        .map_or("EVENTUAL", |m| m.as_str());
    let declared = table.multi_region_consistency.map(|m| m.as_str());
    if !found.is_empty() && Some(mode) != declared {
        plan.differences.push(format!(
            "the table's multi-Region consistency is {mode}, the code's {}",
            declared.unwrap_or("none")
        ));
    }
}

/// Encryption with `key` against the table's: a change unless the table is
/// encrypted with a customer managed key that is `key` (a key ARN is
/// compared; an alias or key ID, which DescribeTable answers as the key's
/// ARN, is taken as the same key when the ARN ends with it).
fn plan_encryption(plan: &mut SyncPlan, key: &str, current: &TableDescription) {
    let sse = current.sse_description();
    let kms = sse.and_then(|s| s.sse_type()) == Some(&SseType::Kms);
    let arn = sse.and_then(|s| s.kms_master_key_arn());
    let alias = |k: &str| k.starts_with("alias/") || k.contains(":alias/");
    let alias_name = |k: &str| k.rsplit_once("alias/").map(|(_, n)| n.to_owned());
    let same = match arn {
        // Without a key named: the AWS managed key, not a customer's.
        None => false,
        Some(arn) if arn == key => true,
        Some(arn) if alias(arn) && alias(key) => alias_name(arn) == alias_name(key),
        // An alias against a key: only KMS knows the key an alias points
        // to, so it is taken as the same.
        Some(arn) if alias(arn) || alias(key) => true,
        Some(arn) => {
            let id = |k: &str| {
                k.rsplit_once("key/")
                    .map_or(k.to_owned(), |(_, id)| id.to_owned())
            };
            id(arn) == id(key)
        }
    };
    if !kms || !same {
        plan.changes
            .push(SyncChange::SetEncryptionKey(key.to_owned()));
    }
}

/// A warm throughput against the table's (`found`): raised when lower,
/// a difference when higher (DynamoDB never lowers it).
fn plan_warm(
    plan: &mut SyncPlan,
    index: Option<&str>,
    wanted: Units,
    found: Option<(Option<i64>, Option<i64>)>,
) {
    let (read, write) = found.unwrap_or((None, None));
    let (read, write) = (read.unwrap_or(0), write.unwrap_or(0));
    let of = index.map_or("the table".to_owned(), |i| format!("global index {i}"));
    if read > wanted.read || write > wanted.write {
        plan.differences.push(format!(
            "the warm throughput of {of} is {read} reads and {write} writes per second, above the \
             {} and {} declared: DynamoDB does not lower a warm throughput",
            wanted.read, wanted.write
        ));
    } else if read < wanted.read || write < wanted.write {
        plan.changes.push(SyncChange::SetWarmThroughput {
            index: index.map(str::to_owned),
            units: wanted,
        });
    }
}

/// Whether two policy documents are the same JSON.
fn same_policy(wanted: &str, found: Option<&str>) -> bool {
    let parse = |text: &str| serde_json::from_str::<serde_json::Value>(text).ok();
    match found {
        Some(found) => parse(wanted).is_some() && parse(wanted) == parse(found),
        None => false,
    }
}

/// Applies one settings change to table `name` (ARN `arn`); `false` when
/// `change` is not a settings change.
pub(super) async fn apply(
    client: &Client,
    settings: &TableSettings,
    name: &str,
    arn: Option<&str>,
    change: &SyncChange,
) -> Result<bool, Error> {
    let invalid = |reason: String| Error::InvalidRequest { entity: "", reason };
    match change {
        SyncChange::SetTableClass(class) => {
            client
                .update_table()
                .table_name(name)
                .table_class(aws_sdk_dynamodb::types::TableClass::from(class.as_str()))
                .send_on(client, name)
                .await?;
        }
        SyncChange::SetEncryptionKey(key) => {
            client
                .update_table()
                .table_name(name)
                .sse_specification(sse_specification(key))
                .send_on(client, name)
                .await?;
        }
        SyncChange::SetMaxThroughput { index: None, units } => {
            client
                .update_table()
                .table_name(name)
                .on_demand_throughput(on_demand_throughput(*units))
                .send_on(client, name)
                .await?;
        }
        SyncChange::SetWarmThroughput { index: None, units } => {
            client
                .update_table()
                .table_name(name)
                .warm_throughput(warm_throughput(*units))
                .send_on(client, name)
                .await?;
        }
        SyncChange::SetMaxThroughput {
            index: Some(index),
            units,
        }
        | SyncChange::SetWarmThroughput {
            index: Some(index),
            units,
        } => {
            let mut update = UpdateGlobalSecondaryIndexAction::builder().index_name(index);
            update = if matches!(change, SyncChange::SetMaxThroughput { .. }) {
                update.on_demand_throughput(on_demand_throughput(*units))
            } else {
                update.warm_throughput(warm_throughput(*units))
            };
            let update = update.build().map_err(|e| invalid(e.to_string()))?;
            client
                .update_table()
                .table_name(name)
                .global_secondary_index_updates(
                    GlobalSecondaryIndexUpdate::builder().update(update).build(),
                )
                .send_on(client, name)
                .await?;
        }
        SyncChange::SetRecoveryPeriod(days) => {
            enable_point_in_time_recovery(client, name, *days).await?;
        }
        SyncChange::EnableContributorInsights(mode) => {
            enable_contributor_insights(client, name, *mode).await?;
        }
        SyncChange::Tag(tags) => {
            let arn = arn.ok_or_else(|| invalid(format!("table {name} has no ARN to tag")))?;
            let tags = tags
                .iter()
                .map(|(key, value)| Tag::builder().key(key).value(value).build())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| invalid(e.to_string()))?;
            client
                .tag_resource()
                .resource_arn(arn)
                .set_tags(Some(tags))
                .send_on(client, name)
                .await?;
        }
        SyncChange::PutResourcePolicy => {
            let arn = arn.ok_or_else(|| invalid(format!("table {name} has no ARN")))?;
            let policy = settings.resource_policy_document().unwrap_or_default();
            client
                .put_resource_policy()
                .resource_arn(arn)
                .policy(policy)
                .send_on(client, name)
                .await?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}
