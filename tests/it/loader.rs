//! The coalescing loader: gets issued together become BatchGetItems of
//! their distinct keys (at most 100 a request), consistent and eventually
//! consistent gets never share a request, each caller gets its own result
//! (the entity, `None`, or its error), expired items and projections read
//! as `get` reads them, and a caller dropped or no longer polled holds
//! back no one.

use std::time::Duration;

use ddb_runtime::{Db, Entity, Error, Key, Projection, Table};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Library", pk = "PK", sk = "SK", ttl = "expires")]
struct Library;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Library, entity = "Author", pk = "AUTHOR#{id}", sk = "PROFILE")]
struct Author {
    id: u32,
    name: String,
    bio: String,
    #[ddb(ttl)]
    expires: Option<u64>,
}

#[derive(Projection, Deserialize, Clone, Debug, PartialEq)]
#[ddb(entity = Author)]
struct AuthorName {
    id: u32,
    name: String,
}

fn author(id: u32) -> Author {
    Author {
        id,
        name: format!("author {id}"),
        bio: "x".repeat(200),
        expires: None,
    }
}

fn key(id: u32) -> Key<Author> {
    author(id).primary_key().unwrap()
}

/// A table holding authors `0..n`, and a `Db` reaching it through a proxy
/// that counts and records requests.
async fn authors(n: u32) -> (ddb_tests::proxy::Proxy, Db) {
    let db = ddb_tests::db_with_table::<Library>().await;
    let stored: Vec<Author> = (0..n).map(author).collect();
    ddb_tests::put_raw(&db, &stored).await;
    let (proxy, through) = ddb_tests::through_proxy::<Library>(&db).await;
    proxy.record("BatchGetItem");
    (proxy, through)
}

/// The number of keys each recorded BatchGetItem asked for.
fn keys_asked(proxy: &ddb_tests::proxy::Proxy) -> Vec<usize> {
    ddb_tests::recorded_json(proxy, "BatchGetItem")
        .iter()
        .map(|body| {
            let tables = body["RequestItems"].as_object().unwrap();
            tables
                .values()
                .map(|t| t["Keys"].as_array().unwrap().len())
                .sum()
        })
        .collect()
}

#[tokio::test]
async fn gets_issued_together_are_one_batch_get_of_their_distinct_keys() {
    let (proxy, db) = authors(30).await;
    let loader = db.loader::<Author>();
    // 100 gets of 40 authors, 10 of them missing.
    let ids: Vec<u32> = (0..100).map(|i| (i * 7) % 40).collect();
    let loads = ids.iter().map(|&id| loader.load(key(id)).send());
    let results = join_all(loads).await;
    for (id, result) in ids.iter().zip(results) {
        let expected = (*id < 30).then(|| author(*id));
        assert_eq!(result.unwrap(), expected, "author {id}");
    }
    assert_eq!(keys_asked(&proxy), vec![40]);
    assert_eq!(proxy.seen("GetItem"), 0);
}

#[tokio::test]
async fn more_than_a_hundred_keys_are_sent_in_requests_of_a_hundred() {
    let (proxy, db) = authors(250).await;
    let loader = db.loader::<Author>();
    let loads = (0..250).map(|id| loader.load(key(id)).send());
    let results = join_all(loads).await;
    for (id, result) in (0..250).zip(results) {
        assert_eq!(result.unwrap(), Some(author(id)));
    }
    let mut asked = keys_asked(&proxy);
    asked.sort_unstable();
    assert_eq!(asked, vec![50, 100, 100]);
}

#[tokio::test]
async fn consistent_and_eventually_consistent_gets_never_share_a_request() {
    let (proxy, db) = authors(10).await;
    let loader = db.loader::<Author>();
    let loads = (0..10).map(|id| loader.load(key(id)).consistent_read(id % 2 == 0).send());
    for (id, result) in (0..10).zip(join_all(loads).await) {
        assert_eq!(result.unwrap(), Some(author(id)));
    }
    let sent = ddb_tests::recorded_json(&proxy, "BatchGetItem");
    assert_eq!(sent.len(), 2);
    let mut consistency: Vec<(bool, usize)> = sent
        .iter()
        .map(|body| {
            let asked = &body["RequestItems"]
                .as_object()
                .unwrap()
                .values()
                .next()
                .unwrap()
                .clone();
            let consistent = asked["ConsistentRead"].as_bool().unwrap_or(false);
            (consistent, asked["Keys"].as_array().unwrap().len())
        })
        .collect();
    consistency.sort_unstable();
    assert_eq!(consistency, vec![(false, 5), (true, 5)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_on_other_threads_gather_within_the_window_set() {
    let (proxy, db) = authors(20).await;
    let loader = db.loader::<Author>().window(Duration::from_millis(200));
    let tasks: Vec<_> = (0..20)
        .map(|id| {
            let loader = loader.clone();
            tokio::spawn(async move { loader.load(key(id)).send().await })
        })
        .collect();
    for (id, task) in (0..20).zip(tasks) {
        assert_eq!(task.await.unwrap().unwrap(), Some(author(id)));
    }
    assert_eq!(keys_asked(&proxy), vec![20]);
}

#[tokio::test]
async fn an_expired_item_reads_as_none_unless_included() {
    let (_proxy, db) = authors(0).await;
    let past = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 60;
    let expired = Author {
        expires: Some(past),
        ..author(1)
    };
    ddb_tests::put_raw(&db, &[expired.clone(), author(2)]).await;
    let loader = db.loader::<Author>();
    let (one, two) = tokio::join!(loader.load(key(1)).send(), loader.load(key(2)).send());
    assert_eq!(one.unwrap(), None);
    assert_eq!(two.unwrap(), Some(author(2)));
    let including = loader.include_expired(true);
    assert_eq!(including.load(key(1)).send().await.unwrap(), Some(expired));
}

#[tokio::test]
async fn a_projected_loader_reads_only_its_attributes() {
    let (proxy, db) = authors(3).await;
    let names = db.loader::<Author>().project::<AuthorName>();
    let loads = (0..4).map(|id| names.load(key(id)).send());
    let results: Vec<Option<AuthorName>> = join_all(loads)
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected: Vec<Option<AuthorName>> = (0..4)
        .map(|id| {
            (id < 3).then(|| AuthorName {
                id,
                name: format!("author {id}"),
            })
        })
        .collect();
    assert_eq!(results, expected);
    let sent = ddb_tests::recorded_json(&proxy, "BatchGetItem");
    let asked = sent[0]["RequestItems"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    let mut read = ddb_tests::projected_attributes(&asked);
    read.sort();
    // The projection's attributes, the keys to match items by, and what
    // decoding checks; never `bio`.
    assert!(!read.contains(&"bio".to_owned()), "{read:?}");
    for attribute in ["PK", "SK", "id", "name", "expires"] {
        assert!(
            read.contains(&attribute.to_owned()),
            "{attribute} in {read:?}"
        );
    }
}

#[tokio::test]
async fn callers_of_one_key_each_get_the_result_and_a_bad_item_fails_only_its_own() {
    let (proxy, db) = authors(3).await;
    // Author 1's name is stored as a number: it does not decode.
    let mut bad = author(1).to_item().unwrap();
    bad.insert(
        "name".into(),
        aws_sdk_dynamodb::types::AttributeValue::N("7".into()),
    );
    db.client()
        .put_item()
        .table_name(db.table_name::<Library>())
        .set_item(Some(bad))
        .send()
        .await
        .unwrap();
    let loader = db.loader::<Author>();
    let ids = [0, 1, 0, 1, 2, 0];
    let results = join_all(ids.iter().map(|&id| loader.load(key(id)).send())).await;
    for (id, result) in ids.iter().zip(results) {
        match (id, result) {
            (1, Err(Error::Decode { .. })) => {}
            (1, other) => panic!("author 1 does not decode, got {other:?}"),
            (id, result) => assert_eq!(result.unwrap(), Some(author(*id))),
        }
    }
    assert_eq!(keys_asked(&proxy), vec![3]);
}

#[tokio::test]
async fn a_request_that_fails_fails_each_caller_with_its_error() {
    let (proxy, db) = authors(3).await;
    proxy.fail(
        "BatchGetItem",
        1,
        ddb_tests::proxy::Fault::Error(400, "ResourceNotFoundException"),
    );
    let loader = db.loader::<Author>();
    let results = join_all((0..3).map(|id| loader.load(key(id)).send())).await;
    for result in results {
        let error = result.unwrap_err();
        assert!(
            matches!(
                error.sdk_error(),
                Some(aws_sdk_dynamodb::Error::ResourceNotFoundException(_))
            ),
            "{error:?}"
        );
        assert!(!error.is_retryable());
    }
    // The next gets are a new batch, and succeed.
    let again = join_all((0..3).map(|id| loader.load(key(id)).send())).await;
    assert!(again.into_iter().all(|r| r.unwrap().is_some()));
}

#[tokio::test]
async fn keys_left_unprocessed_are_read_again() {
    let (proxy, db) = authors(10).await;
    proxy.fail(
        "BatchGetItem",
        2,
        ddb_tests::proxy::Fault::Unprocessed(Some(4)),
    );
    let loader = db.loader::<Author>();
    let results = join_all((0..10).map(|id| loader.load(key(id)).send())).await;
    for (id, result) in (0..10).zip(results) {
        assert_eq!(result.unwrap(), Some(author(id)));
    }
    assert_eq!(keys_asked(&proxy), vec![10, 4, 4]);
}

/// The batch is sent on its own task: its first caller, no longer polled
/// (a stream of loads its owner stopped driving) or dropped, holds back
/// none of the callers who joined it.
#[tokio::test]
async fn a_first_caller_no_longer_polled_or_dropped_holds_back_no_one() {
    let (proxy, db) = authors(2).await;
    let loader = db.loader::<Author>();
    let mut first = Box::pin(loader.load(key(0)).send());
    // The first caller joins and leads the batch, then is polled no more.
    assert!(futures::poll!(first.as_mut()).is_pending());
    let second = tokio::spawn(loader.load(key(1)).send());
    let read = tokio::time::timeout(Duration::from_secs(10), second)
        .await
        .expect("the second caller is answered")
        .unwrap();
    assert_eq!(read.unwrap(), Some(author(1)));
    assert_eq!(keys_asked(&proxy), vec![2]);
    drop(first);
    let third = tokio::time::timeout(Duration::from_secs(10), loader.load(key(0)).send());
    assert_eq!(third.await.unwrap().unwrap(), Some(author(0)));
}

/// Each batch is a `ddb.loader` span naming the entity, its distinct keys
/// and its callers, holding the BatchGetItem it sends.
#[tokio::test]
async fn each_batch_is_a_span_with_its_keys_and_callers() {
    let (_proxy, db) = authors(5).await;
    let capture = crate::telemetry::Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let loader = db.loader::<Author>();
    let ids = [0, 1, 2, 0, 1];
    let found = join_all(ids.map(|id| loader.load(key(id)).send())).await;
    assert!(found.into_iter().all(|a| a.unwrap().is_some()));
    let spans = capture.spans.lock().unwrap().clone();
    let batches: Vec<_> = spans
        .iter()
        .filter(|s| s.contains_key("ddb.loader.keys"))
        .collect();
    assert_eq!(batches.len(), 1, "{spans:?}");
    assert_eq!(batches[0]["ddb.entity"], "Author");
    assert_eq!(batches[0]["ddb.loader.keys"], "3");
    assert_eq!(batches[0]["ddb.loader.callers"], "5");
    let requests: Vec<_> = spans
        .iter()
        .filter_map(|s| s.get("db.operation.name"))
        .collect();
    assert_eq!(requests, ["BatchGetItem"], "{spans:?}");
}

/// An entity whose decoding panics: a batch's task dies with its answer.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Library, entity = "Fragile", pk = "FRAGILE#{id}", sk = "PROFILE")]
struct Fragile {
    id: u32,
    mood: Mood,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
struct Mood(String);

impl<'de> Deserialize<'de> for Mood {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        panic!("decoding panicked (on purpose)")
    }
}

/// A batch sent whose answer is lost with its task (here, decoding
/// panicked) is not sent again: each caller gets an error naming its key,
/// and the one BatchGetItem is all that was sent.
#[tokio::test]
async fn a_batch_lost_with_its_task_is_an_error_and_is_not_sent_again() {
    let db = ddb_tests::db_with_table::<Library>().await;
    let fragile = |id| Fragile {
        id,
        mood: Mood("calm".into()),
    };
    ddb_tests::put_raw(&db, &(0..3).map(fragile).collect::<Vec<_>>()).await;
    let (proxy, db) = ddb_tests::through_proxy::<Library>(&db).await;
    proxy.record("BatchGetItem");
    let loader = db.loader::<Fragile>();
    let loads = (0..3).map(|id| loader.load(fragile(id).primary_key().unwrap()).send());
    let loads = join_all(loads);
    let results = tokio::time::timeout(Duration::from_secs(60), loads)
        .await
        .expect("every caller is answered");
    for result in results {
        assert!(
            matches!(&result, Err(Error::Unprocessed { keys, .. }) if keys.len() == 1),
            "{result:?}"
        );
    }
    assert_eq!(keys_asked(&proxy), [3]);
}
