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

/// Applies one update change to a local copy of the item, as DynamoDB
/// applies it: numbers added exactly, sets joined and taken from by value
/// (`"1"` and `"1.0"` are one number), a set left empty removed.
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
                (Some(V::N(x)), V::N(y)) => V::N(add_numbers(x, y).unwrap_or_else(|| y.clone())),
                (Some(V::Ss(x)), V::Ss(y)) => V::Ss(union(x, y, |a, b| a == b)),
                (Some(V::Ns(x)), V::Ns(y)) => V::Ns(union(x, y, same_number)),
                (Some(V::Bs(x)), V::Bs(y)) => V::Bs(union(x, y, |a, b| a == b)),
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
                (Some(V::Ss(x)), V::Ss(y)) => Some(V::Ss(without(x, y, |a, b| a == b))),
                (Some(V::Ns(x)), V::Ns(y)) => Some(V::Ns(without(x, y, same_number))),
                (Some(V::Bs(x)), V::Bs(y)) => Some(V::Bs(without(x, y, |a, b| a == b))),
                _ => None,
            };
            let empty = |v: &V| match v {
                V::Ss(s) | V::Ns(s) => s.is_empty(),
                V::Bs(s) => s.is_empty(),
                _ => false,
            };
            match next {
                Some(next) if empty(&next) => {
                    item.remove(*a);
                }
                Some(next) => {
                    item.insert((*a).to_owned(), next);
                }
                None => {}
            }
        }
    }
}

/// The elements of `a`, then those of `b` not in `a`.
fn union<T: Clone>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut out = a.to_vec();
    for e in b {
        if !out.iter().any(|o| same(o, e)) {
            out.push(e.clone());
        }
    }
    out
}

/// The elements of `a` not in `b`.
fn without<T: Clone>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let kept = a.iter().filter(|e| !b.iter().any(|o| same(o, e)));
    kept.cloned().collect()
}

/// Whether two number texts are one number.
#[allow(clippy::ptr_arg)]
fn same_number(a: &String, b: &String) -> bool {
    crate::item::number::compare_numbers(a, b).is_eq()
}

fn add_numbers(a: &str, b: &str) -> Option<String> {
    crate::item::number::add_numbers(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;
    use AttributeValue as V;

    fn applied(before: Option<V>, op: Op) -> Option<V> {
        let mut item = Item::new();
        if let Some(value) = before {
            item.insert("a".into(), value);
        }
        apply(&mut item, &op);
        item.remove("a")
    }

    #[test]
    fn a_local_copy_changes_as_dynamodb_changes_the_item() {
        let n = |s: &str| V::N(s.into());
        assert_eq!(
            applied(Some(n("0.1")), Op::Add("a", n("0.2"))),
            Some(n("0.3"))
        );
        let big = "99999999999999999999999999999999999999";
        assert_eq!(
            applied(Some(n(big)), Op::Add("a", n("1"))),
            Some(n(&format!("1{}", "0".repeat(38))))
        );
        assert_eq!(applied(None, Op::Add("a", n("4"))), Some(n("4")));
        let ns = |v: &[&str]| V::Ns(v.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            applied(Some(ns(&["1"])), Op::Add("a", ns(&["1.0", "2"]))),
            Some(ns(&["1", "2"]))
        );
        assert_eq!(
            applied(Some(ns(&["1", "2"])), Op::DeleteFromSet("a", ns(&["2.0"]))),
            Some(ns(&["1"]))
        );
        let bs = |v: &[&[u8]]| V::Bs(v.iter().map(|b| Blob::new(b.to_vec())).collect());
        assert_eq!(
            applied(Some(bs(&[b"x"])), Op::Add("a", bs(&[b"y"]))),
            Some(bs(&[b"x", b"y"]))
        );
        assert_eq!(
            applied(Some(bs(&[b"x", b"y"])), Op::DeleteFromSet("a", bs(&[b"x"]))),
            Some(bs(&[b"y"]))
        );
        let ss = |v: &[&str]| V::Ss(v.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            applied(Some(ss(&["x"])), Op::DeleteFromSet("a", ss(&["x"]))),
            None
        );
    }
}
