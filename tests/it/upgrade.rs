//! Upgrading: a renamed item keeps its former name, deprecated, for one
//! release, and the former name means the new item.

#![allow(deprecated)]

use crate::fixtures::{Counter, Counters};

/// `Db::transaction()` is `transact_write()`: the transaction it starts
/// writes.
#[tokio::test]
async fn the_former_transaction_starts_a_write_transaction() {
    let db = ddb_tests::db_with_table::<Counters>().await;
    let counter = Counter {
        name: "a".into(),
        value: 1,
        version: 0,
    };
    db.transaction().create(&counter).send().await.unwrap();
    let stored = db.get(Counter::key(&"a".to_string()).unwrap()).send().await;
    assert_eq!(stored.unwrap().map(|c| c.value), Some(1));
}

/// `model::Projection` is `model::IndexProjection`, variants included, and
/// `schema::Created` is `schema::TableCreated`.
#[test]
fn the_former_type_names_are_the_renamed_types() {
    use ddb_runtime::model::{IndexProjection, Projection};
    let projection: Projection = IndexProjection::KeysOnly;
    assert!(matches!(projection, Projection::KeysOnly));
    fn same(created: ddb_runtime::schema::Created) -> ddb_runtime::schema::TableCreated {
        created
    }
    let _ = same;
}
