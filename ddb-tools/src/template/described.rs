//! A table as a template declares it, in DescribeTable's types: what the
//! comparison behind `plan_sync` reads.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndexDescription, KeySchemaElement, KeyType,
    LocalSecondaryIndexDescription, Projection, ProjectionType, ScalarAttributeType,
    SearchSchemaElement, SearchSchemaElementType, StreamSpecification, StreamViewType,
    TableDescription, VectorAttributeDefinition, VectorDistanceFunction, VectorIndexDescription,
};
use aws_sdk_dynamodb::types::{
    BillingMode, BillingModeSummary, GlobalSecondaryIndexWarmThroughputDescription,
    GlobalTableWitnessDescription, MultiRegionConsistency, OnDemandThroughput, ReplicaDescription,
    SseDescription, SseType, TableClass, TableClassSummary, TableWarmThroughputDescription,
};
use serde_json::Value;

use ddb_runtime::__private::tools::Observed;

/// A table as a template declares it: its description, its time to live
/// (on, and the attribute) and the settings DescribeTable does not give.
pub(super) type Described = (TableDescription, (bool, Option<String>), Observed);

/// A table resource's CloudFormation `Properties` as a description, and its
/// time to live (on, and the attribute). A property that is not a literal
/// (an intrinsic function) reads as absent: the comparison reports what it
/// then lacks.
pub(super) fn describe(properties: &Value) -> Result<Described, String> {
    let globals = list(&properties["GlobalSecondaryIndexes"])
        .map(|index| {
            let warm = &index["WarmThroughput"];
            let warm = (!warm.is_null()).then(|| {
                GlobalSecondaryIndexWarmThroughputDescription::builder()
                    .set_read_units_per_second(number(&warm["ReadUnitsPerSecond"]))
                    .set_write_units_per_second(number(&warm["WriteUnitsPerSecond"]))
                    .build()
            });
            Ok(GlobalSecondaryIndexDescription::builder()
                .set_index_name(text(&index["IndexName"]))
                .set_key_schema(Some(key_schema(&index["KeySchema"])?))
                .projection(projection(&index["Projection"]))
                .set_on_demand_throughput(on_demand(&index["OnDemandThroughput"]))
                .set_warm_throughput(warm)
                .build())
        })
        .collect::<Result<Vec<_>, String>>()?;
    let locals = list(&properties["LocalSecondaryIndexes"])
        .map(|index| {
            Ok(LocalSecondaryIndexDescription::builder()
                .set_index_name(text(&index["IndexName"]))
                .set_key_schema(Some(key_schema(&index["KeySchema"])?))
                .projection(projection(&index["Projection"]))
                .build())
        })
        .collect::<Result<Vec<_>, String>>()?;
    let vectors = list(&properties["VectorIndexes"])
        .map(vector_index)
        .collect::<Result<Vec<_>, String>>()?;
    let definitions = list(&properties["AttributeDefinitions"])
        .map(|definition| {
            AttributeDefinition::builder()
                .set_attribute_name(text(&definition["AttributeName"]))
                .set_attribute_type(
                    text(&definition["AttributeType"])
                        .map(|t| ScalarAttributeType::from(t.as_str())),
                )
                .build()
                .map_err(|_| {
                    "an AttributeDefinitions element lacks AttributeName or AttributeType"
                        .to_owned()
                })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let stream = match text(&properties["StreamSpecification"]["StreamViewType"]) {
        Some(view) => Some(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::from(view.as_str()))
                .build()
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    let class = text(&properties["TableClass"]).map(|c| {
        TableClassSummary::builder()
            .table_class(TableClass::from(c.as_str()))
            .build()
    });
    let sse = &properties["SSESpecification"];
    let sse = is_true(&sse["SSEEnabled"]).then(|| {
        let kind = text(&sse["SSEType"]).unwrap_or_else(|| "KMS".to_owned());
        SseDescription::builder()
            .sse_type(SseType::from(kind.as_str()))
            .set_kms_master_key_arn(text(&sse["KMSMasterKeyId"]))
            .build()
    });
    let warm = &properties["WarmThroughput"];
    let warm = (!warm.is_null()).then(|| {
        TableWarmThroughputDescription::builder()
            .set_read_units_per_second(number(&warm["ReadUnitsPerSecond"]))
            .set_write_units_per_second(number(&warm["WriteUnitsPerSecond"]))
            .build()
    });
    let description = TableDescription::builder()
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema(&properties["KeySchema"])?))
        .set_global_secondary_indexes(Some(globals))
        .set_local_secondary_indexes(Some(locals))
        .set_vector_indexes(Some(vectors))
        .set_stream_specification(stream)
        .set_table_class_summary(class)
        .set_sse_description(sse)
        .set_on_demand_throughput(on_demand(&properties["OnDemandThroughput"]))
        .set_warm_throughput(warm)
        .set_billing_mode_summary(text(&properties["BillingMode"]).map(|mode| {
            BillingModeSummary::builder()
                .billing_mode(BillingMode::from(mode.as_str()))
                .build()
        }))
        .set_replicas(regions(&properties["Replicas"], |region| {
            ReplicaDescription::builder().region_name(region).build()
        }))
        .set_global_table_witnesses(regions(&properties["GlobalTableWitnesses"], |region| {
            GlobalTableWitnessDescription::builder()
                .region_name(region)
                .build()
        }))
        .set_multi_region_consistency(
            text(&properties["MultiRegionConsistency"])
                .map(|mode| MultiRegionConsistency::from(mode.as_str())),
        )
        .build();
    let ttl = &properties["TimeToLiveSpecification"];
    let time_to_live = (is_true(&ttl["Enabled"]), text(&ttl["AttributeName"]));
    Ok((description, time_to_live, observed(properties)))
}

/// A global table's replicas in other Regions, or its witnesses, as
/// DescribeTable lists them (`build` makes one of a Region): the Regions
/// given literally (the stack's own is a reference).
fn regions<T>(listed: &Value, build: impl Fn(String) -> T) -> Option<Vec<T>> {
    let regions: Vec<T> = list(listed)
        .filter_map(|entry| text(&entry["Region"]))
        .map(build)
        .collect();
    (!regions.is_empty()).then_some(regions)
}

/// What a template declares of the settings DescribeTable does not give.
fn observed(properties: &Value) -> Observed {
    let recovery = &properties["PointInTimeRecoverySpecification"];
    let days = number(&recovery["RecoveryPeriodInDays"]).and_then(|d| i32::try_from(d).ok());
    let tags = list(&properties["Tags"])
        .filter_map(|tag| Some((text(&tag["Key"])?, text(&tag["Value"]).unwrap_or_default())))
        .collect();
    let insights = &properties["ContributorInsightsSpecification"];
    let policy = match &properties["ResourcePolicy"]["PolicyDocument"] {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        document => Some(document.to_string()),
    };
    Observed {
        recovery: Some((is_true(&recovery["PointInTimeRecoveryEnabled"]), days)),
        tags: Some(tags),
        contributor_insights: Some((is_true(&insights["Enabled"]), text(&insights["Mode"]))),
        resource_policy: Some(policy),
    }
}

/// A CloudFormation `OnDemandThroughput`.
fn on_demand(value: &Value) -> Option<OnDemandThroughput> {
    (!value.is_null()).then(|| {
        OnDemandThroughput::builder()
            .set_max_read_request_units(number(&value["MaxReadRequestUnits"]))
            .set_max_write_request_units(number(&value["MaxWriteRequestUnits"]))
            .build()
    })
}

fn list(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// `true`, also as text (`"true"`, as YAML templates often write it).
pub(super) fn is_true(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::String(s) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// A number, also as YAML or JSON text (`"1024"`).
fn number(value: &Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
}

fn key_schema(value: &Value) -> Result<Vec<KeySchemaElement>, String> {
    list(value)
        .map(|element| {
            KeySchemaElement::builder()
                .set_attribute_name(text(&element["AttributeName"]))
                .set_key_type(text(&element["KeyType"]).map(|k| KeyType::from(k.as_str())))
                .build()
                .map_err(|_| "a KeySchema element lacks AttributeName or KeyType".to_owned())
        })
        .collect()
}

fn projection(value: &Value) -> Projection {
    let listed: Vec<String> = list(&value["NonKeyAttributes"]).filter_map(text).collect();
    Projection::builder()
        .set_projection_type(
            text(&value["ProjectionType"]).map(|t| ProjectionType::from(t.as_str())),
        )
        .set_non_key_attributes((!listed.is_empty()).then_some(listed))
        .build()
}

fn vector_index(index: &Value) -> Result<VectorIndexDescription, String> {
    let search = list(&index["SearchSchema"])
        .map(|element| {
            SearchSchemaElement::builder()
                .set_attribute_name(text(&element["AttributeName"]))
                .set_search_schema_element_type(
                    text(&element["SearchSchemaElementType"])
                        .map(|t| SearchSchemaElementType::from(t.as_str())),
                )
                .build()
                .map_err(|_| {
                    "a SearchSchema element lacks AttributeName or SearchSchemaElementType"
                        .to_owned()
                })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let vector = match text(&index["VectorAttribute"]["AttributeName"]) {
        Some(name) => Some(
            VectorAttributeDefinition::builder()
                .attribute_name(name)
                .build()
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    Ok(VectorIndexDescription::builder()
        .set_index_name(text(&index["IndexName"]))
        .set_vector_attribute(vector)
        .set_dimensions(number(&index["Dimensions"]))
        .set_distance_function(
            text(&index["DistanceFunction"]).map(|d| VectorDistanceFunction::from(d.as_str())),
        )
        .set_search_schema((!search.is_empty()).then_some(search))
        .projection(projection(&index["Projection"]))
        .build())
}
