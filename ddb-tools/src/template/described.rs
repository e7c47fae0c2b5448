//! A table as a template declares it, in DescribeTable's types: what the
//! comparison behind `plan_sync` reads.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndexDescription, KeySchemaElement, KeyType,
    LocalSecondaryIndexDescription, Projection, ProjectionType, ScalarAttributeType,
    SearchSchemaElement, SearchSchemaElementType, StreamSpecification, StreamViewType,
    TableDescription, VectorAttributeDefinition, VectorDistanceFunction, VectorIndexDescription,
};
use serde_json::Value;

/// A table resource's CloudFormation `Properties` as a description, and its
/// time to live (on, and the attribute). A property that is not a literal
/// (an intrinsic function) reads as absent: the comparison reports what it
/// then lacks.
pub(super) fn describe(
    properties: &Value,
) -> Result<(TableDescription, (bool, Option<String>)), String> {
    let globals = list(&properties["GlobalSecondaryIndexes"])
        .map(|index| {
            Ok(GlobalSecondaryIndexDescription::builder()
                .set_index_name(text(&index["IndexName"]))
                .set_key_schema(Some(key_schema(&index["KeySchema"])?))
                .projection(projection(&index["Projection"]))
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
    let description = TableDescription::builder()
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema(&properties["KeySchema"])?))
        .set_global_secondary_indexes(Some(globals))
        .set_local_secondary_indexes(Some(locals))
        .set_vector_indexes(Some(vectors))
        .set_stream_specification(stream)
        .build();
    let ttl = &properties["TimeToLiveSpecification"];
    let time_to_live = (is_true(&ttl["Enabled"]), text(&ttl["AttributeName"]));
    Ok((description, time_to_live))
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
