//! The traits a declaration implements: a table, and the entities stored in
//! it; the item an entity writes; the key functions that need the entity.

mod item;
mod key;

pub use crate::item::Item;
pub use item::{check_key_form, to_item};

use crate::declaration::model::{KeyAttribute, ScalarType, TableDef};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model;
use crate::error::{Error, Result};
use crate::keys::key::{Key, KeyValue, KeyValues};

/// A marker of types a value is generic over without holding one.
pub(crate) type Phantom<T> = std::marker::PhantomData<fn() -> T>;

/// A physical table: its name, key attributes and indexes.
///
/// Implement it with `#[derive(Table)]`:
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Customers", pk = "customerId", pk_type = "N")]
/// pub struct Customers;
///
/// use ddb_runtime::Table;
/// assert_eq!(Customers::DEF.name, "Customers");
/// assert!(Customers::DEF.sk.is_none());
/// ```
///
/// Container keys: `name` (required), `pk` (required), `sk`, `pk_type` and
/// `sk_type` (`"S"`, the default, or `"N"`), `entity_attribute` (default
/// `"_type"`), `ttl = "expiresAt"` (the time-to-live attribute, enabled when
/// ddb creates the table), `entities(Customer, Order)` (every entity stored
/// in the table: their keys are checked against each other at compile time,
/// and an entity left out is a compile error), and any number of
/// `index(name = "...", pk = "...", sk = "...", pk_type, sk_type, projection = "all" | "keys_only", include("a", "b"))`
/// (or `pk("a", "b: N")`, `sk(...)` for a multi-attribute key)
/// and `local_index(name = "...", sk = "...", sk_type, projection, include(...))`.
pub trait Table {
    /// The table's declaration.
    const DEF: model::TableDef;
}

/// A struct stored as items of a table.
///
/// Implement it with `#[derive(Entity)]`; see the crate documentation for an
/// example and [`model::EntitySchema`] for what it declares. The struct
/// needs no serde derive of its own: only field types that DynamoDB does not
/// store as they are, and serde attributes, need serde (the
/// [attribute reference](crate::attributes) says which).
pub trait Entity: Sized {
    /// The table the entity is stored in.
    type Table: Table;

    /// The entity's declaration: templates, indexes, fields.
    const SCHEMA: model::EntitySchema;

    /// The primary key of this item.
    fn primary_key(&self) -> Result<Key<Self>>;

    /// The key values of every secondary index this item is in: sparse indexes
    /// whose predicate is false are left out, sharded ones carry the shard.
    fn index_keys(&self) -> Result<Vec<(&'static str, KeyValues)>>;

    /// The whole DynamoDB item: the fields, the primary and index key
    /// attributes, and the entity type.
    fn to_item(&self) -> Result<Item>;

    /// Decodes a stored item, checking its entity type.
    fn from_item(item: Item) -> Result<Self>;

    /// Checks that `key` parses as this entity's primary key.
    fn check_key(key: &Key<Self>) -> Result<()>;

    /// Checks that `value`, about to be stored under `attribute` by an
    /// update, is the key form of the field when the field is part of a
    /// multi-attribute index key. Generated.
    #[doc(hidden)]
    fn check_attribute_key(attribute: &str, value: &AttributeValue) -> Result<()> {
        let _ = (attribute, value);
        Ok(())
    }

    /// One side of the key of the index at `position`: its partition key
    /// (`sort` false) or its sort key (`None` when it has none), from the
    /// primary key and the values of the fields that side reads (`values`,
    /// by attribute name). A sparse index's rule is not checked. Generated;
    /// an update that changes only what one side reads writes only it.
    #[doc(hidden)]
    fn index_side_from(
        position: usize,
        sort: bool,
        key: &Key<Self>,
        values: &Item,
    ) -> Result<Option<KeyValue>> {
        let _ = (sort, key, values);
        Err(no_such_index(Self::SCHEMA.entity_type, position))
    }

    /// The key of the index at `position` in [`SCHEMA.keys`](model::EntitySchema::keys),
    /// computed from the primary key and the values of the other fields it
    /// reads (`values`, by attribute name), without the whole item: `None`
    /// when a sparse index's rule leaves the item out. Generated; an update
    /// uses it to keep index keys right in one request.
    #[doc(hidden)]
    fn index_key_from(
        position: usize,
        key: &Key<Self>,
        values: &Item,
    ) -> Result<Option<KeyValues>> {
        let _ = (key, values);
        Err(no_such_index(Self::SCHEMA.entity_type, position))
    }

    /// The `#[ddb(version)]` field's value, for optimistic locking.
    fn version(&self) -> Option<u64> {
        None
    }

    /// The `#[ddb(created_at)]` (when `created`) and `#[ddb(updated_at)]`
    /// attributes to write at `now`.
    fn stamps(created: bool, now: std::time::SystemTime) -> Vec<(&'static str, AttributeValue)> {
        let _ = (created, now);
        Vec::new()
    }
}

/// `index_key_from` asked for a position that is not an index it can
/// compute from values alone: a bug in ddb, reported rather than panicking.
pub fn no_such_index(entity: &'static str, position: usize) -> Error {
    Error::InvalidRequest {
        entity,
        reason: format!("index key {position} cannot be computed from field values alone"),
    }
}

/// What the functions of the stand-in a derive emits beside the errors of
/// a declaration return. Never returned by a program: the errors beside
/// the stand-in fail its build.
pub fn stand_in_error(entity: &'static str) -> Error {
    Error::InvalidRequest {
        entity,
        reason: "its declaration has errors, reported when it was compiled".to_owned(),
    }
}

/// The table type of an entity whose `table = ...` is missing, so the
/// derive can still emit its impl next to the error.
pub enum NoTable {}

impl Table for NoTable {
    const DEF: TableDef = TableDef {
        name: "",
        pk: KeyAttribute {
            name: "",
            ty: ScalarType::S,
        },
        sk: None,
        indexes: &[],
        entity_attribute: "",
        ttl: None,
        entities: None,
        vector_indexes: &[],
        stream: None,
        table_class: crate::declaration::model::TableClass::Standard,
        recovery_period_days: None,
        contributor_insights: None,
        multi_region_consistency: None,
        single_region_writes: false,
    };
}

impl crate::error::ExistingItem {
    /// Decodes the item as entity `E`.
    pub fn decode<E: Entity>(&self) -> Result<E> {
        E::from_item(self.0.clone())
    }
}
