//! The times ddb keeps itself, and instants in keys: `created_at` set once
//! and kept, `updated_at` moved on every write, stamps in whole seconds that
//! a key takes, and `chrono` instants keyed, sorted and stamped as `time`'s
//! are.

use ddb_runtime::{Created, Entity, Error, Table};
use serde::{Deserialize, Serialize};

use crate::fixtures::{Session, Sessions};

#[tokio::test]
async fn the_library_keeps_created_and_updated_times() {
    let db = ddb_tests::db_with_table::<Sessions>().await;
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let session = Session {
        id: "s1".into(),
        user: "ada".into(),
        created: None,
        updated: 0,
        expires: Some(before + 3600),
    };
    db.create(&session).send().await.unwrap();
    // A retried create is still the same item, whatever the clock says now.
    assert_eq!(
        db.create(&session).send().await.unwrap(),
        Created::AlreadyExisted
    );
    let key = Session::key(&"s1".to_string()).unwrap();
    let stored = db.get(key.clone()).send().await.unwrap().unwrap();
    let created = stored.created.expect("created_at set by create");
    assert!(created.0.unix_timestamp() as u64 >= before);
    assert!(stored.updated >= before);

    let raw = db
        .client()
        .get_item()
        .table_name(db.table_name::<Sessions>())
        .set_key(Some(key.to_item()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert!(
        raw["expires"].as_n().is_ok(),
        "ttl is stored as a Number of epoch seconds"
    );

    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let fields = Session::fields();
    db.update(key.clone())
        .set(fields.user, "grace")
        .send()
        .await
        .unwrap();
    let updated = db.get(key).send().await.unwrap().unwrap();
    assert_eq!(
        updated.created,
        Some(created),
        "created_at is never overwritten by an update"
    );
    assert!(
        updated.updated > stored.updated,
        "updated_at moves on every write"
    );

    // A put of the loaded entity keeps its creation time; a put of a new
    // entity without one gets the time of that write.
    db.put(&updated).send().await.unwrap();
    let key = Session::key(&"s1".to_string()).unwrap();
    assert_eq!(
        db.get(key).send().await.unwrap().unwrap().created,
        Some(created)
    );
    let fresh = Session {
        id: "s2".into(),
        ..session
    };
    db.put(&fresh).send().await.unwrap();
    let stored = db
        .get(Session::key(&"s2".to_string()).unwrap())
        .send()
        .await
        .unwrap()
        .unwrap();
    assert!(stored.created.is_some());
}

#[derive(Table)]
#[ddb(name = "Events", pk = "PK", sk = "SK")]
struct Events;

/// An entity on `chrono::DateTime<Utc>`, keyed and stamped as one on
/// `time` is.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Events, entity = "Event", pk = "STREAM#{stream}", sk = "AT#{at}#{id}", query = "in_stream")]
struct Event {
    stream: String,
    at: chrono::DateTime<chrono::Utc>,
    id: String,
    #[ddb(created_at)]
    created: Option<chrono::DateTime<chrono::Utc>>,
}

#[tokio::test]
async fn chrono_instants_key_sort_and_stamp_like_time() {
    let db = ddb_tests::db_with_table::<Events>().await;
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc();
    let event = |when: &str, id: &str| Event {
        stream: "s".into(),
        at: at(when),
        id: id.into(),
        created: None,
    };
    for (when, id) in [
        ("2026-10-02T14:31:07Z", "b"),
        ("1969-07-20T20:17:40Z", "a"),
        ("2026-10-02T16:31:07+02:00", "c"),
    ] {
        db.create(&event(when, id)).send().await.unwrap();
    }
    let read = db
        .query(Event::in_stream(&"s".to_string()))
        .collect()
        .await
        .unwrap();
    let ids: Vec<&str> = read.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"], "ordered by instant");
    let key = Event::key(
        &"s".to_string(),
        &at("2026-10-02T14:31:07Z"),
        &"b".to_string(),
    )
    .unwrap();
    assert_eq!(
        key.sk().unwrap().as_str(),
        "AT#2026-10-02T14:31:07Z#b",
        "the same text as time::OffsetDateTime"
    );
    let stored = &read[1];
    let created = stored.created.expect("stamped by create");
    assert_eq!(chrono::Timelike::nanosecond(&created), 0, "whole seconds");
    // A fraction of a second is refused, never truncated.
    let fractional = db
        .create(&event("2026-10-02T14:31:07.5Z", "d"))
        .send()
        .await;
    assert!(
        matches!(fractional, Err(Error::InvalidKeySegment { .. })),
        "{fractional:?}"
    );
}
