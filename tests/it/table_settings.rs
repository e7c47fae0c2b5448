//! The table settings from the declaration and the deployment to the
//! CreateTable request, the follow-up calls, the sync plan, the CloudFormation
//! and Terraform exports and drift: each setting's way, and a difference in
//! each found.

use std::time::Duration;

use ddb_runtime::model::{ContributorInsights, TableClass};
use ddb_runtime::schema::{
    create_table_if_missing_with, create_table_input_with, plan_sync_with, sync_table_with,
    SyncChange, TableSettings, Units,
};
use ddb_runtime::Table;
use ddb_tests::proxy::{Fault, Proxy};
use ddb_tests::{client, local, recorded_json};
use ddb_tools::Template;
use ddb_tools::{cloudformation, cloudformation_yaml, drift, drift_in, terraform, Deployment};
use serde_json::{json, Value};

/// A table declaring every design-level setting.
#[derive(Table)]
#[ddb(
    name = "Vault",
    pk = "PK",
    sk = "SK",
    table_class = "standard_infrequent_access",
    recovery_period_days = 14,
    contributor_insights = "throttled_keys"
)]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Vault;

/// A table declaring only what the in-process server keeps: its class.
#[derive(Table)]
#[ddb(
    name = "Archive",
    pk = "PK",
    sk = "SK",
    table_class = "standard_infrequent_access"
)]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Archive;

const KEY: &str = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";

fn policy() -> String {
    crate::fixtures::deny_delete_policy()
}

/// Every per-environment setting.
fn settings() -> TableSettings {
    crate::fixtures::every_setting(KEY, "vault").tag("stage", "prod")
}

fn deployment() -> Deployment {
    Deployment::default()
        .deletion_protection(true)
        .settings(settings())
}

// CreateTable.

#[test]
fn the_create_table_request_carries_every_setting_it_takes() {
    let input = create_table_input_with(&Vault::DEF, "Vault", &settings()).unwrap();
    assert_eq!(
        input.table_class().map(|c| c.as_str()),
        Some("STANDARD_INFREQUENT_ACCESS")
    );
    let sse = input.sse_specification().unwrap();
    assert_eq!(sse.enabled(), Some(true));
    assert_eq!(sse.sse_type().map(|t| t.as_str()), Some("KMS"));
    assert_eq!(sse.kms_master_key_id(), Some(KEY));
    let tags: Vec<_> = input.tags().iter().map(|t| (t.key(), t.value())).collect();
    assert_eq!(tags, [("team", "vault"), ("stage", "prod")]);
    let max = input.on_demand_throughput().unwrap();
    assert_eq!(
        (max.max_read_request_units(), max.max_write_request_units()),
        (Some(4000), Some(1000))
    );
    let warm = input.warm_throughput().unwrap();
    assert_eq!(
        (warm.read_units_per_second(), warm.write_units_per_second()),
        (Some(15000), Some(5000))
    );
    let index = &input.global_secondary_indexes()[0];
    let max = index.on_demand_throughput().unwrap();
    assert_eq!(max.max_read_request_units(), Some(2000));
    assert_eq!(
        index.warm_throughput().unwrap().read_units_per_second(),
        Some(13000)
    );
    assert_eq!(input.resource_policy(), Some(policy().as_str()));
}

#[test]
fn the_declared_settings_are_in_the_table_definition() {
    assert_eq!(Vault::DEF.table_class, TableClass::StandardInfrequentAccess);
    assert_eq!(Vault::DEF.recovery_period_days, Some(14));
    assert_eq!(
        Vault::DEF.contributor_insights,
        Some(ContributorInsights::ThrottledKeys)
    );
}

#[test]
fn settings_dynamodb_refuses_are_a_typed_error() {
    let cases = [
        TableSettings::default().tag("aws:owner", "me"),
        TableSettings::default().tag("", "empty key"),
        TableSettings::default().tag("long", "v".repeat(257)),
        TableSettings::default().resource_policy("not a policy"),
        TableSettings::default().kms_key(""),
        TableSettings::default().max_throughput(Units { read: 0, write: 10 }),
        TableSettings::default().index_warm_throughput("NoSuchIndex", Units { read: 1, write: 1 }),
    ];
    for settings in cases {
        let error = create_table_input_with(&Vault::DEF, "Vault", &settings).unwrap_err();
        assert!(
            matches!(error, ddb_runtime::Error::InvalidRequest { .. }),
            "{settings:?}: {error:?}"
        );
    }
    let many = (0..51).fold(TableSettings::default(), |s, i| s.tag(format!("k{i}"), "v"));
    assert!(create_table_input_with(&Vault::DEF, "Vault", &many).is_err());
    let secret = TableSettings::default().tag("v".repeat(200), "secret-value");
    let error = create_table_input_with(&Vault::DEF, "Vault", &secret).unwrap_err();
    assert!(!error.to_string().contains("secret-value"), "{error}");
}

/// A proxy in front of the local server that answers the calls it does
/// not serve as DynamoDB would, recording every settings call.
async fn settings_proxy() -> Proxy {
    let proxy = Proxy::start(local().endpoint()).await.unwrap();
    for target in [
        "CreateTable",
        "UpdateTable",
        "UpdateContinuousBackups",
        "UpdateContributorInsights",
        "TagResource",
        "PutResourcePolicy",
    ] {
        proxy.record(target);
    }
    let answers = [
        (
            "UpdateContinuousBackups",
            json!({ "ContinuousBackupsDescription": { "ContinuousBackupsStatus": "ENABLED" } }),
        ),
        (
            "UpdateContributorInsights",
            json!({ "ContributorInsightsStatus": "ENABLING" }),
        ),
        ("PutResourcePolicy", json!({ "RevisionId": "1" })),
    ];
    for (target, answer) in answers {
        proxy.fail(target, usize::MAX, Fault::Json(200, answer.to_string()));
    }
    proxy
}

#[tokio::test]
async fn bad_settings_send_nothing() {
    let proxy = settings_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Vault");
    let bad = TableSettings::default().tag("aws:owner", "me");
    let created =
        create_table_if_missing_with(&client, &Vault::DEF, &name, &bad, Duration::from_secs(60))
            .await;
    assert!(created.is_err());
    assert_eq!(proxy.seen("CreateTable"), 0);
    assert!(plan_sync_with(&client, &Vault::DEF, &name, &bad)
        .await
        .is_err());
    assert_eq!(proxy.seen("DescribeTable"), 0);
}

#[tokio::test]
async fn create_sends_the_settings_and_turns_on_recovery_and_insights_once_active() {
    ddb_tests::requires!(TableSettings);
    let proxy = settings_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Vault");
    create_table_if_missing_with(
        &client,
        &Vault::DEF,
        &name,
        &settings(),
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    let created = recorded_json(&proxy, "CreateTable");
    let sent = &created[0];
    assert_eq!(sent["TableClass"], "STANDARD_INFREQUENT_ACCESS");
    assert_eq!(
        sent["SSESpecification"],
        json!({ "Enabled": true, "SSEType": "KMS", "KMSMasterKeyId": KEY })
    );
    assert_eq!(
        sent["Tags"],
        json!([{ "Key": "team", "Value": "vault" }, { "Key": "stage", "Value": "prod" }])
    );
    assert_eq!(
        sent["OnDemandThroughput"],
        json!({ "MaxReadRequestUnits": 4000, "MaxWriteRequestUnits": 1000 })
    );
    assert_eq!(
        sent["WarmThroughput"],
        json!({ "ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000 })
    );
    let index = &sent["GlobalSecondaryIndexes"][0];
    assert_eq!(index["OnDemandThroughput"]["MaxReadRequestUnits"], 2000);
    assert_eq!(index["WarmThroughput"]["ReadUnitsPerSecond"], 13000);
    let sent_policy: Value =
        serde_json::from_str(sent["ResourcePolicy"].as_str().unwrap()).unwrap();
    assert_eq!(
        sent_policy,
        serde_json::from_str::<Value>(&policy()).unwrap()
    );
    let backups = recorded_json(&proxy, "UpdateContinuousBackups");
    assert_eq!(
        backups,
        [json!({
            "TableName": name,
            "PointInTimeRecoverySpecification": {
                "PointInTimeRecoveryEnabled": true,
                "RecoveryPeriodInDays": 14
            }
        })]
    );
    let insights = recorded_json(&proxy, "UpdateContributorInsights");
    assert_eq!(
        insights,
        [json!({
            "TableName": name,
            "ContributorInsightsAction": "ENABLE",
            "ContributorInsightsMode": "THROTTLED_KEYS"
        })]
    );
}

/// What the in-process server keeps of the settings reads back as declared:
/// the class, the key, the table's maximum throughput and the tags; and a
/// sync then finds nothing to do. (The server does not describe a global
/// index's maximum: the CreateTable request carries it, as recorded above.)
#[tokio::test]
async fn created_settings_read_back_as_declared() {
    ddb_tests::requires!(TableSettings);
    let client = client();
    let name = ddb_local::unique_table_name("Archive");
    let settings = TableSettings::default()
        .kms_key(KEY)
        .tag("team", "archive")
        .max_throughput(Units {
            read: 4000,
            write: 1000,
        });
    create_table_if_missing_with(
        &client,
        &Archive::DEF,
        &name,
        &settings,
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    let described = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap();
    let table = described.table().unwrap();
    let class = table.table_class_summary().and_then(|c| c.table_class());
    assert_eq!(
        class.map(|c| c.as_str()),
        Some("STANDARD_INFREQUENT_ACCESS")
    );
    let sse = table.sse_description().unwrap();
    assert_eq!(sse.sse_type().map(|t| t.as_str()), Some("KMS"));
    let max = table.on_demand_throughput().unwrap();
    assert_eq!(max.max_read_request_units(), Some(4000));
    assert_eq!(max.max_write_request_units(), Some(1000));
    let tags = client
        .list_tags_of_resource()
        .resource_arn(table.table_arn().unwrap())
        .send()
        .await
        .unwrap();
    let tags: Vec<_> = tags.tags().iter().map(|t| (t.key(), t.value())).collect();
    assert_eq!(tags, [("team", "archive")]);
    let plan = plan_sync_with(&client, &Archive::DEF, &name, &settings)
        .await
        .unwrap();
    assert!(plan.is_empty(), "{plan}");
}

// Sync.

#[tokio::test]
async fn sync_brings_class_key_maximum_and_tags_in_line() {
    ddb_tests::requires!(TableSettings);
    let client = client();
    let name = ddb_local::unique_table_name("Archive");
    let plain = ddb_runtime::model::TableDef {
        table_class: TableClass::Standard,
        ..Archive::DEF
    };
    ddb_runtime::schema::create_table_if_missing(&client, &plain, &name, Duration::from_secs(60))
        .await
        .unwrap();
    let settings = TableSettings::default()
        .tag("team", "archive")
        .max_throughput(Units {
            read: 4000,
            write: 1000,
        });
    let plan = plan_sync_with(&client, &Archive::DEF, &name, &settings)
        .await
        .unwrap();
    assert_eq!(
        plan.changes,
        [
            SyncChange::SetTableClass(TableClass::StandardInfrequentAccess),
            SyncChange::SetMaxThroughput {
                index: None,
                units: Units {
                    read: 4000,
                    write: 1000
                }
            },
            SyncChange::Tag(vec![("team".to_owned(), "archive".to_owned())]),
        ]
    );
    sync_table_with(
        &client,
        &Archive::DEF,
        &name,
        &settings,
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    let plan = plan_sync_with(&client, &Archive::DEF, &name, &settings)
        .await
        .unwrap();
    assert!(plan.is_empty(), "{plan}");
}

#[tokio::test]
async fn sync_turns_on_recovery_insights_and_the_policy_it_finds_off() {
    ddb_tests::requires!(TableSettings);
    let proxy = settings_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Vault");
    let plain = ddb_runtime::model::TableDef {
        recovery_period_days: None,
        contributor_insights: None,
        ..Vault::DEF
    };
    ddb_runtime::schema::create_table_if_missing(&client, &plain, &name, Duration::from_secs(60))
        .await
        .unwrap();
    let off = [
        (
            "DescribeContinuousBackups",
            json!({ "ContinuousBackupsDescription": {
                "ContinuousBackupsStatus": "ENABLED",
                "PointInTimeRecoveryDescription": { "PointInTimeRecoveryStatus": "DISABLED" }
            } }),
        ),
        (
            "DescribeContributorInsights",
            json!({ "TableName": name, "ContributorInsightsStatus": "DISABLED" }),
        ),
    ];
    for (target, answer) in off {
        proxy.fail(target, usize::MAX, Fault::Json(200, answer.to_string()));
    }
    proxy.fail(
        "GetResourcePolicy",
        usize::MAX,
        Fault::Error(400, "PolicyNotFoundException"),
    );
    let settings = TableSettings::default().resource_policy(policy());
    let plan = sync_table_with(
        &client,
        &Vault::DEF,
        &name,
        &settings,
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    assert_eq!(
        plan.changes,
        [
            SyncChange::SetRecoveryPeriod(14),
            SyncChange::EnableContributorInsights(ContributorInsights::ThrottledKeys),
            SyncChange::PutResourcePolicy,
        ]
    );
    assert_eq!(
        recorded_json(&proxy, "UpdateContinuousBackups")[0]["PointInTimeRecoverySpecification"]
            ["RecoveryPeriodInDays"],
        14
    );
    assert_eq!(
        recorded_json(&proxy, "UpdateContributorInsights")[0]["ContributorInsightsMode"],
        "THROTTLED_KEYS"
    );
    let put = recorded_json(&proxy, "PutResourcePolicy");
    assert!(put[0]["ResourceArn"].as_str().unwrap().ends_with(&name));
}

#[tokio::test]
async fn a_warm_throughput_above_the_declared_one_is_reported_not_lowered() {
    ddb_tests::requires!(TableSettings);
    let proxy = settings_proxy().await;
    let client = proxy.client().unwrap();
    let name = ddb_local::unique_table_name("Archive");
    ddb_runtime::schema::create_table_if_missing(
        &client,
        &Archive::DEF,
        &name,
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    let described = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap();
    let arn = described.table().unwrap().table_arn().unwrap().to_owned();
    let answer = json!({ "Table": {
        "TableName": name,
        "TableArn": arn,
        "TableStatus": "ACTIVE",
        "TableClassSummary": { "TableClass": "STANDARD_INFREQUENT_ACCESS" },
        "KeySchema": [
            { "AttributeName": "PK", "KeyType": "HASH" },
            { "AttributeName": "SK", "KeyType": "RANGE" }
        ],
        "AttributeDefinitions": [
            { "AttributeName": "PK", "AttributeType": "S" },
            { "AttributeName": "SK", "AttributeType": "S" },
            { "AttributeName": "GSI1PK", "AttributeType": "S" },
            { "AttributeName": "GSI1SK", "AttributeType": "S" }
        ],
        "GlobalSecondaryIndexes": [{
            "IndexName": "GSI1",
            "KeySchema": [
                { "AttributeName": "GSI1PK", "KeyType": "HASH" },
                { "AttributeName": "GSI1SK", "KeyType": "RANGE" }
            ],
            "Projection": { "ProjectionType": "ALL" },
            "IndexStatus": "ACTIVE",
            "WarmThroughput": { "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000 }
        }],
        "WarmThroughput": { "ReadUnitsPerSecond": 40000, "WriteUnitsPerSecond": 12000 }
    } });
    proxy.fail(
        "DescribeTable",
        usize::MAX,
        Fault::Json(200, answer.to_string()),
    );
    // The in-process server refuses an index update without provisioned
    // throughput; DynamoDB takes a warm throughput alone.
    let updated = json!({ "TableDescription": answer["Table"] });
    proxy.fail(
        "UpdateTable",
        usize::MAX,
        Fault::Json(200, updated.to_string()),
    );
    let settings = TableSettings::default()
        .warm_throughput(Units {
            read: 15000,
            write: 5000,
        })
        .index_warm_throughput(
            "GSI1",
            Units {
                read: 13000,
                write: 4500,
            },
        );
    let plan = sync_table_with(
        &client,
        &Archive::DEF,
        &name,
        &settings,
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    assert_eq!(
        plan.changes,
        [SyncChange::SetWarmThroughput {
            index: Some("GSI1".to_owned()),
            units: Units {
                read: 13000,
                write: 4500
            }
        }]
    );
    assert_eq!(plan.differences.len(), 1, "{plan}");
    assert!(plan.differences[0].contains("does not lower"), "{plan}");
    let updates = recorded_json(&proxy, "UpdateTable");
    assert_eq!(updates.len(), 1, "{updates:?}");
    let update = &updates[0]["GlobalSecondaryIndexUpdates"][0]["Update"];
    assert_eq!(update["IndexName"], "GSI1");
    assert_eq!(update["WarmThroughput"]["ReadUnitsPerSecond"], 13000);
    assert!(updates[0].get("WarmThroughput").is_none());
}

// The exports.

#[test]
fn the_cloudformation_resource_carries_every_setting() {
    let template = cloudformation(&[&Vault::DEF], &deployment());
    let properties = &template["Resources"]["VaultTable"]["Properties"];
    assert_eq!(properties["TableClass"], "STANDARD_INFREQUENT_ACCESS");
    assert_eq!(
        properties["SSESpecification"],
        json!({ "SSEEnabled": true, "SSEType": "KMS", "KMSMasterKeyId": KEY })
    );
    assert_eq!(
        properties["Tags"],
        json!([{ "Key": "team", "Value": "vault" }, { "Key": "stage", "Value": "prod" }])
    );
    assert_eq!(
        properties["PointInTimeRecoverySpecification"],
        json!({ "PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 14 })
    );
    assert_eq!(
        properties["OnDemandThroughput"],
        json!({ "MaxReadRequestUnits": 4000, "MaxWriteRequestUnits": 1000 })
    );
    assert_eq!(
        properties["WarmThroughput"],
        json!({ "ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000 })
    );
    let index = &properties["GlobalSecondaryIndexes"][0];
    assert_eq!(
        index["OnDemandThroughput"],
        json!({ "MaxReadRequestUnits": 2000, "MaxWriteRequestUnits": 500 })
    );
    assert_eq!(
        index["WarmThroughput"],
        json!({ "ReadUnitsPerSecond": 13000, "WriteUnitsPerSecond": 4500 })
    );
    assert_eq!(
        properties["ContributorInsightsSpecification"],
        json!({ "Enabled": true, "Mode": "THROTTLED_KEYS" })
    );
    let document: Value = serde_json::from_str(&policy()).unwrap();
    assert_eq!(
        properties["ResourcePolicy"],
        json!({ "PolicyDocument": document })
    );
}

#[test]
fn terraform_carries_every_setting() {
    let configuration = terraform(&[&Vault::DEF], &deployment());
    let resource = &configuration["resource"];
    let table = &resource["aws_dynamodb_table"]["Vault"];
    assert_eq!(table["table_class"], "STANDARD_INFREQUENT_ACCESS");
    assert_eq!(
        table["server_side_encryption"],
        json!([{ "enabled": true, "kms_key_arn": KEY }])
    );
    assert_eq!(table["tags"], json!({ "team": "vault", "stage": "prod" }));
    assert_eq!(
        table["point_in_time_recovery"],
        json!([{ "enabled": true, "recovery_period_in_days": 14 }])
    );
    assert_eq!(
        table["on_demand_throughput"],
        json!([{ "max_read_request_units": 4000, "max_write_request_units": 1000 }])
    );
    assert_eq!(
        table["warm_throughput"],
        json!([{ "read_units_per_second": 15000, "write_units_per_second": 5000 }])
    );
    let index = &table["global_secondary_index"][0];
    assert_eq!(
        index["on_demand_throughput"][0]["max_read_request_units"],
        2000
    );
    assert_eq!(index["warm_throughput"][0]["read_units_per_second"], 13000);
    assert_eq!(
        resource["aws_dynamodb_contributor_insights"]["Vault"],
        json!({ "table_name": "${aws_dynamodb_table.Vault.name}", "mode": "THROTTLED_KEYS" })
    );
    let policy_resource = &resource["aws_dynamodb_resource_policy"]["Vault"];
    assert_eq!(
        policy_resource["resource_arn"],
        "${aws_dynamodb_table.Vault.arn}"
    );
    assert_eq!(policy_resource["policy"], policy());
}

#[test]
fn provisioned_billing_leaves_out_the_on_demand_maximum() {
    let deployment = deployment().billing(ddb_tools::Billing::Provisioned { read: 5, write: 5 });
    let template = cloudformation(&[&Vault::DEF], &deployment);
    let properties = &template["Resources"]["VaultTable"]["Properties"];
    assert!(properties.get("OnDemandThroughput").is_none());
    assert!(properties["GlobalSecondaryIndexes"][0]
        .get("OnDemandThroughput")
        .is_none());
    let configuration = terraform(&[&Vault::DEF], &deployment);
    let table = &configuration["resource"]["aws_dynamodb_table"]["Vault"];
    assert!(table.get("on_demand_throughput").is_none());
}

// Drift: a generated template has none, and each setting changed by hand
// is found.

fn vault_drift(template: Value) -> ddb_runtime::schema::SyncPlan {
    drift_in(
        &Template::from_value(template).unwrap(),
        &Vault::DEF,
        &deployment(),
    )
    .unwrap()
}

fn vault_template() -> Value {
    cloudformation(&[&Vault::DEF], &deployment())
}

fn vault_properties(template: &mut Value) -> &mut Value {
    &mut template["Resources"]["VaultTable"]["Properties"]
}

fn vault_terraform() -> Value {
    terraform(&[&Vault::DEF], &deployment())
}

#[test]
fn a_template_with_every_setting_has_no_drift_in_any_format() {
    let deployment = deployment();
    let json = Template::from_value(cloudformation(&[&Vault::DEF], &deployment)).unwrap();
    let yaml = Template::from_yaml(&cloudformation_yaml(&[&Vault::DEF], &deployment)).unwrap();
    let tf = Template::from_value(terraform(&[&Vault::DEF], &deployment)).unwrap();
    for (format, template) in [("json", &json), ("yaml", &yaml), ("terraform", &tf)] {
        let plan = drift_in(template, &Vault::DEF, &deployment).unwrap();
        assert!(plan.is_empty(), "{format}:\n{plan}");
        // Without the deployment, the design-level settings still match.
        let plan = drift(template, &Vault::DEF, "Vault").unwrap();
        assert!(plan.is_empty(), "{format} without the deployment:\n{plan}");
    }
}

#[test]
fn a_deployment_without_point_in_time_recovery_exports_no_period_and_no_drift() {
    let off = deployment().point_in_time_recovery(false);
    let template = cloudformation(&[&Vault::DEF], &off);
    let properties = &template["Resources"]["VaultTable"]["Properties"];
    assert_eq!(
        properties["PointInTimeRecoverySpecification"],
        json!({ "PointInTimeRecoveryEnabled": false })
    );
    let template = Template::from_value(template).unwrap();
    let plan = drift_in(&template, &Vault::DEF, &off).unwrap();
    assert!(plan.is_empty(), "{plan}");
    // Against the deployment that keeps it on, the period is missing.
    let plan = drift_in(&template, &Vault::DEF, &deployment()).unwrap();
    assert_eq!(plan.changes, [SyncChange::SetRecoveryPeriod(14)]);
}

#[test]
fn drift_finds_another_table_class() {
    let mut template = vault_template();
    vault_properties(&mut template)["TableClass"] = json!("STANDARD");
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::SetTableClass(
            TableClass::StandardInfrequentAccess
        )]
    );
}

#[test]
fn drift_finds_another_encryption_key() {
    let mut template = vault_template();
    vault_properties(&mut template)["SSESpecification"]["KMSMasterKeyId"] =
        json!("arn:aws:kms:eu-west-1:111122223333:key/another");
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::SetEncryptionKey(KEY.to_owned())]
    );
    let mut template = vault_template();
    vault_properties(&mut template)
        .as_object_mut()
        .unwrap()
        .remove("SSESpecification");
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::SetEncryptionKey(KEY.to_owned())]
    );
}

#[test]
fn drift_finds_a_missing_tag() {
    let mut template = vault_template();
    vault_properties(&mut template)["Tags"] = json!([{ "Key": "team", "Value": "other" }]);
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::Tag(vec![
            ("team".to_owned(), "vault".to_owned()),
            ("stage".to_owned(), "prod".to_owned())
        ])]
    );
}

#[test]
fn drift_finds_another_recovery_period() {
    let mut template = vault_template();
    vault_properties(&mut template)["PointInTimeRecoverySpecification"]["RecoveryPeriodInDays"] =
        json!(35);
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::SetRecoveryPeriod(14)]
    );
}

#[test]
fn drift_finds_another_maximum_throughput() {
    let mut template = vault_template();
    let properties = vault_properties(&mut template);
    properties["OnDemandThroughput"]["MaxReadRequestUnits"] = json!(100);
    properties["GlobalSecondaryIndexes"][0]
        .as_object_mut()
        .unwrap()
        .remove("OnDemandThroughput");
    assert_eq!(
        vault_drift(template).changes,
        [
            SyncChange::SetMaxThroughput {
                index: None,
                units: Units {
                    read: 4000,
                    write: 1000
                }
            },
            SyncChange::SetMaxThroughput {
                index: Some("GSI1".to_owned()),
                units: Units {
                    read: 2000,
                    write: 500
                }
            },
        ]
    );
}

#[test]
fn drift_finds_a_lower_warm_throughput_and_reports_a_higher_one() {
    let mut template = vault_template();
    vault_properties(&mut template)["WarmThroughput"]["ReadUnitsPerSecond"] = json!(12000);
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::SetWarmThroughput {
            index: None,
            units: Units {
                read: 15000,
                write: 5000
            }
        }]
    );
    let mut template = vault_template();
    vault_properties(&mut template)["WarmThroughput"]["ReadUnitsPerSecond"] = json!(40000);
    let plan = vault_drift(template);
    assert!(plan.changes.is_empty(), "{plan}");
    assert_eq!(plan.differences.len(), 1, "{plan}");
}

#[test]
fn drift_finds_contributor_insights_off_or_in_another_mode() {
    let mut template = vault_template();
    vault_properties(&mut template)["ContributorInsightsSpecification"]["Mode"] =
        json!("ACCESSED_AND_THROTTLED_KEYS");
    let expected = [SyncChange::EnableContributorInsights(
        ContributorInsights::ThrottledKeys,
    )];
    assert_eq!(vault_drift(template).changes, expected);
    let mut template = vault_template();
    vault_properties(&mut template)
        .as_object_mut()
        .unwrap()
        .remove("ContributorInsightsSpecification");
    assert_eq!(vault_drift(template).changes, expected);
}

#[test]
fn drift_finds_another_resource_policy() {
    let mut template = vault_template();
    vault_properties(&mut template)["ResourcePolicy"]["PolicyDocument"]["Statement"][0]["Effect"] =
        json!("Allow");
    assert_eq!(
        vault_drift(template).changes,
        [SyncChange::PutResourcePolicy]
    );
}

#[test]
fn drift_reads_every_setting_from_terraform() {
    let mut configuration = vault_terraform();
    let resource = &mut configuration["resource"];
    let table = &mut resource["aws_dynamodb_table"]["Vault"];
    table["table_class"] = json!("STANDARD");
    table["server_side_encryption"][0]["kms_key_arn"] = json!("arn:aws:kms:eu-west-1:1:key/x");
    table["tags"] = json!({});
    table["point_in_time_recovery"][0]["recovery_period_in_days"] = json!(7);
    table["warm_throughput"][0]["read_units_per_second"] = json!(12000);
    table["on_demand_throughput"][0]["max_read_request_units"] = json!(1);
    resource["aws_dynamodb_contributor_insights"]["Vault"]["mode"] =
        json!("ACCESSED_AND_THROTTLED_KEYS");
    resource["aws_dynamodb_resource_policy"]["Vault"]["policy"] = json!("{}");
    let plan = vault_drift(configuration);
    let kinds: Vec<String> = plan
        .changes
        .iter()
        .map(|c| {
            format!("{c:?}")
                .split(['(', ' '])
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "SetTableClass",
            "SetEncryptionKey",
            "SetMaxThroughput",
            "SetWarmThroughput",
            "SetRecoveryPeriod",
            "EnableContributorInsights",
            "Tag",
            "PutResourcePolicy"
        ],
        "{plan}"
    );
}
