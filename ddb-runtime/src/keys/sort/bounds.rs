//! The bounds of sort-key ranges: the greatest key with a prefix, and the
//! keys just above and just below a key, all within DynamoDB's sort key limit.

use super::SORT_KEY_BYTES;

/// The greatest valid sort key that starts with `prefix`: `prefix` filled up
/// to 1024 bytes with the largest characters of each width.
pub(super) fn max_with_prefix(prefix: &str) -> String {
    let mut out = String::with_capacity(SORT_KEY_BYTES);
    out.push_str(prefix);
    while out.len() + 4 <= SORT_KEY_BYTES {
        out.push(char::MAX);
    }
    match SORT_KEY_BYTES.saturating_sub(out.len()) {
        3 => out.push('\u{FFFF}'),
        2 => out.push('\u{7FF}'),
        1 => out.push('\u{7F}'),
        _ => {}
    }
    out
}

/// The smallest sort key above `text` no longer than `text`: its last
/// character raised by one (a character at the top is dropped and the one
/// before it raised); `None` when there is none.
pub(super) fn just_above(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let last = chars.next_back()?;
    let stem = chars.as_str();
    let mut code = last as u32 + 1;
    if (0xD800..=0xDFFF).contains(&code) {
        code = 0xE000;
    }
    match char::from_u32(code) {
        Some(next) if stem.len() + next.len_utf8() <= SORT_KEY_BYTES => {
            Some(format!("{stem}{next}"))
        }
        _ => just_above(stem),
    }
}

/// The greatest valid sort key below `text`, or `None` when there is none.
pub(super) fn just_below(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let last = chars.next_back()?;
    let stem = chars.as_str();
    if last == '\0' {
        return Some(stem.to_owned());
    }
    let mut code = last as u32 - 1;
    if (0xD800..=0xDFFF).contains(&code) {
        code = 0xD7FF;
    }
    let previous = char::from_u32(code)?;
    Some(max_with_prefix(&format!("{stem}{previous}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `gt` on a whole sort key at the 1,024-byte limit must not send a
    /// 1,025-byte bound.
    #[test]
    fn a_greater_than_bound_stays_within_the_limit() {
        let full = "a".repeat(SORT_KEY_BYTES);
        let above = just_above(&full).unwrap();
        assert_eq!(above.len(), SORT_KEY_BYTES);
        assert!(above.as_str() > full.as_str());
        assert_eq!(&above[..SORT_KEY_BYTES - 1], &full[..SORT_KEY_BYTES - 1]);
        assert_eq!(just_above("\u{10FFFF}"), None);
    }

    #[test]
    fn bounds_are_tight() {
        assert!(max_with_prefix("ab").len() <= 1024);
        assert!(max_with_prefix("ab").as_str() > "ab\u{10FFFF}");
        assert!(just_below("b").unwrap().as_str() < "b");
        assert!(just_below("b").unwrap().as_str() > "a\u{10FFFF}\u{10FFFF}");
        assert_eq!(just_below("a\0").unwrap(), "a");
        assert_eq!(just_below(""), None);
    }
}
