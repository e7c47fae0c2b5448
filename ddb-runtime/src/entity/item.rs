//! An entity's whole item: its fields, then the primary and index key
//! attributes and the entity type, each key attribute a field is stored
//! under checked to be that field's key form.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{EntitySchema, KeyAttribute, KeyDef, Part};
use crate::entity::Entity;
use crate::error::Error;
use crate::item::Item;
use crate::keys::key::{Key, KeyValue, KeyValues};

/// The whole item: the fields through serde_dynamo, then the primary and
/// index key attributes and the entity type.
///
/// `attribute_keys` holds, for each field of a multi-attribute index key,
/// its attribute and its value as a key (`None` for an `Option` that is
/// `None`): the stored value must be exactly that, or the index would hold
/// something no typed query can ask for; a `None` leaves the attribute out,
/// so the item is not in the index (DynamoDB refuses NULL in an index key).
pub fn to_item<E: Entity>(
    mut item: Item,
    primary: Key<E>,
    indexes: std::vec::Vec<(&'static str, KeyValues)>,
    attribute_keys: std::vec::Vec<(&'static str, &'static str, Option<KeyValue>)>,
) -> Result<Item, Error> {
    let schema = &E::SCHEMA;
    let table = schema.table;
    for (field, attribute, key) in attribute_keys {
        match key {
            Some(key) => check_key_form(schema.entity_type, field, item.get(attribute), &key)?,
            None => {
                item.remove(attribute);
            }
        }
    }
    check_raw_keys(
        schema,
        &item,
        schema.primary(),
        table.pk,
        table.sk,
        primary.values(),
    )?;
    insert_key(&mut item, table.pk, table.sk, primary.into_values());
    for (name, values) in indexes {
        if let Some(index) = table.index(name) {
            if let Some(key) = schema.keys.iter().find(|k| k.index == Some(name)) {
                check_raw_keys(schema, &item, key, index.pk, index.sk, &values)?;
            }
            insert_key(&mut item, index.pk, index.sk, values);
        }
    }
    item.insert(
        table.entity_attribute.to_owned(),
        AttributeValue::S(schema.entity_type.to_owned()),
    );
    Ok(item)
}

/// Checks that a field of a multi-attribute key is stored (`stored`, its
/// serde form) exactly as its key form, so a typed query finds it.
pub fn check_key_form(
    entity: &'static str,
    field: &'static str,
    stored: Option<&AttributeValue>,
    key: &KeyValue,
) -> Result<(), Error> {
    if stored == Some(&key.to_attribute_value()) {
        return Ok(());
    }
    Err(Error::KeyMismatch {
        entity,
        key: "key attribute",
        template: field,
        reason: format!(
            "field `{field}` is stored as a key attribute itself, and serde writes it in another \
             form than its key form (KeySegment), so it would not read back or no typed query would \
             find it; make the two agree (e.g. #[serde(rename_all = \"SCREAMING_SNAKE_CASE\")] on \
             an enum that derives KeySegment)"
        ),
    })
}

/// A field stored under the very key attribute its single-field template
/// writes (`"{customer_id}"` on `customerId`) is that key: its serde form
/// must be its key form, or the item would not read back (or a query would
/// not find it).
fn check_raw_keys(
    schema: &EntitySchema,
    item: &Item,
    key: &KeyDef,
    pk: KeyAttribute,
    sk: Option<KeyAttribute>,
    values: &KeyValues,
) -> Result<(), Error> {
    let sides = [
        (Some(key.pk), Some(pk), Some(&values.pk)),
        (key.sk, sk, values.sk.as_ref()),
    ];
    for (template, attribute, value) in sides {
        let (Some(template), Some(attribute), Some(value)) = (template, attribute, value) else {
            continue;
        };
        if let [Part::Field(field)] = template.parts {
            if schema.attribute_of(field) == attribute.name {
                check_key_form(schema.entity_type, field, item.get(attribute.name), value)?;
            }
        }
    }
    Ok(())
}

fn insert_key(item: &mut Item, pk: KeyAttribute, sk: Option<KeyAttribute>, values: KeyValues) {
    item.insert(pk.name.to_owned(), values.pk.into_attribute_value());
    if let (Some(attribute), Some(value)) = (sk, values.sk) {
        item.insert(attribute.name.to_owned(), value.into_attribute_value());
    }
}
