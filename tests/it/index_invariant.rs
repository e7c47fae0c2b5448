//! The index invariant under concurrency: after any interleaving of creates,
//! puts, updates, deletes and transactions through ddb, every item's index
//! attributes (keys and sparse membership) are exactly what its attributes
//! imply. Checked against a raw scan of the table.
//!
//! The suite runs a small history with a fixed seed; `DDB_STRESS=large` runs
//! 64 tasks of 200 operations each, and `DDB_STRESS_SEED=<n>` picks the seed.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Db, Entity, Error, Item, KeySegment, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Stress", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
struct Stress;

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum State {
    Open,
    Closed,
}

/// No version: updates are conditioned on what they read.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stress, entity = "Ticket", pk = "TICKET#{id}", sk = "TICKET")]
#[ddb(index(name = "GSI1", pk = "QUEUE#{queue}", sk = "{priority}#{queue}#{id}"))]
#[ddb(index(name = "GSI2", pk = "STATE#{state}", sk = "{id}", when(state = State::Open)))]
struct Ticket {
    id: u32,
    queue: String,
    priority: u8,
    state: State,
    note: u64,
}

/// Versioned: optimistic locking.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stress, entity = "Job", pk = "JOB#{id}", sk = "JOB")]
#[ddb(index(name = "GSI1", pk = "LANE#{lane}", sk = "{rank}#{lane}#{id}"))]
#[ddb(index(name = "GSI2", pk = "JOBSTATE#{state}", sk = "{id}", when(state = State::Open)))]
struct Job {
    id: u32,
    lane: String,
    rank: u16,
    state: State,
    note: u64,
    #[ddb(version)]
    version: u64,
}

/// SplitMix64: a small, seeded, reproducible generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn state(&mut self) -> State {
        if self.below(2) == 0 {
            State::Open
        } else {
            State::Closed
        }
    }

    fn lane(&mut self) -> String {
        ["north", "south", "east"][self.below(3) as usize].to_owned()
    }
}

fn ticket(rng: &mut Rng, id: u32) -> Ticket {
    Ticket {
        id,
        queue: rng.lane(),
        priority: rng.below(5) as u8,
        state: rng.state(),
        note: rng.below(100),
    }
}

fn job(rng: &mut Rng, id: u32) -> Job {
    Job {
        id,
        lane: rng.lane(),
        rank: rng.below(50) as u16,
        state: rng.state(),
        note: rng.below(100),
        version: 0,
    }
}

/// Errors a history may legitimately produce: lost races and missing items.
fn expected(result: ddb_runtime::Result<impl Sized>) {
    match result {
        Ok(_) => {}
        Err(
            Error::ConditionFailed { .. }
            | Error::VersionConflict { .. }
            | Error::ChangedSinceRead { .. }
            | Error::NotFound { .. }
            | Error::AlreadyExists { .. }
            | Error::TransactionCanceled { .. },
        ) => {}
        Err(other) => panic!("unexpected error: {other:?}"),
    }
}

async fn ticket_step(db: &Db, rng: &mut Rng, id: u32) {
    let key = Ticket::key(&id).unwrap();
    let f = Ticket::fields();
    match rng.below(9) {
        0 => expected(db.update(key).set(f.note, rng.below(100)).send().await),
        1 => expected(db.update(key).add(f.note, 1u64).send().await),
        2 => expected(db.update(key).set(f.queue, rng.lane()).send().await),
        3 => expected(
            db.update(key)
                .set(f.priority, rng.below(5) as u8)
                .send()
                .await,
        ),
        4 => expected(db.update(key).set(f.state, rng.state()).send().await),
        5 => expected(
            db.update(key)
                .set(f.state, rng.state())
                .set(f.queue, rng.lane())
                .send()
                .await,
        ),
        6 => expected(db.put(&ticket(rng, id)).send().await),
        7 => {
            if rng.below(4) == 0 {
                expected(db.delete(key).send().await);
            } else {
                expected(db.create(&ticket(rng, id)).send().await);
            }
        }
        _ => {
            let other = Job::key(&id).unwrap();
            expected(
                db.transact_write()
                    .update(db.update(key).set(f.state, rng.state()))
                    .update(db.update(other).set(Job::fields().lane, rng.lane()))
                    .send()
                    .await,
            )
        }
    }
}

fn support_case(rng: &mut Rng, id: u32) -> SupportCase {
    SupportCase {
        id,
        agent: rng.lane(),
        opened_at: rng.below(1000),
        state: rng.state(),
    }
}

/// A sparse index whose sides read different fields: updates that change
/// one side write it alone, membership decided in their condition.
async fn case_step(db: &Db, rng: &mut Rng, id: u32) {
    let key = SupportCase::key(&id).unwrap();
    let f = SupportCase::fields();
    match rng.below(6) {
        0 | 1 => expected(db.update(key).set(f.agent, rng.lane()).send().await),
        2 => expected(
            db.update(key)
                .set(f.opened_at, rng.below(1000))
                .send()
                .await,
        ),
        3 => expected(db.update(key).set(f.state, rng.state()).send().await),
        4 => expected(db.put(&support_case(rng, id)).send().await),
        _ => {
            if rng.below(3) == 0 {
                expected(db.delete(key).send().await);
            } else {
                expected(db.create(&support_case(rng, id)).send().await);
            }
        }
    }
}

async fn job_step(db: &Db, rng: &mut Rng, id: u32) {
    let key = Job::key(&id).unwrap();
    let f = Job::fields();
    match rng.below(8) {
        0 => expected(db.update(key).set(f.note, rng.below(100)).send().await),
        1 => expected(db.update(key).set(f.lane, rng.lane()).send().await),
        2 => expected(
            db.update(key)
                .set(f.rank, rng.below(50) as u16)
                .send()
                .await,
        ),
        3 => expected(db.update(key).set(f.state, rng.state()).send().await),
        4 => {
            // A read-modify-write with the version it read.
            if let Ok(Some(mut current)) = db.get(key).consistent_read(true).send().await {
                current.state = rng.state();
                current.lane = rng.lane();
                expected(db.put(&current).send().await);
            }
        }
        5 => {
            if let Ok(Some(current)) = db.get(key.clone()).consistent_read(true).send().await {
                expected(
                    db.update(key)
                        .set(f.rank, rng.below(50) as u16)
                        .set(f.state, rng.state())
                        .expect_version(current.version)
                        .send()
                        .await,
                );
            }
        }
        6 => {
            if rng.below(4) == 0 {
                expected(db.delete(key).send().await);
            } else {
                expected(db.create(&job(rng, id)).send().await);
            }
        }
        _ => expected(db.update(key).add(f.note, 2u64).send().await),
    }
}

/// The index attributes of `stored` must equal those its own fields imply.
fn check_item(stored: &Item) -> Result<(), String> {
    let expected = match stored["_type"].as_s().map(String::as_str) {
        Ok("Ticket") => Ticket::from_item(stored.clone()).and_then(|t| t.to_item()),
        Ok("Job") => Job::from_item(stored.clone()).and_then(|j| j.to_item()),
        Ok("SupportCase") => SupportCase::from_item(stored.clone()).and_then(|c| c.to_item()),
        other => return Err(format!("unknown item type {other:?}")),
    }
    .map_err(|e| format!("undecodable item: {e}"))?;
    for attribute in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
        if stored.get(attribute) != expected.get(attribute) {
            return Err(format!(
                "{attribute} is {:?} but the item's attributes imply {:?} (item {:?}/{:?})",
                stored.get(attribute),
                expected.get(attribute),
                stored["PK"],
                stored["SK"],
            ));
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn index_attributes_always_follow_the_item_under_concurrency() {
    ddb_tests::requires!(AtomicConditionalWrites);
    let large = std::env::var("DDB_STRESS").is_ok_and(|v| v == "large");
    let (tasks, steps, items) = if large { (64, 200, 16) } else { (32, 12, 4) };
    let seed: u64 = std::env::var("DDB_STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_2026);
    let db = Arc::new(ddb_tests::db_with_table::<Stress>().await);
    let mut rng = Rng(seed);
    for id in 0..items {
        db.create(&ticket(&mut rng, id)).send().await.unwrap();
        db.create(&job(&mut rng, id)).send().await.unwrap();
        db.create(&support_case(&mut rng, id)).send().await.unwrap();
    }
    let mut handles = Vec::new();
    for task in 0..tasks {
        let db = db.clone();
        let mut rng = Rng(seed ^ (task as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        handles.push(tokio::spawn(async move {
            for _ in 0..steps {
                let id = rng.below(items as u64) as u32;
                match rng.below(3) {
                    0 => ticket_step(&db, &mut rng, id).await,
                    1 => job_step(&db, &mut rng, id).await,
                    _ => case_step(&db, &mut rng, id).await,
                }
            }
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
    let stored = ddb_tests::scan_raw::<Stress>(&db).await;
    assert!(!stored.is_empty(), "the history left items to check");
    let wrong: Vec<String> = stored.iter().filter_map(|i| check_item(i).err()).collect();
    assert!(
        wrong.is_empty(),
        "seed {seed:#x}: {} of {} items have index attributes out of step:\n{}",
        wrong.len(),
        stored.len(),
        wrong.join("\n")
    );
}

/// A sparse index whose rule is a function: ddb knows what it reads.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stress, entity = "Alert", pk = "ALERT#{id}", sk = "ALERT")]
#[ddb(index(
    name = "GSI2",
    pk = "LOUD",
    sk = "{level}#{id}",
    when(Alert::is_loud, reads(level))
))]
struct Alert {
    id: u32,
    level: u8,
    note: u64,
}

impl Alert {
    fn is_loud(&self) -> bool {
        self.level >= 3
    }
}

/// An index keyed on the version ddb writes itself.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stress, entity = "Doc", pk = "DOC#{id}", sk = "DOC")]
#[ddb(index(name = "GSI1", pk = "DOCREV#{id}", sk = "{version}"))]
struct Doc {
    id: u32,
    body: String,
    #[ddb(version)]
    version: u64,
}

async fn raw(db: &Db, key: Item) -> Item {
    ddb_tests::raw_item::<Stress>(db, key)
        .await
        .expect("the item is there")
}

/// Requests of each kind an update sent through the proxy.
fn sent(proxy: &ddb_tests::proxy::Proxy) -> (usize, usize) {
    (proxy.seen("GetItem"), proxy.seen("UpdateItem"))
}

#[tokio::test]
async fn an_update_no_index_reads_is_one_update_item() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let t = Ticket {
        id: 1,
        queue: "north".into(),
        priority: 2,
        state: State::Open,
        note: 0,
    };
    db.create(&t).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = Ticket::key(&1).unwrap();
    let before = raw(&db, key.to_item()).await;
    through
        .update(key.clone())
        .set(Ticket::fields().note, 7u64)
        .send()
        .await
        .unwrap();
    through
        .update(key.clone())
        .add(Ticket::fields().note, 1u64)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 2), "no read, one UpdateItem each");
    let after = raw(&db, key.to_item()).await;
    assert_eq!(after["note"].as_n().unwrap(), "8");
    for attribute in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
        assert_eq!(after.get(attribute), before.get(attribute), "{attribute}");
    }
}

#[tokio::test]
async fn a_membership_change_decided_by_the_update_is_one_update_item() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let t = Ticket {
        id: 2,
        queue: "south".into(),
        priority: 1,
        state: State::Open,
        note: 0,
    };
    db.create(&t).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = Ticket::key(&2).unwrap();
    let before = raw(&db, key.to_item()).await;
    assert_eq!(before["GSI2PK"].as_s().unwrap(), "STATE#OPEN");

    // Closing: membership follows from the state the update sets.
    let f = Ticket::fields();
    through
        .update(key.clone())
        .set(f.state, State::Closed)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 1));
    let closed = raw(&db, key.to_item()).await;
    assert!(!closed.contains_key("GSI2PK") && !closed.contains_key("GSI2SK"));
    assert_eq!(check_item(&closed), Ok(()));

    // Reopening writes the index key back, from the primary key alone.
    through
        .update(key.clone())
        .set(f.state, State::Open)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 2));
    let reopened = raw(&db, key.to_item()).await;
    assert_eq!(reopened["GSI2PK"], before["GSI2PK"]);
    assert_eq!(reopened["GSI2SK"], before["GSI2SK"]);

    // Both the index key and the membership from the update's own values.
    through
        .update(key.clone())
        .set(f.queue, "east".to_string())
        .set(f.priority, 4u8)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 3));
    let moved = raw(&db, key.to_item()).await;
    assert_eq!(moved["GSI1PK"].as_s().unwrap(), "QUEUE#east");
    assert_eq!(check_item(&moved), Ok(()));
}

/// A sparse index whose sort key reads a field no update below sets.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stress, entity = "SupportCase", pk = "CASE#{id}", sk = "CASE")]
#[ddb(index(name = "GSI1", pk = "AGENT#{agent}", sk = "{opened_at}#{id}", when(state = State::Open)))]
struct SupportCase {
    id: u32,
    agent: String,
    opened_at: u64,
    state: State,
}

#[tokio::test]
async fn leaving_a_sparse_index_is_one_update_item_whatever_its_key_reads() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let case = open_case(3);
    db.create(&case).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = SupportCase::key(&3).unwrap();
    assert!(raw(&db, key.to_item()).await.contains_key("GSI1SK"));
    // The update decides the membership (false): the key's other inputs
    // (agent, opened_at) are not needed, so nothing is read.
    through
        .update(key.clone())
        .set(SupportCase::fields().state, State::Closed)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 1), "no read, one UpdateItem");
    let closed = raw(&db, key.to_item()).await;
    assert!(!closed.contains_key("GSI1PK") && !closed.contains_key("GSI1SK"));
    let expected = SupportCase {
        state: State::Closed,
        ..case
    };
    assert_eq!(closed, expected.to_item().unwrap());
}

fn open_case(id: u32) -> SupportCase {
    SupportCase {
        id,
        agent: "ada".into(),
        opened_at: 1_780_000_000,
        state: State::Open,
    }
}

#[tokio::test]
async fn reassigning_an_open_case_is_one_update_item_and_keeps_its_sort_key() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    db.create(&open_case(4)).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = SupportCase::key(&4).unwrap();
    let before = raw(&db, key.to_item()).await;
    // The partition key reads `agent`, which the update sets; the sort key
    // reads `opened_at`, which it does not: only the partition key is
    // written, and membership is decided in the condition.
    through
        .update(key.clone())
        .set(SupportCase::fields().agent, "grace".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 1), "no read, one UpdateItem");
    let after = raw(&db, key.to_item()).await;
    assert_eq!(after["GSI1PK"].as_s().unwrap(), "AGENT#grace");
    assert_eq!(after["GSI1SK"], before["GSI1SK"]);
    let expected = SupportCase {
        agent: "grace".into(),
        ..open_case(4)
    };
    assert_eq!(after, expected.to_item().unwrap());
}

#[tokio::test]
async fn reassigning_a_closed_case_writes_no_index_attribute() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let closed = SupportCase {
        state: State::Closed,
        ..open_case(5)
    };
    db.create(&closed).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = SupportCase::key(&5).unwrap();
    through
        .update(key.clone())
        .set(SupportCase::fields().agent, "grace".to_string())
        .send()
        .await
        .unwrap();
    // The first UpdateItem assumed the case open and failed its condition;
    // the second, told by the item the failure returned, writes the agent
    // alone.
    assert_eq!(sent(&proxy), (0, 2));
    let after = raw(&db, key.to_item()).await;
    let expected = SupportCase {
        agent: "grace".into(),
        ..closed
    };
    assert_eq!(after, expected.to_item().unwrap());
}

/// Both of the first UpdateItem's assumptions wrong, the case closed and
/// stored with `_schema = 1` (as earlier releases wrote a declared
/// version 1): the item the failure returns corrects both at once, and
/// the second UpdateItem removes `_schema`.
#[tokio::test]
async fn a_closed_case_stored_with_schema_1_corrects_both_assumptions_at_once() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let closed = SupportCase {
        state: State::Closed,
        ..open_case(7)
    };
    let mut item = closed.to_item().unwrap();
    item.insert("_schema".into(), AttributeValue::N("1".into()));
    db.client()
        .put_item()
        .table_name(db.table_name::<Stress>())
        .set_item(Some(item.clone()))
        .send()
        .await
        .unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = SupportCase::key(&7).unwrap();
    through
        .update(key.clone())
        .set(SupportCase::fields().agent, "grace".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 2));
    item.insert("agent".into(), AttributeValue::S("grace".into()));
    item.remove("_schema");
    assert_eq!(raw(&db, key.to_item()).await, item);
}

#[tokio::test]
async fn eight_concurrent_reassigns_of_one_open_case_all_land() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    db.create(&open_case(6)).send().await.unwrap();
    let key = SupportCase::key(&6).unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let (db, key) = (db.clone(), key.clone());
            tokio::spawn(async move {
                db.update(key)
                    .set(SupportCase::fields().agent, format!("agent{i}"))
                    .send()
                    .await
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().expect("every reassign lands");
    }
    let after = raw(&db, key.to_item()).await;
    let stored = SupportCase::from_item(after.clone()).unwrap();
    assert!(stored.agent.starts_with("agent"));
    assert_eq!(
        after,
        stored.to_item().unwrap(),
        "the index follows the last agent"
    );
}

#[tokio::test]
async fn the_seed_order_ships_in_one_update_item() {
    use ddb_examples::single_table::{Ecommerce, Order};
    use ddb_examples::{CustomerId, OrderId, OrderStatus};
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let order = Order {
        customer_id: CustomerId("123".into()),
        order_id: OrderId("A145".into()),
        placed_at: time::macros::datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 5600,
        version: 0,
    };
    db.create(&order).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = order.primary_key().unwrap();
    let f = Order::fields();
    through
        .update(key.clone())
        .set(f.total_cents, 6100u64)
        .send()
        .await
        .unwrap();
    through
        .update(key.clone())
        .set(f.status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    assert_eq!(
        (proxy.seen("GetItem"), proxy.seen("UpdateItem")),
        (0, 2),
        "changing the total and shipping are one UpdateItem each"
    );
    let stored: Order = db
        .get(key)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!((stored.total_cents, stored.version), (6100, 3));
    let open = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .collect()
        .await
        .unwrap();
    assert!(
        open.is_empty(),
        "shipped orders leave the open-orders index"
    );
}

#[tokio::test]
async fn an_update_needing_an_unset_input_reads_once_and_fails_on_a_concurrent_change() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let t = Ticket {
        id: 3,
        queue: "north".into(),
        priority: 1,
        state: State::Open,
        note: 0,
    };
    db.create(&t).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = Ticket::key(&3).unwrap();
    let f = Ticket::fields();

    // GSI1's sort key reads the queue, which the update sets, and the
    // priority, which it does not: it reads the item first.
    through
        .update(key.clone())
        .set(f.queue, "south".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (1, 1), "one read, one UpdateItem");
    assert_eq!(check_item(&raw(&db, key.to_item()).await), Ok(()));

    // Another writer changes the priority between the read and the write.
    let held = proxy.hold("GetItem");
    let update = tokio::spawn({
        let key = key.clone();
        async move {
            through
                .update(key)
                .set(f.queue, "east".to_string())
                .send()
                .await
        }
    });
    held.applied().await;
    db.update(key.clone())
        .set(f.priority, 4u8)
        .send()
        .await
        .unwrap();
    held.release();
    let result = update.await.unwrap();
    match &result {
        Err(Error::ChangedSinceRead { attributes, .. }) => {
            assert_eq!(attributes, &["priority".to_string()])
        }
        other => panic!("expected ChangedSinceRead, got {other:?}"),
    }
    assert!(result.unwrap_err().is_changed_since_read());
    let stored = raw(&db, key.to_item()).await;
    assert_eq!(stored["queue"].as_s().unwrap(), "south", "nothing written");
    assert_eq!(check_item(&stored), Ok(()));
}

#[tokio::test]
async fn a_function_rule_reads_first_only_when_what_it_reads_changes() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    db.create(&Alert {
        id: 1,
        level: 1,
        note: 0,
    })
    .send()
    .await
    .unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = Alert::key(&1).unwrap();
    let f = Alert::fields();
    through
        .update(key.clone())
        .set(f.note, 5u64)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 1), "the rule does not read `note`");
    through
        .update(key.clone())
        .set(f.level, 4u8)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (1, 2), "a function needs the item");
    let loud = raw(&db, key.to_item()).await;
    assert_eq!(loud["GSI2PK"].as_s().unwrap(), "LOUD");
    through
        .update(key.clone())
        .set(f.level, 0u8)
        .send()
        .await
        .unwrap();
    let quiet = raw(&db, key.to_item()).await;
    assert!(!quiet.contains_key("GSI2PK") && !quiet.contains_key("GSI2SK"));
}

#[tokio::test]
async fn index_keys_built_from_the_version_hold_the_version_written() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let doc = Doc {
        id: 9,
        body: "draft".into(),
        version: 0,
    };
    let key = Doc::key(&9).unwrap();
    let index_sk = |item: &Item| item["GSI1SK"].as_s().unwrap().clone();
    let expected = |version: u64| Doc::gsi1_key(&9, &version).unwrap().sk.unwrap();

    db.create(&doc).send().await.unwrap();
    assert_eq!(
        index_sk(&raw(&db, key.to_item()).await),
        expected(1).as_str()
    );

    let stored: Doc = db.get(key.clone()).send().await.unwrap().unwrap();
    db.put(&Doc {
        body: "second".into(),
        ..stored
    })
    .send()
    .await
    .unwrap();
    assert_eq!(
        index_sk(&raw(&db, key.to_item()).await),
        expected(2).as_str()
    );

    // An update without an expected version reads the version it bumps.
    db.update(key.clone())
        .set(Doc::fields().body, "third".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        index_sk(&raw(&db, key.to_item()).await),
        expected(3).as_str()
    );

    // With the version given, the update alone decides the new key.
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    through
        .update(key.clone())
        .set(Doc::fields().body, "fourth".to_string())
        .expect_version(3)
        .send()
        .await
        .unwrap();
    assert_eq!(sent(&proxy), (0, 1));
    assert_eq!(
        index_sk(&raw(&db, key.to_item()).await),
        expected(4).as_str()
    );
}

#[tokio::test]
async fn a_versioned_update_fails_when_the_same_version_comes_back_with_other_values() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let north = Job {
        id: 4,
        lane: "north".into(),
        rank: 1,
        state: State::Closed,
        note: 0,
        version: 0,
    };
    db.create(&north).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Stress>(&db).await;
    let key = Job::key(&4).unwrap();
    let held = proxy.hold("GetItem");
    // GSI1's sort key reads the rank, which the update sets, and the lane,
    // which it does not: it reads the item first.
    let update = tokio::spawn({
        let key = key.clone();
        async move {
            through
                .update(key)
                .set(Job::fields().rank, 9u16)
                .send()
                .await
        }
    });
    held.applied().await;
    // Deleted and created again: version 1 again, another lane.
    db.delete(key.clone()).send().await.unwrap();
    db.create(&Job {
        lane: "south".into(),
        ..north
    })
    .send()
    .await
    .unwrap();
    held.release();
    let result = update.await.unwrap();
    assert!(
        matches!(&result, Err(Error::ChangedSinceRead { attributes, .. }) if attributes.contains(&"lane".to_string())),
        "{result:?}"
    );
    let stored = raw(&db, key.to_item()).await;
    assert_eq!(stored["GSI1PK"].as_s().unwrap(), "LANE#south");
    assert_eq!(check_item(&stored), Ok(()));
}

#[tokio::test]
async fn fields_ddb_writes_itself_cannot_be_updated() {
    let db = ddb_tests::db_with_table::<Stress>().await;
    let key = Doc::key(&1).unwrap();
    let result = db.update(key).set(Doc::fields().version, 7u64).send().await;
    assert!(
        matches!(&result, Err(Error::InvalidUpdate { reason, .. }) if reason.contains("written by ddb")),
        "{result:?}"
    );
}
