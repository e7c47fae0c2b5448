//! The Terraform resources of a table, in Terraform's JSON syntax
//! (`.tf.json`): an `aws_dynamodb_table`, and an `aws_dynamodb_vector_index`
//! per vector index (the AWS provider declares those as resources of their
//! own).

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{KeySchemaElement, Projection};
use serde_json::{json, Map, Value};

use ddb_runtime::model::{TableClass, TableDef};
use ddb_runtime::schema::{create_table_input, Units};

use super::{Billing, Deployment};

/// The AWS provider release that first reads a global index's
/// `key_schema` blocks (multi-attribute keys), which ddb writes for every
/// global index.
const PROVIDER_VERSION: &str = ">= 6.29";

/// A Terraform configuration of `tables` in JSON syntax: a `terraform`
/// block requiring the AWS provider, then per table an
/// `aws_dynamodb_table` resource labelled by its name (`.` as `_`) with the
/// same contents as the CloudFormation resource
/// ([`cloudformation`](super::cloudformation)), and an
/// `aws_dynamodb_vector_index` per vector index, naming the table by
/// reference. The provider has no attribute of the table for Contributor
/// Insights or a resource-based policy: they are an
/// `aws_dynamodb_contributor_insights` and an `aws_dynamodb_resource_policy`
/// resource, labelled as the table. `server_side_encryption.kms_key_arn`
/// takes a key ARN: give the settings one. A table the settings replicate
/// has a `replica` block per other Region (its consistency mode, key,
/// recovery and tags with it) and its `global_table_witness`. Write it to
/// a file ending in `.tf.json`.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK", ttl = "expiresAt")]
/// #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
/// struct Ecommerce;
///
/// use ddb_runtime::Table;
/// let configuration = ddb_tools::terraform(&[&Ecommerce::DEF], &ddb_tools::Deployment::default());
/// let table = &configuration["resource"]["aws_dynamodb_table"]["Ecommerce"];
/// assert_eq!(table["hash_key"], "PK");
/// assert_eq!(table["billing_mode"], "PAY_PER_REQUEST");
/// assert_eq!(table["ttl"][0]["attribute_name"], "expiresAt");
/// ```
pub fn terraform(tables: &[&TableDef], deployment: &Deployment) -> Value {
    let mut table_resources = Map::new();
    let mut vector_resources = Map::new();
    let mut insights = Map::new();
    let mut policies = Map::new();
    for table in tables {
        let label = super::cloudformation::unique_id(label(table.name), &table_resources);
        let input = create_table_input(table, deployment.name_of(table));
        for (index, body) in vector_indexes(&input, &label) {
            let index_label = format!("{label}_{}", self::label(&index));
            let index_label = super::cloudformation::unique_id(index_label, &vector_resources);
            vector_resources.insert(index_label, body);
        }
        if let Some(mode) = table.contributor_insights {
            let body = json!({
                "table_name": format!("${{aws_dynamodb_table.{label}.name}}"),
                "mode": mode.as_str(),
            });
            insights.insert(label.clone(), body);
        }
        if let Some(policy) = deployment.settings_of(table).resource_policy_document() {
            let body = json!({
                "resource_arn": format!("${{aws_dynamodb_table.{label}.arn}}"),
                "policy": policy,
            });
            policies.insert(label.clone(), body);
        }
        table_resources.insert(label, table_body(table, &input, deployment));
    }
    let mut resource = json!({ "aws_dynamodb_table": table_resources });
    if !vector_resources.is_empty() {
        resource["aws_dynamodb_vector_index"] = Value::Object(vector_resources);
    }
    if !insights.is_empty() {
        resource["aws_dynamodb_contributor_insights"] = Value::Object(insights);
    }
    if !policies.is_empty() {
        resource["aws_dynamodb_resource_policy"] = Value::Object(policies);
    }
    json!({
        "terraform": {
            "required_providers": {
                "aws": { "source": "hashicorp/aws", "version": PROVIDER_VERSION },
            },
        },
        "resource": resource,
    })
}

/// A resource label from a DynamoDB name: Terraform's identifiers are
/// letters, digits, `_` and `-`, not starting with a digit.
pub(super) fn label(name: &str) -> String {
    let label = name.replace('.', "_");
    if label.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{label}")
    } else {
        label
    }
}

fn table_body(table: &TableDef, input: &CreateTableInput, deployment: &Deployment) -> Value {
    let mut body = Map::new();
    let mut set = |name: &str, value: Value| {
        body.insert(name.to_owned(), value);
    };
    set("name", json!(input.table_name()));
    set("billing_mode", json!(deployment.billing.as_str()));
    set("hash_key", json!(table.pk.name));
    if let Some(sk) = table.sk {
        set("range_key", json!(sk.name));
    }
    // The provider refuses an `attribute` no key of the resource uses: the
    // attributes only a vector index's search schema reads are typed in its
    // own resource.
    let keyed = |name: &str| {
        let in_keys =
            |schema: &[KeySchemaElement]| schema.iter().any(|k| k.attribute_name() == name);
        in_keys(input.key_schema())
            || input
                .global_secondary_indexes()
                .iter()
                .any(|i| in_keys(i.key_schema()))
            || input
                .local_secondary_indexes()
                .iter()
                .any(|i| in_keys(i.key_schema()))
    };
    let attributes = input
        .attribute_definitions()
        .iter()
        .filter(|a| keyed(a.attribute_name()))
        .map(|a| json!({ "name": a.attribute_name(), "type": a.attribute_type().as_str() }));
    set("attribute", attributes.collect());
    let settings = deployment.settings_of(table);
    let on_demand = deployment.billing == Billing::OnDemand;
    let capacity = |object: &mut Value| {
        if let Billing::Provisioned { read, write } = deployment.billing {
            object["read_capacity"] = json!(read);
            object["write_capacity"] = json!(write);
        }
    };
    let globals: Vec<Value> = input
        .global_secondary_indexes()
        .iter()
        .map(|index| {
            let mut global =
                json!({ "name": index.index_name(), "key_schema": key_schema(index.key_schema()) });
            projected(&mut global, index.projection());
            capacity(&mut global);
            let index_name = index.index_name();
            if let Some(units) = settings.max_throughput_of(index_name).filter(|_| on_demand) {
                global["on_demand_throughput"] = on_demand_throughput(units);
            }
            if let Some(units) = settings.warm_throughput_of(index_name) {
                global["warm_throughput"] = warm_throughput(units);
            }
            global
        })
        .collect();
    if !globals.is_empty() {
        set("global_secondary_index", globals.into());
    }
    let locals: Vec<Value> = input
        .local_secondary_indexes()
        .iter()
        .map(|index| {
            let range = index
                .key_schema()
                .iter()
                .find(|k| k.key_type().as_str() == "RANGE");
            let mut local = json!({
                "name": index.index_name(),
                "range_key": range.map(|k| k.attribute_name()),
            });
            projected(&mut local, index.projection());
            local
        })
        .collect();
    if !locals.is_empty() {
        set("local_secondary_index", locals.into());
    }
    if let Some(attribute) = table.ttl {
        set(
            "ttl",
            json!([{ "attribute_name": attribute, "enabled": true }]),
        );
    }
    if let Some(view) = table.stream {
        set("stream_enabled", json!(true));
        set("stream_view_type", json!(view.as_str()));
    }
    let mut recovery = json!({ "enabled": deployment.point_in_time_recovery });
    if let Some(days) = table
        .recovery_period_days
        .filter(|_| deployment.point_in_time_recovery)
    {
        recovery["recovery_period_in_days"] = json!(days);
    }
    set("point_in_time_recovery", json!([recovery]));
    if table.table_class != TableClass::Standard {
        set("table_class", json!(table.table_class.as_str()));
    }
    if let Some(key) = settings.kms_key_id() {
        set(
            "server_side_encryption",
            json!([{ "enabled": true, "kms_key_arn": key }]),
        );
    }
    if !settings.tags().is_empty() {
        let tags: Map<String, Value> = settings
            .tags()
            .iter()
            .map(|(key, value)| (key.clone(), json!(value)))
            .collect();
        set("tags", Value::Object(tags));
    }
    if let Some(units) = settings.table_max_throughput().filter(|_| on_demand) {
        set("on_demand_throughput", on_demand_throughput(units));
    }
    if let Some(units) = settings.table_warm_throughput() {
        set("warm_throughput", warm_throughput(units));
    }
    set(
        "deletion_protection_enabled",
        json!(deployment.deletion_protection),
    );
    if let Some(mode) = table.multi_region_consistency {
        let replicas: Vec<Value> = settings
            .replica_regions()
            .iter()
            .map(|region| {
                let mut replica = json!({
                    "region_name": region,
                    "consistency_mode": mode.as_str(),
                    "point_in_time_recovery": deployment.point_in_time_recovery,
                    "propagate_tags": true,
                    "deletion_protection_enabled": deployment.deletion_protection,
                });
                if let Some(key) = settings.replica_kms_key_of(region) {
                    replica["kms_key_arn"] = json!(key);
                }
                replica
            })
            .collect();
        if !replicas.is_empty() {
            set("replica", replicas.into());
        }
        if let Some(witness) = settings.witness_region() {
            set("global_table_witness", json!([{ "region_name": witness }]));
        }
    }
    if deployment.deletion_protection {
        // As CloudFormation's `DeletionPolicy: Retain`: a plan that would
        // destroy the table fails.
        set("lifecycle", json!({ "prevent_destroy": true }));
    }
    let mut body = Value::Object(body);
    capacity(&mut body);
    body
}

/// The provider's `on_demand_throughput` block of `units`.
fn on_demand_throughput(units: Units) -> Value {
    json!([{ "max_read_request_units": units.read, "max_write_request_units": units.write }])
}

/// The provider's `warm_throughput` block of `units`.
fn warm_throughput(units: Units) -> Value {
    json!([{ "read_units_per_second": units.read, "write_units_per_second": units.write }])
}

fn key_schema(schema: &[KeySchemaElement]) -> Value {
    schema
        .iter()
        .map(|k| json!({ "attribute_name": k.attribute_name(), "key_type": k.key_type().as_str() }))
        .collect()
}

/// `projection_type`, and `non_key_attributes` for INCLUDE.
fn projected(object: &mut Value, projection: Option<&Projection>) {
    let kind = projection
        .and_then(Projection::projection_type)
        .map_or("ALL", |t| t.as_str());
    object["projection_type"] = json!(kind);
    if let Some(listed) = projection.map(Projection::non_key_attributes) {
        if !listed.is_empty() {
            object["non_key_attributes"] = json!(listed);
        }
    }
}

/// Each vector index's name and `aws_dynamodb_vector_index` body.
fn vector_indexes(input: &CreateTableInput, label: &str) -> Vec<(String, Value)> {
    let type_of = |name: &str| {
        let definitions = input.attribute_definitions().iter();
        let mut found = definitions.filter(|a| a.attribute_name() == name);
        found.next().map(|a| a.attribute_type().as_str().to_owned())
    };
    input
        .vector_indexes()
        .iter()
        .map(|index| {
            let mut projection = json!({});
            projected(&mut projection, index.projection());
            let search: Vec<Value> = index
                .search_schema()
                .iter()
                .map(|e| {
                    json!({
                        "attribute_name": e.attribute_name(),
                        "attribute_type": type_of(e.attribute_name()),
                        "type": e.search_schema_element_type().as_str(),
                    })
                })
                .collect();
            let mut body = json!({
                "table_name": format!("${{aws_dynamodb_table.{label}.name}}"),
                "index_name": index.index_name(),
                "dimensions": index.dimensions(),
                "distance_function": index.distance_function().as_str(),
                "vector_attribute": {
                    "attribute_name": index.vector_attribute().map(|a| a.attribute_name()),
                },
                "projection": [projection],
            });
            if !search.is_empty() {
                body["search_schema"] = search.into();
            }
            (index.index_name().to_owned(), body)
        })
        .collect()
}

/// The objects of a Terraform JSON value: the object itself, or each
/// object of an array (the JSON syntax allows both for a block, and at
/// every label level).
pub(super) fn objects(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().filter(|i| i.is_object()).collect(),
        Value::Object(_) => vec![value],
        _ => Vec::new(),
    }
}

/// The CloudFormation `Properties` a Terraform table resource (and the
/// vector index resources naming it) declares, for drift: the same
/// comparison reads both formats.
pub(super) fn as_cloudformation(table: &Value, vectors: &[&Value]) -> Value {
    let blocks = |name: &str| objects(&table[name]);
    let key = |name: &Value, kind: &str| json!({ "AttributeName": name, "KeyType": kind });
    let mut key_schema = vec![key(&table["hash_key"], "HASH")];
    if !table["range_key"].is_null() {
        key_schema.push(key(&table["range_key"], "RANGE"));
    }
    let definitions: Vec<Value> = blocks("attribute")
        .iter()
        .map(|a| json!({ "AttributeName": a["name"], "AttributeType": a["type"] }))
        .collect();
    let globals: Vec<Value> = blocks("global_secondary_index")
        .iter()
        .map(|index| {
            let mut global = global_index_of(index);
            settings_of_index(&mut global, index);
            global
        })
        .collect();
    let locals: Vec<Value> = blocks("local_secondary_index")
        .iter()
        .map(|index| {
            let schema = [key(&table["hash_key"], "HASH"), key(&index["range_key"], "RANGE")];
            json!({ "IndexName": index["name"], "KeySchema": schema, "Projection": projection_of(index) })
        })
        .collect();
    let vectors: Vec<Value> = vectors.iter().map(|index| vector_index_of(index)).collect();
    let mut properties = json!({
        "AttributeDefinitions": definitions,
        "KeySchema": key_schema,
        "GlobalSecondaryIndexes": globals,
        "LocalSecondaryIndexes": locals,
        "VectorIndexes": vectors,
    });
    if let Some(ttl) = blocks("ttl").first() {
        properties["TimeToLiveSpecification"] =
            json!({ "AttributeName": ttl["attribute_name"], "Enabled": ttl["enabled"] });
    }
    if super::described::is_true(&table["stream_enabled"]) {
        let view = match &table["stream_view_type"] {
            Value::Null => json!(""),
            view => view.clone(),
        };
        properties["StreamSpecification"] = json!({ "StreamViewType": view });
    }
    settings_of_table(&mut properties, table);
    replication_of_table(&mut properties, table);
    properties
}

/// A Terraform table's `replica` and `global_table_witness` blocks, as a
/// global table's CloudFormation properties.
fn replication_of_table(properties: &mut Value, table: &Value) {
    let replicas = objects(&table["replica"]);
    if let Some(first) = replicas.first() {
        let mode = match &first["consistency_mode"] {
            Value::Null => json!("EVENTUAL"),
            mode => mode.clone(),
        };
        properties["MultiRegionConsistency"] = mode;
        let regions: Vec<Value> = replicas
            .iter()
            .map(|r| json!({ "Region": r["region_name"] }))
            .collect();
        properties["Replicas"] = regions.into();
    }
    let witnesses: Vec<Value> = objects(&table["global_table_witness"])
        .iter()
        .map(|w| json!({ "Region": w["region_name"] }))
        .collect();
    if !witnesses.is_empty() {
        properties["GlobalTableWitnesses"] = witnesses.into();
    }
}

/// The settings of a Terraform table, as CloudFormation properties.
fn settings_of_table(properties: &mut Value, table: &Value) {
    let first = |name: &str| objects(&table[name]).first().copied().cloned();
    if table["table_class"].is_string() {
        properties["TableClass"] = table["table_class"].clone();
    }
    if let Some(sse) = first("server_side_encryption") {
        properties["SSESpecification"] = json!({
            "SSEEnabled": sse["enabled"],
            "SSEType": "KMS",
            "KMSMasterKeyId": sse["kms_key_arn"],
        });
    }
    if let Some(tags) = table["tags"].as_object() {
        let tags: Vec<Value> = tags
            .iter()
            .map(|(key, value)| json!({ "Key": key, "Value": value }))
            .collect();
        properties["Tags"] = tags.into();
    }
    if let Some(recovery) = first("point_in_time_recovery") {
        properties["PointInTimeRecoverySpecification"] = json!({
            "PointInTimeRecoveryEnabled": recovery["enabled"],
            "RecoveryPeriodInDays": recovery["recovery_period_in_days"],
        });
    }
    settings_of_index(properties, table);
}

/// The maximum and warm throughput of a Terraform table or global index,
/// as CloudFormation properties.
fn settings_of_index(properties: &mut Value, block: &Value) {
    let first = |name: &str| objects(&block[name]).first().copied().cloned();
    if let Some(max) = first("on_demand_throughput") {
        properties["OnDemandThroughput"] = json!({
            "MaxReadRequestUnits": max["max_read_request_units"],
            "MaxWriteRequestUnits": max["max_write_request_units"],
        });
    }
    if let Some(warm) = first("warm_throughput") {
        properties["WarmThroughput"] = json!({
            "ReadUnitsPerSecond": warm["read_units_per_second"],
            "WriteUnitsPerSecond": warm["write_units_per_second"],
        });
    }
}

/// A Terraform `global_secondary_index` block as a CloudFormation index.
fn global_index_of(index: &Value) -> Value {
    let key = |name: &Value, kind: &str| json!({ "AttributeName": name, "KeyType": kind });
    let elements = objects(&index["key_schema"]);
    let schema: Vec<Value> = if elements.is_empty() {
        let mut schema = vec![key(&index["hash_key"], "HASH")];
        if !index["range_key"].is_null() {
            schema.push(key(&index["range_key"], "RANGE"));
        }
        schema
    } else {
        let kind = |e: &Value| e["key_type"].as_str().unwrap_or("").to_owned();
        elements
            .iter()
            .map(|e| key(&e["attribute_name"], &kind(e)))
            .collect()
    };
    json!({ "IndexName": index["name"], "KeySchema": schema, "Projection": projection_of(index) })
}

/// An `aws_dynamodb_vector_index` body as a CloudFormation `VectorIndex`.
fn vector_index_of(index: &Value) -> Value {
    let projection = objects(&index["projection"])
        .first()
        .copied()
        .cloned()
        .unwrap_or(Value::Null);
    let search: Vec<Value> = objects(&index["search_schema"])
        .iter()
        .map(|e| json!({ "AttributeName": e["attribute_name"], "SearchSchemaElementType": e["type"] }))
        .collect();
    let vector = objects(&index["vector_attribute"])
        .first()
        .map_or(Value::Null, |v| v["attribute_name"].clone());
    json!({
        "IndexName": index["index_name"],
        "VectorAttribute": { "AttributeName": vector },
        "Dimensions": index["dimensions"],
        "DistanceFunction": index["distance_function"],
        "SearchSchema": search,
        "Projection": projection_of(&projection),
    })
}

fn projection_of(block: &Value) -> Value {
    let mut value = json!({ "ProjectionType": block["projection_type"] });
    if block["non_key_attributes"].is_array() {
        value["NonKeyAttributes"] = block["non_key_attributes"].clone();
    }
    value
}
