//! Checks that span several declarations, evaluated at compile time.
//!
//! The derive sees one struct at a time; whether an index exists on the table,
//! whether key types match, and whether two entities of one table can be told
//! apart by their keys are answered here, in `const` code, so a mistake is a
//! compile error that names what is wrong.

/// Returns the message of a failed check from the enclosing function.
macro_rules! check {
    ($e:expr) => {
        if let Some(message) = $e {
            return Some(message);
        }
    };
}

mod distinct;
mod fields;
mod keys;
mod message;
mod vector;

pub use distinct::check_distinct_keys;

use crate::declaration::model::EntitySchema;

/// Whether one of `schemas` is the stand-in a derive emits beside the
/// errors of a declaration: a schema without keys (every entity has a
/// primary key). Checks across declarations say nothing of a stand-in; its
/// own errors are the ones to read.
pub const fn has_stand_in(schemas: &[&EntitySchema]) -> bool {
    let mut i = 0;
    while i < schemas.len() {
        if schemas[i].keys.is_empty() {
            return true;
        }
        i += 1;
    }
    false
}
pub use fields::{check_fields, check_projection_field, check_ttl_field};
pub use keys::{check_key, check_multi_attribute_key};
pub use message::Message;
pub use vector::check_vector_field;
