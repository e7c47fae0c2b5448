//! One field, one encoding: every path that writes, compares or reads a
//! field stores and reads exactly what `to_item` writes, for the field
//! forms and serde attributes users declare, not only the examples' ones.
//!
//! The matrix below declares one entity per field form and generates one
//! test per operation on it: the writes (create, put, batch put,
//! transaction put, update SET, and REMOVE, ADD or append where the form
//! allows them) each compared with `to_item` on the raw stored item; the
//! reads (get, query, projection, collection, stream record); and the comparisons (a
//! condition and a filter with `eq`/`ne`/`exists`, and `lt`/`between` or
//! `begins_with` where the stored form orders or is a string). The roles
//! (a primary key segment, an index key segment, a projected attribute)
//! follow for the forms a key can hold, then a multi-attribute index key
//! field, a sparse index's membership input, and the fields ddb writes
//! itself (version, time to live, stamps). `matrix_size` prints how many
//! combinations the matrix holds.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use ddb_runtime::{Collection, Db, Entity, Error, Item, KeySegment, Table};
use serde::{Deserialize, Serialize};
use time::macros::datetime;
use time::OffsetDateTime;

#[derive(Table)]
#[ddb(name = "Matrix", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK", include("value")))]
pub struct Matrix;

#[derive(KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, PartialOrd)]
pub struct Sku(String);

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, PartialOrd)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Color {
    DeepRed,
    Green,
}

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, PartialOrd)]
pub enum Size {
    #[serde(rename = "s")]
    Small,
    #[serde(rename = "xl")]
    ExtraLarge,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Address {
    city: String,
    zip: u32,
}

/// `Vec<u8>` as a binary attribute, through a `with` module of its own.
pub mod bytes {
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], to: S) -> Result<S::Ok, S::Error> {
        to.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(from: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
                Ok(bytes.to_vec())
            }
            fn visit_byte_buf<E>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(bytes)
            }
        }
        from.deserialize_byte_buf(Bytes)
    }
}

/// A number written as a string by `serialize_with` and read back by
/// `deserialize_with`.
pub fn write_decimal<S: serde::Serializer>(value: &u32, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_str(&format!("{value:08}"))
}

pub fn read_decimal<'de, D: serde::Deserializer<'de>>(from: D) -> Result<u32, D::Error> {
    let text: String = Deserialize::deserialize(from)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// A value in a canonical text: sets are compared as sets and maps as
/// maps, since DynamoDB keeps no order in either.
fn normalized(value: &aws_sdk_dynamodb::types::AttributeValue) -> String {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    match value {
        V::Ss(items) | V::Ns(items) => {
            let mut items = items.clone();
            items.sort();
            format!("set{items:?}")
        }
        V::M(map) => {
            let entries: BTreeMap<_, _> = map.iter().map(|(k, v)| (k, normalized(v))).collect();
            format!("map{entries:?}")
        }
        V::L(items) => format!("list{:?}", items.iter().map(normalized).collect::<Vec<_>>()),
        other => format!("{other:?}"),
    }
}

/// The attribute `attribute` as `to_item` writes it for `entity`, and as
/// the table holds it, both normalized.
fn same_attribute(stored: &Item, written: &Item, attribute: &str) {
    assert_eq!(
        stored.get(attribute).map(normalized),
        written.get(attribute).map(normalized),
        "attribute `{attribute}`: stored {stored:?}, to_item {written:?}"
    );
}

async fn raw_of<E: Entity + 'static>(db: &Db, entity: &E) -> Item {
    let table = E::SCHEMA.table;
    let item = entity.to_item().unwrap();
    let mut key = Item::new();
    key.insert(table.pk.name.into(), item[table.pk.name].clone());
    if let Some(sk) = table.sk {
        key.insert(sk.name.into(), item[sk.name].clone());
    }
    ddb_tests::raw_item::<E::Table>(db, key)
        .await
        .expect("the item is stored")
}

/// How many combinations the matrix runs: one per generated test.
static COMBINATIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn counted() {
    COMBINATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// One field form: `$ty` with its serde attributes, two distinct values
/// `$a` and `$b`, and the extra operation groups the form allows.
macro_rules! form {
    ($case:ident: $ty:ty $(, #[$attr:meta])* = $a:expr, $b:expr $(; $extra:ident)*) => {
        mod $case {
            #[allow(unused_imports)]
            use super::*;

            #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
            #[ddb(table = Matrix, entity = "Case", pk = "CASE#{id}", sk = "CASE", query = "by_id")]
            pub struct Case {
                pub id: String,
                $(#[$attr])*
                pub value: $ty,
                pub tick: u32,
            }

            #[derive(ddb_runtime::Projection, Debug, PartialEq)]
            #[ddb(entity = Case)]
            pub struct ValueOnly {
                pub value: $ty,
            }

            #[derive(Collection, Clone, Debug, PartialEq)]
            pub enum Any {
                Case(Case),
            }

            pub fn a() -> $ty {
                $a
            }

            pub fn b() -> $ty {
                $b
            }

            pub fn case(id: &str, value: $ty) -> Case {
                Case { id: id.into(), value, tick: 0 }
            }

            pub fn key(id: &str) -> ddb_runtime::Key<Case> {
                Case::key(&id.to_string()).unwrap()
            }

            async fn stored_as_written(db: &Db, entity: &Case) {
                let stored = raw_of(db, entity).await;
                same_attribute(&stored, &entity.to_item().unwrap(), Case::fields().value.name());
            }

            /// How many items of case `c`'s query `condition` keeps.
            async fn kept(db: &Db, condition: ddb_runtime::Condition<Case>) -> usize {
                let query = db.query(Case::by_id(&"c".to_string())).filter(condition);
                query.collect().await.unwrap().len()
            }

            #[tokio::test]
            async fn create_stores_what_to_item_writes() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entity = case("c", a());
                db.create(&entity).send().await.unwrap();
                stored_as_written(&db, &entity).await;
            }

            #[tokio::test]
            async fn put_stores_what_to_item_writes() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entity = case("c", b());
                db.put(&entity).send().await.unwrap();
                stored_as_written(&db, &entity).await;
            }

            #[tokio::test]
            async fn batch_put_stores_what_to_item_writes() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entities = [case("c1", a()), case("c2", b())];
                db.batch_put(&entities).await.unwrap();
                for entity in &entities {
                    stored_as_written(&db, entity).await;
                }
            }

            #[tokio::test]
            async fn transaction_put_stores_what_to_item_writes() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entity = case("c", b());
                db.transact_write().put(db.put(&entity)).send().await.unwrap();
                stored_as_written(&db, &entity).await;
            }

            #[tokio::test]
            async fn update_set_stores_what_to_item_writes() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                db.create(&case("c", a())).send().await.unwrap();
                db.update(key("c")).set(Case::fields().value, b()).send().await.unwrap();
                let expected = case("c", b());
                stored_as_written(&db, &expected).await;
                let read = db.get(key("c")).send().await.unwrap().unwrap();
                assert_eq!(read, expected);
            }

            #[tokio::test]
            async fn reads_return_the_value() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entity = case("c", a());
                db.create(&entity).send().await.unwrap();
                assert_eq!(db.get(key("c")).send().await.unwrap(), Some(entity.clone()));
                let queried = db.query(Case::by_id(&"c".to_string())).collect().await.unwrap();
                assert_eq!(queried, std::slice::from_ref(&entity));
                let projected = db
                    .query(Case::by_id(&"c".to_string()))
                    .project::<ValueOnly>()
                    .collect()
                    .await
                    .unwrap();
                assert_eq!(projected, [ValueOnly { value: a() }]);
                let partition = Case::pk(&"c".to_string()).unwrap();
                let collected = db.collection::<Any>(partition).collect().await.unwrap();
                assert_eq!(collected, [Any::Case(entity.clone())]);
                let mut record = ddb_runtime::stream::events::EventRecord::default();
                record.event_name = "INSERT".into();
                record.change.new_image = raw_of(&db, &entity).await.into();
                let change = ddb_runtime::stream::decode_record::<Any>(&record).unwrap();
                assert_eq!(
                    change.new,
                    Some(ddb_runtime::stream::Image::Known(Any::Case(entity)))
                );
            }

            #[tokio::test]
            async fn conditions_match_exactly_the_stored_value() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                db.create(&case("c", a())).send().await.unwrap();
                let value = Case::fields().value;
                let tick = Case::fields().tick;
                let holds = |condition| {
                    let db = db.clone();
                    async move {
                        match db.update(key("c")).add(tick, 1u32).condition(condition).send().await {
                            Ok(_) => true,
                            Err(error) if error.is_condition_failed() => false,
                            Err(error) => panic!("{error}"),
                        }
                    }
                };
                assert!(holds(value.eq(a())).await, "eq the stored value");
                assert!(!holds(value.eq(b())).await, "eq another value");
                assert!(holds(value.ne(b())).await, "ne another value");
                assert!(!holds(value.ne(a())).await, "ne the stored value");
                assert!(holds(value.exists()).await, "exists");
                assert!(!holds(value.not_exists()).await, "not_exists");
            }

            #[tokio::test]
            async fn filters_keep_exactly_the_matching_items() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                db.create(&case("c", a())).send().await.unwrap();
                let value = Case::fields().value;
                assert_eq!(kept(&db, value.eq(a())).await, 1);
                assert_eq!(kept(&db, value.eq(b())).await, 0);
                assert_eq!(kept(&db, value.ne(b())).await, 1);
                assert_eq!(kept(&db, value.ne(a())).await, 0);
            }

            $(extra!($extra);)*
        }
    };
}

/// Operation groups only some forms allow.
macro_rules! extra {
    // `a < b` in the stored form: lt, between.
    (ordered) => {
        #[tokio::test]
        async fn ordered_comparisons_follow_the_stored_order() {
            counted();
            let db = ddb_tests::db_with_table::<Matrix>().await;
            db.create(&case("c", a())).send().await.unwrap();
            let value = Case::fields().value;
            assert_eq!(kept(&db, value.lt(b())).await, 1, "a < b");
            assert_eq!(kept(&db, value.lt(a())).await, 0, "not a < a");
            assert_eq!(kept(&db, value.ge(a())).await, 1, "a >= a");
            assert_eq!(kept(&db, value.gt(a())).await, 0, "not a > a");
            assert_eq!(kept(&db, value.between(a(), b())).await, 1, "a in [a, b]");
            assert_eq!(
                kept(&db, value.between(b(), b())).await,
                0,
                "a not in [b, b]"
            );
        }
    };
    // Stored as a string: begins_with on its first character.
    (string) => {
        #[tokio::test]
        async fn begins_with_reads_the_stored_string() {
            counted();
            let db = ddb_tests::db_with_table::<Matrix>().await;
            let entity = case("c", a());
            db.create(&entity).send().await.unwrap();
            let stored = entity.to_item().unwrap()["value"].as_s().unwrap().clone();
            let value = Case::fields().value;
            assert_eq!(kept(&db, value.begins_with(&stored[..1])).await, 1);
            assert_eq!(kept(&db, value.begins_with(&format!("{stored}~"))).await, 0);
        }
    };
    // An `Option`: `remove` and `set(None)` store what to_item writes for
    // `None` (a NULL, or no attribute with skip_serializing_if).
    (optional) => {
        #[tokio::test]
        async fn update_to_none_stores_what_to_item_writes() {
            counted();
            let db = ddb_tests::db_with_table::<Matrix>().await;
            db.create(&case("c", a())).send().await.unwrap();
            db.update(key("c"))
                .remove(Case::fields().value)
                .send()
                .await
                .unwrap();
            let read = db.get(key("c")).send().await.unwrap().unwrap();
            assert_eq!(read.value, None);
            stored_as_written(&db, &read).await;
            db.update(key("c"))
                .set(Case::fields().value, b())
                .send()
                .await
                .unwrap();
            db.update(key("c"))
                .set(Case::fields().value, None)
                .send()
                .await
                .unwrap();
            let read = db.get(key("c")).send().await.unwrap().unwrap();
            assert_eq!(read.value, None);
            stored_as_written(&db, &read).await;
        }
    };
    // A list: append extends what to_item wrote.
    (list) => {
        #[tokio::test]
        async fn update_append_extends_the_stored_list() {
            counted();
            let db = ddb_tests::db_with_table::<Matrix>().await;
            db.create(&case("c", a())).send().await.unwrap();
            db.update(key("c"))
                .append(Case::fields().value, b())
                .send()
                .await
                .unwrap();
            let mut expected = a();
            expected.extend(b());
            let expected = case("c", expected);
            stored_as_written(&db, &expected).await;
            assert_eq!(db.get(key("c")).send().await.unwrap(), Some(expected));
        }
    };
    // A DynamoDB set or a number: ADD.
    (addable) => {
        #[tokio::test]
        async fn update_add_keeps_the_stored_form() {
            counted();
            let db = ddb_tests::db_with_table::<Matrix>().await;
            db.create(&case("c", a())).send().await.unwrap();
            db.update(key("c"))
                .add(Case::fields().value, b())
                .send()
                .await
                .unwrap();
            let read = db.get(key("c")).send().await.unwrap().unwrap();
            stored_as_written(&db, &read).await;
        }
    };
    // A Rust set stored as a list: ADD is refused before sending, since it
    // would turn the list into a DynamoDB set.
    (list_set) => {
        #[tokio::test]
        async fn update_add_on_a_set_stored_as_a_list_is_refused() {
            counted();
            let db = ddb_tests::db_with_table::<Matrix>().await;
            db.create(&case("c", a())).send().await.unwrap();
            let refused = db
                .update(key("c"))
                .add(Case::fields().value, b())
                .send()
                .await;
            assert!(
                matches!(refused, Err(Error::InvalidUpdate { .. })),
                "{refused:?}"
            );
            stored_as_written(&db, &case("c", a())).await;
        }
    };
}

form!(string: String = "alpha".into(), "beta".into(); ordered; string);
form!(u8_number: u8 = 1, 200; ordered; addable);
form!(i32_negative: i32 = -5, 7; ordered; addable);
form!(i64_number: i64 = -9_000_000_000, 42; ordered; addable);
form!(u64_number: u64 = 3, u64::MAX - 7; ordered);
form!(f64_number: f64 = -1.5, 2.25; ordered; addable);
form!(boolean: bool = false, true);
form!(option_string: Option<String> = Some("alpha".into()), Some("beta".into()); ordered; optional);
form!(option_u32: Option<u32> = Some(4), Some(40); ordered; optional);
form!(option_bool: Option<bool> = Some(true), Some(false); optional);
form!(option_f64: Option<f64> = Some(0.5), Some(1.5); ordered; optional);
form!(newtype: Sku = Sku("A-1".into()), Sku("B-2".into()); ordered; string);
form!(unit_enum: Color = Color::DeepRed, Color::Green; ordered; string);
form!(renamed_enum: Size = Size::Small, Size::ExtraLarge; ordered; string);
form!(list_of_strings: Vec<String> = vec!["a".into()], vec!["b".into(), "c".into()]; list);
form!(list_of_numbers: Vec<u32> = vec![1, 2], vec![3]; list);
form!(set_as_list: BTreeSet<String> = ["a".to_string()].into(), ["b".to_string()].into(); list_set);
form!(string_set: BTreeSet<String>, #[serde(with = "serde_dynamo::string_set")] =
    ["a".to_string()].into(), ["b".to_string()].into(); addable);
form!(number_set: BTreeSet<u32>, #[serde(with = "serde_dynamo::number_set")] =
    [1].into(), [2, 3].into(); addable);
form!(hash_set_as_list: HashSet<u32> = [1].into(), [2].into(); list_set);
form!(hash_string_set: HashSet<String>, #[serde(with = "serde_dynamo::string_set")] =
    ["a".to_string()].into(), ["b".to_string()].into(); addable);
form!(map: BTreeMap<String, u32> = [("a".to_string(), 1)].into(), [("b".to_string(), 2)].into());
form!(nested_struct: Address =
    Address { city: "Lyon".into(), zip: 69001 }, Address { city: "Oslo".into(), zip: 150 });
form!(offset_date_time_default_serde: OffsetDateTime =
    datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC));
form!(offset_date_time_rfc3339: OffsetDateTime, #[serde(with = "time::serde::rfc3339")] =
    datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC); ordered; string);
form!(offset_date_time_rfc2822: OffsetDateTime, #[serde(with = "time::serde::rfc2822")] =
    datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC); string);
form!(offset_date_time_iso8601: OffsetDateTime, #[serde(with = "time::serde::iso8601")] =
    datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC); ordered; string);
form!(offset_date_time_timestamp: OffsetDateTime, #[serde(with = "time::serde::timestamp")] =
    datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC); ordered);
form!(offset_date_time_rfc3339_option: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")] =
    Some(datetime!(2026-06-01 08:00:00 UTC)), Some(datetime!(2026-09-10 08:12:44 UTC));
    ordered; optional);
form!(ddb_timestamp: ddb_runtime::Timestamp =
    ddb_runtime::Timestamp(datetime!(2026-06-01 08:00:00 UTC)),
    ddb_runtime::Timestamp(datetime!(2026-09-10 08:12:44 UTC)); ordered; string);
form!(chrono_utc: chrono::DateTime<chrono::Utc> =
    chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap(),
    chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap(); ordered; string);
form!(with_module_on_bytes: Vec<u8>, #[serde(with = "bytes")] = vec![1, 2, 3], vec![9]);
form!(serialize_with_and_deserialize_with: u32,
    #[serde(serialize_with = "write_decimal", deserialize_with = "read_decimal")] = 7, 1200;
    ordered; string);
form!(skip_serializing_if_none: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")] =
    Some("alpha".into()), Some("beta".into()); optional);
form!(serde_default: u32, #[serde(default)] = 5, 6; ordered; addable);

/// One key-able form in the key roles: a primary key segment, and an index
/// key segment (with the value projected into that index), each compared
/// with `to_item` on the raw item after a create and an update.
macro_rules! keyed {
    ($case:ident: $ty:ty $(, #[$attr:meta])* = $a:expr, $b:expr) => {
        mod $case {
            #[allow(unused_imports)]
            use super::*;

            /// The field as a primary key segment.
            #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
            #[ddb(table = Matrix, entity = "Keyed", pk = "KEYED#{value}", sk = "KEYED")]
            pub struct Keyed {
                $(#[$attr])*
                pub value: $ty,
                pub tick: u32,
            }

            /// The field as an index key segment, projected into the index.
            #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
            #[ddb(table = Matrix, entity = "Indexed", pk = "INDEXED#{id}", sk = "INDEXED")]
            #[ddb(index(name = "GSI1", pk = "VALUE#{value}", sk = "{id}", query = "by_value"))]
            pub struct Indexed {
                pub id: String,
                $(#[$attr])*
                pub value: $ty,
            }

            #[derive(ddb_runtime::Projection, Debug, PartialEq)]
            #[ddb(entity = Indexed)]
            pub struct IndexedValue {
                pub value: $ty,
            }

            fn a() -> $ty {
                $a
            }

            fn b() -> $ty {
                $b
            }

            #[tokio::test]
            async fn as_a_primary_key_segment() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entity = Keyed { value: a(), tick: 0 };
                db.create(&entity).send().await.unwrap();
                let written = entity.to_item().unwrap();
                let stored = raw_of(&db, &entity).await;
                for attribute in ["PK", "SK", "value"] {
                    same_attribute(&stored, &written, attribute);
                }
                let key = Keyed::key(&a()).unwrap();
                assert_eq!(Keyed::parse_key(&key).unwrap().0, a());
                assert_eq!(db.get(key.clone()).send().await.unwrap(), Some(entity));
                let value = Keyed::fields().value;
                db.update(key.clone())
                    .add(Keyed::fields().tick, 1u32)
                    .condition(value.eq(a()))
                    .send()
                    .await
                    .unwrap();
                let refused = db
                    .update(key)
                    .add(Keyed::fields().tick, 1u32)
                    .condition(value.eq(b()))
                    .send()
                    .await;
                assert!(matches!(refused, Err(Error::ConditionFailed { .. })), "{refused:?}");
            }

            #[tokio::test]
            async fn as_an_index_key_segment_that_an_update_changes() {
                counted();
                let db = ddb_tests::db_with_table::<Matrix>().await;
                let entity = Indexed { id: "i".into(), value: a() };
                db.create(&entity).send().await.unwrap();
                let key = Indexed::key(&"i".to_string()).unwrap();
                db.update(key).set(Indexed::fields().value, b()).send().await.unwrap();
                let expected = Indexed { id: "i".into(), value: b() };
                let stored = raw_of(&db, &expected).await;
                let written = expected.to_item().unwrap();
                for attribute in ["GSI1PK", "GSI1SK", "value"] {
                    same_attribute(&stored, &written, attribute);
                }
                let found = db.query(Indexed::by_value(&b())).hydrate().collect().await.unwrap();
                assert_eq!(found, [expected]);
                assert!(db.query(Indexed::by_value(&a())).hydrate().collect().await.unwrap().is_empty());
                let projected = db
                    .query(Indexed::by_value(&b()))
                    .project::<IndexedValue>()
                    .collect()
                    .await
                    .unwrap();
                assert_eq!(projected, [IndexedValue { value: b() }]);
            }
        }
    };
}

mod keyed {
    use super::*;

    keyed!(string: String = "alpha".into(), "be#ta".into());
    keyed!(u32_number: u32 = 9, 10);
    keyed!(i64_negative: i64 = -12, 3);
    keyed!(newtype: Sku = Sku("A-1".into()), Sku("B$2".into()));
    keyed!(unit_enum: Color = Color::DeepRed, Color::Green);
    keyed!(renamed_enum: Size = Size::Small, Size::ExtraLarge);
    keyed!(ddb_timestamp: ddb_runtime::Timestamp =
        ddb_runtime::Timestamp(datetime!(2026-06-01 08:00:00 UTC)),
        ddb_runtime::Timestamp(datetime!(2026-09-10 08:12:44 UTC)));
    keyed!(offset_date_time_rfc3339: OffsetDateTime, #[serde(with = "time::serde::rfc3339")] =
        datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC));
    keyed!(offset_date_time_default_serde: OffsetDateTime =
        datetime!(2026-06-01 08:00:00 UTC), datetime!(2026-09-10 08:12:44 UTC));
    keyed!(chrono_utc: chrono::DateTime<chrono::Utc> =
        chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap(),
        chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap());
}

#[derive(Table)]
#[ddb(name = "MatrixByValue", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByValue", pk("value"), sk("rank: N")))]
pub struct MatrixByValue;

/// A field of a native multi-attribute index key: stored as its own
/// attribute, in its key form, queried by it.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = MatrixByValue, entity = "ByValue", pk = "BYVALUE#{id}", sk = "BYVALUE")]
#[ddb(index(name = "ByValue", pk(value), sk(rank), query = "by_value"))]
struct ByValue {
    id: String,
    value: Color,
    rank: i32,
}

#[tokio::test]
async fn multi_attribute_key_fields_are_stored_and_queried_in_their_key_form() {
    counted();
    let db = ddb_tests::db_with_table::<MatrixByValue>().await;
    let entity = ByValue {
        id: "v".into(),
        value: Color::DeepRed,
        rank: -4,
    };
    db.create(&entity).send().await.unwrap();
    let key = ByValue::key(&"v".to_string()).unwrap();
    db.update(key)
        .set(ByValue::fields().value, Color::Green)
        .set(ByValue::fields().rank, 7)
        .send()
        .await
        .unwrap();
    let expected = ByValue {
        value: Color::Green,
        rank: 7,
        ..entity
    };
    let stored = raw_of(&db, &expected).await;
    assert_eq!(stored, expected.to_item().unwrap());
    let found = db
        .query(ByValue::by_value(&Color::Green))
        .hydrate()
        .collect()
        .await
        .unwrap();
    assert_eq!(found, [expected]);
}

/// A sparse index's membership input: entering and leaving by update, and
/// the fields ddb writes itself (version, time to live, stamps): the raw
/// item is always what `to_item` writes for the item read back.
#[derive(Table)]
#[ddb(name = "MatrixSparse", pk = "PK", sk = "SK", ttl = "expires")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct MatrixSparse;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = MatrixSparse, entity = "Member", pk = "MEMBER#{id}", sk = "MEMBER")]
#[ddb(index(name = "GSI1", pk = "COLOR#{color}", sk = "{id}", when(color = Color::Green)))]
struct Member {
    id: String,
    color: Color,
    #[ddb(version)]
    version: u64,
    #[ddb(ttl)]
    expires: Option<u64>,
    #[ddb(created_at)]
    created: ddb_runtime::Timestamp,
    #[ddb(updated_at)]
    updated: ddb_runtime::Timestamp,
}

#[tokio::test]
async fn membership_inputs_and_fields_ddb_writes_are_stored_as_to_item_writes_them() {
    counted();
    let db = ddb_tests::db_with_table::<MatrixSparse>().await;
    let start = ddb_runtime::Timestamp(datetime!(2026-01-01 00:00:00 UTC));
    let member = Member {
        id: "m".into(),
        color: Color::DeepRed,
        version: 0,
        expires: Some(4_102_444_800),
        created: start,
        updated: start,
    };
    db.create(&member).send().await.unwrap();
    let key = Member::key(&"m".to_string()).unwrap();
    for color in [Color::Green, Color::DeepRed, Color::Green] {
        db.update(key.clone())
            .set(Member::fields().color, color)
            .send()
            .await
            .unwrap();
        let read = db.get(key.clone()).send().await.unwrap().unwrap();
        assert_eq!(read.color, color);
        let stored = raw_of(&db, &read).await;
        assert_eq!(stored, read.to_item().unwrap(), "after setting {color:?}");
        assert_eq!(stored.contains_key("GSI1PK"), color == Color::Green);
    }
}

/// `rename_all` on the entity and `rename` on a field: every path uses the
/// serde name.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Matrix, entity = "Renamed", pk = "RENAMED#{item_id}", sk = "RENAMED", query = "by_item")]
#[serde(rename_all = "camelCase")]
struct Renamed {
    item_id: String,
    total_cents: u64,
    #[serde(rename = "Label")]
    label_text: String,
}

#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Renamed)]
#[serde(rename_all = "camelCase")]
struct RenamedTotal {
    total_cents: u64,
    #[serde(rename = "Label")]
    label_text: String,
}

#[tokio::test]
async fn renamed_attributes_are_written_compared_and_read_by_their_serde_name() {
    counted();
    let db = ddb_tests::db_with_table::<Matrix>().await;
    let entity = Renamed {
        item_id: "r".into(),
        total_cents: 5,
        label_text: "old".into(),
    };
    db.create(&entity).send().await.unwrap();
    let fields = Renamed::fields();
    let key = Renamed::key(&"r".to_string()).unwrap();
    db.update(key.clone())
        .set(fields.label_text, "new")
        .condition(fields.total_cents.eq(5u64) & fields.label_text.eq("old"))
        .send()
        .await
        .unwrap();
    let expected = Renamed {
        label_text: "new".into(),
        ..entity
    };
    let stored = raw_of(&db, &expected).await;
    let written = expected.to_item().unwrap();
    for attribute in ["itemId", "totalCents", "Label"] {
        same_attribute(&stored, &written, attribute);
    }
    let filtered = db
        .query(Renamed::by_item(&"r".to_string()))
        .filter(fields.label_text.begins_with("ne"))
        .project::<RenamedTotal>()
        .collect()
        .await
        .unwrap();
    assert_eq!(
        filtered,
        [RenamedTotal {
            total_cents: 5,
            label_text: "new".into()
        }]
    );
}

/// The size of the matrix, printed with the suite's output (run with
/// `--nocapture` to see it): the forms times the operations each allows.
#[test]
fn matrix_size() {
    let raw = include_str!("encoding.rs");
    let forms = raw.matches("\nform!(").count();
    // The invocations, on one line each group: `...; ordered; string);`.
    let invocations = raw[raw.find("\nform!(").unwrap_or(0)..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let base = 8;
    let extras: usize = [
        "ordered", "string", "optional", "list", "addable", "list_set",
    ]
    .iter()
    .map(|group| {
        invocations.matches(&format!("; {group};")).count()
            + invocations.matches(&format!("; {group})")).count()
    })
    .sum();
    let keyed = raw.matches("\n    keyed!(").count();
    println!(
        "encoding matrix: {forms} field forms, {} combinations of form and operation, \
         {keyed} key-able forms in 2 key roles, and 4 declarations of other roles",
        forms * base + extras,
    );
    assert!(forms >= 30, "the matrix covers every field form");
}

/// `#[serde(default)]` on the entity: a stored item without a field reads
/// the container's default on every path, projections included.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[ddb(table = Matrix, entity = "Defaulted", pk = "DEFAULTED#{id}", sk = "DEFAULTED", query = "by_id")]
#[serde(default)]
struct Defaulted {
    id: String,
    count: u32,
}

#[derive(ddb_runtime::Projection, Debug, PartialEq)]
#[ddb(entity = Defaulted)]
struct DefaultedCount {
    count: u32,
}

#[tokio::test]
async fn a_missing_field_reads_the_container_default_on_every_path() {
    counted();
    let db = ddb_tests::db_with_table::<Matrix>().await;
    let entity = Defaulted {
        id: "d".into(),
        count: 0,
    };
    let mut item = entity.to_item().unwrap();
    item.remove("count");
    db.client()
        .put_item()
        .table_name(db.table_name::<Matrix>())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
    let key = Defaulted::key(&"d".to_string()).unwrap();
    assert_eq!(db.get(key).send().await.unwrap(), Some(entity));
    let projected = db
        .query(Defaulted::by_id(&"d".to_string()))
        .project::<DefaultedCount>()
        .collect()
        .await
        .unwrap();
    assert_eq!(projected, [DefaultedCount { count: 0 }]);
}
