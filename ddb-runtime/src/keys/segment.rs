//! Key segments: how one field's value is written into a key template.
//!
//! A composite key such as `ORDER#2026-09-10T08:12:44Z#A102` is literal text
//! and field segments joined by the delimiter `#`. Each field's value is first
//! turned into its *segment text* by [`KeySegment::write_segment`], then
//! escaped so that the delimiter can never appear inside a segment.
//!
//! # The encoding, and why
//!
//! - **Order-preserving.** For every type here, `a < b` iff the segment text of
//!   `a` is byte-wise less than that of `b` (DynamoDB compares S keys by UTF-8
//!   bytes). Unsigned integers are zero-padded to the width of their type
//!   (`u32` 10 digits, `u64` 20); signed integers are offset by `2^(bits-1)` so
//!   negatives sort first, then padded; timestamps are UTC at a fixed precision.
//! - **Injective and delimiter-safe.** The escape character is `$`. Every byte
//!   from `0x00` to `$` (`0x24`), which includes the delimiter `#` (`0x23`),
//!   the space and `!`, is written as `$` followed by the byte plus `0x40`
//!   (`#` becomes `$c`, `$` becomes `$d`, a space becomes `` $` ``). A segment
//!   therefore never contains `#`, decoding inverts encoding, and no two
//!   distinct tuples of values produce the same key.
//! - **Tuple order survives.** Because `#` is smaller than every byte a segment
//!   can contain, `("a", x) < ("a!", y)` holds for the keys as it does for the
//!   tuples, and a `begins_with` on a complete segment followed by `#` never
//!   matches a longer value (`ORDER#12#` does not match `ORDER#123#...`).
//! - **Readable.** Ids, timestamps and words without those bytes are written
//!   verbatim, so the seed's `CUSTOMER#123` and
//!   `ORDER#2026-09-10T08:12:44Z#A102` come out exactly as printed.
//!
//! A template that is a single field (`"{customer_id}"`) stores the raw value:
//! the segment text unescaped for an S attribute, or the number for an N one.

use std::fmt;

pub use crate::error::SegmentError;

/// The delimiter between the segments of a composite key.
pub const DELIMITER: char = '#';
/// The escape character of segment text in a composite key.
pub const ESCAPE: char = '$';

/// A type that can be a `{field}` of a key template.
///
/// Implemented for `String`, every integer type, `bool`, `char`, and
/// behind features for `time::OffsetDateTime` (`time`), `uuid::Uuid` (`uuid`)
/// and `ulid::Ulid` (`ulid`). Derive it for newtypes and fieldless enums:
///
/// ```
/// use ddb_runtime::KeySegment;
///
/// #[derive(KeySegment, Clone, Debug, PartialEq)]
/// pub struct CustomerId(pub String);
///
/// #[derive(KeySegment, Clone, Copy, Debug, PartialEq)]
/// pub enum OrderStatus {
///     Open,          // OPEN
///     #[ddb(rename = "SHIPPED")]
///     Sent,
/// }
///
/// let mut text = String::new();
/// OrderStatus::Open.write_segment(&mut text).unwrap();
/// assert_eq!(text, "OPEN");
/// assert_eq!(OrderStatus::read_segment("SHIPPED").unwrap(), OrderStatus::Sent);
/// ```
///
/// Implementations must keep two promises, which ddb's property tests check for
/// its own: `read_segment` inverts `write_segment`, and the written text orders
/// like the values whose order matters (a derived enum orders by its names).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a key segment",
    label = "this field is used in a key template",
    note = "derive ddb_runtime::KeySegment for a newtype or a fieldless enum, or implement it; \
            keys can hold strings, integers, bool, char, timestamps, UUIDs and ULIDs"
)]
pub trait KeySegment: Sized {
    /// Whether the value can be stored as a DynamoDB Number when it is a
    /// whole key on its own (a `"{field}"` template on an N attribute).
    const NUMERIC: bool = false;

    /// Appends the segment text of `self` to `out`, unescaped.
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError>;

    /// Parses the segment text written by [`write_segment`](Self::write_segment).
    fn read_segment(text: &str) -> Result<Self, SegmentError>;

    /// The value as a DynamoDB Number, for types with [`NUMERIC`](Self::NUMERIC).
    fn to_number(&self) -> Option<String> {
        None
    }

    /// Parses a DynamoDB Number back, for types with [`NUMERIC`](Self::NUMERIC).
    fn from_number(number: &str) -> Result<Self, SegmentError> {
        Err(SegmentError::new(format!(
            "a number ({number}) cannot be read into this key type"
        )))
    }
}

impl KeySegment for String {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        if self.is_empty() {
            return Err(empty_string());
        }
        out.push_str(self);
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        if text.is_empty() {
            return Err(empty_string());
        }
        Ok(text.to_owned())
    }
}

fn empty_string() -> SegmentError {
    SegmentError::new("an empty string cannot be a key segment")
}

impl KeySegment for bool {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        out.push_str(if *self { "true" } else { "false" });
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(SegmentError::new(format!(
                "`{text}` is not `true` or `false`"
            ))),
        }
    }
}

impl KeySegment for char {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        out.push(*self);
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(SegmentError::new(format!("`{text}` is not one character"))),
        }
    }
}

/// Writes `value` zero-padded to `width` digits, digit by digit (no
/// formatter: keys are built on every write).
fn write_padded(out: &mut String, value: u128, width: usize) {
    let mut digits = [b'0'; 39];
    if let Some(digits) = digits.get_mut(..width) {
        if fill_digits(digits, value) {
            out.push_str(std::str::from_utf8(digits).unwrap_or_default());
            return;
        }
    }
    // Wider than `width` (never for the widths used here).
    use fmt::Write;
    let _ = write!(out, "{value:0width$}");
}

/// Fills `digits` with `value`'s decimal digits, zero-padded; false when
/// `value` has more digits than that.
fn fill_digits(digits: &mut [u8], value: u128) -> bool {
    let mut rest = value;
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    rest == 0
}

fn read_padded(text: &str, width: usize) -> Result<u128, SegmentError> {
    if text.len() != width || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SegmentError::new(format!(
            "`{text}` is not a {width}-digit zero-padded number"
        )));
    }
    text.parse::<u128>()
        .map_err(|e| SegmentError::new(format!("`{text}`: {e}")))
}

macro_rules! unsigned_segment {
    ($($ty:ty => $width:expr),* $(,)?) => {$(
        impl KeySegment for $ty {
            const NUMERIC: bool = true;
            fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
                write_padded(out, *self as u128, $width);
                Ok(())
            }
            fn read_segment(text: &str) -> Result<Self, SegmentError> {
                let value = read_padded(text, $width)?;
                <$ty>::try_from(value).map_err(|_| SegmentError::new(format!(
                    "`{text}` is out of range for {}", stringify!($ty)
                )))
            }
            fn to_number(&self) -> Option<String> {
                Some(self.to_string())
            }
            fn from_number(number: &str) -> Result<Self, SegmentError> {
                number.parse().map_err(|e| SegmentError::new(format!("`{number}`: {e}")))
            }
        }
    )*};
}

macro_rules! signed_segment {
    ($($ty:ty : $unsigned:ty => $width:expr),* $(,)?) => {$(
        impl KeySegment for $ty {
            const NUMERIC: bool = true;
            fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
                // Flipping the sign bit maps MIN..=MAX onto 0..=MAX_unsigned in order.
                let offset = (*self as $unsigned) ^ (1 << (<$ty>::BITS - 1));
                write_padded(out, offset as u128, $width);
                Ok(())
            }
            fn read_segment(text: &str) -> Result<Self, SegmentError> {
                let value = read_padded(text, $width)?;
                let offset = <$unsigned>::try_from(value).map_err(|_| SegmentError::new(format!(
                    "`{text}` is out of range for {}", stringify!($ty)
                )))?;
                Ok((offset ^ (1 << (<$ty>::BITS - 1))) as $ty)
            }
            fn to_number(&self) -> Option<String> {
                Some(self.to_string())
            }
            fn from_number(number: &str) -> Result<Self, SegmentError> {
                number.parse().map_err(|e| SegmentError::new(format!("`{number}`: {e}")))
            }
        }
    )*};
}

unsigned_segment!(u8 => 3, u16 => 5, u32 => 10, u64 => 20, usize => 20);
signed_segment!(i8: u8 => 3, i16: u16 => 5, i32: u32 => 10, i64: u64 => 20, isize: usize => 20);

// u128 and i128 need all 39 digits; their Number form may exceed DynamoDB's
// 38 significant digits, which `to_number` refuses by returning None.
impl KeySegment for u128 {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        write_padded(out, *self, 39);
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        read_padded(text, 39)
    }
}

impl KeySegment for i128 {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        write_padded(out, (*self as u128) ^ (1 << 127), 39);
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        Ok((read_padded(text, 39)? ^ (1 << 127)) as i128)
    }
}

/// Appends `text` to `out` with every byte from `0x00` to `$` escaped.
pub(crate) fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        if (c as u32) <= ESCAPE as u32 {
            out.push(ESCAPE);
            out.push(char::from(c as u8 + 0x40));
        } else {
            out.push(c);
        }
    }
}

/// Inverts [`escape_into`]; `None` when `text` is not escaped segment text.
pub(crate) fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ESCAPE => {
                let code = chars.next()? as u32;
                if !(0x40..=0x40 + ESCAPE as u32).contains(&code) {
                    return None;
                }
                out.push(char::from((code - 0x40) as u8));
            }
            DELIMITER => return None,
            c if (c as u32) < ESCAPE as u32 => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// The segment text of `value`, escaped for a composite key.
///
/// ```
/// let mut key = String::from("CUSTOMER#");
/// ddb_runtime::segment::write_escaped(&String::from("12#3"), &mut key).unwrap();
/// assert_eq!(key, "CUSTOMER#12$c3");
/// ```
pub fn write_escaped<T: KeySegment>(value: &T, out: &mut String) -> Result<(), SegmentError> {
    SegmentCodec::<T>::of().write_escaped(value, out)
}

/// Parses escaped segment text back into a value.
///
/// ```
/// let id: String = ddb_runtime::segment::read_escaped("12$c3").unwrap();
/// assert_eq!(id, "12#3");
/// ```
pub fn read_escaped<T: KeySegment>(text: &str) -> Result<T, SegmentError> {
    SegmentCodec::<T>::of().read_escaped(text)
}

/// A key segment type's functions, as values.
///
/// Generated code reaches a field's codec through [`Codec`], so a field type
/// that is not a [`KeySegment`] is reported once, at the field, instead of at
/// every place a key is written or read.
#[doc(hidden)]
pub struct SegmentCodec<T> {
    pub write: fn(&T, &mut String) -> Result<(), SegmentError>,
    pub read: fn(&str) -> Result<T, SegmentError>,
    pub to_number: fn(&T) -> Option<String>,
    pub from_number: fn(&str) -> Result<T, SegmentError>,
}

impl<T> Clone for SegmentCodec<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SegmentCodec<T> {}

impl<T: KeySegment> SegmentCodec<T> {
    /// The codec of a key segment type.
    pub fn of() -> Self {
        Self {
            write: T::write_segment,
            read: T::read_segment,
            to_number: T::to_number,
            from_number: T::from_number,
        }
    }
}

impl<T> SegmentCodec<T> {
    /// Writes the escaped segment text of `value` to `out`.
    pub fn write_escaped(&self, value: &T, out: &mut String) -> Result<(), SegmentError> {
        // Written in place; escaped afterwards only when it has to be.
        let start = out.len();
        let written = (self.write)(value, out);
        if let Err(error) = written {
            if out.is_char_boundary(start) {
                out.truncate(start);
            }
            return Err(error);
        }
        let Some(written) = out.get(start..) else {
            return Err(SegmentError::new(
                "a KeySegment must append its text to the key, not replace it",
            ));
        };
        if written.is_empty() {
            return Err(SegmentError::new("a key segment cannot be empty"));
        }
        if written.bytes().any(|b| b <= ESCAPE as u8) {
            let text = out.split_off(start);
            escape_into(&text, out);
        }
        Ok(())
    }

    /// Parses escaped segment text.
    pub fn read_escaped(&self, text: &str) -> Result<T, SegmentError> {
        let raw =
            unescape(text).ok_or_else(|| SegmentError::new("not valid escaped segment text"))?;
        (self.read)(&raw)
    }
}

/// `(&&Codec::<T>::NEW).codec()` is the [`SegmentCodec`] of `T` when `T` is a
/// [`KeySegment`], and a codec that only returns errors otherwise (the derive
/// reports the missing trait at the field; that code never runs).
#[doc(hidden)]
pub struct Codec<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Codec<T> {
    pub const NEW: Self = Codec(std::marker::PhantomData);
}

#[doc(hidden)]
pub trait IsSegment<T> {
    fn codec(&self) -> SegmentCodec<T>;
}

impl<T: KeySegment> IsSegment<T> for &Codec<T> {
    fn codec(&self) -> SegmentCodec<T> {
        SegmentCodec::of()
    }
}

#[doc(hidden)]
pub trait NotSegment<T> {
    fn codec(&self) -> SegmentCodec<T>;
}

impl<T> NotSegment<T> for Codec<T> {
    fn codec(&self) -> SegmentCodec<T> {
        fn not_a_segment() -> SegmentError {
            SegmentError::new("this type is not a key segment")
        }
        SegmentCodec {
            write: |_, _| Err(not_a_segment()),
            read: |_| Err(not_a_segment()),
            to_number: |_| None,
            from_number: |_| Err(not_a_segment()),
        }
    }
}

#[cfg(feature = "time")]
mod time_impl {
    use super::{fill_digits, KeySegment, SegmentError};
    use time::format_description::well_known::Rfc3339;
    use time::{OffsetDateTime, UtcOffset};

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

    pub(super) fn write_utc(
        value: OffsetDateTime,
        digits: usize,
        out: &mut String,
    ) -> Result<(), SegmentError> {
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

    pub(super) fn read_utc(text: &str, digits: usize) -> Result<OffsetDateTime, SegmentError> {
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
}

#[cfg(feature = "chrono")]
mod chrono_impl {
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
#[cfg(feature = "time")]
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
#[cfg(feature = "time")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(pub time::OffsetDateTime);

#[cfg(feature = "time")]
impl KeySegment for Millis {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        if !self.0.nanosecond().is_multiple_of(1_000_000) {
            return Err(SegmentError::new(
                "a millisecond timestamp key segment cannot hold finer digits; round it or use Nanos",
            ));
        }
        time_impl::write_utc(self.0, 3, out)
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        time_impl::read_utc(text, 3).map(Millis)
    }
}

#[cfg(feature = "time")]
impl KeySegment for Nanos {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        time_impl::write_utc(self.0, 9, out)
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        time_impl::read_utc(text, 9).map(Nanos)
    }
}

/// Lower-case hyphenated, 36 bytes; byte order is the UUID's own order.
#[cfg(feature = "uuid")]
impl KeySegment for uuid::Uuid {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        out.push_str(
            self.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        );
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        if text.len() != 36 || text.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(SegmentError::new(format!(
                "`{text}` is not a lower-case hyphenated UUID"
            )));
        }
        uuid::Uuid::parse_str(text).map_err(|e| SegmentError::new(format!("`{text}`: {e}")))
    }
}

/// Crockford base32, 26 bytes; byte order is time order.
#[cfg(feature = "ulid")]
impl KeySegment for ulid::Ulid {
    fn write_segment(&self, out: &mut String) -> Result<(), SegmentError> {
        out.push_str(&self.to_string());
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, SegmentError> {
        if text.len() != 26 {
            return Err(SegmentError::new(format!(
                "`{text}` is not a 26-character ULID"
            )));
        }
        let value = ulid::Ulid::from_string(text)
            .map_err(|e| SegmentError::new(format!("`{text}`: {e}")))?;
        // Only the canonical spelling reads back, so the mapping stays one-to-one.
        if value.to_string() != text {
            return Err(SegmentError::new(format!(
                "`{text}` is not a canonical ULID"
            )));
        }
        Ok(value)
    }
}

/// Spanned at a key field's type, so a type that cannot be a key segment is
/// reported once, on the field.
pub const fn assert_key_segment<T: KeySegment>() {}

/// Whether a key segment type can be stored as a Number.
pub const fn is_numeric<T: KeySegment>() -> bool {
    T::NUMERIC
}

/// An instant as [`OffsetDateTime`](time::OffsetDateTime) writes it.
#[cfg(feature = "time")]
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

    fn text<T: KeySegment>(value: T) -> String {
        let mut out = String::new();
        value.write_segment(&mut out).unwrap();
        out
    }

    #[test]
    fn integers_are_padded_and_offset() {
        assert_eq!(text(7u32), "0000000007");
        assert_eq!(text(0i8), "128");
        assert_eq!(text(i8::MIN), "000");
        assert_eq!(text(i8::MAX), "255");
        assert_eq!(i64::read_segment(&text(-42i64)).unwrap(), -42);
        assert!(u8::read_segment("300").is_err());
        assert!(u8::read_segment("7").is_err());
    }

    #[test]
    fn escaping_covers_the_delimiter_and_below() {
        let mut out = String::new();
        escape_into("a#b$c d!", &mut out);
        assert_eq!(out, "a$cb$dc$`d$a");
        assert_eq!(unescape(&out).unwrap(), "a#b$c d!");
        assert_eq!(unescape("a#b"), None);
        assert_eq!(unescape("a$"), None);
        assert_eq!(unescape("a$z"), None);
    }

    /// Found by `fuzz_key_segments`: RFC 3339 parsing took any separator for
    /// `T` (and lower case), so two stored texts named one instant.
    #[cfg(feature = "time")]
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

    #[test]
    fn empty_strings_are_refused() {
        assert!(String::new().write_segment(&mut String::new()).is_err());
        assert!(String::read_segment("").is_err());
    }
}
