//! The read-through cache: a hit sends nothing, and each read's span says
//! whether it hit; every write the same `Db`
//! sends (each write form, failed or with its answer lost) lets go of its
//! items before it returns, and a read under way when it returns is not
//! kept; a stream record lets go of another writer's change; limits on
//! entries and age hold; an expired item reads as missing; a loader reads
//! through it. Under concurrent readers and writers, no reader sees older
//! than its own last write, nor a value a stream record replaced.

use std::time::Duration;

use ddb_runtime::cache::{Cache, CacheLimits};
use ddb_runtime::stream::events::Event;
use ddb_runtime::{Collection, Db, Entity, Key, Table};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Profiles", pk = "PK", sk = "SK", ttl = "expires")]
struct Profiles;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Profile", pk = "PROFILE#{id}", sk = "PROFILE")]
struct Profile {
    id: u32,
    name: String,
    visits: u64,
    #[ddb(ttl)]
    expires: Option<u64>,
}

/// What the table's stream carries.
#[derive(Collection, Clone, Debug, PartialEq)]
enum ProfileItem {
    Profile(Profile),
}

fn profile(id: u32, name: &str) -> Profile {
    Profile {
        id,
        name: name.into(),
        visits: 0,
        expires: None,
    }
}

fn key(id: u32) -> Key<Profile> {
    profile(id, "").primary_key().unwrap()
}

fn limits() -> CacheLimits {
    CacheLimits::new(1000, Duration::from_secs(600))
}

/// A table, a `Db` reaching it through a proxy that counts requests, and a
/// cache of profiles on that `Db`.
async fn cached() -> (ddb_tests::proxy::Proxy, Db, Cache<Profile>) {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let cache = through.cache::<Profile>(limits());
    (proxy, through, cache)
}

async fn name(cache: &Cache<Profile>, id: u32) -> Option<String> {
    cache.get(key(id)).await.unwrap().map(|p| p.name)
}

/// A stream event of one MODIFY record of profile `id`, as Lambda delivers
/// it.
fn modified(id: u32) -> Event {
    let json = serde_json::json!({
        "Records": [{
            "eventID": format!("event-{id}"),
            "eventName": "MODIFY",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "eu-west-1",
            "dynamodb": {
                "Keys": {"PK": {"S": format!("PROFILE#{id:010}")}, "SK": {"S": "PROFILE"}},
                "SequenceNumber": "100",
                "SizeBytes": 40,
                "StreamViewType": "KEYS_ONLY"
            },
            "eventSourceARN": "arn:aws:dynamodb:eu-west-1:123456789012:table/Profiles/stream/2026-12-01T00:00:00.000"
        }]
    });
    serde_json::from_value(json).unwrap()
}

#[tokio::test]
async fn a_hit_sends_nothing_and_a_missing_item_is_kept_missing() {
    let (proxy, db, cache) = cached().await;
    db.create(&profile(1, "ada")).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("ada"));
    assert_eq!(name(&cache, 1).await.as_deref(), Some("ada"));
    assert_eq!(name(&cache, 2).await, None);
    assert_eq!(name(&cache, 2).await, None);
    assert_eq!(proxy.seen("GetItem"), 2);
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (2, 2, 2));
}

/// Each read through the cache is a `ddb.cache` span that says whether it
/// hit; a miss holds the GetItem it sends.
#[tokio::test]
async fn each_read_is_a_span_saying_hit_or_miss() {
    let (_proxy, db, cache) = cached().await;
    db.create(&profile(1, "ada")).send().await.unwrap();
    let capture = crate::telemetry::Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    name(&cache, 1).await;
    name(&cache, 1).await;
    let spans = capture.spans.lock().unwrap().clone();
    let reads: Vec<(Option<&str>, Option<&str>)> = spans
        .iter()
        .filter(|s| s.get("ddb.entity").is_some_and(|e| e == "Profile"))
        .filter(|s| !s.contains_key("db.operation.name"))
        .map(|s| {
            let field = |name: &str| s.get(name).map(String::as_str);
            (field("ddb.cache.hits"), field("ddb.cache.misses"))
        })
        .collect();
    assert_eq!(reads, [(None, Some("1")), (Some("1"), None)], "{spans:?}");
    let requests: Vec<_> = spans
        .iter()
        .filter_map(|s| s.get("db.operation.name"))
        .collect();
    assert_eq!(requests, ["GetItem"], "{spans:?}");
}

#[tokio::test]
async fn misses_read_strongly_consistent_unless_the_limits_say_otherwise() {
    let (proxy, db, cache) = cached().await;
    proxy.record("GetItem");
    let eventual = db.cache::<Profile>(limits().consistent_fill(false));
    cache.get(key(1)).await.unwrap();
    eventual.get(key(1)).await.unwrap();
    let consistent = ddb_tests::recorded_field(&proxy, "GetItem", "ConsistentRead");
    assert_eq!(consistent, vec![Some(serde_json::json!(true)), None]);
}

/// Each write form of the same `Db`: the next read sees what it wrote.
#[tokio::test]
async fn every_write_of_the_same_db_lets_go_of_what_it_writes() {
    let (_proxy, db, cache) = cached().await;
    let seen = |expected: Option<&'static str>, after: &'static str| {
        let cache = cache.clone();
        async move {
            assert_eq!(name(&cache, 1).await.as_deref(), expected, "after {after}");
        }
    };
    seen(None, "nothing").await;
    db.create(&profile(1, "create")).send().await.unwrap();
    seen(Some("create"), "a create").await;
    db.put(&profile(1, "put")).send().await.unwrap();
    seen(Some("put"), "a put").await;
    db.update(key(1))
        .set(Profile::fields().name, "update".to_owned())
        .send()
        .await
        .unwrap();
    seen(Some("update"), "an update").await;
    db.modify(key(1), |p: &mut Profile| p.name = "modify".into())
        .send()
        .await
        .unwrap();
    seen(Some("modify"), "a modify").await;
    db.upsert(&profile(1, "upsert")).send().await.unwrap();
    seen(Some("upsert"), "an upsert").await;
    db.delete(key(1)).send().await.unwrap();
    seen(None, "a delete").await;
    db.batch_put(&[profile(1, "batch"), profile(2, "batch")])
        .await
        .unwrap();
    seen(Some("batch"), "a batch put").await;
    db.transact_write()
        .put(db.put(&profile(1, "transaction")))
        .create(&profile(3, "transaction"))
        .send()
        .await
        .unwrap();
    seen(Some("transaction"), "a transaction").await;
    db.batch_delete(vec![key(1)]).await.unwrap();
    seen(None, "a batch delete").await;
}

#[tokio::test]
async fn a_write_that_fails_or_loses_its_answer_still_lets_go() {
    let (proxy, db, cache) = cached().await;
    db.create(&profile(1, "first")).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("first"));
    // Applied, but every answer lost: the caller gets an error.
    proxy.fail("PutItem", 10, ddb_tests::proxy::Fault::DropResponse);
    assert!(db.put(&profile(1, "lost")).send().await.is_err());
    assert_eq!(name(&cache, 1).await.as_deref(), Some("lost"));
}

/// A write refused with a server error may still be applied after its
/// answer (a transaction in progress commits later): its item is read from
/// the table, not kept, for the cache's age limit.
#[tokio::test]
async fn a_write_failed_by_a_server_error_keeps_its_item_out() {
    let (proxy, db, cache) = cached().await;
    db.create(&profile(1, "first")).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("first"));
    let error = ddb_tests::proxy::Fault::Error(500, "InternalServerError");
    proxy.fail("PutItem", usize::MAX, error);
    assert!(db.put(&profile(1, "unknown")).send().await.is_err());
    let before = proxy.seen("GetItem");
    name(&cache, 1).await;
    name(&cache, 1).await;
    assert_eq!(
        proxy.seen("GetItem"),
        before + 2,
        "each read asks the table"
    );
}

#[tokio::test]
async fn a_read_under_way_when_a_write_returns_is_not_kept() {
    let (proxy, db, cache) = cached().await;
    db.create(&profile(1, "old")).send().await.unwrap();
    let held = proxy.hold("GetItem");
    let reading = tokio::spawn({
        let cache = cache.clone();
        async move { name(&cache, 1).await }
    });
    // The read has read "old"; the write returns before its answer does.
    held.applied().await;
    db.put(&profile(1, "new")).send().await.unwrap();
    held.release();
    assert_eq!(reading.await.unwrap().as_deref(), Some("old"));
    assert_eq!(name(&cache, 1).await.as_deref(), Some("new"));
}

/// A cache made while a write is under way cannot know what it writes: it
/// lets go of everything when the write ends, so the writer reads back
/// its own write.
#[tokio::test]
async fn a_cache_made_during_a_write_lets_go_when_the_write_ends() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    through.create(&profile(1, "old")).send().await.unwrap();
    let delayed = proxy.delay("PutItem");
    let writing = tokio::spawn({
        let through = through.clone();
        async move { through.put(&profile(1, "new")).send().await }
    });
    delayed.arrived().await;
    let cache = through.cache::<Profile>(limits());
    assert_eq!(name(&cache, 1).await.as_deref(), Some("old"));
    delayed.release();
    writing.await.unwrap().unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("new"));
}

/// A write its caller gave up on before it reached DynamoDB (a timeout of
/// the caller's) may be applied afterwards: what a read finds of its item
/// meanwhile is not kept, and the next read sees it applied.
#[tokio::test]
async fn a_write_given_up_in_flight_keeps_its_item_out_of_the_cache() {
    let (proxy, db, cache) = cached().await;
    db.create(&profile(1, "old")).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("old"));
    let delayed = proxy.delay("PutItem");
    let writing = tokio::spawn({
        let db = db.clone();
        async move { db.put(&profile(1, "late")).send().await }
    });
    delayed.arrived().await;
    writing.abort();
    let _ = writing.await;
    assert_eq!(name(&cache, 1).await.as_deref(), Some("old"));
    delayed.release();
    let landed = async {
        loop {
            let stored = db.get(key(1)).consistent_read(true).send().await.unwrap();
            if stored.is_some_and(|p| p.name == "late") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), landed)
        .await
        .expect("the delayed put is applied once released");
    assert_eq!(name(&cache, 1).await.as_deref(), Some("late"));
}

#[tokio::test]
async fn a_stream_record_lets_go_of_another_writers_change() {
    let (_proxy, db, cache) = cached().await;
    db.create(&profile(1, "mine")).send().await.unwrap();
    db.create(&profile(2, "mine")).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("mine"));
    assert_eq!(name(&cache, 2).await.as_deref(), Some("mine"));
    // Another process's handle: this cache cannot know of its writes...
    let other =
        Db::new(ddb_tests::client()).with_table_name::<Profiles>(db.table_name::<Profiles>());
    other.put(&profile(1, "theirs")).send().await.unwrap();
    other.put(&profile(2, "theirs")).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("mine"));
    // ...until their stream records are applied, typed or as delivered.
    cache.apply_event(&modified(1));
    assert_eq!(name(&cache, 1).await.as_deref(), Some("theirs"));
    let changes = ddb_runtime::stream::decode::<ProfileItem>(&modified(2));
    cache.apply(&changes.unwrap()[0]);
    assert_eq!(name(&cache, 2).await.as_deref(), Some("theirs"));
}

#[tokio::test]
async fn the_oldest_entries_go_beyond_the_limit_and_none_outlives_its_age() {
    let (proxy, db, _cache) = cached().await;
    let small = db.cache::<Profile>(CacheLimits::new(3, Duration::from_secs(600)));
    for id in 0..5 {
        small.get(key(id)).await.unwrap();
    }
    assert_eq!(small.stats().entries, 3);
    let before = proxy.seen("GetItem");
    small.get(key(4)).await.unwrap();
    assert_eq!(proxy.seen("GetItem"), before, "the newest is kept");
    small.get(key(0)).await.unwrap();
    assert_eq!(proxy.seen("GetItem"), before + 1, "the oldest went");

    let brief = db.cache::<Profile>(CacheLimits::new(10, Duration::from_millis(50)));
    brief.get(key(0)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    let before = proxy.seen("GetItem");
    brief.get(key(0)).await.unwrap();
    assert_eq!(proxy.seen("GetItem"), before + 1, "read again once too old");
}

#[tokio::test]
async fn an_item_whose_time_to_live_passes_reads_as_missing() {
    let (_proxy, db, cache) = cached().await;
    let soon = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 2;
    let expiring = Profile {
        expires: Some(soon),
        ..profile(1, "brief")
    };
    db.create(&expiring).send().await.unwrap();
    assert_eq!(name(&cache, 1).await.as_deref(), Some("brief"));
    tokio::time::sleep(Duration::from_millis(3100)).await;
    assert_eq!(name(&cache, 1).await, None);
}

#[tokio::test]
async fn a_loader_reads_through_the_cache() {
    let (proxy, db, cache) = cached().await;
    db.batch_put(&(0..6).map(|id| profile(id, "ada")).collect::<Vec<_>>())
        .await
        .unwrap();
    let loader = cache.loader();
    let first = join_all((0..4).map(|id| loader.load(key(id)).send())).await;
    assert!(first.into_iter().all(|p| p.unwrap().is_some()));
    assert_eq!(proxy.seen("BatchGetItem"), 1);
    // Kept: only the keys not read before are asked.
    proxy.record("BatchGetItem");
    let second = join_all((0..6).map(|id| loader.load(key(id)).send())).await;
    assert!(second.into_iter().all(|p| p.unwrap().is_some()));
    let sent = ddb_tests::recorded_json(&proxy, "BatchGetItem");
    let asked = &sent[0]["RequestItems"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()["Keys"];
    assert_eq!(asked.as_array().unwrap().len(), 2);
    assert_eq!(
        sent[0]["RequestItems"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["ConsistentRead"],
        true
    );
    // A write lets go of its item for the loader too.
    db.put(&profile(0, "grace")).send().await.unwrap();
    let again = loader.load(key(0)).send().await.unwrap().unwrap();
    assert_eq!(again.name, "grace");
}

/// Readers and writers on a few items through one `Db`: each task writes
/// (adds to `visits`, learning the new count) then reads back through the
/// cache, and must see at least its own count; meanwhile another handle
/// writes too, and once its stream record is applied no read returns the
/// value it replaced. At the end every cached item is the table's. A fixed
/// seed in the suite; `DDB_STRESS=large` runs 1,000 operations per task,
/// `DDB_STRESS_SEED=<n>` picks the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_readers_and_writers_never_read_older_than_their_writes() {
    let large = std::env::var("DDB_STRESS").is_ok_and(|v| v == "large");
    let rounds = if large { 1000 } else { 40 };
    let seed: u64 = std::env::var("DDB_STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xCAC4E);
    let (_proxy, db, cache) = cached().await;
    const ITEMS: u32 = 4;
    for id in 0..ITEMS {
        db.create(&profile(id, "start")).send().await.unwrap();
    }
    let other =
        Db::new(ddb_tests::client()).with_table_name::<Profiles>(db.table_name::<Profiles>());
    let tasks = (0..8u64).map(|task| {
        let (db, cache, other) = (db.clone(), cache.clone(), other.clone());
        tokio::spawn(async move {
            let mut random = ddb_tests::SplitMix64(seed + task);
            for _ in 0..rounds {
                let id = random.below(u64::from(ITEMS)) as u32;
                match random.below(4) {
                    // Another process writes, then its record arrives.
                    0 => {
                        let after = add_visit(&other, id).await;
                        cache.apply_event(&modified(id));
                        let read = cache.get(key(id)).await.unwrap().unwrap();
                        assert!(
                            read.visits >= after,
                            "replaced {after}, read {}",
                            read.visits
                        );
                    }
                    // A write of this handle, then a read back.
                    1 | 2 => {
                        let after = add_visit(&db, id).await;
                        let read = cache.get(key(id)).await.unwrap().unwrap();
                        assert!(read.visits >= after, "wrote {after}, read {}", read.visits);
                    }
                    _ => {
                        cache.get(key(id)).await.unwrap().unwrap();
                    }
                }
            }
        })
    });
    for task in join_all(tasks).await {
        task.unwrap();
    }
    // Every write of the run has returned, and the last of the other
    // handle's records was applied: the cache holds the table.
    let stored = ddb_tests::scan_raw::<Profiles>(&db).await;
    assert_eq!(stored.len(), ITEMS as usize);
    for item in stored {
        let raw: Profile = Profile::from_item(item).unwrap();
        let read = cache.get(key(raw.id)).await.unwrap().unwrap();
        assert_eq!(read, raw);
    }
}

/// Adds one visit to profile `id` through `db`; the count after it.
async fn add_visit(db: &Db, id: u32) -> u64 {
    let written = db
        .update(key(id))
        .add(Profile::fields().visits, 1)
        .return_new(true)
        .send()
        .await
        .unwrap();
    written.item.unwrap().visits
}
