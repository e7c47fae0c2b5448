//! The parsers that take outside input, fuzzed: key segments, stored
//! keys, stored items. The toolchain here is stable Rust (cargo-fuzz needs
//! nightly), so these are proptest runs seeded from the corpus checked in
//! under `tests/fuzz/` and mutated byte by byte, plus arbitrary input. The
//! cursor decoder is fuzzed the same way in `ddb-runtime`'s unit tests
//! (`cursor::tests::fuzz_*`). Every case must end in a value or a typed
//! error, never a panic; what parses must print back to the same text.
//!
//! The suite runs 256 cases per target; a long run:
//! `DDB_FUZZ_CASES=100000 cargo test --release -p ddb-tests --test it fuzz`.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, CustomerItem, Order, OrderItem};
use ddb_examples::OrderStatus;
use ddb_runtime::segment::{read_escaped, write_escaped, Millis, Nanos};
use ddb_runtime::{Collection, Entity, Error, Key, KeySegment, Timestamp};
use proptest::prelude::*;
use time::OffsetDateTime;

fn cases() -> u32 {
    std::env::var("DDB_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

fn corpus(text: &'static str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

/// A seed from `corpus`, mutated: bytes flipped, inserted, removed, cut,
/// and repaired into UTF-8 (keys are strings); or arbitrary text.
fn mutated(corpus: Vec<String>) -> impl Strategy<Value = String> {
    let edits = prop::collection::vec((0usize..64, any::<u8>(), 0u8..4), 0..4);
    let seeded = (prop::sample::select(corpus), edits).prop_map(|(seed, edits)| {
        let mut bytes = seed.into_bytes();
        for (at, byte, kind) in edits {
            let at = if bytes.is_empty() {
                0
            } else {
                at % (bytes.len() + 1)
            };
            match kind {
                0 if at < bytes.len() => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                2 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.truncate(at),
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    prop_oneof![3 => seeded, 1 => any::<String>()]
}

/// Reads `text` as a `T` segment; what parses must print back as `text`:
/// one stored text per value, so two keys never name one item.
fn segment_round_trips<T: KeySegment>(text: &str) -> Result<(), TestCaseError> {
    if let Ok(value) = read_escaped::<T>(text) {
        let mut printed = String::new();
        write_escaped(&value, &mut printed)
            .map_err(|e| TestCaseError::fail(format!("{text:?} parsed but does not print: {e}")))?;
        prop_assert_eq!(&printed, text, "{} parsed from another text", printed);
    }
    Ok(())
}

fn key_item(pk: String, sk: Option<String>) -> HashMap<String, AttributeValue> {
    let mut item = HashMap::from([("PK".to_owned(), AttributeValue::S(pk))]);
    if let Some(sk) = sk {
        item.insert("SK".to_owned(), AttributeValue::S(sk));
    }
    item
}

/// Parses a stored key as `E`'s: a key or a typed error.
fn parse_key<E: Entity>(item: &HashMap<String, AttributeValue>) -> Result<(), TestCaseError> {
    if let Ok(key) = Key::<E>::from_item(item) {
        match E::check_key(&key) {
            Ok(()) | Err(Error::KeyMismatch { .. } | Error::InvalidKeySegment { .. }) => {}
            Err(other) => return Err(TestCaseError::fail(format!("untyped: {other:?}"))),
        }
    }
    Ok(())
}

/// Any attribute value, nested a few levels.
fn attribute_value() -> impl Strategy<Value = AttributeValue> {
    let leaf = prop_oneof![
        any::<String>().prop_map(AttributeValue::S),
        mutated(corpus(include_str!("../fuzz/segments.txt"))).prop_map(AttributeValue::N),
        any::<i64>().prop_map(|n| AttributeValue::N(n.to_string())),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null(true)),
        prop::collection::vec(any::<u8>(), 0..8)
            .prop_map(|b| AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(b))),
        prop::collection::vec(any::<String>(), 0..3).prop_map(AttributeValue::Ss),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
            prop::collection::hash_map("[a-zA-Z_]{1,8}", inner, 0..4).prop_map(AttributeValue::M),
        ]
    })
}

/// An item with the store's attribute names (and some others), each with
/// any value or left out, under a seeded or arbitrary key and entity type.
fn item() -> impl Strategy<Value = HashMap<String, AttributeValue>> {
    let names = [
        "customer_id",
        "order_id",
        "product_id",
        "name",
        "email",
        "order_count",
        "placed_at",
        "status",
        "total_cents",
        "version",
        "quantity",
        "price_cents",
        "GSI1PK",
        "GSI1SK",
        "GSI2PK",
        "GSI2SK",
        "created_at",
        "updated_at",
        "other",
    ];
    let types = prop::sample::select(vec!["Customer", "Order", "OrderItem", "Other", ""]);
    let keys = || mutated(corpus(include_str!("../fuzz/keys.txt")));
    (
        prop::collection::vec(prop::option::of(attribute_value()), names.len()),
        types,
        keys(),
        keys(),
    )
        .prop_map(move |(values, entity_type, pk, sk)| {
            let mut item: HashMap<String, AttributeValue> = names
                .iter()
                .zip(values)
                .filter_map(|(name, value)| Some(((*name).to_owned(), value?)))
                .collect();
            item.insert("_type".into(), AttributeValue::S(entity_type.into()));
            item.insert("PK".into(), AttributeValue::S(pk));
            item.insert("SK".into(), AttributeValue::S(sk));
            item
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn fuzz_key_segments(text in mutated(corpus(include_str!("../fuzz/segments.txt")))) {
        segment_round_trips::<String>(&text)?;
        segment_round_trips::<i64>(&text)?;
        segment_round_trips::<u64>(&text)?;
        segment_round_trips::<i8>(&text)?;
        segment_round_trips::<u128>(&text)?;
        segment_round_trips::<bool>(&text)?;
        segment_round_trips::<char>(&text)?;
        segment_round_trips::<OffsetDateTime>(&text)?;
        segment_round_trips::<Millis>(&text)?;
        segment_round_trips::<Nanos>(&text)?;
        segment_round_trips::<Timestamp>(&text)?;
        segment_round_trips::<chrono::DateTime<chrono::Utc>>(&text)?;
        segment_round_trips::<OrderStatus>(&text)?;
    }

    #[test]
    fn fuzz_stored_keys(
        pk in mutated(corpus(include_str!("../fuzz/keys.txt"))),
        sk in prop::option::of(mutated(corpus(include_str!("../fuzz/keys.txt")))),
    ) {
        let item = key_item(pk, sk);
        parse_key::<Customer>(&item)?;
        parse_key::<Order>(&item)?;
        parse_key::<OrderItem>(&item)?;
    }

    #[test]
    fn fuzz_stored_items(item in item()) {
        // A value or a typed error; what decodes encodes again.
        if let Ok(order) = Order::from_item(item.clone()) {
            prop_assert!(order.to_item().is_ok() || order.primary_key().is_err());
        }
        let _ = Customer::from_item(item.clone());
        let _ = OrderItem::from_item(item.clone());
        let entity_type = item["_type"].as_s().cloned().unwrap_or_default();
        let _ = CustomerItem::from_item(&entity_type, item);
    }
}
