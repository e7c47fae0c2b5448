//! What a CreateTable or UpdateTable sends of a table's indexes, each in
//! DynamoDB's JSON shape, as the registry's string[] attributes hold it.

use aws_sdk_dynamodb::types::{
    GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement, LocalSecondaryIndex,
    Projection, ProvisionedThroughput,
};
use serde_json::{json, Map, Value as Json};

use crate::schema_json::{key_schema, projection};

/// A global index CreateTable creates.
pub(super) fn global_index(index: &GlobalSecondaryIndex) -> Json {
    created(
        index.index_name(),
        index.key_schema(),
        index.projection(),
        index.provisioned_throughput(),
    )
}

/// A local index CreateTable creates.
pub(super) fn local_index(index: &LocalSecondaryIndex) -> Json {
    created(
        index.index_name(),
        index.key_schema(),
        index.projection(),
        None,
    )
}

/// One of UpdateTable's changes to a global index: `Create`, `Update` or
/// `Delete`, as sent.
pub(super) fn index_update(update: &GlobalSecondaryIndexUpdate) -> Json {
    let mut json = Map::new();
    if let Some(create) = update.create() {
        let index = created(
            create.index_name(),
            create.key_schema(),
            create.projection(),
            create.provisioned_throughput(),
        );
        json.insert("Create".into(), index);
    }
    if let Some(change) = update.update() {
        let mut index = Map::new();
        index.insert("IndexName".into(), change.index_name().into());
        if let Some(throughput) = change.provisioned_throughput() {
            index.insert("ProvisionedThroughput".into(), units(throughput));
        }
        json.insert("Update".into(), Json::Object(index));
    }
    if let Some(delete) = update.delete() {
        let index = json!({ "IndexName": delete.index_name() });
        json.insert("Delete".into(), index);
    }
    Json::Object(json)
}

/// An index as created: its name, key schema, projection and throughput.
fn created(
    name: &str,
    keys: &[KeySchemaElement],
    projected: Option<&Projection>,
    throughput: Option<&ProvisionedThroughput>,
) -> Json {
    let mut json = Map::new();
    json.insert("IndexName".into(), name.into());
    json.insert("KeySchema".into(), key_schema(keys));
    json.insert("Projection".into(), projection(projected));
    if let Some(throughput) = throughput {
        json.insert("ProvisionedThroughput".into(), units(throughput));
    }
    Json::Object(json)
}

fn units(throughput: &ProvisionedThroughput) -> Json {
    json!({
        "ReadCapacityUnits": throughput.read_capacity_units(),
        "WriteCapacityUnits": throughput.write_capacity_units(),
    })
}
