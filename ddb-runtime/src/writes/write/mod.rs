//! Writes: idempotent create, put, delete and typed updates that keep every
//! index key right, with optimistic locking and sizes checked before sending.

mod attempts;
mod item;
mod plan;
mod sent;
mod update;

use aws_sdk_dynamodb::types::ReturnValue;

use crate::db::Db;
use crate::error::{Error, ExistingItem, Result};
use crate::expr::{Condition, Placeholders};
use crate::telemetry::Capacity;
use crate::{Entity, Key, Table};

pub(crate) use attempts::Attempts;
pub(crate) use item::{
    index_inputs, key_text, maintained_by_ddb, maintained_index_attributes, prepare, same_value,
    version_attribute, Prepared,
};
pub use item::{item_size, ITEM_SIZE_LIMIT};
pub(crate) use item::{value_size, Decimal};
pub(crate) use plan::{Action, WritePlan};
pub(crate) use sent::transact_items as sent_transact_items;
pub(crate) use update::ClauseActions;
pub use update::{Addable, Updatable, Update};

use item::{next_version, same_item, stamp_attributes, version_is};
use plan::and;

/// Whether `create` wrote the item or found it already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// The item was written.
    Created,
    /// An identical item was already stored (a retried create): nothing changed.
    AlreadyExisted,
}

/// An idempotent create; finish with [`send`](Create::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Create<E> {
    db: Db,
    prepared: Result<Prepared<E>>,
    exactly_once: bool,
}

impl Db {
    /// Writes `entity` if no item has its key (`attribute_not_exists`).
    ///
    /// Idempotent: when the item is already there and holds the same data
    /// (ignoring the `created_at`/`updated_at` ddb sets), the call succeeds
    /// with [`Created::AlreadyExisted`], so a retry after a lost response is
    /// safe. A different item at the key is [`Error::AlreadyExists`], carrying
    /// the stored item. A `#[ddb(version)]` field is written as 1.
    pub fn create<E: Entity + 'static>(&self, entity: &E) -> Create<E> {
        Create {
            db: self.clone(),
            prepared: prepare(entity, true, Some(1)),
            exactly_once: self.exactly_once_writes(),
        }
    }

    /// Writes `entity`, replacing any item at its key (an upsert).
    ///
    /// With a `#[ddb(version)]` field, the stored version must equal the
    /// entity's (or no item may exist when it is 0), and version + 1 is
    /// written: a stale entity is an [`Error::VersionConflict`].
    pub fn put<E: Entity + 'static>(&self, entity: &E) -> Put<E> {
        let expected = entity.version();
        let next = expected.map(|v| next_version(E::SCHEMA.entity_type, v));
        Put {
            db: self.clone(),
            prepared: next
                .transpose()
                .and_then(|next| prepare(entity, false, next)),
            expected_version: expected,
            condition: None,
            return_old: false,
            exactly_once: self.exactly_once_writes(),
        }
    }

    /// Deletes the item at `key`. Deleting a missing item is not an error
    /// unless a condition says so.
    pub fn delete<E: Entity + 'static>(&self, key: Key<E>) -> Delete<E> {
        Delete {
            db: self.clone(),
            key: Ok(key),
            expected_version: None,
            condition: None,
            return_old: false,
            exactly_once: self.exactly_once_writes(),
        }
    }

    /// Deletes a loaded entity, checking its `#[ddb(version)]` if it has one.
    pub fn delete_entity<E: Entity + 'static>(&self, entity: &E) -> Delete<E> {
        Delete {
            db: self.clone(),
            key: entity.primary_key(),
            expected_version: entity.version(),
            condition: None,
            return_old: false,
            exactly_once: self.exactly_once_writes(),
        }
    }
}

/// A create's plan: put `item` unless a live item has its key.
fn put_if_absent<E: Entity + 'static>(key: Key<E>, item: crate::Item) -> Result<WritePlan<E>> {
    let absent = absent_or_expired::<E>();
    WritePlan::new(
        key,
        Action::Put(item),
        Some(&absent),
        Placeholders::default(),
    )
}

/// No item at the key, or an expired one: every read treats an expired item
/// as absent (DynamoDB deletes it days later), and a write that expects none
/// takes its place.
fn absent_or_expired<E: Entity>() -> Condition<E> {
    let absent = Condition::attribute_not_exists(<E::Table as Table>::DEF.pk.name);
    match crate::timestamp::ttl_attribute(&E::SCHEMA) {
        Some(ttl) => absent | Condition::expired(ttl, crate::timestamp::now_epoch_seconds()),
        None => absent,
    }
}

impl<E: Entity + 'static> Create<E> {
    /// The create as a put conditioned on no item having the key.
    pub(crate) fn plan(self) -> Result<WritePlan<E>> {
        let Prepared { item, key, size } = self.prepared?;
        let mut plan = put_if_absent(key, item)?;
        plan.item_size = Some(size);
        Ok(plan)
    }

    /// Reports [`Created::Created`] exactly when this call wrote the item,
    /// even when its answer was lost and the SDK sent it again: the create
    /// goes as a one-action TransactWriteItems under a ClientRequestToken,
    /// which DynamoDB recognises on the retry (for ten minutes) and does not
    /// apply twice. It costs two write units per KB instead of one. Without
    /// it, a create whose first answer was lost reports
    /// [`Created::AlreadyExisted`] for its own write.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "SignUp", pk = "SIGNUP#{email}")]
    /// # struct SignUp { email: String }
    /// let sign_up = SignUp { email: "ada@example.com".into() };
    /// if db.create(&sign_up).exactly_once(true).send().await? == ddb_runtime::Created::Created {
    ///     // counted once, whatever the network did
    /// }
    /// # Ok(()) }
    /// ```
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// Sends the PutItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    ///
    /// A plain create whose first attempt lost its answer and whose retry
    /// meets the same data reports [`Created::Created`]: the item is this
    /// call's unless another caller created the very same item at that
    /// moment; [`exactly_once`](Self::exactly_once) is exact. Meeting other
    /// data after such an attempt is [`Error::WriteOutcomeUnknown`].
    pub async fn send(self) -> Result<Created> {
        self.send_with_capacity().await.map(|(created, _)| created)
    }

    /// [`send`](Self::send), with the capacity DynamoDB reported (none when
    /// the item was already there).
    pub async fn send_with_capacity(self) -> Result<(Created, Capacity)> {
        let db = self.db.clone();
        let exactly_once = self.exactly_once;
        let mut plan = self.plan()?;
        // The item moves into the request; the body kept is read back when
        // a failed condition needs this call's item to compare: the item as
        // stored, after the caller's interceptors, which may rewrite it (sign
        // it, encrypt it). With interceptors, the item before them is kept
        // too: one that also reads items back (decrypts them) returns the
        // item met as it was before.
        let before_interceptors = match &plan.action {
            Action::Put(item) if db.sdk().intercepted() => Some(item.clone()),
            _ => None,
        };
        let attempts = Attempts::keeping_sent();
        let sent = if exactly_once {
            plan.send_exactly_once_recorded(&db, &attempts).await
        } else {
            plan.send_recorded(&db, None, &attempts)
                .await
                .map(|(_, capacity)| capacity)
        };
        let already_there = move |failure: Error| match failure {
            Error::ConditionFailed {
                entity,
                key,
                existing: Some(ExistingItem(existing)),
            } => {
                let ours = attempts.sent().and_then(|body| sent::put_item(&body));
                if ours.is_none() && before_interceptors.is_none() {
                    tracing::warn!(
                        entity,
                        "a create's item could not be read back from the request sent; \
                         the item found is reported as another"
                    );
                }
                let stamps = stamp_attributes(&E::SCHEMA);
                let same = [ours, before_interceptors]
                    .iter()
                    .flatten()
                    .any(|ours| same_item(&existing, ours, &stamps));
                if same {
                    Ok((Created::AlreadyExisted, Capacity::default()))
                } else {
                    Err(Error::AlreadyExists {
                        entity,
                        key,
                        existing: ExistingItem(existing),
                    })
                }
            }
            error => Err(error),
        };
        match sent {
            Ok(capacity) => Ok((Created::Created, capacity)),
            // An attempt of this call may have written the item.
            Err(Error::WriteOutcomeUnknown {
                entity,
                key,
                failure,
            }) => match already_there(*failure) {
                Ok(_) => Ok((Created::Created, Capacity::default())),
                Err(failure) => Err(Error::WriteOutcomeUnknown {
                    entity,
                    key,
                    failure: Box::new(failure),
                }),
            },
            Err(error) => already_there(error),
        }
    }
}

/// What a put, delete or update left behind.
#[derive(Debug, Clone, PartialEq)]
pub struct Written<E> {
    /// The version now stored, for entities with `#[ddb(version)]`.
    pub version: Option<u64>,
    /// The item before the write (put and delete with `return_old`) or after
    /// it (update with `return_new`), decoded. `None` when none was asked
    /// for, or when the returned item does not decode as `E`: the write was
    /// applied all the same, and [`raw`](Self::raw) holds what DynamoDB sent.
    pub item: Option<E>,
    /// The attributes DynamoDB returned, undecoded.
    pub raw: Option<crate::Item>,
    /// The capacity DynamoDB reported the write consumed, table and indexes.
    pub capacity: Capacity,
}

/// A transaction returns no item: an exactly-once write cannot return one.
pub(crate) fn no_return_values<E: Entity>(asked: bool) -> Result<()> {
    if asked {
        return Err(Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: "an exactly-once write is a transaction, which returns no item; \
                     drop return_old/return_new or read the item afterwards"
                .into(),
        });
    }
    Ok(())
}

/// `expect_version` needs a `#[ddb(version)]` field to compare.
pub(crate) fn require_version<E: Entity>() -> Result<()> {
    match version_attribute(&E::SCHEMA) {
        Some(_) => Ok(()),
        None => Err(Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: format!(
                "expect_version needs a #[ddb(version)] field, and {} has none",
                E::SCHEMA.rust_name
            ),
        }),
    }
}

impl<E: Entity> Written<E> {
    /// The outcome of a write DynamoDB applied: the returned attributes are
    /// decoded when they can be, and never turn the write into an error.
    pub(crate) fn applied(
        version: Option<u64>,
        returned: Option<crate::Item>,
        decode: bool,
        capacity: Capacity,
    ) -> Self {
        // Copied only to decode: an update that asked for no item gets the
        // new version back, not a decoded entity.
        let item = match &returned {
            Some(raw) if decode => E::from_item(raw.clone()).ok(),
            _ => None,
        };
        Written {
            version,
            item,
            raw: returned,
            capacity,
        }
    }
}

/// A put (upsert); finish with [`send`](Put::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Put<E> {
    db: Db,
    prepared: Result<Prepared<E>>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_old: bool,
    exactly_once: bool,
}

impl<E: Entity + 'static> Put<E> {
    /// Writes only if `condition` holds on the stored item.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the replaced item when `true` (`ReturnValues = ALL_OLD`).
    pub fn return_old(mut self, return_old: bool) -> Self {
        self.return_old = return_old;
        self
    }

    fn full_condition(&self) -> Option<Condition<E>> {
        let mut condition = self.condition.clone();
        if let (Some(attribute), Some(expected)) =
            (version_attribute(&E::SCHEMA), self.expected_version)
        {
            let version = if expected == 0 {
                absent_or_expired::<E>()
            } else {
                version_is(attribute, expected)
            };
            condition = Some(and(condition, version));
        }
        condition
    }

    /// The put as a write plan, its version check included.
    pub(crate) fn plan(self) -> Result<WritePlan<E>> {
        let condition = self.full_condition();
        let Prepared { item, key, size } = self.prepared?;
        let mut plan = WritePlan::new(
            key,
            Action::Put(item),
            condition.as_ref(),
            Placeholders::default(),
        )?;
        plan.expected_version = self.expected_version;
        plan.item_size = Some(size);
        Ok(plan)
    }

    /// Sends it as a one-action TransactWriteItems under a
    /// ClientRequestToken, so that a retry after a lost answer is never
    /// applied twice nor fails on this call's own write: a
    /// [`VersionConflict`](Error::VersionConflict) is then always another
    /// writer's. Costs two write units per KB instead of one;
    /// [`return_old`](Self::return_old) is not available (a transaction
    /// returns no item). [`Db::with_exactly_once_writes`] makes it the
    /// default of every write; `exactly_once(false)` opts one call out.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Counter", pk = "COUNTER#{name}")]
    /// # struct Counter { name: String, value: u64, #[ddb(version)] version: u64 }
    /// let key = Counter::key(&"visits".to_string())?;
    /// let mut counter: Counter = db.get(key).consistent_read(true).send().await?.unwrap();
    /// counter.value += 1;
    /// db.put(&counter).exactly_once(true).send().await?;
    /// # Ok(()) }
    /// ```
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// Sends the PutItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    ///
    /// A versioned put whose first attempt lost its answer and whose retry
    /// then fails its condition is [`Error::WriteOutcomeUnknown`], never a
    /// [`VersionConflict`](Error::VersionConflict): the lost attempt may
    /// have been applied.
    pub async fn send(self) -> Result<Written<E>> {
        let db = self.db.clone();
        let (return_old, exactly_once) = (self.return_old, self.exactly_once);
        if exactly_once {
            no_return_values::<E>(return_old)?;
        }
        let mut plan = self.plan()?;
        let version = plan.expected_version.map(|v| v + 1);
        if exactly_once {
            let capacity = plan.send_exactly_once(&db).await?;
            return Ok(Written::applied(version, None, false, capacity));
        }
        let (old, capacity) = plan
            .send(&db, return_old.then_some(ReturnValue::AllOld))
            .await?;
        Ok(Written::applied(version, old, true, capacity))
    }
}

/// A delete; finish with [`send`](Delete::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Delete<E> {
    db: Db,
    key: Result<Key<E>>,
    expected_version: Option<u64>,
    condition: Option<Condition<E>>,
    return_old: bool,
    exactly_once: bool,
}

impl<E: Entity + 'static> Delete<E> {
    /// Deletes only if the stored version is `version`. On an entity
    /// without `#[ddb(version)]` the delete fails with
    /// [`Error::InvalidRequest`] and nothing is sent.
    pub fn expect_version(mut self, version: u64) -> Self {
        self.key = self.key.and_then(|key| {
            require_version::<E>()?;
            Ok(key)
        });
        self.expected_version = Some(version);
        self
    }

    /// Deletes only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = Some(and(self.condition.take(), condition));
        self
    }

    /// Returns the deleted item when `true` (`ReturnValues = ALL_OLD`).
    pub fn return_old(mut self, return_old: bool) -> Self {
        self.return_old = return_old;
        self
    }

    /// The delete as a write plan, its version check included.
    pub(crate) fn plan(self) -> Result<WritePlan<E>> {
        let mut condition = self.condition;
        if let (Some(attribute), Some(expected)) =
            (version_attribute(&E::SCHEMA), self.expected_version)
        {
            condition = Some(and(condition, version_is(attribute, expected)));
        }
        let mut plan = WritePlan::new(
            self.key?,
            Action::Delete,
            condition.as_ref(),
            Placeholders::default(),
        )?;
        plan.expected_version = self.expected_version;
        Ok(plan)
    }

    /// Sends it as a one-action TransactWriteItems under a
    /// ClientRequestToken: see [`Put::exactly_once`].
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// Sends the DeleteItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    pub async fn send(self) -> Result<Written<E>> {
        let db = self.db.clone();
        let (return_old, exactly_once) = (self.return_old, self.exactly_once);
        if exactly_once {
            no_return_values::<E>(return_old)?;
        }
        let mut plan = self.plan()?;
        if exactly_once {
            let capacity = plan.send_exactly_once(&db).await?;
            return Ok(Written::applied(None, None, false, capacity));
        }
        let (old, capacity) = plan
            .send(&db, return_old.then_some(ReturnValue::AllOld))
            .await?;
        Ok(Written::applied(None, old, true, capacity))
    }
}
