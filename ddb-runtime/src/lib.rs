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
//! #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}",
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
//!
//! ## Features
//!
//! None is on by default; each builds alone (CI checks every one on its own
//! and all together).
//!
//! | feature | what it adds |
//! |---|---|
//! | `local` | `ddb_runtime::local`: an in-process DynamoDB-compatible server (Dynoxide, SQLite) for tests and local development, and the fault-injecting proxy. Never needed in production. |
//! | `time` | `time::OffsetDateTime` as a key segment and a timestamp field (`created_at`, `updated_at`, `ttl`), and `Timestamp`'s conversions from it. |
//! | `chrono` | `chrono::DateTime<Utc>` as a key segment and a timestamp field, as `time`. |
//! | `uuid` | `uuid::Uuid` as a key segment. |
//! | `ulid` | `ulid::Ulid` as a key segment (sorts by creation time). |
//! | `lambda` | `ddb_runtime::stream`: typed DynamoDB Streams records from AWS Lambda events (`aws_lambda_events`). |
//!
//! Every `#[ddb(...)]` attribute is described in [`attributes`].
#![warn(missing_docs)]
// docs.rs marks what each feature brings.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The folders are the architecture: keys (templates, segments, sort
// conditions, timestamps), reads (queries, the query engine, collections,
// projections, cursors), writes (single writes as plans, transactions,
// batches), schema (the declarations, their compile-time checks, CreateTable
// and the report), and the local server. The paths users name stay flat.

/// Keys: how typed fields become key attributes and back.
mod keys {
    pub mod convert;
    pub mod key;
    pub mod segment;
    pub mod sort;
    pub mod timestamp;
}

/// Reads: typed queries over the one query engine.
mod reads {
    pub mod collection;
    pub mod cursor;
    pub(crate) mod fetch;
    pub mod projection;
    pub mod query;
}

/// Writes: every write is a plan that single requests, transactions and
/// batches send.
mod writes {
    pub mod batch;
    pub mod transact;
    pub mod write;
}

/// The declarations the derives produce, their checks, and the table they
/// describe.
#[path = "schema"]
mod declarations {
    pub mod backfill;
    pub mod check;
    pub mod cost;
    pub mod iam;
    pub mod model;
    pub mod schema;
}

mod db;
mod error;
pub mod expr;
mod expr_names;
#[doc = include_str!("attributes.md")]
pub mod attributes {}

#[cfg(feature = "local")]
pub mod local;
mod sdk;
#[cfg(feature = "lambda")]
pub mod stream;
mod telemetry;

use declarations::check;
pub use declarations::{model, schema};
use keys::timestamp;
pub use keys::{key, segment, sort};
use reads::fetch;
pub use reads::{collection, cursor, projection, query};
pub use writes::{batch, transact, write};

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

pub use collection::{Collection, CollectionQuery, UnknownItems};
pub use cursor::Cursor;
pub use db::{Db, GetItem, GetProjection};
pub use ddb_derive::{Collection, Entity, KeySegment, Projection, Table};
pub use error::{ActionFailure, BatchOutcome, Error, ExistingItem, Result, SdkErrorKind};
pub use expr::{Attr, Condition, IntoValue};
pub use key::{Key, KeyValue, KeyValues};
pub use projection::Projection;
pub use query::{Page, Query, QueryKey};
pub use segment::{KeySegment, SegmentError};
pub use telemetry::Capacity;
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
        Err(__private::no_such_index(Self::SCHEMA.entity_type, position))
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
pub mod __private;
