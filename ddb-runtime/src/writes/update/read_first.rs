//! The item an update reads first, when an index it changes reads a field
//! it does not set, with the update applied to a local copy of it.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::keys::key::KeyValues;
use crate::writes::item::{check_size, key_text, stored_version, version_value};
use crate::writes::plan::ReadFirst;

use super::index_keys::{inputs, Changes};
use super::Op;

/// The item read first, and what the update makes of it.
pub(super) struct ItemRead {
    /// The item as read, and what the write is conditioned on.
    pub(super) read: ReadFirst,
    /// The version the update replaces: the one it expects, else the one
    /// read.
    pub(super) expected: Option<u64>,
    /// The index keys of the item as it is after the update, by index.
    pub(super) keys: HashMap<&'static str, KeyValues>,
}

impl<E: Entity + 'static> Changes<'_, E> {
    /// Reads the item (a strongly consistent GetItem) and computes the
    /// index keys of the item as it is after the update, the indexes of
    /// `stale` being those it can change. The update is then conditioned
    /// on every index input it read rather than set (a version alone is
    /// not enough: a delete and a create, or a batch put, can bring the
    /// same version back with other values), and on the version it read.
    pub(super) async fn read_first(
        &self,
        db: &Db,
        stale: &[usize],
        expected_version: Option<u64>,
    ) -> Result<ItemRead> {
        let schema = &E::SCHEMA;
        let entity = schema.entity_type;
        let current = db
            .get(self.key.clone())
            .consistent_read(true)
            .raw()
            .await?
            .ok_or_else(|| Error::NotFound {
                entity,
                key: key_text(self.key),
            })?;
        let mut next = current.clone();
        for op in self.ops {
            apply(&mut next, op);
        }
        for (attribute, value) in &self.updated {
            next.insert((*attribute).to_owned(), value.clone());
        }
        let mut expected = expected_version;
        if let Some(attribute) = self.version {
            expected = expected.or_else(|| stored_version(schema, Some(&current)));
            if let Some(expected) = expected {
                next.insert(attribute.to_owned(), version_value(entity, expected)?);
            }
        }
        let mut conditioned: Vec<&'static str> = Vec::new();
        for &position in stale {
            for attribute in inputs::<E>(position) {
                if !self.decides(attribute) && !conditioned.contains(&attribute) {
                    conditioned.push(attribute);
                }
            }
        }
        check_size::<E>(&next, self.key)?;
        let entity_now = E::from_item(next).map_err(|e| e.with_key(self.key))?;
        let keys = entity_now.index_keys()?.into_iter().collect();
        let read = ReadFirst {
            item: current,
            conditioned,
            version_derived: expected_version.is_none() && expected.is_some(),
        };
        Ok(ItemRead {
            read,
            expected,
            keys,
        })
    }
}

/// Applies one update change to a local copy of the item.
pub(super) fn apply(item: &mut Item, op: &Op) {
    use AttributeValue as V;
    match op {
        Op::Set(a, v) => {
            item.insert((*a).to_owned(), v.clone());
        }
        Op::Remove(a) => {
            item.remove(*a);
        }
        Op::Add(a, v) => {
            let next = match (item.get(*a), v) {
                (Some(V::N(x)), V::N(y)) => V::N(add_numbers(x, y)),
                (Some(V::Ss(x)), V::Ss(y)) => V::Ss(union(x, y)),
                (Some(V::Ns(x)), V::Ns(y)) => V::Ns(union(x, y)),
                (_, v) => v.clone(),
            };
            item.insert((*a).to_owned(), next);
        }
        Op::Append(a, v) => {
            let mut list = match item.get(*a) {
                Some(V::L(x)) => x.clone(),
                _ => Vec::new(),
            };
            if let V::L(more) = v {
                list.extend(more.iter().cloned());
            }
            item.insert((*a).to_owned(), V::L(list));
        }
        Op::DeleteFromSet(a, v) => {
            let next = match (item.get(*a), v) {
                (Some(V::Ss(x)), V::Ss(y)) => Some(V::Ss(
                    x.iter().filter(|e| !y.contains(e)).cloned().collect(),
                )),
                (Some(V::Ns(x)), V::Ns(y)) => Some(V::Ns(
                    x.iter().filter(|e| !y.contains(e)).cloned().collect(),
                )),
                _ => None,
            };
            if let Some(next) = next {
                item.insert((*a).to_owned(), next);
            }
        }
    }
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for e in b {
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    out
}

/// Adds two decimal numbers exactly when both are integers, else through f64.
fn add_numbers(a: &str, b: &str) -> String {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(x), Ok(y)) => (x + y).to_string(),
        _ => (a.parse::<f64>().unwrap_or(0.0) + b.parse::<f64>().unwrap_or(0.0)).to_string(),
    }
}
