//! Identifiers as key segments: `uuid::Uuid` (feature `uuid`) and
//! `ulid::Ulid` (feature `ulid`), each in its canonical text, which sorts as
//! the identifier does.

use super::{KeySegment, SegmentError};

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
