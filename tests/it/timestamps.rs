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
#[ddb(name = "Stamped", pk = "PK")]
struct Stamped;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stamped, entity = "Note", pk = "NOTE#{id}")]
struct Note {
    id: String,
    #[ddb(created_at)]
    created_at: u64,
    #[ddb(updated_at)]
    updated_at: u64,
}

/// `batch_put` keeps the `created_at` an entity carries, and stamps
/// `updated_at`.
#[tokio::test]
async fn batch_put_keeps_the_creation_time_an_entity_carries() {
    let db = ddb_tests::db_with_table::<Stamped>().await;
    let note = Note {
        id: "n1".into(),
        created_at: 1_700_000_000,
        updated_at: 1_700_000_000,
    };
    db.batch_put(std::slice::from_ref(&note)).await.unwrap();
    let stored: Note = db
        .get(note.primary_key().unwrap())
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.created_at, 1_700_000_000, "created_at kept");
    assert!(stored.updated_at > 1_700_000_000, "updated_at stamped");
}

#[derive(Table)]
#[ddb(name = "Visits", pk = "PK", sk = "SK")]
struct Visits;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Visits, entity = "Visit", pk = "PAGE#{page}", sk = "AT#{at}")]
struct Visit {
    page: String,
    at: ddb_runtime::Timestamp,
}

/// `Timestamp::now()` carries nanoseconds, which a key refuses; the error names
/// `Timestamp::now_in_seconds()`, a key-ready instant in one call.
#[tokio::test]
async fn a_key_ready_instant_is_one_call() {
    let db = ddb_tests::db_with_table::<Visits>().await;
    let now = Visit {
        page: "home".into(),
        at: ddb_runtime::Timestamp::now(),
    };
    if now.at.0.nanosecond() != 0 {
        let refused = db.create(&now).send().await;
        assert!(
            matches!(&refused, Err(e @ Error::InvalidKeySegment { .. }) if e.to_string().contains("Timestamp::now_in_seconds()")),
            "{refused:?}"
        );
    }
    let visit = Visit {
        page: "home".into(),
        at: ddb_runtime::Timestamp::now_in_seconds(),
    };
    db.create(&visit).send().await.unwrap();
    let stored = db.get(visit.primary_key().unwrap()).send().await.unwrap();
    assert_eq!(stored, Some(visit));
}

#[derive(Table)]
#[ddb(name = "Feeds", pk = "PK", sk = "SK")]
#[ddb(index(name = "Recent", pk = "RECENT_PK", sk = "RECENT_SK"))]
struct Feeds;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Feeds, entity = "Post", pk = "POST#{id}", sk = "POST")]
#[ddb(index(
    name = "Recent",
    pk = "FEED#{feed}",
    sk = "AT#{updated}#{id}",
    query = "recent"
))]
struct Post {
    id: String,
    feed: String,
    #[ddb(updated_at)]
    updated: ddb_runtime::Timestamp,
}

/// A `Timestamp` ddb stamps itself can be a key segment: stamps are whole
/// seconds, which a key takes.
#[tokio::test]
async fn a_stamped_timestamp_can_be_a_key() {
    let db = ddb_tests::db_with_table::<Feeds>().await;
    let post = Post {
        id: "p1".into(),
        feed: "news".into(),
        updated: ddb_runtime::Timestamp::now_in_seconds(),
    };
    db.create(&post).send().await.unwrap();
    let recent: Vec<Post> = db
        .query(Post::recent(&"news".to_string()))
        .collect()
        .await
        .unwrap();
    assert_eq!(recent.len(), 1);
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

/// An instant keyed in a sort key, for range queries.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Visits, entity = "Hit", pk = "HIT#{page}", sk = "AT#{at}", query = "hits")]
struct Hit {
    page: String,
    at: ddb_runtime::Timestamp,
}

/// `Timestamp` arithmetic gives instants keyed as any other: a range of
/// `t .. t + 1h` in a query finds what was written at `t + 30m`, and
/// order in the table is the instants' order.
#[tokio::test]
async fn instants_moved_by_durations_key_and_query_as_instants() {
    use time::Duration;
    let db = ddb_tests::db_with_table::<Visits>().await;
    let t = ddb_runtime::Timestamp::from(time::macros::datetime!(2026-09-10 08:12:44 UTC));
    let page = "home".to_string();
    let at = [
        t - Duration::minutes(1),
        t,
        t + Duration::minutes(30),
        t + std::time::Duration::from_secs(3_600),
        t + Duration::hours(2),
    ];
    for at in at.iter().rev() {
        let hit = Hit {
            page: page.clone(),
            at: *at,
        };
        db.create(&hit).send().await.unwrap();
    }
    let within: Vec<Hit> = db
        .query(Hit::hits(&page))
        .between(&t, &(t + Duration::hours(1)))
        .collect()
        .await
        .unwrap();
    let found: Vec<ddb_runtime::Timestamp> = within.iter().map(|h| h.at).collect();
    assert_eq!(
        found,
        at[1..4],
        "both ends inclusive, in the instants' order"
    );
    let all: Vec<Hit> = db.query(Hit::hits(&page)).collect().await.unwrap();
    let mut sorted = at;
    sorted.sort();
    assert_eq!(all.iter().map(|h| h.at).collect::<Vec<_>>(), sorted);
    assert_eq!(all[4].at - all[0].at, Duration::minutes(121));
}
