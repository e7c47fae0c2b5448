//! The UpdateItem an update sends: its expression, the index keys it keeps
//! right, and its condition.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::SystemTime;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Condition, Conjunction, Placeholders};
use crate::item::Item;
use crate::keys::key::KeyValues;
use crate::writes::item::{
    check_size, check_update_floor, index_inputs, index_pairs, is_updated_at, key_text,
    maintained_by_ddb, stored_version, version_attribute, version_is, version_value,
};
use crate::writes::plan::{Action, ReadFirst, WritePlan};

use super::clauses::ClauseActions;
use super::read_first::apply;
use super::{Membership, Op, Update};

impl<E: Entity + 'static> Update<E> {
    /// Builds the UpdateItem. Index keys that depend on a changed field are
    /// recomputed in the same request: from the primary key and the values
    /// the update sets when those are all an index reads, else from the item
    /// read first, with the write conditioned on everything read.
    pub(crate) async fn plan(self) -> Result<WritePlan<E>> {
        self.plan_with(Membership::Read).await
    }

    /// [`plan`](Self::plan), deciding the membership of a sparse index the
    /// update does not decide as `membership` says.
    pub(super) async fn plan_with(self, membership: Membership<'_>) -> Result<WritePlan<E>> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let schema = &E::SCHEMA;
        let table = schema.table;
        let entity = schema.entity_type;
        if self.ops.is_empty() {
            return Err(Error::InvalidUpdate {
                entity,
                reason: "an update needs at least one change".into(),
            });
        }
        // An update changes a handful of attributes: small lists, not hash
        // sets, keep what it has seen.
        let twice = |(i, op): (usize, &Op)| {
            self.ops[..i]
                .iter()
                .any(|o| o.attribute() == op.attribute())
        };
        if let Some((_, op)) = self.ops.iter().enumerate().find(|&entry| twice(entry)) {
            return Err(Error::InvalidUpdate {
                entity,
                reason: format!(
                    "attribute `{}` is changed twice in one update; DynamoDB refuses overlapping paths",
                    op.attribute()
                ),
            });
        }
        if let Some(field) = self.ops.iter().find_map(|op| {
            schema.fields.iter().find(|f| {
                f.attribute == op.attribute()
                    && (f.role.version || f.role.created_at || f.role.updated_at)
            })
        }) {
            return Err(Error::InvalidUpdate {
                entity,
                reason: format!(
                    "field `{}` is written by ddb (#[ddb(version)], created_at or updated_at); \
                     use expect_version for the version",
                    field.name
                ),
            });
        }
        let mut p = Placeholders::default();
        // The SET, ADD and DELETE lists are written as they grow, each
        // placeholder straight into its list; REMOVE keeps its names apart,
        // to drop those another index SETs.
        let mut sets = ClauseActions::default();
        let mut removes: Vec<(&str, String)> = Vec::new();
        let mut adds = ClauseActions::default();
        let mut deletes = ClauseActions::default();
        for op in &self.ops {
            match op {
                Op::Set(a, v) => sets.assign(&mut p, a, v.clone()),
                Op::Remove(a) => removes.push((a, p.name(a))),
                Op::Add(a, v) => adds.pair(&mut p, a, v.clone()),
                Op::Append(a, v) => {
                    let name = p.name(a);
                    let empty = p.value(AttributeValue::L(Vec::new()));
                    let out = sets.next();
                    let _ = write!(out, "{name} = list_append(if_not_exists({name}, {empty}), ");
                    p.write_value(v.clone(), out);
                    out.push(')');
                }
                Op::DeleteFromSet(a, v) => deletes.pair(&mut p, a, v.clone()),
            }
        }
        // What the item's attributes are after the update, where the update
        // alone decides them: values it sets, and attributes it removes.
        let mut known: Item = Item::new();
        let mut removed: Vec<&str> = Vec::new();
        for op in &self.ops {
            match op {
                Op::Set(a, v) => {
                    known.insert((*a).to_owned(), v.clone());
                }
                Op::Remove(a) => removed.push(a),
                _ => {}
            }
        }
        let mut updated = Vec::new();
        for (attribute, value) in E::stamps(true, SystemTime::now()) {
            if is_updated_at(schema, attribute) {
                sets.assign(&mut p, attribute, value.clone());
                known.insert(attribute.to_owned(), value.clone());
                updated.push((attribute, value));
            } else {
                let name = p.name(attribute);
                let out = sets.next();
                let _ = write!(out, "{name} = if_not_exists({name}, ");
                p.write_value(value, out);
                out.push(')');
            }
        }
        let added = self.ops.iter().filter_map(|op| match op {
            Op::Append(a, v) | Op::Add(a, v) => Some((*a, v)),
            _ => None,
        });
        check_update_floor::<E>(&known, added, &self.key)?;
        let version = version_attribute(schema);
        if let Some(attribute) = version {
            if let Some(expected) = self.expected_version {
                known.insert(attribute.to_owned(), version_value(entity, expected)?);
            }
        }

        // The indexes whose keys or membership this update can change, and
        // whether the update alone decides every input of each.
        // (The attributes it writes: its changes, the updated_at stamp, the
        // version.)
        let touched = |a: &str| {
            self.ops.iter().any(|op| op.attribute() == a)
                || updated.iter().any(|(u, _)| *u == a)
                || version == Some(a)
        };
        let inputs = |position: usize| index_inputs(schema, &schema.keys[position]);
        let stale: Vec<usize> = (1..schema.keys.len())
            .filter(|&position| inputs(position).any(touched))
            .collect();
        let decided_by_update = |a: &str| known.contains_key(a) || removed.contains(&a);
        // A sparse index the update takes the item out of needs none of its
        // key's inputs: its attributes are removed, whatever they held (no
        // two indexes of a table share an attribute: the Table derive
        // refuses it).
        let leaves = |position: usize| {
            let Some(rule) = schema.keys[position].membership else {
                return false;
            };
            let decided = |field: &&str| {
                schema.primary().reads(field)
                    || schema
                        .field(field)
                        .is_some_and(|f| decided_by_update(f.attribute))
            };
            rule.evaluable
                && rule.reads.iter().all(decided)
                && matches!(E::index_key_from(position, &self.key, &known), Ok(None))
        };
        // An index whose membership the update leaves as it is, and whose
        // changed sides (partition key, sort key) read only what the update
        // decides, is written side by side: the sides it changes, from the
        // update's values; the others stay as stored. A sparse index's
        // membership is then decided in the condition, by whether its
        // attributes are stored (`markers`), rather than by a read.
        let side_inputs = |position: usize, sort: bool| {
            let key = &schema.keys[position];
            let template = if sort { key.sk } else { Some(key.pk) };
            template
                .into_iter()
                .flat_map(|t| t.fields())
                .filter(|field| !schema.primary().reads(field))
                .filter_map(|field| schema.field(field).map(|f| f.attribute))
        };
        let side_stale = |position: usize, sort: bool| side_inputs(position, sort).any(touched);
        let by_sides = |position: usize| {
            let key = &schema.keys[position];
            let rule_kept = key.membership.is_none_or(|rule| {
                !matches!(membership, Membership::Read)
                    && !rule
                        .reads
                        .iter()
                        .any(|field| schema.field(field).is_some_and(|f| touched(f.attribute)))
            });
            rule_kept
                && [false, true].into_iter().all(|sort| {
                    !side_stale(position, sort)
                        || side_inputs(position, sort).all(decided_by_update)
                })
        };
        // Each rule is evaluated once: the plan below removes these
        // indexes' attributes without computing their keys again.
        let leaving: Vec<usize> = stale.iter().copied().filter(|&p| leaves(p)).collect();
        let needs_read = stale.iter().any(|&position| {
            !leaving.contains(&position)
                && !by_sides(position)
                && (schema.keys[position]
                    .membership
                    .is_some_and(|m| !m.evaluable)
                    || !inputs(position).all(decided_by_update))
        });
        let mut expected = self.expected_version;
        let mut read = None;
        // The index keys of the item as it is after the update, when they
        // are computed from the item read first.
        let mut read_keys: Option<HashMap<&'static str, KeyValues>> = None;
        if needs_read {
            let current = self
                .db
                .get(self.key.clone())
                .consistent_read(true)
                .raw()
                .await?
                .ok_or_else(|| Error::NotFound {
                    entity,
                    key: key_text(&self.key),
                })?;
            let mut next = current.clone();
            for op in &self.ops {
                apply(&mut next, op);
            }
            for (attribute, value) in &updated {
                next.insert((*attribute).to_owned(), value.clone());
            }
            // The update is conditioned on every index input it read rather
            // than set (a version alone is not enough: a delete and a create,
            // or a batch put, can bring the same version back with other
            // values), and on the version it read.
            if let Some(attribute) = version {
                expected = expected.or_else(|| stored_version(schema, Some(&current)));
                if let Some(expected) = expected {
                    next.insert(attribute.to_owned(), version_value(entity, expected)?);
                }
            }
            let mut conditioned: Vec<&'static str> = Vec::new();
            for &position in &stale {
                for attribute in inputs(position) {
                    if !decided_by_update(attribute) && !conditioned.contains(&attribute) {
                        conditioned.push(attribute);
                    }
                }
            }
            check_size::<E>(&next, &self.key)?;
            let entity_now = E::from_item(next).map_err(|e| e.with_key(&self.key))?;
            read_keys = Some(entity_now.index_keys()?.into_iter().collect());
            read = Some(ReadFirst {
                item: current,
                conditioned,
                version_derived: self.expected_version.is_none() && expected.is_some(),
            });
        }

        // SET the index attributes of the indexes the item is in, REMOVE
        // those of the sparse ones it left. The table's own key never
        // changes, and a raw-key index attribute that is a field's own
        // attribute is written by the field.
        let mut index_set: Vec<&str> = Vec::new();
        // Sparse indexes written side by side: the attribute whose presence
        // says the item is in the index, and whether the plan assumed so.
        let mut markers: Vec<(&'static str, bool)> = Vec::new();
        for &position in &stale {
            let Some(name) = schema.keys[position].index else {
                continue;
            };
            let Some(index) = table.index(name) else {
                continue;
            };
            let leaves = leaving.contains(&position);
            if read_keys.is_none() && !leaves && by_sides(position) {
                let sides = [(false, Some(index.pk)), (true, index.sk)];
                let mut writes = Vec::new();
                for (sort, attribute) in sides {
                    let Some(attribute) = attribute else { continue };
                    if side_stale(position, sort) && maintained_by_ddb(schema, attribute.name) {
                        writes.push((sort, attribute));
                    }
                }
                if writes.is_empty() {
                    continue;
                }
                if schema.keys[position].membership.is_some() {
                    // No other index writes it (the Table derive refuses
                    // two indexes sharing an attribute).
                    let marker = writes[0].1.name;
                    let member = match membership {
                        Membership::Condition { absent } => !absent.contains(&marker),
                        Membership::Read => true,
                    };
                    markers.push((marker, member));
                    if !member {
                        continue;
                    }
                }
                for (sort, attribute) in writes {
                    let value = E::index_side_from(position, sort, &self.key, &known)?;
                    if let Some(value) = value {
                        if !index_set.contains(&attribute.name) {
                            index_set.push(attribute.name);
                            sets.assign(&mut p, attribute.name, value.to_attribute_value());
                        }
                    }
                }
                continue;
            }
            let values = match &mut read_keys {
                Some(all) => all.remove(name),
                None if leaves => None,
                None => E::index_key_from(position, &self.key, &known)?,
            };
            match values {
                Some(values) => {
                    for (attribute, value) in index_pairs(index, &values) {
                        // Two indexes sharing an attribute hold one value.
                        if maintained_by_ddb(schema, attribute.name)
                            && !index_set.contains(&attribute.name)
                        {
                            index_set.push(attribute.name);
                            sets.assign(&mut p, attribute.name, value.to_attribute_value());
                        }
                    }
                }
                None => {
                    for attribute in std::iter::once(index.pk).chain(index.sk) {
                        if maintained_by_ddb(schema, attribute.name) {
                            removes.push((attribute.name, p.name(attribute.name)));
                        }
                    }
                }
            }
        }
        if let Some(version) = version {
            let name = p.name(version);
            match expected {
                Some(expected) => {
                    let value = version_value(entity, expected)?;
                    let out = sets.next();
                    out.push_str(&name);
                    out.push_str(" = ");
                    p.write_value(value, out);
                }
                None => {
                    let out = adds.next();
                    out.push_str(&name);
                    out.push(' ');
                    p.write_value(AttributeValue::N("1".into()), out);
                }
            }
        }
        // An attribute one index SETs is not REMOVEd for another, nor
        // REMOVEd twice.
        let mut i = 0;
        while i < removes.len() {
            let (attribute, _) = removes[i];
            if index_set.contains(&attribute) || removes[..i].iter().any(|(a, _)| *a == attribute) {
                removes.remove(i);
            } else {
                i += 1;
            }
        }
        let clauses = [&sets, &adds, &deletes]
            .map(|c| c.0.len())
            .iter()
            .sum::<usize>();
        let removing = removes.iter().map(|(_, r)| r.len() + 2).sum::<usize>();
        let mut expression = String::with_capacity(clauses + removing + 28);
        sets.close("SET", &mut expression);
        for (i, (_, name)) in removes.iter().enumerate() {
            match i {
                0 => ClauseActions::keyword("REMOVE", &mut expression),
                _ => expression.push_str(", "),
            }
            expression.push_str(name);
        }
        adds.close("ADD", &mut expression);
        deletes.close("DELETE", &mut expression);
        let expression = p.fit(entity, "update", expression)?;

        // The condition, written after the update expression (its
        // placeholders are numbered after the update's): the caller's, the
        // item's existence, its schema version, its time to live, what was
        // read first and the version.
        let mut condition = Conjunction::default();
        if let Some(caller) = &self.condition {
            condition.condition(caller, &mut p);
        }
        p.write_call("attribute_exists", table.pk.name, None, condition.term());
        // An item stored at another schema version has other attribute
        // names: an update of today's would mix the two. (Version 1 is also
        // an item without the attribute.)
        let stored_schema = crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
        let current = AttributeValue::N(schema.schema_version.to_string());
        let out = condition.term();
        if schema.schema_version == 1 {
            out.push('(');
            p.write_call("attribute_not_exists", stored_schema, None, out);
            out.push_str(" OR ");
            p.write_comparison(stored_schema, "=", current, out);
            out.push(')');
        } else {
            p.write_comparison(stored_schema, "=", current, out);
        }
        // An item past its time to live is gone but for DynamoDB's sweep: an
        // update must not bring it back.
        if let Some(ttl) = crate::item::timestamp::ttl_attribute(schema) {
            let now = AttributeValue::N(crate::item::timestamp::now_epoch_seconds().to_string());
            let expired: Condition<E> =
                Condition::attribute_is_number(ttl) & Condition::compare_value(ttl, "<=", now);
            condition.condition(&!expired, &mut p);
        }
        if let Some(read) = &read {
            for &attribute in &read.conditioned {
                let value = read.item.get(attribute).cloned();
                p.write_as_read(attribute, value, condition.term());
            }
        }
        // The item is (or is not) in each sparse index written side by side,
        // as the plan assumed.
        for &(marker, member) in &markers {
            let call = if member {
                "attribute_exists"
            } else {
                "attribute_not_exists"
            };
            p.write_call(call, marker, None, condition.term());
        }
        if let (Some(version), Some(expected)) = (version, expected) {
            condition.condition(&version_is::<E>(version, expected), &mut p);
        }
        let mut plan =
            WritePlan::with_condition(self.key, Action::Update(expression), condition.finish(), p)?;
        plan.expected_version = self.expected_version;
        plan.must_exist = true;
        plan.read = read;
        plan.markers = markers;
        Ok(plan)
    }
}
