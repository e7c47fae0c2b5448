//! Global tables in multi-Region strong consistency: a write that loses to
//! another Region's write of the same item is refused with
//! `ReplicatedWriteConflictException` (HTTP 409) and applied nothing. The
//! SDK retries it; what its retries do not absorb reaches the caller as a
//! retryable error, and ddb never takes it for a write that may have been
//! applied. The in-process server has one Region: the proxy answers as
//! DynamoDB does.

use crate::fixtures::{Counter, Counters};
use ddb_runtime::Db;
use ddb_tests::proxy::{Fault, Proxy};

const CONFLICT: Fault = Fault::Error(409, "ReplicatedWriteConflictException");

fn counter(name: &str, value: u64) -> Counter {
    Counter {
        name: name.into(),
        value,
        version: 0,
    }
}

async fn counters() -> (Db, Proxy, Db) {
    let db = ddb_tests::db_with_table::<Counters>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Counters>(&db).await;
    (db, proxy, through)
}

async fn stored(db: &Db, name: &str) -> Option<Counter> {
    let key = Counter::key(&name.to_string()).unwrap();
    db.get(key).consistent_read(true).send().await.unwrap()
}

/// A conflict the SDK's retries absorb: the create is applied once and
/// reports `Created`, never `AlreadyExists` (the refused attempt applied
/// nothing).
#[tokio::test]
async fn a_conflict_the_retries_absorb_is_a_create_applied_once() {
    let (db, proxy, through) = counters().await;
    proxy.fail("PutItem", 1, CONFLICT);
    through.create(&counter("a", 1)).send().await.unwrap();
    assert_eq!(proxy.injected("PutItem"), 1);
    assert_eq!(stored(&db, "a").await.map(|c| c.value), Some(1));
}

/// Past the retries, each single write reports a retryable conflict that
/// says what it is, and nothing is written; sent again, it applies.
#[tokio::test]
async fn a_conflict_past_the_retries_is_retryable_and_wrote_nothing() {
    let (db, proxy, through) = counters().await;
    through.create(&counter("b", 1)).send().await.unwrap();
    for target in ["PutItem", "UpdateItem", "DeleteItem"] {
        proxy.fail(target, 100, CONFLICT);
    }
    let created = through.create(&counter("a", 1)).send().await.unwrap_err();
    let key = Counter::key(&"b".to_string()).unwrap();
    let updated = through
        .update(key.clone())
        .set(Counter::fields().value, 2)
        .send()
        .await
        .unwrap_err();
    let deleted = through.delete(key).send().await.unwrap_err();
    for error in [&created, &updated, &deleted] {
        assert!(error.is_replicated_write_conflict(), "{error:?}");
        assert!(error.is_retryable(), "{error:?}");
        assert!(!error.is_condition_failed(), "{error:?}");
    }
    assert_eq!(stored(&db, "a").await, None);
    assert_eq!(stored(&db, "b").await.map(|c| c.value), Some(1));
}

/// A batch's requests refused with a conflict are retried by the SDK; its
/// items are each written once.
#[tokio::test]
async fn a_batch_refused_with_a_conflict_writes_each_item_once() {
    let (db, proxy, through) = counters().await;
    proxy.fail("BatchWriteItem", 1, CONFLICT);
    let items: Vec<Counter> = (0..30).map(|i| counter(&format!("c{i}"), i)).collect();
    through.batch_put(&items).await.unwrap();
    assert_eq!(proxy.injected("BatchWriteItem"), 1);
    let raw = ddb_tests::scan_raw::<Counters>(&db).await;
    assert_eq!(raw.len(), 30);
}

/// An idempotent create that meets a conflict, then loses the answer of
/// the attempt that applied it, reports its own write: created once. (A
/// table with multi-Region strong consistency runs no transaction, so this
/// create, a single conditional PutItem, is how ddb writes once there.)
#[tokio::test]
async fn a_create_through_a_conflict_and_a_lost_answer_is_created_once() {
    let (db, proxy, through) = counters().await;
    proxy.fail("PutItem", 1, CONFLICT);
    proxy.fail("PutItem", 1, Fault::DropResponse);
    let created = through.create(&counter("once", 1)).send().await.unwrap();
    assert_eq!(proxy.injected("PutItem"), 2);
    assert_eq!(created, ddb_runtime::Created::Created);
    assert_eq!(stored(&db, "once").await.map(|c| c.value), Some(1));
    assert_eq!(ddb_tests::scan_raw::<Counters>(&db).await.len(), 1);
}

/// A versioned update that meets a conflict, then loses the answer of the
/// attempt that applied it, is applied once and reported as of unknown
/// outcome (a retry met its own write), never as a version conflict.
#[tokio::test]
async fn a_versioned_update_through_a_conflict_and_a_lost_answer_is_unknown_not_a_conflict() {
    let (db, proxy, through) = counters().await;
    through.create(&counter("v", 1)).send().await.unwrap();
    proxy.fail("UpdateItem", 1, CONFLICT);
    proxy.fail("UpdateItem", 1, Fault::DropResponse);
    let key = Counter::key(&"v".to_string()).unwrap();
    let updated = through
        .update(key)
        .set(Counter::fields().value, 2)
        .expect_version(1)
        .send()
        .await;
    assert!(
        matches!(
            &updated,
            Err(ddb_runtime::Error::WriteOutcomeUnknown { .. })
        ),
        "{updated:?}"
    );
    let stored = stored(&db, "v").await.unwrap();
    assert_eq!((stored.value, stored.version), (2, 2), "applied once");
}
