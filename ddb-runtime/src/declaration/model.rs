//! The declarations `#[derive(Table)]` and `#[derive(Entity)]` produce, as
//! constants: tables, indexes, key templates and fields.
//!
//! Everything here is plain data built at compile time; the schema helpers
//! ([`crate::schema`]) and the const checks ([`crate::assert_distinct_keys!`])
//! read it.

/// A DynamoDB scalar type a key attribute can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// String (`S`).
    S,
    /// Number (`N`).
    N,
}

impl ScalarType {
    /// The type's name in DynamoDB's `AttributeDefinitions` (`"S"`, `"N"`).
    ///
    /// ```
    /// assert_eq!(ddb_runtime::model::ScalarType::N.as_str(), "N");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
        }
    }
}

/// A key attribute of a table or index: its name and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyAttribute {
    /// The attribute name, e.g. `"PK"` or `"customerId"`.
    pub name: &'static str,
    /// Its scalar type.
    pub ty: ScalarType,
}

/// Which attributes an index carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexProjection {
    /// Every attribute of the item.
    All,
    /// The table and index key attributes only.
    KeysOnly,
    /// The keys plus the listed non-key attributes.
    Include(&'static [&'static str]),
}

/// Global or local secondary index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// A global secondary index: its own partition key, eventually consistent.
    Global,
    /// A local secondary index: the table's partition key, another sort key.
    Local,
}

/// A secondary index declared on a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexDef {
    /// The index name, e.g. `"GSI1"`.
    pub name: &'static str,
    /// Global or local.
    pub kind: IndexKind,
    /// The index partition key (for an LSI, the table's); for a
    /// multi-attribute key, its first attribute.
    pub pk: KeyAttribute,
    /// The partition key's further attributes, in order, when the key is
    /// several of the items' own attributes (DynamoDB allows four in all).
    pub pk_more: &'static [KeyAttribute],
    /// The index sort key, if any; for a multi-attribute key, its first
    /// attribute.
    pub sk: Option<KeyAttribute>,
    /// The sort key's further attributes, in order (four in all at most).
    pub sk_more: &'static [KeyAttribute],
    /// Declared with lists (`pk("a", "b")`): a multi-attribute key, built by
    /// DynamoDB from the items' own attributes, even with one attribute a
    /// side.
    pub multi_attribute: bool,
    /// The attributes it carries.
    pub projection: IndexProjection,
}

impl IndexDef {
    /// Every partition key attribute, in order.
    ///
    /// ```
    /// use ddb_runtime::model::*;
    /// const BY_STATUS: IndexDef = IndexDef {
    ///     name: "CustomerStatusIndex",
    ///     kind: IndexKind::Global,
    ///     pk: KeyAttribute { name: "customerId", ty: ScalarType::S },
    ///     pk_more: &[KeyAttribute { name: "status", ty: ScalarType::S }],
    ///     sk: Some(KeyAttribute { name: "placedAt", ty: ScalarType::S }),
    ///     sk_more: &[KeyAttribute { name: "orderId", ty: ScalarType::S }],
    ///     multi_attribute: true,
    ///     projection: IndexProjection::All,
    /// };
    /// let names: Vec<_> = BY_STATUS.pk_attributes().map(|a| a.name).collect();
    /// assert_eq!(names, ["customerId", "status"]);
    /// assert_eq!(BY_STATUS.sk_attributes().count(), 2);
    /// assert!(BY_STATUS.is_multi_attribute());
    /// ```
    pub fn pk_attributes(&self) -> impl Iterator<Item = KeyAttribute> + '_ {
        std::iter::once(self.pk).chain(self.pk_more.iter().copied())
    }

    /// Every sort key attribute, in order (none without a sort key).
    pub fn sk_attributes(&self) -> impl Iterator<Item = KeyAttribute> + '_ {
        self.sk.into_iter().chain(self.sk_more.iter().copied())
    }

    /// Every key attribute of the index: partition, then sort.
    pub fn key_attributes(&self) -> impl Iterator<Item = KeyAttribute> + '_ {
        self.pk_attributes().chain(self.sk_attributes())
    }

    /// Whether the key is a multi-attribute key (declared with lists).
    pub const fn is_multi_attribute(&self) -> bool {
        self.multi_attribute
    }

    /// Whether `attribute` is a key attribute of `table` or of this index:
    /// DynamoDB holds those in every index, whatever it projects.
    pub(crate) const fn is_key(&self, table: &TableDef, attribute: &str) -> bool {
        const fn named(key: Option<KeyAttribute>, attribute: &str) -> bool {
            match key {
                Some(key) => str_eq(key.name, attribute),
                None => false,
            }
        }
        if named(Some(table.pk), attribute) || named(table.sk, attribute) {
            return true;
        }
        if named(Some(self.pk), attribute) || named(self.sk, attribute) {
            return true;
        }
        let mut i = 0;
        while i < self.pk_more.len() {
            if str_eq(self.pk_more[i].name, attribute) {
                return true;
            }
            i += 1;
        }
        let mut i = 0;
        while i < self.sk_more.len() {
            if str_eq(self.sk_more[i].name, attribute) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether DynamoDB holds `attribute` in this index's items: the keys
    /// ([`is_key`](Self::is_key)), then everything (ALL), nothing more
    /// (KEYS_ONLY), or the INCLUDE list and the entity-type and
    /// schema-version attributes ddb adds to every INCLUDE list.
    pub(crate) const fn projects(&self, table: &TableDef, attribute: &str) -> bool {
        if self.is_key(table, attribute) {
            return true;
        }
        match self.projection {
            IndexProjection::All => true,
            IndexProjection::KeysOnly => false,
            IndexProjection::Include(listed) => {
                let [entity, version] = table.added_to_include();
                if str_eq(entity, attribute) || str_eq(version, attribute) {
                    return true;
                }
                let mut i = 0;
                while i < listed.len() {
                    if str_eq(listed[i], attribute) {
                        return true;
                    }
                    i += 1;
                }
                false
            }
        }
    }
}

/// How a vector index scores an item against the search vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistanceFunction {
    /// `COSINE`: 1 minus the cosine of the angle between the vectors, from
    /// 0 (same direction) to 2 (opposite); lower is more similar.
    Cosine,
    /// `EUCLIDEAN`: the straight-line distance; lower is more similar.
    Euclidean,
    /// `DOT_PRODUCT`: the dot product; higher is more similar.
    DotProduct,
}

impl DistanceFunction {
    /// Its name in DynamoDB's API.
    ///
    /// ```
    /// use ddb_runtime::model::DistanceFunction;
    /// assert_eq!(DistanceFunction::DotProduct.as_str(), "DOT_PRODUCT");
    /// assert!(DistanceFunction::Cosine.lower_is_closer());
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            DistanceFunction::Cosine => "COSINE",
            DistanceFunction::Euclidean => "EUCLIDEAN",
            DistanceFunction::DotProduct => "DOT_PRODUCT",
        }
    }

    /// Whether a lower score is a closer match (COSINE, EUCLIDEAN); DynamoDB
    /// returns the best first either way.
    pub const fn lower_is_closer(self) -> bool {
        !matches!(self, DistanceFunction::DotProduct)
    }
}

/// A vector index declared on a table (`VectorIndexes` in CreateTable):
/// searched with SearchVectors for the items whose vectors are closest to a
/// search vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorIndexDef {
    /// The index name.
    pub name: &'static str,
    /// The attribute holding each item's vector: a list of numbers.
    pub vector: &'static str,
    /// How many numbers each vector holds.
    pub dimensions: u32,
    /// How it scores.
    pub distance: DistanceFunction,
    /// The search schema's `HASH` attribute, when it has one: every search
    /// names one value of it, and only items holding it are indexed.
    pub hash: Option<KeyAttribute>,
    /// The search schema's `INLINE_FILTER` attributes: a search may filter
    /// on them.
    pub filters: &'static [KeyAttribute],
    /// The attributes it carries.
    pub projection: IndexProjection,
}

impl VectorIndexDef {
    /// Whether the index holds attribute `name` of the items of `table`:
    /// every attribute for ALL; else the table's keys, the search schema,
    /// an INCLUDE list's attributes, and the entity type and schema version
    /// ddb adds to every list.
    pub(crate) fn holds(&self, table: &TableDef, name: &str) -> bool {
        let listed: &[&str] = match self.projection {
            IndexProjection::All => return true,
            IndexProjection::KeysOnly => &[],
            IndexProjection::Include(listed) => listed,
        };
        let key = name == table.pk.name || table.sk.is_some_and(|sk| sk.name == name);
        let searched = self.hash.iter().chain(self.filters).any(|a| a.name == name);
        key || searched || listed.contains(&name) || table.added_to_include().contains(&name)
    }
}

/// DynamoDB's limit on a vector's dimensions.
pub const MAX_VECTOR_DIMENSIONS: u32 = 4096;

/// A table as `#[derive(Table)]` declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDef {
    /// The physical table name (overridable at run time).
    pub name: &'static str,
    /// The partition key attribute.
    pub pk: KeyAttribute,
    /// The sort key attribute, if the table has one.
    pub sk: Option<KeyAttribute>,
    /// Secondary indexes.
    pub indexes: &'static [IndexDef],
    /// The attribute that stores each item's entity type.
    pub entity_attribute: &'static str,
    /// The time-to-live attribute (epoch seconds) DynamoDB deletes expired
    /// items by: `#[ddb(ttl = "expiresAt")]`; enabled when ddb creates the
    /// table, and the attribute every `#[ddb(ttl)]` field is stored under.
    pub ttl: Option<&'static str>,
    /// `entities(Customer, Order)`: the Rust names of every entity the table
    /// stores. Their keys are then checked against each other at compile
    /// time, and an entity the list leaves out is a compile error.
    pub entities: Option<&'static [&'static str]>,
    /// Vector indexes.
    pub vector_indexes: &'static [VectorIndexDef],
    /// The table's stream, when the code reads one
    /// (`#[ddb(stream = "new_and_old_images")]`): what each record carries.
    pub stream: Option<StreamView>,
}

/// What each record of a table's DynamoDB stream carries
/// (`StreamViewType`): a stream handler decodes the images its view holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamView {
    /// `KEYS_ONLY`: the key attributes of the changed item.
    KeysOnly,
    /// `NEW_IMAGE`: the item as it is after the change.
    NewImage,
    /// `OLD_IMAGE`: the item as it was before the change.
    OldImage,
    /// `NEW_AND_OLD_IMAGES`: both.
    NewAndOldImages,
}

impl StreamView {
    /// Its name in DynamoDB's API.
    ///
    /// ```
    /// use ddb_runtime::model::StreamView;
    /// assert_eq!(StreamView::NewAndOldImages.as_str(), "NEW_AND_OLD_IMAGES");
    /// assert_eq!(StreamView::from_name("NEW_IMAGE"), Some(StreamView::NewImage));
    /// assert!(StreamView::NewAndOldImages.carries(StreamView::OldImage));
    /// assert!(!StreamView::NewImage.carries(StreamView::OldImage));
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            StreamView::KeysOnly => "KEYS_ONLY",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// The view DynamoDB names `name`, if any.
    pub fn from_name(name: &str) -> Option<StreamView> {
        [
            StreamView::KeysOnly,
            StreamView::NewImage,
            StreamView::OldImage,
            StreamView::NewAndOldImages,
        ]
        .into_iter()
        .find(|view| view.as_str() == name)
    }

    /// Whether a record of this view holds everything a record of `needed`
    /// holds: every view carries the keys, `NEW_AND_OLD_IMAGES` both images.
    pub const fn carries(self, needed: StreamView) -> bool {
        let (new, old) = self.images();
        let (needs_new, needs_old) = needed.images();
        (new || !needs_new) && (old || !needs_old)
    }

    /// Whether it holds the new image, and the old one.
    const fn images(self) -> (bool, bool) {
        match self {
            StreamView::KeysOnly => (false, false),
            StreamView::NewImage => (true, false),
            StreamView::OldImage => (false, true),
            StreamView::NewAndOldImages => (true, true),
        }
    }
}

impl TableDef {
    /// The index named `name`, if the table declares it.
    ///
    /// ```
    /// use ddb_runtime::model::*;
    /// const T: TableDef = TableDef {
    ///     name: "Ecommerce",
    ///     pk: KeyAttribute { name: "PK", ty: ScalarType::S },
    ///     sk: None,
    ///     indexes: &[],
    ///     entity_attribute: "_type",
    ///     ttl: None,
    ///     entities: None,
    ///     vector_indexes: &[],
    ///     stream: None,
    /// };
    /// assert!(T.index("GSI1").is_none());
    /// assert!(T.vector_index("ByEmbedding").is_none());
    /// ```
    pub const fn index(&self, name: &str) -> Option<&IndexDef> {
        let mut i = 0;
        while i < self.indexes.len() {
            if str_eq(self.indexes[i].name, name) {
                return Some(&self.indexes[i]);
            }
            i += 1;
        }
        None
    }

    /// The vector index named `name`, if the table declares it.
    pub const fn vector_index(&self, name: &str) -> Option<&VectorIndexDef> {
        let mut i = 0;
        while i < self.vector_indexes.len() {
            if str_eq(self.vector_indexes[i].name, name) {
                return Some(&self.vector_indexes[i]);
            }
            i += 1;
        }
        None
    }

    /// The attributes ddb adds to every INCLUDE list of the table's indexes:
    /// the entity type, so index items can be told apart, and the schema
    /// version, so they are read at their version.
    pub(crate) const fn added_to_include(&self) -> [&'static str; 2] {
        [
            self.entity_attribute,
            crate::declaration::model::SCHEMA_VERSION_ATTRIBUTE,
        ]
    }
}

/// One piece of a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Literal text, e.g. `"ORDER#"`.
    Literal(&'static str),
    /// A `{field}`: the Rust field name.
    Field(&'static str),
}

/// A parsed key template such as `ORDER#{placed_at}#{order_id}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// The template as written.
    pub source: &'static str,
    /// Its literal and field parts, in order.
    pub parts: &'static [Part],
}

impl Template {
    /// The fields the template reads, in order (a field read twice comes
    /// twice).
    pub(crate) fn fields(&self) -> impl Iterator<Item = &'static str> + 'static {
        let parts: &'static [Part] = self.parts;
        parts.iter().filter_map(|part| match part {
            Part::Field(field) => Some(*field),
            Part::Literal(_) => None,
        })
    }

    /// The literal text before the first field (`"ORDER#"`), or the whole
    /// template when it has no field (`"PROFILE"`).
    ///
    /// ```
    /// use ddb_runtime::model::{Part, Template};
    /// const T: Template = Template {
    ///     source: "ORDER#{placed_at}",
    ///     parts: &[Part::Literal("ORDER#"), Part::Field("placed_at")],
    /// };
    /// assert_eq!(T.literal_prefix(), "ORDER#");
    /// ```
    pub const fn literal_prefix(&self) -> &'static str {
        match self.parts.first() {
            Some(Part::Literal(text)) => text,
            _ => "",
        }
    }

    /// Whether the template has no field at all (a constant key such as `PROFILE`).
    pub const fn is_constant(&self) -> bool {
        let mut i = 0;
        while i < self.parts.len() {
            if let Part::Field(_) = self.parts[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether the template is exactly one field (`"{customer_id}"`): a raw key.
    pub const fn is_single_field(&self) -> bool {
        matches!(self.parts, [Part::Field(_)])
    }
}

/// One key of an entity: the primary key or an index's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyDef {
    /// `None` for the table's primary key, else the index name.
    pub index: Option<&'static str>,
    /// The partition key template.
    pub pk: Template,
    /// The sort key template, if any.
    pub sk: Option<Template>,
    /// The name of the typed query entry point, if declared.
    pub query: Option<&'static str>,
    /// Write shards of the partition key (1 means not sharded).
    pub shards: u16,
    /// For a sparse index, the rule that decides which items it holds.
    pub membership: Option<Membership>,
}

impl KeyDef {
    /// Whether the key is built from (or its membership rule reads) the
    /// Rust field `field`.
    pub const fn reads(&self, field: &str) -> bool {
        const fn in_template(template: &Template, field: &str) -> bool {
            let mut p = 0;
            while p < template.parts.len() {
                if let Part::Field(name) = template.parts[p] {
                    if str_eq(name, field) {
                        return true;
                    }
                }
                p += 1;
            }
            false
        }
        if in_template(&self.pk, field) {
            return true;
        }
        if let Some(sk) = &self.sk {
            if in_template(sk, field) {
                return true;
            }
        }
        if let Some(membership) = &self.membership {
            let mut r = 0;
            while r < membership.reads.len() {
                if str_eq(membership.reads[r], field) {
                    return true;
                }
                r += 1;
            }
        }
        false
    }

    /// The Rust fields the key is built from: its templates' fields, then
    /// those its membership rule reads, each once.
    ///
    /// ```
    /// use ddb_runtime::model::{KeyDef, Membership, Part, Template};
    /// let open_orders = KeyDef {
    ///     index: Some("GSI2"),
    ///     pk: Template {
    ///         source: "STATUS#{status}",
    ///         parts: &[Part::Literal("STATUS#"), Part::Field("status")],
    ///     },
    ///     sk: Some(Template {
    ///         source: "{placed_at}#{order_id}",
    ///         parts: &[Part::Field("placed_at"), Part::Literal("#"), Part::Field("order_id")],
    ///     }),
    ///     query: None,
    ///     shards: 1,
    ///     membership: Some(Membership { reads: &["status", "total"], evaluable: true }),
    /// };
    /// assert_eq!(open_orders.input_fields(), ["status", "placed_at", "order_id", "total"]);
    /// ```
    pub fn input_fields(&self) -> Vec<&'static str> {
        let mut fields: Vec<&'static str> = Vec::new();
        for field in self.inputs() {
            if !fields.contains(&field) {
                fields.push(field);
            }
        }
        fields
    }

    /// [`input_fields`](Self::input_fields) without collecting them: a
    /// field read twice comes twice.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = &'static str> + '_ {
        let templates = std::iter::once(&self.pk).chain(self.sk.iter());
        let from_templates = templates.flat_map(Template::fields);
        let reads = self.membership.iter().flat_map(|m| m.reads.iter().copied());
        from_templates.chain(reads)
    }
}

/// Which items a sparse index holds: declared with
/// `index(..., when(status = OrderStatus::Open))` (also `!=` and `in [..]`),
/// or `when(Order::is_open, reads(status))` for a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Membership {
    /// The Rust fields the rule reads.
    pub reads: &'static [&'static str],
    /// Whether ddb can evaluate the rule from those fields alone (a
    /// comparison); a function needs the whole item, so an update that
    /// changes what it reads reads the item first.
    pub evaluable: bool,
}

/// A global index keyed by the entity's own attributes, declared with
/// `index(name = "...", pk(customer_id, status), sk(placed_at, order_id))`:
/// DynamoDB's multi-attribute keys (up to four attributes a side). ddb writes
/// no key attribute for it; DynamoDB indexes the item from the fields
/// themselves, and leaves out an item that lacks one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiAttributeKey {
    /// The index name, declared on the table.
    pub index: &'static str,
    /// The Rust fields of the partition key, in the index's order.
    pub pk: &'static [&'static str],
    /// The Rust fields of the sort key, in the index's order.
    pub sk: &'static [&'static str],
    /// The generated query entry point, if any.
    pub query: Option<&'static str>,
}

/// What `#[ddb(...)]` says of one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldRole {
    /// `#[ddb(version)]`: optimistic-locking counter.
    pub version: bool,
    /// `#[ddb(ttl)]`: expiry, stored as epoch seconds.
    pub ttl: bool,
    /// `#[ddb(created_at)]`.
    pub created_at: bool,
    /// `#[ddb(updated_at)]`.
    pub updated_at: bool,
    /// `#[ddb(sensitive)]`: personal data, never in a key, redacted when ddb formats it.
    pub sensitive: bool,
}

/// A field of an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// The Rust field name.
    pub name: &'static str,
    /// The DynamoDB attribute name (serde's `rename` applied).
    pub attribute: &'static str,
    /// Its roles.
    pub role: FieldRole,
}

/// Everything `#[derive(Entity)]` declares about one entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntitySchema {
    /// The Rust type name.
    pub rust_name: &'static str,
    /// The entity type stored in every item.
    pub entity_type: &'static str,
    /// The table it is stored in.
    pub table: &'static TableDef,
    /// The primary key first, then one per index.
    pub keys: &'static [KeyDef],
    /// The indexes keyed by the entity's own attributes (DynamoDB's
    /// multi-attribute keys), which DynamoDB maintains from the item.
    pub multi_attribute_keys: &'static [MultiAttributeKey],
    /// The struct's fields.
    pub fields: &'static [FieldDef],
    /// The schema version items are written at (`#[ddb(schema_version = N)]`;
    /// 1 when undeclared). Older items are migrated when read.
    pub schema_version: u32,
    /// Whether the entity declares its schema version: `to_item` then
    /// writes it in `_schema` (items written before the declaration have
    /// none). An entity that declares none writes none, and its updates
    /// refuse any stored `_schema` with one call.
    pub schema_declared: bool,
    /// The unique constraints (`#[ddb(unique)]`, `unique(a, b)`): each kept
    /// by a guard item per value.
    pub unique: &'static [UniqueDef],
    /// The vector searches of the entity: one per `#[ddb(vector(...))]`
    /// field.
    pub searches: &'static [SearchDef],
    /// Whether the entity is read by a Scan (`#[ddb(scan)]`): the
    /// access-pattern report lists it and the IAM policy grants
    /// `dynamodb:Scan` for it.
    pub scan: bool,
}

/// A vector search an entity declares (`#[ddb(vector(index = "ByEmbedding",
/// search = "similar"))]` on its vector field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchDef {
    /// The entry point's name, e.g. `"similar"`.
    pub name: &'static str,
    /// The vector index it searches.
    pub index: &'static str,
}

/// Fields whose values, together, no two items of an entity share
/// (`#[ddb(unique)]` on a field, `#[ddb(unique(a, b))]` on the entity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueDef {
    /// The constraint's name: its fields joined by `_` (`email`,
    /// `tenant_id_email`); the lookup is `by_<name>`.
    pub name: &'static str,
    /// The fields (Rust names), in order.
    pub fields: &'static [&'static str],
    /// The attributes they are stored under, in the same order.
    pub attributes: &'static [&'static str],
    /// Whether a field is `#[ddb(sensitive)]`: the guard's key then holds a
    /// keyed hash of the value, never the value.
    pub sensitive: bool,
}

impl EntitySchema {
    /// The primary key's templates.
    pub const fn primary(&self) -> &KeyDef {
        &self.keys[0]
    }

    /// The field named `name` (Rust name).
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The attribute the field named `name` (Rust name) is stored under;
    /// empty when there is no such field.
    pub const fn attribute_of(&self, name: &str) -> &'static str {
        let mut f = 0;
        while f < self.fields.len() {
            if str_eq(self.fields[f].name, name) {
                return self.fields[f].attribute;
            }
            f += 1;
        }
        ""
    }
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

/// Whether `attribute` is the partition (or, with `sort`, the sort) key
/// attribute of `index`.
pub fn is_key_attribute(table: &TableDef, index: &str, sort: bool, attribute: &str) -> bool {
    match table.index(index) {
        Some(index) if sort => index.sk.is_some_and(|sk| sk.name == attribute),
        Some(index) => index.pk.name == attribute,
        None => false,
    }
}

/// The type of attribute `position` of `index`'s multi-attribute key,
/// counting the partition attributes then the sort ones; S when there is no
/// such attribute (`check_multi_attribute_key` reports that).
pub const fn index_attribute_type(table: &TableDef, index: &str, position: usize) -> ScalarType {
    let Some(index) = table.index(index) else {
        return ScalarType::S;
    };
    let pk_count = 1 + index.pk_more.len();
    if position == 0 {
        return index.pk.ty;
    }
    if position < pk_count {
        return index.pk_more[position - 1].ty;
    }
    match index.sk {
        Some(sk) if position == pk_count => sk.ty,
        Some(_) if position - pk_count - 1 < index.sk_more.len() => {
            index.sk_more[position - pk_count - 1].ty
        }
        _ => ScalarType::S,
    }
}

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

/// `a == b`, usable in `const` code.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The attribute a versioned entity's items carry their schema version in
/// (`#[ddb(schema_version = N)]`); items without it are version 1.
pub const SCHEMA_VERSION_ATTRIBUTE: &str = "_schema";
