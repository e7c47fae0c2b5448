//! A DynamoDB item and its values: numbers, sizes, the values DynamoDB can
//! store, field conversion, timestamps and time to live, and what ddb stores
//! beside the fields.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

pub mod convert;
pub mod number;
pub mod size;
pub mod stored;
pub mod timestamp;
#[cfg(feature = "time")]
mod timestamp_arithmetic;
pub mod value;
pub mod vector;

/// A DynamoDB item: attribute names to values.
pub type Item = HashMap<String, AttributeValue>;
