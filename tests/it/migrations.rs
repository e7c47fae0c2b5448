//! Versioned entities. An item stored at an older schema version is
//! read through the migration chain into today's type; writes store today's
//! shape; the backfill upgrades every stored item, and moves those whose key
//! template changed.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Db, Entity, Error, Item, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
struct Accounts;

/// As first shipped: one `name`.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
struct UserV1 {
    id: String,
    name: String,
    #[ddb(version)]
    version: u64,
}

/// Today: version 2 split the name, version 3 added the country.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(schema_version = 3)]
#[ddb(migrate(from = 1, with = split_name), migrate(from = 2, with = add_country))]
struct User {
    id: String,
    first_name: String,
    last_name: String,
    country: String,
    #[ddb(version)]
    version: u64,
}

/// Tomorrow: the profile moves to another sort key.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "ACCOUNT")]
#[ddb(schema_version = 4)]
#[ddb(
    migrate(from = 1, with = split_name),
    migrate(from = 2, with = add_country),
    migrate(from = 3, with = unchanged)
)]
struct UserMoved {
    id: String,
    first_name: String,
    last_name: String,
    country: String,
    #[ddb(version)]
    version: u64,
}

fn split_name(item: &mut Item) -> Result<(), String> {
    let name = item
        .remove("name")
        .and_then(|v| v.as_s().ok().cloned())
        .ok_or("no name to split")?;
    let (first, last) = name.split_once(' ').unwrap_or((&name, "-"));
    item.insert("first_name".into(), AttributeValue::S(first.into()));
    item.insert("last_name".into(), AttributeValue::S(last.into()));
    Ok(())
}

fn add_country(item: &mut Item) -> Result<(), String> {
    item.entry("country".into())
        .or_insert_with(|| AttributeValue::S("unknown".into()));
    Ok(())
}

fn unchanged(_: &mut Item) -> Result<(), String> {
    Ok(())
}

async fn with_users(names: &[&str]) -> (Db, Db) {
    let old = ddb_tests::db_with_table::<Accounts>().await;
    for (i, name) in names.iter().enumerate() {
        old.create(&UserV1 {
            id: format!("u{i}"),
            name: (*name).into(),
            version: 0,
        })
        .send()
        .await
        .unwrap();
    }
    (old.clone(), old)
}

#[tokio::test]
async fn an_old_item_reads_as_today_and_is_written_in_todays_shape() {
    let (db, _) = with_users(&["Ada Lovelace", "Bob Babbage"]).await;
    let key = User::key(&"u0".to_string()).unwrap();
    let mut ada = db.get(key.clone()).send().await.unwrap().unwrap();
    assert_eq!(
        ada,
        User {
            id: "u0".into(),
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            country: "unknown".into(),
            version: 1,
        }
    );

    // A put writes today's shape, at today's version.
    ada.country = "UK".into();
    db.put(&ada).send().await.unwrap();
    let raw = ddb_tests::raw_item::<Accounts>(&db, key.to_item())
        .await
        .unwrap();
    assert_eq!(raw["_schema"], AttributeValue::N("3".into()));
    assert!(!raw.contains_key("name"));
    assert_eq!(raw["first_name"], AttributeValue::S("Ada".into()));

    // An update of an item still at version 1 would mix two shapes: refused,
    // and nothing written.
    let bob = User::key(&"u1".to_string()).unwrap();
    let refused = db
        .update(bob.clone())
        .set(User::fields().country, "FR".to_string())
        .send()
        .await;
    assert!(
        matches!(refused, Err(Error::Migration { from: 1, .. })),
        "{refused:?}"
    );
    let raw = ddb_tests::raw_item::<Accounts>(&db, bob.to_item())
        .await
        .unwrap();
    assert!(!raw.contains_key("country"));
    // Once written in today's shape, it updates.
    let current = db.get(bob.clone()).send().await.unwrap().unwrap();
    db.put(&current).send().await.unwrap();
    db.update(bob)
        .set(User::fields().country, "FR".to_string())
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn an_item_a_migration_cannot_take_or_from_newer_code_is_a_typed_error() {
    let (db, _) = with_users(&["Ada Lovelace"]).await;
    let table = db.table_name::<Accounts>().to_owned();
    let mut newer = User {
        id: "n".into(),
        first_name: "N".into(),
        last_name: "N".into(),
        country: "X".into(),
        version: 1,
    }
    .to_item()
    .unwrap();
    newer.insert("_schema".into(), AttributeValue::N("9".into()));
    let mut nameless = UserV1 {
        id: "x".into(),
        name: "X".into(),
        version: 1,
    }
    .to_item()
    .unwrap();
    nameless.remove("name");
    for item in [newer, nameless] {
        db.client()
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let newer = db.get(User::key(&"n".to_string()).unwrap()).send().await;
    assert!(
        matches!(&newer, Err(Error::Migration { from: 9, reason, .. }) if reason.contains("newer")),
        "{newer:?}"
    );
    let nameless = db.get(User::key(&"x".to_string()).unwrap()).send().await;
    assert!(
        matches!(&nameless, Err(Error::Migration { from: 1, reason, .. }) if reason == "no name to split"),
        "{nameless:?}"
    );
}

#[tokio::test]
async fn the_backfill_upgrades_every_item_and_moves_those_whose_key_changed() {
    let names: Vec<String> = (0..120).map(|i| format!("User {i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (db, _) = with_users(&names).await;

    let upgraded = db.backfill::<User>().segments(2).send().await.unwrap();
    assert_eq!((upgraded.matched, upgraded.updated), (120, 120));
    let items = ddb_tests::scan_raw::<Accounts>(&db).await;
    assert_eq!(items.len(), 120);
    for item in &items {
        assert_eq!(item["_schema"], AttributeValue::N("3".into()), "{item:?}");
        assert!(!item.contains_key("name"));
        assert_eq!(item["country"], AttributeValue::S("unknown".into()));
    }
    let again = db.backfill::<User>().send().await.unwrap();
    assert_eq!(again.updated, 0, "already at today's version");

    // The key template changed: each item moves (old key deleted, new key
    // created, in one transaction).
    let moved = db.backfill::<UserMoved>().segments(2).send().await.unwrap();
    assert_eq!(moved.updated, 120, "{moved:?}");
    let items = ddb_tests::scan_raw::<Accounts>(&db).await;
    assert_eq!(items.len(), 120, "moved, not copied");
    assert!(items
        .iter()
        .all(|i| i["SK"] == AttributeValue::S("ACCOUNT".into())
            && i["_schema"] == AttributeValue::N("4".into())));
    let found = db
        .get(UserMoved::key(&"u7".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.first_name.as_str(), found.last_name.as_str()),
        ("User", "7")
    );
    assert!(db
        .get(User::key(&"u7".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .is_none());
}

/// What each request of `target` asked for as its consumed capacity.
fn capacity_asked(proxy: &ddb_tests::proxy::Proxy, target: &str) -> Vec<Option<serde_json::Value>> {
    ddb_tests::recorded_field(proxy, target, "ReturnConsumedCapacity")
}

/// `backfill`, held to a capacity rate when `paced`.
fn held<E: Entity + Send + Sync + 'static>(
    backfill: ddb_runtime::schema::Backfill<E>,
    paced: bool,
) -> ddb_runtime::schema::Backfill<E> {
    match paced {
        true => backfill.capacity_per_second(10_000.0),
        false => backfill,
    }
}

/// An upgrade's PutItems and a move's transactions ask DynamoDB for their
/// capacity only when the backfill paces by it.
#[tokio::test]
async fn upgrades_and_moves_ask_for_capacity_only_to_pace_by_it() {
    for paced in [false, true] {
        let (db, _) = with_users(&["Ada Lovelace", "Alan Turing", "Grace Hopper"]).await;
        let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
        proxy.record("PutItem");
        proxy.record("TransactWriteItems");
        let upgraded = held(through.backfill::<User>(), paced).send().await;
        let moved = held(through.backfill::<UserMoved>(), paced).send().await;
        let (upgraded, moved) = (upgraded.unwrap(), moved.unwrap());
        assert_eq!((upgraded.updated, moved.updated), (3, 3));
        let expected = vec![paced.then(|| serde_json::json!("INDEXES")); 3];
        assert_eq!(capacity_asked(&proxy, "PutItem"), expected);
        assert_eq!(capacity_asked(&proxy, "TransactWriteItems"), expected);
    }
}

/// What the first name of a user is, read through a projection.
#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = User)]
struct FirstName {
    first_name: String,
}

/// A projection cannot migrate part of an item, and
/// code without a schema version must refuse items written by newer code.
#[tokio::test]
async fn projections_and_older_code_refuse_items_at_another_version() {
    let (db, _) = with_users(&["Ada Lovelace"]).await;
    let key = User::key(&"u0".to_string()).unwrap();
    let projected = db.get(key.clone()).project::<FirstName>().send().await;
    assert!(
        matches!(projected, Err(Error::Migration { from: 1, .. })),
        "{projected:?}"
    );
    // Written in today's shape, it projects.
    let ada = db.get(key.clone()).send().await.unwrap().unwrap();
    db.put(&ada).send().await.unwrap();
    let projected = db.get(key.clone()).project::<FirstName>().send().await;
    assert_eq!(
        projected.unwrap(),
        Some(FirstName {
            first_name: "Ada".into()
        })
    );
    // The first version's code meets an item written at version 3.
    let old_key = UserV1::key(&"u0".to_string()).unwrap();
    let read = db.get(old_key.clone()).send().await;
    assert!(
        matches!(&read, Err(Error::Migration { from: 3, reason, .. }) if reason.contains("newer")),
        "{read:?}"
    );
    let updated = db
        .update(old_key)
        .set(UserV1::fields().name, "Ada".to_string())
        .send()
        .await;
    assert!(
        matches!(&updated, Err(Error::Migration { from: 3, .. })),
        "{updated:?}"
    );
}

/// The schema version is never removed: an item without it reads as
/// version 1, and would be migrated from a shape it no longer has.
#[tokio::test]
async fn a_backfill_never_removes_the_schema_version() {
    let (db, _) = with_users(&[]).await;
    let user = User {
        id: "u1".into(),
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
        country: "UK".into(),
        version: 0,
    };
    db.create(&user).send().await.unwrap();
    let refused = db
        .backfill::<User>()
        .remove_attributes(["_schema"])
        .send()
        .await;
    assert!(
        matches!(&refused, Err(Error::InvalidRequest { reason, .. }) if reason.contains("schema version")),
        "{refused:?}"
    );
    let key = User::key(&"u1".to_string()).unwrap();
    let raw = ddb_tests::raw_item::<Accounts>(&db, key.to_item())
        .await
        .unwrap();
    assert_eq!(raw["_schema"], AttributeValue::N("3".into()));
}
