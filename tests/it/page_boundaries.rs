//! Truthful pages: for every limit from 1 to n + 1 over n matching items,
//! paging to the end meets every item once, no page is empty, every page
//! but the last has a cursor and says more follow, and the last has no
//! cursor; in both orders, with items a filter (or the collection) leaves
//! out among them; on a query, a write-sharded index, an item collection
//! and a scan.

use std::future::Future;

use ddb_runtime::{Cursor, Db, Item};

use crate::counts::{score, BoardInfo, BoardItem, Boards, Score};

/// Matching items in each test.
const N: usize = 7;

/// Reads every page from the start, `read` reading the page at a cursor
/// (its items' ids, its cursor, its `has_more`), and checks each page:
/// never empty, a cursor exactly when more follow, none on the last.
async fn walk<F, Fut>(what: &str, read: F) -> Vec<String>
where
    F: Fn(Option<Cursor>) -> Fut,
    Fut: Future<Output = (Vec<String>, Option<Cursor>, Option<bool>)>,
{
    let mut seen = Vec::new();
    let mut cursor = None;
    for _ in 0..=N + 1 {
        let (ids, next, has_more) = read(cursor).await;
        assert!(!ids.is_empty(), "{what}: an empty page after {seen:?}");
        seen.extend(ids);
        match next {
            Some(next) => {
                assert_eq!(has_more, Some(true), "{what}: a cursor after {seen:?}");
                cursor = Some(next);
            }
            None => {
                assert_eq!(has_more, Some(false), "{what}: the last page");
                return seen;
            }
        }
    }
    panic!("{what}: more pages than items");
}

/// Walks every limit from 1 to N + 1 in both orders, `read` reading the
/// page at a cursor for an order (`newest_first`) and a limit: each walk
/// meets `forward` in order, reversed newest first.
async fn walk_every_limit<F, Fut>(what: &str, forward: &[String], read: F)
where
    F: Fn(bool, usize, Option<Cursor>) -> Fut,
    Fut: Future<Output = (Vec<String>, Option<Cursor>, Option<bool>)>,
{
    for newest_first in [false, true] {
        let mut expected = forward.to_vec();
        if newest_first {
            expected.reverse();
        }
        for limit in 1..=N + 1 {
            let what = format!("{what}limit {limit}, newest first {newest_first}");
            let seen = walk(&what, |cursor| read(newest_first, limit, cursor)).await;
            assert_eq!(seen, expected, "{what}");
        }
    }
}

/// 11 scores on board `pages` (levels 0, 1, 2 in turn): 7 not on level 0.
async fn scores() -> (Db, Vec<Score>) {
    let db = ddb_tests::db_with_table::<Boards>().await;
    let scores: Vec<Score> = (0..11).map(|i| score("pages", i, 10)).collect();
    for score in &scores {
        db.create(score).send().await.unwrap();
    }
    let mut kept: Vec<Score> = scores.into_iter().filter(|s| s.level != 0).collect();
    kept.sort_by(|a, b| (a.points, &a.player).cmp(&(b.points, &b.player)));
    assert_eq!(kept.len(), N);
    (db, kept)
}

fn players(scores: &[Score]) -> Vec<String> {
    scores.iter().map(|s| s.player.clone()).collect()
}

#[tokio::test]
async fn query_pages_end_at_the_last_item() {
    let (db, kept) = scores().await;
    walk_every_limit("", &players(&kept), |newest_first, limit, cursor| {
        let query = db
            .query(Score::by_board(&"pages".to_string()))
            .filter(Score::fields().level.ne(0u32))
            .newest_first(newest_first)
            .limit(limit);
        let query = match cursor {
            Some(cursor) => query.after(cursor),
            None => query,
        };
        async move {
            let page = query.send().await.unwrap();
            (players(&page.items), page.cursor, page.has_more)
        }
    })
    .await;
}

#[tokio::test]
async fn collection_pages_end_at_the_last_member() {
    let db = ddb_tests::db_with_table::<Boards>().await;
    let members: Vec<Score> = (0..6).map(|i| score("club", i, 10)).collect();
    for score in &members {
        db.create(score).send().await.unwrap();
    }
    let info = BoardInfo {
        board: "club".into(),
        title: "the club's board".into(),
    };
    ddb_tests::put_raw(&db, &[info]).await;
    // Items of an entity the collection does not list, among the members
    // in the partition's order.
    for sk in [
        "A-STRAY",
        "SCORE#00000000000000000000#a",
        "SCORE#00000000000000000050#a",
        "ZZ-STRAY",
    ] {
        let mut stray = Item::new();
        let text = |t: &str| aws_sdk_dynamodb::types::AttributeValue::S(t.into());
        stray.insert("PK".into(), text("BOARD#club"));
        stray.insert("SK".into(), text(sk));
        stray.insert("_type".into(), text("Stray"));
        db.client()
            .put_item()
            .table_name(db.table_name::<Boards>())
            .set_item(Some(stray))
            .send()
            .await
            .unwrap();
    }
    let mut sorted = members.clone();
    sorted.sort_by(|a, b| (a.points, &a.player).cmp(&(b.points, &b.player)));
    // "INFO" sorts before "SCORE#...".
    let mut forward = vec!["info".to_string()];
    forward.extend(players(&sorted));
    assert_eq!(forward.len(), N);
    let id = |item: &BoardItem| match item {
        BoardItem::Score(s) => s.player.clone(),
        BoardItem::Info(_) => "info".to_string(),
    };
    let partition = Score::pk(&"club".to_string()).unwrap();
    walk_every_limit("", &forward, |newest_first, limit, cursor| {
        let query = db
            .collection::<BoardItem>(partition.clone())
            .newest_first(newest_first)
            .limit(limit);
        let query = match cursor {
            Some(cursor) => query.after(cursor),
            None => query,
        };
        async move {
            let page = query.send().await.unwrap();
            let ids = page.items.iter().map(id).collect();
            (ids, page.cursor, page.has_more)
        }
    })
    .await;
}

#[tokio::test]
async fn scan_pages_end_at_the_last_item() {
    let (db, kept) = scores().await;
    let mut expected = players(&kept);
    expected.sort();
    for segments in [1, 2] {
        for limit in 1..=N + 1 {
            let what = format!("limit {limit}, {segments} segments");
            let mut seen = walk(&what, |cursor| {
                let scan = db
                    .scan::<Score>()
                    .segments(segments)
                    .filter(Score::fields().level.ne(0u32))
                    .limit(limit);
                let scan = match cursor {
                    Some(cursor) => scan.after(cursor),
                    None => scan,
                };
                async move {
                    let page = scan.send().await.unwrap();
                    (players(&page.items), page.cursor, page.has_more)
                }
            })
            .await;
            seen.sort();
            assert_eq!(seen, expected, "{what}");
        }
    }
}

/// Reading only the page (`exact_end(false)`), a page that ends exactly at
/// the last item hands out a cursor to an empty page: the old default,
/// kept on request.
#[tokio::test]
async fn exact_end_false_reads_only_the_page() {
    ddb_tests::requires!(LastEvaluatedKeyAtLimit);
    let (db, _) = scores().await;
    let query = || {
        db.query(Score::by_board(&"pages".to_string()))
            .limit(11)
            .exact_end(false)
    };
    let page = query().send().await.unwrap();
    assert_eq!(page.items.len(), 11);
    assert_eq!(page.has_more, None);
    let next = query().after(page.cursor.unwrap()).send().await.unwrap();
    assert!(next.items.is_empty() && next.cursor.is_none());
    // By default, the same page knows it is the last.
    let page = db
        .query(Score::by_board(&"pages".to_string()))
        .limit(11)
        .send()
        .await
        .unwrap();
    assert_eq!((page.items.len(), page.has_more), (11, Some(false)));
    assert!(page.cursor.is_none());
}

/// A write-sharded index's merged pages end at the last item too: when a
/// page took the last item its shards had read, the shards are read again.
#[tokio::test]
async fn sharded_index_pages_end_at_the_last_item() {
    let db = ddb_tests::db_with_table::<Boards>().await;
    let scores: Vec<Score> = (0..21).map(|i| score("shards", i, 10)).collect();
    for score in &scores {
        db.create(score).send().await.unwrap();
    }
    // Level 1: 7 scores, spread over the shards.
    let mut level: Vec<Score> = scores.into_iter().filter(|s| s.level == 1).collect();
    level.sort_by(|a, b| (a.points, &a.player).cmp(&(b.points, &b.player)));
    assert_eq!(level.len(), N);
    walk_every_limit(
        "sharded, ",
        &players(&level),
        |newest_first, limit, cursor| {
            let query = db
                .query(Score::by_level(&1u32))
                .newest_first(newest_first)
                .limit(limit);
            let query = match cursor {
                Some(cursor) => query.after(cursor),
                None => query,
            };
            async move {
                let page = query.send().await.unwrap();
                (players(&page.items), page.cursor, page.has_more)
            }
        },
    )
    .await;
}
