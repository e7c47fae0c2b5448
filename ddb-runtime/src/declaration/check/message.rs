//! The compile-time error message: a fixed buffer the checks write their
//! text into, read back by the `const` that reports it.

use crate::declaration::model::KeyDef;

/// A fixed buffer to build a compile-time error message in.
pub struct Message {
    buf: [u8; 600],
    len: usize,
}

impl Message {
    /// An empty message.
    pub const fn new() -> Self {
        Self {
            buf: [0; 600],
            len: 0,
        }
    }

    /// Appends `text`, cutting it off (at a character boundary) when full.
    pub const fn push(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            // Only whole characters: stop before one that does not fit.
            let width = match bytes[i] {
                b if b < 0x80 => 1,
                b if b >= 0xF0 => 4,
                b if b >= 0xE0 => 3,
                _ => 2,
            };
            if self.len + width > self.buf.len() {
                break;
            }
            let mut k = 0;
            while k < width && i + k < bytes.len() {
                self.buf[self.len] = bytes[i + k];
                self.len += 1;
                k += 1;
            }
            i += width;
        }
        self
    }

    /// Appends `n` in decimal.
    pub const fn push_number(mut self, n: usize) -> Self {
        let mut digits = [0u8; 20];
        let (mut len, mut rest) = (0, n);
        loop {
            digits[len] = b'0' + (rest % 10) as u8;
            len += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        while len > 0 && self.len < self.buf.len() {
            len -= 1;
            self.buf[self.len] = digits[len];
            self.len += 1;
        }
        self
    }

    /// Appends `primary key` or ``index `NAME` ``.
    pub const fn push_key(self, key: &KeyDef) -> Self {
        match key.index {
            Some(name) => self.push("index `").push(name).push("`"),
            None => self.push("primary key"),
        }
    }

    /// The message text.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(text) => text,
            Err(_) => "ddb: invalid declaration",
        }
    }
}

impl Message {
    pub(crate) const fn into_error(self) -> Option<Message> {
        Some(self)
    }
}

impl Default for Message {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Message;

    #[test]
    fn numbers_are_written_in_decimal() {
        let message = Message::new()
            .push("n = ")
            .push_number(4096)
            .push(", ")
            .push_number(0);
        assert_eq!(message.as_str(), "n = 4096, 0");
    }

    /// A message ending in a non-ASCII character lost it.
    #[test]
    fn a_trailing_non_ascii_character_is_kept() {
        assert_eq!(
            Message::new().push("naïve ").push("café").as_str(),
            "naïve café"
        );
        assert_eq!(Message::new().push("→ 🦀").as_str(), "→ 🦀");
    }

    #[test]
    fn a_full_message_is_cut_at_a_character_boundary() {
        let long = "é".repeat(400);
        let message = Message::new().push("x").push(&long);
        assert!(message.as_str().len() <= 600);
        assert!(message.as_str().ends_with('é'));
    }
}
