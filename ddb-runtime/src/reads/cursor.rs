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
//! Cursors are not signed: a client can read the keys inside one (keys hold no
//! `#[ddb(sensitive)]` field by construction), and can forge a position inside
//! the same query's partition, which only skips items it could read anyway.

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

#[derive(Serialize, Deserialize)]
struct Document {
    v: u8,
    q: String,
    s: Vec<Option<HashMap<String, Scalar>>>,
    d: Vec<bool>,
}

#[derive(Serialize, Deserialize)]
enum Scalar {
    S(String),
    N(String),
}

const VERSION: u8 = 1;

/// FNV-1a 64 of the parts, each followed by a zero byte.
pub(crate) fn fingerprint(parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

pub(crate) fn encode(fingerprint: &str, positions: &[Position]) -> Cursor {
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
    };
    let json = serde_json::to_vec(&document).unwrap_or_default();
    Cursor(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json))
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidCursor {
        reason: reason.into(),
    }
}

/// Decodes a cursor of the query with `fingerprint` over `shards` shards,
/// whose keys have exactly the attributes `key_attributes`.
pub(crate) fn decode(
    cursor: &Cursor,
    fingerprint: &str,
    shards: usize,
    key_attributes: &[&str],
) -> Result<Vec<Position>, Error> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.0.as_bytes())
        .map_err(|_| invalid("not a ddb cursor (bad encoding)"))?;
    let document: Document =
        serde_json::from_slice(&bytes).map_err(|_| invalid("not a ddb cursor (bad content)"))?;
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
    document
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
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let cursor = encode("abc", &positions);
        assert_eq!(decode(&cursor, "abc", 3, &["PK", "SK"]).unwrap(), positions);
        assert!(decode(&cursor, "abd", 3, &["PK", "SK"]).is_err());
        assert!(decode(&cursor, "abc", 2, &["PK", "SK"]).is_err());
        assert!(decode(&cursor, "abc", 3, &["PK", "SK", "GSI1PK"]).is_err());
        assert!(decode(&Cursor("%%%".into()), "abc", 3, &["PK"]).is_err());
        let mut tampered = cursor.0.clone();
        tampered.truncate(tampered.len() / 2);
        assert!(decode(&Cursor(tampered), "abc", 3, &["PK", "SK"]).is_err());
    }
}
