//! DynamoDB numbers as decimal text: read in place, compared and hashed by
//! value (`"1.50"`, `"1.5"` and `"15e-1"` are one number).

/// A DynamoDB number read from its text in place: its sign, the decimal
/// exponent of its first significant digit, and its significant digits.
/// Equal (and hashed alike) exactly when the numbers are: `"1.50"`,
/// `"1.5"` and `"15e-1"` are one number, as DynamoDB stores them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decimal<'a> {
    negative: bool,
    /// The decimal exponent of the first significant digit (0 for zero),
    /// saturated far beyond any number DynamoDB holds.
    pub magnitude: i64,
    /// How many significant digits (0 for zero).
    pub significant: usize,
    mantissa: &'a str,
    leading: usize,
}

impl<'a> Decimal<'a> {
    /// `None` when `text` is not a decimal number (`NaN`, `inf`, `1e`,
    /// `1.2.3`, empty).
    pub(crate) fn parse(text: &'a str) -> Option<Self> {
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
            None => (unsigned, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = int.bytes().chain(frac.bytes());
        if (int.is_empty() && frac.is_empty()) || !digits.clone().all(|d| d.is_ascii_digit()) {
            return None;
        }
        let (leading, significant) = significant_digits(mantissa);
        if significant == 0 {
            let zero = Self {
                negative: false,
                magnitude: 0,
                significant: 0,
                mantissa,
                leading,
            };
            return Some(zero);
        }
        let magnitude = (int.len() as i64 - leading as i64 - 1).saturating_add(exponent);
        Some(Self {
            negative: text.starts_with('-'),
            magnitude,
            significant,
            mantissa,
            leading,
        })
    }

    /// The number in one text for all its forms: sign, significant digits
    /// and the exponent of the first (`"1.50"`, `"15e-1"` -> `"15e0"`).
    pub(crate) fn canonical(&self) -> String {
        if self.significant == 0 {
            return "0".to_owned();
        }
        let sign = if self.negative { "-" } else { "" };
        let digits: String = self.digits().map(char::from).collect();
        format!("{sign}{digits}e{}", self.magnitude)
    }

    fn digits(&self) -> impl Iterator<Item = u8> + 'a {
        let digits = self.mantissa.bytes().filter(u8::is_ascii_digit);
        digits.skip(self.leading).take(self.significant)
    }
}

impl PartialEq for Decimal<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.negative, self.magnitude, self.significant)
            == (other.negative, other.magnitude, other.significant)
            && self.digits().eq(other.digits())
    }
}

impl Eq for Decimal<'_> {}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let sign = |d: &Self| match (d.significant, d.negative) {
            (0, _) => 0,
            (_, true) => -1,
            (_, false) => 1,
        };
        let by_size = || {
            let size = self.magnitude.cmp(&other.magnitude);
            size.then_with(|| self.digits().cmp(other.digits()))
        };
        match sign(self).cmp(&sign(other)) {
            std::cmp::Ordering::Equal if sign(self) == 0 => std::cmp::Ordering::Equal,
            std::cmp::Ordering::Equal if self.negative => by_size().reverse(),
            std::cmp::Ordering::Equal => by_size(),
            unequal => unequal,
        }
    }
}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for Decimal<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.negative, self.magnitude, self.significant).hash(state);
        self.digits().for_each(|digit| state.write_u8(digit));
    }
}

/// The digits of a number's mantissa (its signs and decimal point skipped):
/// how many zeros lead, and how many digits are left once leading and
/// trailing zeros are trimmed (0 for zero).
pub(super) fn significant_digits(mantissa: &str) -> (usize, usize) {
    let digits = || mantissa.bytes().filter(u8::is_ascii_digit);
    let total = digits().count();
    let leading = digits().take_while(|&d| d == b'0').count();
    if leading == total {
        return (leading, 0);
    }
    let trailing = mantissa
        .bytes()
        .rev()
        .filter(u8::is_ascii_digit)
        .take_while(|&d| d == b'0')
        .count();
    (leading, total - leading - trailing)
}

/// The exact sum of two DynamoDB numbers given as decimal text, in plain
/// decimal notation (`"0.1"` + `"0.2"` is `"0.3"`, as DynamoDB's `ADD`
/// makes it); `None` when either is not a number.
pub(crate) fn add_numbers(a: &str, b: &str) -> Option<String> {
    let (a, b) = (Decimal::parse(a)?, Decimal::parse(b)?);
    // Both as integers of digits (least significant first) times 10^low.
    let last = |d: &Decimal| d.magnitude - d.significant as i64 + 1;
    let low = match (a.significant, b.significant) {
        (0, 0) => return Some("0".to_owned()),
        (0, _) => last(&b),
        (_, 0) => last(&a),
        _ => last(&a).min(last(&b)),
    };
    let widen = |d: &Decimal| -> Option<Vec<u8>> {
        let shift = usize::try_from(last(d) - low).ok().filter(|s| *s <= 1024)?;
        let mut digits: Vec<u8> = std::iter::repeat_n(0, shift).collect();
        let significant: Vec<u8> = d.digits().map(|b| b - b'0').collect();
        digits.extend(significant.into_iter().rev());
        Some(digits)
    };
    let (x, y) = (widen(&a)?, widen(&b)?);
    let (negative, digits) = if a.negative == b.negative {
        (a.negative, add_digits(&x, &y))
    } else if magnitude_cmp(&x, &y).is_ge() {
        (a.negative, sub_digits(&x, &y))
    } else {
        (b.negative, sub_digits(&y, &x))
    };
    Some(plain(negative, &digits, low))
}

/// `x + y`, digits least significant first.
fn add_digits(x: &[u8], y: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(x.len().max(y.len()) + 1);
    let mut carry = 0;
    for i in 0..x.len().max(y.len()) {
        let sum = x.get(i).unwrap_or(&0) + y.get(i).unwrap_or(&0) + carry;
        out.push(sum % 10);
        carry = sum / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// `x - y` for `x >= y`, digits least significant first.
fn sub_digits(x: &[u8], y: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(x.len());
    let mut borrow = 0;
    for (i, &digit) in x.iter().enumerate() {
        let take = y.get(i).unwrap_or(&0) + borrow;
        borrow = u8::from(digit < take);
        out.push(digit + 10 * borrow - take);
    }
    out
}

/// Compares two unsigned digit strings, least significant first.
fn magnitude_cmp(x: &[u8], y: &[u8]) -> std::cmp::Ordering {
    let trim = |d: &[u8]| d.len() - d.iter().rev().take_while(|&&d| d == 0).count();
    let (lx, ly) = (trim(x), trim(y));
    lx.cmp(&ly)
        .then_with(|| x[..lx].iter().rev().cmp(y[..ly].iter().rev()))
}

/// The number `±digits × 10^low` in plain decimal notation.
fn plain(negative: bool, digits: &[u8], low: i64) -> String {
    let mut text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
    if low >= 0 {
        text.extend(std::iter::repeat_n('0', low as usize));
    } else {
        let point = low.unsigned_abs() as usize;
        if text.len() <= point {
            text.insert_str(0, &"0".repeat(point - text.len() + 1));
        }
        text.insert(text.len() - point, '.');
        text.truncate(text.trim_end_matches('0').trim_end_matches('.').len());
    }
    let text = text.trim_start_matches('0');
    let text = match text {
        "" => return "0".to_owned(),
        t if t.starts_with('.') => format!("0{t}"),
        t => t.to_owned(),
    };
    if negative {
        format!("-{text}")
    } else {
        text
    }
}

/// Compares two DynamoDB numbers given as decimal text.
pub(crate) fn compare_numbers(a: &str, b: &str) -> std::cmp::Ordering {
    match (Decimal::parse(a), Decimal::parse(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        // Not numbers: DynamoDB holds none, so any fixed order does.
        _ => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn equal_numbers_have_one_canonical_text() {
        let c = |t: &str| Decimal::parse(t).unwrap().canonical();
        assert_eq!(c("1.50"), "15e0");
        assert_eq!(c("15e-1"), c("1.5"));
        assert_eq!(c("-0.05"), "-5e-2");
        assert_eq!(c("100"), "1e2");
        assert_eq!(c("-0"), "0");
        assert_ne!(c("10"), c("1"));
    }

    #[test]
    fn numbers_add_exactly() {
        let add = |a: &str, b: &str| add_numbers(a, b).unwrap();
        assert_eq!(add("0.1", "0.2"), "0.3");
        assert_eq!(add("1", "2"), "3");
        assert_eq!(add("-5", "3"), "-2");
        assert_eq!(add("5", "-5"), "0");
        assert_eq!(add("1.50", "15e-1"), "3");
        assert_eq!(add("1e3", "1"), "1001");
        assert_eq!(add("-0.05", "0.005"), "-0.045");
        assert_eq!(add("0", "-7.25"), "-7.25");
        let big = "99999999999999999999999999999999999999";
        assert_eq!(add(big, big), "199999999999999999999999999999999999998");
        assert_eq!(add(big, "1"), format!("1{}", "0".repeat(38)));
        assert_eq!(add("1e-130", "1e-130"), format!("0.{}2", "0".repeat(129)));
        assert_eq!(add_numbers("NaN", "1"), None);
    }

    #[test]
    fn numbers_compare_by_value() {
        let d = |t: &'static str| Decimal::parse(t).unwrap();
        for (a, b) in [
            ("1.50", "1.5"),
            ("1.5", "15e-1"),
            ("+1.5", "0001.5000"),
            ("-0", "0"),
            ("0.000", "0e7"),
            ("100", "1E2"),
            ("-0.05", "-5e-2"),
        ] {
            assert_eq!(d(a), d(b), "{a} = {b}");
        }
        for (a, b) in [("1", "10"), ("1.5", "-1.5"), ("15", "1.5"), ("1", "0")] {
            assert_ne!(d(a), d(b), "{a} != {b}");
        }
        for not_a_number in ["NaN", "inf", "1e", "e5", "-", ".", "1.2.3", "", "1e5.5"] {
            assert!(Decimal::parse(not_a_number).is_none(), "{not_a_number}");
        }
        // An exponent at the end of i64's range is out of DynamoDB's range,
        // not an overflow.
        for huge in ["10e9223372036854775807", "0.01e-9223372036854775808"] {
            let check = crate::item::value::check_value("a", &AttributeValue::N(huge.into()));
            assert!(check.is_err(), "{huge}");
        }
    }
}
