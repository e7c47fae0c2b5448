//! The size of an item by DynamoDB's rules, which every limit ddb checks
//! before sending is measured in.

use aws_sdk_dynamodb::types::AttributeValue;

use super::number::significant_digits;
use crate::item::Item;

/// DynamoDB's item size limit: 400 KB (409,600 bytes).
pub const ITEM_SIZE_LIMIT: usize = 409_600;

/// The size of an item by DynamoDB's rules: the UTF-8 bytes of every
/// attribute name plus its value's size (strings by UTF-8 bytes, binaries by
/// raw bytes, numbers by about one byte per two significant digits plus one,
/// booleans and nulls one byte, lists and maps three bytes plus one per
/// element).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let item = [
///     ("shirt-color".to_string(), AttributeValue::S("R".into())),
///     ("shirt-size".to_string(), AttributeValue::S("M".into())),
/// ]
/// .into();
/// assert_eq!(ddb_runtime::write::item_size(&item), 23); // AWS's own example
/// ```
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| attribute_size(name, value))
        .sum()
}

/// What one attribute adds to its item's size: its name and its value.
pub(crate) fn attribute_size(name: &str, value: &AttributeValue) -> usize {
    name.len() + value_size(value)
}

fn number_size(number: &str) -> usize {
    let mantissa = number.split(['e', 'E']).next().unwrap_or(number);
    let (_, significant) = significant_digits(mantissa);
    significant.max(1).div_ceil(2) + 1
}

pub(crate) fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(items) => items.iter().map(String::len).sum(),
        AttributeValue::Ns(items) => items.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(items) => items.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(items) => 3 + items.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(k, v)| k.len() + value_size(v) + 1)
                .sum::<usize>()
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_dynamodb_rules() {
        let item: Item = [
            ("a".to_string(), AttributeValue::N("12345".into())),
            ("bb".to_string(), AttributeValue::Bool(true)),
            (
                "l".to_string(),
                AttributeValue::L(vec![AttributeValue::S("xy".into())]),
            ),
        ]
        .into();
        // a: 1 + (3 + 1); bb: 2 + 1; l: 1 + 3 + (2 + 1)
        assert_eq!(item_size(&item), 5 + 3 + 7);
        assert_eq!(number_size("0.000120"), 2);
        assert_eq!(number_size("-1e5"), 2);
    }
}
