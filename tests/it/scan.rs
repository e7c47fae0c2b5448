//! Typed scans: only the scanned entity comes back (never another entity
//! of the table, never a guard item), with the caller's filter and
//! projection, pages of exactly `limit` items, every item once across
//! parallel segments, cursors that resume and refuse what is not theirs,
//! progress and capacity; the report and the IAM policy list the scan.

use std::collections::{BTreeSet, HashSet};

use ddb_runtime::{Entity, Error, Table};
use ddb_tools::iam::{Access, PolicyBuilder};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Members", pk = "PK", sk = "SK", ttl = "expiresAt")]
pub(crate) struct Members;

/// Scanned, with a unique value (so the table holds guard items) and a
/// time to live.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Members, entity = "Member", pk = "MEMBER#{id}", sk = "PROFILE", scan)]
pub(crate) struct Member {
    id: u32,
    #[ddb(unique)]
    email: String,
    points: u64,
    #[ddb(ttl)]
    expires_at: Option<u64>,
}

/// Another entity in the same partitions, scanned and queried too.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Members, entity = "Note", pk = "MEMBER#{member}", sk = "NOTE#{n}", query = "notes", scan)]
struct Note {
    member: u32,
    n: u32,
    text: String,
}

#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Member)]
struct MemberPoints {
    id: u32,
    points: u64,
}

fn member(id: u32) -> Member {
    Member {
        id,
        email: format!("m{id}@example.com"),
        points: u64::from(id) * 10,
        expires_at: None,
    }
}

/// A table with members `0..n` (created through ddb: each with its
/// email's guard item) and two notes per member.
async fn members(n: u32) -> ddb_runtime::Db {
    let db = ddb_tests::db_with_table::<Members>().await;
    for id in 0..n {
        db.create(&member(id)).send().await.unwrap();
    }
    let notes: Vec<Note> = (0..n)
        .flat_map(|member| {
            (0..2).map(move |n| Note {
                member,
                n,
                text: format!("note {n}"),
            })
        })
        .collect();
    ddb_tests::put_raw(&db, &notes).await;
    db
}

fn ids(members: &[Member]) -> Vec<u32> {
    let mut ids: Vec<u32> = members.iter().map(|m| m.id).collect();
    ids.sort_unstable();
    ids
}

#[tokio::test]
async fn a_scan_returns_only_its_entity_never_other_entities_or_guards() {
    let db = members(6).await;
    let raw = ddb_tests::scan_raw::<Members>(&db).await;
    // 6 members, 12 notes and 6 guards of the emails.
    assert_eq!(raw.len(), 24, "the table holds other items to leave out");
    let scanned = db.scan::<Member>().collect().await.unwrap();
    assert_eq!(ids(&scanned), (0..6).collect::<Vec<_>>());
    assert_eq!(scanned.iter().find(|m| m.id == 3), Some(&member(3)));
    let notes = db.scan::<Note>().collect().await.unwrap();
    assert_eq!(notes.len(), 12);
}

#[tokio::test]
async fn a_page_reports_items_read_against_items_returned() {
    let db = members(5).await;
    let fields = Member::fields();
    let page = db
        .scan::<Member>()
        .filter(fields.points.ge(30u64))
        .send()
        .await
        .unwrap();
    assert_eq!(ids(&page.items), [3, 4]);
    // Every item of the table is read (and billed), whatever is returned.
    assert_eq!(page.scanned, 20);
    assert_eq!(page.cursor, None);
    assert_eq!(page.has_more, Some(false));
    assert_eq!((page.segments_done, page.segments), (1, 1));
    assert_eq!(page.requests, 1);
}

#[tokio::test]
async fn a_projection_reads_only_its_attributes() {
    let db = members(3).await;
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    proxy.record("Scan");
    let mut points = through
        .scan::<Member>()
        .project::<MemberPoints>()
        .collect()
        .await
        .unwrap();
    points.sort_by_key(|p| p.id);
    assert_eq!(
        points,
        [(0, 0), (1, 10), (2, 20)].map(|(id, points)| MemberPoints { id, points })
    );
    let sent = ddb_tests::recorded_json(&proxy, "Scan");
    assert_eq!(sent.len(), 1);
    assert!(sent[0]["ProjectionExpression"].is_string(), "{}", sent[0]);
    let projected: BTreeSet<String> = ddb_tests::projected_attributes(&sent[0])
        .into_iter()
        .collect();
    assert!(!projected.contains("email"), "{projected:?}");
    assert!(projected.contains("points"), "{projected:?}");
    assert_eq!(sent[0]["Select"], "SPECIFIC_ATTRIBUTES");
    assert!(
        sent[0].get("TotalSegments").is_none() && sent[0].get("Segment").is_none(),
        "one segment is a plain Scan: {}",
        sent[0]
    );
}

#[tokio::test]
async fn a_limit_returns_exactly_n_items_past_filtered_out_ones() {
    let db = members(30).await;
    let fields = Member::fields();
    // 7 of 90 items match: most requests read only items the filter drops.
    let selective = || fields.points.lt(70u64);
    let pages: Vec<_> = db
        .scan::<Member>()
        .filter(selective())
        .limit(3)
        .pages()
        .try_collect()
        .await
        .unwrap();
    let sizes: Vec<usize> = pages.iter().map(|p| p.items.len()).collect();
    assert_eq!(sizes, [3, 3, 1]);
    let all: Vec<Member> = pages.into_iter().flat_map(|p| p.items).collect();
    assert_eq!(ids(&all), (0..7).collect::<Vec<_>>());
    let first = db
        .scan::<Member>()
        .filter(selective())
        .limit(3)
        .send()
        .await
        .unwrap();
    assert_eq!(first.items.len(), 3);
    assert!(first.cursor.is_some());
}

#[tokio::test]
async fn segments_read_every_item_exactly_once() {
    let db = members(40).await;
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    proxy.record("Scan");
    let scanned = through
        .scan::<Member>()
        .segments(4)
        .collect()
        .await
        .unwrap();
    assert_eq!(scanned.len(), 40, "no item twice");
    assert_eq!(ids(&scanned), (0..40).collect::<Vec<_>>());
    let sent = ddb_tests::recorded_json(&proxy, "Scan");
    let segments: BTreeSet<i64> = sent
        .iter()
        .map(|b| b["Segment"].as_i64().unwrap())
        .collect();
    assert_eq!(segments, BTreeSet::from([0, 1, 2, 3]));
    assert!(sent.iter().all(|b| b["TotalSegments"] == 4));
}

#[tokio::test]
async fn segments_are_read_concurrently() {
    use std::time::{Duration, Instant};
    let db = members(8).await;
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    let held = proxy.hold("Scan");
    let scan = tokio::spawn(through.scan::<Member>().segments(4).send());
    held.applied().await;
    // The first segment's answer is held back: the others are asked all
    // the same.
    let deadline = Instant::now() + Duration::from_secs(10);
    while proxy.seen("Scan") < 4 {
        assert!(
            Instant::now() < deadline,
            "segments read one after another: {} asked",
            proxy.seen("Scan")
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    held.release();
    let page = scan.await.unwrap().unwrap();
    assert_eq!(ids(&page.items), (0..8).collect::<Vec<_>>());
    assert_eq!(page.requests, 4);
}

#[tokio::test]
async fn a_cursor_resumes_across_pages_and_segments() {
    let db = members(25).await;
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let mut scan = db.scan::<Member>().segments(3).limit(4);
        if let Some(cursor) = cursor.take() {
            scan = scan.after(cursor);
        }
        let page = scan.send().await.unwrap();
        pages += 1;
        assert!(page.items.len() <= 4);
        assert_eq!(page.segments, 3);
        seen.extend(page.items.iter().map(|m| m.id));
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(pages < 50, "the scan does not end");
    }
    assert!(pages >= 7, "{pages} pages of at most 4");
    let unique: HashSet<u32> = seen.iter().copied().collect();
    assert_eq!(unique.len(), seen.len(), "an item came twice: {seen:?}");
    assert_eq!(unique, (0..25).collect());
}

#[tokio::test]
async fn a_cursor_of_a_query_another_entity_or_other_segments_is_refused() {
    let db = members(4).await;
    let query_cursor = db
        .query(Note::notes(&1))
        .limit(1)
        .send()
        .await
        .unwrap()
        .cursor
        .expect("a query cursor");
    let note_cursor = db
        .scan::<Note>()
        .limit(1)
        .send()
        .await
        .unwrap()
        .cursor
        .expect("a scan cursor");
    let two_segments = db
        .scan::<Member>()
        .segments(2)
        .limit(1)
        .send()
        .await
        .unwrap()
        .cursor
        .expect("a scan cursor");
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    proxy.record("Scan");
    for cursor in [query_cursor, note_cursor, two_segments.clone()] {
        let refused = through.scan::<Member>().after(cursor).send().await;
        assert!(
            matches!(refused, Err(Error::InvalidCursor { .. })),
            "{refused:?}"
        );
    }
    assert!(ddb_tests::recorded_json(&proxy, "Scan").is_empty());
    let resumed = through
        .scan::<Member>()
        .segments(2)
        .after(two_segments)
        .collect()
        .await
        .unwrap();
    assert_eq!(resumed.len(), 3, "the rest after the first member");
}

#[tokio::test]
async fn a_signed_db_refuses_a_tampered_scan_cursor() {
    let db = members(4).await;
    let signed = db.with_cursor_key(b"a key of at least thirty-two bytes".to_vec());
    let cursor = signed
        .scan::<Member>()
        .limit(1)
        .send()
        .await
        .unwrap()
        .cursor
        .unwrap();
    let text = cursor.as_str();
    let (document, tag) = text.split_once('.').expect("a signed cursor");
    // The same document with a byte changed, and the document unsigned.
    let mut changed = document.as_bytes().to_vec();
    let at = changed.len() / 2;
    changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{}.{tag}", String::from_utf8(changed).unwrap());
    for forged in [tampered, document.to_owned()] {
        let refused = signed
            .scan::<Member>()
            .after(forged.parse().unwrap())
            .send()
            .await;
        assert!(
            matches!(refused, Err(Error::InvalidCursor { .. })),
            "{refused:?}"
        );
    }
    let rest = signed
        .scan::<Member>()
        .after(cursor)
        .collect()
        .await
        .unwrap();
    assert_eq!(rest.len(), 3);
}

#[tokio::test]
async fn a_bad_segment_count_or_limit_is_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Members>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    proxy.record("Scan");
    for segments in [0, ddb_runtime::scan::MAX_SEGMENTS + 1] {
        let refused = through.scan::<Member>().segments(segments).send().await;
        assert!(
            matches!(&refused, Err(Error::InvalidRequest { reason, .. }) if reason.contains("segments")),
            "{refused:?}"
        );
    }
    let refused = through.scan::<Member>().limit(0).send().await;
    assert!(matches!(refused, Err(Error::InvalidRequest { .. })));
    assert!(ddb_tests::recorded_json(&proxy, "Scan").is_empty());
}

#[tokio::test]
async fn expired_items_are_left_out_unless_asked_for() {
    let db = ddb_tests::db_with_table::<Members>().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let expired = Member {
        expires_at: Some(now - 60),
        ..member(1)
    };
    let live = Member {
        expires_at: Some(now + 3600),
        ..member(2)
    };
    ddb_tests::put_raw(&db, &[expired, live, member(3)]).await;
    let scanned = db.scan::<Member>().collect().await.unwrap();
    assert_eq!(ids(&scanned), [2, 3]);
    let all = db
        .scan::<Member>()
        .include_expired(true)
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&all), [1, 2, 3]);
}

#[tokio::test]
async fn consumed_capacity_is_reported_when_asked() {
    let db = members(3).await;
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    proxy.record("Scan");
    let page = through
        .with_return_consumed_capacity()
        .scan::<Member>()
        .send()
        .await
        .unwrap();
    assert!(page.consumed_capacity.total > 0.0, "{page:?}");
    let sent = ddb_tests::recorded_json(&proxy, "Scan");
    assert_eq!(sent[0]["ReturnConsumedCapacity"], "INDEXES");
}

#[test]
fn the_report_lists_a_declared_scan_as_growing_with_the_table() {
    let report = ddb_tools::access_pattern_report(&[&Member::SCHEMA]);
    let row = report
        .lines()
        .find(|line| line.starts_with("| Member | scan |"))
        .unwrap_or_else(|| panic!("no scan row: {report}"));
    assert!(row.contains("| Scan (grows with the table"), "{row}");
    let undeclared =
        ddb_tools::access_pattern_report(&[&ddb_examples::single_table::Customer::SCHEMA]);
    assert!(!undeclared.contains("| Scan"), "{undeclared}");
    let cost =
        ddb_tools::cost::cost_report(&[(&Member::SCHEMA, member(1).to_item().unwrap())], 100);
    assert!(cost.contains("Member is scanned"), "{cost}");
}

fn actions(statement: &serde_json::Value) -> Vec<&str> {
    statement["Action"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect()
}

#[test]
fn iam_grants_scan_only_where_declared_and_never_in_a_scoped_policy() {
    const TABLE: &str = "arn:aws:dynamodb:eu-west-1:123456789012:table/Members";
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Member::SCHEMA, Access::Read)
        .build()
        .unwrap();
    let statement = &policy.document["Statement"][0];
    assert!(actions(statement).contains(&"dynamodb:Scan"), "{policy}");

    let customer = &ddb_examples::single_table::Customer::SCHEMA;
    assert!(!customer.scan);
    let undeclared = PolicyBuilder::new(TABLE)
        .entity(customer, Access::ReadWrite)
        .build()
        .unwrap();
    for statement in undeclared.document["Statement"].as_array().unwrap() {
        assert!(
            !actions(statement).contains(&"dynamodb:Scan"),
            "{undeclared}"
        );
    }

    let scoped = PolicyBuilder::new(TABLE)
        .entity(&Member::SCHEMA, Access::ReadWrite)
        .scoped_to("id", "${aws:PrincipalTag/member}")
        .build()
        .unwrap();
    let statements = scoped.document["Statement"].as_array().unwrap();
    assert!(!statements.is_empty());
    for statement in statements {
        assert!(!actions(statement).contains(&"dynamodb:Scan"), "{scoped}");
    }
    assert!(
        scoped
            .left_out
            .iter()
            .any(|note| note.starts_with("Member: Scan") && note.contains("LeadingKeys")),
        "{:?}",
        scoped.left_out
    );
}

#[tokio::test]
async fn paging_a_segmented_scan_by_cursor_reads_about_what_it_returns() {
    let db = members(60).await;
    let raw = ddb_tests::scan_raw::<Members>(&db).await.len() as u64;
    let mut cursor = None;
    let mut seen = Vec::new();
    let mut scanned = 0;
    loop {
        let mut scan = db.scan::<Member>().segments(4).limit(10);
        if let Some(cursor) = cursor.take() {
            scan = scan.after(cursor);
        }
        let page = scan.send().await.unwrap();
        scanned += page.scanned;
        seen.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen.len(), 60, "no item twice");
    assert_eq!(ids(&seen), (0..60).collect::<Vec<_>>());
    // Segments read together share what a page misses: what one reads and
    // the page does not take is read again by the next page, a little.
    assert!(
        scanned <= raw * 3 / 2,
        "{scanned} items read to return 60 of a table of {raw}"
    );
}
