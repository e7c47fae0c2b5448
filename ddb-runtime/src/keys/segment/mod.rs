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

#[cfg(feature = "chrono")]
mod chrono_utc;
mod escape;
#[cfg(any(feature = "uuid", feature = "ulid"))]
mod ids;
mod standard;
#[cfg(feature = "time")]
mod timestamp;

pub use escape::escape_into;
pub use escape::{read_escaped, write_escaped, Codec, IsSegment, NotSegment, SegmentCodec};
#[cfg(feature = "time")]
pub use timestamp::{Millis, Nanos};

/// Spanned at a key field's type, so a type that cannot be a key segment is
/// reported once, on the field.
pub const fn assert_key_segment<T: KeySegment>() {}

/// Whether a key segment type can be stored as a Number.
pub const fn is_numeric<T: KeySegment>() -> bool {
    T::NUMERIC
}
