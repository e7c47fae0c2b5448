//! Time to live: creating a table turns it on; expired items, stored until
//! DynamoDB deletes them, are left out of every read unless asked for and are
//! not brought back by an update; a create, or a put expecting no item, takes
//! their place; a time to live far in the past is never expired.

use ddb_runtime::{Entity, Error, Table};
use serde::{Deserialize, Serialize};

use crate::fixtures::{Session, Sessions};

#[derive(Table)]
#[ddb(name = "Leases", pk = "PK", ttl = "expiresAt")]
struct Leases;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Leases, entity = "Lease", pk = "LEASE#{name}")]
struct Lease {
    name: String,
    holder: String,
    #[ddb(ttl)]
    expires_at: u64,
}

fn epoch_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Creating the table of an entity with a `#[ddb(ttl)]` field turns on the
/// table's time to live on that attribute, and the access-pattern report says
/// so.
#[tokio::test]
async fn creating_the_table_enables_its_time_to_live() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let ttl = db
        .client()
        .describe_time_to_live()
        .table_name(db.table_name::<Leases>())
        .send()
        .await
        .unwrap()
        .time_to_live_description
        .unwrap();
    assert_eq!(ttl.attribute_name(), Some("expiresAt"));
    assert!(
        matches!(
            ttl.time_to_live_status().map(|s| s.as_str()),
            Some("ENABLED" | "ENABLING")
        ),
        "{ttl:?}"
    );
    let report = ddb_tools::access_pattern_report(&[&Lease::SCHEMA]);
    assert!(report.contains("time to live `expiresAt`"), "{report}");
}

#[tokio::test]
async fn expired_items_are_left_out_until_asked_for() {
    let db = ddb_tests::db_with_table::<Sessions>().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let session = |id: &str, expires: Option<u64>| Session {
        id: id.into(),
        user: "ada".into(),
        created: None,
        updated: 0,
        expires,
    };
    db.create(&session("old", Some(now - 60)))
        .send()
        .await
        .unwrap();
    db.create(&session("live", Some(now + 3600)))
        .send()
        .await
        .unwrap();
    db.create(&session("forever", None)).send().await.unwrap();
    let get = |id: &str| db.get(Session::key(&id.to_string()).unwrap());
    assert!(
        get("old").send().await.unwrap().is_none(),
        "expired, though still stored"
    );
    assert!(get("old")
        .include_expired(true)
        .send()
        .await
        .unwrap()
        .is_some());
    assert!(get("live").send().await.unwrap().is_some());
    assert!(get("forever").send().await.unwrap().is_some());
    let query = |id: &str| db.query(Session::session(&id.to_string()));
    assert!(query("old").collect().await.unwrap().is_empty());
    assert_eq!(
        query("old")
            .include_expired(true)
            .collect()
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(query("live").collect().await.unwrap().len(), 1);
    assert_eq!(query("forever").collect().await.unwrap().len(), 1);

    // An expired item is not brought back by an update.
    let fields = Session::fields();
    let revived = db
        .update(Session::key(&"old".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await;
    assert!(
        matches!(revived, Err(Error::NotFound { .. })),
        "{revived:?}"
    );
    db.update(Session::key(&"live".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await
        .unwrap();
    db.update(Session::key(&"forever".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await
        .unwrap();
}

/// The leases table as an item collection.
#[derive(ddb_runtime::Collection, Debug, PartialEq)]
enum LeaseItem {
    Lease(Lease),
}

/// Items past their time to live are left out of every read, not only GetItem
/// and Query: a batch get, a transaction's get and a collection leave them out
/// too (a collection returns them with `include_expired`).
#[tokio::test]
async fn expired_items_are_left_out_of_every_read() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let expired = Lease {
        name: "old".into(),
        holder: "a".into(),
        expires_at: epoch_now() - 60,
    };
    let live = Lease {
        name: "new".into(),
        holder: "b".into(),
        expires_at: epoch_now() + 600,
    };
    ddb_tests::put_raw(&db, &[expired.clone(), live.clone()]).await;
    let keys = vec![expired.primary_key().unwrap(), live.primary_key().unwrap()];
    assert_eq!(
        db.batch_get(keys.clone()).await.unwrap(),
        vec![live.clone()]
    );
    let read = db
        .transact_get()
        .get(keys[0].clone())
        .get(keys[1].clone())
        .send()
        .await
        .unwrap();
    assert_eq!(read.get::<Lease>(0).unwrap(), None);
    assert_eq!(read.get::<Lease>(1).unwrap(), Some(live.clone()));
    let partition = Lease::pk(&"old".to_owned()).unwrap();
    let items = db
        .collection::<LeaseItem>(partition.clone())
        .collect()
        .await
        .unwrap();
    assert_eq!(items, vec![]);
    let items = db
        .collection::<LeaseItem>(partition)
        .include_expired(true)
        .collect()
        .await
        .unwrap();
    assert_eq!(items, vec![LeaseItem::Lease(expired)]);
    let live_partition = Lease::pk(&"new".to_owned()).unwrap();
    let items = db
        .collection::<LeaseItem>(live_partition)
        .collect()
        .await
        .unwrap();
    assert_eq!(items, vec![LeaseItem::Lease(live)]);
}

#[derive(Table)]
#[ddb(name = "Tickets", pk = "PK", ttl = "expiresAt")]
#[ddb(index(name = "ByDesk", pk = "desk", sk = "id", projection = "keys_only"))]
struct Tickets;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Tickets, entity = "Ticket", pk = "TICKET#{id}")]
#[ddb(index(name = "ByDesk", pk = "{desk}", sk = "{id}", query = "at_desk"))]
struct Ticket {
    id: String,
    desk: String,
    #[ddb(ttl)]
    expires_at: u64,
}

/// A KEYS_ONLY index does not carry the time-to-live attribute, so the query
/// cannot filter expired items: `.hydrate()` leaves out the expired items it
/// reads from the table, unless `include_expired`.
#[tokio::test]
async fn a_hydrated_query_leaves_out_expired_items() {
    let db = ddb_tests::db_with_table::<Tickets>().await;
    let ticket = |id: &str, expires_at: u64| Ticket {
        id: id.into(),
        desk: "d1".into(),
        expires_at,
    };
    let (expired, live) = (
        ticket("t1", epoch_now() - 60),
        ticket("t2", epoch_now() + 600),
    );
    ddb_tests::put_raw(&db, &[expired.clone(), live.clone()]).await;
    let read = |include_expired: bool| {
        let query = db.query(Ticket::at_desk(&"d1".to_owned()));
        let query = if include_expired {
            query.include_expired(true)
        } else {
            query
        };
        query.hydrate().collect()
    };
    assert_eq!(read(false).await.unwrap(), vec![live.clone()]);
    assert_eq!(read(true).await.unwrap(), vec![expired, live]);
}

/// `create` at the key of an expired item (DynamoDB deletes it days later)
/// takes its place, as `get` already says there is nothing there; a live item
/// stays, and another create at its key is `AlreadyExists`.
#[tokio::test]
async fn create_replaces_an_expired_item() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let old = Lease {
        name: "leader".into(),
        holder: "a".into(),
        expires_at: epoch_now() - 60,
    };
    ddb_tests::put_raw(&db, std::slice::from_ref(&old)).await;
    let key = old.primary_key().unwrap();
    assert_eq!(db.get(key.clone()).send().await.unwrap(), None);
    let new = Lease {
        holder: "b".into(),
        expires_at: epoch_now() + 60,
        ..old
    };
    assert_eq!(
        db.create(&new).send().await.unwrap(),
        ddb_runtime::Created::Created
    );
    assert_eq!(db.get(key).send().await.unwrap(), Some(new.clone()));
    // A live item is still there to stay.
    let other = Lease {
        holder: "c".into(),
        ..new
    };
    assert!(matches!(
        db.create(&other).send().await,
        Err(Error::AlreadyExists { .. })
    ));
}

#[derive(Table)]
#[ddb(name = "Rentals", pk = "PK", ttl = "expiresAt")]
struct Rentals;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Rentals, entity = "Rental", pk = "RENTAL#{id}")]
struct Rental {
    id: String,
    #[ddb(version)]
    version: u64,
    #[ddb(ttl)]
    expires_at: u64,
}

/// A put that expects no item (version 0) takes the place of an expired
/// one, as a create does: every read already says there is none.
#[tokio::test]
async fn a_put_expecting_no_item_replaces_an_expired_one() {
    let db = ddb_tests::db_with_table::<Rentals>().await;
    let old = Rental {
        id: "r".into(),
        version: 3,
        expires_at: epoch_now() - 60,
    };
    ddb_tests::put_raw(&db, std::slice::from_ref(&old)).await;
    let new = Rental {
        id: "r".into(),
        version: 0,
        expires_at: epoch_now() + 60,
    };
    let written = db.put(&new).send().await.unwrap();
    assert_eq!(written.version, Some(1));
}

/// DynamoDB never deletes an item whose time to live is more than
/// five years in the past (a `0` meant as "never"): ddb does not treat it as
/// expired either, and a create does not replace it.
#[tokio::test]
async fn a_time_to_live_far_in_the_past_is_not_expired() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let never = Lease {
        name: "pinned".into(),
        holder: "a".into(),
        expires_at: 0,
    };
    db.create(&never).send().await.unwrap();
    let key = never.primary_key().unwrap();
    assert_eq!(db.get(key).send().await.unwrap(), Some(never.clone()));
    let other = Lease {
        holder: "b".into(),
        ..never
    };
    assert!(matches!(
        db.create(&other).send().await,
        Err(Error::AlreadyExists { .. })
    ));
}
