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
pub use fields::{check_fields, check_projection_field, check_ttl_field};
pub use keys::{check_key, check_multi_attribute_key};
pub use message::Message;
pub use vector::check_vector_field;
