//! Timestamps as key segments (feature `time`): `time::OffsetDateTime` and
//! ddb's `Timestamp` at second precision, [`Millis`] and [`Nanos`] finer, all
//! in UTC at a fixed width.

use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

use super::standard::fill_digits;
use super::{KeySegment, SegmentError};

/// Second precision in UTC: `2026-09-10T08:12:44Z`, 20 bytes, years 0000 to
/// 9999. A value with a fraction of a second is refused rather than
/// truncated (truncating would lose data and break `parse_key`); use
/// [`Millis`](crate::segment::Millis) or [`Nanos`](crate::segment::Nanos)
/// to key on finer instants.
impl KeySegment for OffsetDateTime {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        if self.nanosecond() != 0 {
            return Err(SegmentError::new(
                "a timestamp key segment has second precision and this one has a fraction of a second; \
                 take the time with ddb_runtime::Timestamp::now_in_seconds() (or drop the fraction with \
                 .to_seconds() / OffsetDateTime::replace_nanosecond(0)), or key on \
                 ddb_runtime::segment::Millis or Nanos",
            ));
        }
        write_utc(*self, 0, out)
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        read_utc(text, 0)
    }
}

fn write_utc(value: OffsetDateTime, digits: usize, out: &mut String) -> Result<(), SegmentError> {
    let utc = value.to_offset(UtcOffset::UTC);
    if !(0..=9999).contains(&utc.year()) {
        return Err(SegmentError::new(format!(
            "year {} is outside 0000-9999, the range a fixed-width timestamp key can hold",
            utc.year()
        )));
    }
    // Laid out in place: `2026-09-10T08:12:44` then the fraction.
    let mut text = *b"0000-00-00T00:00:00.000000000";
    let parts = [
        (0..4, utc.year().unsigned_abs()),
        (5..7, u32::from(u8::from(utc.month()))),
        (8..10, u32::from(utc.day())),
        (11..13, u32::from(utc.hour())),
        (14..16, u32::from(utc.minute())),
        (17..19, u32::from(utc.second())),
        (
            20..20 + digits,
            utc.nanosecond() / 10u32.pow(9 - digits as u32),
        ),
    ];
    for (range, value) in parts {
        fill_digits(&mut text[range], u128::from(value));
    }
    let end = if digits > 0 { 20 + digits } else { 19 };
    out.push_str(std::str::from_utf8(&text[..end]).unwrap_or_default());
    out.push('Z');
    Ok(())
}

fn read_utc(text: &str, digits: usize) -> Result<OffsetDateTime, SegmentError> {
    let expected = 20 + if digits > 0 { digits + 1 } else { 0 };
    let invalid = || {
        SegmentError::new(format!(
            "`{text}` is not a UTC timestamp of the form 2026-09-10T08:12:44{}Z",
            if digits > 0 {
                format!(".{}", "0".repeat(digits))
            } else {
                String::new()
            }
        ))
    };
    if text.len() != expected || !text.ends_with('Z') {
        return Err(invalid());
    }
    let value = OffsetDateTime::parse(text, &Rfc3339).map_err(|_| invalid())?;
    // RFC 3339 parsing takes other separators than `T` (and lower case):
    // only the one text ddb writes names this instant, so that two keys
    // never name one item.
    let mut canonical = String::with_capacity(expected);
    write_utc(value, digits, &mut canonical)?;
    if canonical != text {
        return Err(invalid());
    }
    Ok(value)
}
/// A timestamp keyed at millisecond precision: `2026-09-10T08:12:44.123Z`.
///
/// Finer digits are refused, not truncated.
///
/// ```
/// # #[cfg(feature = "time")] {
/// use ddb_runtime::{segment::Millis, KeySegment};
/// let at = Millis(time::macros::datetime!(2026-09-10 08:12:44.5 UTC));
/// let mut text = String::new();
/// at.write_segment(&mut text).unwrap();
/// assert_eq!(text, "2026-09-10T08:12:44.500Z");
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub time::OffsetDateTime);

/// A timestamp keyed at nanosecond precision: `2026-09-10T08:12:44.123456789Z`.
///
/// ```
/// # #[cfg(feature = "time")] {
/// use ddb_runtime::{segment::Nanos, KeySegment};
/// let at = Nanos(time::macros::datetime!(2026-09-10 08:12:44.000000001 UTC));
/// let mut text = String::new();
/// at.write_segment(&mut text).unwrap();
/// assert_eq!(text, "2026-09-10T08:12:44.000000001Z");
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(pub time::OffsetDateTime);

impl KeySegment for Millis {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        if !self.0.nanosecond().is_multiple_of(1_000_000) {
            return Err(SegmentError::new(
                "a millisecond timestamp key segment cannot hold finer digits; round it or use Nanos",
            ));
        }
        write_utc(self.0, 3, out)
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        read_utc(text, 3).map(Millis)
    }
}

impl KeySegment for Nanos {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        write_utc(self.0, 9, out)
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        read_utc(text, 9).map(Nanos)
    }
}
/// An instant as [`OffsetDateTime`](time::OffsetDateTime) writes it.
impl KeySegment for crate::item::timestamp::Timestamp {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        self.0.write_segment(out)
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        time::OffsetDateTime::read_segment(text).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `fuzz_key_segments`: RFC 3339 parsing took any separator for
    /// `T` (and lower case), so two stored texts named one instant.
    #[test]
    fn a_timestamp_is_read_only_from_the_text_ddb_writes() {
        use time::OffsetDateTime;
        assert!(OffsetDateTime::read_segment("2026-10-02T14:31:07Z").is_ok());
        for other in [
            "2026-10-02%14:31:07Z",
            "2026-10-02t14:31:07Z",
            "2026-10-02 14:31:07Z",
            "2026-10-02T14:31:07z",
        ] {
            assert!(OffsetDateTime::read_segment(other).is_err(), "{other}");
        }
        assert!(Millis::read_segment("2026-10-02t14:31:07.000Z").is_err());
    }
}
