//! Escaping segment text for a composite key, and a key segment type's
//! functions as values ([`SegmentCodec`]), which generated code reaches
//! through [`Codec`].

use super::{KeySegment, SegmentError, DELIMITER, ESCAPE};

/// Appends `text` to `out` with every byte from `0x00` to `$` escaped.
pub fn escape_into(text: &str, out: &mut String) {
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
fn unescape(text: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
