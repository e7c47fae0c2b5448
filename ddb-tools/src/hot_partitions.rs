//! The hot-partition report: which declared partition keys the throttles
//! DynamoDB reported point at, and whether write sharding would spread them.

use std::collections::BTreeMap;
use std::fmt::Write;

use ddb_runtime::model::{EntitySchema, IndexKind, KeyDef, TableDef};
use ddb_runtime::{Throttle, ThrottleLimit, ThrottledResource};

use crate::report::template_text;

/// The hot-partition report of throttles met on the table `entities` are
/// stored in, as Markdown: one row per throttled table or index, reason and
/// declared partition key there (the entity, its key template, how many
/// times the reason was given), and what would spread the load.
///
/// A `KeyRangeThroughputExceeded` reason is one partition key taking more
/// than its partition serves. Writes to a hot key of a global index spread
/// with write sharding (`shards = N` on the index): they go to N
/// partitions. Its reads spread only for a query that reads the whole key,
/// each shard for its share; a page-limited query reads up to a page from
/// each shard. A hot key of the table, or one item read over and over, is
/// not spread by sharding. The other reasons are the table's or index's
/// capacity, not one key's.
///
/// Collect the throttles from the errors that reached you
/// ([`Error::throttling_reasons`](ddb_runtime::Error::throttling_reasons)), and
/// pass the entities of the one table they are from: the report reads the
/// index from each throttle's ARN, not the table, whose name a [`Db`](ddb_runtime::Db)
/// may set apart from its declaration.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "ORDER#{order_id}", sk = "ORDER")]
/// # #[ddb(index(name = "GSI1", pk = "STATUS#{status}", sk = "{order_id}"))]
/// # struct Order { order_id: String, status: String }
/// use ddb_runtime::{Entity, Throttle};
/// let hot = Throttle::parse(
///     "IndexWriteKeyRangeThroughputExceeded",
///     "arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce/index/GSI1",
/// );
/// let report = ddb_tools::hot_partition_report(&[&Order::SCHEMA], &[hot]);
/// assert!(report.contains("| GSI1 | IndexWriteKeyRangeThroughputExceeded | 1 | Order | GSI1PK = STATUS#{status} |"));
/// assert!(report.contains("`shards = N`"));
/// ```
pub fn hot_partition_report(entities: &[&EntitySchema], throttles: &[Throttle]) -> String {
    let mut counted: BTreeMap<(Option<&str>, &str), (usize, &Throttle)> = BTreeMap::new();
    for throttle in throttles {
        let seen = counted
            .entry((throttle.index(), throttle.reason.as_str()))
            .or_insert((0, throttle));
        seen.0 += 1;
    }
    let mut out = String::new();
    out.push_str("| Throttled | Reason | Count | Entity | Partition key | What spreads it |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for ((index, reason), (count, throttle)) in counted {
        let (place, reason) = (cell(index.unwrap_or("table")), cell(reason));
        let keys = keys_at(entities, index);
        if keys.is_empty() {
            let advice = advice(throttle, None);
            let _ = writeln!(
                out,
                "| {place} | {reason} | {count} | — | no declared key | {advice} |"
            );
        }
        for (entity, key, shardable) in keys {
            let advice = advice(throttle, Some(shardable));
            let _ = writeln!(
                out,
                "| {place} | {reason} | {count} | {} | {} | {advice} |",
                entity.entity_type,
                cell(&key),
            );
        }
    }
    out
}

/// The declared partition keys stored at `index` (the table's when
/// `None`): each entity, the key as `attribute = template`, and whether
/// write sharding applies to it (a String key of a global index).
fn keys_at<'e>(
    entities: &[&'e EntitySchema],
    index: Option<&str>,
) -> Vec<(&'e EntitySchema, String, Shardable)> {
    let mut keys = Vec::new();
    for entity in entities {
        let table = entity.table;
        for key in entity.keys.iter().filter(|key| key.index == index) {
            let text = format!(
                "{} = {}",
                partition_attribute(table, key),
                template_text(&key.pk)
            );
            keys.push((*entity, text, shardable(table, key)));
        }
        for key in entity.multi_attribute_keys {
            if Some(key.index) != index {
                continue;
            }
            let equal: Vec<String> = key
                .pk
                .iter()
                .map(|field| format!("{} = {{{field}}}", entity.attribute_of(field)))
                .collect();
            keys.push((*entity, equal.join(", "), Shardable::No));
        }
    }
    keys
}

/// Whether write sharding applies to a key, and how far it is sharded.
#[derive(Clone, Copy)]
enum Shardable {
    /// A String partition key of a global index, sharded this many ways
    /// (1: not sharded).
    Shards(u16),
    /// The table's key, a local index's, a Number key or a multi-attribute
    /// key: `shards` does not apply.
    No,
}

fn shardable(table: &TableDef, key: &KeyDef) -> Shardable {
    match key.index.and_then(|name| table.index(name)) {
        Some(index)
            if index.kind == IndexKind::Global
                && index.pk.ty == ddb_runtime::model::ScalarType::S
                && index.pk.name != table.entity_attribute =>
        {
            Shardable::Shards(key.shards)
        }
        _ => Shardable::No,
    }
}

/// `text` as a Markdown table cell: a `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The attribute holding the key's partition key.
fn partition_attribute(table: &TableDef, key: &KeyDef) -> &'static str {
    match key.index.and_then(|name| table.index(name)) {
        Some(index) => index.pk.name,
        None => table.pk.name,
    }
}

/// What would spread the load `throttle` reports, for the key there.
fn advice(throttle: &Throttle, key: Option<Shardable>) -> String {
    let place = match throttle.resource_type {
        Some(ThrottledResource::Index) => "index",
        _ => "table",
    };
    let work = if throttle.write { "write" } else { "read" };
    match &throttle.limit {
        ThrottleLimit::KeyRangeThroughputExceeded if !throttle.write => match key {
            Some(Shardable::Shards(shards)) if shards > 1 => format!(
                "one key's reads, already sharded {shards} ways: a query that reads the whole \
                 key reads each shard for its share, a page-limited one up to a page from \
                 each; cache the hot items"
            ),
            Some(Shardable::Shards(_)) => "one key's reads: `shards = N` on this index spreads \
                 a query that reads the whole key over N partitions (a page-limited one \
                 reads up to a page from each); cache the hot items"
                .into(),
            _ => "one key's reads: sharding does not apply to this key; cache the hot items, \
                  or spread them with a partition key of finer grain"
                .into(),
        },
        ThrottleLimit::KeyRangeThroughputExceeded => match key {
            Some(Shardable::Shards(shards)) if shards > 1 => format!(
                "one key's writes, already sharded {shards} ways: more shards spread them further"
            ),
            Some(Shardable::Shards(_)) => {
                "one key's writes: `shards = N` on this index spreads them over N partitions".into()
            }
            _ => "one key's writes: sharding applies to String keys of global indexes; \
                  spread them with a partition key of finer grain"
                .into(),
        },
        ThrottleLimit::ProvisionedThroughputExceeded => format!(
            "not one key: the {place}'s provisioned {work} capacity; raise it, or use on-demand"
        ),
        ThrottleLimit::AccountLimitExceeded => {
            "not one key: the account's per-table quota; ask AWS to raise it".into()
        }
        ThrottleLimit::MaxOnDemandThroughputExceeded => {
            format!("not one key: the {place}'s maximum on-demand {work} throughput; raise it")
        }
        _ => "a reason this version of ddb does not know".into(),
    }
}
