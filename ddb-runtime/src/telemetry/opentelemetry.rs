//! The registry's string[] attributes, which `tracing` fields cannot hold:
//! set on the OpenTelemetry span through `tracing-opentelemetry`.

use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder;
use aws_sdk_dynamodb::types::{Capacity as TableCapacity, ConsumedCapacity};
use opentelemetry::{Array, StringValue, Value};
use serde_json::{Map, Value as Json};
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// `aws.dynamodb.table_names`: each table the request names.
pub(super) fn table_names(span: &tracing::Span, tables: &[&str]) {
    let names = tables.iter().map(|t| StringValue::from(t.to_string()));
    span.set_attribute(
        "aws.dynamodb.table_names",
        Value::Array(Array::String(names.collect())),
    );
}

/// `aws.dynamodb.consumed_capacity`: each `ConsumedCapacity` of the
/// answer, serialized as DynamoDB's JSON writes it.
pub(super) fn consumed_capacity(span: &tracing::Span, capacity: &[ConsumedCapacity]) {
    let each = capacity.iter().map(|c| Json::Object(consumed(c)));
    json_items(span, "aws.dynamodb.consumed_capacity", each);
}

/// What a CreateTable sends that its span records: each index it creates,
/// in `aws.dynamodb.global_secondary_indexes` and `local_secondary_indexes`.
pub(crate) fn create_table_sent(input: &CreateTableInputBuilder, span: &tracing::Span) {
    let globals = input.get_global_secondary_indexes().iter().flatten();
    let globals = globals.map(super::table_schema::global_index);
    json_items(span, "aws.dynamodb.global_secondary_indexes", globals);
    let locals = input.get_local_secondary_indexes().iter().flatten();
    let locals = locals.map(super::table_schema::local_index);
    json_items(span, "aws.dynamodb.local_secondary_indexes", locals);
}

/// What an UpdateTable sends that its span records: the attributes it
/// defines and each change of a global index, in
/// `aws.dynamodb.attribute_definitions` and `global_secondary_index_updates`.
pub(crate) fn update_table_sent(input: &UpdateTableInputBuilder, span: &tracing::Span) {
    let definitions = input.get_attribute_definitions().iter().flatten();
    let definitions = definitions.map(crate::schema_json::attribute_definition);
    json_items(span, "aws.dynamodb.attribute_definitions", definitions);
    let updates = input.get_global_secondary_index_updates().iter().flatten();
    let updates = updates.map(super::table_schema::index_update);
    json_items(span, "aws.dynamodb.global_secondary_index_updates", updates);
}

/// For a table operation whose request the conventions record nothing of.
pub(crate) fn nothing_sent<T>(_: &T, _: &tracing::Span) {}

/// A string[] attribute of each of `items` as JSON; none when there are no
/// items, as when the request sends none.
fn json_items(span: &tracing::Span, name: &'static str, items: impl Iterator<Item = Json>) {
    let each: Vec<StringValue> = items.map(|item| item.to_string().into()).collect();
    if !each.is_empty() {
        span.set_attribute(name, Value::Array(Array::String(each)));
    }
}

/// One `ConsumedCapacity` in DynamoDB's JSON shape.
fn consumed(capacity: &ConsumedCapacity) -> Map<String, Json> {
    let mut json = Map::new();
    if let Some(table) = &capacity.table_name {
        json.insert("TableName".into(), table.as_str().into());
    }
    units(
        &mut json,
        capacity.capacity_units,
        capacity.read_capacity_units,
        capacity.write_capacity_units,
    );
    if let Some(table) = &capacity.table {
        json.insert("Table".into(), Json::Object(of_resource(table)));
    }
    for (key, indexes) in [
        ("GlobalSecondaryIndexes", &capacity.global_secondary_indexes),
        ("LocalSecondaryIndexes", &capacity.local_secondary_indexes),
    ] {
        if let Some(indexes) = indexes {
            let each = indexes
                .iter()
                .map(|(name, c)| (name.clone(), Json::Object(of_resource(c))));
            json.insert(key.into(), Json::Object(each.collect()));
        }
    }
    json
}

/// A table's or index's share.
fn of_resource(capacity: &TableCapacity) -> Map<String, Json> {
    let mut json = Map::new();
    units(
        &mut json,
        capacity.capacity_units,
        capacity.read_capacity_units,
        capacity.write_capacity_units,
    );
    json
}

fn units(json: &mut Map<String, Json>, total: Option<f64>, read: Option<f64>, write: Option<f64>) {
    for (key, units) in [
        ("CapacityUnits", total),
        ("ReadCapacityUnits", read),
        ("WriteCapacityUnits", write),
    ] {
        if let Some(units) = units {
            json.insert(key.into(), units.into());
        }
    }
}
