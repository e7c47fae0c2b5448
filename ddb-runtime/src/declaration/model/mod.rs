//! The declarations `#[derive(Table)]` and `#[derive(Entity)]` produce, as
//! constants: tables, indexes, key templates and fields.
//!
//! Everything here is plain data built at compile time; the schema helpers
//! ([`crate::schema`]) and the const checks ([`crate::assert_distinct_keys!`])
//! read it.

mod attribute;
mod entity;
mod key;
mod lookup;
mod table;

pub use attribute::{str_eq, KeyAttribute, ScalarType, SCHEMA_VERSION_ATTRIBUTE};
pub use entity::{EntitySchema, FieldDef, FieldRole, Normalize, SearchDef, UniqueDef};
pub use key::{KeyDef, Membership, MultiAttributeKey, Part, Template};
pub use lookup::{index_attribute_type, is_global, is_key_attribute, key_types};
pub use table::{
    ContributorInsights, DistanceFunction, IndexDef, IndexKind, IndexProjection,
    MultiRegionConsistency, StreamView, TableClass, TableDef, VectorIndexDef,
    MAX_RECOVERY_PERIOD_DAYS, MAX_VECTOR_DIMENSIONS,
};
