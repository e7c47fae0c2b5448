//! The standard types as key segments: `String`, `bool`, `char`, and the
//! integers, zero-padded to their type's width (the signed ones offset so
//! that negatives sort first).

use std::fmt;

use super::{KeySegment, SegmentError};

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
pub(super) fn fill_digits(digits: &mut [u8], value: u128) -> bool {
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
    fn empty_strings_are_refused() {
        assert!(String::new().write_segment(&mut String::new()).is_err());
        assert!(String::read_segment("").is_err());
    }
}
