//! Lookups in a table's declaration that the derives' compile-time checks
//! make: the types of an index's key attributes, and whether an index is
//! global.

use super::attribute::ScalarType;
use super::table::{IndexKind, TableDef};

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
