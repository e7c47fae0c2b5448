//! The CloudFormation resource of a table (`AWS::DynamoDB::Table`), as a
//! whole template in JSON or YAML; the same resource goes into a SAM
//! template's `Resources` unchanged.

use aws_sdk_dynamodb::types::VectorIndex;
use serde_json::{json, Map, Value};

use ddb_runtime::__private::tools::{key_schema, projection_json as projection};
use ddb_runtime::model::{TableClass, TableDef};
use ddb_runtime::schema::{create_table_input, Units};

use super::{global_table, Billing, Deployment};

/// A CloudFormation template of `tables`: one `AWS::DynamoDB::Table`
/// resource each, named by [`logical_id`], with its table name, key schema
/// and attribute definitions, every global, local and vector index with its
/// projection (multi-attribute keys as several `HASH` or `RANGE` elements),
/// time to live, the declared stream, table class, recovery period and
/// Contributor Insights, and the [`Deployment`]'s billing, point-in-time
/// recovery, deletion protection and [`TableSettings`](ddb_runtime::schema::TableSettings)
/// (`SSESpecification` with the customer managed key, `Tags`,
/// `OnDemandThroughput`, `WarmThroughput`, `ResourcePolicy`); and outputs
/// for each table's name, ARN and stream ARN. A table the settings
/// replicate to other Regions ([`TableSettings::replica`](ddb_runtime::schema::TableSettings::replica))
/// is an `AWS::DynamoDB::GlobalTable`: a replica in the stack's Region and
/// one in each other, each with the table's settings, and its declared
/// `MultiRegionConsistency` and witness.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK", ttl = "expiresAt", stream = "new_and_old_images")]
/// #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
/// struct Ecommerce;
///
/// use ddb_runtime::Table;
/// let template = ddb_tools::cloudformation(&[&Ecommerce::DEF], &ddb_tools::Deployment::default());
/// let table = &template["Resources"]["EcommerceTable"];
/// assert_eq!(table["Type"], "AWS::DynamoDB::Table");
/// assert_eq!(table["Properties"]["StreamSpecification"]["StreamViewType"], "NEW_AND_OLD_IMAGES");
/// assert_eq!(table["Properties"]["TimeToLiveSpecification"]["AttributeName"], "expiresAt");
/// ```
pub fn cloudformation(tables: &[&TableDef], deployment: &Deployment) -> Value {
    let mut resources = Map::new();
    let mut outputs = Map::new();
    for table in tables {
        let id = unique_id(logical_id(table), &resources);
        let settings = deployment.settings_of(table);
        let mut resource = if global_table::is_global(table, settings) {
            let properties = properties(table, deployment);
            json!({
                "Type": "AWS::DynamoDB::GlobalTable",
                "Properties": global_table::global_properties(table, settings, properties),
            })
        } else {
            json!({
                "Type": "AWS::DynamoDB::Table",
                "Properties": properties(table, deployment),
            })
        };
        if searched_by_attributes(table) {
            // DynamoDB requires a search schema's attributes in
            // `AttributeDefinitions` (API reference, SearchSchemaElement);
            // cfn-lint's E3039 predates vector indexes and asks every
            // definition to be a key of the table or a secondary index.
            resource["Metadata"] =
                json!({ "cfn-lint": { "config": { "ignore_checks": ["E3039"] } } });
        }
        if deployment.deletion_protection {
            resource["DeletionPolicy"] = json!("Retain");
            resource["UpdateReplacePolicy"] = json!("Retain");
        }
        outputs.insert(format!("{id}Name"), json!({ "Value": { "Ref": id } }));
        let arn = json!({ "Value": { "Fn::GetAtt": [id, "Arn"] } });
        outputs.insert(format!("{id}Arn"), arn);
        if table.stream.is_some() {
            let stream = json!({ "Value": { "Fn::GetAtt": [id, "StreamArn"] } });
            outputs.insert(format!("{id}StreamArn"), stream);
        }
        resources.insert(id, resource);
    }
    let names: Vec<&str> = tables.iter().map(|t| deployment.name_of(t)).collect();
    json!({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": format!("DynamoDB tables declared in code: {}", names.join(", ")),
        "Resources": resources,
        "Outputs": outputs,
    })
}

/// [`cloudformation`], as YAML.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// use ddb_runtime::Table;
/// let yaml = ddb_tools::cloudformation_yaml(&[&Ecommerce::DEF], &ddb_tools::Deployment::default());
/// assert!(yaml.contains("Type: \"AWS::DynamoDB::Table\""));
/// ```
pub fn cloudformation_yaml(tables: &[&TableDef], deployment: &Deployment) -> String {
    super::yaml::write(&cloudformation(tables, deployment))
}

/// The logical ID of `table`'s resource: the letters and digits of its
/// name, then `Table` (`Ecommerce` is `EcommerceTable`, `orders-v2` is
/// `ordersv2Table`); CloudFormation allows letters and digits only.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "orders-v2", pk = "PK")]
/// # struct Orders;
/// use ddb_runtime::Table;
/// assert_eq!(ddb_tools::logical_id(&Orders::DEF), "ordersv2Table");
/// ```
pub fn logical_id(table: &TableDef) -> String {
    let mut id: String = table
        .name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    id.push_str("Table");
    id
}

/// Whether a vector index of `table` has a search schema.
fn searched_by_attributes(table: &TableDef) -> bool {
    let vectors = table.vector_indexes.iter();
    vectors.clone().any(|v| v.hash.is_some()) || vectors.clone().any(|v| !v.filters.is_empty())
}

/// `id`, or `id` with a number when two names differ only in punctuation
/// (a logical ID, a Terraform label).
pub(super) fn unique_id(id: String, taken: &Map<String, Value>) -> String {
    if !taken.contains_key(&id) {
        return id;
    }
    (2..)
        .map(|n| format!("{id}{n}"))
        .find(|candidate| !taken.contains_key(candidate))
        .expect("some number is free")
}

/// The resource's `Properties`: CreateTable's request, as CloudFormation
/// names it, and the deployment's settings.
pub(super) fn properties(table: &TableDef, deployment: &Deployment) -> Value {
    let name = deployment.name_of(table);
    let input = create_table_input(table, name);
    let mut properties = Map::new();
    let mut set = |name: &str, value: Value| {
        properties.insert(name.to_owned(), value);
    };
    set("TableName", json!(name));
    let definitions = input
        .attribute_definitions()
        .iter()
        .map(ddb_runtime::__private::tools::attribute_definition);
    set("AttributeDefinitions", definitions.collect());
    set("KeySchema", key_schema(input.key_schema()));
    let throughput = provisioned_throughput(deployment.billing);
    let settings = deployment.settings_of(table);
    let on_demand = deployment.billing == Billing::OnDemand;
    let globals = input.global_secondary_indexes().iter().map(|index| {
        let mut global = json!({
            "IndexName": index.index_name(),
            "KeySchema": key_schema(index.key_schema()),
            "Projection": projection(index.projection()),
        });
        if let Some(throughput) = &throughput {
            global["ProvisionedThroughput"] = throughput.clone();
        }
        let index_name = index.index_name();
        if let Some(units) = settings.max_throughput_of(index_name).filter(|_| on_demand) {
            global["OnDemandThroughput"] = on_demand_throughput(units);
        }
        if let Some(units) = settings.warm_throughput_of(index_name) {
            global["WarmThroughput"] = warm_throughput(units);
        }
        global
    });
    let globals: Vec<Value> = globals.collect();
    if !globals.is_empty() {
        set("GlobalSecondaryIndexes", globals.into());
    }
    let locals: Vec<Value> = input
        .local_secondary_indexes()
        .iter()
        .map(|index| {
            json!({
                "IndexName": index.index_name(),
                "KeySchema": key_schema(index.key_schema()),
                "Projection": projection(index.projection()),
            })
        })
        .collect();
    if !locals.is_empty() {
        set("LocalSecondaryIndexes", locals.into());
    }
    let vectors: Vec<Value> = input.vector_indexes().iter().map(vector_index).collect();
    if !vectors.is_empty() {
        set("VectorIndexes", vectors.into());
    }
    set("BillingMode", json!(deployment.billing.as_str()));
    if let Some(throughput) = throughput {
        set("ProvisionedThroughput", throughput);
    }
    if let Some(view) = table.stream {
        set(
            "StreamSpecification",
            json!({ "StreamViewType": view.as_str() }),
        );
    }
    if let Some(attribute) = table.ttl {
        let ttl = json!({ "AttributeName": attribute, "Enabled": true });
        set("TimeToLiveSpecification", ttl);
    }
    let mut recovery = json!({ "PointInTimeRecoveryEnabled": deployment.point_in_time_recovery });
    if let Some(days) = table
        .recovery_period_days
        .filter(|_| deployment.point_in_time_recovery)
    {
        recovery["RecoveryPeriodInDays"] = json!(days);
    }
    set("PointInTimeRecoverySpecification", recovery);
    set(
        "DeletionProtectionEnabled",
        json!(deployment.deletion_protection),
    );
    if table.table_class != TableClass::Standard {
        set("TableClass", json!(table.table_class.as_str()));
    }
    if let Some(key) = settings.kms_key_id() {
        let sse = json!({ "SSEEnabled": true, "SSEType": "KMS", "KMSMasterKeyId": key });
        set("SSESpecification", sse);
    }
    if !settings.tags().is_empty() {
        let tags = settings
            .tags()
            .iter()
            .map(|(key, value)| json!({ "Key": key, "Value": value }));
        set("Tags", tags.collect());
    }
    if let Some(units) = settings.table_max_throughput().filter(|_| on_demand) {
        set("OnDemandThroughput", on_demand_throughput(units));
    }
    if let Some(units) = settings.table_warm_throughput() {
        set("WarmThroughput", warm_throughput(units));
    }
    if let Some(mode) = table.contributor_insights {
        let insights = json!({ "Enabled": true, "Mode": mode.as_str() });
        set("ContributorInsightsSpecification", insights);
    }
    if let Some(policy) = settings.resource_policy_document() {
        // A document `TableSettings::check` refuses is written as text.
        let document = serde_json::from_str(policy).unwrap_or_else(|_| json!(policy));
        set("ResourcePolicy", json!({ "PolicyDocument": document }));
    }
    Value::Object(properties)
}

/// CloudFormation's `OnDemandThroughput` of `units`.
fn on_demand_throughput(units: Units) -> Value {
    json!({ "MaxReadRequestUnits": units.read, "MaxWriteRequestUnits": units.write })
}

/// CloudFormation's `WarmThroughput` of `units`.
fn warm_throughput(units: Units) -> Value {
    json!({ "ReadUnitsPerSecond": units.read, "WriteUnitsPerSecond": units.write })
}

fn provisioned_throughput(billing: Billing) -> Option<Value> {
    match billing {
        Billing::OnDemand => None,
        Billing::Provisioned { read, write } => Some(json!({
            "ReadCapacityUnits": read,
            "WriteCapacityUnits": write,
        })),
    }
}

fn vector_index(index: &VectorIndex) -> Value {
    let mut value = json!({
        "IndexName": index.index_name(),
        "VectorAttribute": {
            "AttributeName": index.vector_attribute().map(|a| a.attribute_name()),
        },
        "Dimensions": index.dimensions(),
        "DistanceFunction": index.distance_function().as_str(),
        "Projection": projection(index.projection()),
    });
    let search: Vec<Value> = index
        .search_schema()
        .iter()
        .map(|e| {
            json!({
                "AttributeName": e.attribute_name(),
                "SearchSchemaElementType": e.search_schema_element_type().as_str(),
            })
        })
        .collect();
    if !search.is_empty() {
        value["SearchSchema"] = search.into();
    }
    value
}
