//! Global indexes keyed by several of the items' own attributes (DynamoDB's
//! multi-attribute keys), end to end against the local server.

use aws_sdk_dynamodb::types::KeyType;
use ddb_runtime::{Db, Entity, Error, KeySegment, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

/// Events of tenants, by tenant and region, in time order.
#[derive(Table)]
#[ddb(name = "Events", pk = "PK", sk = "SK")]
#[ddb(index(
    name = "RegionTime",
    pk("tenant", "region"),
    sk("ts: N", "seq: N"),
    include("detail")
))]
struct Events;

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Region {
    EuWest,
    UsEast,
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Events, entity = "Event", pk = "EVENT#{id}", sk = "EVENT")]
#[ddb(index(
    name = "RegionTime",
    pk(tenant, region),
    sk(ts, seq),
    query = "by_region"
))]
struct Event {
    id: String,
    tenant: String,
    /// `None`: the event is in no region, so not in the index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
    ts: u64,
    seq: u32,
    detail: String,
}

fn event(id: &str, region: Option<Region>, ts: u64, seq: u32) -> Event {
    Event {
        id: id.into(),
        tenant: "acme".into(),
        region,
        ts,
        seq,
        detail: format!("event {id}"),
    }
}

/// The ids of the events a query returns, in order.
async fn ids(
    events: impl std::future::Future<Output = ddb_runtime::Result<Vec<Event>>>,
) -> Vec<String> {
    events.await.unwrap().into_iter().map(|e| e.id).collect()
}

async fn seeded() -> Db {
    let db = ddb_tests::db_with_table::<Events>().await;
    for e in [
        event("e1", Some(Region::EuWest), 100, 1),
        event("e2", Some(Region::EuWest), 100, 2),
        event("e3", Some(Region::EuWest), 200, 1),
        event("e4", Some(Region::UsEast), 150, 1),
        event("e5", None, 120, 1),
    ] {
        db.create(&e).send().await.unwrap();
    }
    db
}

#[tokio::test]
async fn create_table_declares_every_key_attribute_in_order() {
    let db = ddb_tests::db_with_table::<Events>().await;
    let table = db
        .client()
        .describe_table()
        .table_name(db.table_name::<Events>())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let index = &table.global_secondary_indexes()[0];
    let schema: Vec<(&str, KeyType)> = index
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name(), k.key_type().clone()))
        .collect();
    assert_eq!(
        schema,
        [
            ("tenant", KeyType::Hash),
            ("region", KeyType::Hash),
            ("ts", KeyType::Range),
            ("seq", KeyType::Range),
        ]
    );
    let ts = table
        .attribute_definitions()
        .iter()
        .find(|d| d.attribute_name() == "ts")
        .unwrap();
    assert_eq!(ts.attribute_type().as_str(), "N");
}

#[tokio::test]
async fn queries_take_equality_on_the_partition_and_conditions_left_to_right() {
    let db = seeded().await;
    let by_region = |region| Event::by_region(&"acme".to_string(), &region);
    // The whole partition, in (ts, seq) order; e5 has no region and e4 is in
    // another partition.
    let all = ids(db.query(by_region(Region::EuWest)).hydrate().collect()).await;
    assert_eq!(all, ["e1", "e2", "e3"]);
    let newest = ids(db
        .query(by_region(Region::EuWest))
        .newest_first(true)
        .hydrate()
        .collect())
    .await;
    assert_eq!(newest, ["e3", "e2", "e1"]);
    // A range on the first sort attribute.
    let since = ids(db
        .query(by_region(Region::EuWest))
        .ge(&150u64)
        .hydrate()
        .collect())
    .await;
    assert_eq!(since, ["e3"]);
    let between = ids(db
        .query(by_region(Region::EuWest))
        .between(&100u64, &150u64)
        .hydrate()
        .collect())
    .await;
    assert_eq!(between, ["e1", "e2"]);
    // Equality on both sort attributes: one item.
    let exact = ids(db
        .query(by_region(Region::EuWest))
        .eq((&100u64, &2u32))
        .hydrate()
        .collect())
    .await;
    assert_eq!(exact, ["e2"]);
    let other = ids(db.query(by_region(Region::UsEast)).hydrate().collect()).await;
    assert_eq!(other, ["e4"]);
}

#[derive(serde::Deserialize, ddb_runtime::Projection, Debug, PartialEq)]
#[ddb(entity = Event)]
struct Detail {
    ts: u64,
    seq: u32,
    detail: String,
}

#[tokio::test]
async fn an_include_index_projects_its_key_attributes_and_pages_resume() {
    let db = seeded().await;
    let query = db
        .query(Event::by_region(&"acme".to_string(), &Region::EuWest))
        .project::<Detail>()
        .limit(2);
    let first = query.clone().send().await.unwrap();
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.items[0].detail, "event e1");
    let rest = query.after(first.cursor.unwrap()).send().await.unwrap();
    let details: Vec<&str> = rest.items.iter().map(|d| d.detail.as_str()).collect();
    assert_eq!(details, ["event e3"]);
    assert_eq!((rest.items[0].ts, rest.items[0].seq), (200, 1));
}

#[tokio::test]
async fn a_comparison_over_two_sort_attributes_is_refused_before_sending() {
    let db = seeded().await;
    let (proxy, through) = ddb_tests::through_proxy::<Events>(&db).await;
    let query = through
        .query(Event::by_region(&"acme".to_string(), &Region::EuWest))
        .gt((&100u64, &1u32))
        .hydrate()
        .collect()
        .await;
    assert!(
        matches!(&query, Err(Error::InvalidSortCondition { reason, .. }) if reason.contains("one value")),
        "{query:?}"
    );
    let prefix = through
        .query(Event::by_region(&"acme".to_string(), &Region::EuWest))
        .begins_with(&1u64)
        .hydrate()
        .collect()
        .await;
    assert!(
        matches!(prefix, Err(Error::InvalidSortCondition { .. })),
        "{prefix:?}"
    );
    let empty = through
        .query(Event::by_region(&String::new(), &Region::EuWest))
        .hydrate()
        .collect()
        .await;
    assert!(
        matches!(empty, Err(Error::InvalidKeySegment { .. })),
        "{empty:?}"
    );
    assert_eq!(proxy.seen("Query"), 0);
}

#[tokio::test]
async fn a_none_key_attribute_is_left_out_and_an_update_moves_the_item() {
    let db = seeded().await;
    let raw = ddb_tests::raw_item::<Events>(&db, Event::key(&"e5".to_string()).unwrap().to_item())
        .await
        .unwrap();
    assert!(!raw.contains_key("region"), "{raw:?}");
    // Into the index, then out again by setting None (a REMOVE, never NULL).
    let key = Event::key(&"e5".to_string()).unwrap();
    db.update(key.clone())
        .set(Event::fields().region, Some(Region::UsEast))
        .send()
        .await
        .unwrap();
    let query = || {
        db.query(Event::by_region(&"acme".to_string(), &Region::UsEast))
            .hydrate()
    };
    assert_eq!(ids(query().collect()).await, ["e5", "e4"]);
    db.update(key.clone())
        .set(Event::fields().region, None::<Region>)
        .send()
        .await
        .unwrap();
    assert_eq!(ids(query().collect()).await, ["e4"]);
    let raw = ddb_tests::raw_item::<Events>(&db, key.to_item())
        .await
        .unwrap();
    assert!(!raw.contains_key("region"), "{raw:?}");
}

#[tokio::test]
async fn an_invalid_key_attribute_is_refused_before_sending() {
    let db = seeded().await;
    let (proxy, through) = ddb_tests::through_proxy::<Events>(&db).await;
    let mut empty = event("e9", Some(Region::EuWest), 1, 1);
    empty.tenant = String::new();
    let create = through.create(&empty).send().await;
    assert!(
        matches!(create, Err(Error::InvalidKeySegment { .. })),
        "{create:?}"
    );
    let key = Event::key(&"e1".to_string()).unwrap();
    let update = through
        .update(key.clone())
        .set(Event::fields().tenant, String::new())
        .send()
        .await;
    assert!(
        matches!(&update, Err(Error::InvalidValue { reason, .. }) if reason.contains("RegionTime")),
        "{update:?}"
    );
    let long = through
        .update(key)
        .set(Event::fields().tenant, "x".repeat(2049))
        .send()
        .await;
    assert!(matches!(long, Err(Error::KeyTooLarge { .. })), "{long:?}");
    assert_eq!(proxy.seen("PutItem") + proxy.seen("UpdateItem"), 0);
}

/// An entity whose stored form of a key field is not its key form.
#[derive(Table)]
#[ddb(name = "Tickets", pk = "PK")]
#[ddb(index(name = "ByState", pk("state"), sk("opened")))]
struct Tickets;

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
enum State {
    Open,
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Tickets, entity = "Ticket", pk = "TICKET#{id}")]
#[ddb(index(name = "ByState", pk(state), sk(opened), query = "by_state"))]
struct Ticket {
    id: String,
    /// Stored by serde as `Open`, keyed as `OPEN`.
    state: State,
    opened: String,
}

#[tokio::test]
async fn a_field_stored_otherwise_than_its_key_form_is_refused() {
    let db = ddb_tests::db_with_table::<Tickets>().await;
    let ticket = Ticket {
        id: "1".into(),
        state: State::Open,
        opened: "2026-11-30".into(),
    };
    let create = db.create(&ticket).send().await;
    assert!(
        matches!(&create, Err(Error::KeyMismatch { reason, .. }) if reason.contains("`state`")),
        "{create:?}"
    );
    let found: Vec<Ticket> = db
        .query(Ticket::by_state(&State::Open))
        .items()
        .try_collect()
        .await
        .unwrap();
    assert!(found.is_empty());

    // An update checks the same, and a one-attribute list is a
    // multi-attribute key too: no empty string is sent.
    let (proxy, through) = ddb_tests::through_proxy::<Tickets>(&db).await;
    let key = Ticket::key(&"1".to_string()).unwrap();
    let update = through
        .update(key.clone())
        .set(Ticket::fields().state, State::Open)
        .send()
        .await;
    assert!(
        matches!(&update, Err(Error::KeyMismatch { .. })),
        "{update:?}"
    );
    let empty = through
        .update(key)
        .set(Ticket::fields().opened, String::new())
        .send()
        .await;
    assert!(
        matches!(&empty, Err(Error::InvalidValue { .. })),
        "{empty:?}"
    );
    assert_eq!(proxy.seen("UpdateItem"), 0);
}

#[test]
fn the_report_shows_the_query_and_who_keeps_the_index() {
    let report = ddb_tools::access_pattern_report(&[&Event::SCHEMA]);
    assert!(
        report.contains(
            "| Event | by_region | Query | RegionTime | tenant = {tenant}, region = {region}, sorted by ts, seq | eventual |"
        ),
        "{report}"
    );
    assert!(
        report.contains("RegionTime (multi-attribute key, kept by DynamoDB)"),
        "{report}"
    );
}

/// Another entity keyed in the same index by the same attributes.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Events, entity = "Alert", pk = "ALERT#{id}", sk = "ALERT")]
#[ddb(index(name = "RegionTime", pk(tenant, region), sk(ts, seq)))]
struct Alert {
    id: String,
    tenant: String,
    region: Option<Region>,
    ts: u64,
    seq: u32,
}

/// A page whose last item read is another entity's (dropped by the
/// entity-type filter) ends with a cursor on that item's key: the next page
/// takes it, though it is no key of the queried entity.
#[tokio::test]
async fn pages_resume_past_another_entitys_items() {
    let db = ddb_tests::db_with_table::<Events>().await;
    for i in 0..6u64 {
        db.create(&event(&format!("e{i}"), Some(Region::EuWest), 10 * i, 0))
            .send()
            .await
            .unwrap();
        for j in 1..4u32 {
            db.create(&Alert {
                id: format!("a{i}-{j}"),
                tenant: "acme".into(),
                region: Some(Region::EuWest),
                ts: 10 * i,
                seq: j,
            })
            .send()
            .await
            .unwrap();
        }
    }
    let events: Vec<Event> = db
        .query(Event::by_region(&"acme".to_string(), &Region::EuWest))
        .hydrate()
        .limit(2)
        .collect()
        .await
        .unwrap();
    let ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["e0", "e1", "e2", "e3", "e4", "e5"]);
}
