//! What a typed query reads: the table, a global index or a multi-attribute
//! index ([`IndexTarget`]), and whether its items carry every attribute
//! ([`Full`]) or only some ([`Partial`]); generated code picks the markers
//! with [`Select`].

use crate::entity::Entity;

/// Marks a query on the table or a local index: consistent reads allowed.
#[derive(Debug, Clone, Copy)]
pub struct TableIndex;
/// Marks a query on a global secondary index: eventually consistent only.
#[derive(Debug, Clone, Copy)]
pub struct GlobalIndex;
/// Marks a query on a global index keyed by the entity's own attributes (a
/// multi-attribute key, which DynamoDB keeps): eventually consistent only.
#[derive(Debug, Clone, Copy)]
pub struct MultiAttributeIndex;

/// What a query reads: the table or an index of the entity's keys, or an
/// index of its multi-attribute keys.
#[doc(hidden)]
pub trait IndexTarget {
    /// Whether `K` counts the entity's multi-attribute keys rather than its
    /// key templates.
    const MULTI_ATTRIBUTE: bool;
}
impl IndexTarget for TableIndex {
    const MULTI_ATTRIBUTE: bool = false;
}
impl IndexTarget for GlobalIndex {
    const MULTI_ATTRIBUTE: bool = false;
}
impl IndexTarget for MultiAttributeIndex {
    const MULTI_ATTRIBUTE: bool = true;
}

/// The index a query's key `k` reads (`None` for the table).
pub(crate) const fn index_name<E: Entity, I: IndexTarget>(k: usize) -> Option<&'static str> {
    if I::MULTI_ATTRIBUTE {
        Some(E::SCHEMA.multi_attribute_keys[k].index)
    } else {
        E::SCHEMA.keys[k].index
    }
}

/// Marks a query whose items carry every attribute of the entity.
#[derive(Debug, Clone, Copy)]
pub struct Full;
/// Marks a query on an index that projects only some attributes: decode a
/// projection type with `.project::<P>()`, or fetch whole entities with
/// `.hydrate()`.
#[derive(Debug, Clone, Copy)]
pub struct Partial;

#[doc(hidden)]
pub struct IndexKindOf<const GLOBAL: bool>;
#[doc(hidden)]
pub struct ProjectionOf<const ALL: bool>;
#[doc(hidden)]
pub trait Select {
    type Type;
}
impl Select for IndexKindOf<false> {
    type Type = TableIndex;
}
impl Select for IndexKindOf<true> {
    type Type = GlobalIndex;
}
impl Select for ProjectionOf<true> {
    type Type = Full;
}
impl Select for ProjectionOf<false> {
    type Type = Partial;
}
