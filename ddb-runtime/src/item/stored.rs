//! What ddb stores in an item beside its fields that reads look at: the
//! schema version, and the key text messages name an item by.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::TableDef;
use crate::error::Error;
use crate::item::Item;

pub use crate::declaration::model::SCHEMA_VERSION_ATTRIBUTE;

/// The schema version `item` is stored at: 1 when it has none.
pub(crate) fn stored_schema_version(
    item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
) -> std::result::Result<u32, String> {
    schema_version(item.get(SCHEMA_VERSION_ATTRIBUTE))
}

/// The schema version an item's [`SCHEMA_VERSION_ATTRIBUTE`] holds: 1 when
/// it has none.
pub(crate) fn schema_version(
    attribute: Option<&aws_sdk_dynamodb::types::AttributeValue>,
) -> std::result::Result<u32, String> {
    match attribute {
        None => Ok(1),
        Some(aws_sdk_dynamodb::types::AttributeValue::N(n)) => {
            n.parse::<u32>().ok().filter(|v| *v >= 1).ok_or_else(|| {
                format!("`{SCHEMA_VERSION_ATTRIBUTE}` = {n} is not a schema version")
            })
        }
        Some(_) => Err(format!("`{SCHEMA_VERSION_ATTRIBUTE}` is not a number")),
    }
}

/// `PK / SK` of a stored item of `table`, for messages.
pub(crate) fn item_key_text(
    table: &TableDef,
    item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
) -> String {
    let text = |name: &str| match item.get(name) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.as_str(),
        Some(aws_sdk_dynamodb::types::AttributeValue::N(n)) => n.as_str(),
        _ => "?",
    };
    match table.sk {
        Some(sk) => format!("{} / {}", text(table.pk.name), text(sk.name)),
        None => text(table.pk.name).to_owned(),
    }
}

/// Checks that `item` stores entity type `entity`.
pub fn check_entity_type(entity: &'static str, table: &TableDef, item: &Item) -> Result<(), Error> {
    match item.get(table.entity_attribute) {
        Some(AttributeValue::S(found)) if found == entity => {}
        other => {
            return Err(Error::WrongEntityType {
                entity,
                found: match other {
                    Some(AttributeValue::S(found)) => found.clone(),
                    _ => String::new(),
                },
            })
        }
    }
    Ok(())
}
