//! Read-modify-write: the item read, changed by the caller's closure, and
//! put back conditioned on everything the closure saw, again on a conflict.

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::Condition;
use crate::item::Item;
use crate::keys::key::Key;
use crate::transport::dry_run::sensitive_attributes;

use super::item::{key_text, version_attribute};

impl Db {
    /// Reads the entity at `key` (strongly consistent), lets `change` edit
    /// it, and puts it back conditioned on every field as it was read (a
    /// versioned entity's version among them). When another writer changed
    /// the item in between, the condition fails and the item is read and
    /// changed again, up to [`attempts`](Modify::attempts) times in all with
    /// jittered backoff (the handle's retry policy); then the last conflict
    /// is returned. A missing item is [`Error::NotFound`]. A write whose
    /// answer was lost ([`Error::WriteOutcomeUnknown`]) is returned, never
    /// sent again: with [`exactly_once`](Modify::exactly_once) the SDK's own
    /// retries settle it instead.
    ///
    /// `change` may run more than once, each time on the item as stored
    /// then: keep it free of effects outside the entity. It may not change
    /// the key, nor a `#[ddb(version)]` field (ddb moves the version).
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Support", pk = "PK")]
    /// # struct Support;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize, Clone)]
    /// # #[ddb(table = Support, entity = "Ticket", pk = "TICKET#{id}")]
    /// # struct Ticket { id: String, agent: Option<String>, notes: Vec<String> }
    /// let key = Ticket::key(&"T-17".to_string())?;
    /// let modified = db
    ///     .modify(key, |ticket: &mut Ticket| {
    ///         ticket.agent = Some("ada".into());
    ///         ticket.notes.push("assigned".into());
    ///     })
    ///     .send()
    ///     .await?;
    /// assert_eq!(modified.item.agent.as_deref(), Some("ada"));
    /// # Ok(()) }
    /// ```
    pub fn modify<E, F>(&self, key: Key<E>, change: F) -> Modify<E, F>
    where
        E: Entity + 'static,
        F: FnMut(&mut E),
    {
        Modify {
            db: self.clone(),
            key,
            change,
            attempts: self.retry_policy().max_attempts.max(1),
            exactly_once: None,
        }
    }
}

/// A read-modify-write of one item; see [`Db::modify`].
#[must_use = "a modification does nothing until it is sent"]
pub struct Modify<E, F> {
    db: Db,
    key: Key<E>,
    change: F,
    attempts: u32,
    exactly_once: Option<bool>,
}

/// What a [`Db::modify`] wrote.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Modified<E> {
    /// The entity as written (its version moved on).
    pub item: E,
    /// How many times another writer's change made it read again.
    pub conflicts: u32,
}

impl<E: Entity + 'static, F: FnMut(&mut E)> Modify<E, F> {
    /// How many read-change-write rounds at most (at least one; default:
    /// the handle's retry policy's `max_attempts`).
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Counters", pk = "PK")]
    /// # struct Counters;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize, Clone)]
    /// # #[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
    /// # struct Counter { name: String, value: u64 }
    /// # async fn demo(db: ddb_runtime::Db, key: ddb_runtime::Key<Counter>) -> ddb_runtime::Result<()> {
    /// db.modify(key, |c: &mut Counter| c.value += 1).attempts(20).send().await?;
    /// # Ok(()) }
    /// ```
    pub fn attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts.max(1);
        self
    }

    /// Puts it as a one-action transaction under a ClientRequestToken, so
    /// that a lost answer is settled by the SDK's retries rather than
    /// returned as [`Error::WriteOutcomeUnknown`] (see
    /// [`Put::exactly_once`](crate::write::Put::exactly_once)). Default: the
    /// handle's.
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Counters", pk = "PK")]
    /// # struct Counters;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize, Clone)]
    /// # #[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
    /// # struct Counter { name: String, value: u64 }
    /// # async fn demo(db: ddb_runtime::Db, key: ddb_runtime::Key<Counter>) -> ddb_runtime::Result<()> {
    /// db.modify(key, |c: &mut Counter| c.value += 1).exactly_once(true).send().await?;
    /// # Ok(()) }
    /// ```
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = Some(exactly_once);
        self
    }

    /// The GetItem [`send`](Self::send) sends first (strongly consistent),
    /// not sent: the write depends on what it reads, so
    /// [`DryRun::reads_first`](crate::transport::dry_run::DryRun::reads_first) is true.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, key: ddb_runtime::Key<E>) -> ddb_runtime::Result<()> {
    /// let dry = db.modify(key, |_entity: &mut E| {}).dry_run()?;
    /// assert_eq!(dry.operation(), Some("GetItem"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.read(), sensitive, true)
    }

    /// Reads, changes and writes, again on each conflict.
    pub async fn send(mut self) -> Result<Modified<E>> {
        let policy = self.db.retry_policy();
        let mut conflicts = 0;
        loop {
            match self.round().await {
                Ok(item) => return Ok(Modified { item, conflicts }),
                Err(error) if conflicted(&error) && conflicts + 1 < self.attempts => {
                    conflicts += 1;
                    tokio::time::sleep(policy.delay(conflicts)).await;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The item as stored (strongly consistent).
    async fn read(&self) -> Result<Item> {
        let read = self.db.get(self.key.clone()).consistent_read(true);
        read.raw().await?.ok_or_else(|| Error::NotFound {
            entity: E::SCHEMA.entity_type,
            key: key_text(&self.key),
        })
    }

    /// One read, change and conditioned put.
    async fn round(&mut self) -> Result<E> {
        let schema = &E::SCHEMA;
        let read = self.read().await?;
        let mut entity = E::from_item(read.clone()).map_err(|e| e.with_key(&self.key))?;
        (self.change)(&mut entity);
        let changed = entity.to_item()?;
        self.check_change(&read, &changed, &entity)?;
        let mut put = self.db.put(&entity).condition(unchanged::<E>(&read));
        if let Some(exactly_once) = self.exactly_once {
            put = put.exactly_once(exactly_once);
        }
        let written = put.send().await?;
        if let (Some(version), Some(attribute)) = (written.version, version_attribute(schema)) {
            let mut stored = changed;
            stored.insert(
                attribute.to_owned(),
                aws_sdk_dynamodb::types::AttributeValue::N(version.to_string()),
            );
            entity = E::from_item(stored).map_err(|e| e.with_key(&self.key))?;
        }
        Ok(entity)
    }

    /// Refuses a change of the key or of the version: the put would write
    /// another item, or conflict with itself.
    fn check_change(&self, read: &Item, changed: &Item, entity: &E) -> Result<()> {
        let schema = &E::SCHEMA;
        let invalid = |reason: &str| Error::InvalidRequest {
            entity: schema.entity_type,
            reason: reason.to_owned(),
        };
        if entity.primary_key()?.values() != self.key.values() {
            return Err(invalid(
                "a modification changed the item's key; create the item at its new key and \
                 delete the old one in a transaction",
            ));
        }
        if let Some(version) = version_attribute(schema) {
            if read.get(version) != changed.get(version) {
                return Err(invalid(
                    "a modification changed the #[ddb(version)] field, which ddb moves itself",
                ));
            }
        }
        Ok(())
    }
}

/// Every field as `read` holds it (absent where it held none); the version,
/// which the put conditions on itself, aside.
fn unchanged<E: Entity>(read: &Item) -> Condition<E> {
    let schema = &E::SCHEMA;
    let version = version_attribute(schema);
    let mut condition = Condition::attribute_exists(schema.table.pk.name);
    for field in schema.fields {
        if Some(field.attribute) == version {
            continue;
        }
        let held = match read.get(field.attribute) {
            Some(value) => Condition::compare_value(field.attribute, "=", value.clone()),
            None => Condition::attribute_not_exists(field.attribute),
        };
        condition = condition & held;
    }
    condition
}

/// Another writer changed (or removed) the item between the read and the
/// write.
fn conflicted(error: &Error) -> bool {
    matches!(
        error,
        Error::VersionConflict { .. }
            | Error::ConditionFailed { .. }
            | Error::ChangedSinceRead { .. }
    )
}
