//! Write sharding: the shard of an item, and a sharded index partition key.

use crate::error::Error;
use crate::keys::key::{KeyValue, KeyValues, PARTITION_KEY_LIMIT};

/// The write shard of an item, from its primary key: FNV-1a (64-bit) over the
/// partition key's text, a zero byte and the sort key's text, modulo `shards`.
///
/// Stable across releases and platforms; the test suite pins vectors.
///
/// ```
/// use ddb_runtime::{key::shard_of, KeyValue, KeyValues};
/// let key = KeyValues { pk: KeyValue::S("CUSTOMER#123".into()), sk: Some(KeyValue::S("ORDER#A102".into())) };
/// assert!(shard_of(&key, 4) < 4);
/// ```
pub fn shard_of(key: &KeyValues, shards: u16) -> u16 {
    let mut hash = Fnv1a::default();
    hash.write(key.pk.as_str().as_bytes());
    hash.write(&[0]);
    if let Some(sk) = &key.sk {
        hash.write(sk.as_str().as_bytes());
    }
    (hash.finish() % u64::from(shards.max(1))) as u16
}

/// FNV-1a 64, the hash of shard numbers and cursor fingerprints: stable
/// across releases and platforms, as both must be.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}

/// Appends `#<shard>` to a sharded index's partition key, the shard
/// chosen from the item's primary key; the key as written must fit
/// DynamoDB's partition key limit.
pub fn with_shard(
    entity: &'static str,
    pk: KeyValue,
    primary: &KeyValues,
    shards: u16,
) -> Result<KeyValue, Error> {
    shard_partition(entity, pk, crate::keys::shard::shard_of(primary, shards))
}

/// The partition key of one shard, `<pk>#<shard>` (a number key is not
/// sharded), the suffix written onto the key's own text; the key as
/// written must fit DynamoDB's partition key limit.
pub(crate) fn shard_partition(
    entity: &'static str,
    pk: KeyValue,
    shard: u16,
) -> Result<KeyValue, Error> {
    let sharded = match pk {
        KeyValue::S(mut text) => {
            use std::fmt::Write;
            let _ = write!(text, "#{shard}");
            KeyValue::S(text)
        }
        number => number,
    };
    crate::keys::key::check_size(
        entity,
        "index partition key",
        sharded.as_str().len(),
        PARTITION_KEY_LIMIT,
    )?;
    Ok(sharded)
}
