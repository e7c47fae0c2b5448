//! The check of a vector field against the table's vector index: the index
//! exists, the field is its vector attribute, the search's hash field is
//! its hash attribute with its type, and a fixed-size array has its
//! dimensions.

use crate::declaration::check::Message;
use crate::declaration::model::{str_eq, EntitySchema, ScalarType};

/// The field `field`, declared `vector(index = ...)`: `hash` is the field
/// named by `by` (and whether its type is numeric), `length` the size of a
/// fixed-size array field. The derive evaluates it in a `const`, spanned at
/// the field's `vector(...)`.
pub const fn check_vector_field(
    schema: &EntitySchema,
    field: &str,
    index: &str,
    hash: Option<(&str, bool)>,
    length: Option<usize>,
) -> Option<Message> {
    let table = schema.table;
    let Some(def) = table.vector_index(index) else {
        return Some(
            Message::new()
                .push("field `")
                .push(field)
                .push("` feeds vector index `")
                .push(index)
                .push("`, which table `")
                .push(table.name)
                .push("` does not declare; declare it with #[ddb(vector_index(name = \"")
                .push(index)
                .push(
                    "\", vector = \"...\", dimensions = N, distance = \"cosine\"))] on the table",
                ),
        );
    };
    let attribute = schema.attribute_of(field);
    if !str_eq(def.vector, attribute) {
        return Some(
            Message::new()
                .push("field `")
                .push(field)
                .push("` is stored as `")
                .push(attribute)
                .push("`, but vector index `")
                .push(index)
                .push("` reads its vectors from `")
                .push(def.vector)
                .push("`; rename the field (or #[serde(rename)]) or the index's vector attribute"),
        );
    }
    if let Some(length) = length {
        if length != def.dimensions as usize {
            return Some(
                Message::new()
                    .push("field `")
                    .push(field)
                    .push("` holds ")
                    .push_number(length)
                    .push(" numbers, but vector index `")
                    .push(index)
                    .push("` takes vectors of ")
                    .push_number(def.dimensions as usize)
                    .push(" dimensions"),
            );
        }
    }
    check_hash(schema, index, def.hash, hash)
}

/// The search's hash field against the index's hash attribute.
const fn check_hash(
    schema: &EntitySchema,
    index: &str,
    declared: Option<crate::declaration::model::KeyAttribute>,
    given: Option<(&str, bool)>,
) -> Option<Message> {
    match (declared, given) {
        (None, None) => None,
        (Some(hash), None) => Some(
            Message::new()
                .push("vector index `")
                .push(index)
                .push("` partitions every search by `")
                .push(hash.name)
                .push("`: name the field that holds it, vector(..., by = field)"),
        ),
        (None, Some((field, _))) => Some(
            Message::new()
                .push("vector index `")
                .push(index)
                .push("` has no hash attribute in its search schema, so a search takes no `by` field; remove by = ")
                .push(field),
        ),
        (Some(hash), Some((field, numeric))) => {
            let attribute = schema.attribute_of(field);
            if !str_eq(hash.name, attribute) {
                return Some(
                    Message::new()
                        .push("field `")
                        .push(field)
                        .push("` is stored as `")
                        .push(attribute)
                        .push("`, but vector index `")
                        .push(index)
                        .push("` partitions its searches by `")
                        .push(hash.name)
                        .push("`; name the field stored as `")
                        .push(hash.name)
                        .push("`"),
                );
            }
            let wants_number = matches!(hash.ty, ScalarType::N);
            if wants_number != numeric {
                return Some(
                    Message::new()
                        .push("field `")
                        .push(field)
                        .push("` does not have the type of vector index `")
                        .push(index)
                        .push("`'s hash attribute `")
                        .push(hash.name)
                        .push("`, declared ")
                        .push(hash.ty.as_str())
                        .push(" (hash_type on the table)"),
                );
            }
            None
        }
    }
}
