//! Unique values stored before their constraint was declared: the
//! backfill reports the values held twice, creates the missing guards, and
//! moves those an upgrade changes; writes meanwhile let such values go.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Db, Entity, Error};
use ddb_tests::proxy::Fault;
use serde::{Deserialize, Serialize};

use super::{raw_state, Accounts};

/// The guards of `entity`'s emails in the raw table: email, the item named.
async fn email_guards_of(db: &Db, entity: &str) -> BTreeMap<String, String> {
    let prefix = format!("_DDB#UNIQUE#{entity}#email#S:");
    let (guards, _) = raw_state(db).await;
    guards
        .into_iter()
        .filter_map(|(guard, owner)| Some((guard.strip_prefix(&prefix)?.to_owned(), owner)))
        .collect()
}

/// Email guards as [`email_guards_of`] lists them, from `(email, owner)`.
fn owners(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(email, owner)| (email.to_string(), owner.to_string()))
        .collect()
}

/// A member at schema version 2, whose migration lower-cases the email:
/// an upgrade can change a unique value.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Member", pk = "MEMBER#{id}", sk = "PROFILE")]
#[ddb(schema_version = 2, migrate(from = 1, with = lower_case))]
pub struct Member {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
}

fn lower_case(item: &mut ddb_runtime::Item) -> Result<(), String> {
    if let Some(AttributeValue::S(email)) = item.get_mut("email") {
        *email = email.to_lowercase();
    }
    Ok(())
}

/// A member as stored at schema version 1, its email kept as typed.
mod member_at_version_1 {
    use super::*;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Accounts, entity = "Member", pk = "MEMBER#{id}", sk = "PROFILE")]
    pub struct Member {
        pub id: String,
        #[ddb(unique)]
        pub email: String,
    }
}

#[tokio::test]
async fn a_backfill_upgrade_moves_the_guards_of_the_values_its_migration_changes() {
    use member_at_version_1::Member as V1;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let v1 = |id: &str, email: &str| V1 {
        id: id.into(),
        email: email.into(),
    };
    for (id, email) in [
        ("1", "Ada@Example.com"),
        ("2", "bob@x.io"),
        ("3", "BOB@x.io"),
    ] {
        db.create(&v1(id, email)).send().await.unwrap();
    }
    // Lower-cased, two members would hold one email: reported, nothing
    // written.
    match db.backfill::<Member>().send().await {
        Err(Error::UniqueDuplicates { duplicates, .. }) => assert_eq!(
            duplicates,
            [ddb_runtime::schema::UniqueDuplicate {
                field: "email",
                items: vec!["MEMBER#2 / PROFILE".into(), "MEMBER#3 / PROFILE".into()],
            }]
        ),
        other => panic!("expected the duplicate reported, got {other:?}"),
    }
    assert_eq!(
        email_guards_of(&db, "Member").await.len(),
        3,
        "nothing was written"
    );
    db.delete(V1::key(&"3".to_string()).unwrap())
        .send()
        .await
        .unwrap();
    // The upgrade lets go of the email as typed and takes it lower-cased.
    let done = db.backfill::<Member>().send().await.unwrap();
    assert_eq!((done.updated, done.failed), (2, 0));
    assert_eq!(
        email_guards_of(&db, "Member").await,
        owners(&[
            ("ada@example.com", "MEMBER#1 / PROFILE"),
            ("bob@x.io", "MEMBER#2 / PROFILE"),
        ])
    );
    let taken = Member {
        id: "4".into(),
        email: "ada@example.com".into(),
    };
    assert!(matches!(
        db.create(&taken).send().await,
        Err(Error::UniqueViolation { .. })
    ));
}

/// The guard of a value the upgrade lets go names another item: that guard
/// is left to its owner, and the upgrade is sent again without it.
#[tokio::test]
async fn a_backfill_upgrade_leaves_a_guard_that_names_another_item() {
    use member_at_version_1::Member as V1;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let ada = V1 {
        id: "1".into(),
        email: "Ada@Example.com".into(),
    };
    db.create(&ada).send().await.unwrap();
    // The guard of the email as typed now names member 9.
    let guard = "_DDB#UNIQUE#Member#email#S:Ada@Example.com";
    let table = db.table_name::<Accounts>();
    let (guards, _) = raw_state(&db).await;
    assert!(guards.contains_key(guard), "{guards:?}");
    db.client()
        .update_item()
        .table_name(table)
        .key("PK", AttributeValue::S(guard.into()))
        .key("SK", AttributeValue::S(guard.into()))
        .update_expression("SET #o = :o")
        .expression_attribute_names("#o", "_ddb_owner_pk")
        .expression_attribute_values(":o", AttributeValue::S("MEMBER#9".into()))
        .send()
        .await
        .unwrap();

    let done = db
        .backfill::<Member>()
        .skip_check(true)
        .send()
        .await
        .unwrap();
    assert_eq!((done.updated, done.failed), (1, 0), "{done:?}");
    assert_eq!(
        email_guards_of(&db, "Member").await,
        owners(&[
            ("Ada@Example.com", "MEMBER#9 / PROFILE"),
            ("ada@example.com", "MEMBER#1 / PROFILE"),
        ])
    );
    let upgraded = db.get(Member::key(&"1".to_string()).unwrap()).send().await;
    assert_eq!(upgraded.unwrap().unwrap().email, "ada@example.com");
}

/// A customer as stored before its email was declared unique, and as the
/// code declares it now: the same entity type, items and table.
mod before_the_constraint {
    use super::*;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Accounts, entity = "Customer", pk = "CUSTOMER#{id}", sk = "PROFILE")]
    pub struct Customer {
        pub id: String,
        pub email: String,
    }
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Customer", pk = "CUSTOMER#{id}", sk = "PROFILE")]
pub struct Customer {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
}

#[tokio::test]
async fn a_backfill_creates_the_guards_of_a_constraint_declared_after_launch() {
    use before_the_constraint::Customer as Before;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let before = |id: &str, email: &str| Before {
        id: id.into(),
        email: email.into(),
    };
    for (id, email) in [("1", "ada@x.io"), ("2", "bob@x.io"), ("3", "ada@x.io")] {
        db.put(&before(id, email)).send().await.unwrap();
    }
    // A value two items hold: reported, by the items' keys, and nothing is
    // written.
    let expected = vec![ddb_runtime::schema::UniqueDuplicate {
        field: "email",
        items: vec!["CUSTOMER#1 / PROFILE".into(), "CUSTOMER#3 / PROFILE".into()],
    }];
    assert_eq!(
        db.backfill::<Customer>().duplicates().await.unwrap(),
        expected
    );
    match db.backfill::<Customer>().send().await {
        Err(Error::UniqueDuplicates {
            entity: "Customer",
            duplicates,
        }) => assert_eq!(duplicates, expected),
        other => panic!("expected the duplicate reported, got {other:?}"),
    }
    assert!(email_guards_of(&db, "Customer").await.is_empty());
    // Once each value is held once, the backfill creates the guards.
    db.put(&before("3", "carol@x.io")).send().await.unwrap();
    let done = db.backfill::<Customer>().segments(2).send().await.unwrap();
    assert_eq!(done.guards_written, 3);
    let expected = owners(&[
        ("ada@x.io", "CUSTOMER#1 / PROFILE"),
        ("bob@x.io", "CUSTOMER#2 / PROFILE"),
        ("carol@x.io", "CUSTOMER#3 / PROFILE"),
    ]);
    assert_eq!(email_guards_of(&db, "Customer").await, expected);
    // A second run finds every guard there and writes none.
    let again = db.backfill::<Customer>().send().await.unwrap();
    assert_eq!(again.guards_written, 0);
    // Without the check, every guard is put again, naming the same items.
    let unchecked = db
        .backfill::<Customer>()
        .skip_check(true)
        .send()
        .await
        .unwrap();
    assert_eq!(unchecked.guards_written, 3);
    assert_eq!(email_guards_of(&db, "Customer").await, expected);
    // The constraint now holds for every write.
    let taken = Customer {
        id: "4".into(),
        email: "bob@x.io".into(),
    };
    match db.create(&taken).send().await {
        Err(Error::UniqueViolation {
            entity: "Customer",
            field: "email",
        }) => {}
        other => panic!("expected the email taken, got {other:?}"),
    }
}

/// While a backfill creates the guards, a writer of today's code moves
/// emails: at the end every customer's email has its guard, naming it, and
/// no guard names a customer that does not hold its email.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backfill_keeps_up_with_writers_that_move_unique_values() {
    ddb_tests::requires!(AtomicConditionalWrites);
    use before_the_constraint::Customer as Before;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let large = std::env::var("DDB_STRESS").is_ok_and(|v| v == "large");
    let (customers, writes) = if large { (400, 2_000) } else { (60, 200) };
    for id in 0..customers {
        let before = Before {
            id: id.to_string(),
            email: format!("old-{id}@x.io"),
        };
        db.put(&before).send().await.unwrap();
    }
    let writer = {
        let db = db.clone();
        tokio::spawn(async move {
            let mut rng = ddb_tests::SplitMix64(5);
            for k in 0..writes {
                let customer = Customer {
                    id: rng.below(customers).to_string(),
                    email: format!("new-{k}@x.io"),
                };
                match db.put(&customer).send().await {
                    Ok(_) | Err(Error::ChangedSinceRead { .. }) => {}
                    Err(error) => panic!("unexpected: {error:?}"),
                }
            }
        })
    };
    let done = db
        .backfill::<Customer>()
        .segments(4)
        .page_size(5)
        .send()
        .await
        .unwrap();
    writer.await.unwrap();
    assert_eq!(done.failed, 0);
    let items = ddb_tests::scan_raw::<Accounts>(&db).await;
    let text =
        |item: &ddb_runtime::Item, name: &str| item.get(name).unwrap().as_s().unwrap().clone();
    let held: BTreeMap<String, String> = items
        .iter()
        .filter(|item| text(item, "PK").starts_with("CUSTOMER#"))
        .map(|item| {
            (
                text(item, "email"),
                format!("{} / PROFILE", text(item, "PK")),
            )
        })
        .collect();
    assert_eq!(held.len() as u64, customers, "an email held twice");
    let guards = email_guards_of(&db, "Customer").await;
    let stale: Vec<_> = guards
        .iter()
        .filter(|(e, o)| held.get(*e) != Some(o))
        .collect();
    let missing: Vec<_> = held.keys().filter(|e| !guards.contains_key(*e)).collect();
    assert!(
        stale.is_empty(),
        "guards naming the wrong customer: {stale:?}"
    );
    assert!(
        missing.is_empty(),
        "emails without their guard: {missing:?}"
    );
}

/// A customer stored before the constraint holds an email another customer
/// took since (the backfill not yet run): its writes let the value go
/// without touching the other's guard.
#[tokio::test]
async fn a_value_held_twice_from_before_its_constraint_can_still_be_let_go() {
    use before_the_constraint::Customer as Before;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let before = Before {
        id: "1".into(),
        email: "ada@x.io".into(),
    };
    db.put(&before).send().await.unwrap();
    let taker = Customer {
        id: "2".into(),
        email: "ada@x.io".into(),
    };
    db.create(&taker).send().await.unwrap();
    let key = |id: &str| Customer::key(&id.to_string()).unwrap();
    // In a transaction, the value held twice is named.
    let sent = db.transact_write().delete(db.delete(key("1"))).send().await;
    let error = sent.unwrap_err();
    match error.action_failure(&key("1")).and_then(|a| a.error()) {
        Some(Error::UniqueDuplicates { duplicates, .. }) => assert_eq!(
            duplicates[0].items,
            ["CUSTOMER#1 / PROFILE", "CUSTOMER#2 / PROFILE"]
        ),
        other => panic!("expected the value held twice, got {other:?}"),
    }
    // A put moving the first customer to another email, then its delete.
    let moved = Customer {
        id: "1".into(),
        email: "ada@work.io".into(),
    };
    db.put(&moved).send().await.unwrap();
    db.delete(key("1")).send().await.unwrap();
    let guards = email_guards_of(&db, "Customer").await;
    assert_eq!(guards["ada@x.io"], "CUSTOMER#2 / PROFILE");
    assert!(!guards.contains_key("ada@work.io"), "{guards:?}");
}

/// Two customers stored before the constraint with one email, deleted in
/// one transaction: one delete of the value's guard, naming either.
#[tokio::test]
async fn a_transaction_lets_go_of_a_value_two_items_hold() {
    use before_the_constraint::Customer as Before;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    for id in ["1", "2"] {
        let before = Before {
            id: id.into(),
            email: "ada@x.io".into(),
        };
        db.put(&before).send().await.unwrap();
    }
    let key = |id: &str| Customer::key(&id.to_string()).unwrap();
    db.transact_write()
        .delete(db.delete(key("1")))
        .delete(db.delete(key("2")))
        .send()
        .await
        .unwrap();
    assert!(ddb_tests::scan_raw::<Accounts>(&db).await.is_empty());
}

/// A table that gains an index after launch.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Shelves", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Shelves;

/// A product as stored before its index and its constraint were declared.
mod before_the_index {
    use super::*;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Shelves, entity = "Product", pk = "PRODUCT#{id}", sk = "PRODUCT")]
    pub struct Product {
        pub id: String,
        pub sku: String,
        pub shelf: String,
    }
}

/// The product today: found by shelf, one per SKU.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shelves, entity = "Product", pk = "PRODUCT#{id}", sk = "PRODUCT")]
#[ddb(index(
    name = "GSI1",
    pk = "SHELF#{shelf}",
    sk = "PRODUCT#{id}",
    query = "on_shelf"
))]
pub struct Product {
    pub id: String,
    #[ddb(unique)]
    pub sku: String,
    pub shelf: String,
}

/// Each step of bringing an item in line has the whole retry budget: an
/// item whose index write met a changed item on all attempts but the last
/// still has its guards put, sent again when their transaction is throttled.
#[tokio::test]
async fn a_backfill_gives_each_step_of_an_item_its_own_retries() {
    let db = ddb_tests::db_with_table::<Shelves>().await;
    let stored = before_the_index::Product {
        id: "1".into(),
        sku: "SKU-1".into(),
        shelf: "A".into(),
    };
    db.put(&stored).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Shelves>(&db).await;
    let through = through.with_retry_policy(ddb_runtime::batch::RetryPolicy {
        max_attempts: 3,
        base: std::time::Duration::from_millis(1),
        cap: std::time::Duration::from_millis(5),
        concurrency: 1,
    });
    // Two index writes meet the item "changed" (as it is), then two guard
    // transactions are throttled on each of the client's 4 attempts: each
    // step spends all but the last of its 3 attempts.
    let key = stored.primary_key().unwrap().to_item();
    let now = ddb_tests::raw_item::<Shelves>(&db, key).await.unwrap();
    let changed = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        "message": "The conditional request failed",
        "Item": ddb_tests::item_json(&now),
    });
    proxy.fail("UpdateItem", 2, Fault::Json(400, changed.to_string()));
    let throttled = Fault::Error(400, "ProvisionedThroughputExceededException");
    proxy.fail("TransactWriteItems", 8, throttled);
    let done = through.backfill::<Product>().send().await.unwrap();
    assert_eq!(
        (done.updated, done.guards_written, done.failed, done.retried),
        (1, 1, 0, 4),
        "{done:?}"
    );
    assert_eq!(proxy.injected("TransactWriteItems"), 8);
    let found = db
        .get_unique(Product::by_sku(&"SKU-1".to_string()))
        .send()
        .await;
    assert_eq!(found.unwrap().map(|p| p.shelf), Some("A".to_string()));
}
