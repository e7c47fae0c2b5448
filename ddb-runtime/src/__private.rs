//! What generated code uses. Not public API: it changes without notice.
//! Re-exports only: each item lives in the layer it belongs to.

pub use ::core;
pub use ::serde;
pub use ::std;
pub use aws_sdk_dynamodb::types::AttributeValue;

pub use crate::declaration::check::{
    check_distinct_keys, check_fields, check_key, check_multi_attribute_key,
    check_projection_field, check_ttl_field, check_vector_field, has_stand_in, Message,
};
pub use crate::declaration::model::{
    index_attribute_type, is_global, is_key_attribute, key_types, DistanceFunction, EntitySchema,
    FieldDef, FieldRole, IndexDef, IndexKind, IndexProjection, KeyAttribute, KeyDef, Membership,
    MultiAttributeKey, Normalize, Part, ScalarType, SearchDef, StreamView, TableDef, Template,
    UniqueDef, VectorIndexDef,
};
pub use crate::declaration::model::{ContributorInsights, MultiRegionConsistency, TableClass};
pub use crate::entity::{check_key_form, to_item};
pub use crate::entity::{no_such_index, stand_in_error, Entity, NoTable, Table};
pub use crate::error::Error;
pub use crate::evolution::migrate::{migrate, Migration};
pub use crate::expression::{attr, Attr, KeyPart, Value};
pub use crate::item::convert::{
    from_serde, item_to_fields, missing, missing_field, serde_item, to_serde, Conv, DirectConv,
    SerdeConv, SerdeDecode,
};
pub use crate::item::stored::{check_entity_type, SCHEMA_VERSION_ATTRIBUTE};
pub use crate::item::timestamp::{
    assert_timestamp_field, assert_ttl_field, IsStamp, NotStamp, Stamp, TimestampField, TtlField,
};
pub use crate::item::vector::assert_vector_field;
pub use crate::item::Item;
pub use crate::keys::guard::holds_guards;
pub use crate::keys::key::{
    key_from_values, raw_key, read_raw_key, require_sort_key, Key, KeyReader, KeyValue, KeyValues,
    KeyWriter, PARTITION_KEY_LIMIT, SORT_KEY_LIMIT,
};
pub use crate::keys::segment::{
    assert_key_segment, is_numeric, Codec, IsSegment, KeySegment, NotSegment, SegmentCodec,
    SegmentError,
};
pub use crate::keys::shard::{shard_of, with_shard};
pub use crate::keys::sort::{SortPrefix, SortWriter};
pub use crate::reads::collection::{check_collection, Collection};
#[cfg(feature = "bench")]
pub use crate::reads::cursor_bench::CursorBench;
pub use crate::reads::projection::{carries_all, Projection};
pub use crate::reads::query::{
    query_key, query_key_of_attributes, IndexKindOf, MultiAttributeIndex, ProjectionOf, QueryKey,
    Select,
};
pub use crate::reads::scan::Scannable;
pub use crate::reads::search::{vector_search, VectorSearch};
pub use crate::reads::unique::{unique_key, UniqueKey};

/// What `ddb-tools` reads of the runtime beside its public API: the guard
/// keys IAM scopes, key text as a key writes it, and the JSON forms and
/// comparison the templates share with `create_table` and `plan_sync`.
pub mod tools {
    pub use crate::keys::guard::{idempotency_guard_prefix, unique_guard_prefix, unique_value_of};
    pub use crate::keys::segment::escape_into;
    pub use crate::schema_json::{attribute_definition, key_schema, projection as projection_json};
    pub use crate::tables::projection::projection;
    pub use crate::tables::sync::compare;
    pub use crate::tables::sync_settings::{compare_settings, Observed};
}
