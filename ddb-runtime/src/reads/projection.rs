//! Projection types: a subset of an entity's fields, read from an index that
//! carries only some attributes, or through a projection expression.

use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::model::{EntitySchema, IndexKind, Projection as IndexProjection};
use crate::{Entity, Item};

/// A subset of entity `E`'s fields. Derive it; the derive checks at compile
/// time that every field exists on `E` with the same type.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
/// # struct Order { customer_id: String, order_id: String, total_cents: u64, note: String }
/// #[derive(ddb_runtime::Projection, serde::Deserialize)]
/// #[ddb(entity = Order)]
/// struct OrderTotal {
///     order_id: String,
///     total_cents: u64,
/// }
/// use ddb_runtime::Projection;
/// assert_eq!(<OrderTotal as Projection<Order>>::ATTRIBUTES, &["order_id", "total_cents"]);
/// ```
pub trait Projection<E: Entity>: DeserializeOwned {
    /// The DynamoDB names of the attributes it reads.
    const ATTRIBUTES: &'static [&'static str];
}

/// Decodes a projected item, checking the entity type when it is present,
/// and that the item is at today's schema version: a projection reads
/// attributes by today's names, and no migration can run on part of an item.
pub(crate) fn decode<E: Entity, P: Projection<E>>(item: Item) -> Result<P> {
    let schema = &E::SCHEMA;
    if let Some(found) = item.get(schema.table.entity_attribute) {
        if found.as_s().map(String::as_str) != Ok(schema.entity_type) {
            return Err(Error::WrongEntityType {
                entity: schema.entity_type,
                found: found.as_s().cloned().unwrap_or_default(),
            });
        }
    }
    let stored = crate::schema::stored_schema_version(&item).unwrap_or(0);
    if stored != schema.schema_version {
        return Err(Error::Migration {
            entity: schema.entity_type,
            key: crate::schema::item_key_text(schema.table, &item),
            from: stored,
            reason: format!(
                "a projection reads today's attributes (schema version {}); read the whole \
                 entity, which migrates it, or run the backfill",
                schema.schema_version
            ),
        });
    }
    serde_dynamo::from_item(item).map_err(|source| Error::Decode {
        entity: schema.entity_type,
        key: None,
        source,
    })
}

/// Whether a query of `index` (`None`: the table) carries `attribute`,
/// exactly as DynamoDB projects it: the table's key attributes and the
/// index's own, then everything (ALL), nothing more (KEYS_ONLY), or the
/// INCLUDE list and the entity type ddb adds to it. A base-table query, and
/// a local index (which fetches from the table), carry everything.
pub(crate) const fn carries(schema: &EntitySchema, index: Option<&str>, attribute: &str) -> bool {
    use crate::check::str_eq;
    let table = schema.table;
    let Some(name) = index else {
        return true;
    };
    let Some(index) = table.index(name) else {
        return true;
    };
    let table_key = match table.sk {
        Some(sk) => str_eq(sk.name, attribute),
        None => false,
    };
    if str_eq(table.pk.name, attribute) || table_key || is_key_of(index, attribute) {
        return true;
    }
    match index.projection {
        IndexProjection::All => true,
        _ if matches!(index.kind, IndexKind::Local) => true,
        IndexProjection::KeysOnly => false,
        IndexProjection::Include(list) => {
            if str_eq(table.entity_attribute, attribute)
                || str_eq(crate::schema::SCHEMA_VERSION_ATTRIBUTE, attribute)
            {
                return true;
            }
            let mut i = 0;
            while i < list.len() {
                if str_eq(list[i], attribute) {
                    return true;
                }
                i += 1;
            }
            false
        }
    }
}

/// Whether `attribute` is one of `index`'s own key attributes.
const fn is_key_of(index: &crate::model::IndexDef, attribute: &str) -> bool {
    use crate::check::str_eq;
    if str_eq(index.pk.name, attribute) {
        return true;
    }
    if let Some(sk) = index.sk {
        if str_eq(sk.name, attribute) {
            return true;
        }
    }
    let mut i = 0;
    while i < index.pk_more.len() {
        if str_eq(index.pk_more[i].name, attribute) {
            return true;
        }
        i += 1;
    }
    let mut i = 0;
    while i < index.sk_more.len() {
        if str_eq(index.sk_more[i].name, attribute) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether a query of `index` carries every attribute of the entity (so
/// whole entities decode).
pub(crate) const fn carries_all(schema: &EntitySchema, index: Option<&str>) -> bool {
    let mut f = 0;
    while f < schema.fields.len() {
        if !carries(schema, index, schema.fields[f].attribute) {
            return false;
        }
        f += 1;
    }
    true
}

/// The first of `attributes` that a query of `index` does not carry, for a
/// compile error.
pub(crate) const fn missing_attribute(
    schema: &EntitySchema,
    index: Option<&str>,
    attributes: &[&'static str],
) -> Option<&'static str> {
    let mut i = 0;
    while i < attributes.len() {
        if !carries(schema, index, attributes[i]) {
            return Some(attributes[i]);
        }
        i += 1;
    }
    None
}
