//! A conditional upsert: the item created, or its attributes replaced by
//! the entity's when the stored item meets a condition ("raise the score if
//! the new one is higher"), in one UpdateItem that keeps index keys,
//! stamps, version and time to live as a create and an update do.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, ExistingItem, Result};
use crate::expression::Condition;
use crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
use crate::item::timestamp::expired;
use crate::transport::dry_run::{sensitive_attributes, DryRun};
use crate::writes::create::{Create, Created};
use crate::writes::item::{has_unique, prepare};
use crate::writes::plan::and;
use crate::writes::unique::UNIQUE_TRIES;
use crate::writes::written::Written;

use super::{Op, Update};

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upserted {
    /// No live item had the key: the entity was created.
    Created,
    /// The stored item met the condition: its attributes are the entity's.
    Updated,
}

/// A conditional upsert; finish with [`send`](Upsert::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Upsert<E> {
    /// The update that writes every attribute of the entity.
    update: Result<Update<E>>,
    /// The create an item past its time to live, or an absent item of an
    /// entity with unique values, is written by.
    create: Create<E>,
}

impl Db {
    /// Creates `entity` when no live item has its key, or else writes every
    /// attribute of the stored item from `entity` (an attribute `entity`
    /// leaves out is removed) when the stored item meets the
    /// [`condition`](Upsert::condition): one UpdateItem, which says which
    /// happened ([`Upserted`]). As a create and an update do, it writes the
    /// index keys the entity's fields make (a sparse index joined or left),
    /// `created_at` once and `updated_at` each time, the version (1 when
    /// created, one more when updated) and the time to live.
    ///
    /// An entity with unique values reads first: an absent item is created
    /// with the guards of its values, a stored one updated moving them
    /// (see [`Db::update`]).
    ///
    /// An upsert is never exactly-once (a transaction returns no item, so
    /// could not say which happened), even under
    /// [`Db::with_exactly_once_writes`]. When an attempt's answer is lost
    /// and the SDK sends it again, the retry meets the item the first
    /// attempt wrote: the item holds `entity` either way, but a retry
    /// whose condition still holds applies again (the version moves by
    /// two, `updated_at` is rewritten) and reports `Updated` for an item
    /// the first attempt created. Where that matters, send a create or a
    /// versioned update with `exactly_once(true)`.
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Game", pk = "PK", sk = "SK")]
    /// # struct Game;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Game, entity = "Best", pk = "PLAYER#{player}", sk = "BEST#{level}")]
    /// # struct Best { player: String, level: u32, score: u64 }
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// let best = Best { player: "ada".into(), level: 3, score: 9_120 };
    /// let score = Best::fields().score;
    /// match db.upsert(&best).condition(score.lt(best.score)).send().await {
    ///     Ok(ddb_runtime::Upserted::Created) => println!("first score on this level"),
    ///     Ok(ddb_runtime::Upserted::Updated) => println!("a new best"),
    ///     Err(e) if e.is_condition_failed() => println!("not better than the stored best"),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok(()) }
    /// ```
    pub fn upsert<E: Entity + 'static>(&self, entity: &E) -> Upsert<E> {
        let update = entity.primary_key().and_then(|key| {
            let update = Update {
                exactly_once: false,
                upsert: true,
                ..self.update(key)
            };
            let ops = entity_ops(entity)?;
            Ok(ops
                .into_iter()
                .fold(update, |update, op| update.push(Ok(op))))
        });
        Upsert {
            update,
            create: self.create(entity),
        }
    }
}

/// The changes that make the stored item hold `entity`: every attribute
/// of the entity's item set as a create writes it (its entity type, schema
/// version, fields and time to live), every field it leaves out removed;
/// but its key, the index keys ddb maintains, and the stamps and version
/// ddb writes itself.
fn entity_ops<E: Entity>(entity: &E) -> Result<Vec<Op>> {
    let schema = &E::SCHEMA;
    let item = prepare(entity, true, None)?.item;
    let written_by_ddb = |f: &crate::declaration::model::FieldDef| {
        f.role.version || f.role.created_at || f.role.updated_at
    };
    let mut ops = Vec::with_capacity(schema.fields.len() + 2);
    for field in schema.fields.iter().filter(|f| !written_by_ddb(f)) {
        let is_key = [
            Some(schema.table.pk.name),
            schema.table.sk.map(|sk| sk.name),
        ]
        .contains(&Some(field.attribute));
        if is_key {
            continue;
        }
        ops.push(match item.get(field.attribute) {
            Some(value) => Op::Set(field.attribute, value.clone()),
            None => Op::Remove(field.attribute),
        });
    }
    let entity_type = AttributeValue::S(schema.entity_type.to_owned());
    ops.push(Op::Set(schema.table.entity_attribute, entity_type));
    if let Some(version) = item.get(SCHEMA_VERSION_ATTRIBUTE) {
        ops.push(Op::Set(SCHEMA_VERSION_ATTRIBUTE, version.clone()));
    }
    Ok(ops)
}

impl<E: Entity + 'static> Upsert<E> {
    /// Updates only when `condition` holds on the stored item; a create
    /// (no live item) does not read it. A stored item that fails it is
    /// [`Error::ConditionFailed`], with the item.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        if let Ok(update) = &mut self.update {
            update.condition = Some(and(update.condition.take(), condition));
        }
        self
    }

    /// The request [`send`](Self::send) would send first, not sent: the
    /// UpdateItem (for an entity with unique values, the strongly
    /// consistent GetItem it reads first).
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, best: E) -> ddb_runtime::Result<()> {
    /// println!("{}", db.upsert(&best).dry_run()?); // UpdateItem, ConditionExpression: attribute_not_exists(PK) OR (...)
    /// # Ok(()) }
    /// ```
    pub fn dry_run(&self) -> Result<DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.create.db.dry_run(self.sent(), sensitive, true)
    }

    /// Sends it: [`Upserted::Created`] or [`Upserted::Updated`].
    pub async fn send(self) -> Result<Upserted> {
        self.sent().await
    }

    async fn sent(&self) -> Result<Upserted> {
        let update = self.update.as_ref().map_err(Error::clone_input)?;
        if has_unique::<E>() {
            return self.send_guarded(update).await;
        }
        match update.sent().await {
            // UPDATED_OLD: the attributes an updated item held.
            Ok(written) => Ok(upserted(&written)),
            // An item past its time to live is gone but for DynamoDB's
            // sweep: it is created over, as a create does.
            Err(Error::ConditionFailed {
                existing: Some(ExistingItem(item)),
                ..
            }) if expired(&E::SCHEMA, &item) => self.create_over_expired().await,
            Err(error) => Err(error),
        }
    }

    /// The create of the entity over an item whose time to live passed.
    async fn create_over_expired(&self) -> Result<Upserted> {
        match self.create.clone().send().await? {
            Created::Created => Ok(Upserted::Created),
            Created::AlreadyExisted => Ok(Upserted::Updated),
        }
    }

    /// The upsert of an entity with unique values: the stored item read;
    /// updated moving the guards of its values when there is one, created
    /// with them when there is none; read again when another writer
    /// created or deleted it in between.
    async fn send_guarded(&self, upsert: &Update<E>) -> Result<Upserted> {
        let update = Update {
            upsert: false,
            ..upsert.copied()
        };
        for _ in 0..UNIQUE_TRIES {
            match update.sent().await {
                Ok(_) => return Ok(Upserted::Updated),
                Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error),
            }
            match self.create.clone().send().await {
                Ok(Created::Created) => return Ok(Upserted::Created),
                // The very item was there: nothing to change.
                Ok(Created::AlreadyExisted) => return Ok(Upserted::Updated),
                Err(Error::AlreadyExists { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        Err(crate::writes::unique::kept_changing(&update.key))
    }
}

/// Created or updated, by what the UpdateItem returned of the attributes
/// it replaced (nothing when there was no item).
fn upserted<E>(written: &Written<E>) -> Upserted {
    match &written.raw {
        Some(old) if !old.is_empty() => Upserted::Updated,
        _ => Upserted::Created,
    }
}
