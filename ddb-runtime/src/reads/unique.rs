//! Reading an entity by a unique value: its guard names the item.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::keys::guard::{
    owner_of, unique_guard_key, unique_value, unique_value_of, OWNER_PK, OWNER_SK,
};
use crate::keys::key::{Key, KeyValues};

/// A unique value of entity `E`, built by a generated lookup such as
/// `User::by_email(&email)`; read it with [`Db::get_unique`]. The value is
/// compared as its constraint says: under `ignore_case`,
/// `User::by_handle(&"ADA".into())` finds the user whose handle is `Ada`.
#[must_use = "a unique key does nothing until read with Db::get_unique"]
pub struct UniqueKey<E> {
    position: usize,
    /// Each field's value as the item stores it.
    values: Result<Vec<AttributeValue>>,
    entity: crate::entity::Phantom<E>,
}

impl<E> std::fmt::Debug for UniqueKey<E> {
    /// The constraint only: a unique value may be personal data.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueKey({})", self.position)
    }
}

/// The unique key of constraint `position` holding `values` (encoded by
/// the fields' own encoders): generated lookups build it.
pub fn unique_key<E>(position: usize, values: Result<Vec<AttributeValue>>) -> UniqueKey<E> {
    UniqueKey {
        position,
        values,
        entity: std::marker::PhantomData,
    }
}

impl Db {
    /// The entity holding a unique value, through the value's guard: two
    /// GetItems (the guard, then the entity it names), each eventually
    /// consistent unless [`consistent_read`](GetUnique::consistent_read).
    /// An entity that no longer holds the value (read between a change
    /// and its guard's) is not found.
    pub fn get_unique<E: Entity + 'static>(&self, key: UniqueKey<E>) -> GetUnique<E> {
        GetUnique {
            db: self.clone(),
            key,
            consistent: false,
        }
    }
}

/// A read by unique value; finish with [`send`](GetUnique::send).
#[must_use = "a request does nothing until it is sent"]
pub struct GetUnique<E> {
    db: Db,
    key: UniqueKey<E>,
    consistent: bool,
}

impl<E: Entity + 'static> GetUnique<E> {
    /// Strongly consistent reads of the guard and the entity (`true`).
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// The GetItem of the guard, the first of the two reads, not sent (the
    /// second names the item the guard's answer names); no request for a
    /// value that is NULL, which has no guard. The guard key shows the
    /// value as the table stores it: normalised as its constraint says, and
    /// a keyed hash of that for a `sensitive` field.
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Accounts", pk = "PK", sk = "SK")]
    /// # struct Accounts;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
    /// # struct User { id: String, #[ddb(unique)] handle: String }
    /// # fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// let dry = db.get_unique(User::by_handle(&"ada".to_string())).dry_run()?;
    /// println!("{dry}");
    /// # Ok(()) }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = crate::transport::dry_run::sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.found(), sensitive, false)
    }

    /// The key of the value's guard, with the value; `None` for a NULL
    /// value, which has no guard.
    fn guard_and_value(&self) -> Result<Option<(KeyValues, String)>> {
        let schema = &E::SCHEMA;
        let Some(unique) = schema.unique.get(self.key.position) else {
            return Err(crate::entity::no_such_index(
                schema.entity_type,
                self.key.position,
            ));
        };
        let values = match &self.key.values {
            Ok(values) => values,
            Err(error) => return Err(error.clone_input()),
        };
        let Some(value) = unique_value(schema.entity_type, unique, values.iter().map(Some))? else {
            return Ok(None);
        };
        let guard = unique_guard_key(schema, unique, &value, |v| self.db.guard_hash(v))?;
        Ok(Some((guard, value)))
    }

    /// Reads the guard, then the entity it names.
    pub async fn send(self) -> Result<Option<E>> {
        self.found().await
    }

    async fn found(&self) -> Result<Option<E>> {
        let schema = &E::SCHEMA;
        let Some((guard, value)) = self.guard_and_value()? else {
            return Ok(None); // a NULL value has no guard
        };
        let unique = &schema.unique[self.key.position];
        let (db, consistent) = (&self.db, self.consistent);
        let Some(owner) = owner::<E>(db, guard, consistent).await? else {
            return Ok(None);
        };
        let key = Key::<E>::from_values(owner);
        let found = db.get(key).consistent_read(consistent).send().await?;
        // The guard and the item are two reads: the item may have let go
        // of the value since.
        Ok(match found {
            Some(entity) if unique_value_of(schema, unique, &entity.to_item()?)? == Some(value) => {
                Some(entity)
            }
            _ => None,
        })
    }
}

/// The key of the item the guard names, `None` without a guard.
async fn owner<E: Entity + 'static>(
    db: &Db,
    guard: KeyValues,
    consistent: bool,
) -> Result<Option<KeyValues>> {
    let table = <E::Table as Table>::DEF;
    let attributes = [OWNER_PK, OWNER_SK];
    let stored = db.get_stored::<E::Table>(
        E::SCHEMA.entity_type,
        guard.to_item(&table),
        consistent,
        &attributes,
    );
    let output = stored.await?;
    let Some(item) = output else {
        return Ok(None);
    };
    owner_of(&item)
        .map(Some)
        .ok_or_else(|| Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: "a unique value's guard item names no item".into(),
        })
}
