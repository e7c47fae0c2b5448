//! Expressions as a reader reads them: every `#name` and `:value`
//! placeholder resolved, values written compactly, and the value of a
//! sensitive attribute redacted.

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

/// An expression's `ExpressionAttributeNames`.
pub(super) type Names = HashMap<String, String>;
/// An expression's `ExpressionAttributeValues`.
pub(super) type Values = HashMap<String, AttributeValue>;

/// Whether the value of `attribute` is redacted: a sensitive attribute,
/// or any attribute when the sensitive ones are not known.
pub(super) fn redacts(sensitive: Option<&[&str]>, attribute: &str) -> bool {
    sensitive.is_none_or(|s| s.contains(&attribute))
}

/// Words that are never an attribute name in the expressions ddb writes.
const KEYWORDS: &[&str] = &[
    "AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE",
];

/// `text` with every `#name` replaced by its attribute name and every
/// `:value` by its value, written compactly, or `<sensitive>` when it
/// belongs to a sensitive attribute (the attribute named last before it),
/// or `<value>` when no attribute precedes it.
pub(super) fn resolve(
    text: &str,
    names: Option<&Names>,
    values: Option<&Values>,
    sensitive: Option<&[&str]>,
) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '#' || c == ':';
    let mut out = String::with_capacity(text.len());
    // The root of the attribute path named last, if any.
    let mut last: Option<String> = None;
    // The previous non-blank character: a `.` makes the next word a
    // segment of the path, not its root.
    let mut previous = ' ';
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !is_word(c) {
            out.push(c);
            if !c.is_whitespace() {
                previous = c;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| !is_word(c) || c == '#' || c == ':')
            .map_or(rest.len(), |(i, _)| i);
        let word = &rest[..end];
        rest = &rest[end..];
        let function = rest.trim_start().starts_with('(');
        if word.starts_with(':') {
            match (values.and_then(|v| v.get(word)), &last) {
                (None, _) => out.push_str(word),
                (Some(value), Some(name)) if !redacts(sensitive, name) => {
                    out.push_str(&Compact(value).to_string())
                }
                (Some(_), Some(_)) if sensitive.is_none() => out.push_str("<value>"),
                (Some(_), Some(_)) => out.push_str("<sensitive>"),
                (Some(_), None) => out.push_str("<value>"),
            }
        } else {
            let name = if word.starts_with('#') {
                names.and_then(|n| n.get(word)).map_or(word, String::as_str)
            } else {
                word
            };
            out.push_str(name);
            let keyword = KEYWORDS.contains(&word.to_ascii_uppercase().as_str());
            if !function && !keyword && previous != '.' && previous != '[' {
                last = Some(name.to_owned());
            }
        }
        previous = 'a';
    }
    out
}

/// A value written compactly: strings quoted, numbers bare, sets as
/// `<<..>>`, binary as a byte count.
pub(super) struct Compact<'a>(pub(super) &'a AttributeValue);

impl fmt::Display for Compact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T>(
            f: &mut fmt::Formatter<'_>,
            (open, close): (&str, &str),
            items: &[T],
            each: impl Fn(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
        ) -> fmt::Result {
            f.write_str(open)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                each(f, item)?;
            }
            f.write_str(close)
        }
        match self.0 {
            AttributeValue::S(s) => write!(f, "{s:?}"),
            AttributeValue::N(n) => f.write_str(n),
            AttributeValue::B(b) => write!(f, "<{} bytes>", b.as_ref().len()),
            AttributeValue::Bool(b) => write!(f, "{b}"),
            AttributeValue::Null(_) => f.write_str("null"),
            AttributeValue::L(items) => {
                list(f, ("[", "]"), items, |f, v| write!(f, "{}", Compact(v)))
            }
            AttributeValue::M(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                list(f, ("{", "}"), &entries, |f, (k, v)| {
                    write!(f, "{k}: {}", Compact(v))
                })
            }
            AttributeValue::Ss(items) => list(f, ("<<", ">>"), items, |f, s| write!(f, "{s:?}")),
            AttributeValue::Ns(items) => list(f, ("<<", ">>"), items, |f, n| f.write_str(n)),
            AttributeValue::Bs(items) => list(f, ("<<", ">>"), items, |f, b| {
                write!(f, "<{} bytes>", b.as_ref().len())
            }),
            _ => f.write_str("<value>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maps(names: &[(&str, &str)], values: &[(&str, AttributeValue)]) -> (Names, Values) {
        let names = names
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let values = values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        (names, values)
    }

    #[test]
    fn placeholders_resolve_and_sensitive_values_are_redacted() {
        let (n, v) = maps(
            &[("#n0", "email"), ("#n1", "status")],
            &[
                (":v0", AttributeValue::S("a@b.c".into())),
                (":v1", AttributeValue::S("OPEN".into())),
                (":v2", AttributeValue::N("3".into())),
            ],
        );
        let text = "#n0 = :v0 AND #n1 = :v1 AND size(#n0) > :v2";
        let read = resolve(text, Some(&n), Some(&v), Some(&["email"]));
        assert_eq!(
            read,
            "email = <sensitive> AND status = \"OPEN\" AND size(email) > <sensitive>"
        );
    }

    #[test]
    fn a_value_follows_the_root_of_its_path_and_functions_are_not_attributes() {
        let (n, v) = maps(
            &[("#n0", "email"), ("#n1", "tags")],
            &[
                (":v0", AttributeValue::S("x".into())),
                (
                    ":v1",
                    AttributeValue::L(vec![AttributeValue::S("y".into())]),
                ),
                (":v2", AttributeValue::N("1".into())),
            ],
        );
        let text = "SET #n0.inner[0] = :v0, #n1 = list_append(#n1, :v1) ADD version :v2";
        let read = resolve(text, Some(&n), Some(&v), Some(&["email"]));
        assert_eq!(
            read,
            "SET email.inner[0] = <sensitive>, tags = list_append(tags, [\"y\"]) ADD version 1"
        );
    }

    #[test]
    fn a_value_with_no_attribute_before_it_is_not_printed() {
        let (n, v) = maps(&[], &[(":v0", AttributeValue::S("secret".into()))]);
        assert_eq!(
            resolve(":v0 = x", Some(&n), Some(&v), Some(&[])),
            "<value> = x"
        );
    }

    #[test]
    fn values_are_written_compactly() {
        let b = AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![1, 2, 3]));
        assert_eq!(Compact(&b).to_string(), "<3 bytes>");
        let ss = AttributeValue::Ss(vec!["a".into(), "b".into()]);
        assert_eq!(Compact(&ss).to_string(), "<<\"a\", \"b\">>");
        let m = AttributeValue::M(
            [("k".to_owned(), AttributeValue::N("1".into()))]
                .into_iter()
                .collect(),
        );
        assert_eq!(Compact(&m).to_string(), "{k: 1}");
    }
}
