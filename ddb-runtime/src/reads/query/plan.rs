//! A typed query resolved into the engine's [`Plan`]: the key and sort-key
//! conditions, the filters, the projection, the shards, and the fingerprint
//! its cursors carry.

use std::fmt::Write as _;

use crate::declaration::model::IndexKind;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::Expression;
use crate::item::Item;
use crate::keys::key::KeyValue;
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
        if self.limit == Some(0) {
            return Err(Error::InvalidRequest {
                entity: schema.entity_type,
                reason: "limit must be at least 1".into(),
            });
        }
        let table = schema.table;
        let index = index_name.and_then(|name| table.index(name));
        let (pk_attributes, sk_attributes): (Vec<_>, Vec<_>) = match index {
            Some(index) => (
                index.pk_attributes().map(|a| a.name).collect(),
                index.sk_attributes().map(|a| a.name).collect(),
            ),
            None => (
                vec![table.pk.name],
                table.sk.map(|a| a.name).into_iter().collect(),
            ),
        };
        let mut key_attributes = vec![table.pk.name];
        key_attributes.extend(table.sk.map(|a| a.name));
        for name in pk_attributes.iter().chain(&sk_attributes) {
            if !key_attributes.contains(name) {
                key_attributes.push(name);
            }
        }
        if partition.len() != pk_attributes.len() {
            return Err(Error::InvalidRequest {
                entity: schema.entity_type,
                reason: format!(
                    "the partition key has {} attributes and the query gives {} values",
                    pk_attributes.len(),
                    partition.len()
                ),
            });
        }
        let partitions: Vec<Vec<KeyValue>> = match partition.as_slice() {
            [value] if shards > 1 => (0..shards)
                .map(|shard| {
                    let sharded = crate::keys::shard::shard_partition(
                        schema.entity_type,
                        value.clone(),
                        shard,
                    )?;
                    Ok(vec![sharded])
                })
                .collect::<Result<_>>()?,
            _ => vec![partition.clone()],
        };
        let entity_attribute = table.entity_attribute;
        let entity_type = schema.entity_type;
        let check_type = projection::carries(schema, index_name, entity_attribute);
        // DynamoDB refuses a filter on a key attribute of what is queried
        // (an index keyed on the entity type): there, each item read is
        // checked instead.
        let type_is_key = pk_attributes
            .iter()
            .chain(&sk_attributes)
            .any(|&name| name == entity_attribute);
        let type_filter = (check_type && !type_is_key).then(|| {
            Expression::compare(
                entity_attribute,
                "=",
                aws_sdk_dynamodb::types::AttributeValue::S(entity_type.to_owned()),
            )
        });
        // Expired items stay readable until DynamoDB's background deletion gets
        // to them (days): leave them out unless asked for.
        let ttl_filter = crate::item::timestamp::ttl_attribute(schema)
            .filter(|ttl| !self.include_expired && projection::carries(schema, index_name, ttl))
            .map(|ttl| Expression::not_expired(ttl, crate::item::timestamp::now_epoch_seconds()));
        let user_filter = self.filter.clone().map(Expression::from);
        let filter = [type_filter, ttl_filter, user_filter]
            .into_iter()
            .flatten()
            .reduce(Expression::and);
        let projection = self.decode.attributes().map(|attributes| {
            let mut list = attributes.to_vec();
            if check_type {
                list.push(entity_attribute);
            }
            if projection::carries(
                schema,
                index_name,
                crate::item::stored::SCHEMA_VERSION_ATTRIBUTE,
            ) {
                list.push(crate::item::stored::SCHEMA_VERSION_ATTRIBUTE);
            }
            list
        });
        // The parts: entity type, index, partition values (joined by a zero
        // byte), shards, sort condition and direction.
        let mut print = cursor::Fingerprint::default();
        print.part(entity_type);
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
        let fingerprint = print.finish();
        let consistent =
            self.consistent && !matches!(index.map(|i| i.kind), Some(IndexKind::Global));
        let all_attributes = projection.is_none()
            && index.is_some_and(|i| {
                i.kind == IndexKind::Local
                    && i.projection != crate::declaration::model::IndexProjection::All
            });
        Ok(Plan {
            entity: entity_type,
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
            // Without the entity type to filter on, the table key tells;
            // with the type a key attribute of the index, each item's type.
            keep: match (check_type, type_is_key) {
                (false, _) => Some(owns_key::<E> as fn(&Item) -> bool),
                (true, true) => Some(of_entity::<E>),
                (true, false) => None,
            },
            exact_end: self.exact_end,
        })
    }
}
