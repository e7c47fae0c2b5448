//! An update's guard on the schema version. An entity that declares none
//! writes no `_schema`, and its updates refuse any stored one in one call.
//! An entity that declared `schema_version = 1` and no longer does left
//! items with `_schema = 1`: an update of one is sent once more accepting
//! either, and removes it, so that the next update is one call again.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::dry_run::Request;
use ddb_runtime::{Db, Entity, Error, Item, Table, Timestamp};
use ddb_tests::proxy::{Fault, Proxy};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::condition_read_back::condition_failed_without_item;

#[derive(Table)]
#[ddb(name = "Profiles", pk = "PK", sk = "SK", ttl = "expiresAt")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Profiles;

/// Versioned; declares no schema version.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Profile", pk = "PROFILE#{id}", sk = "PROFILE")]
struct Profile {
    id: String,
    name: String,
    #[ddb(version)]
    version: u64,
}

/// Declares the first schema version: writes `_schema = 1`.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Note", pk = "NOTE#{id}", sk = "NOTE")]
#[ddb(schema_version = 1)]
struct Note {
    id: String,
    text: String,
    #[ddb(version)]
    version: u64,
}

/// No version field; renaming recomputes GSI1's sort key from `level`,
/// which a rename does not set: the update reads the item first.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Badge", pk = "BADGE#{id}", sk = "BADGE")]
#[ddb(index(name = "GSI1", pk = "NAME#{name}", sk = "{name}#{level}"))]
struct Badge {
    id: String,
    name: String,
    level: u64,
}

/// Declares the first schema version, reads first to rename (as `Badge`)
/// and holds a unique value: its updates keep `_schema = 1` on every path.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Medal", pk = "MEDAL#{id}", sk = "MEDAL")]
#[ddb(index(name = "GSI1", pk = "NAME#{name}", sk = "{name}#{level}"))]
#[ddb(schema_version = 1)]
struct Medal {
    id: String,
    name: String,
    level: u64,
    #[ddb(unique)]
    code: String,
}

/// A unique value, an `updated_at` stamp and a time to live; no version.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Account", pk = "ACCOUNT#{id}", sk = "ACCOUNT")]
struct Account {
    id: String,
    #[ddb(unique)]
    email: String,
    plan: String,
    #[ddb(updated_at)]
    updated: Timestamp,
    #[ddb(ttl)]
    #[serde(rename = "expiresAt")]
    expires_at: u64,
}

/// An update's condition refusing any stored `_schema`, as sent for an
/// entity that declares no schema version.
const REFUSING_SCHEMA: &str = "attribute_exists(PK) AND attribute_not_exists(#n1)";

/// An update's condition accepting version 1 stored either way.
const ACCEPTING_SCHEMA_1: &str =
    "attribute_exists(PK) AND (attribute_not_exists(#n1) OR #n1 = :v2)";

/// `text` as a recorded request's `ConditionExpression`.
fn condition(text: &str) -> Option<Value> {
    Some(serde_json::json!(text))
}

fn profile(id: &str) -> Profile {
    Profile {
        id: id.into(),
        name: "Ada".into(),
        version: 0,
    }
}

fn account(id: &str) -> Account {
    let in_a_day = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 86_400;
    Account {
        id: id.into(),
        email: format!("{id}@example.com"),
        plan: "free".into(),
        updated: Timestamp::now_in_seconds(),
        expires_at: in_a_day,
    }
}

/// Creates `entity` and gives the stored item `_schema = 1`, as code that
/// declared `schema_version = 1` wrote it. Returns its key.
async fn stored_with_schema_1<E: Entity + 'static>(db: &Db, entity: &E) -> Item {
    db.create(entity).send().await.unwrap();
    let key = entity.primary_key().unwrap().to_item();
    db.client()
        .update_item()
        .table_name(db.table_name::<Profiles>())
        .set_key(Some(key.clone()))
        .update_expression("SET #s = :one")
        .expression_attribute_names("#s", "_schema")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send()
        .await
        .unwrap();
    key
}

fn bronze_badge() -> Badge {
    Badge {
        id: "b1".into(),
        name: "Bronze".into(),
        level: 3,
    }
}

/// Fails unless `stored` lacks `_schema`.
fn assert_no_schema(stored: &Item) {
    assert!(!stored.contains_key("_schema"), "{stored:?}");
}

/// The stored item at `key`, as the table holds it.
async fn raw(db: &Db, key: Item) -> Item {
    ddb_tests::raw_item::<Profiles>(db, key).await.unwrap()
}

/// The attribute names `update`'s `REMOVE` clause removes, its placeholders
/// resolved (`update` is an UpdateItem body or a transaction's `Update`).
fn removed(update: &Value) -> Vec<String> {
    let expression = update["UpdateExpression"].as_str().unwrap_or_default();
    let Some((_, clause)) = expression.split_once("REMOVE ") else {
        return Vec::new();
    };
    let clause = ["SET ", "ADD ", "DELETE "]
        .iter()
        .filter_map(|keyword| clause.find(keyword))
        .min()
        .map_or(clause, |end| &clause[..end]);
    ddb_tests::named_attributes(update, clause)
}

/// `body`'s `ConditionExpression` with its name and value placeholders
/// replaced by the names and the scalar values they stand for.
fn resolved_condition(body: &Value) -> String {
    let mut condition = body["ConditionExpression"].as_str().unwrap().to_owned();
    let placeholders = |field: &str| body[field].as_object().cloned().unwrap_or_default();
    let mut all: Vec<(String, String)> = placeholders("ExpressionAttributeNames")
        .into_iter()
        .map(|(name, value)| (name, value.as_str().unwrap().to_owned()))
        .collect();
    for (name, value) in placeholders("ExpressionAttributeValues") {
        let scalar = value.as_object().and_then(|v| v.values().next().cloned());
        all.push((
            name,
            scalar.and_then(|v| v.as_str().map(str::to_owned)).unwrap(),
        ));
    }
    // The longest first, so that `#n1` does not replace the start of `#n10`.
    all.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
    for (name, value) in all {
        condition = condition.replace(&name, &value);
    }
    condition
}

/// Whether each recorded UpdateItem removes `_schema`, in order.
fn updates_removing_schema(proxy: &Proxy) -> Vec<bool> {
    ddb_tests::recorded_json(proxy, "UpdateItem")
        .iter()
        .map(|body| removed(body).contains(&"_schema".to_owned()))
        .collect()
}

/// The `Update` actions of the recorded TransactWriteItems, in order.
fn transaction_updates(proxy: &Proxy) -> Vec<Value> {
    ddb_tests::recorded_json(proxy, "TransactWriteItems")
        .into_iter()
        .flat_map(|body| {
            body["TransactItems"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|action| action.get("Update").cloned())
        .collect()
}

/// An entity that declares no schema version writes no `_schema`, and an
/// update's condition refuses any stored one with one call. One that
/// declares version 1 writes `_schema = 1`, and its items written before the
/// declaration have none: its condition accepts either.
#[tokio::test]
async fn an_undeclared_schema_version_is_guarded_by_one_call() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let note = Note {
        id: "n1".into(),
        text: "first".into(),
        version: 0,
    };
    db.create(&profile("p1")).send().await.unwrap();
    db.create(&note).send().await.unwrap();
    let profile_key = Profile::key(&"p1".to_string()).unwrap();
    let note_key = Note::key(&"n1".to_string()).unwrap();
    assert!(!raw(&db, profile_key.to_item())
        .await
        .contains_key("_schema"));
    assert_eq!(
        raw(&db, note_key.to_item()).await["_schema"],
        AttributeValue::N("1".into())
    );
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    proxy.record("UpdateItem");
    through
        .update(profile_key)
        .set(Profile::fields().name, "Grace".to_string())
        .send()
        .await
        .unwrap();
    through
        .update(note_key)
        .set(Note::fields().text, "second".to_string())
        .send()
        .await
        .unwrap();
    let conditions = ddb_tests::recorded_field(&proxy, "UpdateItem", "ConditionExpression");
    assert_eq!(
        conditions,
        [REFUSING_SCHEMA, ACCEPTING_SCHEMA_1].map(condition)
    );
    assert_eq!(updates_removing_schema(&proxy), [false, false]);
}

/// The first UpdateItem refuses `_schema` and fails; the second accepts
/// version 1 either way and removes it; the next update is one call.
#[tokio::test]
async fn an_item_left_with_schema_1_is_updated_once_more_and_loses_it() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let key = stored_with_schema_1(&db, &profile("p1")).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let name = Profile::fields().name;
    let profile_key = Profile::key(&"p1".to_string()).unwrap();
    proxy.record("UpdateItem");

    // The dry run shows the first request: it cannot know the item.
    let dry = through
        .update(profile_key.clone())
        .set(name, "Grace".to_string())
        .dry_run()
        .unwrap();
    let Some(Request::UpdateItemInput(first)) = dry.input() else {
        panic!("an UpdateItem: {dry}");
    };
    assert_eq!(first.condition_expression(), Some(REFUSING_SCHEMA));
    let expression = first.update_expression().unwrap_or_default();
    assert!(!expression.contains("REMOVE"), "{expression}");

    let written = through
        .update(profile_key.clone())
        .set(name, "Grace".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, None, "no version known without return_new");
    let conditions = ddb_tests::recorded_field(&proxy, "UpdateItem", "ConditionExpression");
    assert_eq!(
        conditions,
        [REFUSING_SCHEMA, ACCEPTING_SCHEMA_1].map(condition)
    );
    assert_eq!(updates_removing_schema(&proxy), [false, true]);
    let stored = raw(&db, key.clone()).await;
    assert_no_schema(&stored);
    assert_eq!(stored["name"], AttributeValue::S("Grace".into()));

    through
        .update(profile_key)
        .set(name, "Hopper".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("UpdateItem"), 3);
    let user = db.get(Profile::key(&"p1".to_string()).unwrap()).send();
    let user = user.await.unwrap().unwrap();
    assert_eq!((user.name.as_str(), user.version), ("Hopper", 3));
}

/// Expecting a version, with the new item back, and exactly once: each is
/// sent once more and removes `_schema`.
#[tokio::test]
async fn every_way_of_sending_an_update_by_itself_removes_schema_1() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let name = Profile::fields().name;
    let key = |id: &str| Profile::key(&id.to_string()).unwrap();
    proxy.record("UpdateItem");
    proxy.record("TransactWriteItems");

    let expecting = stored_with_schema_1(&db, &profile("expecting")).await;
    let written = through
        .update(key("expecting"))
        .set(name, "Grace".to_string())
        .expect_version(1)
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, Some(2));

    let returning = stored_with_schema_1(&db, &profile("returning")).await;
    let written = through
        .update(key("returning"))
        .set(name, "Grace".to_string())
        .return_new(true)
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, Some(2));
    let returned = written.item.unwrap();
    assert_eq!(returned.name, "Grace");
    assert_eq!(updates_removing_schema(&proxy), [false, true, false, true]);

    let once = stored_with_schema_1(&db, &profile("once")).await;
    through
        .update(key("once"))
        .set(name, "Grace".to_string())
        .exactly_once(true)
        .send()
        .await
        .unwrap();
    let sent = transaction_updates(&proxy);
    let removes: Vec<bool> = sent
        .iter()
        .map(|update| removed(update).contains(&"_schema".to_owned()))
        .collect();
    assert_eq!(removes, [false, true]);
    assert_eq!(
        sent.iter()
            .map(|update| update["ConditionExpression"].clone())
            .collect::<Vec<_>>(),
        [REFUSING_SCHEMA, ACCEPTING_SCHEMA_1].map(|c| serde_json::json!(c))
    );

    for key in [expecting, returning, once] {
        let stored = raw(&db, key).await;
        assert_no_schema(&stored);
        assert_eq!(stored["name"], AttributeValue::S("Grace".into()));
        assert_eq!(stored["version"], AttributeValue::N("2".into()));
    }
}

/// Inside a transaction an update is sent once: one that does not read the
/// item accepts either from the start and leaves `_schema` as it found it.
/// A failure of the caller's own condition is reported as such after the
/// second UpdateItem, and changes nothing.
#[tokio::test]
async fn a_transaction_keeps_schema_1_and_a_caller_condition_still_fails() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let key = stored_with_schema_1(&db, &profile("p1")).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let name = Profile::fields().name;
    let profile_key = Profile::key(&"p1".to_string()).unwrap();
    proxy.record("TransactWriteItems");
    through
        .transact_write()
        .update(
            through
                .update(profile_key.clone())
                .set(name, "Turing".to_string()),
        )
        .send()
        .await
        .unwrap();
    let sent = transaction_updates(&proxy);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["ConditionExpression"], ACCEPTING_SCHEMA_1);
    assert!(removed(&sent[0]).is_empty(), "{:?}", sent[0]);
    let stored = raw(&db, key.clone()).await;
    assert_eq!(stored["_schema"], AttributeValue::N("1".into()));

    let failed = through
        .update(profile_key)
        .set(name, "Hamilton".to_string())
        .condition(name.eq("never".to_string()))
        .send()
        .await;
    assert!(
        matches!(
            &failed,
            Err(Error::ConditionFailed {
                existing: Some(_),
                ..
            })
        ),
        "{failed:?}"
    );
    assert_eq!(proxy.seen("UpdateItem"), 2);
    assert_eq!(raw(&db, key).await, stored);
}

/// An update that reads the item first sees `_schema`: one UpdateItem,
/// accepting version 1 either way and removing it, the index keys right.
#[tokio::test]
async fn an_update_that_reads_first_removes_the_schema_it_read() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let badge = bronze_badge();
    let key = stored_with_schema_1(&db, &badge).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    proxy.record("UpdateItem");
    through
        .update(badge.primary_key().unwrap())
        .set(Badge::fields().name, "Silver".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("GetItem"), 1);
    assert_eq!(proxy.seen("UpdateItem"), 1);
    assert_eq!(updates_removing_schema(&proxy), [true]);
    let sent = &ddb_tests::recorded_json(&proxy, "UpdateItem")[0];
    assert_eq!(
        resolved_condition(sent),
        "attribute_exists(PK) AND (attribute_not_exists(_schema) OR _schema = 1) AND level = 3"
    );
    let stored = raw(&db, key).await;
    assert_no_schema(&stored);
    assert_eq!(stored["GSI1PK"], AttributeValue::S("NAME#Silver".into()));
    assert_eq!(
        stored["GSI1SK"],
        AttributeValue::S("Silver#00000000000000000003".into())
    );
}

/// In a transaction too, an update that reads the item first removes the
/// `_schema` it read.
#[tokio::test]
async fn a_transaction_update_that_reads_first_removes_the_schema_it_read() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let badge = bronze_badge();
    let key = stored_with_schema_1(&db, &badge).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    proxy.record("TransactWriteItems");
    let rename = through
        .update(badge.primary_key().unwrap())
        .set(Badge::fields().name, "Gold".to_string());
    through
        .transact_write()
        .update(rename)
        .send()
        .await
        .unwrap();
    let sent = transaction_updates(&proxy);
    assert_eq!(sent.len(), 1);
    assert!(removed(&sent[0]).contains(&"_schema".to_owned()));
    let stored = raw(&db, key).await;
    assert_no_schema(&stored);
    assert_eq!(stored["GSI1PK"], AttributeValue::S("NAME#Gold".into()));
}

/// An entity that declares `schema_version = 1` writes `_schema = 1`, and
/// no update removes it: not one that reads the item first, not one that
/// moves a unique value, alone or in a transaction.
#[tokio::test]
async fn an_entity_that_declares_its_version_keeps_schema_on_every_path() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let medal = Medal {
        id: "m1".into(),
        name: "Bronze".into(),
        level: 3,
        code: "BR-3".into(),
    };
    db.create(&medal).send().await.unwrap();
    let key = medal.primary_key().unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    proxy.record("UpdateItem");
    proxy.record("TransactWriteItems");
    let fields = Medal::fields();
    through
        .update(key.clone())
        .set(fields.name, "Silver".to_string())
        .send()
        .await
        .unwrap();
    through
        .update(key.clone())
        .set(fields.code, "SI-3".to_string())
        .send()
        .await
        .unwrap();
    let rename = through
        .update(key.clone())
        .set(fields.name, "Gold".to_string());
    through
        .transact_write()
        .update(rename)
        .send()
        .await
        .unwrap();

    assert_eq!(updates_removing_schema(&proxy), [false]);
    let sent = transaction_updates(&proxy);
    assert_eq!(sent.len(), 2);
    assert!(
        sent.iter().all(|update| removed(update).is_empty()),
        "{sent:?}"
    );
    let stored = raw(&db, key.to_item()).await;
    assert_eq!(stored["_schema"], AttributeValue::N("1".into()));
    assert_eq!(stored["GSI1PK"], AttributeValue::S("NAME#Gold".into()));
    assert_eq!(stored["code"], AttributeValue::S("SI-3".into()));
}

/// An entity with a unique value, an `updated_at` stamp and a time to live,
/// without a version: a plain update is sent once more and removes
/// `_schema`; one that moves the unique value reads the item first and
/// removes it in the transaction that moves the guard.
#[tokio::test]
async fn stamps_expiry_and_unique_values_take_schema_1_away_too() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let plain = stored_with_schema_1(&db, &account("a1")).await;
    let moved = stored_with_schema_1(&db, &account("a2")).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let fields = Account::fields();
    let key = |id: &str| Account::key(&id.to_string()).unwrap();
    proxy.record("UpdateItem");
    proxy.record("TransactWriteItems");

    through
        .update(key("a1"))
        .set(fields.plan, "pro".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(updates_removing_schema(&proxy), [false, true]);
    let stored = raw(&db, plain).await;
    assert_no_schema(&stored);
    assert_eq!(stored["plan"], AttributeValue::S("pro".into()));

    through
        .update(key("a2"))
        .set(fields.email, "new@example.com".to_string())
        .send()
        .await
        .unwrap();
    let sent = transaction_updates(&proxy);
    assert_eq!(sent.len(), 1);
    assert!(removed(&sent[0]).contains(&"_schema".to_owned()));
    let stored = raw(&db, moved).await;
    assert_no_schema(&stored);
    let email = "new@example.com".to_string();
    let found = db.get_unique(Account::by_email(&email)).send();
    let found = found.await.unwrap();
    assert_eq!(found.map(|a| a.id), Some("a2".to_string()));
}

/// On a server that answers a failed condition without the item, the item
/// read back shows `_schema`, and the update is sent once more.
#[tokio::test]
async fn the_item_read_back_after_a_failed_condition_shows_schema_1() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let key = stored_with_schema_1(&db, &profile("p1")).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    proxy.fail("UpdateItem", 1, condition_failed_without_item());
    through
        .update(Profile::key(&"p1".to_string()).unwrap())
        .set(Profile::fields().name, "Grace".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("GetItem"), 1, "read back once");
    assert_eq!(proxy.seen("UpdateItem"), 2);
    let stored = raw(&db, key).await;
    assert_no_schema(&stored);
    assert_eq!(stored["name"], AttributeValue::S("Grace".into()));
}

/// The first UpdateItem's answer is lost and the SDK sends it again: both
/// fail on `_schema`, but ddb cannot tell that the first was not applied
/// and then overwritten, so the outcome is unknown and nothing is sent
/// after. The item is as it was; the caller's retry then lands.
#[tokio::test]
async fn a_lost_answer_on_an_item_with_schema_1_is_an_unknown_outcome() {
    let db = ddb_tests::db_with_table::<Profiles>().await;
    let key = stored_with_schema_1(&db, &profile("p1")).await;
    let before = raw(&db, key.clone()).await;
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let update = || {
        through
            .update(Profile::key(&"p1".to_string()).unwrap())
            .set(Profile::fields().name, "Grace".to_string())
    };
    proxy.fail("UpdateItem", 1, Fault::DropResponse);
    let lost = update().send().await;
    assert!(
        matches!(&lost, Err(Error::WriteOutcomeUnknown { .. })),
        "{lost:?}"
    );
    assert_eq!(proxy.seen("UpdateItem"), 2);
    assert_eq!(raw(&db, key.clone()).await, before);

    update().send().await.unwrap();
    let stored = raw(&db, key).await;
    assert_no_schema(&stored);
    assert_eq!(stored["name"], AttributeValue::S("Grace".into()));
}

/// A counter that declares no schema version.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Profiles, entity = "Tally", pk = "TALLY#{id}", sk = "TALLY")]
struct Tally {
    id: u32,
    count: u64,
    #[ddb(version)]
    version: u64,
}

/// Concurrent updates of items left with `_schema = 1`, while an old
/// release puts `_schema = 1` back on them: every update lands once, sent
/// again when it met `_schema`. Once the old release has stopped, one more
/// update of each item removes it for good. The raw table at the end holds,
/// per item, as many counts and versions as updates reported written (the
/// version from the create's 1), and no `_schema`. `DDB_STRESS=large` runs
/// 32 tasks of 100 updates; `DDB_STRESS_SEED=<n>` picks the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_updates_of_items_with_schema_1_each_land_once() {
    ddb_tests::requires!(AtomicConditionalWrites);
    let large = std::env::var("DDB_STRESS").is_ok_and(|v| v == "large");
    let (tasks, steps, items): (u32, u32, u32) = if large { (32, 100, 8) } else { (8, 12, 3) };
    let seed: u64 = std::env::var("DDB_STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5C4E_2026);
    let db = std::sync::Arc::new(ddb_tests::db_with_table::<Profiles>().await);
    for id in 0..items {
        let tally = Tally {
            id,
            count: 0,
            version: 0,
        };
        stored_with_schema_1(&db, &tally).await;
    }
    let table = db.table_name::<Profiles>().to_owned();
    let (proxy, through) = ddb_tests::through_proxy::<Profiles>(&db).await;
    let through = std::sync::Arc::new(through);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The old release: `_schema = 1` back on a random item, again and again.
    let old_release = {
        let (client, table, done) = (db.client().clone(), table.clone(), done.clone());
        let mut rng = ddb_tests::SplitMix64(seed);
        tokio::spawn(async move {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let id = rng.below(u64::from(items)) as u32;
                let key = Tally::key(&id).unwrap().to_item();
                client
                    .update_item()
                    .table_name(&table)
                    .set_key(Some(key))
                    .update_expression("SET #s = :one")
                    .expression_attribute_names("#s", "_schema")
                    .expression_attribute_values(":one", AttributeValue::N("1".into()))
                    .send()
                    .await
                    .unwrap();
                tokio::task::yield_now().await;
            }
        })
    };
    let mut handles = Vec::new();
    for task in 0..tasks {
        let db = through.clone();
        let mut rng = ddb_tests::SplitMix64(seed ^ (u64::from(task) + 1).wrapping_mul(0x9E37));
        handles.push(tokio::spawn(async move {
            let mut written = vec![0u64; items as usize];
            for _ in 0..steps {
                let id = rng.below(u64::from(items)) as u32;
                db.update(Tally::key(&id).unwrap())
                    .add(Tally::fields().count, 1)
                    .send()
                    .await
                    .unwrap();
                written[id as usize] += 1;
            }
            written
        }));
    }
    let mut written = vec![0u64; items as usize];
    for handle in handles {
        for (total, own) in written.iter_mut().zip(handle.await.unwrap()) {
            *total += own;
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    old_release.await.unwrap();
    for (id, total) in (0..items).zip(written.iter_mut()) {
        let last = through.update(Tally::key(&id).unwrap());
        last.add(Tally::fields().count, 1).send().await.unwrap();
        *total += 1;
    }

    let stored = ddb_tests::scan_raw::<Profiles>(&db).await;
    assert_eq!(stored.len(), items as usize, "{stored:?}");
    for item in stored {
        let tally: Tally = serde_dynamo::from_item(item.clone()).unwrap();
        let expected = written[tally.id as usize];
        // Created at version 1, and one more per update.
        assert_eq!(
            (tally.count, tally.version),
            (expected, expected + 1),
            "{item:?}"
        );
        assert_no_schema(&item);
    }
    let updates = u64::from(tasks * steps + items);
    assert_eq!(written.iter().sum::<u64>(), updates);
    // Each item's first update met the `_schema` it was created with.
    assert!(proxy.seen("UpdateItem") as u64 >= updates + u64::from(items));
}
