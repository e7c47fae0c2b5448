//! What a key knows through its entity: its table's key attributes, and
//! the entity type its `Debug` names.

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Entity, Table};
use crate::error::Error;
use crate::keys::key::{Key, KeyValues};

impl<E: Entity> fmt::Debug for Key<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("entity", &E::SCHEMA.entity_type)
            .field("pk", &self.values.pk)
            .field("sk", &self.values.sk)
            .finish()
    }
}

impl<E: Entity> Key<E> {
    /// The key as the `Key` map of a GetItem or DeleteItem request.
    pub fn to_item(&self) -> HashMap<String, AttributeValue> {
        self.values.to_item(&<E::Table as Table>::DEF)
    }

    /// Reads the primary key of a stored item of `E`: a typed error when the
    /// item's key is not one of `E`'s (it does not parse with `E`'s
    /// templates).
    pub fn from_item(item: &HashMap<String, AttributeValue>) -> Result<Self, Error> {
        let key = Self::read_item(item)?;
        E::check_key(&key)?;
        Ok(key)
    }

    /// The key attributes of `item`, unchecked.
    pub(crate) fn read_item(item: &HashMap<String, AttributeValue>) -> Result<Self, Error> {
        KeyValues::read_table_key(&<E::Table as Table>::DEF, item)
            .map(Self::from_values)
            .map_err(|missing| Error::KeyMismatch {
                entity: E::SCHEMA.entity_type,
                key: "primary key",
                template: "",
                reason: format!("the item has no S or N attribute `{missing}`"),
            })
    }
}
