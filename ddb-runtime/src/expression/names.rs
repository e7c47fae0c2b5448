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

/// `expression` as a reader reads it: each `#name` placeholder replaced by
/// the name it stands for (`#n0, status` with `#n0 = id` reads `id,
/// status`); a placeholder not in `names` stays as it is.
pub(crate) fn names_resolved<'a>(
    expression: &'a str,
    names: Option<&std::collections::HashMap<String, String>>,
) -> std::borrow::Cow<'a, str> {
    let Some(names) = names.filter(|n| !n.is_empty()) else {
        return std::borrow::Cow::Borrowed(expression);
    };
    let mut out = String::with_capacity(expression.len());
    let mut rest = expression;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let end = after[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(after.len(), |i| i + 1);
        let placeholder = &after[..end];
        out.push_str(names.get(placeholder).map_or(placeholder, String::as_str));
        rest = &after[end..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_read_as_the_names_they_stand_for() {
        let names: std::collections::HashMap<String, String> = [
            ("#a".to_owned(), "id".to_owned()),
            ("#b_1".to_owned(), "status".to_owned()),
        ]
        .into();
        assert_eq!(
            super::names_resolved("#a, #b_1, plain", Some(&names)),
            "id, status, plain"
        );
        assert_eq!(
            super::names_resolved("#a, #unknown", Some(&names)),
            "id, #unknown"
        );
        assert_eq!(super::names_resolved("#a", None), "#a");
    }
}
