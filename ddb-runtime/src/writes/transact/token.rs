//! The ClientRequestToken of a transaction.

/// A fresh ClientRequestToken: 32 hex digits, unique across calls and
/// processes. The first 16 hash the time and the process id under std's
/// randomly keyed SipHash (keys from the OS, drawn once per process): a
/// forked process or a restored snapshot, which share those keys, still
/// differ. The last 16 are a process-wide counter through a bijection keyed
/// the same way (an odd multiplier, then a mask): no two calls of a process
/// share a token. No random-number crate is needed.
pub(super) fn request_token() -> String {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static PROCESS: std::sync::OnceLock<(std::collections::hash_map::RandomState, u64, u64)> =
        std::sync::OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (keys, multiplier, mask) = PROCESS.get_or_init(|| {
        let keys = std::collections::hash_map::RandomState::new();
        let (multiplier, mask) = (keys.hash_one(1u8) | 1, keys.hash_one(2u8));
        (keys, multiplier, mask)
    });
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let first = keys.hash_one((nanos, std::process::id()));
    let mut token = String::with_capacity(32);
    for half in [first, count.wrapping_mul(*multiplier) ^ mask] {
        for digit in (0..16).rev().map(|at| (half >> (4 * at)) & 0xf) {
            token.push(char::from_digit(digit as u32, 16).unwrap_or('0'));
        }
    }
    token
}

#[cfg(test)]
mod tests {
    #[test]
    fn request_tokens_are_distinct_and_fit_dynamodb() {
        let tokens: std::collections::HashSet<String> =
            (0..10_000).map(|_| super::request_token()).collect();
        assert_eq!(tokens.len(), 10_000);
        assert!(tokens
            .iter()
            .all(|t| t.len() == 32 && t.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))));
    }
}
