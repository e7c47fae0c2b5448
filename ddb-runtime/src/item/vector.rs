//! Vectors as DynamoDB's vector indexes take them: a list of numbers, each
//! a finite 32-bit float, as many as the index's dimensions.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{TableDef, VectorIndexDef};
use crate::error::{Error, Result};
use crate::item::Item;

/// A type that can hold a vector field: a list of 32-bit floats, as
/// DynamoDB's vector indexes store them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a vector",
    label = "a vector field is a list of 32-bit floats",
    note = "use Vec<f32> or [f32; N] (N the index's dimensions), or an Option of one"
)]
pub trait VectorField {}
impl VectorField for Vec<f32> {}
impl<const N: usize> VectorField for [f32; N] {}
impl<T: VectorField> VectorField for Option<T> {}

/// Spanned at a vector field's type.
pub const fn assert_vector_field<T: VectorField>() {}

/// Checks every vector `item` holds for the table's vector indexes: a value
/// of the wrong form, length or range is refused before sending (DynamoDB
/// would refuse the write). A NULL (an `Option` that is `None`) is left out
/// of the item, which is then not in the index: DynamoDB refuses a NULL
/// vector.
pub(crate) fn check_vectors(entity: &'static str, table: &TableDef, item: &mut Item) -> Result<()> {
    for index in table.vector_indexes {
        if matches!(item.get(index.vector), Some(AttributeValue::Null(_))) {
            item.remove(index.vector);
        }
        if let Some(value) = item.get(index.vector) {
            check_vector(entity, index, value)?;
        }
        for attribute in index.hash.iter().chain(index.filters) {
            if matches!(item.get(attribute.name), Some(AttributeValue::Null(_))) {
                item.remove(attribute.name);
            }
            if let Some(value) = item.get(attribute.name) {
                check_search_attribute(entity, index, *attribute, value)?;
            }
        }
    }
    Ok(())
}

/// Checks a value of an attribute of `index`'s search schema: of the type
/// the table declares it (DynamoDB refuses another), and for the hash
/// attribute not empty.
pub(crate) fn check_search_attribute(
    entity: &'static str,
    index: &VectorIndexDef,
    attribute: crate::declaration::model::KeyAttribute,
    value: &AttributeValue,
) -> Result<()> {
    use crate::declaration::model::ScalarType;
    let invalid = |reason: String| Error::InvalidValue { entity, reason };
    let typed = match attribute.ty {
        ScalarType::S => value.is_s(),
        ScalarType::N => value.is_n(),
    };
    if !typed {
        return Err(invalid(format!(
            "attribute `{}` of vector index `{}`'s search schema is declared {}, and the item \
             holds another type",
            attribute.name,
            index.name,
            attribute.ty.as_str()
        )));
    }
    let hash = index.hash.is_some_and(|h| h.name == attribute.name);
    if hash && matches!(value, AttributeValue::S(s) if s.is_empty()) {
        return Err(invalid(format!(
            "attribute `{}` partitions vector index `{}`: it cannot be an empty string",
            attribute.name, index.name
        )));
    }
    Ok(())
}

/// Checks one stored vector of `index`.
pub(crate) fn check_vector(
    entity: &'static str,
    index: &VectorIndexDef,
    value: &AttributeValue,
) -> Result<()> {
    let invalid = |reason: String| Error::InvalidValue { entity, reason };
    let elements = match value {
        AttributeValue::L(elements) => elements,
        _ => {
            return Err(invalid(format!(
                "attribute `{}` of vector index `{}` must be a list of numbers",
                index.vector, index.name
            )))
        }
    };
    if elements.len() != index.dimensions as usize {
        return Err(invalid(format!(
            "the vector in `{}` has {} dimensions; vector index `{}` takes {}",
            index.vector,
            elements.len(),
            index.name,
            index.dimensions
        )));
    }
    for (position, element) in elements.iter().enumerate() {
        let finite = match element {
            AttributeValue::N(n) => n.parse::<f32>().is_ok_and(f32::is_finite),
            _ => false,
        };
        if !finite {
            return Err(invalid(format!(
                "element {position} of the vector in `{}` is not a finite 32-bit float \
                 (NaN, infinite, out of range or not a number)",
                index.vector
            )));
        }
    }
    Ok(())
}

/// `vector` as SearchVectors takes it, checked against `index`: as many
/// numbers as its dimensions, each finite.
pub(crate) fn search_vector(
    entity: &'static str,
    index: &VectorIndexDef,
    vector: &[f32],
) -> Result<Vec<AttributeValue>> {
    let elements: Vec<AttributeValue> = vector
        .iter()
        .map(|x| AttributeValue::N(x.to_string()))
        .collect();
    check_vector(entity, index, &AttributeValue::L(elements.clone()))?;
    Ok(elements)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::model::{DistanceFunction, IndexProjection};

    const INDEX: VectorIndexDef = VectorIndexDef {
        name: "ByEmbedding",
        vector: "embedding",
        dimensions: 3,
        distance: DistanceFunction::Cosine,
        hash: None,
        filters: &[],
        projection: IndexProjection::All,
    };

    #[test]
    fn vectors_are_checked_as_dynamodb_takes_them() {
        let n = |s: &str| AttributeValue::N(s.into());
        let list = |v: &[&str]| AttributeValue::L(v.iter().map(|s| n(s)).collect());
        assert!(check_vector("P", &INDEX, &list(&["1", "0.5", "-2"])).is_ok());

        for bad in [
            list(&["1", "2"]),
            list(&["1", "2", "NaN"]),
            list(&["1", "2", "1e39"]),
            list(&["1", "2", "inf"]),
            AttributeValue::S("1,2,3".into()),
            AttributeValue::Null(true),
            AttributeValue::L(vec![n("1"), n("2"), AttributeValue::S("3".into())]),
        ] {
            assert!(
                matches!(
                    check_vector("P", &INDEX, &bad),
                    Err(Error::InvalidValue { .. })
                ),
                "{bad:?}"
            );
        }
        assert_eq!(
            search_vector("P", &INDEX, &[1.0, 0.5, -2.0]).unwrap().len(),
            3
        );
        assert!(search_vector("P", &INDEX, &[1.0, f32::NAN, 0.0]).is_err());
        assert!(search_vector("P", &INDEX, &[1.0]).is_err());
    }
}
