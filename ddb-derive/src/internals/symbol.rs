//! The keywords of `#[ddb(...)]`, in one place (as serde's `symbol.rs`).

pub const DDB: &str = "ddb";

// Entity container.
pub const TABLE: &str = "table";
pub const PK: &str = "pk";
pub const SK: &str = "sk";
pub const QUERY: &str = "query";
pub const ENTITY: &str = "entity";
pub const INDEX: &str = "index";
pub const SCHEMA_VERSION: &str = "schema_version";
pub const MIGRATE: &str = "migrate";
pub const UNIQUE: &str = "unique";
pub const SCAN: &str = "scan";
pub const ENTITY_KEYS: &[&str] = &[
    TABLE,
    PK,
    SK,
    QUERY,
    ENTITY,
    INDEX,
    SCHEMA_VERSION,
    MIGRATE,
    UNIQUE,
    SCAN,
];

// unique(...), on an entity (beside its fields) or on a field.
pub const IGNORE_CASE: &str = "ignore_case";
pub const NORMALIZE: &str = "normalize";
pub const ALLOW_EMPTY: &str = "allow_empty";
pub const UNIQUE_KEYS: &[&str] = &[IGNORE_CASE, NORMALIZE, ALLOW_EMPTY];

// Entity migrate(...).
pub const FROM: &str = "from";
pub const WITH: &str = "with";
pub const MIGRATE_KEYS: &[&str] = &[FROM, WITH];

// Entity index(...).
pub const NAME: &str = "name";
pub const SHARDS: &str = "shards";
pub const WHEN: &str = "when";
pub const READS: &str = "reads";
pub const INDEX_KEYS: &[&str] = &[NAME, PK, SK, QUERY, SHARDS, WHEN];

// Entity field.
pub const VERSION: &str = "version";
pub const TTL: &str = "ttl";
pub const STREAM: &str = "stream";
pub const CREATED_AT: &str = "created_at";
pub const UPDATED_AT: &str = "updated_at";
pub const SENSITIVE: &str = "sensitive";
pub const FIELD_KEYS: &[&str] = &[
    VERSION, TTL, CREATED_AT, UPDATED_AT, SENSITIVE, UNIQUE, VECTOR,
];
pub const SEARCH: &str = "search";
pub const BY: &str = "by";
pub const VECTOR_FIELD_KEYS: &[&str] = &[INDEX, SEARCH, BY];

// Table container.
pub const PK_TYPE: &str = "pk_type";
pub const SK_TYPE: &str = "sk_type";
pub const ENTITY_ATTRIBUTE: &str = "entity_attribute";
pub const LOCAL_INDEX: &str = "local_index";
pub const ENTITIES: &str = "entities";
pub const VECTOR_INDEX: &str = "vector_index";
pub const TABLE_CLASS: &str = "table_class";
pub const RECOVERY_PERIOD_DAYS: &str = "recovery_period_days";
pub const CONTRIBUTOR_INSIGHTS: &str = "contributor_insights";
pub const MULTI_REGION_CONSISTENCY: &str = "multi_region_consistency";
pub const SINGLE_REGION_WRITES: &str = "single_region_writes";
pub const TABLE_KEYS: &[&str] = &[
    NAME,
    PK,
    SK,
    PK_TYPE,
    SK_TYPE,
    ENTITY_ATTRIBUTE,
    TTL,
    STREAM,
    ENTITIES,
    INDEX,
    LOCAL_INDEX,
    VECTOR_INDEX,
    TABLE_CLASS,
    RECOVERY_PERIOD_DAYS,
    CONTRIBUTOR_INSIGHTS,
    MULTI_REGION_CONSISTENCY,
    SINGLE_REGION_WRITES,
];
pub const PROJECTION: &str = "projection";
pub const INCLUDE: &str = "include";
pub const TABLE_INDEX_KEYS: &[&str] = &[NAME, PK, SK, PK_TYPE, SK_TYPE, PROJECTION, INCLUDE];
pub const TABLE_LOCAL_INDEX_KEYS: &[&str] = &[NAME, SK, SK_TYPE, PROJECTION, INCLUDE];
pub const VECTOR: &str = "vector";
pub const DIMENSIONS: &str = "dimensions";
pub const DISTANCE: &str = "distance";
pub const HASH: &str = "hash";
pub const HASH_TYPE: &str = "hash_type";
pub const FILTERS: &str = "filters";
pub const TABLE_VECTOR_INDEX_KEYS: &[&str] = &[
    NAME, VECTOR, DIMENSIONS, DISTANCE, HASH, HASH_TYPE, FILTERS, PROJECTION, INCLUDE,
];

// KeySegment variants.
pub const RENAME: &str = "rename";
pub const VARIANT_KEYS: &[&str] = &[RENAME];

// serde attributes ddb reads.
pub const SERDE: &str = "serde";
pub const RENAME_ALL: &str = "rename_all";

// Projection container.
pub const PROJECTION_KEYS: &[&str] = &[ENTITY];
