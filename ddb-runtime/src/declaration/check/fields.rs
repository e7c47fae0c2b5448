//! Checks on an entity's fields: none stored under an attribute the table
//! reserves, the time-to-live field under the table's time-to-live attribute,
//! and a projection's fields under the entity's attribute names.

use crate::declaration::check::Message;
use crate::declaration::model::{str_eq, EntitySchema, TableDef, Template};

/// Checks that no field is stored under an attribute name the table uses for
/// a key or the entity type (unless the field is that raw key itself).
pub const fn check_fields(schema: &EntitySchema) -> Option<Message> {
    let table = schema.table;
    if let Some(entities) = table.entities {
        let mut listed = false;
        let mut e = 0;
        while e < entities.len() {
            listed = listed || str_eq(entities[e], schema.rust_name);
            e += 1;
        }
        if !listed {
            return Message::new()
                .push("entity `")
                .push(schema.rust_name)
                .push("` is stored in table `")
                .push(table.name)
                .push("`, whose entities(...) does not list it, so its keys are not checked against the others'; add `")
                .push(schema.rust_name)
                .push("` to the table's entities(...)")
                .into_error();
        }
    }
    let mut f = 0;
    while f < schema.fields.len() {
        let attribute = schema.fields[f].attribute;
        if is_reserved(table, attribute) && !is_raw_key_of(schema, schema.fields[f].name, attribute)
        {
            return Message::new()
                .push("field `")
                .push(schema.fields[f].name)
                .push("` of entity `")
                .push(schema.rust_name)
                .push("` is stored as attribute `")
                .push(attribute)
                .push("`, which table `")
                .push(table.name)
                .push("` uses for a key, the entity type or the schema version; rename it with #[serde(rename = \"...\")]")
                .into_error();
        }
        f += 1;
    }
    None
}

/// Checks that the `#[ddb(ttl)]` field `field` is stored under the table's
/// time-to-live attribute; spanned at the field's `#[ddb(ttl)]`.
pub const fn check_ttl_field(schema: &EntitySchema, field: &str) -> Option<Message> {
    let table = schema.table;
    let attribute = schema.attribute_of(field);
    let declared = match table.ttl {
        Some(ttl) => str_eq(ttl, attribute),
        None => false,
    };
    if declared {
        return None;
    }
    Message::new()
        .push("field `")
        .push(field)
        .push("` of entity `")
        .push(schema.rust_name)
        .push("` is #[ddb(ttl)], stored as `")
        .push(attribute)
        .push("`, but table `")
        .push(table.name)
        .push("` does not name it its time-to-live attribute, so DynamoDB would never delete the item; declare #[ddb(ttl = \"")
        .push(attribute)
        .push("\")] on the table")
        .into_error()
}

/// Whether `attribute` is a key attribute whose template is exactly the field
/// `field` (`"{customer_id}"` on attribute `customerId`): the field is the key.
const fn is_raw_key_of(schema: &EntitySchema, field: &str, attribute: &str) -> bool {
    let table = schema.table;
    let mut k = 0;
    while k < schema.keys.len() {
        let key = &schema.keys[k];
        let (pk, sk) = match key.index {
            None => (Some(table.pk), table.sk),
            Some(name) => match table.index(name) {
                Some(index) => (Some(index.pk), index.sk),
                None => (None, None),
            },
        };
        if let Some(pk) = pk {
            if str_eq(pk.name, attribute) && is_field(&key.pk, field) {
                return true;
            }
        }
        if let (Some(sk_attr), Some(sk)) = (sk, key.sk) {
            if str_eq(sk_attr.name, attribute) && is_field(&sk, field) {
                return true;
            }
        }
        k += 1;
    }
    false
}

const fn is_field(template: &Template, field: &str) -> bool {
    match template.parts {
        [crate::declaration::model::Part::Field(name)] => str_eq(name, field),
        _ => false,
    }
}

/// Whether `attribute` is a key attribute of the table or its indexes, the
/// entity-type attribute, or the schema-version attribute.
pub const fn is_reserved(table: &TableDef, attribute: &str) -> bool {
    if str_eq(attribute, table.entity_attribute)
        || str_eq(attribute, table.pk.name)
        || str_eq(
            attribute,
            crate::declaration::model::SCHEMA_VERSION_ATTRIBUTE,
        )
    {
        return true;
    }
    if let Some(sk) = table.sk {
        if str_eq(attribute, sk.name) {
            return true;
        }
    }
    let mut i = 0;
    while i < table.indexes.len() {
        let index = &table.indexes[i];
        // A multi-attribute key is made of ordinary attributes of the items.
        if index.is_multi_attribute() {
            i += 1;
            continue;
        }
        if str_eq(attribute, index.pk.name) {
            return true;
        }
        if let Some(sk) = index.sk {
            if str_eq(attribute, sk.name) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Checks that a projection field is read under the entity's attribute name.
pub const fn check_projection_field(
    schema: &EntitySchema,
    field: &str,
    read_as: &str,
) -> Option<Message> {
    let stored = schema.attribute_of(field);
    if stored.is_empty() {
        return Message::new()
            .push("projection field `")
            .push(field)
            .push("` is not an attribute of entity `")
            .push(schema.rust_name)
            .push("`: the entity does not store it (#[serde(skip)], or no such field); remove it from the projection")
            .into_error();
    }
    if str_eq(stored, read_as) {
        return None;
    }
    Message::new()
        .push("projection field `")
        .push(field)
        .push("` is read as attribute `")
        .push(read_as)
        .push("`, but entity `")
        .push(schema.rust_name)
        .push("` stores it as `")
        .push(stored)
        .push("`; add #[serde(rename = \"")
        .push(stored)
        .push("\")] to the field")
        .into_error()
}
