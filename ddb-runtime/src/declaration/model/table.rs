//! A table as `#[derive(Table)]` declares it: its key attributes, its
//! secondary and vector indexes with what each projects, its time to live
//! and its stream.

use super::attribute::{str_eq, KeyAttribute, SCHEMA_VERSION_ATTRIBUTE};

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

    /// Whether DynamoDB holds `attribute` in this index's items: the
    /// table's and the index's key attributes, then everything (ALL), nothing more
    /// (KEYS_ONLY), or the INCLUDE list and the entity-type and
    /// schema-version attributes ddb adds to every INCLUDE list.
    pub const fn projects(&self, table: &TableDef, attribute: &str) -> bool {
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
    pub fn holds(&self, table: &TableDef, name: &str) -> bool {
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
    /// The table class (`#[ddb(table_class = "standard_infrequent_access")]`):
    /// what storage costs against what reads and writes cost.
    pub table_class: TableClass,
    /// How many days back point-in-time recovery restores
    /// (`#[ddb(recovery_period_days = 35)]`, 1 to 35): when declared, ddb
    /// turns point-in-time recovery on with this period.
    pub recovery_period_days: Option<u8>,
    /// CloudWatch Contributor Insights on the table
    /// (`#[ddb(contributor_insights = "throttled_keys")]`): which keys it
    /// reports. Its graphs show keys in plain text.
    pub contributor_insights: Option<ContributorInsights>,
    /// How the table's replicas in other Regions agree, when it is a
    /// global table (`#[ddb(multi_region_consistency = "eventual")]` or
    /// `"strong"`); the Regions themselves are deployment settings
    /// ([`TableSettings::replica`](crate::schema::TableSettings::replica)).
    pub multi_region_consistency: Option<MultiRegionConsistency>,
    /// `#[ddb(single_region_writes)]`: every write of a given item (unique
    /// value guards and idempotency records included) is sent in one
    /// Region, as in an active-passive deployment. Under eventual
    /// consistency it makes conditions hold across Regions: ddb then
    /// allows unique values and idempotency keys on the table.
    pub single_region_writes: bool,
}

/// How a global table's replicas agree (`MultiRegionConsistency`).
///
/// Under [`Eventual`](Self::Eventual) a write is applied in its own Region
/// and replicated after; two Regions writing one item concurrently resolve
/// by last writer wins, and a condition (a version check, a unique value's
/// guard, an idempotency record) is checked against its own Region's copy
/// only. Under [`Strong`](Self::Strong) every write is agreed by the
/// Regions before it returns: conditions hold across Regions, and a write
/// meeting a concurrent one in another Region fails with
/// `ReplicatedWriteConflictException`, which ddb retries; DynamoDB runs no
/// transaction, time to live or local index on such a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiRegionConsistency {
    /// `EVENTUAL`: multi-Region eventual consistency.
    Eventual,
    /// `STRONG`: multi-Region strong consistency (three replicas, or two
    /// and a witness, in one Region set).
    Strong,
}

impl MultiRegionConsistency {
    /// Its name in DynamoDB's API.
    ///
    /// ```
    /// use ddb_runtime::model::MultiRegionConsistency;
    /// assert_eq!(MultiRegionConsistency::Strong.as_str(), "STRONG");
    /// assert_eq!(
    ///     MultiRegionConsistency::from_name("EVENTUAL"),
    ///     Some(MultiRegionConsistency::Eventual)
    /// );
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            MultiRegionConsistency::Eventual => "EVENTUAL",
            MultiRegionConsistency::Strong => "STRONG",
        }
    }

    /// The mode DynamoDB names `name`, if any.
    pub fn from_name(name: &str) -> Option<MultiRegionConsistency> {
        [Self::Eventual, Self::Strong]
            .into_iter()
            .find(|mode| mode.as_str() == name)
    }
}

/// A table's class (`TableClass`): DynamoDB Standard, or Standard-IA for a
/// table whose storage costs more than its reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableClass {
    /// `STANDARD`, DynamoDB's default.
    #[default]
    Standard,
    /// `STANDARD_INFREQUENT_ACCESS`: cheaper storage, dearer requests.
    StandardInfrequentAccess,
}

impl TableClass {
    /// Its name in DynamoDB's API.
    ///
    /// ```
    /// use ddb_runtime::model::TableClass;
    /// assert_eq!(TableClass::StandardInfrequentAccess.as_str(), "STANDARD_INFREQUENT_ACCESS");
    /// assert_eq!(TableClass::from_name("STANDARD"), Some(TableClass::Standard));
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            TableClass::Standard => "STANDARD",
            TableClass::StandardInfrequentAccess => "STANDARD_INFREQUENT_ACCESS",
        }
    }

    /// The class DynamoDB names `name`, if any.
    pub fn from_name(name: &str) -> Option<TableClass> {
        [TableClass::Standard, TableClass::StandardInfrequentAccess]
            .into_iter()
            .find(|class| class.as_str() == name)
    }
}

/// Which keys CloudWatch Contributor Insights reports for a table
/// (`ContributorInsightsMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContributorInsights {
    /// `ACCESSED_AND_THROTTLED_KEYS`: the most accessed keys and the most
    /// throttled ones.
    AccessedAndThrottledKeys,
    /// `THROTTLED_KEYS`: the throttled keys only (cheaper).
    ThrottledKeys,
}

impl ContributorInsights {
    /// Its name in DynamoDB's API.
    ///
    /// ```
    /// use ddb_runtime::model::ContributorInsights;
    /// assert_eq!(ContributorInsights::ThrottledKeys.as_str(), "THROTTLED_KEYS");
    /// assert_eq!(
    ///     ContributorInsights::from_name("ACCESSED_AND_THROTTLED_KEYS"),
    ///     Some(ContributorInsights::AccessedAndThrottledKeys)
    /// );
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ContributorInsights::AccessedAndThrottledKeys => "ACCESSED_AND_THROTTLED_KEYS",
            ContributorInsights::ThrottledKeys => "THROTTLED_KEYS",
        }
    }

    /// The mode DynamoDB names `name`, if any.
    pub fn from_name(name: &str) -> Option<ContributorInsights> {
        [
            ContributorInsights::AccessedAndThrottledKeys,
            ContributorInsights::ThrottledKeys,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == name)
    }
}

/// The longest point-in-time recovery period DynamoDB keeps, in days.
pub const MAX_RECOVERY_PERIOD_DAYS: u8 = 35;

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
    /// Whether DynamoDB runs transactions (TransactWriteItems,
    /// TransactGetItems) on this table: not on a table with multi-Region
    /// strong consistency.
    pub const fn runs_transactions(&self) -> bool {
        !matches!(
            self.multi_region_consistency,
            Some(MultiRegionConsistency::Strong)
        )
    }

    /// Why a transaction on this table is refused, if it is.
    pub(crate) fn transactions_refused(&self) -> Option<String> {
        (!self.runs_transactions()).then(|| {
            format!(
                "table {} has multi_region_consistency = \"strong\", where DynamoDB runs no \
                 transaction (nor an exactly-once write, a unique value's guard or an \
                 idempotency key, which are transactions): write each item alone",
                self.name
            )
        })
    }

    /// Whether a condition DynamoDB checks on this table holds for every
    /// Region's writes: the table is not replicated with eventual
    /// consistency, or each item is written in one Region.
    ///
    /// ```
    /// #[derive(ddb_runtime::Table)]
    /// #[ddb(name = "Carts", pk = "PK", stream = "new_and_old_images", multi_region_consistency = "eventual")]
    /// struct Carts;
    /// #[derive(ddb_runtime::Table)]
    /// #[ddb(name = "Wallets", pk = "PK", multi_region_consistency = "strong")]
    /// struct Wallets;
    ///
    /// use ddb_runtime::Table;
    /// assert!(!Carts::DEF.conditions_hold_across_regions());
    /// assert!(Carts::DEF.runs_transactions());
    /// assert!(Wallets::DEF.conditions_hold_across_regions());
    /// assert!(!Wallets::DEF.runs_transactions());
    /// ```
    pub const fn conditions_hold_across_regions(&self) -> bool {
        !matches!(
            self.multi_region_consistency,
            Some(MultiRegionConsistency::Eventual)
        ) || self.single_region_writes
    }

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
    ///     table_class: TableClass::Standard,
    ///     recovery_period_days: None,
    ///     contributor_insights: None,
    ///     multi_region_consistency: None,
    ///     single_region_writes: false,
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
    pub const fn added_to_include(&self) -> [&'static str; 2] {
        [self.entity_attribute, SCHEMA_VERSION_ATTRIBUTE]
    }
}
