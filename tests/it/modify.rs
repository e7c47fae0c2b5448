//! Read-modify-write with `Db::modify`: the item read, changed by a
//! closure, put back conditioned on every field the closure saw, and read
//! again on a conflict; a lost answer is returned, never sent again.

use std::sync::Arc;

use ddb_runtime::{Db, Entity, Error, Table};
use ddb_tests::proxy::Fault;
use serde::{Deserialize, Serialize};

use crate::fixtures::{Counter, Counters};

#[derive(Table)]
#[ddb(name = "Support", pk = "PK", sk = "SK")]
struct Support;

/// An entity without a version: its put is conditioned on every field read.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Support, entity = "Ticket", pk = "TICKET#{id}", sk = "TICKET")]
struct Ticket {
    id: String,
    agent: Option<String>,
    notes: Vec<String>,
}

fn ticket(id: &str) -> Ticket {
    Ticket {
        id: id.into(),
        agent: None,
        notes: Vec::new(),
    }
}

async fn stored(db: &Db, id: &str) -> Ticket {
    let key = Ticket::key(&id.to_string()).unwrap();
    db.get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn a_modification_reads_changes_and_writes_the_item() {
    let db = ddb_tests::db_with_table::<Support>().await;
    db.create(&ticket("T1")).send().await.unwrap();
    let key = Ticket::key(&"T1".to_string()).unwrap();
    let modified = db
        .modify(key, |t: &mut Ticket| {
            t.agent = Some("ada".into());
            t.notes.push("assigned".into());
        })
        .send()
        .await
        .unwrap();
    assert_eq!(modified.conflicts, 0);
    assert_eq!(modified.item.agent.as_deref(), Some("ada"));
    assert_eq!(stored(&db, "T1").await, modified.item);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_writers_land_every_change_exactly_once() {
    ddb_tests::requires!(AtomicConditionalWrites);
    let db = ddb_tests::db_with_table::<Support>().await;
    db.create(&ticket("T2")).send().await.unwrap();
    // `DDB_STRESS=large`: 100 changes per writer.
    let large = std::env::var("DDB_STRESS").is_ok_and(|v| v == "large");
    let per_task = if large { 100 } else { 10 };
    let conflicts = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let tasks: Vec<_> = (0..8)
        .map(|task| {
            let db = db.clone();
            let conflicts = conflicts.clone();
            tokio::spawn(async move {
                for n in 0..per_task {
                    let key = Ticket::key(&"T2".to_string()).unwrap();
                    let note = format!("{task}-{n}");
                    let modified = db
                        .modify(key, |t: &mut Ticket| t.notes.push(note.clone()))
                        .attempts(200)
                        .send()
                        .await
                        .unwrap();
                    conflicts.fetch_add(modified.conflicts, std::sync::atomic::Ordering::Relaxed);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    // The raw table: one item, every note once.
    let items = ddb_tests::scan_raw::<Support>(&db).await;
    assert_eq!(items.len(), 1);
    let mut notes = stored(&db, "T2").await.notes;
    notes.sort();
    let mut expected: Vec<String> = (0..8)
        .flat_map(|task| (0..per_task).map(move |n| format!("{task}-{n}")))
        .collect();
    expected.sort();
    assert_eq!(notes, expected, "every change landed exactly once");
    assert!(
        conflicts.load(std::sync::atomic::Ordering::Relaxed) > 0,
        "the writers did race"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_writers_of_a_versioned_item_land_every_increment() {
    ddb_tests::requires!(AtomicConditionalWrites);
    let db = ddb_tests::db_with_table::<Counters>().await;
    let start = Counter {
        name: "hits".into(),
        value: 0,
        version: 0,
    };
    db.create(&start).send().await.unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move {
                for _ in 0..10 {
                    let key = Counter::key(&"hits".to_string()).unwrap();
                    let modified = db
                        .modify(key, |c: &mut Counter| c.value += 1)
                        .attempts(200)
                        .send()
                        .await
                        .unwrap();
                    assert!(modified.item.version >= 2, "{:?}", modified.item);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let key = Counter::key(&"hits".to_string()).unwrap();
    let end = db
        .get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(end.value, 80);
    assert_eq!(end.version, 81, "created at 1, then 80 writes");
}

#[tokio::test]
async fn a_conflict_reads_again_and_changes_the_item_as_it_is_then() {
    let db = ddb_tests::db_with_table::<Support>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Support>(&db).await;
    db.create(&ticket("T3")).send().await.unwrap();
    let key = Ticket::key(&"T3".to_string()).unwrap();
    // Another writer's note lands between the first read and its put: the
    // read's answer is held until it has.
    let held = proxy.hold("GetItem");
    let first = {
        let through = through.clone();
        let key = key.clone();
        tokio::spawn(async move {
            through
                .modify(key, |t: &mut Ticket| t.notes.push("mine".into()))
                .send()
                .await
        })
    };
    held.applied().await;
    db.put(&Ticket {
        notes: vec!["theirs".into()],
        ..ticket("T3")
    })
    .send()
    .await
    .unwrap();
    held.release();
    let modified = first.await.unwrap().unwrap();
    assert!(modified.conflicts >= 1, "{modified:?}");
    assert_eq!(stored(&db, "T3").await.notes, ["theirs", "mine"]);
}

#[tokio::test]
async fn a_lost_answer_is_returned_and_never_sent_again() {
    let db = ddb_tests::db_with_table::<Support>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Support>(&db).await;
    db.create(&ticket("T4")).send().await.unwrap();
    let key = Ticket::key(&"T4".to_string()).unwrap();
    proxy.fail("PutItem", 1, Fault::DropResponse);
    let lost = through
        .modify(key, |t: &mut Ticket| t.notes.push("once".into()))
        .exactly_once(false)
        .send()
        .await;
    assert!(
        matches!(&lost, Err(Error::WriteOutcomeUnknown { .. })),
        "{lost:?}"
    );
    assert_eq!(stored(&db, "T4").await.notes, ["once"], "applied once");
}

#[tokio::test]
async fn exactly_once_a_lost_answer_is_settled_and_applied_once() {
    ddb_tests::requires!(ClientRequestToken);
    let db = ddb_tests::db_with_table::<Support>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Support>(&db).await;
    db.create(&ticket("T5")).send().await.unwrap();
    let key = Ticket::key(&"T5".to_string()).unwrap();
    proxy.fail("TransactWriteItems", 1, Fault::DropResponse);
    let modified = through
        .modify(key, |t: &mut Ticket| t.notes.push("once".into()))
        .exactly_once(true)
        .send()
        .await
        .unwrap();
    assert_eq!(modified.conflicts, 0);
    assert_eq!(stored(&db, "T5").await.notes, ["once"], "applied once");
}

#[tokio::test]
async fn a_change_of_the_key_or_version_is_refused_and_nothing_is_written() {
    let db = ddb_tests::db_with_table::<Support>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Support>(&db).await;
    db.create(&ticket("T6")).send().await.unwrap();
    let key = Ticket::key(&"T6".to_string()).unwrap();
    let moved = through
        .modify(key, |t: &mut Ticket| t.id = "T7".into())
        .send()
        .await;
    assert!(
        matches!(&moved, Err(Error::InvalidRequest { reason, .. }) if reason.contains("key")),
        "{moved:?}"
    );
    assert_eq!(proxy.seen("PutItem"), 0, "nothing was sent");

    let counters = ddb_tests::db_with_table::<Counters>().await;
    let start = Counter {
        name: "c".into(),
        value: 0,
        version: 0,
    };
    counters.create(&start).send().await.unwrap();
    let key = Counter::key(&"c".to_string()).unwrap();
    let versioned = counters
        .modify(key, |c: &mut Counter| c.version = 9)
        .send()
        .await;
    assert!(
        matches!(&versioned, Err(Error::InvalidRequest { reason, .. }) if reason.contains("version")),
        "{versioned:?}"
    );
    let stored = counters.get(start.primary_key().unwrap()).send().await;
    assert_eq!(stored.unwrap().unwrap().version, 1, "nothing was written");
}

#[tokio::test]
async fn a_missing_item_is_not_found() {
    let db = ddb_tests::db_with_table::<Support>().await;
    let key = Ticket::key(&"none".to_string()).unwrap();
    let missing = db
        .modify(key, |t: &mut Ticket| t.notes.push("x".into()))
        .send()
        .await;
    assert!(
        matches!(missing, Err(Error::NotFound { .. })),
        "{missing:?}"
    );
}
