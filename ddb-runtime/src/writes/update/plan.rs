//! The UpdateItem an update sends: its expression (the caller's changes, the
//! stamps, the index keys, the version), the 400 KB floor, and its condition.

use std::time::SystemTime;

use futures::FutureExt;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Condition, Conjunction, Placeholders};
use crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
use crate::item::Item;
use crate::writes::item::{
    check_update_floor, is_updated_at, version_attribute, version_is, version_value,
};
use crate::writes::plan::{Action, Assumptions, ReadFirst, WritePlan};

use super::clauses::UpdateClauses;
use super::index_keys::Changes;
use super::{Assumed, Op, Update};

impl<E: Entity + 'static> Update<E> {
    /// Builds the UpdateItem. Index keys that depend on a changed field are
    /// recomputed in the same request: from the primary key and the values
    /// the update sets when those are all an index reads, else from the item
    /// read first, with the write conditioned on everything read.
    pub(crate) async fn plan(&self) -> Result<WritePlan<E>> {
        self.plan_with(Assumed::Nothing).await
    }

    /// [`plan`](Self::plan), assuming of the stored item what `assumed`
    /// says.
    pub(super) async fn plan_with(&self, assumed: Assumed<'_>) -> Result<WritePlan<E>> {
        match self.planned(assumed, true).await? {
            Some(plan) => Ok(plan),
            None => Err(Error::InvalidRequest {
                entity: E::SCHEMA.entity_type,
                reason: format!("{} update planned without its read", self.key.pk().as_str()),
            }),
        }
    }

    /// [`plan`](Self::plan) without reading: `None` when the update must
    /// read the item first.
    pub(crate) fn plan_unread(&self) -> Result<Option<WritePlan<E>>> {
        self.plan_unread_with(Assumed::Nothing)
    }

    /// [`plan_unread`](Self::plan_unread), assuming what `assumed` says.
    pub(super) fn plan_unread_with(&self, assumed: Assumed<'_>) -> Result<Option<WritePlan<E>>> {
        // Without its read, planning awaits nothing: it is done at once.
        self.planned(assumed, false)
            .now_or_never()
            .unwrap_or_else(|| {
                Err(Error::InvalidRequest {
                    entity: E::SCHEMA.entity_type,
                    reason: "an update planned without reading awaited".into(),
                })
            })
    }

    /// The plan; `None` when the update must read first and `may_read` is
    /// false.
    async fn planned(&self, assumed: Assumed<'_>, may_read: bool) -> Result<Option<WritePlan<E>>> {
        self.refusal()?;
        check_changes::<E>(&self.ops)?;
        let schema = &E::SCHEMA;
        let mut p = Placeholders::default();
        let mut clauses = UpdateClauses::of_changes(&self.ops, &mut p);
        let (mut known, removed) = decided_by_changes(&self.ops);
        let updated = write_stamps::<E>(&mut clauses, &mut p, &mut known);
        check_update_floor::<E>(&known, appended_or_added(&self.ops), &self.key)?;
        let version = version_attribute(schema);
        if let (Some(attribute), Some(expected)) = (version, self.expected_version) {
            known.insert(
                attribute.to_owned(),
                version_value(schema.entity_type, expected)?,
            );
        }
        let changes = Changes {
            ops: &self.ops,
            key: &self.key,
            known,
            removed,
            updated,
            version,
            assumed,
            creates: self.upsert,
        };
        // The indexes whose keys or membership the update can change, those
        // it takes the item out of, and whether any needs the item read.
        let stale = changes.stale_indexes();
        // Each rule is evaluated once: the index keys below remove these
        // indexes' attributes without computing their keys again.
        let leaving: Vec<usize> = stale
            .iter()
            .copied()
            .filter(|&p| changes.leaves(p))
            .collect();
        let needs_read = changes.needs_read(&stale, &leaving);
        if needs_read && !may_read {
            return Ok(None);
        }
        let (expected, read, read_keys) = if needs_read {
            let read = changes
                .read_first(&self.db, &stale, self.expected_version)
                .await?;
            (read.expected, Some(read.read), Some(read.keys))
        } else {
            (self.expected_version, None, None)
        };
        let markers =
            changes.write_index_keys(&stale, &leaving, read_keys, &mut clauses, &mut p)?;
        write_version::<E>(&mut clauses, &mut p, version, expected)?;
        let schema_stored = stores_schema(assumed, read.as_ref());
        if !schema.schema_declared && schema_stored {
            clauses.remove(&mut p, SCHEMA_VERSION_ATTRIBUTE);
        }
        let expression = p.fit(schema.entity_type, "update", clauses.into_expression())?;
        let assumptions = Assumptions {
            markers,
            no_stored_schema: !schema.schema_declared
                && matches!(assumed, Assumed::InCondition { .. })
                && !schema_stored,
        };
        let condition = update_condition(
            self.condition.as_ref(),
            read.as_ref(),
            &assumptions,
            version.zip(expected),
            &mut p,
        );
        // An upsert creates the item where there is none.
        let condition = match (self.upsert, condition) {
            (true, Ok(Some(text))) => {
                let mut absent = String::new();
                p.write_call(
                    "attribute_not_exists",
                    schema.table.pk.name,
                    None,
                    &mut absent,
                );
                Ok(Some(format!("{absent} OR ({text})")))
            }
            (_, condition) => condition,
        };
        let key = self.key.clone();
        let mut plan = WritePlan::with_condition(key, Action::Update(expression), condition, p)?;
        plan.expected_version = self.expected_version;
        plan.must_exist = !self.upsert;
        plan.read = read;
        plan.assumed = assumptions;
        Ok(Some(plan))
    }
}

/// Refuses an update with no change, one that changes an attribute twice
/// (DynamoDB refuses overlapping paths), and one that changes a field ddb
/// writes itself.
fn check_changes<E: Entity>(ops: &[Op]) -> Result<()> {
    let schema = &E::SCHEMA;
    let entity = schema.entity_type;
    if ops.is_empty() {
        return Err(Error::InvalidUpdate {
            entity,
            reason: "an update needs at least one change".into(),
        });
    }
    // An update changes a handful of attributes: small lists, not hash
    // sets, keep what it has seen.
    let twice = |(i, op): (usize, &Op)| ops[..i].iter().any(|o| o.attribute() == op.attribute());
    if let Some((_, op)) = ops.iter().enumerate().find(|&entry| twice(entry)) {
        return Err(Error::InvalidUpdate {
            entity,
            reason: format!(
                "attribute `{}` is changed twice in one update; DynamoDB refuses overlapping paths",
                op.attribute()
            ),
        });
    }
    if let Some(field) = ops.iter().find_map(|op| {
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
    Ok(())
}

/// What the item's attributes are after the update, where the update
/// alone decides them: values it sets, and attributes it removes.
fn decided_by_changes(ops: &[Op]) -> (Item, Vec<&'static str>) {
    let mut known: Item = Item::new();
    let mut removed: Vec<&'static str> = Vec::new();
    for op in ops {
        match op {
            Op::Set(a, v) => {
                known.insert((*a).to_owned(), v.clone());
            }
            Op::Remove(a) => removed.push(a),
            _ => {}
        }
    }
    (known, removed)
}

/// The `created_at` and `updated_at` stamps: `updated_at` SET to now (a
/// value the update then decides), `created_at` SET only where the item
/// lacks it. Returns the `updated_at` stamps.
fn write_stamps<E: Entity>(
    clauses: &mut UpdateClauses,
    p: &mut Placeholders,
    known: &mut Item,
) -> Vec<(&'static str, AttributeValue)> {
    let mut updated = Vec::new();
    for (attribute, value) in E::stamps(true, SystemTime::now()) {
        if is_updated_at(&E::SCHEMA, attribute) {
            clauses.set(p, attribute, value.clone());
            known.insert(attribute.to_owned(), value.clone());
            updated.push((attribute, value));
        } else {
            clauses.set_if_not_exists(p, attribute, value);
        }
    }
    updated
}

/// The values the update appends to a list or adds to a number or set.
fn appended_or_added(ops: &[Op]) -> impl Iterator<Item = (&str, &AttributeValue)> {
    ops.iter().filter_map(|op| match op {
        Op::Append(a, v) | Op::Add(a, v) => Some((*a, v)),
        _ => None,
    })
}

/// The version: SET to the one after `expected` when the update knows the
/// version it replaces, else ADDed 1.
fn write_version<E: Entity>(
    clauses: &mut UpdateClauses,
    p: &mut Placeholders,
    version: Option<&'static str>,
    expected: Option<u64>,
) -> Result<()> {
    let Some(version) = version else {
        return Ok(());
    };
    match expected {
        Some(expected) => {
            let value = version_value(E::SCHEMA.entity_type, expected)?;
            clauses.set_version(p, version, value);
        }
        None => clauses.add_one(p, version),
    }
    Ok(())
}

/// Whether the update knows the item stores `_schema`: it was told so (a
/// failed condition showed it), or read it. An entity that declares no
/// schema version writes none; one that declared `schema_version = 1` and
/// no longer does left `_schema = 1`, which such an update then removes
/// (it reads as version 1 either way), and its condition accepts either.
fn stores_schema(assumed: Assumed<'_>, read: Option<&ReadFirst>) -> bool {
    let told = matches!(
        assumed,
        Assumed::InCondition {
            schema_stored: true,
            ..
        }
    );
    told || read.is_some_and(|read| read.item.contains_key(SCHEMA_VERSION_ATTRIBUTE))
}

/// The condition, written after the update expression (its placeholders
/// are numbered after the update's): the caller's, the item's existence,
/// its schema version, its time to live, what was read first, the
/// membership of each sparse index written side by side, and the version
/// (the attribute and the value it must hold).
fn update_condition<E: Entity>(
    caller: Option<&Condition<E>>,
    read: Option<&ReadFirst>,
    assumed: &Assumptions,
    version: Option<(&'static str, u64)>,
    p: &mut Placeholders,
) -> std::result::Result<Option<String>, String> {
    let schema = &E::SCHEMA;
    let mut condition = Conjunction::default();
    if let Some(caller) = caller {
        condition.condition(caller, p);
    }
    p.write_call(
        "attribute_exists",
        schema.table.pk.name,
        None,
        condition.term(),
    );
    // An item stored at another schema version has other attribute
    // names: an update of today's would mix the two. Version 1 is stored
    // as no `_schema`, or as `_schema = 1` by an entity that declares it.
    let current = AttributeValue::N(schema.schema_version.to_string());
    let out = condition.term();
    if assumed.no_stored_schema {
        p.write_call("attribute_not_exists", SCHEMA_VERSION_ATTRIBUTE, None, out);
    } else if schema.schema_version == 1 {
        out.push('(');
        p.write_call("attribute_not_exists", SCHEMA_VERSION_ATTRIBUTE, None, out);
        out.push_str(" OR ");
        p.write_comparison(SCHEMA_VERSION_ATTRIBUTE, "=", current, out);
        out.push(')');
    } else {
        p.write_comparison(SCHEMA_VERSION_ATTRIBUTE, "=", current, out);
    }
    // An item past its time to live is gone but for DynamoDB's sweep: an
    // update must not bring it back.
    if let Some(ttl) = crate::item::timestamp::ttl_attribute(schema) {
        let now = AttributeValue::N(crate::item::timestamp::now_epoch_seconds().to_string());
        let expired: Condition<E> =
            Condition::attribute_is_number(ttl) & Condition::compare_value(ttl, "<=", now);
        condition.condition(&!expired, p);
    }
    if let Some(read) = read {
        for &attribute in &read.conditioned {
            let value = read.item.get(attribute).cloned();
            p.write_as_read(attribute, value, condition.term());
        }
    }
    // The item is (or is not) in each sparse index written side by side,
    // as the plan assumed.
    for &(marker, member) in &assumed.markers {
        let call = if member {
            "attribute_exists"
        } else {
            "attribute_not_exists"
        };
        p.write_call(call, marker, None, condition.term());
    }
    if let Some((version, expected)) = version {
        condition.condition(&version_is::<E>(version, expected), p);
    }
    condition.finish()
}
