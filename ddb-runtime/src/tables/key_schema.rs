//! Keys in DynamoDB's own types: the `KeySchema` of a table and of its
//! indexes, and the `AttributeDefinitions` of every key attribute with its
//! scalar type.

use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType, ScalarAttributeType};

use crate::declaration::model::{IndexDef, KeyAttribute, ScalarType, TableDef};

pub(super) fn key_element(attribute: KeyAttribute, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(attribute.name)
        .key_type(key_type)
        .build()
        .expect("attribute name and key type are set")
}

pub(super) fn key_schema(pk: KeyAttribute, sk: Option<KeyAttribute>) -> Vec<KeySchemaElement> {
    let mut schema = vec![key_element(pk, KeyType::Hash)];
    if let Some(sk) = sk {
        schema.push(key_element(sk, KeyType::Range));
    }
    schema
}

/// A global index's key schema: every partition attribute (HASH), then every
/// sort attribute (RANGE), in order; DynamoDB reads a multi-attribute key
/// from this order.
pub(super) fn index_key_schema(index: &IndexDef) -> Vec<KeySchemaElement> {
    let partition = index.pk_attributes().map(|a| key_element(a, KeyType::Hash));
    let sort = index
        .sk_attributes()
        .map(|a| key_element(a, KeyType::Range));
    partition.chain(sort).collect()
}

pub(super) fn scalar(ty: ScalarType) -> ScalarAttributeType {
    match ty {
        ScalarType::S => ScalarAttributeType::S,
        ScalarType::N => ScalarAttributeType::N,
    }
}

/// Every key attribute of the table and its indexes, each once, in order of
/// first use: exactly DynamoDB's `AttributeDefinitions`.
pub fn key_attributes(table: &TableDef) -> Vec<KeyAttribute> {
    let mut attributes: Vec<KeyAttribute> = Vec::new();
    let mut add = |attribute: KeyAttribute| {
        if !attributes.iter().any(|a| a.name == attribute.name) {
            attributes.push(attribute);
        }
    };
    add(table.pk);
    if let Some(sk) = table.sk {
        add(sk);
    }
    for index in table.indexes {
        index.key_attributes().for_each(&mut add);
    }
    for index in table.vector_indexes {
        index.hash.into_iter().for_each(&mut add);
        index.filters.iter().copied().for_each(&mut add);
    }
    attributes
}
