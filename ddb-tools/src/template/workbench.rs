//! The NoSQL Workbench model of a design (format 3.0): each table with its
//! key and non-key attributes and global indexes, one facet per entity with
//! its key templates as the key aliases, and sample items written by ddb,
//! so their keys are the keys the code writes.

use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde_json::{json, Map, Value};

use ddb_runtime::model::{EntitySchema, IndexKind, KeyAttribute, TableDef};
use ddb_runtime::Item;

/// A NoSQL Workbench data model named `name` of the tables `entities` are
/// stored in: per table its primary key, its non-key attributes (the
/// declared key attributes of its global indexes, and every attribute of
/// the samples, typed as stored), its global indexes with their
/// projections, and a facet per entity whose key aliases are the entity's
/// key templates (`CUSTOMER#{customer_id}`) and whose data are the
/// entity's `samples` in DynamoDB JSON, as stored. Write it to a file and
/// import it in Workbench (*Import data model*).
///
/// Workbench shows a global index by one partition and one sort
/// attribute, and no local or vector index: the model leaves those out and
/// its description names them.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// struct Ecommerce;
///
/// #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// struct Customer { customer_id: String, name: String }
///
/// use ddb_runtime::Entity;
/// let sample = Customer { customer_id: "123".into(), name: "Ada".into() };
/// let model = ddb_tools::workbench("Store", &[&Customer::SCHEMA], &[(&Customer::SCHEMA, sample.to_item()?)]);
/// let facet = &model["DataModel"][0]["TableFacets"][0];
/// assert_eq!(facet["KeyAttributeAlias"]["PartitionKeyAlias"], "CUSTOMER#{customer_id}");
/// assert_eq!(facet["TableData"][0]["PK"]["S"], "CUSTOMER#123");
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
pub fn workbench(
    name: &str,
    entities: &[&EntitySchema],
    samples: &[(&EntitySchema, Item)],
) -> Value {
    let mut tables: Vec<&TableDef> = Vec::new();
    for entity in entities {
        if !tables.iter().any(|t| t.name == entity.table.name) {
            tables.push(entity.table);
        }
    }
    let mut left_out: Vec<String> = Vec::new();
    let models: Vec<Value> = tables
        .iter()
        .map(|table| table_model(table, entities, samples, &mut left_out))
        .collect();
    let mut description = "Generated from the code's declarations.".to_owned();
    if !left_out.is_empty() {
        description.push_str(" Left out, as Workbench cannot show them: ");
        description.push_str(&left_out.join(", "));
        description.push('.');
    }
    let today = today();
    json!({
        "ModelName": name,
        "ModelMetadata": {
            "Author": "",
            "DateCreated": today,
            "DateLastModified": today,
            "Description": description,
            "AWSService": "Amazon DynamoDB",
            "Version": "3.0",
        },
        "DataModel": models,
    })
}

fn table_model(
    table: &TableDef,
    entities: &[&EntitySchema],
    samples: &[(&EntitySchema, Item)],
    left_out: &mut Vec<String>,
) -> Value {
    let is_table_key =
        |name: &str| name == table.pk.name || table.sk.is_some_and(|sk| sk.name == name);
    let mut attributes = Attributes::default();
    let mut globals = Vec::new();
    for index in table.indexes {
        let single = index.pk_more.is_empty() && index.sk_more.is_empty();
        match index.kind {
            IndexKind::Global if single => {
                for attribute in index.key_attributes().filter(|a| !is_table_key(a.name)) {
                    attributes.declare(attribute.name, attribute.ty.as_str());
                }
                globals.push(json!({
                    "IndexName": index.name,
                    "KeyAttributes": key_attributes(index.pk, index.sk),
                    "Projection": ddb_runtime::__private::tools::projection_json(Some(&ddb_runtime::__private::tools::projection(index, table))),
                }));
            }
            IndexKind::Global => left_out.push(format!("multi-attribute index {}", index.name)),
            IndexKind::Local => left_out.push(format!("local index {}", index.name)),
        }
    }
    left_out.extend(
        table
            .vector_indexes
            .iter()
            .map(|v| format!("vector index {}", v.name)),
    );
    let stored_here = entities.iter().filter(|e| e.table.name == table.name);
    let facets: Vec<Value> = stored_here
        .map(|entity| {
            let data: Vec<&Item> = samples
                .iter()
                .filter(|(schema, _)| {
                    schema.entity_type == entity.entity_type && schema.table.name == table.name
                })
                .map(|(_, item)| item)
                .collect();
            let mut names: Vec<String> = Vec::new();
            for item in &data {
                let mut keys: Vec<&String> = item.keys().filter(|k| !is_table_key(k)).collect();
                keys.sort();
                for key in keys {
                    attributes.declare(key, type_name(&item[key]));
                    if !names.contains(key) {
                        names.push(key.clone());
                    }
                }
            }
            let primary = entity.primary();
            let mut alias = json!({ "PartitionKeyAlias": primary.pk.source });
            if let Some(sk) = primary.sk {
                alias["SortKeyAlias"] = json!(sk.source);
            }
            json!({
                "FacetName": entity.entity_type,
                "KeyAttributeAlias": alias,
                "TableData": data.iter().map(|item| item_json(item)).collect::<Vec<_>>(),
                "NonKeyAttributes": names,
                "DataAccess": { "MySql": {} },
            })
        })
        .collect();
    left_out.extend(attributes.retyped.iter().cloned());
    json!({
        "TableName": table.name,
        "KeyAttributes": key_attributes(table.pk, table.sk),
        "NonKeyAttributes": attributes.declared,
        "TableFacets": facets,
        "GlobalSecondaryIndexes": globals,
        "DataAccess": { "MySql": {} },
        "BillingMode": "PAY_PER_REQUEST",
    })
}

/// The table's non-key attributes, each once, typed by its first use; and
/// the attributes the samples hold with another type too (Workbench types
/// an attribute once).
#[derive(Default)]
struct Attributes {
    declared: Vec<Value>,
    retyped: Vec<String>,
}

impl Attributes {
    fn declare(&mut self, name: &str, ty: &str) {
        match self.declared.iter().find(|a| a["AttributeName"] == name) {
            None => self
                .declared
                .push(json!({ "AttributeName": name, "AttributeType": ty })),
            Some(first) if first["AttributeType"] != ty => {
                let note = format!(
                    "the {ty} values of attribute {name} (typed {} in the model)",
                    first["AttributeType"].as_str().unwrap_or("")
                );
                if !self.retyped.contains(&note) {
                    self.retyped.push(note);
                }
            }
            Some(_) => {}
        }
    }
}

fn key_attributes(pk: KeyAttribute, sk: Option<KeyAttribute>) -> Value {
    let attribute =
        |a: KeyAttribute| json!({ "AttributeName": a.name, "AttributeType": a.ty.as_str() });
    let mut keys = json!({ "PartitionKey": attribute(pk) });
    if let Some(sk) = sk {
        keys["SortKey"] = attribute(sk);
    }
    keys
}

/// An attribute value's type, as DynamoDB JSON names it.
fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        _ => "S",
    }
}

fn item_json(item: &Item) -> Value {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let map: Map<String, Value> = names
        .into_iter()
        .map(|name| (name.clone(), value_json(&item[name])))
        .collect();
    Value::Object(map)
}

/// An attribute value in DynamoDB JSON (`{"S": "..."}`, numbers as text,
/// binary as base64).
fn value_json(value: &AttributeValue) -> Value {
    let base64 = |b: &aws_sdk_dynamodb::primitives::Blob| {
        base64::engine::general_purpose::STANDARD.encode(b.as_ref())
    };
    let inner = match value {
        AttributeValue::S(s) | AttributeValue::N(s) => json!(s),
        AttributeValue::B(b) => json!(base64(b)),
        AttributeValue::Bool(b) | AttributeValue::Null(b) => json!(b),
        AttributeValue::Ss(s) | AttributeValue::Ns(s) => json!(s),
        AttributeValue::Bs(bs) => bs.iter().map(base64).collect(),
        AttributeValue::L(items) => items.iter().map(value_json).collect(),
        AttributeValue::M(map) => {
            Value::Object(item_json(map).as_object().cloned().unwrap_or_default())
        }
        _ => Value::Null,
    };
    json!({ type_name(value): inner })
}

/// Today's date as Workbench writes it (`Dec 2, 2026, 12:00 AM`), in UTC.
fn today() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_date(seconds / 86_400);
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!("{} {day}, {year}, 12:00 AM", MONTHS[month as usize - 1])
}

/// The (year, month, day) of `days` since 1970-01-01 (Howard Hinnant's
/// civil-from-days algorithm).
fn civil_date(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates_of_known_days() {
        assert_eq!(super::civil_date(0), (1970, 1, 1));
        assert_eq!(super::civil_date(11_016), (2000, 2, 29));
        assert_eq!(super::civil_date(20_789), (2026, 12, 2));
    }
}
