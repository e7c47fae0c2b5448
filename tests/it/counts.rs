//! Counts: `count()` on queries (with filters and sort-key conditions, on
//! an index, on a write-sharded index), item collections and scans (one and
//! several segments) equals the number of matching items in the table, as a
//! plain Scan through the SDK finds them; a count follows DynamoDB's 1 MB
//! pages, sends `Select: COUNT` without a projection, counts only the
//! entity's items (never another entity's or a guard item), and reports
//! what it read. The leaderboard rank recipe.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Collection, Db, Entity, Item, Table};
use serde::{Deserialize, Serialize};

/// Leaderboards: scores by board (ranked by points), by player, and by
/// level in a write-sharded index.
#[derive(Table)]
#[ddb(name = "Boards", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByPlayer", pk = "PLAYER_PK", sk = "PLAYER_SK"))]
#[ddb(index(name = "ByLevel", pk = "LEVEL_PK", sk = "LEVEL_SK"))]
#[ddb(index(
    name = "Keys",
    pk = "KEYS_PK",
    sk = "KEYS_SK",
    projection = "keys_only"
))]
pub(crate) struct Boards;

/// A player's score on a board, with a unique handle (so the table holds
/// guard items).
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Boards, entity = "Score", pk = "BOARD#{board}", sk = "SCORE#{points}#{player}",
      query = "by_board", scan)]
#[ddb(index(
    name = "ByPlayer",
    pk = "PLAYER#{player}",
    sk = "BOARD#{board}",
    query = "by_player"
))]
#[ddb(index(
    name = "ByLevel",
    pk = "LEVEL#{level}",
    sk = "{points}#{player}",
    query = "by_level",
    shards = 4
))]
#[ddb(index(
    name = "Keys",
    pk = "KEYS#{player}",
    sk = "SCORE#{board}",
    query = "keys_by_player"
))]
pub(crate) struct Score {
    pub board: String,
    pub points: u64,
    pub player: String,
    pub level: u32,
    #[ddb(unique)]
    pub handle: String,
    /// Makes items large, so that a count spans several 1 MB pages.
    pub padding: String,
}

/// A board's description, in the board's partition.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Boards, entity = "BoardInfo", pk = "BOARD#{board}", sk = "INFO", scan)]
pub(crate) struct BoardInfo {
    pub board: String,
    pub title: String,
}

/// A player's trophy, in the player's partition of `ByPlayer` and inside
/// the range a query of a player's scores reads.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Boards, entity = "Trophy", pk = "TROPHY#{player}#{name}", sk = "TROPHY")]
#[ddb(index(
    name = "ByPlayer",
    pk = "PLAYER#{player}",
    sk = "BOARD#{board}#TROPHY#{name}"
))]
#[ddb(index(
    name = "Keys",
    pk = "KEYS#{player}",
    sk = "SCORE#{board}#TROPHY#{name}"
))]
pub(crate) struct Trophy {
    pub player: String,
    pub board: String,
    pub name: String,
}

/// A board's items.
#[derive(Collection, Debug, PartialEq)]
pub(crate) enum BoardItem {
    Score(Score),
    Info(BoardInfo),
}

const BIG: &str = "big";
const SMALL: &str = "small";
const BIG_SCORES: u64 = 40;

pub(crate) fn score(board: &str, i: u64, padding: usize) -> Score {
    Score {
        board: board.into(),
        points: (i * 37) % 101,
        player: format!("p{i:02}"),
        level: (i % 3) as u32,
        handle: format!("{board}-h{i:02}"),
        padding: "x".repeat(padding),
    }
}

/// A table with 40 scores of 50 KB on the big board (2 MB: a count of it
/// takes several DynamoDB pages), 6 small ones on the small board (players
/// `p00..p05`, who thus have a score on both), each board's description,
/// a trophy of `p01` on the big board, and an item of an unknown entity in
/// the big board's partition; scores created through ddb, with their
/// handles' guard items.
async fn boards() -> Db {
    let db = ddb_tests::db_with_table::<Boards>().await;
    for i in 0..BIG_SCORES {
        db.create(&score(BIG, i, 50_000)).send().await.unwrap();
    }
    for i in 0..6 {
        db.create(&score(SMALL, i, 10)).send().await.unwrap();
    }
    let infos = [BIG, SMALL].map(|board| BoardInfo {
        board: board.into(),
        title: format!("the {board} board"),
    });
    ddb_tests::put_raw(&db, &infos).await;
    let trophy = Trophy {
        player: "p01".into(),
        board: BIG.into(),
        name: "first".into(),
    };
    ddb_tests::put_raw(&db, &[trophy]).await;
    let mut stray = Item::new();
    stray.insert("PK".into(), s(&format!("BOARD#{BIG}")));
    stray.insert("SK".into(), s("SCORE#99999999999999999999#zz"));
    stray.insert("_type".into(), s("Stray"));
    db.client()
        .put_item()
        .table_name(db.table_name::<Boards>())
        .set_item(Some(stray))
        .send()
        .await
        .unwrap();
    db
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn text<'a>(item: &'a Item, name: &str) -> &'a str {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .map_or("", String::as_str)
}

fn number(item: &Item, name: &str) -> u64 {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .map_or(u64::MAX, |n| n.parse().unwrap())
}

/// The items of the table, read with plain Scans through the SDK.
async fn raw(db: &Db) -> Vec<Item> {
    ddb_tests::scan_raw::<Boards>(db).await
}

/// How many raw items are `entity` items and satisfy `keep`.
fn brute<F: Fn(&Item) -> bool>(items: &[Item], entity: &str, keep: F) -> u64 {
    items
        .iter()
        .filter(|item| text(item, "_type") == entity && keep(item))
        .count() as u64
}

#[tokio::test]
async fn query_counts_equal_the_matching_items_of_the_table() {
    let db = boards().await;
    let all = raw(&db).await;
    let (proxy, through) = ddb_tests::through_proxy::<Boards>(&db).await;
    proxy.record("Query");
    let big = || through.query(Score::by_board(&BIG.to_string()));
    let on_big = |item: &Item| text(item, "board") == BIG;

    let before = proxy.seen("Query");
    let count = big().count().await.unwrap();
    assert_eq!(count, brute(&all, "Score", on_big));
    assert_eq!(count, BIG_SCORES);
    assert!(
        proxy.seen("Query") - before > 1,
        "2 MB of scores take several DynamoDB pages"
    );

    // A filter lowers the count.
    let level_one = big()
        .filter(Score::fields().level.eq(1u32))
        .count()
        .await
        .unwrap();
    let expected = brute(&all, "Score", |i| on_big(i) && number(i, "level") == 1);
    assert_eq!(level_one, expected);
    assert!(0 < level_one && level_one < count);

    // A sort-key condition, with and without a filter.
    let above = big().gt(&50u64).count().await.unwrap();
    let expected = brute(&all, "Score", |i| on_big(i) && number(i, "points") > 50);
    assert_eq!(above, expected);
    assert!(0 < above && above < count);
    let above_on_level_two = big()
        .gt(&50u64)
        .filter(Score::fields().level.eq(2u32))
        .count()
        .await
        .unwrap();
    let expected = brute(&all, "Score", |i| {
        on_big(i) && number(i, "points") > 50 && number(i, "level") == 2
    });
    assert_eq!(above_on_level_two, expected);
    assert!(0 < above_on_level_two && above_on_level_two < above);

    // The small board: one page.
    let before = proxy.seen("Query");
    let small = through
        .query(Score::by_board(&SMALL.to_string()))
        .count()
        .await
        .unwrap();
    assert_eq!(small, 6);
    assert_eq!(proxy.seen("Query") - before, 1);

    // A limit is a page size: a count ignores it and counts the range.
    assert_eq!(big().limit(3).count().await.unwrap(), BIG_SCORES);
}

#[tokio::test]
async fn index_counts_equal_the_matching_items_of_the_table() {
    let db = boards().await;
    let all = raw(&db).await;
    let (proxy, through) = ddb_tests::through_proxy::<Boards>(&db).await;
    proxy.record("Query");

    // A player's scores on the index: the trophy in the range is not one.
    let p01 = through
        .query(Score::by_player(&"p01".to_string()))
        .count()
        .await
        .unwrap();
    assert_eq!(p01, brute(&all, "Score", |i| text(i, "player") == "p01"));
    assert_eq!(p01, 2);
    assert_eq!(
        brute(&all, "Trophy", |i| text(i, "player") == "p01"),
        1,
        "a trophy is in the range read"
    );

    // An index that does not carry the entity type: its keys are read and
    // the scores counted, not the trophy in the range.
    let before = proxy.seen("Query");
    let keys = through
        .query(Score::keys_by_player(&"p01".to_string()))
        .count()
        .await
        .unwrap();
    assert_eq!(keys, 2);
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    let body = &sent[before];
    assert!(body.get("Select").is_none(), "{body}");
    let mut projected = ddb_tests::projected_attributes(body);
    projected.sort();
    assert_eq!(projected, ["KEYS_PK", "KEYS_SK", "PK", "SK"], "{body}");

    // The write-sharded index: every shard counted, through all its pages.
    let before = proxy.seen("Query");
    let level = || through.query(Score::by_level(&1u32));
    let level_one = level().count().await.unwrap();
    assert_eq!(level_one, brute(&all, "Score", |i| number(i, "level") == 1));
    let sent = proxy.seen("Query") - before;
    assert_eq!(sent, 4, "four shards, each in one page");
    let shards: std::collections::HashSet<String> = ddb_tests::recorded_json(&proxy, "Query")
        [before..]
        .iter()
        .map(|body| {
            let values = body["ExpressionAttributeValues"].as_object().unwrap();
            let partition = values.values().find_map(|v| {
                v["S"]
                    .as_str()
                    .filter(|s| s.starts_with("LEVEL#"))
                    .map(str::to_owned)
            });
            partition.unwrap()
        })
        .collect();
    assert_eq!(shards.len(), 4, "{shards:?}");

    let filtered = level()
        .filter(Score::fields().points.gt(50u64))
        .count()
        .await
        .unwrap();
    let expected = brute(&all, "Score", |i| {
        number(i, "level") == 1 && number(i, "points") > 50
    });
    assert_eq!(filtered, expected);
    assert!(0 < filtered && filtered < level_one);
    let above = level().gt(&50u64).count().await.unwrap();
    assert_eq!(above, expected);

    // 8 MB of scores on one level: each shard holds about 2 MB, read in
    // several pages.
    for i in 0..24 {
        let mut huge = score("huge", i, 350_000);
        huge.level = 7;
        db.create(&huge).send().await.unwrap();
    }
    let all = raw(&db).await;
    let before = proxy.seen("Query");
    let huge = through.query(Score::by_level(&7u32)).count().await.unwrap();
    assert_eq!(huge, brute(&all, "Score", |i| number(i, "level") == 7));
    assert_eq!(huge, 24);
    let sent = proxy.seen("Query") - before;
    assert!(sent >= 8, "four shards, each in several pages: {sent}");
}

#[tokio::test]
async fn collection_counts_count_the_members_only() {
    let db = boards().await;
    let all = raw(&db).await;
    let (proxy, through) = ddb_tests::through_proxy::<Boards>(&db).await;
    proxy.record("Query");
    let partition = Score::pk(&BIG.to_string()).unwrap();
    let before = proxy.seen("Query");
    let count = through
        .collection::<BoardItem>(partition.clone())
        .count()
        .await
        .unwrap();
    let in_big = |item: &Item| text(item, "PK") == format!("BOARD#{BIG}");
    let expected = brute(&all, "Score", in_big) + brute(&all, "BoardInfo", in_big);
    assert_eq!(count, expected);
    assert_eq!(count, BIG_SCORES + 1);
    assert!(proxy.seen("Query") - before > 1);
    // The stray item is in the partition, not counted.
    assert_eq!(
        all.iter().filter(|i| in_big(i)).count() as u64,
        count + 1,
        "the partition holds the stray item"
    );
    // The same items as the collection returns.
    let items = db
        .collection::<BoardItem>(partition)
        .collect()
        .await
        .unwrap();
    assert_eq!(items.len() as u64, count);
}

#[tokio::test]
async fn scan_counts_equal_the_matching_items_in_one_and_several_segments() {
    let db = boards().await;
    let all = raw(&db).await;
    let guards = all
        .iter()
        .filter(|item| text(item, "_type") != "Score" && !text(item, "PK").starts_with("BOARD#"))
        .filter(|item| !text(item, "PK").starts_with("TROPHY#"))
        .count();
    assert!(guards >= 46, "the table holds the handles' guard items");
    let (proxy, through) = ddb_tests::through_proxy::<Boards>(&db).await;
    proxy.record("Scan");
    let scores = brute(&all, "Score", |_| true);
    let high = brute(&all, "Score", |i| number(i, "points") > 50);
    for segments in [1, 3] {
        let before = proxy.seen("Scan");
        let count = through
            .scan::<Score>()
            .segments(segments)
            .count()
            .await
            .unwrap();
        assert_eq!(count, scores, "{segments} segments");
        assert_eq!(count, BIG_SCORES + 6);
        let sent = proxy.seen("Scan") - before;
        assert!(
            sent > segments as usize,
            "{segments} segments: {sent} requests"
        );
        let filtered = through
            .scan::<Score>()
            .segments(segments)
            .filter(Score::fields().points.gt(50u64))
            .count_with_capacity()
            .await
            .unwrap();
        assert_eq!(filtered.count, high, "{segments} segments");
        // A scan reads every item of the table. (An engine may count an
        // item at a page's end twice.)
        assert!(filtered.scanned >= all.len() as u64, "{filtered:?}");
        assert!(filtered.requests as usize > segments as usize);
    }
    let infos = through.scan::<BoardInfo>().count().await.unwrap();
    assert_eq!(infos, 2);
}

#[tokio::test]
async fn a_count_sends_select_count_and_no_projection() {
    let db = boards().await;
    let (proxy, through) = ddb_tests::through_proxy::<Boards>(&db).await;
    proxy.record("Query");
    proxy.record("Scan");

    let projected = through
        .query(Score::by_board(&SMALL.to_string()))
        .filter(Score::fields().level.eq(1u32));
    projected.clone().count().await.unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    let body = sent.last().unwrap();
    assert_eq!(body["Select"], "COUNT", "{body}");
    assert!(body.get("ProjectionExpression").is_none(), "{body}");
    assert!(body.get("Limit").is_none(), "{body}");
    // The entity type and the caller's filter.
    let filter = body["FilterExpression"].as_str().unwrap();
    let names: Vec<&str> = body["ExpressionAttributeNames"]
        .as_object()
        .map(|names| names.values().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let named = |name: &str| filter.contains(name) || names.contains(&name);
    assert!(named("_type") && named("level"), "{body}");
    let values: Vec<&serde_json::Value> = body["ExpressionAttributeValues"]
        .as_object()
        .unwrap()
        .values()
        .collect();
    assert!(values.iter().any(|v| v["S"] == "Score"), "{body}");

    // Its dry run shows the same request, sending nothing.
    let seen = proxy.seen("Query");
    let dry = projected.dry_run_count().unwrap();
    assert_eq!(proxy.seen("Query"), seen);
    assert_eq!(dry.requests().len(), 1);
    let printed = dry.to_string();
    assert!(printed.contains("COUNT"), "{printed}");

    // A sharded index: one request per shard in the dry run.
    let dry = through
        .query(Score::by_level(&1u32))
        .dry_run_count()
        .unwrap();
    assert_eq!(dry.requests().len(), 4, "{dry}");

    // A collection: the members' entity types.
    let partition = Score::pk(&SMALL.to_string()).unwrap();
    through
        .collection::<BoardItem>(partition)
        .count()
        .await
        .unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    let body = sent.last().unwrap();
    assert_eq!(body["Select"], "COUNT", "{body}");
    assert!(body.get("ProjectionExpression").is_none(), "{body}");
    let values: Vec<&str> = body["ExpressionAttributeValues"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|v| v["S"].as_str())
        .collect();
    assert!(
        values.contains(&"Score") && values.contains(&"BoardInfo"),
        "{body}"
    );

    // A scan.
    through.scan::<Score>().segments(2).count().await.unwrap();
    let sent = ddb_tests::recorded_json(&proxy, "Scan");
    assert!(!sent.is_empty());
    for body in &sent {
        assert_eq!(body["Select"], "COUNT", "{body}");
        assert!(body.get("ProjectionExpression").is_none(), "{body}");
        assert_eq!(body["TotalSegments"], 2, "{body}");
    }
}

#[tokio::test]
async fn a_count_reports_what_it_read() {
    let db = boards().await;
    let counted = db
        .query(Score::by_board(&BIG.to_string()))
        .filter(Score::fields().level.eq(0u32))
        .count_with_capacity()
        .await
        .unwrap();
    assert_eq!(counted.count, BIG_SCORES.div_ceil(3));
    // Every score of the board read (and the stray item in the range),
    // whatever the filter kept. (An engine may count an item at a page's
    // end twice.)
    assert!(counted.scanned > BIG_SCORES, "{counted:?}");
    assert!(counted.requests > 1);
    // 2 MB read: about 250 read units eventually consistent.
    if ddb_tests::engine::has(ddb_tests::engine::Behaviour::CapacityByItemSize) {
        assert!(
            counted.consumed_capacity.total > 100.0,
            "{:?}",
            counted.consumed_capacity
        );
    }
    // Without asking, no capacity is asked of DynamoDB.
    let plain = db.query(Score::by_board(&BIG.to_string())).count().await;
    assert_eq!(plain.unwrap(), BIG_SCORES);
}

/// The leaderboard rank recipe: a player's rank is one plus the number of
/// scores above theirs on the board, a count of the board's partition past
/// the player's points.
#[tokio::test]
async fn a_players_rank_is_one_plus_the_scores_above_it() {
    let db = boards().await;
    let scores: Vec<Score> = (0..BIG_SCORES).map(|i| score(BIG, i, 0)).collect();
    let mut ranked: Vec<u64> = scores.iter().map(|s| s.points).collect();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    let mut ranks = HashMap::new();
    for player in &scores {
        let above = db
            .query(Score::by_board(&BIG.to_string()))
            .gt(&player.points)
            .count()
            .await
            .unwrap();
        let rank = above + 1;
        // The rank by hand: one plus the scores strictly above.
        let expected = ranked.iter().filter(|p| **p > player.points).count() as u64 + 1;
        assert_eq!(rank, expected, "{}", player.player);
        ranks.insert(player.player.clone(), rank);
    }
    let best = scores.iter().max_by_key(|s| s.points).unwrap();
    assert_eq!(ranks[&best.player], 1);
}

#[tokio::test]
async fn bad_input_is_refused_before_any_request() {
    let db = boards().await;
    let (proxy, through) = ddb_tests::through_proxy::<Boards>(&db).await;
    let zero = through
        .query(Score::by_board(&BIG.to_string()))
        .limit(0)
        .count()
        .await;
    assert!(matches!(
        zero,
        Err(ddb_runtime::Error::InvalidRequest { .. })
    ));
    let segments = through.scan::<Score>().segments(0).count().await;
    assert!(matches!(
        segments,
        Err(ddb_runtime::Error::InvalidRequest { .. })
    ));
    assert_eq!(proxy.seen("Query") + proxy.seen("Scan"), 0);
    let reversed = through
        .query(Score::by_board(&BIG.to_string()))
        .between(&60u64, &40u64)
        .count()
        .await;
    assert!(matches!(
        reversed,
        Err(ddb_runtime::Error::InvalidSortCondition { .. })
    ));
    assert_eq!(proxy.seen("Query"), 0);
}
