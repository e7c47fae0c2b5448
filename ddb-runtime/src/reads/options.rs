//! What a query, a scan and a collection query take alike: how many items a
//! page holds and whether it reads one past its end, where it starts, and
//! which items it keeps (the caller's filter, expired items).

use crate::error::{Error, Result};
use crate::expression::{Condition, Expression};
use crate::reads::cursor::Cursor;

/// The page options of a read of `E`'s items; each builder sets them
/// through its own methods (`limit`, `exact_end`, `filter`, `after`,
/// `include_expired`), documented there.
pub(crate) struct ReadOptions<E> {
    pub(crate) limit: Option<usize>,
    pub(crate) exact_end: bool,
    pub(crate) filter: Option<Condition<E>>,
    pub(crate) cursor: Option<Cursor>,
    pub(crate) include_expired: bool,
}

impl<E> Default for ReadOptions<E> {
    /// No limit; a limited page reads one item past its end; no filter; the
    /// first page; expired items left out.
    fn default() -> Self {
        Self {
            limit: None,
            exact_end: true,
            filter: None,
            cursor: None,
            include_expired: false,
        }
    }
}

impl<E> Clone for ReadOptions<E> {
    fn clone(&self) -> Self {
        Self {
            limit: self.limit,
            exact_end: self.exact_end,
            filter: self.filter.clone(),
            cursor: self.cursor.clone(),
            include_expired: self.include_expired,
        }
    }
}

impl<E> ReadOptions<E> {
    /// Keeps only the items matching `condition` too: joined to the filter
    /// already given with `AND`.
    pub(crate) fn add_filter(&mut self, condition: Condition<E>) {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing & condition,
            None => condition,
        });
    }

    /// A limit of 0 refused before any request: no page can hold nothing.
    pub(crate) fn check_limit(&self, entity: &'static str) -> Result<()> {
        match self.limit {
            Some(0) => Err(Error::InvalidRequest {
                entity,
                reason: "limit must be at least 1".into(),
            }),
            _ => Ok(()),
        }
    }

    /// The time to live's filter (left out with `include_expired`, or when
    /// what is read does not carry `ttl`) and the caller's, in that order,
    /// to be joined with `AND`. Expired items stay readable until
    /// DynamoDB's background deletion gets to them (days).
    pub(crate) fn filters(&self, ttl: Option<&'static str>) -> impl Iterator<Item = Expression> {
        let ttl_filter = ttl
            .filter(|_| !self.include_expired)
            .map(|ttl| Expression::not_expired(ttl, crate::item::timestamp::now_epoch_seconds()));
        let user_filter = self.filter.clone().map(Expression::from);
        ttl_filter.into_iter().chain(user_filter)
    }
}
