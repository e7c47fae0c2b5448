//! A cursor encoded and decoded as a query does, for ddb's own benchmark of
//! cursor cost (feature `bench`).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;

/// A two-shard cursor over `PK`/`SK`, encoded and decoded as a query does,
/// for ddb's criterion bench of cursor cost (signed or not).
#[derive(Debug)]
pub struct CursorBench {
    keys: Option<crate::db::CursorKeys>,
    positions: Vec<crate::reads::cursor::Position>,
}

impl CursorBench {
    /// Signed under `key` when one is given.
    pub fn new(key: Option<&[u8]>) -> Self {
        let after: Item = [
            ("PK".to_owned(), AttributeValue::S("CUSTOMER#123".into())),
            (
                "SK".to_owned(),
                AttributeValue::S("ORDER#2026-10-02T14:31:07Z#A145".into()),
            ),
        ]
        .into();
        CursorBench {
            keys: key.map(|key| crate::db::CursorKeys::new(key.to_vec())),
            positions: vec![
                crate::reads::cursor::Position::After(after),
                crate::reads::cursor::Position::Start,
            ],
        }
    }

    /// Encrypted under `key` (AES-256-GCM-SIV).
    pub fn encrypted(key: &[u8]) -> Self {
        let mut bench = Self::new(Some(key));
        bench.keys = bench.keys.map(|keys| keys.encrypting());
        bench
    }

    /// Encodes the cursor.
    pub fn encode(&self) -> crate::reads::cursor::Cursor {
        crate::reads::cursor::encode("fingerprint", &self.positions, self.keys.as_ref())
    }

    /// Decodes (and verifies) `cursor`; whether it was taken.
    pub fn decode(&self, cursor: &crate::reads::cursor::Cursor) -> bool {
        crate::reads::cursor::decode(cursor, "fingerprint", 2, &["PK", "SK"], self.keys.as_ref())
            .is_ok()
    }
}
