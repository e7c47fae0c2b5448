//! The CloudFormation resource of a table replicated to other Regions
//! (`AWS::DynamoDB::GlobalTable`): the table's properties, with what
//! CloudFormation sets per Region moved into each replica.

use serde_json::{json, Map, Value};

use ddb_runtime::model::TableDef;
use ddb_runtime::schema::TableSettings;

/// The properties each replica carries rather than the global table.
const PER_REPLICA: [&str; 6] = [
    "PointInTimeRecoverySpecification",
    "DeletionProtectionEnabled",
    "TableClass",
    "Tags",
    "ContributorInsightsSpecification",
    "ResourcePolicy",
];

/// Whether `settings` replicate `table`: it is then a global table.
pub(super) fn is_global(table: &TableDef, settings: &TableSettings) -> bool {
    table.multi_region_consistency.is_some() && !settings.replica_regions().is_empty()
}

/// `properties`, an `AWS::DynamoDB::Table`'s, as an
/// `AWS::DynamoDB::GlobalTable`'s: one replica in the stack's Region and
/// one in each Region of `settings`, each with the table's settings, the
/// consistency mode, and the witness.
pub(super) fn global_properties(
    table: &TableDef,
    settings: &TableSettings,
    properties: Value,
) -> Value {
    let Value::Object(mut global) = properties else {
        return properties;
    };
    let mut replica = Map::new();
    for name in PER_REPLICA {
        if let Some(value) = global.remove(name) {
            replica.insert(name.to_owned(), value);
        }
    }
    if let Some(sse) = global.get_mut("SSESpecification") {
        if let Some(key) = sse.as_object_mut().and_then(|s| s.remove("KMSMasterKeyId")) {
            replica.insert("SSESpecification".into(), json!({ "KMSMasterKeyId": key }));
        }
    }
    split_on_demand(&mut global, &mut replica);
    split_provisioned(&mut global, &mut replica);
    let indexes = global
        .get_mut("GlobalSecondaryIndexes")
        .and_then(Value::as_array_mut);
    let replica_indexes: Vec<Value> = indexes
        .into_iter()
        .flatten()
        .filter_map(|index| {
            let index = index.as_object_mut()?;
            let mut on_replica = Map::new();
            split_on_demand(index, &mut on_replica);
            split_provisioned(index, &mut on_replica);
            (!on_replica.is_empty()).then(|| {
                on_replica.insert("IndexName".into(), index["IndexName"].clone());
                Value::Object(on_replica)
            })
        })
        .collect();
    if !replica_indexes.is_empty() {
        replica.insert("GlobalSecondaryIndexes".into(), replica_indexes.into());
    }
    let home = std::iter::once((json!({ "Ref": "AWS::Region" }), None));
    let others = settings
        .replica_regions()
        .iter()
        .map(|r| (json!(r), settings.replica_kms_key_of(r)));
    let replicas: Vec<Value> = home
        .chain(others)
        .map(|(region, key)| {
            let mut one = replica.clone();
            one.insert("Region".into(), region);
            // A KMS key is a key of one Region: each replica names its own.
            if let Some(key) = key {
                one.insert("SSESpecification".into(), json!({ "KMSMasterKeyId": key }));
            }
            Value::Object(one)
        })
        .collect();
    global.insert("Replicas".into(), replicas.into());
    if let Some(mode) = table.multi_region_consistency {
        global.insert("MultiRegionConsistency".into(), json!(mode.as_str()));
    }
    if let Some(witness) = settings.witness_region() {
        let witnesses = json!([{ "Region": witness }]);
        global.insert("GlobalTableWitnesses".into(), witnesses);
    }
    Value::Object(global)
}

/// An on-demand maximum: writes are the global table's, reads each
/// replica's.
fn split_on_demand(global: &mut Map<String, Value>, replica: &mut Map<String, Value>) {
    let Some(units) = global.remove("OnDemandThroughput") else {
        return;
    };
    let write = json!({ "MaxWriteRequestUnits": units["MaxWriteRequestUnits"] });
    global.insert("WriteOnDemandThroughputSettings".into(), write);
    let read = json!({ "MaxReadRequestUnits": units["MaxReadRequestUnits"] });
    replica.insert("ReadOnDemandThroughputSettings".into(), read);
}

/// Provisioned capacity: the writes the global table's (held at the
/// declared units by an auto scaling range of one value), the reads each
/// replica's.
fn split_provisioned(global: &mut Map<String, Value>, replica: &mut Map<String, Value>) {
    let Some(units) = global.remove("ProvisionedThroughput") else {
        return;
    };
    let write = &units["WriteCapacityUnits"];
    let scaling = json!({
        "MinCapacity": write,
        "MaxCapacity": write,
        "TargetTrackingScalingPolicyConfiguration": { "TargetValue": 70 },
    });
    let settings = json!({ "WriteCapacityAutoScalingSettings": scaling });
    global.insert("WriteProvisionedThroughputSettings".into(), settings);
    let read = json!({ "ReadCapacityUnits": units["ReadCapacityUnits"] });
    replica.insert("ReadProvisionedThroughputSettings".into(), read);
}

/// A global table's `Properties` read back as a table's: the replica in the
/// stack's Region (else the first) lends the table its settings, as
/// [`global_properties`] spread them.
pub(super) fn table_properties(global: &Value) -> Value {
    let Some(object) = global.as_object() else {
        return global.clone();
    };
    let mut table = object.clone();
    let replicas = object.get("Replicas").and_then(Value::as_array);
    let home = replicas.and_then(|all| {
        let stack = all
            .iter()
            .find(|r| r["Region"] == json!({ "Ref": "AWS::Region" }));
        stack.or_else(|| all.first())
    });
    let Some(Value::Object(replica)) = home else {
        return Value::Object(table);
    };
    for name in PER_REPLICA {
        if let Some(value) = replica.get(name) {
            table.insert(name.to_owned(), value.clone());
        }
    }
    if let (Some(key), Some(sse)) = (
        replica
            .get("SSESpecification")
            .and_then(|s| s.get("KMSMasterKeyId")),
        table.get_mut("SSESpecification"),
    ) {
        sse["KMSMasterKeyId"] = key.clone();
    }
    join_on_demand(&mut table, replica);
    let replica_indexes = replica
        .get("GlobalSecondaryIndexes")
        .and_then(Value::as_array);
    let indexes = table
        .get_mut("GlobalSecondaryIndexes")
        .and_then(Value::as_array_mut);
    for index in indexes.into_iter().flatten() {
        let on_replica = replica_indexes
            .into_iter()
            .flatten()
            .find(|r| r["IndexName"] == index["IndexName"]);
        if let (Some(index), Some(Value::Object(on_replica))) = (index.as_object_mut(), on_replica)
        {
            join_on_demand(index, on_replica);
        }
    }
    Value::Object(table)
}

/// The global table's write maximum and the replica's read maximum, as
/// one `OnDemandThroughput`.
fn join_on_demand(global: &mut Map<String, Value>, replica: &Map<String, Value>) {
    let write = global.remove("WriteOnDemandThroughputSettings");
    let read = replica.get("ReadOnDemandThroughputSettings");
    if let (Some(write), Some(read)) = (write, read) {
        let units = json!({
            "MaxReadRequestUnits": read["MaxReadRequestUnits"],
            "MaxWriteRequestUnits": write["MaxWriteRequestUnits"],
        });
        global.insert("OnDemandThroughput".into(), units);
    }
}
