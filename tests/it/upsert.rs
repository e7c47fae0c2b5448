//! Conditional upsert: one UpdateItem that creates the item or, when the
//! stored item meets a condition, makes it hold the entity; says which it
//! did; and keeps index keys (a sparse index joined and left), stamps,
//! version and time to live as a create and an update do.

use ddb_runtime::{Db, Entity, Error, Table, Upserted};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Scores", pk = "PK", sk = "SK", ttl = "expires")]
#[ddb(index(name = "Board", pk = "BPK", sk = "BSK"))]
#[ddb(index(name = "Featured", pk = "FPK", sk = "FSK"))]
struct Scores;

/// A player's best score on a level, on the level's board, and on the
/// featured board while featured.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Scores, entity = "Best", pk = "PLAYER#{player}", sk = "LEVEL#{level}")]
#[ddb(index(
    name = "Board",
    pk = "LEVEL#{level}",
    sk = "{score}#{player}",
    query = "board"
))]
#[ddb(index(
    name = "Featured",
    pk = "FEATURED",
    sk = "{level}#{score}#{player}",
    when(featured = true)
))]
struct Best {
    player: String,
    level: u32,
    score: u64,
    featured: bool,
    note: Option<String>,
    #[ddb(ttl)]
    expires: Option<u64>,
    #[ddb(created_at)]
    created_at: u64,
    #[ddb(updated_at)]
    updated_at: u64,
    #[ddb(version)]
    version: u64,
}

/// A handle: one player per handle.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Scores, entity = "Handle", pk = "HANDLE#{player}", sk = "HANDLE")]
struct Handle {
    player: String,
    #[ddb(unique)]
    handle: String,
}

fn best(score: u64, featured: bool) -> Best {
    Best {
        player: "ada".into(),
        level: 3,
        score,
        featured,
        note: Some("first".into()),
        expires: None,
        created_at: 0,
        updated_at: 0,
        version: 0,
    }
}

async fn stored(db: &Db) -> Best {
    let key = best(0, false).primary_key().unwrap();
    db.get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap()
}

/// The attribute names of `item`, sorted.
fn names(item: &ddb_runtime::Item) -> Vec<String> {
    let mut names: Vec<String> = item.keys().cloned().collect();
    names.sort();
    names
}

async fn raw(db: &Db) -> ddb_runtime::Item {
    let key = best(0, false).primary_key().unwrap();
    ddb_tests::raw_item::<Scores>(db, key.to_item())
        .await
        .unwrap()
}

#[tokio::test]
async fn an_upsert_creates_then_updates_when_its_condition_holds() {
    let db = ddb_tests::db_with_table::<Scores>().await;
    let score = Best::fields().score;
    let higher = |b: &Best| db.upsert(b).condition(score.lt(b.score));
    assert_eq!(
        higher(&best(100, true)).send().await.unwrap(),
        Upserted::Created
    );
    let first = stored(&db).await;
    assert_eq!((first.score, first.version), (100, 1));
    assert!(first.created_at > 0 && first.updated_at > 0);
    let created = raw(&db).await;
    assert!(created.contains_key("FPK"), "featured");
    // Every attribute a create writes, index keys included.
    assert_eq!(
        names(&created),
        names(&first.to_item().unwrap()),
        "{created:?}"
    );

    // Not higher: the stored item, unchanged.
    match higher(&best(50, true)).send().await {
        Err(Error::ConditionFailed {
            existing: Some(item),
            ..
        }) => assert_eq!(item.decode::<Best>().unwrap().score, 100),
        other => panic!("expected the condition failed, got {other:?}"),
    }
    // Higher: updated, no longer featured, the note left out.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let better = Best {
        note: None,
        ..best(200, false)
    };
    assert_eq!(higher(&better).send().await.unwrap(), Upserted::Updated);
    let now = stored(&db).await;
    assert_eq!(
        (now.score, now.version, now.note.as_deref()),
        (200, 2, None)
    );
    assert_eq!(now.created_at, first.created_at, "created once");
    assert!(now.updated_at > first.updated_at);
    let item = raw(&db).await;
    assert!(
        !item.contains_key("FPK") && !item.contains_key("FSK"),
        "left the featured board"
    );
    let written = now.to_item().unwrap();
    assert_eq!(names(&item), names(&written), "{item:?}");
    assert_eq!(
        (&item["BPK"], &item["BSK"]),
        (&written["BPK"], &written["BSK"])
    );
    let board = db.query(Best::board(&3)).collect().await.unwrap();
    assert_eq!(board, [now]);
}

#[tokio::test]
async fn an_upsert_is_one_update_item_that_may_create() {
    let db = ddb_tests::db_with_table::<Scores>().await;
    let dry = db.upsert(&best(1, false)).dry_run().unwrap();
    assert_eq!(dry.operation(), Some("UpdateItem"));
    assert!(!dry.reads_first());
    let Some(ddb_runtime::dry_run::Request::UpdateItemInput(input)) = dry.input() else {
        panic!("an UpdateItem: {dry}")
    };
    let condition = input.condition_expression().unwrap();
    assert!(
        condition.starts_with("attribute_not_exists("),
        "{condition}"
    );
    assert_eq!(
        input.return_values(),
        Some(&aws_sdk_dynamodb::types::ReturnValue::UpdatedOld)
    );
}

/// An item past its time to live is created over, as a create does.
#[tokio::test]
async fn an_upsert_over_an_expired_item_creates_it() {
    let db = ddb_tests::db_with_table::<Scores>().await;
    let an_hour_ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 3600;
    let expired = Best {
        expires: Some(an_hour_ago),
        ..best(100, false)
    };
    db.create(&expired).send().await.unwrap();
    let score = Best::fields().score;
    // Its condition would fail on the expired item: it is absent.
    let sent = db
        .upsert(&best(10, false))
        .condition(score.gt(1_000u64))
        .send()
        .await;
    assert_eq!(sent.unwrap(), Upserted::Created);
    let now = stored(&db).await;
    assert_eq!((now.score, now.version, now.expires), (10, 1, None));
}

/// An entity with unique values reads first: created with its guard, then
/// updated moving it; a value another item holds is refused.
#[tokio::test]
async fn an_upsert_keeps_unique_values() {
    let db = ddb_tests::db_with_table::<Scores>().await;
    let handle = |player: &str, handle: &str| Handle {
        player: player.into(),
        handle: handle.into(),
    };
    assert_eq!(
        db.upsert(&handle("ada", "@ada")).send().await.unwrap(),
        Upserted::Created
    );
    assert_eq!(
        db.upsert(&handle("ada", "@lovelace")).send().await.unwrap(),
        Upserted::Updated
    );
    db.create(&handle("bob", "@bob")).send().await.unwrap();
    let taken = db.upsert(&handle("ada", "@bob")).send().await;
    assert!(
        matches!(
            taken,
            Err(Error::UniqueViolation {
                field: "handle",
                ..
            })
        ),
        "{taken:?}"
    );
    // The old value was let go: another player takes it.
    db.create(&handle("cat", "@ada")).send().await.unwrap();
    assert!(db
        .upsert(&handle("ada", "@ada"))
        .dry_run()
        .unwrap()
        .reads_first());
}
