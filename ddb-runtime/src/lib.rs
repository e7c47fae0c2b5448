//! # ddb — typed single-table modeling for DynamoDB
//!
//! Declare a table and the entities stored in it; ddb checks the key templates
//! at compile time, writes keys that sort and never collide, and builds the
//! table schema and the access-pattern report from the same declarations.
//!
//! ```
//! use ddb_runtime::{Entity, KeySegment, Table};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Table)]
//! #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
//! #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
//! pub struct Ecommerce;
//!
//! #[derive(KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq)]
//! pub struct CustomerId(pub String);
//!
//! #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
//! #[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}",
//!       query = "by_customer")]
//! #[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER", query = "by_order_id"))]
//! pub struct Order {
//!     pub customer_id: CustomerId,
//!     pub order_id: String,
//!     pub placed_at: u64,
//!     pub total_cents: u64,
//! }
//!
//! let order = Order {
//!     customer_id: CustomerId("123".into()),
//!     order_id: "A#102".into(), // a delimiter inside a value is escaped
//!     placed_at: 42,
//!     total_cents: 1999,
//! };
//! let key = order.primary_key()?;
//! assert_eq!(key.pk().as_str(), "CUSTOMER#123");
//! assert_eq!(key.sk().unwrap().as_str(), "ORDER#00000000000000000042#A$c102");
//! assert_eq!(Order::parse_key(&key)?, (CustomerId("123".into()), 42, "A#102".to_string()));
//!
//! let item = order.to_item()?;
//! assert_eq!(item["GSI1PK"].as_s().unwrap(), "ORDER#A$c102");
//! assert_eq!(item["_type"].as_s().unwrap(), "Order");
//! assert_eq!(Order::from_item(item)?, order);
//! # Ok::<(), ddb_runtime::Error>(())
//! ```
//!
//! Written by hand, the same item needs the key strings assembled in every
//! place that reads or writes orders, with nothing to stop a `#` in an id from
//! addressing another item, or `10` from sorting before `9`.
#![warn(missing_docs)]

pub mod batch;
pub mod check;
pub mod collection;
pub mod cursor;
mod db;
mod error;
pub mod expr;
mod fetch;
pub mod key;
#[cfg(feature = "local")]
pub mod local;
pub mod model;
pub mod projection;
pub mod query;
pub mod schema;
pub mod segment;
pub mod sort;
mod timestamp;
pub mod transact;
pub mod write;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

pub use collection::{Collection, CollectionQuery, UnknownItems};
pub use cursor::Cursor;
pub use db::{Db, GetItem, GetProjection};
pub use ddb_derive::{Collection, Entity, KeySegment, Projection, Table};
pub use error::{ActionFailure, Error, ExistingItem, Result};
pub use expr::{Attr, Condition, IntoValue};
pub use key::{Key, KeyValue, KeyValues};
pub use projection::Projection;
pub use query::{Page, Query, QueryKey};
pub use segment::{KeySegment, SegmentError};
#[cfg(feature = "time")]
pub use timestamp::Timestamp;
pub use timestamp::{TimestampField, TtlField};
pub use transact::{TransactGet, TransactGetOutput, TransactWrite};
pub use write::{Create, Created, Delete, Put, Update, Written};

// The README's Rust examples compile as doc tests.
#[cfg(all(doctest, feature = "local", feature = "time"))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// A marker of types a value is generic over without holding one.
pub(crate) type Phantom<T> = std::marker::PhantomData<fn() -> T>;

/// A DynamoDB item: attribute names to values.
pub type Item = HashMap<String, AttributeValue>;

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
/// `"_type"`), and any number of
/// `index(name = "...", pk = "...", sk = "...", pk_type, sk_type, projection = "all" | "keys_only", include("a", "b"))`
/// and `local_index(name = "...", sk = "...", sk_type, projection, include(...))`.
pub trait Table {
    /// The table's declaration.
    const DEF: model::TableDef;
}

/// A struct stored as items of a table.
///
/// Implement it with `#[derive(Entity)]`; see the crate documentation for an
/// example and [`model::EntitySchema`] for what it declares.
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
        Err(__private::no_such_index(Self::SCHEMA.entity_type, position))
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

/// What generated code uses. Not public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::check::{check_distinct_keys, check_fields, check_key, Message};
    pub use crate::key::{
        raw_key, read_raw_key, shard_of, KeyReader, KeyWriter, PARTITION_KEY_LIMIT, SORT_KEY_LIMIT,
    };
    pub use crate::model::{
        EntitySchema, FieldDef, FieldRole, IndexDef, IndexKind, KeyAttribute, KeyDef, Membership,
        Part, Projection as IndexProjection, ScalarType, TableDef, Template,
    };

    /// The value of field `attribute` in `values`, decoded as the field's
    /// type; a missing attribute decodes as null (`None` for an `Option`).
    pub fn field_from<T: serde::de::DeserializeOwned>(
        entity: &'static str,
        attribute: &str,
        values: &Item,
    ) -> Result<T, Error> {
        let value = values
            .get(attribute)
            .cloned()
            .unwrap_or(AttributeValue::Null(true));
        serde_dynamo::from_attribute_value(value).map_err(|source| Error::Decode {
            entity,
            key: None,
            source,
        })
    }

    /// `index_key_from` asked for a position that is not an index it can
    /// compute from values alone: a bug in ddb, reported rather than panicking.
    pub fn no_such_index(entity: &'static str, position: usize) -> Error {
        Error::InvalidRequest {
            entity,
            reason: format!("index key {position} cannot be computed from field values alone"),
        }
    }
    pub use crate::{
        Entity, Error, Item, Key, KeySegment, KeyValue, KeyValues, SegmentError, Table,
    };
    pub use ::core;
    pub use ::serde;
    pub use ::std;

    pub use crate::segment::{Codec, IsSegment, NotSegment, SegmentCodec};

    /// Spanned at a key field's type, so a type that cannot be a key segment is
    /// reported once, on the field.
    pub const fn assert_key_segment<T: KeySegment>() {}

    /// Whether a key segment type can be stored as a Number.
    pub const fn is_numeric<T: KeySegment>() -> bool {
        T::NUMERIC
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
        };
    }

    /// The attribute types of the primary key (`index` = `None`) or an index.
    /// A missing index or sort key reads as S; `check_key` reports those.
    pub const fn key_types(table: &TableDef, index: Option<&str>) -> (ScalarType, ScalarType) {
        let (pk, sk) = match index {
            None => (table.pk, table.sk),
            Some(name) => match table.index(name) {
                Some(index) => (index.pk, index.sk),
                None => return (ScalarType::S, ScalarType::S),
            },
        };
        let sk = match sk {
            Some(sk) => sk.ty,
            None => ScalarType::S,
        };
        (pk.ty, sk)
    }

    /// The sort key of a key, or an error naming the entity.
    pub fn require_sort_key<'a>(
        entity: &'static str,
        sk: Option<&'a KeyValue>,
    ) -> Result<&'a KeyValue, Error> {
        sk.ok_or(Error::KeyMismatch {
            entity,
            key: "sort key",
            template: "",
            reason: "the key has no sort key value".to_owned(),
        })
    }

    /// The whole item: the fields through serde_dynamo, then the primary and
    /// index key attributes and the entity type.
    pub fn to_item<E: Entity + serde::Serialize>(
        entity: &E,
        primary: Key<E>,
        indexes: std::vec::Vec<(&'static str, KeyValues)>,
    ) -> Result<Item, Error> {
        let schema = &E::SCHEMA;
        let table = schema.table;
        let mut item: Item = serde_dynamo::to_item(entity).map_err(|source| Error::Encode {
            entity: schema.entity_type,
            source,
        })?;
        insert_key(&mut item, table.pk, table.sk, primary.values());
        for (name, values) in &indexes {
            if let Some(index) = table.index(name) {
                insert_key(&mut item, index.pk, index.sk, values);
            }
        }
        item.insert(
            table.entity_attribute.to_owned(),
            AttributeValue::S(schema.entity_type.to_owned()),
        );
        Ok(item)
    }

    fn insert_key(item: &mut Item, pk: KeyAttribute, sk: Option<KeyAttribute>, values: &KeyValues) {
        item.insert(pk.name.to_owned(), values.pk.to_attribute_value());
        if let (Some(attribute), Some(value)) = (sk, &values.sk) {
            item.insert(attribute.name.to_owned(), value.to_attribute_value());
        }
    }

    /// Appends `#<shard>` to a sharded index's partition key, the shard
    /// chosen from the item's primary key.
    pub fn with_shard(pk: KeyValue, primary: &KeyValues, shards: u16) -> KeyValue {
        shard_partition(&pk, crate::key::shard_of(primary, shards))
    }

    /// The partition key of one shard: `<pk>#<shard>`.
    pub fn shard_partition(pk: &KeyValue, shard: u16) -> KeyValue {
        match pk {
            KeyValue::S(text) => KeyValue::S(format!("{text}#{shard}")),
            number => number.clone(),
        }
    }

    pub use crate::collection::{check_collection, Collection};
    pub use crate::expr::{Attr, KeyPart, Value};
    pub use crate::timestamp::{IsStamp, NotStamp, Stamp, TimestampField, TtlField};
    pub use aws_sdk_dynamodb::types::AttributeValue;

    /// Spanned at a `#[ddb(created_at)]` or `#[ddb(updated_at)]` field's type.
    pub const fn assert_timestamp_field<T: TimestampField>() {}

    /// Spanned at a `#[ddb(ttl)]` field's type.
    pub const fn assert_ttl_field<T: TtlField>() {}
    pub use crate::projection::{carries, carries_all, Projection};
    pub use crate::query::QueryKey;

    /// The attribute name of entity field `field` (Rust name); empty when the
    /// entity has no such field (the derive's type check reports that).
    pub const fn attribute_of(schema: &EntitySchema, field: &str) -> &'static str {
        let mut i = 0;
        while i < schema.fields.len() {
            if crate::check::str_eq(schema.fields[i].name, field) {
                return schema.fields[i].attribute;
            }
            i += 1;
        }
        ""
    }

    /// Checks that a projection field is read under the entity's attribute name.
    pub const fn check_projection_field(
        schema: &EntitySchema,
        field: &str,
        read_as: &str,
    ) -> Option<crate::check::Message> {
        let stored = attribute_of(schema, field);
        if stored.is_empty() || crate::check::str_eq(stored, read_as) {
            return None;
        }
        crate::check::Message::new()
            .push("projection field `")
            .push(field)
            .push("` is read as attribute `")
            .push(read_as)
            .push("`, but entity `")
            .push(schema.rust_name)
            .push("` stores it as `")
            .push(stored)
            .push("`; add #[serde(rename = \"")
            .push(stored)
            .push("\")] to the field")
            .into_error()
    }
    pub use crate::query::{IndexKindOf, ProjectionOf, Select};

    /// Whether `index` (by name) of `table` is a global secondary index.
    pub const fn is_global(table: &TableDef, index: Option<&str>) -> bool {
        match index {
            Some(name) => match table.index(name) {
                Some(index) => matches!(index.kind, IndexKind::Global),
                None => false,
            },
            None => false,
        }
    }

    /// Checks the entity type, then deserializes with serde_dynamo.
    pub fn item_to_fields<T: serde::de::DeserializeOwned>(
        entity: &'static str,
        table: &TableDef,
        item: Item,
    ) -> Result<T, Error> {
        match item.get(table.entity_attribute) {
            Some(AttributeValue::S(found)) if found == entity => {}
            other => {
                return Err(Error::WrongEntityType {
                    entity,
                    found: match other {
                        Some(AttributeValue::S(found)) => found.clone(),
                        _ => String::new(),
                    },
                })
            }
        }
        serde_dynamo::from_item(item).map_err(|source| Error::Decode {
            entity,
            key: None,
            source,
        })
    }
}
