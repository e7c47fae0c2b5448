//! Infrastructure as code from the declarations: the CloudFormation
//! templates pass cfn-lint, the Terraform configuration has the provider's
//! documented shape, the NoSQL Workbench model has the shape of AWS's own
//! samples, and drift between a template and the code is found for each
//! kind of difference.

use std::path::{Path, PathBuf};
use std::process::Command;

use ddb_examples::{catalog, separate_tables as sep, single_table as one};
use ddb_runtime::model::TableDef;
use ddb_runtime::schema::SyncChange;
use ddb_runtime::{Entity, Table};
use ddb_tools::{
    cloudformation, cloudformation_yaml, drift, terraform, workbench, Billing, Deployment, Template,
};
use serde_json::{json, Value};

/// A table with every kind of key and index ddb declares: a single-attribute
/// global index with an INCLUDE list, a multi-attribute one, a local index,
/// a vector index with a search schema, time to live and a stream.
#[derive(Table)]
#[ddb(
    name = "Shop.v2",
    pk = "PK",
    sk = "SK",
    ttl = "expiresAt",
    stream = "new_image"
)]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK", include("total")))]
#[ddb(index(
    name = "ByCustomerStatus",
    pk("customerId", "status"),
    sk("placedAt", "total: N")
))]
#[ddb(local_index(name = "ByTotal", sk = "LSI1SK", projection = "keys_only"))]
#[ddb(vector_index(
    name = "ByEmbedding",
    vector = "embedding",
    dimensions = 3,
    distance = "cosine",
    hash = "category",
    filters("price: N")
))]
struct Shop;

/// A table of one numeric key and nothing else.
#[derive(Table)]
#[ddb(name = "Counters", pk = "id", pk_type = "N")]
struct Counters;

fn every_design() -> Vec<(&'static str, Vec<&'static TableDef>)> {
    vec![
        ("single_table", vec![&one::Ecommerce::DEF]),
        (
            "separate_tables",
            vec![
                &sep::Customers::DEF,
                &sep::Orders::DEF,
                &sep::OrderItems::DEF,
            ],
        ),
        ("catalog", vec![&catalog::Catalog::DEF]),
        ("shop", vec![&Shop::DEF, &Counters::DEF]),
    ]
}

fn deployments() -> Vec<(&'static str, Deployment)> {
    vec![
        ("default", Deployment::default()),
        (
            "provisioned",
            Deployment::default()
                .billing(Billing::Provisioned { read: 5, write: 2 })
                .point_in_time_recovery(false)
                .deletion_protection(true),
        ),
    ]
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddb-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The oldest cfn-lint whose schema knows `VectorIndexes`.
const CFN_LINT_AT_LEAST: (u32, u32) = (1, 58);

/// Whether cfn-lint runs here; `None` with the reason when it cannot (CI
/// installs it, so there a missing or older cfn-lint fails the test).
fn cfn_lint() -> Option<Command> {
    let version = Command::new("cfn-lint")
        .arg("--version")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned());
    let usable = version.as_deref().and_then(cfn_lint_version) >= Some(CFN_LINT_AT_LEAST);
    if usable {
        return Some(Command::new("cfn-lint"));
    }
    let (major, minor) = CFN_LINT_AT_LEAST;
    let reason = match version {
        Some(version) => format!("{version} is older than {major}.{minor}"),
        None => "cfn-lint is not installed here".to_owned(),
    };
    if std::env::var_os("CI").is_some() {
        panic!("{reason}; .ci/run installs cfn-lint {major}.{minor}");
    }
    eprintln!("skipped: {reason} (pip install 'cfn-lint>={major}.{minor}')");
    None
}

/// Runs `lint` on `files` and fails with what it found.
fn assert_lint_passes<P: AsRef<std::ffi::OsStr>>(
    mut lint: Command,
    files: impl IntoIterator<Item = P>,
) {
    let output = lint
        .args(["--regions", "us-east-1", "--"])
        .args(files)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cfn-lint found problems:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `(1, 58)` from `cfn-lint 1.58.0`.
fn cfn_lint_version(output: &str) -> Option<(u32, u32)> {
    let mut parts = output.rsplit(' ').next()?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

#[test]
fn cloudformation_templates_of_every_design_pass_cfn_lint() {
    let Some(lint) = cfn_lint() else { return };
    let dir = scratch_dir("cfn");
    let mut files: Vec<PathBuf> = Vec::new();
    for (design, tables) in every_design() {
        for (deployment_name, deployment) in deployments() {
            let json_path = dir.join(format!("{design}-{deployment_name}.json"));
            let template = cloudformation(&tables, &deployment);
            std::fs::write(&json_path, serde_json::to_string_pretty(&template).unwrap()).unwrap();
            let yaml_path = dir.join(format!("{design}-{deployment_name}.yaml"));
            std::fs::write(&yaml_path, cloudformation_yaml(&tables, &deployment)).unwrap();
            files.extend([json_path, yaml_path]);
        }
    }
    assert_lint_passes(lint, &files);
}

/// The one check ddb turns off, on tables whose vector indexes have a
/// search schema, is the one that predates vector indexes: without it,
/// cfn-lint finds that and nothing else.
#[test]
fn cfn_lint_finds_only_its_attribute_definition_rule_without_the_suppression() {
    let Some(mut lint) = cfn_lint() else { return };
    let mut template = cloudformation(
        &[&Shop::DEF, &catalog::Catalog::DEF],
        &Deployment::default(),
    );
    for resource in template["Resources"].as_object_mut().unwrap().values_mut() {
        assert!(resource
            .as_object_mut()
            .unwrap()
            .remove("Metadata")
            .is_some());
    }
    let path = scratch_dir("cfn-unsuppressed").join("vectors.json");
    std::fs::write(&path, template.to_string()).unwrap();
    let output = lint
        .args(["--format", "parseable", "--"])
        .arg(&path)
        .output()
        .unwrap();
    let findings = String::from_utf8_lossy(&output.stdout);
    let rules: Vec<&str> = findings
        .lines()
        .map(|line| line.split(':').nth(5).unwrap_or(line))
        .collect();
    assert_eq!(rules, ["E3039", "E3039"], "{findings}");
}

#[test]
fn cfn_lint_rejects_a_broken_template() {
    let Some(mut lint) = cfn_lint() else { return };
    let mut template = cloudformation(&[&Shop::DEF], &Deployment::default());
    template["Resources"]["Shopv2Table"]["Properties"]["BillingMode"] = json!("FREE");
    let path = scratch_dir("cfn-broken").join("broken.json");
    std::fs::write(&path, template.to_string()).unwrap();
    let output = lint.arg("--").arg(&path).output().unwrap();
    assert!(
        !output.status.success(),
        "cfn-lint accepted BillingMode FREE"
    );
}

#[test]
fn the_yaml_template_reads_back_as_the_json_one() {
    for (_, tables) in every_design() {
        for (_, deployment) in deployments() {
            let yaml = cloudformation_yaml(&tables, &deployment);
            let read = Template::from_yaml(&yaml).unwrap();
            let json = Template::from_value(cloudformation(&tables, &deployment)).unwrap();
            assert_eq!(read, json, "{yaml}");
        }
    }
}

#[test]
fn the_cloudformation_resource_carries_every_declared_part() {
    let template = cloudformation(&[&Shop::DEF], &Deployment::default());
    let properties = &template["Resources"]["Shopv2Table"]["Properties"];
    assert_eq!(properties["TableName"], "Shop.v2");
    let status = &properties["GlobalSecondaryIndexes"][1];
    assert_eq!(status["IndexName"], "ByCustomerStatus");
    let kinds: Vec<&str> = status["KeySchema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["KeyType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["HASH", "HASH", "RANGE", "RANGE"]);
    assert_eq!(
        properties["GlobalSecondaryIndexes"][0]["Projection"],
        json!({ "ProjectionType": "INCLUDE", "NonKeyAttributes": ["total", "_type", "_schema"] })
    );
    assert_eq!(
        properties["LocalSecondaryIndexes"][0]["IndexName"],
        "ByTotal"
    );
    let vector = &properties["VectorIndexes"][0];
    assert_eq!(vector["Dimensions"], 3);
    assert_eq!(vector["SearchSchema"][0]["SearchSchemaElementType"], "HASH");
    assert_eq!(
        properties["StreamSpecification"]["StreamViewType"],
        "NEW_IMAGE"
    );
    assert_eq!(
        properties["TimeToLiveSpecification"],
        json!({ "AttributeName": "expiresAt", "Enabled": true })
    );
    assert_eq!(properties["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(
        properties["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"],
        true
    );
    assert_eq!(properties["DeletionProtectionEnabled"], false);
    assert!(template["Resources"]["Shopv2Table"]
        .get("DeletionPolicy")
        .is_none());
    let outputs = template["Outputs"].as_object().unwrap();
    assert!(outputs.contains_key("Shopv2TableStreamArn"));

    let protected = Deployment::default()
        .billing(Billing::Provisioned { read: 5, write: 2 })
        .deletion_protection(true);
    let template = cloudformation(&[&Shop::DEF], &protected);
    let resource = &template["Resources"]["Shopv2Table"];
    assert_eq!(resource["DeletionPolicy"], "Retain");
    assert_eq!(resource["UpdateReplacePolicy"], "Retain");
    let properties = &resource["Properties"];
    assert_eq!(properties["DeletionProtectionEnabled"], true);
    let throughput = json!({ "ReadCapacityUnits": 5, "WriteCapacityUnits": 2 });
    assert_eq!(properties["ProvisionedThroughput"], throughput);
    assert_eq!(
        properties["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"],
        throughput
    );
}

/// The CloudFormation resource is CreateTable's request: what ddb creates
/// and what the template declares are one description.
#[test]
fn the_cloudformation_resource_is_the_create_table_request() {
    for (_, tables) in every_design() {
        let template = cloudformation(&tables, &Deployment::default());
        for table in tables {
            let input = ddb_runtime::schema::create_table_input(table, table.name);
            let id = ddb_tools::logical_id(table);
            let properties = &template["Resources"][&id]["Properties"];
            let definitions = properties["AttributeDefinitions"].as_array().unwrap();
            assert_eq!(definitions.len(), input.attribute_definitions().len());
            for (written, sent) in definitions.iter().zip(input.attribute_definitions()) {
                assert_eq!(written["AttributeName"], sent.attribute_name());
                assert_eq!(written["AttributeType"], sent.attribute_type().as_str());
            }
            let globals = properties["GlobalSecondaryIndexes"].as_array();
            assert_eq!(
                globals.map_or(0, Vec::len),
                input.global_secondary_indexes().len()
            );
        }
    }
}

/// One resource or block of Terraform's JSON syntax against the provider's
/// documented arguments: every key an argument or nested block it lists,
/// every required one present, each of its documented type.
fn check_documented(path: &str, body: &Value, documented: &Value, problems: &mut Vec<String>) {
    let Some(body) = body.as_object() else {
        problems.push(format!("{path} is not an object"));
        return;
    };
    let arguments = documented["arguments"].as_object().unwrap();
    let blocks = documented["blocks"].as_object();
    for (key, value) in body {
        if let Some(argument) = arguments.get(key) {
            check_argument(&format!("{path}.{key}"), value, argument, problems);
        } else if let Some(block) = blocks.and_then(|b| b.get(key)) {
            let Some(items) = value.as_array() else {
                problems.push(format!("{path}.{key} is a block: an array of objects"));
                continue;
            };
            let max = block["max_items"].as_u64().unwrap_or(u64::MAX);
            let min = block["min_items"].as_u64().unwrap_or(0);
            if (items.len() as u64) > max || (items.len() as u64) < min {
                problems.push(format!("{path}.{key} has {} blocks", items.len()));
            }
            for (i, item) in items.iter().enumerate() {
                check_documented(&format!("{path}.{key}[{i}]"), item, block, problems);
            }
        } else {
            problems.push(format!("{path}.{key} is not a documented argument"));
        }
    }
    for (name, argument) in arguments {
        if argument["required"] == true && !body.contains_key(name) {
            problems.push(format!("{path} lacks the required {name}"));
        }
    }
}

fn check_argument(path: &str, value: &Value, argument: &Value, problems: &mut Vec<String>) {
    let fits = match argument["type"].as_str().unwrap() {
        "string" => value.is_string(),
        "bool" => value.is_boolean(),
        "number" => value.is_number(),
        "list" => value
            .as_array()
            .is_some_and(|l| l.iter().all(Value::is_string)),
        "map" => value.is_object(),
        "object" => {
            check_documented(path, value, argument, problems);
            true
        }
        other => panic!("unknown documented type {other}"),
    };
    if !fits {
        problems.push(format!("{path} is not a {}", argument["type"]));
    }
    if let Some(allowed) = argument["enum"].as_array() {
        if !allowed.contains(value) {
            problems.push(format!("{path} = {value} is not one of {allowed:?}"));
        }
    }
    if argument["deprecated"] == true {
        problems.push(format!("{path} is deprecated"));
    }
}

/// The provider's own validations of a table resource: every `attribute`
/// used by a key and every key attribute defined, a global index keyed by
/// 1 to 4 HASH elements then at most 4 RANGE ones, a stream view only with
/// the stream on, capacities only with PROVISIONED, `non_key_attributes`
/// only with INCLUDE.
fn check_table_rules(path: &str, table: &Value, problems: &mut Vec<String>) {
    let blocks = |name: &str| table[name].as_array().cloned().unwrap_or_default();
    let defined: Vec<String> = blocks("attribute")
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect();
    let mut used: Vec<String> = vec![table["hash_key"].as_str().unwrap_or("").to_owned()];
    used.extend(table["range_key"].as_str().map(str::to_owned));
    for index in blocks("global_secondary_index") {
        let schema = index["key_schema"].as_array().cloned().unwrap_or_default();
        let kinds: Vec<&str> = schema
            .iter()
            .map(|k| k["key_type"].as_str().unwrap())
            .collect();
        let hashes = kinds.iter().take_while(|k| **k == "HASH").count();
        let ranges = kinds.len() - hashes;
        if !(1..=4).contains(&hashes) || ranges > 4 || kinds[hashes..].contains(&"HASH") {
            problems.push(format!(
                "{path}: global index {} key_schema {kinds:?}",
                index["name"]
            ));
        }
        used.extend(
            schema
                .iter()
                .map(|k| k["attribute_name"].as_str().unwrap().to_owned()),
        );
        check_projection(path, &index, problems);
    }
    for index in blocks("local_secondary_index") {
        used.push(index["range_key"].as_str().unwrap().to_owned());
        check_projection(path, &index, problems);
    }
    for name in &defined {
        if !used.contains(name) {
            problems.push(format!("{path}: attribute {name} is not indexed"));
        }
    }
    for name in &used {
        if !defined.contains(name) {
            problems.push(format!(
                "{path}: key attribute {name} has no attribute block"
            ));
        }
    }
    if table["stream_view_type"].is_string() != (table["stream_enabled"] == true) {
        problems.push(format!("{path}: stream_view_type without stream_enabled"));
    }
    let provisioned = table["billing_mode"] == "PROVISIONED";
    let mut capacities = vec![table.clone()];
    capacities.extend(blocks("global_secondary_index"));
    for body in capacities {
        let set = body["read_capacity"].as_u64().is_some_and(|c| c >= 1)
            && body["write_capacity"].as_u64().is_some_and(|c| c >= 1);
        let unset = body.get("read_capacity").is_none() && body.get("write_capacity").is_none();
        if (provisioned && !set) || (!provisioned && !unset) {
            problems.push(format!("{path}: capacities do not match the billing mode"));
        }
    }
    if let Some(ttl) = blocks("ttl").first() {
        if ttl["enabled"] == true && ttl["attribute_name"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("{path}: time to live on without an attribute"));
        }
    }
}

fn check_projection(path: &str, index: &Value, problems: &mut Vec<String>) {
    if index.get("non_key_attributes").is_some() && index["projection_type"] != "INCLUDE" {
        problems.push(format!(
            "{path}: non_key_attributes without INCLUDE on {}",
            index["name"]
        ));
    }
}

fn terraform_problems(configuration: &Value) -> Vec<String> {
    let documented: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("terraform/aws_dynamodb_table.json")).unwrap(),
    )
    .unwrap();
    let mut problems = Vec::new();
    let label = regex_like_label;
    let resources = configuration["resource"].as_object().unwrap();
    for (kind, instances) in resources {
        let Some(schema) = documented.get(kind) else {
            problems.push(format!("resource type {kind} is not documented"));
            continue;
        };
        for (name, body) in instances.as_object().unwrap() {
            if !label(name) {
                problems.push(format!("{kind}.{name}: not a Terraform identifier"));
            }
            let path = format!("{kind}.{name}");
            check_documented(&path, body, schema, &mut problems);
            if kind == "aws_dynamodb_table" {
                check_table_rules(&path, body, &mut problems);
            }
        }
    }
    let provider = &configuration["terraform"]["required_providers"]["aws"];
    if provider["source"] != "hashicorp/aws" {
        problems.push("the AWS provider is not required".to_owned());
    }
    problems
}

/// Terraform's identifier rule for resource labels: a letter or `_`, then
/// letters, digits, `_` and `-`.
fn regex_like_label(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

#[test]
fn terraform_of_every_design_has_the_providers_documented_shape() {
    for (design, tables) in every_design() {
        for (deployment_name, deployment) in deployments() {
            let configuration = terraform(&tables, &deployment);
            let problems = terraform_problems(&configuration);
            assert!(
                problems.is_empty(),
                "{design} {deployment_name}: {problems:#?}\n{configuration:#}"
            );
        }
    }
}

#[test]
fn the_terraform_shape_check_finds_what_the_provider_refuses() {
    let mut configuration = terraform(&[&Shop::DEF], &Deployment::default());
    let table = &mut configuration["resource"]["aws_dynamodb_table"]["Shop_v2"];
    table["attribute"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "unused", "type": "S" }));
    table["stream_enabled"] = json!(false);
    table["global_secondary_index"][0]["hash_key"] = json!("GSI1PK");
    table["global_secondary_index"][0]["projection_type"] = json!("KEYS_ONLY");
    table["ttl"][0]["colour"] = json!("blue");
    let problems = terraform_problems(&configuration).join("\n");
    for expected in [
        "attribute unused is not indexed",
        "stream_view_type without stream_enabled",
        "hash_key is deprecated",
        "non_key_attributes without INCLUDE",
        "colour is not a documented argument",
    ] {
        assert!(
            problems.contains(expected),
            "{expected} not in:\n{problems}"
        );
    }
}

#[test]
fn terraform_carries_every_declared_part() {
    let configuration = terraform(&[&Shop::DEF], &Deployment::default());
    let table = &configuration["resource"]["aws_dynamodb_table"]["Shop_v2"];
    assert_eq!(table["name"], "Shop.v2");
    assert_eq!(table["range_key"], "SK");
    let status = &table["global_secondary_index"][1];
    assert_eq!(status["key_schema"].as_array().unwrap().len(), 4);
    assert_eq!(table["local_secondary_index"][0]["range_key"], "LSI1SK");
    assert_eq!(table["stream_view_type"], "NEW_IMAGE");
    assert_eq!(table["point_in_time_recovery"][0]["enabled"], true);
    let names: Vec<&str> = table["attribute"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"category"), "{names:?}");
    let vector = &configuration["resource"]["aws_dynamodb_vector_index"]["Shop_v2_ByEmbedding"];
    assert_eq!(vector["table_name"], "${aws_dynamodb_table.Shop_v2.name}");
    assert_eq!(vector["search_schema"][1]["attribute_type"], "N");
}

/// The shape of a JSON document: at each path (array items as `[]`), the
/// keys of its objects and the JSON types of its values.
fn shape(value: &Value, path: &str, shapes: &mut std::collections::BTreeMap<String, Vec<String>>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let entry = shapes.entry(path.to_owned()).or_default();
    if !entry.iter().any(|k| k == kind) {
        entry.push(kind.to_owned());
    }
    match value {
        Value::Array(items) => items
            .iter()
            .for_each(|item| shape(item, &format!("{path}[]"), shapes)),
        Value::Object(map) => {
            for (key, value) in map {
                // Item attributes are named by the data, not the format.
                let key = if path.ends_with("TableData[]") {
                    "<attribute>"
                } else {
                    key
                };
                let key = if path.ends_with("<attribute>") || path.ends_with("M") {
                    "<type>"
                } else {
                    key
                };
                shape(value, &format!("{path}.{key}"), shapes);
            }
        }
        _ => {}
    }
}

fn store_workbench() -> Value {
    let (customers, orders, lines) = one::seed_entities();
    let samples = [
        (&one::Customer::SCHEMA, customers[0].to_item().unwrap()),
        (&one::Order::SCHEMA, orders[0].to_item().unwrap()),
        (&one::Order::SCHEMA, orders[1].to_item().unwrap()),
        (&one::OrderItem::SCHEMA, lines[0].to_item().unwrap()),
    ];
    workbench("Online store", &one::ENTITIES, &samples)
}

#[test]
fn the_workbench_model_has_the_shape_of_aws_samples() {
    let mut sample_shapes = std::collections::BTreeMap::new();
    for file in ["RecurringPaymentsSchema.json", "ChatSystemSchema.json"] {
        let text = std::fs::read_to_string(fixture(&format!("workbench/{file}"))).unwrap();
        shape(
            &serde_json::from_str(&text).unwrap(),
            "",
            &mut sample_shapes,
        );
    }
    let mut ours = std::collections::BTreeMap::new();
    shape(&ddb_examples::workbench_model().unwrap(), "", &mut ours);
    for (path, kinds) in &ours {
        if path.contains("<type>") {
            continue;
        }
        let sample = sample_shapes.get(path);
        assert!(sample.is_some(), "{path} is in no AWS sample");
        for kind in kinds {
            assert!(
                sample.unwrap().contains(kind),
                "{path} is a {kind} in ours, {sample:?} in the samples"
            );
        }
    }
    for required in [
        ".ModelMetadata.Version",
        ".DataModel[].KeyAttributes.PartitionKey.AttributeName",
        ".DataModel[].TableFacets[].KeyAttributeAlias.SortKeyAlias",
        ".DataModel[].GlobalSecondaryIndexes[].Projection.NonKeyAttributes",
    ] {
        assert!(ours.contains_key(required), "{required} missing");
    }
}

/// The model in the docs is the one the store example writes (its dates
/// aside, which are the day it was written).
#[test]
fn the_store_workbench_model_in_the_docs_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/store.workbench.json");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let generated = ddb_examples::workbench_model().unwrap();
    assert!(
        ddb_examples::same_model(&written, &generated),
        "run `cargo run --example store` to refresh docs/store.workbench.json"
    );
}

#[test]
fn the_workbench_model_declares_every_attribute_its_data_uses() {
    let model = store_workbench();
    assert_eq!(model["ModelMetadata"]["Version"], "3.0");
    let table = &model["DataModel"][0];
    let declared: Vec<&str> = table["NonKeyAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["AttributeName"].as_str().unwrap())
        .collect();
    let facets = table["TableFacets"].as_array().unwrap();
    assert_eq!(facets.len(), 3);
    for facet in facets {
        for row in facet["TableData"].as_array().unwrap() {
            for name in row.as_object().unwrap().keys() {
                let key = name == "PK" || name == "SK";
                assert!(
                    key || declared.contains(&name.as_str()),
                    "{name} undeclared"
                );
                let listed = facet["NonKeyAttributes"].as_array().unwrap();
                assert!(
                    key || listed.contains(&json!(name)),
                    "{name} not in the facet"
                );
            }
        }
    }
    for index in table["GlobalSecondaryIndexes"].as_array().unwrap() {
        let pk = index["KeyAttributes"]["PartitionKey"]["AttributeName"]
            .as_str()
            .unwrap();
        assert!(declared.contains(&pk), "{pk} undeclared");
    }
    let order = &facets[1];
    assert_eq!(
        order["KeyAttributeAlias"]["PartitionKeyAlias"],
        "CUSTOMER#{customer_id}"
    );
    let first = &order["TableData"][0];
    assert!(first["PK"]["S"].as_str().unwrap().starts_with("CUSTOMER#"));
    assert_eq!(first["_type"]["S"], "Order");
}

#[test]
fn the_workbench_model_names_the_indexes_it_leaves_out() {
    let model = workbench("Shop", &[], &[]);
    assert_eq!(model["DataModel"], json!([]));
    let orders = workbench("Orders", &sep::ENTITIES, &[]);
    let description = orders["ModelMetadata"]["Description"].as_str().unwrap();
    assert!(
        description.contains("multi-attribute index CustomerStatusIndex"),
        "{description}"
    );
    assert_eq!(orders["DataModel"].as_array().unwrap().len(), 3);
}

// Drift: one test per kind of difference, from a generated template edited
// the way a template drifts by hand.

fn shop_template() -> Value {
    cloudformation(&[&Shop::DEF], &Deployment::default())
}

fn shop_properties(template: &mut Value) -> &mut Value {
    &mut template["Resources"]["Shopv2Table"]["Properties"]
}

fn drift_of(template: Value) -> ddb_runtime::schema::SyncPlan {
    drift(
        &Template::from_value(template).unwrap(),
        &Shop::DEF,
        "Shop.v2",
    )
    .unwrap()
}

fn remove_named(list: &mut Value, name: &str) {
    list.as_array_mut()
        .unwrap()
        .retain(|i| i["IndexName"] != name);
}

#[test]
fn a_generated_template_has_no_drift_in_any_format() {
    for (_, tables) in every_design() {
        for (_, deployment) in deployments() {
            let json = Template::from_value(cloudformation(&tables, &deployment)).unwrap();
            let yaml = Template::from_yaml(&cloudformation_yaml(&tables, &deployment)).unwrap();
            let tf = Template::from_value(terraform(&tables, &deployment)).unwrap();
            for table in &tables {
                for (format, template) in [("json", &json), ("yaml", &yaml), ("terraform", &tf)] {
                    let plan = drift(template, table, table.name).unwrap();
                    assert!(plan.is_empty(), "{} in {format}:\n{plan}", table.name);
                }
            }
        }
    }
}

#[test]
fn drift_finds_a_table_missing_from_the_template() {
    let template = cloudformation(&[&Counters::DEF], &Deployment::default());
    let plan = drift_of(template);
    assert_eq!(plan.changes, [SyncChange::CreateTable]);
}

#[test]
fn drift_finds_a_missing_global_index() {
    let mut template = shop_template();
    remove_named(
        &mut shop_properties(&mut template)["GlobalSecondaryIndexes"],
        "GSI1",
    );
    let plan = drift_of(template);
    assert_eq!(plan.changes, [SyncChange::AddIndex("GSI1")]);
    assert_eq!(plan.to_string(), "+ add global index GSI1\n");
}

#[test]
fn drift_finds_a_missing_local_index() {
    let mut template = shop_template();
    remove_named(
        &mut shop_properties(&mut template)["LocalSecondaryIndexes"],
        "ByTotal",
    );
    let plan = drift_of(template);
    assert!(
        plan.differences[0].contains("local index ByTotal is missing"),
        "{plan}"
    );
}

#[test]
fn drift_finds_a_missing_vector_index() {
    let mut template = shop_template();
    shop_properties(&mut template)
        .as_object_mut()
        .unwrap()
        .remove("VectorIndexes");
    let plan = drift_of(template);
    assert_eq!(plan.changes, [SyncChange::AddVectorIndex("ByEmbedding")]);
}

#[test]
fn drift_finds_another_vector_index_dimension() {
    let mut template = shop_template();
    shop_properties(&mut template)["VectorIndexes"][0]["Dimensions"] = json!(4);
    let plan = drift_of(template);
    assert!(
        plan.differences[0].contains("4 dimensions in the table, 3 in the code"),
        "{plan}"
    );
}

#[test]
fn drift_finds_another_projection() {
    let mut template = shop_template();
    shop_properties(&mut template)["GlobalSecondaryIndexes"][0]["Projection"] =
        json!({ "ProjectionType": "KEYS_ONLY" });
    let plan = drift_of(template);
    assert_eq!(
        plan.differences,
        ["global index GSI1 holds its keys only (KEYS_ONLY) in the table, and the code declares its keys and _schema, _type, total"]
    );
}

#[test]
fn drift_finds_another_index_key() {
    let mut template = shop_template();
    let status = &mut shop_properties(&mut template)["GlobalSecondaryIndexes"][1];
    status["KeySchema"].as_array_mut().unwrap().pop();
    let plan = drift_of(template);
    assert_eq!(
        plan.differences,
        ["global index ByCustomerStatus has another key in the table"]
    );
}

#[test]
fn drift_finds_another_primary_key() {
    let mut template = shop_template();
    shop_properties(&mut template)["KeySchema"][1]["AttributeName"] = json!("SortKey");
    let plan = drift_of(template);
    assert!(plan
        .differences
        .contains(&"the table's primary key differs from the code's".to_owned()));
}

#[test]
fn drift_finds_an_index_the_code_does_not_declare() {
    let mut template = shop_template();
    let globals = &mut shop_properties(&mut template)["GlobalSecondaryIndexes"];
    let mut extra = globals[0].clone();
    extra["IndexName"] = json!("Legacy");
    globals.as_array_mut().unwrap().push(extra);
    let plan = drift_of(template);
    assert_eq!(
        plan.differences,
        ["global index Legacy is in the table and not in the code"]
    );
}

#[test]
fn drift_finds_time_to_live_on_another_attribute() {
    let mut template = shop_template();
    shop_properties(&mut template)["TimeToLiveSpecification"]["AttributeName"] = json!("ttl");
    let plan = drift_of(template);
    assert_eq!(
        plan.differences,
        ["time to live is on ttl, and the code declares expiresAt"]
    );
}

#[test]
fn drift_finds_time_to_live_off() {
    let mut template = shop_template();
    shop_properties(&mut template)["TimeToLiveSpecification"]["Enabled"] = json!(false);
    let plan = drift_of(template);
    assert_eq!(plan.changes, [SyncChange::EnableTimeToLive("expiresAt")]);
}

#[test]
fn drift_reads_time_to_live_enabled_written_as_text() {
    for enabled in ["true", "True"] {
        let mut template = shop_template();
        shop_properties(&mut template)["TimeToLiveSpecification"]["Enabled"] = json!(enabled);
        let plan = drift_of(template);
        assert!(plan.is_empty(), "Enabled: {enabled:?}\n{plan}");
    }
}

#[test]
fn drift_finds_a_missing_stream() {
    let mut template = shop_template();
    shop_properties(&mut template)
        .as_object_mut()
        .unwrap()
        .remove("StreamSpecification");
    let plan = drift_of(template);
    assert_eq!(
        plan.changes,
        [SyncChange::EnableStream(
            ddb_runtime::model::StreamView::NewImage
        )]
    );
}

#[test]
fn drift_finds_a_stream_view_without_the_image_the_code_reads() {
    let mut template = shop_template();
    shop_properties(&mut template)["StreamSpecification"]["StreamViewType"] = json!("KEYS_ONLY");
    let plan = drift_of(template);
    assert_eq!(
        plan.differences,
        ["the stream carries KEYS_ONLY, and the code reads NEW_IMAGE"]
    );

    let mut wider = shop_template();
    shop_properties(&mut wider)["StreamSpecification"]["StreamViewType"] =
        json!("NEW_AND_OLD_IMAGES");
    assert!(
        drift_of(wider).is_empty(),
        "a view carrying more is no drift"
    );
}

#[test]
fn drift_reads_terraform_edited_by_hand() {
    let mut configuration = terraform(&[&Shop::DEF], &Deployment::default());
    let table = &mut configuration["resource"]["aws_dynamodb_table"]["Shop_v2"];
    table["global_secondary_index"]
        .as_array_mut()
        .unwrap()
        .retain(|i| i["name"] != "GSI1");
    table["ttl"][0]["attribute_name"] = json!("ttl");
    table["stream_view_type"] = json!("OLD_IMAGE");
    configuration["resource"]
        .as_object_mut()
        .unwrap()
        .remove("aws_dynamodb_vector_index");
    let plan = drift(
        &Template::from_value(configuration).unwrap(),
        &Shop::DEF,
        "Shop.v2",
    )
    .unwrap();
    assert_eq!(
        plan.changes,
        [
            SyncChange::AddIndex("GSI1"),
            SyncChange::AddVectorIndex("ByEmbedding")
        ]
    );
    assert_eq!(
        plan.differences,
        [
            "the stream carries OLD_IMAGE, and the code reads NEW_IMAGE",
            "time to live is on ttl, and the code declares expiresAt",
        ]
    );
}

#[test]
fn drift_reads_a_yaml_template_with_short_form_tags() {
    let yaml = r#"
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  CountersTable:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${AWS::StackName}-counters"
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: id
          AttributeType: N
      KeySchema:
        - AttributeName: id
          KeyType: HASH
Outputs:
  Arn:
    Value: !GetAtt CountersTable.Arn
"#;
    let template = Template::from_yaml(yaml).unwrap();
    let plan = drift(&template, &Counters::DEF, "Counters").unwrap();
    assert!(plan.is_empty(), "{plan}");
    let other = drift(&template, &Shop::DEF, "Shop.v2").unwrap();
    assert_eq!(other.changes, [SyncChange::CreateTable]);
}

#[test]
fn a_document_that_is_no_template_is_a_typed_error() {
    for text in [
        "not json",
        "{\"AWSTemplateFormatVersion\": \"2010-09-09\"}",
        "[1, 2]",
    ] {
        let error = Template::parse(text).unwrap_err();
        assert!(
            matches!(error, ddb_runtime::Error::InvalidTemplate { .. }),
            "{text}: {error:?}"
        );
    }
    let mut broken = shop_template();
    shop_properties(&mut broken)["KeySchema"] = json!([{ "AttributeName": "PK" }]);
    let error = drift(
        &Template::from_value(broken).unwrap(),
        &Shop::DEF,
        "Shop.v2",
    )
    .unwrap_err();
    assert!(
        matches!(error, ddb_runtime::Error::InvalidTemplate { .. }),
        "{error:?}"
    );
}

#[test]
fn drift_finds_a_key_attribute_of_another_type() {
    let mut template = shop_template();
    let definitions = shop_properties(&mut template)["AttributeDefinitions"]
        .as_array_mut()
        .unwrap();
    let pk = definitions
        .iter_mut()
        .find(|d| d["AttributeName"] == "PK")
        .unwrap();
    pk["AttributeType"] = json!("N");
    let plan = drift_of(template);
    assert_eq!(
        plan.differences,
        ["attribute PK is N in the table, and the code declares S"]
    );
}

#[test]
fn drift_compares_the_physical_name_a_deployment_gives() {
    let staged = Deployment::default().table_name("Shop.v2", "prod-Shop");
    let template = Template::from_value(cloudformation(&[&Shop::DEF], &staged)).unwrap();
    let generated = cloudformation(&[&Shop::DEF], &staged);
    assert_eq!(
        generated["Resources"]["Shopv2Table"]["Properties"]["TableName"],
        "prod-Shop"
    );
    assert!(drift(&template, &Shop::DEF, "prod-Shop")
        .unwrap()
        .is_empty());
    let tf = Template::from_value(terraform(&[&Shop::DEF], &staged)).unwrap();
    assert!(drift(&tf, &Shop::DEF, "prod-Shop").unwrap().is_empty());
}

/// Two tables whose names differ only in punctuation get distinct logical
/// IDs and labels: neither overwrites the other.
#[derive(Table)]
#[ddb(name = "Shop_v2", pk = "PK")]
struct ShopUnderscore;

#[test]
fn tables_whose_names_differ_in_punctuation_keep_resources_of_their_own() {
    let tables = [&Shop::DEF, &ShopUnderscore::DEF];
    let configuration = terraform(&tables, &Deployment::default());
    let labels: Vec<&String> = configuration["resource"]["aws_dynamodb_table"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(labels.len(), 2, "{labels:?}");
    let template = cloudformation(&tables, &Deployment::default());
    assert_eq!(template["Resources"].as_object().unwrap().len(), 2);
    for table in tables {
        for document in [&template, &configuration] {
            let template = Template::from_value(document.clone()).unwrap();
            let plan = drift(&template, table, table.name).unwrap();
            assert!(plan.is_empty(), "{}: {plan}", table.name);
        }
    }
}

/// Terraform's JSON syntax allows an object or an array of objects at
/// every level, and a computed table name; the reader takes them all.
#[test]
fn drift_reads_terraform_in_every_form_its_json_syntax_allows() {
    let configuration = terraform(&[&Shop::DEF], &Deployment::default());
    let mut table = configuration["resource"]["aws_dynamodb_table"]["Shop_v2"].clone();
    table["name"] = json!("${var.stage}-shop");
    table["ttl"] = table["ttl"][0].clone();
    table["stream_enabled"] = json!("true");
    let mut vector =
        configuration["resource"]["aws_dynamodb_vector_index"]["Shop_v2_ByEmbedding"].clone();
    vector["table_name"] = json!("${aws_dynamodb_table.Shop_v2.id}");
    vector["projection"] = vector["projection"][0].clone();
    let rewritten = json!({
        "resource": [
            { "aws_dynamodb_table": [{ "Shop_v2": [table] }] },
            { "aws_dynamodb_vector_index": { "Shop_v2_ByEmbedding": vector } },
        ]
    });
    let template = Template::from_value(rewritten).unwrap();
    let plan = drift(&template, &Shop::DEF, "Shop.v2").unwrap();
    assert!(plan.is_empty(), "{plan}");
}

// A fully declared table: a customer managed key, point-in-time recovery
// with its period, deletion protection, and every other setting. Checkov's
// DynamoDB checks pass on both exports, cfn-lint on the CloudFormation one,
// and the Terraform one has the provider's documented shape.

/// A table declaring every design-level setting.
#[derive(Table)]
#[ddb(
    name = "Ledger",
    pk = "PK",
    sk = "SK",
    table_class = "standard_infrequent_access",
    recovery_period_days = 35,
    contributor_insights = "throttled_keys"
)]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Ledger;

fn secured() -> Deployment {
    let key = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    Deployment::default()
        .deletion_protection(true)
        .settings(crate::fixtures::every_setting(key, "ledger"))
}

/// The checkov release `.ci/run` installs, and the DynamoDB checks it has:
/// point-in-time recovery (CKV_AWS_28), a customer managed key
/// (CKV_AWS_119), and auto scaling of a provisioned table (CKV2_AWS_16,
/// Terraform only).
const CHECKOV: &str = "3.3.30";
const DYNAMODB_CHECKS: &str = "CKV_AWS_28,CKV_AWS_119,CKV2_AWS_16";

/// Whether checkov runs here; `None` when it cannot (CI installs it, so
/// there a missing checkov fails the test).
fn checkov() -> Option<Command> {
    let installed = Command::new("checkov")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if installed {
        let mut checkov = Command::new("checkov");
        // No call to Prisma Cloud for its check mappings.
        checkov.arg("--skip-download");
        return Some(checkov);
    }
    if std::env::var_os("CI").is_some() {
        panic!("checkov is not installed here; .ci/run installs checkov {CHECKOV}");
    }
    eprintln!("skipped: checkov is not installed here (pip install 'checkov=={CHECKOV}')");
    None
}

/// The checks checkov ran on the files of `dir` as `framework`, passed and
/// failed.
fn checkov_results(dir: &Path, framework: &str) -> (Vec<String>, Vec<String>) {
    let mut checkov = checkov().expect("checked by the caller");
    let output = checkov
        .args(["--framework", framework, "--check", DYNAMODB_CHECKS])
        .args(["--output", "json", "--soft-fail", "-d"])
        .arg(dir)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "checkov's report is not JSON ({e}):\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let ids = |kind: &str| -> Vec<String> {
        let reports = match &report {
            Value::Array(reports) => reports.clone(),
            report => vec![report.clone()],
        };
        reports
            .iter()
            .flat_map(|r| r["results"][kind].as_array().cloned().unwrap_or_default())
            .map(|check| check["check_id"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    (ids("passed_checks"), ids("failed_checks"))
}

#[test]
fn a_fully_declared_table_passes_checkov_in_both_exports() {
    if checkov().is_none() {
        return;
    }
    let exports = |deployment: &Deployment, name: &str| {
        let cfn = scratch_dir(&format!("checkov-cfn-{name}"));
        let template = cloudformation(&[&Ledger::DEF], deployment);
        let text = serde_json::to_string_pretty(&template).unwrap();
        std::fs::write(cfn.join("template.json"), text).unwrap();
        let tf = scratch_dir(&format!("checkov-tf-{name}"));
        let configuration = terraform(&[&Ledger::DEF], deployment);
        let text = serde_json::to_string_pretty(&configuration).unwrap();
        std::fs::write(tf.join("main.tf.json"), text).unwrap();
        (cfn, tf)
    };
    let (cfn, tf) = exports(&secured(), "secured");
    let (passed, failed) = checkov_results(&cfn, "cloudformation");
    assert!(failed.is_empty(), "CloudFormation failed {failed:?}");
    assert_eq!(passed.len(), 2, "CloudFormation passed {passed:?}");
    let (passed, failed) = checkov_results(&tf, "terraform_json");
    assert!(failed.is_empty(), "Terraform failed {failed:?}");
    assert_eq!(passed.len(), 3, "Terraform passed {passed:?}");
    // Without a customer managed key, the same table fails CKV_AWS_119.
    let (cfn, tf) = exports(&Deployment::default(), "default");
    assert_eq!(checkov_results(&cfn, "cloudformation").1, ["CKV_AWS_119"]);
    assert_eq!(checkov_results(&tf, "terraform_json").1, ["CKV_AWS_119"]);
}

#[test]
fn a_fully_declared_table_passes_cfn_lint() {
    let Some(lint) = cfn_lint() else { return };
    let dir = scratch_dir("cfn-secured");
    let json_path = dir.join("ledger.json");
    let template = cloudformation(&[&Ledger::DEF], &secured());
    std::fs::write(&json_path, serde_json::to_string_pretty(&template).unwrap()).unwrap();
    let yaml_path = dir.join("ledger.yaml");
    std::fs::write(&yaml_path, cloudformation_yaml(&[&Ledger::DEF], &secured())).unwrap();
    assert_lint_passes(lint, [&json_path, &yaml_path]);
}

#[test]
fn terraform_of_a_fully_declared_table_has_the_providers_documented_shape() {
    let configuration = terraform(&[&Ledger::DEF], &secured());
    let problems = terraform_problems(&configuration);
    assert!(problems.is_empty(), "{problems:#?}\n{configuration:#}");
    let resources = configuration["resource"].as_object().unwrap();
    assert!(resources.contains_key("aws_dynamodb_contributor_insights"));
    assert!(resources.contains_key("aws_dynamodb_resource_policy"));
}

/// A global table with multi-Region strong consistency, fully declared.
#[derive(Table)]
#[ddb(
    name = "Wallets",
    pk = "PK",
    sk = "SK",
    recovery_period_days = 35,
    contributor_insights = "throttled_keys",
    multi_region_consistency = "strong"
)]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Wallets;

/// A global table with eventual consistency.
#[derive(Table)]
#[ddb(
    name = "Carts",
    pk = "PK",
    sk = "SK",
    stream = "new_and_old_images",
    multi_region_consistency = "eventual"
)]
struct Carts;

/// The customer managed key of the Wallets replica in us-east-2.
const EAST_2_KEY: &str =
    "arn:aws:kms:us-east-2:111122223333:key/5678abcd-12ab-34cd-56ef-1234567890ab";

/// `secured()`'s settings, replicated: Wallets to a second Region and a
/// witness, Carts to two Regions.
fn replicated(billing: Billing) -> Deployment {
    use ddb_runtime::schema::TableSettings;
    let settings = secured().settings_of(&Ledger::DEF).clone();
    secured()
        .billing(billing)
        .table_settings(
            "Wallets",
            settings
                .clone()
                .replica("us-east-2")
                .replica_kms_key("us-east-2", EAST_2_KEY)
                .witness("us-west-2"),
        )
        .table_settings(
            "Carts",
            TableSettings::default()
                .replica("eu-west-1")
                .replica("us-west-2"),
        )
}

#[test]
fn a_replicated_table_is_a_global_table_with_its_settings_in_each_replica() {
    let deployment = replicated(Billing::OnDemand);
    deployment.check(&[&Wallets::DEF, &Carts::DEF]).unwrap();
    let template = cloudformation(&[&Wallets::DEF, &Carts::DEF], &deployment);
    let wallets = &template["Resources"]["WalletsTable"];
    assert_eq!(wallets["Type"], "AWS::DynamoDB::GlobalTable");
    let properties = &wallets["Properties"];
    assert_eq!(properties["MultiRegionConsistency"], "STRONG");
    assert_eq!(
        properties["GlobalTableWitnesses"],
        json!([{ "Region": "us-west-2" }])
    );
    assert_eq!(
        properties["SSESpecification"],
        json!({ "SSEEnabled": true, "SSEType": "KMS" })
    );
    assert_eq!(
        properties["WriteOnDemandThroughputSettings"],
        json!({ "MaxWriteRequestUnits": 1000 })
    );
    let replicas = properties["Replicas"].as_array().unwrap();
    let regions: Vec<&Value> = replicas.iter().map(|r| &r["Region"]).collect();
    assert_eq!(
        regions,
        [&json!({ "Ref": "AWS::Region" }), &json!("us-east-2")]
    );
    assert_eq!(
        replicas[1]["SSESpecification"]["KMSMasterKeyId"],
        EAST_2_KEY
    );
    assert_ne!(
        replicas[0]["SSESpecification"]["KMSMasterKeyId"],
        EAST_2_KEY
    );
    for replica in replicas {
        assert_eq!(
            replica["PointInTimeRecoverySpecification"]["RecoveryPeriodInDays"],
            35
        );
        assert_eq!(
            replica["ContributorInsightsSpecification"]["Mode"],
            "THROTTLED_KEYS"
        );
        assert!(replica["SSESpecification"]["KMSMasterKeyId"].is_string());
        assert_eq!(
            replica["ReadOnDemandThroughputSettings"]["MaxReadRequestUnits"],
            4000
        );
        assert_eq!(
            replica["Tags"],
            json!([{ "Key": "team", "Value": "ledger" }])
        );
    }
    for moved in [
        "Tags",
        "PointInTimeRecoverySpecification",
        "OnDemandThroughput",
    ] {
        assert!(properties.get(moved).is_none(), "{moved} is per replica");
    }
    let carts = &template["Resources"]["CartsTable"]["Properties"];
    assert_eq!(carts["MultiRegionConsistency"], "EVENTUAL");
    assert_eq!(
        carts["StreamSpecification"]["StreamViewType"],
        "NEW_AND_OLD_IMAGES"
    );
    assert_eq!(carts["Replicas"].as_array().unwrap().len(), 3);

    let configuration = terraform(&[&Wallets::DEF, &Carts::DEF], &deployment);
    let table = &configuration["resource"]["aws_dynamodb_table"]["Wallets"];
    assert_eq!(table["replica"][0]["region_name"], "us-east-2");
    assert_eq!(table["replica"][0]["consistency_mode"], "STRONG");
    assert_eq!(table["replica"][0]["kms_key_arn"], EAST_2_KEY);
    assert_eq!(table["global_table_witness"][0]["region_name"], "us-west-2");
}

#[test]
fn global_tables_pass_cfn_lint_on_demand_and_provisioned() {
    let Some(lint) = cfn_lint() else { return };
    let dir = scratch_dir("cfn-global");
    let mut files = Vec::new();
    let billings = [
        ("on-demand", Billing::OnDemand),
        ("provisioned", Billing::Provisioned { read: 5, write: 2 }),
    ];
    for (name, billing) in billings {
        let deployment = replicated(billing);
        let tables = [&Wallets::DEF, &Carts::DEF];
        let path = dir.join(format!("global-{name}.json"));
        let template = cloudformation(&tables, &deployment);
        std::fs::write(&path, serde_json::to_string_pretty(&template).unwrap()).unwrap();
        let yaml = dir.join(format!("global-{name}.yaml"));
        std::fs::write(&yaml, cloudformation_yaml(&tables, &deployment)).unwrap();
        files.extend([path, yaml]);
    }
    assert_lint_passes(lint, &files);
}

#[test]
fn a_replicated_table_passes_checkov_in_both_exports() {
    if checkov().is_none() {
        return;
    }
    let deployment = replicated(Billing::OnDemand);
    let cfn = scratch_dir("checkov-cfn-global");
    let template = cloudformation(&[&Wallets::DEF], &deployment);
    std::fs::write(cfn.join("template.json"), template.to_string()).unwrap();
    let tf = scratch_dir("checkov-tf-global");
    let configuration = terraform(&[&Wallets::DEF], &deployment);
    std::fs::write(tf.join("main.tf.json"), configuration.to_string()).unwrap();
    let (_, failed) = checkov_results(&cfn, "cloudformation");
    assert!(failed.is_empty(), "CloudFormation failed {failed:?}");
    let (passed, failed) = checkov_results(&tf, "terraform_json");
    assert!(failed.is_empty(), "Terraform failed {failed:?}");
    assert!(!passed.is_empty(), "Terraform passed nothing");
}

#[test]
fn drift_finds_each_global_table_difference() {
    let deployment = replicated(Billing::OnDemand);
    let template = Template::from_value(cloudformation(&[&Wallets::DEF], &deployment)).unwrap();
    let drift = |deployment: &Deployment| {
        ddb_tools::drift_in(&template, &Wallets::DEF, deployment).unwrap()
    };
    assert!(drift(&deployment).is_empty(), "{}", drift(&deployment));
    let settings = deployment.settings_of(&Wallets::DEF).clone();
    // A Region the settings add, and a witness the template lacks.
    let more = deployment.clone().table_settings(
        "Wallets",
        settings.clone().replica("us-west-2").witness("us-east-1"),
    );
    let plan = drift(&more);
    let lacks = "the table lacks us-west-2, us-east-1";
    assert!(
        plan.differences.iter().any(|d| d.starts_with(lacks)),
        "{plan}"
    );
    assert!(
        plan.changes.is_empty(),
        "a strong table's Regions are not added live: {plan}"
    );
    // A replica and a witness the settings no longer name.
    let fewer = deployment
        .clone()
        .table_settings("Wallets", secured().settings_of(&Ledger::DEF).clone());
    let plan = drift(&fewer);
    assert!(
        plan.differences
            .iter()
            .any(|d| d.contains("replica in us-east-2")),
        "{plan}"
    );
    assert!(
        plan.differences
            .iter()
            .any(|d| d.contains("witness in us-west-2")),
        "{plan}"
    );
    // Another consistency mode.
    let mut eventual = cloudformation(&[&Wallets::DEF], &deployment);
    eventual["Resources"]["WalletsTable"]["Properties"]["MultiRegionConsistency"] =
        json!("EVENTUAL");
    let plan = ddb_tools::drift_in(
        &Template::from_value(eventual).unwrap(),
        &Wallets::DEF,
        &deployment,
    )
    .unwrap();
    assert!(
        plan.differences
            .iter()
            .any(|d| d.contains("multi-Region consistency")),
        "{plan}"
    );
}

/// Where aws-cdk-lib, constructs and typescript are installed (a
/// `node_modules` directory, `DDB_CDK_MODULES`); `None` when not (CI
/// installs them, so there a missing one fails the test).
fn cdk_modules() -> Option<PathBuf> {
    let modules = std::env::var_os("DDB_CDK_MODULES").map(PathBuf::from);
    if let Some(modules) = modules.filter(|m| m.join("aws-cdk-lib").is_dir()) {
        return Some(modules);
    }
    let reason =
        "aws-cdk-lib is not installed here (DDB_CDK_MODULES names no node_modules holding it)";
    if std::env::var_os("CI").is_some() {
        panic!("{reason}; .ci/run installs it");
    }
    eprintln!("skipped: {reason}; npm install aws-cdk-lib constructs typescript");
    None
}

/// The designs and deployments the CDK module is synthesized for.
fn cdk_cases() -> Vec<(Vec<&'static TableDef>, Deployment)> {
    let mut cases: Vec<(Vec<&'static TableDef>, Deployment)> = every_design()
        .into_iter()
        .flat_map(|(_, tables)| {
            deployments()
                .into_iter()
                .map(move |(_, d)| (tables.clone(), d))
        })
        .collect();
    cases.push((vec![&Ledger::DEF], secured()));
    cases.push((
        vec![&Wallets::DEF, &Carts::DEF],
        replicated(Billing::OnDemand),
    ));
    cases
}

#[test]
fn the_cdk_construct_synthesizes_the_cloudformation_export() {
    let Some(modules) = cdk_modules() else { return };
    let dir = scratch_dir("cdk");
    let link = dir.join("node_modules");
    if !link.exists() {
        std::os::unix::fs::symlink(&modules, &link).unwrap();
    }
    let cases = cdk_cases();
    let mut app = String::from("import { App, Stack } from \"aws-cdk-lib\";\n");
    let mut stacks = String::from("const app = new App({ outdir: \"cdk.out\" });\n");
    for (i, (tables, deployment)) in cases.iter().enumerate() {
        std::fs::write(
            dir.join(format!("tables{i}.ts")),
            ddb_tools::cdk(tables, deployment),
        )
        .unwrap();
        app.push_str(&format!(
            "import {{ DdbTables as Tables{i} }} from \"./tables{i}\";\n"
        ));
        stacks.push_str(&format!(
            "new Tables{i}(new Stack(app, \"Case{i}\"), \"Tables\");\n"
        ));
    }
    std::fs::write(dir.join("app.ts"), format!("{app}{stacks}app.synth();\n")).unwrap();
    let run = |program: &str, args: &[&str]| {
        let output = Command::new(program)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{program} {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let tsc = "node_modules/typescript/bin/tsc";
    let options = [
        "--strict",
        "--module",
        "commonjs",
        "--target",
        "es2020",
        "--skipLibCheck",
    ];
    run("node", &[[tsc].as_slice(), &options, &["app.ts"]].concat());
    run("node", &["app.js"]);
    for (i, (tables, deployment)) in cases.iter().enumerate() {
        let path = dir.join("cdk.out").join(format!("Case{i}.template.json"));
        let synthesized: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let exported = cloudformation(tables, deployment);
        for (id, resource) in exported["Resources"].as_object().unwrap() {
            let made = &synthesized["Resources"][id];
            for part in [
                "Type",
                "Properties",
                "DeletionPolicy",
                "UpdateReplacePolicy",
            ] {
                assert_eq!(made[part], resource[part], "case {i}, {id}: {part}");
            }
        }
    }
}

/// A maximum on-demand throughput applies on demand only: a provisioned
/// deployment's export leaves it out, and drift says so once rather than
/// planning a change DynamoDB would refuse.
#[test]
fn drift_plans_no_maximum_throughput_on_a_provisioned_table() {
    let deployment = secured().billing(Billing::Provisioned { read: 5, write: 2 });
    let template = cloudformation(&[&Ledger::DEF], &deployment);
    let properties = &template["Resources"]["LedgerTable"]["Properties"];
    assert!(properties.get("OnDemandThroughput").is_none());
    let plan = ddb_tools::drift_in(
        &Template::from_value(template).unwrap(),
        &Ledger::DEF,
        &deployment,
    )
    .unwrap();
    let max = |c: &SyncChange| matches!(c, SyncChange::SetMaxThroughput { .. });
    assert!(!plan.changes.iter().any(max), "{plan}");
    assert_eq!(
        plan.differences,
        ["the table is provisioned: its maximum on-demand throughput is not set"],
        "{plan}"
    );
}

/// The Terraform export of a global table reads back without drift, and
/// drift there finds a missing replica and another mode too.
#[test]
fn terraform_drift_reads_replicas_witness_and_mode() {
    let deployment = replicated(Billing::OnDemand);
    let configuration = terraform(&[&Wallets::DEF, &Carts::DEF], &deployment);
    let template = Template::from_value(configuration.clone()).unwrap();
    for table in [&Wallets::DEF, &Carts::DEF] {
        let plan = ddb_tools::drift_in(&template, table, &deployment).unwrap();
        assert!(plan.is_empty(), "{}: {plan}", table.name);
    }
    let mut eventual = configuration;
    eventual["resource"]["aws_dynamodb_table"]["Wallets"]["replica"][0]["consistency_mode"] =
        json!("EVENTUAL");
    let template = Template::from_value(eventual).unwrap();
    let plan = ddb_tools::drift_in(&template, &Wallets::DEF, &deployment).unwrap();
    assert!(
        plan.differences
            .iter()
            .any(|d| d.contains("multi-Region consistency is EVENTUAL")),
        "{plan}"
    );
    let more = deployment.clone().table_settings(
        "Carts",
        ddb_runtime::schema::TableSettings::default()
            .replica("eu-west-1")
            .replica("us-west-2")
            .replica("ap-southeast-2"),
    );
    let template = Template::from_value(terraform(&[&Carts::DEF], &deployment)).unwrap();
    let plan = ddb_tools::drift_in(&template, &Carts::DEF, &more).unwrap();
    assert_eq!(
        plan.changes,
        [SyncChange::AddReplica("ap-southeast-2".into())],
        "{plan}"
    );
}
