//! Whether the server returns the item a failed condition met, as its
//! answers have shown.
//!
//! ddb asks every conditioned write for the item back when its condition
//! fails (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), and maps the
//! failure from that item: a version conflict, an item that already exists.
//! DynamoDB always returns it; a server that does not makes an existing item
//! look missing. So an empty answer is read back once, until a failed
//! condition has come back with an item, which shows the server returns
//! them: on DynamoDB only the first failures of a handle pay for a read.

use std::sync::atomic::{AtomicU8, Ordering};

/// No failed condition has come back with an item yet.
const UNKNOWN: u8 = 0;
/// A failed condition came back with its item: the server returns them.
const RETURNED: u8 = 1;
/// A read-back found an item the server had not returned.
const WITHHELD: u8 = 2;

/// What a server's failed conditions have shown about the items they met.
#[derive(Debug, Default)]
pub(crate) struct ConditionItems(AtomicU8);

impl ConditionItems {
    /// Records a failed condition's answer, and says whether the item must
    /// be read back: the answer held none, and the server has not shown
    /// that it returns them.
    pub(crate) fn read_back(&self, returned: bool) -> bool {
        if returned {
            // A server seen withholding items stays read back.
            let _ =
                self.0
                    .compare_exchange(UNKNOWN, RETURNED, Ordering::Relaxed, Ordering::Relaxed);
            return false;
        }
        self.0.load(Ordering::Relaxed) != RETURNED
    }

    /// Records that a read-back found an item the answer did not return.
    pub(crate) fn withheld(&self) {
        self.0.store(WITHHELD, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::ConditionItems;

    #[test]
    fn an_empty_answer_is_read_back_until_an_item_comes_back() {
        let items = ConditionItems::default();
        assert!(items.read_back(false));
        assert!(!items.read_back(true));
        assert!(!items.read_back(false), "the server returns items");
    }

    #[test]
    fn a_server_seen_withholding_items_is_always_read_back() {
        let items = ConditionItems::default();
        items.withheld();
        assert!(!items.read_back(true));
        assert!(items.read_back(false));
    }
}
