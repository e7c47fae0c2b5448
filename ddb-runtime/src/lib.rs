//! # ddb — typed single-table modeling for DynamoDB
//!
//! Declare a table and the entities stored in it; ddb checks the key templates
//! at compile time, writes keys that sort and never collide, and builds the
//! table schema from the same declarations.
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
//! | `cache` | `ddb_runtime::cache`: a typed read-through cache per entity, let go of by the same `Db`'s writes and by stream records. |
//! | `time` | `time::OffsetDateTime` as a key segment and a timestamp field (`created_at`, `updated_at`, `ttl`), and `Timestamp`'s conversions from it. |
//! | `chrono` | `chrono::DateTime<Utc>` as a key segment and a timestamp field, as `time`. |
//! | `uuid` | `uuid::Uuid` as a key segment. |
//! | `ulid` | `ulid::Ulid` as a key segment (sorts by creation time). |
//! | `lambda` | `ddb_runtime::stream`: typed DynamoDB Streams records from AWS Lambda events (`aws_lambda_events`). |
//! | `local` | deprecated: `ddb_runtime::local`, the `ddb-local` crate under its former path. |
//!
//! ## Crates
//!
//! A service depends on `ddb-runtime` alone. Beside it:
//!
//! | crate | what it is | where |
//! |---|---|---|
//! | `ddb-local` | an in-process DynamoDB-compatible server (Dynoxide, SQLite) and a fault-injecting proxy | `[dev-dependencies]` |
//! | `ddb-tools` | CloudFormation, Terraform and NoSQL Workbench exports, drift, IAM policies, cost, access-pattern and hot-partition reports | a build script, a test, a tool |
//! | `ddb-cli` | a command line built with the application's own declarations | a `src/bin/ddb.rs` |
//!
//! Every `#[ddb(...)]` attribute is described in [`attributes`]; the
//! [`guide`] goes from a first table to production, one idea per page.
#![warn(missing_docs)]
// docs.rs marks what each feature brings.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The folders are the layers, each using only those below it (see
// ARCHITECTURE.md): the declarations; the item and its values; keys;
// expressions; telemetry; the transport (the one send route, its recorded
// attempts, dry runs); the handle; reads and writes; the table (CreateTable,
// sync); evolution (migrations, backfill). The public paths below are a
// facade over them. The tooling over the declarations is the `ddb-tools`
// crate, the command line `ddb-cli`.
mod db;
mod declaration;
mod entity;
mod error;
mod evolution;
mod expression;
mod item;
mod keys;
mod reads;
mod schema_json;
mod tables;
mod telemetry;
mod transport;
mod writes;

#[doc = include_str!("attributes.md")]
pub mod attributes {}
pub mod guide;
/// The local DynamoDB and fault proxy, under their former path: they are
/// the `ddb-local` crate now.
#[cfg(feature = "local")]
#[deprecated(
    note = "moved to the `ddb-local` crate: add `ddb-local` to [dev-dependencies] and use `ddb_local::...`"
)]
pub mod local {
    pub use ddb_local::*;
}
#[cfg(feature = "lambda")]
pub mod stream;

/// What generated code uses. Not public API: it changes without notice.
#[doc(hidden)]
pub mod __private;

pub use ddb_derive::{Collection, Entity, KeySegment, Projection, Table};

pub use batch::{Load, Loader};
pub use collection::{Collection, CollectionQuery, UnknownItems};
pub use cursor::Cursor;
pub use db::Db;
pub use dry_run::DryRun;
pub use entity::{Entity, Table};
pub use error::{
    ActionFailure, BatchOutcome, CancellationReason, Error, ExistingItem, Result, SdkErrorKind,
    Throttle, ThrottleLimit, ThrottledResource,
};
pub use expr::{Attr, Condition, IntoValue};
#[cfg(feature = "time")]
pub use item::timestamp::Timestamp;
pub use item::timestamp::{TimestampField, TtlField};
pub use item::Item;
pub use key::{Key, KeyValue, KeyValues};
pub use projection::Projection;
pub use query::{Page, Query, QueryKey};
pub use reads::count::Count;
pub use reads::get::{GetItem, GetProjection};
pub use reads::unique::{GetUnique, UniqueKey};
pub use scan::{Scan, ScanPage, Scannable};
pub use search::{Scored, Search, Searched, VectorSearch};
pub use segment::{KeySegment, SegmentError};
pub use telemetry::{Capacity, CapacityMeter};
pub use transact::{TransactGet, TransactGetOutput, TransactWrite, Transacted};
pub use write::{Create, Created, Delete, Idempotent, Put, Update, Upsert, Upserted, Written};

/// The declarations `#[derive(Table)]` and `#[derive(Entity)]` produce: what
/// a table, its indexes and an entity's templates, keys and fields are.
/// Read them (`Ecommerce::DEF.name`, `Order::SCHEMA.keys`); the derives
/// build them.
pub mod model {
    pub use crate::declaration::model::{
        ContributorInsights, MultiRegionConsistency, TableClass, MAX_RECOVERY_PERIOD_DAYS,
    };
    pub use crate::declaration::model::{
        DistanceFunction, EntitySchema, FieldDef, FieldRole, IndexDef, IndexKind, IndexProjection,
        KeyAttribute, KeyDef, Membership, MultiAttributeKey, Normalize, Part, ScalarType,
        SearchDef, StreamView, TableDef, Template, UniqueDef, VectorIndexDef,
        MAX_VECTOR_DIMENSIONS,
    };

    /// An index's projection: renamed [`IndexProjection`].
    #[deprecated(
        note = "renamed to `model::IndexProjection`; `Projection` is the projection-type trait"
    )]
    pub type Projection = IndexProjection;
}

/// Conditions over an entity's attributes, for filters and conditional
/// writes.
///
/// Every value goes through an expression placeholder (`:v0`), so no value
/// is ever spliced into the expression text. An attribute name is written as
/// it is when DynamoDB reads it as a plain name (`PK`), and through a
/// placeholder (`#n0`) otherwise, so reserved words such as `status` or
/// `name` just work.
pub mod expr {
    pub use crate::expression::{
        Attr, AttributeType, Comparison, Condition, IntoValue, KeyPart, Value, EXPRESSION_LIMIT,
    };
}

/// Dry runs: the requests any ddb call would send, built by the code that
/// sends them, returned instead of sent (`.dry_run()` on every request).
/// Their reading resolves every placeholder and never prints a
/// `#[ddb(sensitive)]` value.
pub mod dry_run {
    pub use crate::transport::dry_run::{DryRun, Request};
}

/// Keys: typed primary and index keys, their values, DynamoDB's key size
/// limits, and write sharding.
pub mod key {
    pub use crate::keys::key::{Key, KeyValue, KeyValues, PARTITION_KEY_LIMIT, SORT_KEY_LIMIT};
    pub use crate::keys::shard::shard_of;
}

/// Key segments: how a field's value is written into a key template, and
/// the escaping that keeps a delimiter inside a value from addressing
/// another item.
pub mod segment {
    pub use crate::keys::segment::{
        read_escaped, write_escaped, KeySegment, SegmentError, DELIMITER, ESCAPE,
    };
    #[cfg(feature = "time")]
    pub use crate::keys::segment::{Millis, Nanos};
}

/// Sort-key conditions: the prefixes a query's `eq`, `begins_with`, `lt`,
/// `between` and the others take, and the leading fields held equal before
/// a range (`eq_then_gt` and the others).
pub mod sort {
    pub use crate::keys::sort::{EqualThen, SortPrefix};
}

/// Item collections: the entities sharing a partition, read in one query.
pub mod collection {
    pub use crate::reads::collection::{Collection, CollectionQuery, UnknownItems};
}

/// Cursors: where a query stopped, to resume it, optionally signed or
/// encrypted.
pub mod cursor {
    pub use crate::reads::cursor::Cursor;
}

/// Projections: a subset of an entity's fields, read without the rest.
pub mod projection {
    pub use crate::reads::projection::Projection;
}

/// Typed queries: the table and its indexes as query targets, pages, and
/// what a page decodes into.
pub mod query {
    pub use crate::reads::query::{
        Decode, Full, GlobalIndex, Hydrate, IndexKindOf, IndexTarget, MultiAttributeIndex, Page,
        Partial, Project, ProjectionOf, Query, QueryKey, Ready, Select, TableIndex, Whole,
    };
}

/// Typed scans: every item of an entity declared with `#[ddb(scan)]`, read
/// from the whole table in parallel segments, as a stream of pages with the
/// scan's progress.
pub mod scan {
    pub use crate::reads::scan::{Scan, ScanPage, Scannable, MAX_SEGMENTS};
}

/// Vector search: SearchVectors on a table's vector index, from an
/// entity's generated entry point (`Product::similar(&category, &vector)`).
pub mod search {
    pub use crate::item::vector::VectorField;
    pub use crate::reads::search::{Scored, Search, Searched, VectorSearch, MAX_TOP_K};
}

/// Batches: BatchGetItem and BatchWriteItem in DynamoDB's chunk sizes, how
/// unprocessed items are retried, and the loader that gathers gets issued
/// together into BatchGetItems.
pub mod batch {
    pub use crate::reads::loader::{Load, Loader};
    pub use crate::transport::batch::{RetryPolicy, GET_CHUNK, WRITE_CHUNK};
}

/// The read-through cache: entities read by key kept in memory, let go of
/// when the same `Db` writes them or a stream record says another writer
/// did (feature `cache`).
#[cfg(feature = "cache")]
pub mod cache {
    pub use crate::reads::cache::{Cache, CacheLimits, CacheStats};
}

/// Transactions: TransactWriteItems and TransactGetItems, and DynamoDB's
/// limits on them.
pub mod transact {
    pub use crate::reads::transact_get::{TransactGet, TransactGetOutput};
    pub use crate::writes::transact::{MAX_ACTIONS, MAX_TRANSACTION_BYTES};
    pub use crate::writes::transaction::{TransactWrite, Transacted};
}

/// Single writes: idempotent create, put, delete and typed updates that keep
/// every index key right, with optimistic locking and sizes checked before
/// sending.
pub mod write {
    pub use crate::item::size::{item_size, ITEM_SIZE_LIMIT};
    pub use crate::writes::create::{Create, Created};
    pub use crate::writes::delete::Delete;
    pub use crate::writes::idempotent::{Idempotent, IdempotentCreate, DEFAULT_KEEP};
    pub use crate::writes::modify::{Modified, Modify};
    pub use crate::writes::put::Put;
    pub use crate::writes::update::{Addable, Updatable, Update, Upsert, Upserted};
    pub use crate::writes::written::Written;
}

/// The table from code: CreateTable input, create-if-missing and sync, from
/// the `Table` and `Entity` declarations; and the backfill that brings
/// stored items in line with the indexes the code declares. The
/// CloudFormation, Terraform and NoSQL Workbench exports, drift, the IAM
/// policy, the cost estimate and the access-pattern and hot-partition
/// reports are the `ddb-tools` crate.
pub mod schema {
    pub use crate::evolution::backfill::{
        Backfill, Checkpoint, IndexKeyViolation, Progress, ThroughputPlan, UniqueDuplicate,
        MAX_SEGMENTS,
    };
    pub use crate::item::stored::SCHEMA_VERSION_ATTRIBUTE;
    pub use crate::tables::{
        create_table_if_missing, create_table_if_missing_with, create_table_input,
        create_table_input_with, key_attributes, plan_sync, plan_sync_with, sync_table,
        sync_table_with, SyncChange, SyncPlan, TableCreated, TableSettings, Units,
    };

    /// What `create_table_if_missing` did: renamed [`TableCreated`].
    #[deprecated(note = "renamed to `schema::TableCreated`; `Created` is a create's outcome")]
    pub type Created = TableCreated;
}

// The README's Rust example compiles and runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

// So does the crate's own README, the crates.io page.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CratesIoReadmeDoctests;
