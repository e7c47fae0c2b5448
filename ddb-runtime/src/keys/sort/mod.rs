//! Sort-key conditions on the leading fields of a sort-key template.
//!
//! A condition is given on a prefix of the template's fields, as a reference
//! or a tuple of references (`&placed_at`, `(&placed_at, &order_id)`), and is
//! turned into a key condition that stays inside the entity:
//!
//! | condition | key condition |
//! |---|---|
//! | none | `begins_with(SK, "ORDER#")` |
//! | `eq(p)`, all fields | `SK = "ORDER#<p>"` |
//! | `eq(p)`, leading fields | `begins_with(SK, "ORDER#<p>#")` (never `ORDER#12` for `ORDER#123`) |
//! | `begins_with(p)` | `begins_with(SK, "ORDER#<p>")`: the last value is a text prefix |
//! | `lt`, `le`, `gt`, `ge`, `between` | `SK BETWEEN lo AND hi`, bounded by the entity's prefix |
//! | `eq_then_gt(p, v)` and the other ranges | `SK BETWEEN lo AND hi`, bounded by `ORDER#<p>#` |
//!
//! The bounds rely on the segment encoding: the delimiter `#` sorts below
//! every byte of a segment, and `$` is the byte after it.

mod bounds;
mod resolve;
mod writer;

pub(crate) use resolve::{
    resolve, resolve_after_equal, resolve_attributes, resolve_attributes_after_equal,
    resolve_attributes_between, resolve_attributes_between_after_equal, resolve_between,
    resolve_between_after_equal,
};
pub use writer::{EqualThen, SortPrefix, SortWriter};

use crate::keys::key::KeyValue;

/// DynamoDB's sort key limit, which bounds every sort key value.
const SORT_KEY_BYTES: usize = crate::keys::key::SORT_KEY_LIMIT;

/// A sort-key condition, resolved to DynamoDB terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SortRange {
    /// No condition on the sort key.
    All,
    /// `SK = v`
    Eq(KeyValue),
    /// `begins_with(SK, v)`
    BeginsWith(String),
    /// `SK <op> v`
    Compare(&'static str, KeyValue),
    /// `SK BETWEEN lo AND hi`
    Between(KeyValue, KeyValue),
    /// Nothing can match: no request is needed.
    Empty,
}

impl SortRange {
    /// A stable text of the condition, for cursor fingerprints.
    pub(crate) fn describe(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        match self {
            SortRange::All => out.write_str("all"),
            SortRange::Eq(v) => write!(out, "eq {v:?}"),
            SortRange::BeginsWith(v) => write!(out, "begins {v:?}"),
            SortRange::Compare(op, v) => write!(out, "{op} {v:?}"),
            SortRange::Between(lo, hi) => write!(out, "between {lo:?} {hi:?}"),
            SortRange::Empty => out.write_str("empty"),
        }
    }
}

/// The operators a typed sort condition can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOp {
    Eq,
    BeginsWith,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A condition on a multi-attribute sort key: equality on the leading
/// attributes, then `range` on the next one. A template key has no leading
/// equalities.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SortCondition {
    pub equal: Vec<KeyValue>,
    pub range: SortRange,
}

impl From<SortRange> for SortCondition {
    fn from(range: SortRange) -> Self {
        Self {
            equal: Vec::new(),
            range,
        }
    }
}

impl SortCondition {
    /// A stable text of the condition, for cursor fingerprints.
    pub(crate) fn describe(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        for value in &self.equal {
            write!(out, "eq {value:?}; ")?;
        }
        self.range.describe(out)
    }
}
