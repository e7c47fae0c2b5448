//! The access-pattern report: every GetItem, query, vector search and scan
//! the code declares.

use std::fmt::Write;

use ddb_runtime::model::{
    EntitySchema, IndexKind, KeyDef, MultiAttributeKey, MultiRegionConsistency, Part, TableDef,
    Template,
};

fn index_name(key: &KeyDef) -> &'static str {
    key.index.unwrap_or("table")
}

fn attribute_names(table: &TableDef, key: &KeyDef) -> (&'static str, Option<&'static str>) {
    match key.index.and_then(|name| table.index(name)) {
        Some(index) => (index.pk.name, index.sk.map(|a| a.name)),
        None => (table.pk.name, table.sk.map(|a| a.name)),
    }
}

/// The template as declared: `CUSTOMER#{customer_id}`.
pub(super) fn template_text(template: &Template) -> String {
    let mut text = String::new();
    for part in template.parts {
        match part {
            Part::Literal(literal) => text.push_str(literal),
            Part::Field(field) => {
                let _ = write!(text, "{{{field}}}");
            }
        }
    }
    text
}

/// The key condition of the key's query: the partition key equal to its
/// template, the sort key narrowed to the entity by its literal prefix.
fn key_condition(table: &TableDef, key: &KeyDef) -> String {
    let (pk_name, sk_name) = attribute_names(table, key);
    let mut condition = format!("{pk_name} = {}", template_text(&key.pk));
    if key.shards > 1 {
        let _ = write!(condition, "#<shard 0..{}>", key.shards - 1);
    }
    if let (Some(sk), Some(sk_name)) = (key.sk, sk_name) {
        if sk.is_constant() {
            let _ = write!(condition, ", {sk_name} = {}", sk.source);
        } else if !sk.literal_prefix().is_empty() {
            let _ = write!(condition, ", {sk_name} begins_with {}", sk.literal_prefix());
        }
    }
    condition
}

/// `customerId = {customer_id}, status = {status}, sorted by placedAt, orderId`.
fn multi_attribute_condition(entity: &EntitySchema, key: &MultiAttributeKey) -> String {
    let equal: Vec<String> = key
        .pk
        .iter()
        .map(|field| format!("{} = {{{field}}}", entity.attribute_of(field)))
        .collect();
    let mut condition = equal.join(", ");
    if !key.sk.is_empty() {
        let sorted: Vec<&str> = key.sk.iter().map(|f| entity.attribute_of(f)).collect();
        let _ = write!(condition, ", sorted by {}", sorted.join(", "));
    }
    condition
}

fn consistency(table: &TableDef, key: &KeyDef) -> &'static str {
    match key.index.and_then(|name| table.index(name)) {
        Some(index) if index.kind == IndexKind::Global => "eventual",
        _ => "strong or eventual",
    }
}

/// The access-pattern report of a table's entities, as Markdown: one row per
/// GetItem, per declared query and vector search, and per declared scan
/// (entity, pattern, operation, index, key condition, consistency), then
/// each entity's write amplification, and for a global table which of
/// ddb's guarantees hold across Regions in its consistency mode. A scan's row says what it costs: it
/// reads every item of the table, so its cost grows with the table.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// use ddb_runtime::Entity;
/// let report = ddb_tools::access_pattern_report(&[&Customer::SCHEMA]);
/// assert!(report.contains("| Customer | get | GetItem | table | PK = CUSTOMER#{customer_id}, SK = PROFILE | strong or eventual |"));
/// ```
pub fn access_pattern_report(entities: &[&EntitySchema]) -> String {
    let mut out = String::new();
    out.push_str("| Entity | Pattern | Operation | Index | Key condition | Consistency |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for entity in entities {
        write_access_patterns(&mut out, entity);
    }
    out.push_str("\nWrite amplification (indexes one write of the entity updates):\n\n");
    for entity in entities {
        write_amplification(&mut out, entity);
    }
    write_replication(&mut out, entities);
    out
}

/// What holds across Regions, for each global table among the entities'.
fn write_replication(out: &mut String, entities: &[&EntitySchema]) {
    let mut tables: Vec<&TableDef> = Vec::new();
    for entity in entities {
        let table = entity.table;
        let global = table.multi_region_consistency.is_some();
        if global && !tables.iter().any(|t| t.name == table.name) {
            tables.push(table);
        }
    }
    if tables.is_empty() {
        return;
    }
    out.push_str("\nReplication (global tables):\n\n");
    for table in tables {
        let said = match (table.multi_region_consistency, table.single_region_writes) {
            (Some(MultiRegionConsistency::Strong), _) => "strong: every condition (version checks, create, upsert) holds across Regions; DynamoDB runs no transaction, so exactly-once writes, unique values and idempotency keys are refused; a write meeting another Region's concurrent write fails with ReplicatedWriteConflict, which is retried",
            (_, true) => "eventual, each item written in one Region: conditions, unique values and idempotency keys hold while every write of an item goes through one Region; other Regions see writes after replication",
            _ => "eventual: conditions (version checks, create, upsert) are checked in the writing Region only and last writer wins across Regions; unique values are refused at compile time and idempotency keys at send; strongly consistent reads see the Region's own writes",
        };
        let _ = writeln!(out, "- {}: {said}", table.name);
    }
}

/// The entity's rows of the report: its GetItem, then each declared query.
fn write_access_patterns(out: &mut String, entity: &EntitySchema) {
    let table = entity.table;
    let get = get_item_key(entity);
    let _ = writeln!(
        out,
        "| {} | get | GetItem | table | {get} | strong or eventual |",
        entity.entity_type
    );
    for key in entity.keys {
        let Some(query) = key.query else { continue };
        let operation = if key.shards > 1 {
            format!("Query ×{} (sharded)", key.shards)
        } else {
            "Query".to_owned()
        };
        let _ = writeln!(
            out,
            "| {} | {query} | {operation} | {} | {} | {} |",
            entity.entity_type,
            index_name(key),
            key_condition(table, key),
            consistency(table, key)
        );
    }
    for key in entity.multi_attribute_keys {
        let Some(query) = key.query else { continue };
        let _ = writeln!(
            out,
            "| {} | {query} | Query | {} | {} | eventual |",
            entity.entity_type,
            key.index,
            multi_attribute_condition(entity, key)
        );
    }
    for search in entity.searches {
        let Some(index) = table.vector_index(search.index) else {
            continue;
        };
        let hash = index.hash.map(|h| format!("{} = :value, ", h.name));
        let _ = writeln!(
            out,
            "| {} | {} | SearchVectors | {} | {}top k by {} ({} dimensions) | eventual |",
            entity.entity_type,
            search.name,
            index.name,
            hash.unwrap_or_default(),
            index.distance.as_str(),
            index.dimensions
        );
    }
    if entity.scan {
        let _ = writeln!(
            out,
            "| {} | scan | Scan (grows with the table: reads every item of every entity) | table | none: `{} = {}` filtered after reading | strong or eventual |",
            entity.entity_type, table.entity_attribute, entity.entity_type
        );
    }
}

/// The primary key a GetItem of the entity names: each key attribute equal
/// to its template.
fn get_item_key(entity: &EntitySchema) -> String {
    let primary = entity.primary();
    let (pk_name, sk_name) = attribute_names(entity.table, primary);
    let mut get = format!("{pk_name} = {}", template_text(&primary.pk));
    if let (Some(sk), Some(sk_name)) = (primary.sk, sk_name) {
        let _ = write!(get, ", {sk_name} = {}", template_text(&sk));
    }
    get
}

/// The entity's line of the write amplification: the indexes one write of it
/// updates, and its time to live.
fn write_amplification(out: &mut String, entity: &EntitySchema) {
    let indexes: Vec<String> = entity
        .keys
        .iter()
        .filter_map(index_written)
        .chain(
            entity
                .multi_attribute_keys
                .iter()
                .map(|key| format!("{} (multi-attribute key, kept by DynamoDB)", key.index)),
        )
        .collect();
    let ttl = time_to_live_note(entity);
    let _ = writeln!(
        out,
        "- {} (table `{}`): {} {}{}{ttl}",
        entity.entity_type,
        entity.table.name,
        indexes.len(),
        if indexes.len() == 1 {
            "index"
        } else {
            "indexes"
        },
        if indexes.is_empty() {
            String::new()
        } else {
            format!(": {}", indexes.join(", "))
        }
    );
}

/// The index a write of the key updates, with whether it is sparse or
/// sharded; `None` for the table's own key.
fn index_written(key: &KeyDef) -> Option<String> {
    let name = key.index?;
    let mut notes = Vec::new();
    if let Some(membership) = &key.membership {
        notes.push(format!("sparse on {}", membership.reads.join(", ")));
    }
    if key.shards > 1 {
        notes.push(format!("{} shards", key.shards));
    }
    Some(if notes.is_empty() {
        name.to_owned()
    } else {
        format!("{name} ({})", notes.join(", "))
    })
}

/// `; time to live ...` when the entity has a field stored under the table's
/// time-to-live attribute, else nothing.
fn time_to_live_note(entity: &EntitySchema) -> String {
    entity
        .table
        .ttl
        .filter(|ttl| {
            entity
                .fields
                .iter()
                .any(|f| f.role.ttl && f.attribute == *ttl)
        })
        .map(|ttl| format!("; time to live `{ttl}` (DynamoDB deletes expired items)"))
        .unwrap_or_default()
}
