//! A range on the sort-key field after leading fields held equal
//! (`placed_at = x AND order_id > y`), on a template sort key and on a
//! multi-attribute one: every result checked against the items filtered by
//! hand, in one request whose key condition does the work.

use ddb_runtime::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ranges", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByTime", pk("tenant"), sk("ts: N", "seq: N", "tag")))]
struct Ranges;

/// Orders under a template sort key, and in an index keyed by three of
/// their own attributes.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(
    table = Ranges,
    entity = "Order",
    pk = "TENANT#{tenant}",
    sk = "ORDER#{day}#{id}",
    query = "by_day"
)]
#[ddb(index(name = "ByTime", pk(tenant), sk(ts, seq, tag), query = "by_time"))]
struct Order {
    tenant: String,
    day: u32,
    id: String,
    ts: u64,
    seq: u32,
    tag: String,
}

/// Another entity of the same partitions, whose sort keys sort right after
/// the orders': a range must never reach them.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ranges, entity = "Memo", pk = "TENANT#{tenant}", sk = "ORDERZ#{n}")]
struct Memo {
    tenant: String,
    n: u32,
}

const DAYS: [u32; 3] = [1, 2, 10];
/// Ids that test the segment encoding: a prefix of another, the delimiter
/// and the escape inside a value, bytes around the delimiter.
const IDS: [&str; 7] = ["a", "a#b", "a$", "ab", "a\\", "b", "a!"];
const TAGS: [&str; 3] = ["x", "xy", "y"];

fn orders() -> Vec<Order> {
    let mut orders = Vec::new();
    for (d, day) in DAYS.iter().enumerate() {
        for (i, id) in IDS.iter().enumerate() {
            orders.push(Order {
                tenant: "acme".into(),
                day: *day,
                id: (*id).into(),
                ts: 100 * (1 + (d + i) as u64 % 2),
                seq: [1, 2, 10][i % 3],
                tag: TAGS[(d + i) % 3].into(),
            });
        }
    }
    orders
}

async fn seeded() -> Db {
    let db = ddb_tests::db_with_table::<Ranges>().await;
    ddb_tests::put_raw(&db, &orders()).await;
    let memos: Vec<Memo> = (0..3)
        .map(|n| Memo {
            tenant: "acme".into(),
            n,
        })
        .collect();
    ddb_tests::put_raw(&db, &memos).await;
    db
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Gt,
    Ge,
    Lt,
    Le,
    Between,
    BeginsWith,
}

const OPS: [Op; 6] = [Op::Gt, Op::Ge, Op::Lt, Op::Le, Op::Between, Op::BeginsWith];

/// Whether `value op (low, high)` holds (`high` for `between` only).
fn holds<T: PartialOrd + AsText>(op: Op, value: &T, low: &T, high: &T) -> bool {
    match op {
        Op::Gt => value > low,
        Op::Ge => value >= low,
        Op::Lt => value < low,
        Op::Le => value <= low,
        Op::Between => value >= low && value <= high,
        Op::BeginsWith => value.text().starts_with(&low.text()),
    }
}

trait AsText {
    fn text(&self) -> String;
}
impl AsText for String {
    fn text(&self) -> String {
        self.clone()
    }
}
impl AsText for u32 {
    fn text(&self) -> String {
        self.to_string()
    }
}

/// The ids a query returns, in order.
async fn ids(
    query: impl std::future::Future<Output = ddb_runtime::Result<Vec<Order>>>,
) -> Vec<String> {
    query.await.unwrap().into_iter().map(|o| o.id).collect()
}

#[tokio::test]
async fn a_range_after_an_equal_template_field_matches_the_items_filtered_by_hand() {
    let db = seeded().await;
    let tenant = "acme".to_string();
    let all = orders();
    for day in DAYS {
        for low in IDS.map(String::from) {
            let high = IDS.iter().map(|s| s.to_string()).max().unwrap();
            for op in OPS {
                let query = db.query(Order::by_day(&tenant));
                let query = match op {
                    Op::Gt => query.eq_then_gt(&day, &low),
                    Op::Ge => query.eq_then_ge(&day, &low),
                    Op::Lt => query.eq_then_lt(&day, &low),
                    Op::Le => query.eq_then_le(&day, &low),
                    Op::Between => query.eq_then_between(&day, &low, &high),
                    Op::BeginsWith => query.eq_then_begins_with(&day, &low),
                };
                let mut expected: Vec<&Order> = all
                    .iter()
                    .filter(|o| o.day == day && holds(op, &o.id, &low, &high))
                    .collect();
                // The segment encoding keeps the ids' byte order.
                expected.sort_by(|a, b| a.id.cmp(&b.id));
                let expected: Vec<String> = expected.iter().map(|o| o.id.clone()).collect();
                let got = ids(query.collect()).await;
                assert_eq!(got, expected, "day {day} {op:?} {low:?}");
            }
        }
    }
}

#[tokio::test]
async fn a_range_after_equal_index_attributes_matches_the_items_filtered_by_hand() {
    let db = seeded().await;
    let tenant = "acme".to_string();
    let all = orders();
    for ts in [100u64, 200] {
        for low in [1u32, 2, 10] {
            for op in OPS.into_iter().filter(|op| !matches!(op, Op::BeginsWith)) {
                let query = db.query(Order::by_time(&tenant)).hydrate();
                let query = match op {
                    Op::Gt => query.eq_then_gt(&ts, &low),
                    Op::Ge => query.eq_then_ge(&ts, &low),
                    Op::Lt => query.eq_then_lt(&ts, &low),
                    Op::Le => query.eq_then_le(&ts, &low),
                    Op::Between => query.eq_then_between(&ts, &low, &10),
                    Op::BeginsWith => unreachable!(),
                };
                let mut expected: Vec<&Order> = all
                    .iter()
                    .filter(|o| o.ts == ts && holds(op, &o.seq, &low, &10))
                    .collect();
                expected.sort_by(|a, b| (a.seq, &a.tag, &a.id).cmp(&(b.seq, &b.tag, &b.id)));
                let got: Vec<(u32, String)> = query
                    .collect()
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|o| (o.seq, o.tag))
                    .collect();
                let expected: Vec<(u32, String)> =
                    expected.iter().map(|o| (o.seq, o.tag.clone())).collect();
                assert_eq!(got, expected, "ts {ts} {op:?} {low}");
            }
        }
    }
    // Two attributes held equal, a range on the third (a String).
    for (ts, seq) in [(100u64, 1u32), (200, 2), (100, 10)] {
        for low in TAGS.map(String::from) {
            for op in OPS {
                let high = "y".to_string();
                let query = db.query(Order::by_time(&tenant)).hydrate();
                let leading = (&ts, &seq);
                let query = match op {
                    Op::Gt => query.eq_then_gt(leading, &low),
                    Op::Ge => query.eq_then_ge(leading, &low),
                    Op::Lt => query.eq_then_lt(leading, &low),
                    Op::Le => query.eq_then_le(leading, &low),
                    Op::Between => query.eq_then_between(leading, &low, &high),
                    Op::BeginsWith => query.eq_then_begins_with(leading, &low),
                };
                let mut expected: Vec<&Order> = all
                    .iter()
                    .filter(|o| o.ts == ts && o.seq == seq && holds(op, &o.tag, &low, &high))
                    .collect();
                expected.sort_by(|a, b| (&a.tag, &a.id).cmp(&(&b.tag, &b.id)));
                let mut got = query.collect().await.unwrap();
                // Items equal on the whole index key come in any order.
                got.sort_by(|a, b| (&a.tag, &a.id).cmp(&(&b.tag, &b.id)));
                let got: Vec<&str> = got.iter().map(|o| o.id.as_str()).collect();
                let expected: Vec<&str> = expected.iter().map(|o| o.id.as_str()).collect();
                assert_eq!(got, expected, "({ts}, {seq}) {op:?} {low:?}");
            }
        }
    }
}

#[tokio::test]
async fn the_range_is_one_key_condition_with_no_filter_on_the_keys() {
    let db = seeded().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ranges>(&db).await;
    proxy.record("Query");
    let tenant = "acme".to_string();
    let got = ids(through
        .query(Order::by_time(&tenant))
        .eq_then_gt(&200u64, &1u32)
        .hydrate()
        .collect())
    .await;
    assert!(!got.is_empty());
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert_eq!(sent.len(), 1, "{sent:?}");
    let body = &sent[0];
    let condition = body["KeyConditionExpression"].as_str().unwrap();
    let names = &body["ExpressionAttributeNames"];
    let named = |attribute: &str| {
        names
            .as_object()
            .and_then(|names| names.iter().find(|(_, v)| v.as_str() == Some(attribute)))
            .map_or(attribute.to_owned(), |(k, _)| k.clone())
    };
    let ts = named("ts");
    let seq = named("seq");
    assert!(condition.contains(&format!("{ts} = ")), "{condition}");
    assert!(condition.contains(&format!("{seq} > ")), "{condition}");
    let filter = body["FilterExpression"].as_str().unwrap_or("");
    assert!(
        !filter.contains(&ts) && !filter.contains(&seq),
        "the keys are in the key condition, not a filter: {filter}"
    );
}

#[tokio::test]
async fn pages_of_a_range_after_equal_fields_resume_in_both_orders() {
    let db = seeded().await;
    let tenant = "acme".to_string();
    for newest_first in [false, true] {
        let whole = ids(db
            .query(Order::by_day(&tenant))
            .eq_then_ge(&2u32, &"a$".to_string())
            .newest_first(newest_first)
            .collect())
        .await;
        assert!(whole.len() > 2, "{whole:?}");
        let mut paged = Vec::new();
        let mut cursor = None;
        loop {
            let mut query = db
                .query(Order::by_day(&tenant))
                .eq_then_ge(&2u32, &"a$".to_string())
                .newest_first(newest_first)
                .limit(2);
            if let Some(cursor) = cursor.take() {
                query = query.after(cursor);
            }
            let page = query.send().await.unwrap();
            paged.extend(page.items.into_iter().map(|o| o.id));
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(paged, whole, "newest first: {newest_first}");
    }
}

#[tokio::test]
async fn a_cursor_of_another_leading_value_is_refused() {
    let db = seeded().await;
    let tenant = "acme".to_string();
    let page = db
        .query(Order::by_day(&tenant))
        .eq_then_gt(&1u32, &"a".to_string())
        .limit(1)
        .send()
        .await
        .unwrap();
    let cursor = page.cursor.expect("more orders on day 1");
    let other = db
        .query(Order::by_day(&tenant))
        .eq_then_gt(&2u32, &"a".to_string())
        .after(cursor)
        .send()
        .await;
    assert!(
        matches!(other, Err(Error::InvalidCursor { .. })),
        "{other:?}"
    );
}

#[tokio::test]
async fn bad_values_are_refused_before_sending() {
    let db = seeded().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ranges>(&db).await;
    let tenant = "acme".to_string();
    // begins_with on a Number attribute.
    let number = through
        .query(Order::by_time(&tenant))
        .eq_then_begins_with(&100u64, &1u32)
        .hydrate()
        .collect()
        .await;
    assert!(
        matches!(number, Err(Error::InvalidSortCondition { .. })),
        "{number:?}"
    );
    // A low bound above the high bound.
    let reversed = through
        .query(Order::by_day(&tenant))
        .eq_then_between(&1u32, &"b".to_string(), &"a".to_string())
        .collect()
        .await;
    assert!(
        matches!(reversed, Err(Error::InvalidSortCondition { .. })),
        "{reversed:?}"
    );
    // A value no key can hold.
    let long = through
        .query(Order::by_day(&tenant))
        .eq_then_gt(&1u32, &"x".repeat(2000))
        .collect()
        .await;
    assert!(matches!(long, Err(Error::KeyTooLarge { .. })), "{long:?}");
    assert_eq!(proxy.seen("Query"), 0);
}
