//! A table's schema, as the SDK types it, in DynamoDB's JSON shape: the
//! shape CloudFormation's table properties and OpenTelemetry's schema
//! attributes take too.

use aws_sdk_dynamodb::types::{AttributeDefinition, KeySchemaElement, Projection};
use serde_json::{json, Value};

/// `KeySchema`: each key attribute's name and type (`HASH`, `RANGE`).
pub fn key_schema(schema: &[KeySchemaElement]) -> Value {
    schema
        .iter()
        .map(|k| json!({ "AttributeName": k.attribute_name(), "KeyType": k.key_type().as_str() }))
        .collect()
}

/// `Projection`: its type (`ALL` when none is given, DynamoDB's default
/// for a table's own reads) and the attributes an `INCLUDE` lists.
pub fn projection(projection: Option<&Projection>) -> Value {
    let kind = projection
        .and_then(Projection::projection_type)
        .map_or("ALL", |t| t.as_str());
    let mut value = json!({ "ProjectionType": kind });
    if let Some(listed) = projection.map(Projection::non_key_attributes) {
        if !listed.is_empty() {
            value["NonKeyAttributes"] = json!(listed);
        }
    }
    value
}

/// One of `AttributeDefinitions`: an attribute's name and scalar type.
pub fn attribute_definition(definition: &AttributeDefinition) -> Value {
    json!({
        "AttributeName": definition.attribute_name(),
        "AttributeType": definition.attribute_type().as_str(),
    })
}
