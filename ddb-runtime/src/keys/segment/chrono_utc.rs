//! `chrono::DateTime<Utc>` as a key segment (feature `chrono`), written
//! exactly as `time::OffsetDateTime` is.

use super::{KeySegment, SegmentError};
use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};

/// Second precision in UTC, exactly as `time::OffsetDateTime`:
/// `2026-09-10T08:12:44Z`, 20 bytes, years 0000 to 9999, a fraction of a
/// second refused rather than truncated, read back only from that text.
///
/// ```
/// use ddb_runtime::KeySegment;
/// let at = chrono::DateTime::parse_from_rfc3339("2026-09-10T10:12:44+02:00").unwrap().to_utc();
/// let mut key = String::new();
/// at.write_segment(&mut key).unwrap();
/// assert_eq!(key, "2026-09-10T08:12:44Z");
/// ```
impl KeySegment for DateTime<Utc> {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        if self.nanosecond() != 0 {
            return Err(SegmentError::new(
                "a timestamp key segment has second precision and this one has a fraction of a second; \
                 drop it first (DateTime::with_nanosecond(0)), or key on epoch milliseconds",
            ));
        }
        if !(0..=9999).contains(&self.year()) {
            return Err(SegmentError::new(format!(
                "year {} is outside 0000-9999, the range a fixed-width timestamp key can hold",
                self.year()
            )));
        }
        out.push_str(&self.to_rfc3339_opts(SecondsFormat::Secs, true));
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        let invalid = || {
            SegmentError::new(format!(
                "`{text}` is not a UTC timestamp of the form 2026-09-10T08:12:44Z"
            ))
        };
        if text.len() != 20 || !text.ends_with('Z') {
            return Err(invalid());
        }
        let value = DateTime::parse_from_rfc3339(text)
            .map_err(|_| invalid())?
            .to_utc();
        // chrono reads a leap second (`:60`) that time refuses, and that
        // a key segment could not be written from again.
        if value.nanosecond() >= 1_000_000_000 {
            return Err(invalid());
        }
        // One text per instant: other separators and cases are refused.
        if value.to_rfc3339_opts(SecondsFormat::Secs, true) != text {
            return Err(invalid());
        }
        Ok(value)
    }
}
