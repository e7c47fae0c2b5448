//! The values DynamoDB can store: numbers it reads as numbers, no empty
//! sets, nesting within its limit, and no value larger than an item.

use aws_sdk_dynamodb::types::AttributeValue;

/// DynamoDB's list and map nesting limit, counting the item itself as the
/// first level (as Dynoxide, which follows AWS's captures, does: an
/// attribute may hold 31 nested lists or maps).
const MAX_NESTING: usize = 32;

/// Refuses a value DynamoDB would: numbers that are not numbers (NaN,
/// infinity), have more than 38 significant digits or are out of range, empty
/// sets, lists or maps nested deeper than 32 levels counting the item, and a
/// value larger than a whole item can be.
pub(crate) fn check_value(name: &str, value: &AttributeValue) -> Result<(), String> {
    check_value_shape(name, value)?;
    let size = crate::item::size::value_size(value);
    if size > crate::item::size::ITEM_SIZE_LIMIT {
        return Err(format!(
            "a value of attribute `{name}` is {size} bytes; a DynamoDB item holds at most {}",
            crate::item::size::ITEM_SIZE_LIMIT
        ));
    }
    Ok(())
}

/// [`check_value`] without the size: for a whole item, whose size is
/// checked once.
pub(crate) fn check_value_shape(name: &str, value: &AttributeValue) -> Result<(), String> {
    fn check(name: &str, value: &AttributeValue, depth: usize) -> std::result::Result<(), String> {
        match value {
            AttributeValue::N(n) => number(name, n),
            AttributeValue::Ns(ns) if ns.is_empty() => {
                Err(format!("attribute `{name}` is an empty number set"))
            }
            AttributeValue::Ns(ns) => ns.iter().try_for_each(|n| number(name, n)),
            AttributeValue::Ss(ss) if ss.is_empty() => {
                Err(format!("attribute `{name}` is an empty string set"))
            }
            AttributeValue::Bs(bs) if bs.is_empty() => {
                Err(format!("attribute `{name}` is an empty binary set"))
            }
            AttributeValue::L(_) | AttributeValue::M(_) if depth >= MAX_NESTING => Err(format!(
                "attribute `{name}` nests lists or maps deeper than {MAX_NESTING} levels"
            )),
            AttributeValue::L(items) => items.iter().try_for_each(|v| check(name, v, depth + 1)),
            AttributeValue::M(map) => map.values().try_for_each(|v| check(name, v, depth + 1)),
            _ => Ok(()),
        }
    }
    fn number(name: &str, text: &str) -> std::result::Result<(), String> {
        let invalid = || {
            format!("attribute `{name}` holds `{text}`, which DynamoDB cannot store as a number")
        };
        // An integer of at most 38 digits is within every limit: ddb's own
        // conversions of integer fields write nothing else.
        let digits = text.strip_prefix('-').unwrap_or(text);
        if (1..=38).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(());
        }
        let decimal = crate::item::number::Decimal::parse(text).ok_or_else(invalid)?;
        if decimal.significant == 0 {
            return Ok(()); // zero
        }
        if decimal.significant > 38 {
            return Err(format!(
                "attribute `{name}` has more than 38 significant digits"
            ));
        }
        // The decimal exponent of the first significant digit.
        let magnitude = decimal.magnitude;
        if !(-130..=125).contains(&magnitude) {
            return Err(format!(
                "attribute `{name}` is outside DynamoDB's number range"
            ));
        }
        Ok(())
    }
    check(name, value, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_dynamodb_refuses_are_refused() {
        let check = |v: AttributeValue| crate::item::value::check_value("a", &v);
        let n = |s: &str| check(AttributeValue::N(s.into()));
        for good in [
            "0",
            "-7.1234",
            "1e125",
            "9.9999999999999999999999999999999999999E+125",
            "1E-130",
            "0.000",
            "007",
            "-0",
            // 38 digits, and 39 whose last is a trailing zero (1e38).
            "99999999999999999999999999999999999999",
            "-99999999999999999999999999999999999999",
            "100000000000000000000000000000000000000",
        ] {
            assert!(n(good).is_ok(), "{good}");
        }
        for bad in [
            "NaN",
            "inf",
            "-inf",
            "1e126",
            "1e-131",
            "1.2.3",
            "",
            "12345678901234567890123456789012345678901",
            "123456789012345678901234567890123456789",
            "-",
            "--1",
            "1-",
        ] {
            assert!(n(bad).is_err(), "{bad}");
        }
        assert!(check(AttributeValue::Ss(vec![])).is_err());
        // The item is the first of 32 levels: an attribute holds 31.
        let mut deep = AttributeValue::S("x".into());
        for _ in 0..31 {
            deep = AttributeValue::L(vec![deep]);
        }
        assert!(check(deep.clone()).is_ok());
        assert!(check(AttributeValue::L(vec![deep])).is_err());
    }
}
