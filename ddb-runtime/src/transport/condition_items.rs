//! Whether the server returns the item a failed condition met, as its
//! answers have shown.
//!
//! ddb asks every conditioned write for the item back when its condition
//! fails (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), and maps the
//! failure from that item: a version conflict, an item that already exists.
//! DynamoDB always returns it; a server that does not makes an existing item
//! look missing. So an empty answer is read back once, until the server
//! has shown what it does: a failed condition that comes back with its item
//! shows it returns them (nothing is read back again), a read-back that
//! finds an item shows it withholds them (every empty answer is read back),
//! and [`TRUSTED_AFTER`] read-backs that all found nothing show its empty
//! answers are true. On DynamoDB a handle pays for a few reads at most.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// No failed condition has shown what the server does yet.
const UNKNOWN: u8 = 0;
/// The server returns the items failed conditions met.
const RETURNED: u8 = 1;
/// A read-back found an item the server had not returned.
const WITHHELD: u8 = 2;

/// How many read-backs that find nothing make the server's empty answers
/// trusted.
pub(crate) const TRUSTED_AFTER: u32 = 8;

/// What a server's failed conditions have shown about the items they met.
#[derive(Debug, Default)]
pub(crate) struct ConditionItems {
    state: AtomicU8,
    found_nothing: AtomicU32,
}

impl ConditionItems {
    /// Records a failed condition's answer, and says whether the item must
    /// be read back: the answer held none, and the server has not shown
    /// that its empty answers are true.
    pub(crate) fn read_back(&self, returned: bool) -> bool {
        if returned {
            self.state.store(RETURNED, Ordering::Relaxed);
            return false;
        }
        match self.state.load(Ordering::Relaxed) {
            RETURNED => false,
            WITHHELD => true,
            _ => self.found_nothing.load(Ordering::Relaxed) < TRUSTED_AFTER,
        }
    }

    /// Records what a read-back found: an item the answer did not return,
    /// or nothing.
    pub(crate) fn read(&self, found: bool) {
        if found {
            let _ = self.state.compare_exchange(
                UNKNOWN,
                WITHHELD,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        } else {
            self.found_nothing.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ConditionItems, TRUSTED_AFTER};

    #[test]
    fn an_empty_answer_is_read_back_until_an_item_comes_back() {
        let items = ConditionItems::default();
        assert!(items.read_back(false));
        assert!(!items.read_back(true));
        assert!(!items.read_back(false), "the server returns items");
    }

    #[test]
    fn a_server_seen_withholding_items_is_read_back_until_it_returns_one() {
        let items = ConditionItems::default();
        items.read(true);
        for _ in 0..2 * TRUSTED_AFTER {
            items.read(false);
        }
        assert!(items.read_back(false), "withheld once, read back");
        assert!(!items.read_back(true));
        assert!(!items.read_back(false), "an item came back since");
    }

    #[test]
    fn empty_answers_are_trusted_once_enough_read_backs_found_nothing() {
        let items = ConditionItems::default();
        for _ in 0..TRUSTED_AFTER {
            assert!(items.read_back(false));
            items.read(false);
        }
        assert!(!items.read_back(false));
    }
}
