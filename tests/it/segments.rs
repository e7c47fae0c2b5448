//! Properties of key segments: order-preserving, injective, reversible.

use std::cmp::Ordering;

use ddb_runtime::segment::{read_escaped, write_escaped};
use ddb_runtime::{Entity, KeySegment, Table};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn encode<T: KeySegment>(value: &T) -> String {
    let mut out = String::new();
    write_escaped(value, &mut out).unwrap();
    out
}

fn check_order<T: KeySegment + Ord + std::fmt::Debug>(a: T, b: T) -> Result<(), TestCaseError> {
    let (ea, eb) = (encode(&a), encode(&b));
    prop_assert_eq!(
        a.cmp(&b),
        ea.as_bytes().cmp(eb.as_bytes()),
        "{:?} vs {:?}: {} vs {}",
        a,
        b,
        ea,
        eb
    );
    prop_assert_eq!(read_escaped::<T>(&ea).unwrap(), a);
    prop_assert!(!ea.contains('#'), "{} contains the delimiter", ea);
    Ok(())
}

/// Strings rich in the bytes that break naive keys: below and at the
/// delimiter, the escape character, controls, multi-byte characters.
fn tricky_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('#'),
            Just('$'),
            Just('!'),
            Just(' '),
            Just('\0'),
            Just('%'),
            Just('a'),
            Just('b'),
            Just('A'),
            Just('z'),
            Just('é'),
            Just('😀'),
            Just('\u{200F}'),
            Just('\u{7f}'),
            any::<char>(),
        ],
        1..8,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn timestamp() -> impl Strategy<Value = time::OffsetDateTime> {
    // Years 0000..=9999 at second precision.
    (-62_167_219_200i64..=253_402_300_799i64)
        .prop_map(|s| time::OffsetDateTime::from_unix_timestamp(s).unwrap())
}

/// The same instant as a `chrono::DateTime<Utc>`.
fn chrono_of(at: time::OffsetDateTime) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(at.unix_timestamp(), 0).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn unsigned_order(a: u64, b: u64) { check_order(a, b)?; }
    #[test]
    fn small_unsigned_order(a: u8, b: u8) { check_order(a, b)?; }
    #[test]
    fn u128_order(a: u128, b: u128) { check_order(a, b)?; }
    #[test]
    fn signed_order(a: i64, b: i64) { check_order(a, b)?; }
    #[test]
    fn small_signed_order(a: i8, b: i8) { check_order(a, b)?; }
    #[test]
    fn i32_order(a: i32, b: i32) { check_order(a, b)?; }
    #[test]
    fn i128_order(a: i128, b: i128) { check_order(a, b)?; }
    #[test]
    fn bool_order(a: bool, b: bool) { check_order(a, b)?; }
    #[test]
    fn char_order(a: char, b: char) { check_order(a, b)?; }
    #[test]
    fn string_order(a in tricky_string(), b in tricky_string()) { check_order(a, b)?; }
    #[test]
    fn timestamp_order(a in timestamp(), b in timestamp()) { check_order(a, b)?; }
    #[test]
    fn chrono_timestamp_order(a in timestamp(), b in timestamp()) {
        check_order(chrono_of(a), chrono_of(b))?;
    }
    #[test]
    fn chrono_and_time_key_an_instant_alike(a in timestamp()) {
        prop_assert_eq!(encode(&chrono_of(a)), encode(&a));
    }
    #[test]
    fn uuid_order(a: u128, b: u128) { check_order(uuid::Uuid::from_u128(a), uuid::Uuid::from_u128(b))?; }
    #[test]
    fn ulid_order(a: u128, b: u128) { check_order(ulid::Ulid(a), ulid::Ulid(b))?; }
}

#[derive(Table)]
#[ddb(name = "Props", pk = "PK", sk = "SK")]
struct Props;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[ddb(table = Props, entity = "Tuple", pk = "T#{a}", sk = "X#{b}#{c}#{d}")]
struct Tuple {
    a: String,
    b: String,
    c: i64,
    d: String,
}

fn tuple() -> impl Strategy<Value = Tuple> {
    (
        tricky_string(),
        tricky_string(),
        any::<i64>(),
        tricky_string(),
    )
        .prop_map(|(a, b, c, d)| Tuple { a, b, c, d })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Whole keys keep tuple order, never collide, and parse back.
    #[test]
    fn tuple_keys_keep_order_and_identity(x in tuple(), y in tuple()) {
        let (kx, ky) = (x.primary_key().unwrap(), y.primary_key().unwrap());
        let sort = |k: &ddb_runtime::Key<Tuple>| k.sk().unwrap().as_str().to_owned();
        let order = (&x.b, x.c, &x.d).cmp(&(&y.b, y.c, &y.d));
        prop_assert_eq!(order, sort(&kx).as_bytes().cmp(sort(&ky).as_bytes()));
        let same = x == y;
        prop_assert_eq!(same, kx == ky);
        prop_assert_eq!(Tuple::parse_key(&kx).unwrap(), (x.a.clone(), x.b.clone(), x.c, x.d.clone()));
    }

    /// A begins_with on a complete leading segment plus the delimiter matches
    /// the items whose segment is equal, and never one that merely extends it
    /// (`12` never matches `123`).
    #[test]
    fn complete_segment_prefixes_do_not_over_match(x in tuple(), extra in tricky_string(), y in tuple()) {
        let mut prefix = String::from("X#");
        write_escaped(&x.b, &mut prefix).unwrap();
        prefix.push('#');
        let longer = Tuple { b: format!("{}{}", x.b, extra), ..x.clone() };
        let sk = |t: &Tuple| t.primary_key().unwrap().sk().unwrap().as_str().to_owned();
        prop_assert!(sk(&x).starts_with(&prefix));
        prop_assert!(!sk(&longer).starts_with(&prefix));
        prop_assert_eq!(sk(&y).starts_with(&prefix), x.b == y.b);
    }
}

#[test]
fn the_delimiter_sorts_below_every_segment_byte() {
    // ("a", _) < ("a!", _) although '!' < '#': the classic corruption case.
    let k = |b: &str| {
        Tuple {
            a: "t".into(),
            b: b.into(),
            c: 0,
            d: "z".into(),
        }
        .primary_key()
        .unwrap()
        .sk()
        .unwrap()
        .as_str()
        .to_owned()
    };
    assert_eq!(k("a").cmp(&k("a!")), Ordering::Less);
    assert_eq!(k("a").cmp(&k("a ")), Ordering::Less);
    assert_eq!(k("12").cmp(&k("123")), Ordering::Less);
}

/// chrono reads a leap second that time refuses: both refuse it as a key.
#[test]
fn a_leap_second_is_no_key_segment() {
    let text = "2026-09-10T08:12:60Z";
    assert!(read_escaped::<time::OffsetDateTime>(text).is_err());
    assert!(read_escaped::<chrono::DateTime<chrono::Utc>>(text).is_err());
}
