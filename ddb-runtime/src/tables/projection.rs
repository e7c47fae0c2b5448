//! What a secondary index projects, in DynamoDB's own `Projection`: its
//! type, and an INCLUDE list's `NonKeyAttributes` without the keys DynamoDB
//! projects into every index anyway.

use aws_sdk_dynamodb::types::{Projection as SdkProjection, ProjectionType};

use crate::declaration::model::{IndexDef, IndexProjection, TableDef};

/// `index`'s projection. An INCLUDE list names what the index holds
/// (`IndexDef::projects`: the declared list, and the entity type and
/// schema version ddb adds to it) but not the table's and the index's own
/// key attributes, which DynamoDB projects into every index and does not
/// take as `NonKeyAttributes`; a list left empty (every name a key) is
/// KEYS_ONLY, which holds the same.
pub fn projection(index: &IndexDef, table: &TableDef) -> SdkProjection {
    let of_kind = |kind| SdkProjection::builder().projection_type(kind);
    let listed = match index.projection {
        IndexProjection::All => return of_kind(ProjectionType::All).build(),
        IndexProjection::KeysOnly => return of_kind(ProjectionType::KeysOnly).build(),
        IndexProjection::Include(listed) => listed,
    };
    let non_key = non_key_attributes(listed, table, |name| index.is_key(table, name));
    if non_key.is_empty() {
        return of_kind(ProjectionType::KeysOnly).build();
    }
    of_kind(ProjectionType::Include)
        .set_non_key_attributes(Some(non_key))
        .build()
}

/// An INCLUDE list's `NonKeyAttributes`: the declared attributes and the
/// ones ddb adds to every list (`TableDef::added_to_include`), each once,
/// but those `is_key` says DynamoDB projects as keys anyway.
pub(super) fn non_key_attributes(
    listed: &[&str],
    table: &TableDef,
    is_key: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut non_key: Vec<String> = Vec::new();
    for name in listed.iter().copied().chain(table.added_to_include()) {
        if !is_key(name) && !non_key.iter().any(|n| n == name) {
            non_key.push(name.to_owned());
        }
    }
    non_key
}
