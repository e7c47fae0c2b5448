//! Cursors: where a query stopped, handed to clients as opaque text.
//!
//! A cursor is URL-safe base64 of a small JSON document: a format version, a
//! fingerprint of the query it belongs to (entity, index, partition, sort
//! condition, direction), and per shard the key of the last item returned (or
//! that the shard is finished). Resuming checks the fingerprint and the shape
//! of every key before any request is sent, so a cursor of another query,
//! entity, index or partition, or a damaged one, is an
//! [`Error::InvalidCursor`], never a panic or a malformed request.
//!
//! A client can read the keys inside a cursor (keys hold no
//! `#[ddb(sensitive)]` field by construction). Unless the `Db` has a cursor
//! key ([`Db::with_cursor_key`](crate::Db::with_cursor_key)), cursors are not
//! signed, and a client can forge a position inside the same query's
//! partition, which only skips items it could read anyway; with a key, they
//! carry an HMAC-SHA256 signature and any other cursor is refused.

use crate::db::{CursorKeys, SEALED};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// An opaque position in a query's results; pass it back with `after(...)`.
///
/// ```
/// let cursor: ddb_runtime::Cursor = "not a cursor".parse().unwrap();
/// assert_eq!(cursor.as_str(), "not a cursor"); // checked when used, not when parsed
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cursor(String);

impl Cursor {
    /// The cursor's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cursor({} bytes)", self.0.len())
    }
}

impl FromStr for Cursor {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Cursor(text.to_owned()))
    }
}

impl From<String> for Cursor {
    fn from(text: String) -> Self {
        Cursor(text)
    }
}

/// Where one shard of a query stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Position {
    /// Nothing read yet.
    Start,
    /// Resume after this key.
    After(HashMap<String, AttributeValue>),
    /// Every item read.
    Done,
}

/// Which way a cursor reads from its positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The next page: after each position, in the query's order.
    Forward,
    /// The previous page: before each position, against the query's order
    /// (from the end of the range at [`Position::Start`]).
    Backward,
}

#[derive(Serialize, Deserialize)]
struct Document {
    v: u8,
    q: String,
    s: Vec<Option<HashMap<String, Scalar>>>,
    d: Vec<bool>,
    /// A previous-page cursor (left out of forward ones, so that cursors
    /// handed out before it existed still read).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    b: bool,
}

#[derive(Serialize, Deserialize)]
enum Scalar {
    S(String),
    N(String),
}

const VERSION: u8 = 1;

/// FNV-1a 64 of the parts, each followed by a zero byte.
pub(crate) fn fingerprint(parts: &[&str]) -> String {
    let mut print = Fingerprint::default();
    for part in parts {
        print.part(part);
    }
    print.finish()
}

/// [`fingerprint`] written part by part, a part's text written in pieces
/// (`fmt::Write`) rather than built first.
#[derive(Default)]
pub(crate) struct Fingerprint(crate::keys::shard::Fnv1a);

impl Fingerprint {
    /// Ends the part written so far.
    pub(crate) fn end_part(&mut self) {
        self.0.write(&[0]);
    }

    /// One whole part.
    pub(crate) fn part(&mut self, text: &str) {
        self.0.write(text.as_bytes());
        self.end_part();
    }

    pub(crate) fn finish(self) -> String {
        format!("{:016x}", self.0.finish())
    }
}

impl std::fmt::Write for Fingerprint {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.write(text.as_bytes());
        Ok(())
    }
}

/// A cursor to the next page from `positions`.
pub(crate) fn encode(
    fingerprint: &str,
    positions: &[Position],
    keys: Option<&CursorKeys>,
) -> Cursor {
    encode_reading(fingerprint, positions, Reading::Forward, keys)
}

/// A cursor that reads `reading` from `positions`.
pub(crate) fn encode_reading(
    fingerprint: &str,
    positions: &[Position],
    reading: Reading,
    keys: Option<&CursorKeys>,
) -> Cursor {
    let document = Document {
        v: VERSION,
        q: fingerprint.to_owned(),
        s: positions
            .iter()
            .map(|p| match p {
                Position::After(key) => Some(
                    key.iter()
                        .filter_map(|(name, value)| {
                            let scalar = match value {
                                AttributeValue::S(s) => Scalar::S(s.clone()),
                                AttributeValue::N(n) => Scalar::N(n.clone()),
                                _ => return None,
                            };
                            Some((name.clone(), scalar))
                        })
                        .collect(),
                ),
                _ => None,
            })
            .collect(),
        d: positions
            .iter()
            .map(|p| matches!(p, Position::Done))
            .collect(),
        b: reading == Reading::Backward,
    };
    let json = serde_json::to_vec(&document).unwrap_or_default();
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    match keys {
        Some(keys) if keys.encrypt => {
            Cursor(format!("{SEALED}{}", engine.encode(keys.seal(&json))))
        }
        Some(keys) => {
            let tag = keys.sign(&json);
            Cursor(format!("{}.{}", engine.encode(&json), engine.encode(tag)))
        }
        None => Cursor(engine.encode(json)),
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidCursor {
        reason: reason.into(),
    }
}

/// Decodes a next-page cursor of the query with `fingerprint` over `shards`
/// shards, whose keys have exactly the attributes `key_attributes`.
pub(crate) fn decode(
    cursor: &Cursor,
    fingerprint: &str,
    shards: usize,
    key_attributes: &[&str],
    keys: Option<&CursorKeys>,
) -> Result<Vec<Position>, Error> {
    match decode_reading(cursor, fingerprint, shards, key_attributes, keys)? {
        (positions, Reading::Forward) => Ok(positions),
        (_, Reading::Backward) => Err(invalid("a previous-page cursor reads a query's pages only")),
    }
}

/// Decodes a cursor of the query with `fingerprint`, and which way it reads.
pub(crate) fn decode_reading(
    cursor: &Cursor,
    fingerprint: &str,
    shards: usize,
    key_attributes: &[&str],
    keys: Option<&CursorKeys>,
) -> Result<(Vec<Position>, Reading), Error> {
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    // An encrypted cursor: opened (and so authenticated) under a key.
    if let Some(sealed) = cursor.0.strip_prefix(SEALED) {
        let keys =
            keys.ok_or_else(|| invalid("an encrypted cursor, and this Db has no cursor key"))?;
        let sealed = engine
            .decode(sealed.as_bytes())
            .map_err(|_| invalid("not a ddb cursor (bad encoding)"))?;
        let bytes = keys
            .open(&sealed)
            .ok_or_else(|| invalid("the cursor does not open under this Db's cursor keys"))?;
        return positions(&bytes, fingerprint, shards, key_attributes);
    }
    if keys.is_some_and(|k| k.encrypt) {
        return Err(invalid("this Db takes encrypted cursors only"));
    }
    let (document, tag) = match cursor.0.split_once('.') {
        Some((document, tag)) => (document, Some(tag)),
        None => (cursor.0.as_str(), None),
    };
    let bytes = engine
        .decode(document.as_bytes())
        .map_err(|_| invalid("not a ddb cursor (bad encoding)"))?;
    // A Db with cursor keys takes only cursors signed under one of them; a
    // Db without keys reads any cursor, as before signing existed.
    if let Some(keys) = keys {
        let tag = tag
            .and_then(|tag| engine.decode(tag.as_bytes()).ok())
            .ok_or_else(|| invalid("the cursor is not signed"))?;
        if !keys.verify(&bytes, &tag) {
            return Err(invalid("the cursor's signature does not match"));
        }
    }
    positions(&bytes, fingerprint, shards, key_attributes)
}

/// The positions of a cursor's (verified or opened) document.
fn positions(
    bytes: &[u8],
    fingerprint: &str,
    shards: usize,
    key_attributes: &[&str],
) -> Result<(Vec<Position>, Reading), Error> {
    let document: Document =
        serde_json::from_slice(bytes).map_err(|_| invalid("not a ddb cursor (bad content)"))?;
    if document.v != VERSION {
        return Err(invalid(format!(
            "cursor format {} is not supported",
            document.v
        )));
    }
    if document.q != fingerprint {
        return Err(invalid(
            "the cursor belongs to another query (entity, index, partition, sort condition or direction)",
        ));
    }
    if document.s.len() != shards || document.d.len() != shards {
        return Err(invalid("the cursor has the wrong number of shards"));
    }
    let reading = match document.b {
        true => Reading::Backward,
        false => Reading::Forward,
    };
    let positions = document
        .s
        .into_iter()
        .zip(document.d)
        .map(|(key, done)| match (key, done) {
            (None, true) => Ok(Position::Done),
            (None, false) => Ok(Position::Start),
            (Some(key), false) => {
                let mut names: Vec<&str> = key.keys().map(String::as_str).collect();
                names.sort_unstable();
                let mut expected = key_attributes.to_vec();
                expected.sort_unstable();
                expected.dedup();
                if names != expected {
                    return Err(invalid(
                        "the cursor's key has other attributes than this query's keys",
                    ));
                }
                Ok(Position::After(
                    key.into_iter()
                        .map(|(name, scalar)| {
                            let value = match scalar {
                                Scalar::S(s) => AttributeValue::S(s),
                                Scalar::N(n) => AttributeValue::N(n),
                            };
                            (name, value)
                        })
                        .collect(),
                ))
            }
            (Some(_), true) => Err(invalid("a finished shard cannot have a position")),
        })
        .collect::<Result<_, Error>>()?;
    Ok((positions, reading))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cursors outlive a deploy: the fingerprint of the same query must not
    /// change, whether its parts are given whole or written in pieces.
    #[test]
    fn fingerprints_are_stable() {
        use std::fmt::Write as _;
        let parts = [
            "Order",
            "",
            "CUSTOMER#C1\u{0}X",
            "4",
            "eq \"a\"; begins \"b\"",
            "asc",
        ];
        assert_eq!(fingerprint(&parts), "eaf7084fb89afb73");
        let mut print = Fingerprint::default();
        print.part("Order");
        print.part("");
        print.write_str("CUSTOMER#C1").unwrap();
        print.end_part();
        print.write_str("X").unwrap();
        print.end_part();
        write!(print, "{}", 4).unwrap();
        print.end_part();
        write!(print, "eq {:?}; begins {:?}", "a", "b").unwrap();
        print.end_part();
        print.part("asc");
        assert_eq!(print.finish(), "eaf7084fb89afb73");
    }

    #[test]
    fn round_trip_and_rejections() {
        let key: HashMap<String, AttributeValue> = [
            ("PK".to_owned(), AttributeValue::S("CUSTOMER#1".into())),
            ("SK".to_owned(), AttributeValue::S("ORDER#x".into())),
        ]
        .into();
        let positions = vec![
            Position::After(key.clone()),
            Position::Done,
            Position::Start,
        ];
        let cursor = encode("abc", &positions, None);
        let keys = ["PK", "SK"];
        assert_eq!(decode(&cursor, "abc", 3, &keys, None).unwrap(), positions);
        assert!(decode(&cursor, "abd", 3, &keys, None).is_err());
        assert!(decode(&cursor, "abc", 2, &keys, None).is_err());
        assert!(decode(&cursor, "abc", 3, &["PK", "SK", "GSI1PK"], None).is_err());
        assert!(decode(&Cursor("%%%".into()), "abc", 3, &["PK"], None).is_err());
        let mut tampered = cursor.0.clone();
        tampered.truncate(tampered.len() / 2);
        assert!(decode(&Cursor(tampered), "abc", 3, &keys, None).is_err());
    }

    #[test]
    fn a_previous_page_cursor_says_so_and_reads_only_as_one() {
        let keys = ["PK", "SK"];
        let forward = encode("q", &positions(), None);
        let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(forward.as_str())
            .unwrap();
        // A next-page cursor reads as it did before previous pages existed.
        assert!(!String::from_utf8(json).unwrap().contains("\"b\""));
        let read = decode_reading(&forward, "q", 2, &keys, None).unwrap();
        assert_eq!(read, (positions(), Reading::Forward));
        let backward = encode_reading("q", &positions(), Reading::Backward, None);
        let read = decode_reading(&backward, "q", 2, &keys, None).unwrap();
        assert_eq!(read, (positions(), Reading::Backward));
        // Where only next pages are read (a backfill's checkpoint), it is refused.
        assert!(decode(&backward, "q", 2, &keys, None).is_err());
    }

    fn positions() -> Vec<Position> {
        let key: HashMap<String, AttributeValue> = [
            ("PK".to_owned(), AttributeValue::S("CUSTOMER#1".into())),
            ("SK".to_owned(), AttributeValue::S("ORDER#x".into())),
        ]
        .into();
        vec![Position::After(key), Position::Start]
    }

    /// Every single-byte change of a signed cursor is refused.
    #[test]
    fn a_signed_cursor_cannot_be_changed() {
        let keys = CursorKeys::new(b"0123456789abcdef0123456789abcdef".to_vec());
        let cursor = encode("q", &positions(), Some(&keys));
        let attributes = ["PK", "SK"];
        assert_eq!(
            decode(&cursor, "q", 2, &attributes, Some(&keys)).unwrap(),
            positions()
        );
        let bytes = cursor.0.as_bytes();
        for i in 0..bytes.len() {
            for replacement in [b'A', b'z', b'0', b'.', b'_'] {
                if bytes[i] == replacement {
                    continue;
                }
                let mut changed = bytes.to_vec();
                changed[i] = replacement;
                let changed = Cursor(String::from_utf8(changed).unwrap());
                assert!(
                    decode(&changed, "q", 2, &attributes, Some(&keys)).is_err(),
                    "byte {i} changed to {replacement} was accepted"
                );
            }
        }
        // Unsigned, or signed under another key: refused.
        let unsigned = encode("q", &positions(), None);
        assert!(decode(&unsigned, "q", 2, &attributes, Some(&keys)).is_err());
        let other = CursorKeys::new(b"another key of thirty-two bytes!".to_vec());
        let forged = encode("q", &positions(), Some(&other));
        assert!(decode(&forged, "q", 2, &attributes, Some(&keys)).is_err());
    }

    /// Rotation: the previous key still verifies, a key rotated out
    /// twice does not; an empty key verifies nothing.
    #[test]
    fn rotated_keys_verify_until_retired() {
        let first = CursorKeys::new(b"first key, thirty-two bytes long".to_vec());
        let second = first.rotated(b"second key, thirty-two bytes lon".to_vec());
        let third = second.rotated(b"third key, thirty-two bytes long".to_vec());
        let attributes = ["PK", "SK"];
        let old = encode("q", &positions(), Some(&first));
        assert!(decode(&old, "q", 2, &attributes, Some(&second)).is_ok());
        assert!(decode(&old, "q", 2, &attributes, Some(&third)).is_err());
        let empty = CursorKeys::new(Vec::new());
        let with_empty_key = encode("q", &positions(), Some(&empty));
        assert!(decode(&with_empty_key, "q", 2, &attributes, Some(&empty)).is_err());
        let new = encode("q", &positions(), Some(&second));
        assert!(decode(&new, "q", 2, &attributes, Some(&second)).is_ok());
        assert!(decode(&new, "q", 2, &attributes, Some(&first)).is_err());
    }

    fn fuzz_cases() -> u32 {
        std::env::var("DDB_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(256)
    }

    /// A decoded cursor is one this query could have written: as many
    /// shards, and positions keyed by exactly the query's attributes.
    fn well_formed(positions: &[Position]) -> bool {
        positions.len() == 2
            && positions.iter().all(|p| match p {
                Position::After(key) => {
                    let mut names: Vec<&str> = key.keys().map(String::as_str).collect();
                    names.sort_unstable();
                    names == ["PK", "SK"]
                }
                _ => true,
            })
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(fuzz_cases()))]

        /// Any text, as a cursor or as the content of one: a typed
        /// error or a well-formed position, never a panic.
        #[test]
        fn fuzz_cursor_text(text in any::<String>(), json in any::<bool>()) {
            let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
            let cursor = if json { Cursor(engine.encode(&text)) } else { Cursor(text) };
            if let Ok(positions) = decode(&cursor, "q", 2, &["PK", "SK"], None) {
                prop_assert!(well_formed(&positions));
            }
        }

        /// A cursor changed byte by byte: refused when signed; when
        /// unsigned, refused or still a position of this query.
        #[test]
        fn fuzz_mutated_cursors(
            edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<bool>()), 1..4),
            signed in any::<bool>(),
        ) {
            let keys = CursorKeys::new(b"0123456789abcdef0123456789abcdef".to_vec());
            let keys = signed.then_some(&keys);
            let cursor = encode("q", &positions(), keys);
            let mut bytes = cursor.0.clone().into_bytes();
            for (at, byte, insert) in edits {
                let at = at % (bytes.len() + 1);
                if insert || at == bytes.len() {
                    bytes.insert(at, byte);
                } else {
                    bytes[at] = byte;
                }
            }
            let changed = Cursor(String::from_utf8_lossy(&bytes).into_owned());
            let decoded = decode(&changed, "q", 2, &["PK", "SK"], keys);
            if signed && changed != cursor {
                prop_assert!(decoded.is_err());
            }
            if let Ok(positions) = decoded {
                prop_assert!(well_formed(&positions));
            }
        }
    }

    /// An encrypted cursor round-trips, hides the keys, refuses every
    /// single-byte change, opens under the previous key after a rotation,
    /// and is refused by a Db that only signs (and the reverse).
    #[test]
    fn encrypted_cursors_hide_keys_and_cannot_be_changed() {
        let keys = CursorKeys::new(b"0123456789abcdef0123456789abcdef".to_vec()).encrypting();
        let attributes = ["PK", "SK"];
        let cursor = encode("q", &positions(), Some(&keys));
        assert!(cursor.0.starts_with(SEALED));
        assert!(!cursor.0.contains("CUSTOMER"));
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let raw = engine.decode(&cursor.0[SEALED.len()..]).unwrap();
        assert!(
            !String::from_utf8_lossy(&raw).contains("CUSTOMER"),
            "the key is not in clear"
        );
        assert_eq!(
            decode(&cursor, "q", 2, &attributes, Some(&keys)).unwrap(),
            positions()
        );
        let bytes = cursor.0.as_bytes();
        for i in 0..bytes.len() {
            let mut changed = bytes.to_vec();
            changed[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let changed = Cursor(String::from_utf8(changed).unwrap());
            assert!(
                decode(&changed, "q", 2, &attributes, Some(&keys)).is_err(),
                "byte {i}"
            );
        }
        let rotated = keys.rotated(b"the next key, thirty-two bytes!!".to_vec());
        assert!(decode(&cursor, "q", 2, &attributes, Some(&rotated)).is_ok());
        let signing = CursorKeys::new(b"0123456789abcdef0123456789abcdef".to_vec());
        let signed = encode("q", &positions(), Some(&signing));
        assert!(decode(&signed, "q", 2, &attributes, Some(&keys)).is_err());
        assert!(decode(&cursor, "q", 2, &attributes, None).is_err());
    }
}
