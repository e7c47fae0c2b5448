//! The item conversion the derive generates is exactly serde_dynamo's,
//! for every field type ddb supports and the serde attributes it follows.

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Entity, Error, Item, KeySegment, Table};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Things", pk = "PK")]
struct Things;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Inner {
    label: String,
    count: u16,
}

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
enum Kind {
    Small,
    Large,
}

/// An `Option` under another name: serde reads a missing one as `None`.
type MaybeText = Option<String>;

fn seven() -> u32 {
    7
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Things, entity = "Thing", pk = "THING#{id}")]
struct Thing {
    id: String,
    flag: bool,
    small: u8,
    signed: i64,
    big: u64,
    size: usize,
    maybe: Option<String>,
    maybe_number: Option<u32>,
    alias: MaybeText,
    #[serde(skip_serializing_if = "Option::is_none")]
    sparse: Option<String>,
    #[serde(default)]
    defaulted: u32,
    #[serde(default = "seven")]
    seventh: u32,
    ratio: f64,
    tags: Vec<String>,
    labels: BTreeSet<String>,
    inner: Inner,
    maybe_inner: Option<Inner>,
    kind: Kind,
    #[serde(with = "time::serde::rfc3339")]
    at: time::OffsetDateTime,
    #[serde(rename = "renamed")]
    other: String,
    bytes: Vec<u8>,
    #[serde(skip)]
    cache: u32,
    #[serde(skip, default = "seven")]
    skipped_seven: u32,
}

fn thing() -> impl Strategy<Value = Thing> {
    let text = "[a-z#$ é]{0,8}";
    let scalars = (
        text,
        any::<bool>(),
        any::<u8>(),
        any::<i64>(),
        any::<u64>(),
        any::<usize>(),
        proptest::option::of(text),
        proptest::option::of(any::<u32>()),
        proptest::option::of(text),
        any::<u32>(),
    );
    let rest = (
        -1.0e12f64..1.0e12,
        proptest::collection::vec(text, 0..3),
        proptest::collection::btree_set(text, 0..3),
        (text, any::<u16>()),
        proptest::option::of((text, any::<u16>())),
        any::<bool>(),
        0i64..4_000_000_000,
        text,
        proptest::collection::vec(any::<u8>(), 0..4),
    );
    (scalars, rest).prop_map(
        |((id, flag, small, signed, big, size, maybe, maybe_number, sparse, defaulted), rest)| {
            let (ratio, tags, labels, inner, maybe_inner, large, at, other, bytes) = rest;
            Thing {
                id: format!("t{id}"),
                flag,
                small,
                signed,
                big,
                size,
                alias: maybe.clone(),
                maybe,
                maybe_number,
                sparse,
                defaulted,
                seventh: defaulted / 2,
                ratio,
                tags,
                labels,
                inner: Inner {
                    label: inner.0,
                    count: inner.1,
                },
                maybe_inner: maybe_inner.map(|(label, count)| Inner { label, count }),
                kind: if large { Kind::Large } else { Kind::Small },
                at: time::OffsetDateTime::from_unix_timestamp(at).unwrap(),
                other,
                bytes,
                cache: 0,
                skipped_seven: 0,
            }
        },
    )
}

/// The item without what ddb adds (the key and the entity type).
fn fields_of(mut item: Item) -> Item {
    item.remove("PK");
    item.remove("_type");
    item
}

/// Some of a thing's fields, read with the serde attributes projections
/// follow: the decoding the derive generates must be serde_dynamo's.
#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(entity = Thing)]
struct ThingPart {
    id: String,
    flag: bool,
    signed: i64,
    maybe_number: Option<u32>,
    alias: MaybeText,
    #[serde(default = "seven")]
    seventh: u32,
    ratio: f64,
    labels: BTreeSet<String>,
    maybe_inner: Option<Inner>,
    kind: Kind,
    #[serde(with = "time::serde::rfc3339")]
    at: time::OffsetDateTime,
    #[serde(rename = "renamed")]
    other: String,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_generated_projection_reads_what_serde_dynamo_reads(thing in thing(), drop in 0usize..14) {
        use ddb_runtime::Projection;
        let mut item = thing.to_item().unwrap();
        // Some attribute missing, as a sparse or partial item has it.
        let names = ["id", "flag", "signed", "maybeNumber", "alias", "seventh", "ratio",
            "labels", "maybeInner", "kind", "at", "renamed", "PK"];
        if let Some(name) = names.get(drop) {
            item.remove(*name);
        }
        let ours = <ThingPart as Projection<Thing>>::__from_item(item.clone());
        let theirs: Result<ThingPart, _> = serde_dynamo::from_item(item);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => prop_assert_eq!(ours, theirs),
            (Err(_), Err(_)) => {}
            (ours, theirs) => prop_assert!(false, "generated {:?}, serde_dynamo {:?}", ours, theirs),
        }
    }

    #[test]
    fn the_generated_item_is_serde_dynamos(thing in thing()) {
        let ours = fields_of(thing.to_item().unwrap());
        let theirs: Item = serde_dynamo::to_item(&thing).unwrap();
        prop_assert_eq!(&ours, &theirs);
        // Both read back to the same entity (the skipped field at its default).
        let mut item = theirs;
        item.insert("PK".into(), AttributeValue::S(format!("THING#{}", thing.id)));
        item.insert("_type".into(), AttributeValue::S("Thing".into()));
        let read = Thing::from_item(item).unwrap();
        let expected: Thing = serde_dynamo::from_item(fields_of(thing.to_item().unwrap())).unwrap();
        prop_assert_eq!(read, expected);
    }
}

#[test]
fn missing_attributes_follow_serde() {
    let thing = Thing {
        id: "t".into(),
        flag: true,
        small: 1,
        signed: -2,
        big: 3,
        size: 4,
        maybe: Some("m".into()),
        maybe_number: Some(5),
        alias: Some("a".into()),
        sparse: None,
        defaulted: 6,
        seventh: 8,
        ratio: 0.5,
        tags: vec![],
        labels: BTreeSet::new(),
        inner: Inner {
            label: "i".into(),
            count: 1,
        },
        maybe_inner: None,
        kind: Kind::Small,
        at: time::OffsetDateTime::UNIX_EPOCH,
        other: "o".into(),
        bytes: vec![1, 2],
        cache: 9,
        skipped_seven: 1,
    };
    let item = thing.to_item().unwrap();
    let without = |names: &[&str]| {
        let mut item = item.clone();
        for name in names {
            item.remove(*name);
        }
        item
    };
    // Options read as None, defaults as their default; required fields fail
    // as serde fails.
    let read = Thing::from_item(without(&[
        "maybe",
        "maybeNumber",
        "alias",
        "defaulted",
        "seventh",
    ]))
    .unwrap();
    assert_eq!(
        (read.maybe, read.maybe_number, read.alias),
        (None, None, None)
    );
    assert_eq!(
        (read.defaulted, read.seventh, read.cache, read.skipped_seven),
        (0, 7, 0, 7)
    );
    for required in ["flag", "big", "inner", "at", "renamed"] {
        let ours = Thing::from_item(without(&[required]));
        assert!(
            matches!(ours, Err(Error::Decode { .. })),
            "{required}: {ours:?}"
        );
        let theirs = serde_dynamo::from_item::<_, Thing>(fields_of(without(&[required])));
        assert!(theirs.is_err(), "{required}");
    }
    // A value of the wrong type fails as serde fails.
    let mut wrong = item.clone();
    wrong.insert("big".into(), AttributeValue::S("x".into()));
    assert!(matches!(Thing::from_item(wrong), Err(Error::Decode { .. })));
}

#[derive(Table)]
#[ddb(name = "Names", pk = "PK")]
struct Names;

macro_rules! renamed {
    ($name:ident, $rule:literal) => {
        #[allow(non_snake_case)]
        #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
        #[serde(rename_all = $rule)]
        #[ddb(table = Names, pk = "N#{id}", entity = $rule)]
        struct $name {
            id: String,
            Foo_bar: u32,
            orderId: u32,
            größe: u32,
            r#type: u32,
            two_words_here: u32,
        }

        impl $name {
            fn attributes() -> BTreeSet<String> {
                Self::SCHEMA
                    .fields
                    .iter()
                    .map(|f| f.attribute.to_owned())
                    .collect()
            }
        }
    };
}

renamed!(Lower, "lowercase");
renamed!(Upper, "UPPERCASE");
renamed!(Pascal, "PascalCase");
renamed!(Camel, "camelCase");
renamed!(Snake, "snake_case");
renamed!(Screaming, "SCREAMING_SNAKE_CASE");
renamed!(Kebab, "kebab-case");
renamed!(ScreamingKebab, "SCREAMING-KEBAB-CASE");

/// The attribute names ddb computes are serde's, for every rename rule,
/// `lowercase`, `camelCase` and non-ASCII names included.
#[test]
fn attribute_names_follow_serdes_rename_rules() {
    fn serde_names<T: Serialize + Default>() -> BTreeSet<String> {
        serde_dynamo::to_item::<_, Item>(T::default())
            .unwrap()
            .into_keys()
            .collect()
    }
    assert_eq!(Lower::attributes(), serde_names::<Lower>());
    assert_eq!(Upper::attributes(), serde_names::<Upper>());
    assert_eq!(Pascal::attributes(), serde_names::<Pascal>());
    assert_eq!(Camel::attributes(), serde_names::<Camel>());
    assert_eq!(Snake::attributes(), serde_names::<Snake>());
    assert_eq!(Screaming::attributes(), serde_names::<Screaming>());
    assert_eq!(Kebab::attributes(), serde_names::<Kebab>());
    assert_eq!(
        ScreamingKebab::attributes(),
        serde_names::<ScreamingKebab>()
    );
    let camel = Camel {
        id: "x".into(),
        Foo_bar: 1,
        ..Camel::default()
    };
    assert_eq!(Camel::from_item(camel.to_item().unwrap()).unwrap(), camel);
}

/// An entity that stores no field at all: its item holds only what ddb
/// adds.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Things, entity = "Settings", pk = "SETTINGS")]
struct Settings {}

#[test]
fn an_entity_without_fields_converts() {
    let item = Settings {}.to_item().unwrap();
    assert_eq!(item.len(), 2, "the key and the entity type: {item:?}");
    assert_eq!(Settings::from_item(item).unwrap(), Settings {});
}

/// A type read with serde but never written by it.
#[derive(Deserialize, Clone, Debug, PartialEq)]
struct Label(String);

fn write_label<S: serde::Serializer>(label: &Label, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&label.0)
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Things, entity = "Labelled", pk = "LABELLED#{id}")]
struct Labelled {
    id: String,
    #[serde(serialize_with = "write_label")]
    label: Label,
}

/// A projection's field needs only what the entity's field needs: it is
/// read by the entity's own reader.
#[derive(ddb_runtime::Projection, Debug, PartialEq)]
#[ddb(entity = Labelled)]
struct LabelOnly {
    label: Label,
}

/// A projection's own serde attributes do not change what it reads: the
/// entity's reader reads the attribute the entity stores.
#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Labelled)]
struct SplitRename {
    #[serde(rename(deserialize = "other"))]
    label: Label,
}

#[test]
fn projections_read_each_attribute_as_the_entity_stores_it() {
    use ddb_runtime::Projection;
    let item = Labelled {
        id: "1".into(),
        label: Label("x".into()),
    }
    .to_item()
    .unwrap();
    let read = <LabelOnly as Projection<Labelled>>::__from_item(item.clone()).unwrap();
    assert_eq!(read.label, Label("x".into()));
    let read = <SplitRename as Projection<Labelled>>::__from_item(item).unwrap();
    assert_eq!(read.label, Label("x".into()));
}

/// Binary and set attributes, which the entities above do not store.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Things, entity = "Wire", pk = "WIRE#{id}")]
struct Wire {
    id: String,
    #[serde(with = "bytes")]
    blob: Vec<u8>,
    #[serde(with = "serde_dynamo::string_set")]
    names: BTreeSet<String>,
    #[serde(with = "serde_dynamo::number_set")]
    numbers: BTreeSet<u32>,
    nested: std::collections::BTreeMap<String, Vec<Option<f64>>>,
}

/// `Vec<u8>` as a binary attribute (serde writes it as a list otherwise).
mod bytes {
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], to: S) -> Result<S::Ok, S::Error> {
        to.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(from: D) -> Result<Vec<u8>, D::Error> {
        serde::Deserialize::deserialize(from).map(|b: serde_dynamo::AttributeValue| match b {
            serde_dynamo::AttributeValue::B(bytes) => bytes,
            _ => Vec::new(),
        })
    }
}

/// A create that meets an item compares it with its own, which it reads
/// back from the body it sent (a client without interceptors of its own
/// keeps no copy): for every attribute type,
/// on the caller's client and on ddb's copy of it (after 8 requests), plain
/// and exactly-once, its own item is `AlreadyExisted` and another is
/// `AlreadyExists`.
#[tokio::test]
async fn a_create_meeting_an_item_compares_it_with_the_item_it_sent() {
    use ddb_runtime::Created;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let db = ddb_tests::db_with_table::<Things>().await;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[11; 32]),
    );
    let things: Vec<Thing> = (0..12)
        .map(|i| {
            let mut thing = thing().new_tree(&mut runner).unwrap().current();
            thing.id = format!("thing{i}");
            thing.cache = 0;
            thing.skipped_seven = 7;
            thing
        })
        .collect();
    for (i, thing) in things.iter().enumerate() {
        let exactly_once = i % 2 == 1;
        let create = |thing: &Thing| db.create(thing).exactly_once(exactly_once).send();
        assert_eq!(create(thing).await.unwrap(), Created::Created);
        assert_eq!(
            create(thing).await.unwrap(),
            Created::AlreadyExisted,
            "{thing:?}"
        );
        let mut other = thing.clone();
        other.big = other.big.wrapping_add(1);
        let error = create(&other).await.unwrap_err();
        assert!(error.is_already_exists(), "{error:?}");
    }
    let wire = Wire {
        id: "w".into(),
        blob: vec![0, 1, 254, 255],
        names: ["a".to_string(), "é#b".to_string()].into(),
        numbers: [0, 7, u32::MAX].into(),
        nested: [("k".to_string(), vec![Some(0.25), None])].into(),
    };
    for exactly_once in [false, true] {
        let wire = Wire {
            id: format!("w{exactly_once}"),
            ..wire.clone()
        };
        let create = |wire: &Wire| db.create(wire).exactly_once(exactly_once).send();
        assert_eq!(create(&wire).await.unwrap(), Created::Created);
        assert_eq!(create(&wire).await.unwrap(), Created::AlreadyExisted);
        let other = Wire {
            blob: vec![0, 1, 254],
            ..wire.clone()
        };
        assert!(create(&other).await.unwrap_err().is_already_exists());
    }
}

#[derive(Table)]
#[ddb(name = "Carts", pk = "PK")]
struct Carts;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Carts, entity = "Cart", pk = "CART#{id}")]
struct Cart {
    id: String,
    items: u32,
    /// Computed in memory, never stored.
    #[serde(skip)]
    cached_total: u64,
}

/// A `#[serde(skip)]` field is no attribute: the schema does not list it (a
/// filter on it could never match), the stored item lacks it, and the item
/// round-trips without it.
#[tokio::test]
async fn a_skipped_field_is_no_attribute() {
    let db = ddb_tests::db_with_table::<Carts>().await;
    let cart = Cart {
        id: "c1".into(),
        items: 2,
        cached_total: 999,
    };
    assert!(Cart::SCHEMA.field("cached_total").is_none());
    db.create(&cart).send().await.unwrap();
    let raw = ddb_tests::raw_item::<Carts>(&db, cart.primary_key().unwrap().to_item())
        .await
        .unwrap();
    assert!(!raw.contains_key("cached_total"), "{raw:?}");
    let stored = db.get(cart.primary_key().unwrap()).send().await.unwrap();
    assert_eq!(
        stored,
        Some(Cart {
            cached_total: 0,
            ..cart
        })
    );
}
