//! Secondary-index queries past the plain case: sharded indexes merged in
//! order and streamed reading each item once, KEYS_ONLY indexes hydrated from
//! the table and projected, a KEYS_ONLY local index read whole, and a
//! hydrated page that meets an item twice.

use std::collections::HashSet;

use ddb_examples::single_table::{Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::{Entity, Projection, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use time::macros::datetime;
use time::OffsetDateTime;

use crate::fixtures::{generated, order, seed_orders, store};

#[derive(Projection, Deserialize, Debug, PartialEq, Clone)]
#[ddb(entity = Order)]
struct OpenOrderSummary {
    customer_id: CustomerId,
    order_id: OrderId,
    #[serde(with = "time::serde::rfc3339")]
    placed_at: OffsetDateTime,
    total_cents: u64,
}

#[tokio::test]
async fn open_orders_merge_across_shards() {
    let db = store().await;
    // 40 open orders of several customers, interleaved in time, and shipped
    // ones that must not appear.
    let mut open: Vec<Order> = (0..40)
        .map(|i| {
            let at = datetime!(2026-03-01 00:00:00 UTC) + time::Duration::minutes(7 * i);
            order(
                &format!("{}", 500 + i % 7),
                &format!("O{i:03}"),
                at,
                OrderStatus::Open,
                i as u64,
            )
        })
        .collect();
    ddb_tests::put_raw(&db, &open).await;
    ddb_tests::put_raw(&db, &generated("777", 10, OrderStatus::Shipped)).await;
    open.push(seed_orders()[2].clone()); // A145 is open too
    open.sort_by(|a, b| (a.placed_at, &a.order_id).cmp(&(b.placed_at, &b.order_id)));
    let shards: HashSet<u16> = open
        .iter()
        .map(|o| {
            ddb_runtime::key::shard_of(ddb_runtime::Entity::primary_key(o).unwrap().values(), 4)
        })
        .collect();
    assert_eq!(shards.len(), 4, "the data spreads over all four shards");

    let query = || {
        db.query(Order::open_orders(&OrderStatus::Open))
            .project::<OpenOrderSummary>()
    };
    // A limit smaller than one shard's share, page after page.
    let mut seen = Vec::new();
    let mut page = query().limit(3).send().await.unwrap();
    assert_eq!(page.items.len(), 3);
    seen.extend(page.items.clone());
    while let Some(cursor) = page.cursor.clone() {
        page = query().limit(3).after(cursor).send().await.unwrap();
        assert!(page.items.len() <= 3);
        seen.extend(page.items.clone());
    }
    let expected: Vec<&str> = open.iter().map(|o| o.order_id.0.as_str()).collect();
    assert_eq!(
        seen.iter()
            .map(|o| o.order_id.0.as_str())
            .collect::<Vec<_>>(),
        expected
    );

    let newest: Vec<OpenOrderSummary> = query()
        .newest_first(true)
        .limit(5)
        .send()
        .await
        .unwrap()
        .items;
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(
        newest
            .iter()
            .map(|o| o.order_id.0.as_str())
            .collect::<Vec<_>>(),
        reversed[..5]
    );

    // Hydrated: whole orders, fetched from the table by key.
    let hydrated = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .limit(4)
        .send()
        .await
        .unwrap();
    assert_eq!(hydrated.items, open[..4].to_vec());
}

/// A stream over a sharded index reads each item once, not every shard's
/// remaining page on every page (about shards-times the read units): its read
/// units are within 10% of reading the four shards directly with the SDK.
#[tokio::test]
async fn a_sharded_stream_reads_each_item_once() {
    ddb_tests::requires!(CapacityByItemSize);
    // The test compares the read units pages report with the raw queries'.
    let db = ddb_tests::db_with_table::<Ecommerce>()
        .await
        .with_return_consumed_capacity();
    let orders: Vec<Order> = (0..2000)
        .map(|i| {
            order(
                &format!("C{}", i % 7),
                &format!("F{i:04}"),
                datetime!(2026-01-01 00:00:00 UTC) + time::Duration::minutes(i),
                OrderStatus::Open,
                100,
            )
        })
        .collect();
    ddb_tests::put_raw(&db, &orders).await;

    let mut ddb_units = 0.0;
    let mut returned = 0;
    let mut pages = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .limit(100)
        .pages();
    // Hydrating fetches from the table; count the index reads only.
    while let Some(page) = pages.try_next().await.unwrap() {
        returned += page.items.len();
        ddb_units += page.consumed_capacity.total;
    }
    assert_eq!(returned, 2000);

    let (mut raw_units, mut raw_requests) = (0.0, 0);
    for shard in 0..4 {
        let mut start = None;
        loop {
            let output = db
                .client()
                .query()
                .table_name(db.table_name::<Ecommerce>())
                .index_name("GSI2")
                .key_condition_expression("GSI2PK = :pk")
                .expression_attribute_values(
                    ":pk",
                    aws_sdk_dynamodb::types::AttributeValue::S(format!("STATUS#OPEN#{shard}")),
                )
                .set_exclusive_start_key(start)
                .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total)
                .send()
                .await
                .unwrap();
            raw_requests += 1;
            raw_units += output
                .consumed_capacity()
                .and_then(|c| c.capacity_units())
                .unwrap_or(0.0);
            start = output.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
    }
    assert!(raw_units > 0.0, "the server reports consumed capacity");
    assert!(
        ddb_units <= raw_units * 1.1,
        "ddb read {ddb_units} units, the shards read directly {raw_units}"
    );

    // Without a page size, a stream reads each shard as the direct reads
    // did: whole DynamoDB pages, so the same requests and units, and its
    // items come merged in sort-key order.
    let (mut units, mut requests, mut placed) = (0.0, 0, Vec::new());
    let mut pages = db
        .query(Order::open_orders(&OrderStatus::Open))
        .project::<OpenOrderSummary>()
        .pages();
    while let Some(page) = pages.try_next().await.unwrap() {
        assert!(page.items.len() <= 100, "pages of 100 without a limit");
        units += page.consumed_capacity.total;
        requests += page.requests;
        placed.extend(page.items.iter().map(|o| o.placed_at));
    }
    assert_eq!(placed.len(), 2000);
    assert!(placed.windows(2).all(|w| w[0] <= w[1]), "merged in order");
    assert_eq!(requests, raw_requests, "one request per DynamoDB page");
    assert!(
        units <= raw_units * 1.1,
        "ddb read {units} units, the shards read directly {raw_units}"
    );
}

#[derive(ddb_runtime::Table)]
#[ddb(name = "Events", pk = "PK", sk = "SK")]
#[ddb(index(name = "Recent", pk = "RecentPK", sk = "RecentSK"))]
struct Events;

/// An event of a feed so busy its index spreads over 20 shards.
#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Events, entity = "Event", pk = "EVENT#{id}", sk = "EVENT")]
#[ddb(index(
    name = "Recent",
    pk = "FEED",
    sk = "{id}",
    query = "recent",
    shards = 20
))]
struct Event {
    id: String,
}

/// A stream without a page size reads its shards a whole
/// DynamoDB page at a time only on indexes of up to 16 shards; on more it
/// reads in growing steps from the page size, so what it reads ahead stays
/// bounded (20 shards of 150 events: 100 each first, then the rest).
#[tokio::test]
async fn a_stream_over_many_shards_reads_in_steps() {
    let db = ddb_tests::db_with_table::<Events>().await;
    let events: Vec<Event> = (0..3000)
        .map(|i| Event {
            id: format!("E{i:05}"),
        })
        .collect();
    db.batch_put(&events).await.unwrap();
    let mut pages = db.query(Event::recent()).pages();
    let first = pages.try_next().await.unwrap().unwrap();
    assert_eq!(first.items.len(), 100);
    assert_eq!(first.requests, 20, "one request a shard");
    let (mut requests, mut read) = (first.requests, first.items.len());
    while let Some(page) = pages.try_next().await.unwrap() {
        requests += page.requests;
        read += page.items.len();
    }
    assert_eq!(read, 3000);
    // Whole pages would have read each shard's 150 events in one request.
    assert!(requests > 20, "{requests} requests");
}

#[derive(Table)]
#[ddb(name = "Shelves", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByAisle", pk = "aisle", sk = "id", projection = "keys_only"))]
struct Shelves;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shelves, entity = "Shelf", pk = "SHELF#{id}", sk = "SHELF", query = "shelf")]
#[ddb(index(name = "ByAisle", pk = "{aisle}", sk = "{id}", query = "in_aisle"))]
struct Shelf {
    id: String,
    aisle: String,
    label: String,
}

/// Another entity in the same index partition, to be told apart.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shelves, entity = "Sign", pk = "SIGN#{id}", sk = "SIGN")]
#[ddb(index(name = "ByAisle", pk = "{aisle}", sk = "{id}"))]
struct Sign {
    id: String,
    aisle: String,
}

/// What the KEYS_ONLY index carries of a shelf: its raw key fields.
#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Shelf)]
struct ShelfKey {
    id: String,
    aisle: String,
}

/// `.hydrate()` and `.project()` find the items of a KEYS_ONLY index, which
/// does not carry `_type` to filter on: items of another entity in the
/// partition are told apart by their table key.
#[tokio::test]
async fn a_keys_only_index_hydrates_and_projects() {
    let db = ddb_tests::db_with_table::<Shelves>().await;
    for id in ["s1", "s2"] {
        db.create(&Shelf {
            id: id.into(),
            aisle: "7".into(),
            label: format!("shelf {id}"),
        })
        .send()
        .await
        .unwrap();
    }
    db.create(&Sign {
        id: "s15".into(),
        aisle: "7".into(),
    })
    .send()
    .await
    .unwrap();
    let shelves: Vec<Shelf> = db
        .query(Shelf::in_aisle(&"7".to_string()))
        .hydrate()
        .collect()
        .await
        .unwrap();
    let labels: Vec<&str> = shelves.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["shelf s1", "shelf s2"]);
    let keys: Vec<ShelfKey> = db
        .query(Shelf::in_aisle(&"7".to_string()))
        .project::<ShelfKey>()
        .limit(2)
        .collect()
        .await
        .unwrap();
    let ids: Vec<&str> = keys.iter().map(|k| k.id.as_str()).collect();
    assert_eq!(ids, ["s1", "s2"]);
}

/// The ProjectionExpression of each projected query, as sent: `None` where
/// none was.
async fn projection_sent<P: std::fmt::Debug>(
    db: &ddb_runtime::Db,
    read: impl AsyncFnOnce(&ddb_runtime::Db) -> Vec<P>,
) -> (Vec<P>, Vec<Option<String>>) {
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(db).await;
    proxy.record("Query");
    let items = read(&through).await;
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert!(!sent.is_empty(), "a Query was sent");
    let projections = sent
        .iter()
        .map(|body| body["ProjectionExpression"].as_str().map(str::to_owned))
        .collect();
    (items, projections)
}

/// A projection an index holds whole (GSI2 includes every attribute of
/// `OpenOrderSummary`) is read from the index's own projection, with no
/// ProjectionExpression for the server to apply: it returns what the index
/// projects, at the same capacity. Where the index or the table holds more
/// (GSI1 projects all, the table holds all), the query names its attributes.
#[tokio::test]
async fn a_projection_its_index_holds_sends_no_projection_expression() {
    let db = store().await;
    let (open, sent) = projection_sent(&db, async |db: &ddb_runtime::Db| {
        db.query(Order::open_orders(&OrderStatus::Open))
            .project::<OpenOrderSummary>()
            .collect()
            .await
            .unwrap()
    })
    .await;
    let ids: Vec<&str> = open.iter().map(|o| o.order_id.0.as_str()).collect();
    assert_eq!(ids, ["A145"], "the open order, decoded from GSI2");
    assert_eq!(open[0].total_cents, seed_orders()[2].total_cents);
    assert!(sent.iter().all(Option::is_none), "{sent:?}");

    let (by_id, sent) = projection_sent(&db, async |db: &ddb_runtime::Db| {
        db.query(Order::by_order_id(&OrderId("A145".into())))
            .project::<OpenOrderSummary>()
            .collect()
            .await
            .unwrap()
    })
    .await;
    assert_eq!(by_id, open);
    assert!(
        sent.iter().all(Option::is_some),
        "GSI1 projects all: {sent:?}"
    );

    let (of_customer, sent) = projection_sent(&db, async |db: &ddb_runtime::Db| {
        db.query(Order::by_customer(&CustomerId("123".into())))
            .project::<OpenOrderSummary>()
            .collect()
            .await
            .unwrap()
    })
    .await;
    assert!(of_customer.contains(&open[0]), "{of_customer:?}");
    assert!(sent.iter().all(Option::is_some), "the table: {sent:?}");
}

#[derive(Table)]
#[ddb(name = "Threads", pk = "PK", sk = "SK")]
#[ddb(local_index(name = "ByActivity", sk = "LSI1SK", projection = "keys_only"))]
struct Threads;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Threads, entity = "Thread", pk = "FORUM#{forum}", sk = "THREAD#{id}", query = "threads")]
#[ddb(index(
    name = "ByActivity",
    sk = "ACTIVE#{active_at}#{id}",
    query = "by_activity"
))]
struct Thread {
    forum: String,
    id: String,
    active_at: u64,
    title: String,
    #[serde(default)]
    note: Option<String>,
    /// Stamped by ddb at each write, in a key: whole seconds.
    #[ddb(updated_at)]
    updated_at: Option<ddb_runtime::Timestamp>,
}

/// A local index that projects only keys still reads whole entities (the
/// local index fetches the rest from the table): DynamoDB returns only the
/// projected attributes unless asked for all.
#[tokio::test]
async fn a_keys_only_local_index_reads_whole_entities() {
    ddb_tests::requires!(LocalIndexFetches);
    let db = ddb_tests::db_with_table::<Threads>().await;
    let thread = Thread {
        forum: "rust".into(),
        id: "t1".into(),
        active_at: 5,
        title: "Keys".into(),
        note: Some("pinned".into()),
        updated_at: None,
    };
    db.create(&thread).send().await.unwrap();
    let found: Vec<Thread> = db
        .query(Thread::by_activity(&"rust".to_string()))
        .collect()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].title, "Keys");
    assert_eq!(found[0].note.as_deref(), Some("pinned"));
}

/// What a forum's list shows of a thread: its title, which the KEYS_ONLY
/// local index does not hold.
#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Thread)]
struct ThreadTitle {
    id: String,
    title: String,
}

/// A projection read through a local index that lacks some of its
/// attributes (KEYS_ONLY: all but the keys) reads the items whole, which
/// the index fetches from the table.
#[tokio::test]
async fn a_local_index_lacking_a_projected_attribute_is_read_whole() {
    ddb_tests::requires!(LocalIndexFetches);
    let db = ddb_tests::db_with_table::<Threads>().await;
    db.create(&Thread {
        forum: "rust".into(),
        id: "t1".into(),
        active_at: 5,
        title: "Keys".into(),
        note: None,
        updated_at: None,
    })
    .send()
    .await
    .unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Threads>(&db).await;
    proxy.record("Query");
    let titles: Vec<ThreadTitle> = through
        .query(Thread::by_activity(&"rust".to_string()))
        .project::<ThreadTitle>()
        .collect()
        .await
        .unwrap();
    assert_eq!(
        titles,
        [ThreadTitle {
            id: "t1".into(),
            title: "Keys".into()
        }]
    );
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert!(!sent.is_empty());
    for body in sent {
        assert_eq!(body["Select"], "ALL_ATTRIBUTES", "{body}");
        assert!(body.get("ProjectionExpression").is_none(), "{body}");
    }
}

#[derive(Table)]
#[ddb(name = "Racks", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByRank", pk = "aisle", sk = "rank", projection = "keys_only"))]
struct Racks;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Racks, entity = "Rack", pk = "RACK#{id}", sk = "RACK")]
#[ddb(index(name = "ByRank", pk = "{aisle}", sk = "{rank}", query = "by_rank"))]
struct Rack {
    id: String,
    aisle: String,
    rank: String,
}

/// Another entity in the same index partition: dropped by ddb, so a page
/// takes more than one Query.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Racks, entity = "Label", pk = "LABEL#{id}", sk = "LABEL")]
#[ddb(index(name = "ByRank", pk = "{aisle}", sk = "{rank}"))]
struct Label {
    id: String,
    aisle: String,
    rank: String,
}

/// A hydrated page read with two Query requests can meet the same item twice,
/// when its index sort key moves past the first request's end between them: the
/// page asks for each key once (a batch get refuses a repeated key) and returns
/// the item once, as it is now.
#[tokio::test]
async fn a_hydrated_page_that_meets_an_item_twice_reads_it_once() {
    let db = ddb_tests::db_with_table::<Racks>().await;
    let rack = |id: &str, rank: &str| Rack {
        id: id.into(),
        aisle: "7".into(),
        rank: rank.into(),
    };
    db.create(&rack("a", "b")).send().await.unwrap();
    db.create(&rack("z", "e")).send().await.unwrap();
    db.create(&Label {
        id: "l".into(),
        aisle: "7".into(),
        rank: "c".into(),
    })
    .send()
    .await
    .unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Racks>(&db).await;
    // The first Query reads rack a (rank b) and the label (rank c); while its
    // answer is held, rack a moves to rank d, which the second Query reads.
    let held = proxy.hold("Query");
    let page = tokio::spawn(async move {
        through
            .query(Rack::by_rank(&"7".to_string()))
            .hydrate()
            .limit(2)
            // Only the page: the label makes it take a second request.
            .exact_end(false)
            .send()
            .await
    });
    held.applied().await;
    let key = Rack::key(&"a".to_string()).unwrap();
    db.update(key)
        .set(Rack::fields().rank, "d".to_string())
        .send()
        .await
        .unwrap();
    held.release();
    let page = page.await.unwrap().unwrap();
    let ids: Vec<&str> = page.items.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a"], "rack a once, as it is now: {page:?}");
    assert_eq!(page.items[0].rank, "d");
    assert!(proxy.seen("Query") >= 2, "the page took two Query requests");
}

/// A leaderboard written over 8 shards, its scores drawn from a fixed seed.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Board", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByScore", pk = "ScorePK", sk = "ScoreSK"))]
struct Board;

#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Board, entity = "Score", pk = "PLAYER#{player}", sk = "SCORE")]
#[ddb(index(
    name = "ByScore",
    pk = "BOARD",
    sk = "{score}",
    query = "top",
    shards = 8
))]
struct Score {
    player: String,
    score: u64,
    pad: String,
}

/// The top 10 of an 8-shard leaderboard of 1.5 KB items: each shard is
/// asked for its share and a margin (at most 5 items), in one round of 8
/// Queries, and the page reads 8 read units where asking each shard for
/// the whole page read 16.
#[tokio::test]
async fn a_sharded_page_asks_each_shard_for_its_share_and_a_margin() {
    ddb_tests::requires!(CapacityByItemSize);
    let db = ddb_tests::db_with_table::<Board>().await;
    let mut draws = ddb_tests::SplitMix64(7);
    let scores: Vec<Score> = (0..400)
        .map(|i| Score {
            player: format!("p{i}"),
            score: draws.below(1_000_000),
            pad: "x".repeat(1500),
        })
        .collect();
    db.batch_put(&scores).await.unwrap();
    let mut best: Vec<u64> = scores.iter().map(|s| s.score).collect();
    best.sort_unstable_by(|a, b| b.cmp(a));
    let (proxy, through) = ddb_tests::through_proxy::<Board>(&db).await;
    proxy.record("Query");
    let page = through
        .with_return_consumed_capacity()
        .query(Score::top())
        .newest_first(true)
        .limit(10)
        .send()
        .await
        .unwrap();
    let top: Vec<u64> = page.items.iter().map(|s| s.score).collect();
    assert_eq!(top, best[..10]);
    assert_eq!(page.requests, 8);
    let limits = ddb_tests::recorded_field(&proxy, "Query", "Limit");
    assert!(
        limits
            .iter()
            .all(|l| l.as_ref().and_then(|l| l.as_u64()) <= Some(5)),
        "{limits:?}"
    );
    assert_eq!(page.consumed_capacity.total, 8.0);
}
