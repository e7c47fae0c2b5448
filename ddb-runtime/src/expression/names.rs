//! When an attribute name can stand in an expression as it is, and when it
//! needs an `ExpressionAttributeNames` placeholder (`#n0`).
//!
//! A careful engineer writes `attribute_not_exists(PK)`, not
//! `attribute_not_exists(#n0)` with a names map: the placeholder costs the
//! request a map, its bytes (signed, sent, parsed) and the server a lookup.
//! ddb does the same, and keeps a placeholder for every name DynamoDB would
//! not read as a plain attribute name: one of its 573 reserved words (in any
//! case), another word of its expressions (a function, `REMOVE`), or any
//! name that is not an ASCII letter followed by ASCII letters, digits and
//! underscores (a name starting with a digit or an underscore, holding a
//! `.`, `-`, `#`, `:`, a space or any other character).

use super::reserved::is_word;

/// Whether `name` must be written through a placeholder in an expression.
pub(crate) fn needs_placeholder(name: &str) -> bool {
    let bytes = name.as_bytes();
    let plain =
        bytes.first().is_some_and(u8::is_ascii_alphabetic) && bytes.iter().all(|&b| in_name(b));
    !plain || is_word(name)
}

/// Whether `b` can stand in a plain name after its first letter (an ASCII
/// letter, digit or underscore).
pub(crate) fn in_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
