//! An entity as `#[derive(Entity)]` declares it: its table, keys, fields and
//! their roles, unique constraints and vector searches.

use super::attribute::str_eq;
use super::key::{KeyDef, MultiAttributeKey};
use super::table::TableDef;

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
    /// How values compare (`ignore_case`, `normalize = path`): each text
    /// value is normalised before it is compared, hashed or looked up; the
    /// item keeps it as entered. `None`: byte for byte.
    pub normalize: Option<Normalize>,
    /// `allow_empty`: an empty text value is a value like any other.
    /// Without it, a write of an item whose value has an empty text part
    /// (after normalisation) is refused.
    pub allow_empty: bool,
}

/// How the text values of a unique constraint are normalised before they
/// are compared (`#[ddb(unique(ignore_case))]`,
/// `#[ddb(unique(normalize = path))]`).
#[derive(Debug, Clone, Copy)]
pub enum Normalize {
    /// `ignore_case`: Unicode lowercase ([`str::to_lowercase`]).
    IgnoreCase,
    /// `normalize = path`: the user's function.
    Function(fn(&str) -> String),
}

/// Two functions are equal when their addresses are
/// ([`std::ptr::fn_addr_eq`]), which one function may not always have.
impl PartialEq for Normalize {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::IgnoreCase, Self::IgnoreCase) => true,
            (Self::Function(a), Self::Function(b)) => std::ptr::fn_addr_eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for Normalize {}

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
