//! The index keys an update keeps right: which indexes it makes stale,
//! which it takes the item out of, which it writes side by side (a sparse
//! index's membership then decided in the condition), and the SET and
//! REMOVE actions that write them.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::IndexDef;
use crate::entity::Entity;
use crate::error::Result;
use crate::expression::Placeholders;
use crate::item::Item;
use crate::keys::key::{Key, KeyValues};
use crate::writes::item::{index_inputs, index_pairs, maintained_by_ddb};

use super::clauses::UpdateClauses;
use super::{Assumed, Op};

/// What an update writes and what it decides of the item by itself, from
/// which its plan tells the index keys it changes.
pub(super) struct Changes<'a, E> {
    /// The caller's changes.
    pub(super) ops: &'a [Op],
    /// The item's primary key.
    pub(super) key: &'a Key<E>,
    /// The item's attributes after the update, where the update alone
    /// decides them: the values it sets, its `updated_at` stamps, the
    /// version after the one it expects.
    pub(super) known: Item,
    /// The attributes it removes.
    pub(super) removed: Vec<&'static str>,
    /// The `updated_at` stamps it sets.
    pub(super) updated: Vec<(&'static str, AttributeValue)>,
    /// The version attribute, when the entity has one.
    pub(super) version: Option<&'static str>,
    /// What the update assumes of the stored item: how the membership of
    /// a sparse index it neither enters nor leaves is decided.
    pub(super) assumed: Assumed<'a>,
    /// The update may create the item (an upsert): every index key is
    /// written, those built from the primary key's fields alone included.
    pub(super) creates: bool,
}

/// The attributes the key of the index at `position` is built from (but
/// for the primary key's).
pub(super) fn inputs<E: Entity>(position: usize) -> impl Iterator<Item = &'static str> {
    let schema = &E::SCHEMA;
    index_inputs(schema, &schema.keys[position])
}

/// The attributes one side of the key of the index at `position` is built
/// from (its partition key, or its sort key when `sort`), but for the
/// primary key's.
fn side_inputs<E: Entity>(position: usize, sort: bool) -> impl Iterator<Item = &'static str> {
    let schema = &E::SCHEMA;
    let key = &schema.keys[position];
    let template = if sort { key.sk } else { Some(key.pk) };
    template
        .into_iter()
        .flat_map(|t| t.fields())
        .filter(|field| !schema.primary().reads(field))
        .filter_map(|field| schema.field(field).map(|f| f.attribute))
}

impl<E: Entity> Changes<'_, E> {
    /// Whether the update writes `attribute`: one of its changes, an
    /// `updated_at` stamp, the version.
    fn writes(&self, attribute: &str) -> bool {
        self.ops.iter().any(|op| op.attribute() == attribute)
            || self.updated.iter().any(|(u, _)| *u == attribute)
            || self.version == Some(attribute)
    }

    /// Whether the update alone decides what `attribute` holds after it.
    pub(super) fn decides(&self, attribute: &str) -> bool {
        self.known.contains_key(attribute) || self.removed.contains(&attribute)
    }

    /// The indexes whose keys or membership this update can change: those
    /// built from an attribute it writes.
    pub(super) fn stale_indexes(&self) -> Vec<usize> {
        (1..E::SCHEMA.keys.len())
            .filter(|&position| self.creates || inputs::<E>(position).any(|a| self.writes(a)))
            .collect()
    }

    /// Whether the update takes the item out of the sparse index at
    /// `position`. Such an index needs none of its key's inputs: its
    /// attributes are removed, whatever they held (no two indexes of a
    /// table share an attribute: the Table derive refuses it).
    pub(super) fn leaves(&self, position: usize) -> bool {
        let schema = &E::SCHEMA;
        let Some(rule) = schema.keys[position].membership else {
            return false;
        };
        let decided = |field: &&str| {
            schema.primary().reads(field)
                || schema
                    .field(field)
                    .is_some_and(|f| self.decides(f.attribute))
        };
        rule.evaluable
            && rule.reads.iter().all(decided)
            && matches!(E::index_key_from(position, self.key, &self.known), Ok(None))
    }

    /// Whether the update changes the partition key (or, `sort`, the sort
    /// key) of the index at `position`.
    fn side_stale(&self, position: usize, sort: bool) -> bool {
        self.creates || side_inputs::<E>(position, sort).any(|a| self.writes(a))
    }

    /// Whether the index at `position` is written side by side: its
    /// membership the update leaves as it is, and its changed sides
    /// (partition key, sort key) read only what the update decides. The
    /// sides it changes are written from the update's values; the others
    /// stay as stored. A sparse index's membership is then decided in the
    /// condition, by whether its attributes are stored (the markers),
    /// rather than by a read.
    pub(super) fn by_sides(&self, position: usize) -> bool {
        let schema = &E::SCHEMA;
        let key = &schema.keys[position];
        let rule_kept = key.membership.is_none_or(|rule| {
            !matches!(self.assumed, Assumed::Nothing)
                && !rule.reads.iter().any(|field| {
                    schema
                        .field(field)
                        .is_some_and(|f| self.writes(f.attribute))
                })
        });
        rule_kept
            && [false, true].into_iter().all(|sort| {
                !self.side_stale(position, sort)
                    || side_inputs::<E>(position, sort).all(|a| self.decides(a))
            })
    }

    /// Whether an index of `stale` the item does not leave (`leaving`), and
    /// that is not written side by side, reads what the update does not
    /// decide (or has a membership rule ddb cannot evaluate), so that the
    /// item must be read first.
    pub(super) fn needs_read(&self, stale: &[usize], leaving: &[usize]) -> bool {
        stale.iter().any(|&position| {
            !leaving.contains(&position)
                && !self.by_sides(position)
                && (E::SCHEMA.keys[position]
                    .membership
                    .is_some_and(|m| !m.evaluable)
                    || !inputs::<E>(position).all(|a| self.decides(a)))
        })
    }

    /// SETs the index attributes of the `stale` indexes the item is in,
    /// REMOVEs those of the sparse ones it left (`leaving`): from the
    /// index keys of the item read first (`read_keys`) when there is one,
    /// else from the update's values. The table's own key never changes,
    /// and a raw-key index attribute that is a field's own attribute is
    /// written by the field. Returns the sparse indexes written side by
    /// side: the attribute whose presence says the item is in the index,
    /// and whether the plan assumed so.
    pub(super) fn write_index_keys(
        &self,
        stale: &[usize],
        leaving: &[usize],
        mut read_keys: Option<HashMap<&'static str, KeyValues>>,
        clauses: &mut UpdateClauses,
        p: &mut Placeholders,
    ) -> Result<Vec<(&'static str, bool)>> {
        let schema = &E::SCHEMA;
        let mut markers: Vec<(&'static str, bool)> = Vec::new();
        for &position in stale {
            let Some(name) = schema.keys[position].index else {
                continue;
            };
            let Some(index) = schema.table.index(name) else {
                continue;
            };
            let leaves = leaving.contains(&position);
            if read_keys.is_none() && !leaves && self.by_sides(position) {
                markers.extend(self.write_index_sides(position, index, clauses, p)?);
                continue;
            }
            let values = match &mut read_keys {
                Some(all) => all.remove(name),
                None if leaves => None,
                None => E::index_key_from(position, self.key, &self.known)?,
            };
            write_index_key::<E>(index, values, clauses, p);
        }
        Ok(markers)
    }

    /// SETs the sides of the key of `index` (at `position`) the update
    /// changes, from the update's values. For a sparse index, returns its
    /// marker and whether the plan assumes the item in it (and writes
    /// nothing when it assumes not).
    fn write_index_sides(
        &self,
        position: usize,
        index: &IndexDef,
        clauses: &mut UpdateClauses,
        p: &mut Placeholders,
    ) -> Result<Option<(&'static str, bool)>> {
        let schema = &E::SCHEMA;
        let sides = [(false, Some(index.pk)), (true, index.sk)];
        let mut writes = Vec::new();
        for (sort, attribute) in sides {
            let Some(attribute) = attribute else { continue };
            if self.side_stale(position, sort) && maintained_by_ddb(schema, attribute.name) {
                writes.push((sort, attribute));
            }
        }
        if writes.is_empty() {
            return Ok(None);
        }
        let mut marked = None;
        if schema.keys[position].membership.is_some() {
            // No other index writes it (the Table derive refuses
            // two indexes sharing an attribute).
            let marker = writes[0].1.name;
            let member = match self.assumed {
                Assumed::InCondition { absent, .. } => !absent.contains(&marker),
                Assumed::Nothing => true,
            };
            marked = Some((marker, member));
            if !member {
                return Ok(marked);
            }
        }
        for (sort, attribute) in writes {
            let value = E::index_side_from(position, sort, self.key, &self.known)?;
            if let Some(value) = value {
                clauses.set_index_attribute(p, attribute.name, &value);
            }
        }
        Ok(marked)
    }
}

/// SETs the attributes of the key of `index` to `values`, or REMOVEs them
/// when the item is not in the index (`None`); only those ddb maintains.
fn write_index_key<E: Entity>(
    index: &IndexDef,
    values: Option<KeyValues>,
    clauses: &mut UpdateClauses,
    p: &mut Placeholders,
) {
    let schema = &E::SCHEMA;
    match values {
        Some(values) => {
            for (attribute, value) in index_pairs(index, &values) {
                // Two indexes sharing an attribute hold one value.
                if maintained_by_ddb(schema, attribute.name) {
                    clauses.set_index_attribute(p, attribute.name, value);
                }
            }
        }
        None => {
            for attribute in std::iter::once(index.pk).chain(index.sk) {
                if maintained_by_ddb(schema, attribute.name) {
                    clauses.remove(p, attribute.name);
                }
            }
        }
    }
}
