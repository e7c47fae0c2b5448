//! A typed query resolved into the engine's [`Plan`]: the key and sort-key
//! conditions, the filters, the projection, the shards, and the fingerprint
//! its cursors carry.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{IndexDef, IndexKind, IndexProjection, TableDef};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::Expression;
use crate::item::Item;
use crate::keys::key::KeyValue;
use crate::keys::sort::SortCondition;
use crate::reads::cursor;
use crate::reads::fetch::Plan;
use crate::reads::projection;
use crate::reads::query::{clone_result, index_name, of_entity, Decode, IndexTarget, Query};

/// Whether `key` (an item's table key) is a primary key of entity `E`.
fn owns_key<E: Entity>(key: &Item) -> bool {
    crate::keys::key::Key::<E>::from_item(key).is_ok()
}

impl<E, S, I, P, D, const K: usize> Query<E, S, I, P, D, K>
where
    E: Entity + Send + 'static,
    S: 'static,
    I: IndexTarget + 'static,
    P: 'static,
    D: Decode<E>,
{
    /// Everything the engine needs to read this query's pages.
    pub(super) fn plan(&self) -> Result<Plan> {
        let schema = &E::SCHEMA;
        let index_name = index_name::<E, I>(K);
        let shards = if I::MULTI_ATTRIBUTE {
            1
        } else {
            schema.keys[K].shards
        };
        let partition = clone_result(&self.partition)?;
        let sort = clone_result(&self.sort)?;
        self.options.check_limit(schema.entity_type)?;
        let table = schema.table;
        let index = index_name.and_then(|name| table.index(name));
        let (pk_attributes, sk_attributes) = queried_key_attributes(table, index);
        let key_attributes = item_key_attributes(table, &pk_attributes, &sk_attributes);
        let partitions =
            shard_partitions(schema.entity_type, &partition, pk_attributes.len(), shards)?;
        let check_type = projection::carries(schema, index_name, table.entity_attribute);
        let filter = self.filter_expression(index_name);
        let (projection, all_attributes) = request_attributes(
            table,
            index,
            self.projected_attributes(index_name, check_type),
        );
        let fingerprint = self.fingerprint(index_name, &partition, shards, &sort);
        let consistent =
            self.consistent && !matches!(index.map(|i| i.kind), Some(IndexKind::Global));
        Ok(Plan {
            entity: schema.entity_type,
            table_name: self.db.table_name::<E::Table>().to_owned(),
            index: index_name,
            all_attributes,
            pk_attributes,
            sk_attributes,
            partitions,
            sort,
            filter,
            projection,
            key_attributes,
            forward: self.forward,
            consistent,
            fingerprint,
            cursor_keys: self.db.cursor_keys(),
            keep: Some(items_to_keep::<E>(check_type)),
            exact_end: self.options.exact_end,
            count_filter: check_type.then(|| {
                Expression::compare(
                    table.entity_attribute,
                    "=",
                    AttributeValue::S(schema.entity_type.to_owned()),
                )
            }),
        })
    }

    /// The filter expression: the time to live and the caller's condition,
    /// joined with `AND`. The entity type is checked on each item read
    /// instead ([`items_to_keep`]): DynamoDB bills the items a filter drops
    /// as read, so a filter on it would add to every request and save only
    /// the transfer of another entity's items met in the range read. A
    /// count, which returns no item to check, sends it as a filter
    /// (`Plan::count_filter`).
    fn filter_expression(&self, index_name: Option<&'static str>) -> Option<Expression> {
        let schema = &E::SCHEMA;
        let ttl = crate::item::timestamp::ttl_attribute(schema)
            .filter(|ttl| projection::carries(schema, index_name, ttl));
        self.options.filters(ttl).reduce(Expression::and)
    }

    /// The attributes of the projection expression, when the decoding reads
    /// only some: its own, the entity type when items are checked by it, and
    /// the schema version when the index carries it.
    fn projected_attributes(
        &self,
        index_name: Option<&'static str>,
        check_type: bool,
    ) -> Option<Vec<&'static str>> {
        let schema = &E::SCHEMA;
        self.decode.attributes().map(|attributes| {
            let mut list = attributes.to_vec();
            if check_type {
                list.push(schema.table.entity_attribute);
            }
            if projection::carries(
                schema,
                index_name,
                crate::item::stored::SCHEMA_VERSION_ATTRIBUTE,
            ) {
                list.push(crate::item::stored::SCHEMA_VERSION_ATTRIBUTE);
            }
            list
        })
    }

    /// What a cursor of this query is checked against. The parts: entity
    /// type, index, partition values (joined by a zero byte), shards, sort
    /// condition and direction.
    fn fingerprint(
        &self,
        index_name: Option<&'static str>,
        partition: &[KeyValue],
        shards: u16,
        sort: &SortCondition,
    ) -> String {
        let mut print = cursor::Fingerprint::default();
        print.part(E::SCHEMA.entity_type);
        print.part(index_name.unwrap_or(""));
        for (i, value) in partition.iter().enumerate() {
            if i > 0 {
                print.end_part();
            }
            let _ = print.write_str(value.as_str());
        }
        print.end_part();
        let _ = write!(print, "{shards}");
        print.end_part();
        let _ = sort.describe(&mut print);
        print.end_part();
        print.part(if self.forward { "asc" } else { "desc" });
        print.finish()
    }
}

/// What a query asks for of the `attributes` it reads (`None`: all): the
/// projection expression, and whether to send `Select: ALL_ATTRIBUTES`.
///
/// On an index that projects only some attributes:
/// - a global index that holds them all needs no expression: it returns its
///   own projection (with the attributes the query does not read), at the
///   same capacity, since DynamoDB bills the index entries read whatever
///   the expression keeps; and it can return nothing else, so a live index
///   that projects less than declared changes nothing either;
/// - a local index keeps the expression when it holds them all (it fetches
///   from the table what the live index lacks), and is read whole when it
///   does not (it fetches the item from the table, as it would the
///   attributes an expression names), which every engine does alike.
fn request_attributes(
    table: &TableDef,
    index: Option<&IndexDef>,
    attributes: Option<Vec<&'static str>>,
) -> (Option<Vec<&'static str>>, bool) {
    let Some(index) = index.filter(|i| i.projection != IndexProjection::All) else {
        return (attributes, false);
    };
    let Some(list) = attributes else {
        return (None, index.kind == IndexKind::Local);
    };
    let holds_all = list.iter().all(|name| index.projects(table, name));
    match (index.kind, holds_all) {
        (IndexKind::Global, true) => (None, false),
        (IndexKind::Local, false) => (None, true),
        (IndexKind::Global, false) | (IndexKind::Local, true) => (Some(list), false),
    }
}

/// The partition and sort key attributes of what is queried: the index's,
/// or the table's.
fn queried_key_attributes(
    table: &TableDef,
    index: Option<&IndexDef>,
) -> (Vec<&'static str>, Vec<&'static str>) {
    match index {
        Some(index) => (
            index.pk_attributes().map(|a| a.name).collect(),
            index.sk_attributes().map(|a| a.name).collect(),
        ),
        None => (
            vec![table.pk.name],
            table.sk.map(|a| a.name).into_iter().collect(),
        ),
    }
}

/// The attributes of an item's key in this query: the table's key, then
/// the index's attributes that are not part of it.
fn item_key_attributes(
    table: &TableDef,
    pk_attributes: &[&'static str],
    sk_attributes: &[&'static str],
) -> Vec<&'static str> {
    let mut key_attributes = vec![table.pk.name];
    key_attributes.extend(table.sk.map(|a| a.name));
    for name in pk_attributes.iter().chain(sk_attributes) {
        if !key_attributes.contains(name) {
            key_attributes.push(name);
        }
    }
    key_attributes
}

/// The partitions to read, one per shard (one for an unsharded key), each a
/// value per partition key attribute; an error when the query gives another
/// number of values than the key has attributes.
fn shard_partitions(
    entity: &'static str,
    partition: &[KeyValue],
    pk_attributes: usize,
    shards: u16,
) -> Result<Vec<Vec<KeyValue>>> {
    if partition.len() != pk_attributes {
        return Err(Error::InvalidRequest {
            entity,
            reason: format!(
                "the partition key has {} attributes and the query gives {} values",
                pk_attributes,
                partition.len()
            ),
        });
    }
    match partition {
        [value] if shards > 1 => (0..shards)
            .map(|shard| {
                let sharded = crate::keys::shard::shard_partition(entity, value.clone(), shard)?;
                Ok(vec![sharded])
            })
            .collect::<Result<_>>(),
        _ => Ok(vec![partition.to_vec()]),
    }
}

/// Which items read the query keeps: those of the entity type, or, where
/// the index does not carry the type, those whose table key is the
/// entity's.
fn items_to_keep<E: Entity>(check_type: bool) -> fn(&Item) -> bool {
    match check_type {
        true => of_entity::<E>,
        false => owns_key::<E>,
    }
}
