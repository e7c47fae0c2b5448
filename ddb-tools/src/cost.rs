//! What the access patterns cost, from sample items: the write units of one
//! write of each entity across the table and every index it touches, and
//! the read units of a page of each read pattern, by DynamoDB's rounding
//! (writes per 1 KB of the item, for an index of the item as the index
//! projects it; reads per 4 KB of a page's items, halved when eventually
//! consistent).

use std::fmt::Write;

use ddb_runtime::model::EntitySchema;
use ddb_runtime::write::item_size;
use ddb_runtime::Item;

/// The write units of writing one item: the table's, each index's, and
/// those of the guards of its unique values.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteCost {
    /// The table's units.
    pub table: f64,
    /// Each index the item is in, with its units.
    pub indexes: Vec<(&'static str, f64)>,
    /// For an entity with unique values, the units of the guard items a
    /// create writes with the item (one per value held, each under 1 KB);
    /// 0 otherwise.
    pub guards: f64,
    /// Whether a create is a TransactWriteItems (an entity with unique
    /// values), which DynamoDB bills twice.
    pub transactional: bool,
}

impl WriteCost {
    /// The units of creating the item: the table's, the indexes' and the
    /// guards' together, twice for an entity with unique values (its create
    /// is a TransactWriteItems, which DynamoDB bills twice).
    pub fn total(&self) -> f64 {
        let once = self.table + self.indexes.iter().map(|(_, units)| units).sum::<f64>();
        if self.transactional {
            2.0 * (once + self.guards)
        } else {
            once
        }
    }
}

const WRITE_UNIT: usize = 1024;
const READ_UNIT: usize = 4096;

/// The write units of putting `item` (a new item, or one replacing an item
/// of the same size), an item of `entity` as `to_item` writes it: one unit
/// per started KB in the table, and in each global or local index whose key
/// attributes the item holds, one per started KB of what the index projects.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// use ddb_runtime::Entity;
/// let item = Customer { customer_id: "123".into() }.to_item().unwrap();
/// let cost = ddb_tools::cost::write_cost(&Customer::SCHEMA, &item);
/// assert_eq!(cost.total(), 1.0);
/// ```
pub fn write_cost(entity: &EntitySchema, item: &Item) -> WriteCost {
    let table = entity.table;
    let indexes = table
        .indexes
        .iter()
        .filter(|index| index.key_attributes().all(|a| item.contains_key(a.name)))
        .map(|index| {
            let projected: Item = item
                .iter()
                .filter(|(name, _)| index.projects(table, name))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            (index.name, units(item_size(&projected), WRITE_UNIT))
        })
        .collect();
    let held = |u: &&ddb_runtime::model::UniqueDef| {
        matches!(
            ddb_runtime::__private::tools::unique_value_of(entity, u, item),
            Ok(Some(_))
        )
    };
    WriteCost {
        table: units(item_size(item), WRITE_UNIT),
        indexes,
        guards: entity.unique.iter().filter(held).count() as f64,
        transactional: !entity.unique.is_empty(),
    }
}

/// The read units of a page of `items` items the size of `item`: one per
/// started 4 KB of the page, halved for an eventually consistent read.
///
/// ```
/// let item: ddb_runtime::Item = [("PK".to_string(), aws_sdk_dynamodb::types::AttributeValue::S("X".repeat(98)))].into();
/// // 100 items of 100 bytes: 10,000 bytes, 3 units of 4 KB, halved.
/// assert_eq!(ddb_tools::cost::read_cost(&item, 100, false), 1.5);
/// ```
pub fn read_cost(item: &Item, items: usize, consistent: bool) -> f64 {
    let strong = units(item_size(item).saturating_mul(items.max(1)), READ_UNIT);
    if consistent {
        strong
    } else {
        strong / 2.0
    }
}

/// The size of `item`'s entry in vector index `index` of `table`: its
/// vector at 4 bytes a number, with the attribute's name, and the rest of
/// what the index holds by DynamoDB's item-size rule.
fn vector_entry_bytes(
    table: &ddb_runtime::model::TableDef,
    index: &ddb_runtime::model::VectorIndexDef,
    item: &Item,
) -> usize {
    let projected: Item = item
        .iter()
        .filter(|(name, _)| name.as_str() != index.vector && index.holds(table, name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    4 * index.dimensions as usize + index.vector.len() + item_size(&projected)
}

fn units(bytes: usize, unit: usize) -> f64 {
    bytes.div_ceil(unit).max(1) as f64
}

/// The cost section of the access-pattern report, from one sample item per
/// entity: each write's units across the table and its indexes, and a
/// page of `page` items for each read pattern.
pub fn cost_report(samples: &[(&EntitySchema, Item)], page: usize) -> String {
    let mut out = String::from("| Entity | Item size | Write (WCU) | Read a page of ");
    let _ = write!(
        out,
        "{page} (RCU, eventual / strong) |\n|---|---|---|---|\n"
    );
    for (entity, item) in samples {
        let cost = write_cost(entity, item);
        let mut parts = vec![format!("table {}", cost.table)];
        parts.extend(
            cost.indexes
                .iter()
                .map(|(name, units)| format!("{name} {units}")),
        );
        let _ = writeln!(
            out,
            "| {} | {} B | {} ({}) | {} / {} |",
            entity.rust_name,
            item_size(item),
            cost.total(),
            parts.join(" + "),
            read_cost(item, page, false),
            read_cost(item, page, true),
        );
    }
    out.push_str(
        "\nAn update that moves an item in an index costs that index twice (the old entry \
         deleted, the new one written); an exactly-once write (a transaction) costs twice.\n",
    );
    for (entity, item) in samples {
        for search in entity.searches {
            if let Some(index) = entity.table.vector_index(search.index) {
                let _ = writeln!(
                    out,
                    "\n{} searches vector index {} (`{}`): SearchVectors is billed by the bytes \
                     of the index entries it scans (`Searched::search_bytes`), not read units; an \
                     entry here is about {} bytes, and every write of an item with a vector \
                     writes its entry too.",
                    entity.rust_name,
                    index.name,
                    search.name,
                    vector_entry_bytes(entity.table, index, item),
                );
            }
        }
    }
    for (entity, item) in samples.iter().filter(|(e, _)| e.scan) {
        let _ = writeln!(
            out,
            "\n{} is scanned (`#[ddb(scan)]`): a Scan is billed for every item of table `{}` it \
             reads, of every entity, before any filter: 0.5 RCU eventual / 1 strong per 4 KB \
             of the table, {} / {} RCU per 1,000 items of this size; it grows with the table, \
             not with what it returns.",
            entity.rust_name,
            entity.table.name,
            read_cost(item, 1000, false),
            read_cost(item, 1000, true),
        );
    }
    for (entity, item) in samples.iter().filter(|(e, _)| !e.unique.is_empty()) {
        let _ = writeln!(
            out,
            "\n{} keeps {} unique value(s), each in a guard item (under 1 KB): its create is one \
             transaction, {} WCU here (the item and each guard, twice); a put or update that \
             changes k values adds 2k guard actions (2 WCU each), a delete one per value, and \
             each put, update or delete that keeps guards reads the item first (a consistent \
             GetItem).",
            entity.rust_name,
            entity.unique.len(),
            write_cost(entity, item).total(),
        );
    }
    out
}
