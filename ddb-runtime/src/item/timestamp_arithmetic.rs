//! Arithmetic and conversions of [`Timestamp`], as `time`'s
//! `OffsetDateTime` has them (it compares and orders as its instant does): an instant moved by a duration is the same
//! kind of value, stored and keyed as every `Timestamp` is.

use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::SystemTime;

use time::OffsetDateTime;

use super::timestamp::Timestamp;

impl Timestamp {
    /// The instant `seconds` after the Unix epoch (before it, when
    /// negative); an error outside `time`'s range of years.
    ///
    /// ```
    /// let at = ddb_runtime::Timestamp::from_unix_timestamp(1_789_000_000).unwrap();
    /// assert_eq!(at.unix_timestamp(), 1_789_000_000);
    /// assert_eq!(at.to_string(), "2026-09-10T00:26:40Z");
    /// ```
    pub fn from_unix_timestamp(seconds: i64) -> Result<Self, time::error::ComponentRange> {
        OffsetDateTime::from_unix_timestamp(seconds).map(Timestamp)
    }

    /// Whole seconds since the Unix epoch: what a `#[ddb(ttl)]` field holds.
    ///
    /// ```
    /// let at = ddb_runtime::Timestamp::from(time::macros::datetime!(1970-01-01 00:01:00.5 UTC));
    /// assert_eq!(at.unix_timestamp(), 60);
    /// ```
    pub fn unix_timestamp(self) -> i64 {
        self.0.unix_timestamp()
    }

    /// `self + duration`, or `None` past `time`'s range of years (where
    /// `+` panics, as it does for `OffsetDateTime`).
    ///
    /// ```
    /// use time::Duration;
    /// let at = ddb_runtime::Timestamp::from(time::macros::datetime!(2026-09-10 08:12:44 UTC));
    /// assert_eq!(at.checked_add(Duration::hours(1)), Some(at + Duration::hours(1)));
    /// assert_eq!(at.checked_add(Duration::MAX), None);
    /// ```
    pub fn checked_add(self, duration: time::Duration) -> Option<Self> {
        self.0.checked_add(duration).map(Timestamp)
    }

    /// `self - duration`, or `None` past `time`'s range of years.
    ///
    /// ```
    /// use time::Duration;
    /// let at = ddb_runtime::Timestamp::from(time::macros::datetime!(2026-09-10 08:12:44 UTC));
    /// assert_eq!(at.checked_sub(Duration::days(1)), Some(at - Duration::days(1)));
    /// assert_eq!(at.checked_sub(Duration::MAX), None);
    /// ```
    pub fn checked_sub(self, duration: time::Duration) -> Option<Self> {
        self.0.checked_sub(duration).map(Timestamp)
    }
}

/// Moves the instant; panics past `time`'s range of years, as
/// `OffsetDateTime + Duration` does (see [`Timestamp::checked_add`]).
///
/// ```
/// use time::Duration;
/// use time::macros::datetime;
/// let placed = ddb_runtime::Timestamp::from(datetime!(2026-09-10 08:12:44 UTC));
/// let due = placed + Duration::days(30);
/// assert_eq!(due, datetime!(2026-10-10 08:12:44 UTC).into());
/// assert_eq!(due - placed, Duration::days(30));
/// assert!(placed < due);
/// let mut reminder = due;
/// reminder -= std::time::Duration::from_secs(3600);
/// assert_eq!(reminder, datetime!(2026-10-10 07:12:44 UTC).into());
/// ```
impl Add<time::Duration> for Timestamp {
    type Output = Timestamp;
    fn add(self, duration: time::Duration) -> Timestamp {
        Timestamp(self.0 + duration)
    }
}

impl Sub<time::Duration> for Timestamp {
    type Output = Timestamp;
    fn sub(self, duration: time::Duration) -> Timestamp {
        Timestamp(self.0 - duration)
    }
}

impl Add<std::time::Duration> for Timestamp {
    type Output = Timestamp;
    fn add(self, duration: std::time::Duration) -> Timestamp {
        Timestamp(self.0 + duration)
    }
}

impl Sub<std::time::Duration> for Timestamp {
    type Output = Timestamp;
    fn sub(self, duration: std::time::Duration) -> Timestamp {
        Timestamp(self.0 - duration)
    }
}

impl AddAssign<time::Duration> for Timestamp {
    fn add_assign(&mut self, duration: time::Duration) {
        *self = *self + duration;
    }
}

impl SubAssign<time::Duration> for Timestamp {
    fn sub_assign(&mut self, duration: time::Duration) {
        *self = *self - duration;
    }
}

impl AddAssign<std::time::Duration> for Timestamp {
    fn add_assign(&mut self, duration: std::time::Duration) {
        *self = *self + duration;
    }
}

impl SubAssign<std::time::Duration> for Timestamp {
    fn sub_assign(&mut self, duration: std::time::Duration) {
        *self = *self - duration;
    }
}

/// The time from `earlier` to `self` (negative when `earlier` is later).
impl Sub for Timestamp {
    type Output = time::Duration;
    fn sub(self, earlier: Timestamp) -> time::Duration {
        self.0 - earlier.0
    }
}

impl From<Timestamp> for OffsetDateTime {
    fn from(value: Timestamp) -> Self {
        value.0
    }
}

/// ```
/// let now = std::time::SystemTime::now();
/// let at = ddb_runtime::Timestamp::from(now);
/// assert_eq!(std::time::SystemTime::from(at), now);
/// ```
impl From<SystemTime> for Timestamp {
    fn from(value: SystemTime) -> Self {
        Timestamp(OffsetDateTime::from(value))
    }
}

impl From<Timestamp> for SystemTime {
    fn from(value: Timestamp) -> Self {
        SystemTime::from(value.0)
    }
}

/// RFC 3339 in UTC, as the attribute is stored: `2026-09-10T08:12:44Z`.
impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let utc = self.0.to_offset(time::UtcOffset::UTC);
        match utc.format(&time::format_description::well_known::Rfc3339) {
            Ok(text) => f.write_str(&text),
            Err(_) => write!(f, "{utc}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::segment::KeySegment;
    use time::macros::datetime;
    use time::Duration;

    fn key(at: Timestamp) -> String {
        let mut out = String::new();
        at.write_segment(&mut out).unwrap();
        out
    }

    #[test]
    fn an_instant_moved_by_whole_seconds_keys_as_the_instant_it_names() {
        let placed = Timestamp::from(datetime!(2026-09-10 08:12:44 UTC));
        let moved = placed + Duration::seconds(3_600 * 24 * 400 + 17);
        assert_eq!(key(moved), "2027-10-15T08:13:01Z");
        assert_eq!(
            key(moved),
            key(Timestamp::from(datetime!(2027-10-15 08:13:01 UTC)))
        );
        assert_eq!(
            Timestamp::read_segment(&key(moved)).unwrap(),
            moved,
            "read back as written"
        );
    }

    #[test]
    fn instants_compare_as_their_keys_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let base = Timestamp::from(datetime!(1000-01-01 00:00:00 UTC));
        let span = 9_000 * 365 * 24 * 3_600_i64;
        for _ in 0..2_000 {
            let a = base + Duration::seconds((next() % span as u64) as i64);
            let b = base + Duration::seconds((next() % span as u64) as i64);
            assert_eq!(a.cmp(&b), key(a).cmp(&key(b)), "{a} and {b}");
            assert_eq!(a + (b - a), b);
        }
    }

    #[test]
    fn arithmetic_past_the_range_of_years_is_none_where_checked() {
        let at = Timestamp::from(datetime!(9999-12-31 23:59:59 UTC));
        assert_eq!(at.checked_add(Duration::seconds(1)), None);
        assert_eq!(
            at.checked_sub(Duration::seconds(1)).map(key).as_deref(),
            Some("9999-12-31T23:59:58Z")
        );
    }
}
