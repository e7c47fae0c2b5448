//! Unique values: a guard item per value, kept by every write in the same
//! TransactWriteItems as the item, so that no two items of an entity hold
//! one value, and read back by value through the guard.

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Created, Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

mod backfill;
mod normalised;

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

/// A user: one per email, and per tenant one per handle.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(unique(tenant, handle))]
pub struct User {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
    pub tenant: String,
    pub handle: String,
    pub name: String,
}

/// A patient: the national id is unique and personal data, so its guard is
/// keyed by a keyed hash.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Patient", pk = "PATIENT#{id}", sk = "PROFILE")]
pub struct Patient {
    pub id: String,
    #[ddb(unique, sensitive)]
    pub national_id: String,
    pub phone: Option<String>,
}

fn user(id: &str, email: &str) -> User {
    User {
        id: id.into(),
        email: email.into(),
        tenant: "acme".into(),
        handle: format!("@{id}"),
        name: format!("User {id}"),
    }
}

/// The raw table: each guard's key text and the key of the item it names,
/// and each user's key with its email.
pub(super) async fn raw_state(db: &Db) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let items = ddb_tests::scan_raw::<Accounts>(db).await;
    let text = |item: &ddb_runtime::Item, name: &str| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    let mut guards = BTreeMap::new();
    let mut users = BTreeMap::new();
    for item in items {
        let pk = text(&item, "PK");
        if pk.starts_with("_DDB#") {
            let owner = format!(
                "{} / {}",
                text(&item, "_ddb_owner_pk"),
                text(&item, "_ddb_owner_sk")
            );
            guards.insert(pk, owner);
        } else if text(&item, "_type") == "User" {
            users.insert(
                format!("{pk} / {}", text(&item, "SK")),
                text(&item, "email"),
            );
        }
    }
    (guards, users)
}

/// The email guards of the raw table, by the item they name.
fn email_guards(guards: &BTreeMap<String, String>) -> Vec<(String, String)> {
    guards
        .iter()
        .filter(|(guard, _)| guard.starts_with("_DDB#UNIQUE#User#email#"))
        .map(|(guard, owner)| {
            (
                guard["_DDB#UNIQUE#User#email#S:".len()..].to_owned(),
                owner.clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_unique_value_is_held_by_one_item() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    assert_eq!(
        db.create(&user("1", "ada@example.com"))
            .send()
            .await
            .unwrap(),
        Created::Created
    );
    match db.create(&user("2", "ada@example.com")).send().await {
        Err(Error::UniqueViolation {
            entity: "User",
            field: "email",
        }) => {}
        other => panic!("expected the email taken, got {other:?}"),
    }
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users.len(), 1, "the second user was not written");
    assert_eq!(
        email_guards(&guards),
        vec![("ada@example.com".to_owned(), "USER#1 / PROFILE".to_owned())]
    );
    // Another email, the same tenant and handle: the pair is taken.
    let same_handle = User {
        id: "3".into(),
        email: "other@example.com".into(),
        ..user("1", "x")
    };
    match db.create(&same_handle).send().await {
        Err(Error::UniqueViolation {
            entity: "User",
            field: "tenant_handle",
        }) => {}
        other => panic!("expected the handle taken, got {other:?}"),
    }
    // The handle in another tenant is free.
    let elsewhere = User {
        tenant: "globex".into(),
        ..same_handle
    };
    assert_eq!(
        db.create(&elsewhere).send().await.unwrap(),
        Created::Created
    );
}

#[tokio::test]
async fn a_create_sent_again_meets_its_own_item_and_guards() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let ada = user("1", "ada@example.com");
    assert_eq!(db.create(&ada).send().await.unwrap(), Created::Created);
    assert_eq!(
        db.create(&ada).send().await.unwrap(),
        Created::AlreadyExisted
    );
    let (guards, users) = raw_state(&db).await;
    assert_eq!((guards.len(), users.len()), (2, 1));
}

#[tokio::test]
async fn an_entity_is_read_by_its_unique_value() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let ada = user("1", "ada@example.com");
    db.create(&ada).send().await.unwrap();
    let found = db
        .get_unique(User::by_email(&"ada@example.com".to_string()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(ada.clone()));
    let by_pair = db
        .get_unique(User::by_tenant_handle(
            &"acme".to_string(),
            &"@1".to_string(),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(by_pair, Some(ada));
    let missing = db
        .get_unique(User::by_email(&"nobody@example.com".to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(missing, None);
}

#[tokio::test]
async fn a_delete_frees_its_values() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    db.create(&user("1", "ada@example.com"))
        .send()
        .await
        .unwrap();
    db.delete(User::key(&"1".to_string()).unwrap())
        .send()
        .await
        .unwrap();
    let (guards, users) = raw_state(&db).await;
    assert!(
        guards.is_empty() && users.is_empty(),
        "{guards:?} {users:?}"
    );
    db.create(&user("2", "ada@example.com"))
        .send()
        .await
        .unwrap();
    let (guards, _) = raw_state(&db).await;
    assert_eq!(
        email_guards(&guards),
        vec![("ada@example.com".to_owned(), "USER#2 / PROFILE".to_owned())]
    );
}

#[tokio::test]
async fn a_put_moves_the_guards_of_the_values_it_changes() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    db.create(&user("1", "ada@example.com"))
        .send()
        .await
        .unwrap();
    db.create(&user("2", "bob@example.com"))
        .send()
        .await
        .unwrap();
    // A new email: its guard is taken, the old one let go.
    db.put(&user("1", "ada@work.example")).send().await.unwrap();
    // A taken email: refused, nothing changed.
    match db.put(&user("1", "bob@example.com")).send().await {
        Err(Error::UniqueViolation {
            entity: "User",
            field: "email",
        }) => {}
        other => panic!("expected the email taken, got {other:?}"),
    }
    // A put that keeps the email writes the item alone.
    let renamed = User {
        name: "Ada L.".into(),
        ..user("1", "ada@work.example")
    };
    db.put(&renamed).send().await.unwrap();
    // A put of a new item takes its guards as a create does.
    db.put(&user("3", "cy@example.com")).send().await.unwrap();
    let (guards, users) = raw_state(&db).await;
    let emails: BTreeSet<String> = users.values().cloned().collect();
    assert_eq!(
        emails,
        ["ada@work.example", "bob@example.com", "cy@example.com"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        email_guards(&guards),
        vec![
            ("ada@work.example".to_owned(), "USER#1 / PROFILE".to_owned()),
            ("bob@example.com".to_owned(), "USER#2 / PROFILE".to_owned()),
            ("cy@example.com".to_owned(), "USER#3 / PROFILE".to_owned()),
        ]
    );
    db.create(&user("4", "ada@example.com"))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_sensitive_unique_value_is_guarded_by_its_keyed_hash() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let patient = Patient {
        id: "p1".into(),
        national_id: "750101-1234".into(),
        phone: None,
    };
    match db.create(&patient).send().await {
        Err(Error::InvalidRequest {
            entity: "Patient", ..
        }) => {}
        other => panic!("a sensitive unique value needs the guard hash key, got {other:?}"),
    }
    let db = db.with_guard_hash_key(b"thirty-two bytes of guard hashing".to_vec());
    db.create(&patient).send().await.unwrap();
    let items = ddb_tests::scan_raw::<Accounts>(&db).await;
    let keys: Vec<String> = items
        .iter()
        .filter_map(|item| item.get("PK").and_then(|v| v.as_s().ok()).cloned())
        .collect();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|key| !key.contains("750101")), "{keys:?}");
    let twin = Patient {
        id: "p2".into(),
        ..patient.clone()
    };
    match db.create(&twin).send().await {
        Err(Error::UniqueViolation {
            entity: "Patient",
            field: "national_id",
        }) => {}
        other => panic!("expected the id taken, got {other:?}"),
    }
    let found = db
        .get_unique(Patient::by_national_id(&"750101-1234".to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(patient));
}

#[tokio::test]
async fn a_batch_cannot_keep_unique_values_and_is_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    match db.batch_put(&[user("1", "ada@example.com")]).await {
        Err(Error::InvalidRequest {
            entity: "User",
            reason,
        }) => {
            assert!(reason.contains("unique"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let (guards, users) = raw_state(&db).await;
    assert!(guards.is_empty() && users.is_empty());
}

#[tokio::test]
async fn a_key_cannot_take_the_prefix_of_guard_items() {
    #[derive(Table)]
    #[ddb(name = "Files", pk = "path")]
    pub struct Files;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Files, entity = "File", pk = "{path}")]
    pub struct File {
        pub path: String,
    }

    let db = ddb_tests::db_with_table::<Files>().await;
    let forged = File {
        path: "_DDB#UNIQUE#User#email#S:ada@example.com".into(),
    };
    match db.create(&forged).send().await {
        Err(Error::InvalidKeySegment { entity: "File", .. }) => {}
        other => panic!("expected the reserved prefix refused, got {other:?}"),
    }
}

/// 64 tasks create, change and delete users over five emails, at once, half
/// of them through the fault proxy, which loses answers (the write applied)
/// and cancels transactions as conflicts. At the end the raw table holds no
/// email twice, every guard names a user holding its email, and every
/// user's email has its guard.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_never_share_a_unique_value() {
    ddb_tests::requires!(SerializableTransactions);
    use ddb_tests::proxy::Fault;
    let direct = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&direct).await;
    for (n, target) in ["TransactWriteItems", "PutItem", "DeleteItem"]
        .into_iter()
        .enumerate()
    {
        proxy.fail_randomly(target, 0.1, 11 + n as u64, Fault::DropResponse);
    }
    proxy.fail_randomly("TransactWriteItems", 0.1, 17, Fault::TransactionConflict);
    let large = std::env::var("DDB_STRESS").is_ok_and(|v| v == "large");
    let (tasks, steps) = if large { (64, 60) } else { (64, 6) };
    let seed: u64 = std::env::var("DDB_STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let emails = ["a@x.io", "b@x.io", "c@x.io", "d@x.io", "e@x.io"];
    let mut handles = Vec::new();
    for task in 0..tasks {
        let db = if task % 2 == 0 {
            direct.clone()
        } else {
            through.clone()
        };
        handles.push(tokio::spawn(async move {
            let mut rng = ddb_tests::SplitMix64(seed * 1000 + task);
            for _ in 0..steps {
                let id = rng.below(12).to_string();
                let email = emails[rng.below(emails.len() as u64) as usize];
                let written = match rng.below(5) {
                    0 => db.create(&user(&id, email)).send().await.map(|_| ()),
                    1 => db.put(&user(&id, email)).send().await.map(|_| ()),
                    2 => db
                        .update(User::key(&id).unwrap())
                        .set(User::fields().email, email)
                        .send()
                        .await
                        .map(|_| ()),
                    3 => {
                        // A transaction moving one user's email and
                        // deleting another.
                        let other = ((id.parse::<u64>().unwrap() + 1) % 12).to_string();
                        db.transact_write()
                            .update(
                                db.update(User::key(&id).unwrap())
                                    .set(User::fields().email, email),
                            )
                            .delete(db.delete(User::key(&other).unwrap()))
                            .send()
                            .await
                            .map(|_| ())
                    }
                    _ => db.delete(User::key(&id).unwrap()).send().await.map(|_| ()),
                };
                match written {
                    Ok(())
                    | Err(Error::DuplicateKey { .. })
                    | Err(Error::WriteOutcomeUnknown { .. }) => {}
                    // A single write's failure, or a transaction's action's.
                    Err(error)
                        if error.is_unique_violation()
                            || error.is_already_exists()
                            || error.is_not_found()
                            || error.is_changed_since_read()
                            || error.is_retryable() => {}
                    Err(error) => panic!("unexpected: {error:?}"),
                }
            }
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
    assert!(
        proxy.injected("TransactWriteItems") > 0,
        "the proxy lost no answer"
    );
    let (guards, users) = raw_state(&direct).await;
    let held: Vec<&String> = users.values().collect();
    let distinct: BTreeSet<&String> = held.iter().copied().collect();
    assert_eq!(held.len(), distinct.len(), "an email held twice: {users:?}");
    for (email, owner) in email_guards(&guards) {
        assert_eq!(
            users.get(&owner),
            Some(&email),
            "guard of {email} names {owner}"
        );
    }
    let guarded: BTreeSet<String> = email_guards(&guards)
        .into_iter()
        .map(|(email, _)| email)
        .collect();
    for email in users.values() {
        assert!(guarded.contains(email), "{email} has no guard");
    }
}

#[tokio::test]
async fn a_transaction_keeps_the_guards_of_its_writes() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let fields = User::fields();
    let key = |id: &str| User::key(&id.to_string()).unwrap();
    // Creates take their values.
    db.transact_write()
        .create(&user("1", "ada@example.com"))
        .create(&user("2", "bob@example.com"))
        .send()
        .await
        .unwrap();
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users.len(), 2);
    assert_eq!(email_guards(&guards).len(), 2);
    // A value held elsewhere cancels the whole transaction; the update
    // that takes it is the action that failed, typed.
    let sent = db
        .transact_write()
        .create(&user("3", "carol@example.com"))
        .update(db.update(key("1")).set(fields.email, "bob@example.com"))
        .send()
        .await;
    let error = sent.unwrap_err();
    assert!(error.is_unique_violation(), "{error:?}");
    let update = error.action_failure(&key("1")).unwrap();
    assert!(
        matches!(
            update.error(),
            Some(Error::UniqueViolation {
                entity: "User",
                field: "email",
            })
        ),
        "{update:?}"
    );
    let create = error.action_failure(&key("3")).unwrap();
    assert!(
        create.error().is_none(),
        "the create did not fail: {create:?}"
    );
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users.len(), 2, "nothing was written: {users:?}");
    assert_eq!(email_guards(&guards).len(), 2);
    // A put and an update move theirs; a delete lets its values go.
    db.transact_write()
        .put(db.put(&user("1", "ada@work.example")))
        .update(db.update(key("2")).set(fields.email, "ada@example.com"))
        .send()
        .await
        .unwrap();
    let (guards, users) = raw_state(&db).await;
    assert_eq!(
        email_guards(&guards),
        vec![
            ("ada@example.com".to_owned(), "USER#2 / PROFILE".to_owned()),
            ("ada@work.example".to_owned(), "USER#1 / PROFILE".to_owned()),
        ]
    );
    assert_eq!(users["USER#2 / PROFILE"], "ada@example.com");
    // A value let go by one item and taken by another in one transaction.
    db.transact_write()
        .delete(db.delete(key("1")))
        .create(&user("4", "ada@work.example"))
        .send()
        .await
        .unwrap();
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users.len(), 2);
    assert_eq!(users["USER#4 / PROFILE"], "ada@work.example");
    assert_eq!(email_guards(&guards)[1].1, "USER#4 / PROFILE");
    // Two items cannot take one value.
    match db
        .transact_write()
        .create(&user("5", "eve@example.com"))
        .create(&user("6", "eve@example.com"))
        .send()
        .await
    {
        Err(Error::UniqueViolation {
            entity: "User",
            field: "email",
        }) => {}
        other => panic!("expected the email taken, got {other:?}"),
    }
    db.transact_write()
        .delete(db.delete(key("4")))
        .send()
        .await
        .unwrap();
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users.len(), 1);
    assert!(
        guards.values().all(|owner| owner == "USER#2 / PROFILE"),
        "{guards:?}"
    );
    // The caller's own conditions fail as they would without guards.
    let sent = db
        .transact_write()
        .put(
            db.put(&user("2", "bob@example.com"))
                .condition(fields.name.eq("nobody")),
        )
        .send()
        .await;
    match sent {
        Err(Error::TransactionCanceled { reasons }) => {
            assert_eq!(
                reasons[0].reason(),
                ddb_runtime::CancellationReason::ConditionFailed
            );
        }
        other => panic!("expected the condition to fail, got {other:?}"),
    }
}

#[tokio::test]
async fn an_update_moves_the_guard_of_a_unique_value_it_changes() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    for (id, email) in [("1", "ada@example.com"), ("2", "bob@example.com")] {
        db.create(&user(id, email)).send().await.unwrap();
    }
    let key = User::key(&"1".to_string()).unwrap();
    let fields = User::fields();
    // A value another user holds: refused, nothing changed.
    match db
        .update(key.clone())
        .set(fields.email, "bob@example.com")
        .set(fields.name, "Ada L.")
        .send()
        .await
    {
        Err(Error::UniqueViolation {
            entity: "User",
            field: "email",
        }) => {}
        other => panic!("expected the email taken, got {other:?}"),
    }
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users["USER#1 / PROFILE"], "ada@example.com");
    assert_eq!(email_guards(&guards).len(), 2);
    // A free value: the old guard goes, the new one names the user, and
    // the other changes apply with it.
    db.update(key.clone())
        .set(fields.email, "ada@work.example")
        .set(fields.name, "Ada L.")
        .send()
        .await
        .unwrap();
    let (guards, users) = raw_state(&db).await;
    assert_eq!(users["USER#1 / PROFILE"], "ada@work.example");
    assert_eq!(
        email_guards(&guards),
        vec![
            ("ada@work.example".to_owned(), "USER#1 / PROFILE".to_owned()),
            ("bob@example.com".to_owned(), "USER#2 / PROFILE".to_owned()),
        ]
    );
    let stored = db.get(key.clone()).send().await.unwrap().unwrap();
    assert_eq!(stored.name, "Ada L.");
    // The freed value can be taken by another user.
    db.update(User::key(&"2".to_string()).unwrap())
        .set(fields.email, "ada@example.com")
        .send()
        .await
        .unwrap();
    // A tuple constraint moves when one of its fields changes.
    db.update(key.clone())
        .set(fields.handle, "@ada")
        .send()
        .await
        .unwrap();
    let (guards, _) = raw_state(&db).await;
    assert!(
        guards.contains_key("_DDB#UNIQUE#User#tenant_handle#S:acme#S:@ada"),
        "{guards:?}"
    );
    assert!(
        !guards.contains_key("_DDB#UNIQUE#User#tenant_handle#S:acme#S:@1"),
        "{guards:?}"
    );
    // An update of an item that is not there changes no guard.
    match db
        .update(User::key(&"9".to_string()).unwrap())
        .set(fields.email, "nobody@example.com")
        .send()
        .await
    {
        Err(Error::NotFound { entity: "User", .. }) => {}
        other => panic!("expected not found, got {other:?}"),
    }
    let (guards, _) = raw_state(&db).await;
    assert!(!guards.keys().any(|g| g.contains("nobody")), "{guards:?}");
    // The values of other fields change as a plain update.
    db.update(key).set(fields.name, "Ada").send().await.unwrap();
}

#[derive(Table)]
#[ddb(name = "Invites", pk = "PK", ttl = "expires")]
pub struct Invites;

/// An invitation: one per email while it lasts.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Invites, entity = "Invite", pk = "INVITE#{id}")]
pub struct Invite {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
    #[ddb(ttl)]
    pub expires: i64,
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The time to live of each guard in the raw table.
async fn guard_expiry(db: &Db) -> Vec<i64> {
    ddb_tests::scan_raw::<Invites>(db)
        .await
        .iter()
        .filter(|item| item["PK"].as_s().unwrap().starts_with("_DDB#"))
        .map(|item| item["expires"].as_n().unwrap().parse().unwrap())
        .collect()
}

#[tokio::test]
async fn a_guard_expires_with_its_item() {
    let db = ddb_tests::db_with_table::<Invites>().await;
    let invite = Invite {
        id: "1".into(),
        email: "ada@example.com".into(),
        expires: now() + 3_600,
    };
    db.create(&invite).send().await.unwrap();
    assert_eq!(guard_expiry(&db).await, vec![invite.expires]);
    // A put that moves the time to live moves the guard's.
    let later = Invite {
        expires: now() + 86_400,
        ..invite.clone()
    };
    db.put(&later).send().await.unwrap();
    assert_eq!(guard_expiry(&db).await, vec![later.expires]);
    // So does an update.
    let key = Invite::key(&"1".to_string()).unwrap();
    let sooner = now() + 600;
    db.update(key)
        .set(Invite::fields().expires, sooner)
        .send()
        .await
        .unwrap();
    assert_eq!(guard_expiry(&db).await, vec![sooner]);
}

#[tokio::test]
async fn an_expired_item_lets_its_values_go() {
    let db = ddb_tests::db_with_table::<Invites>().await;
    // Past its time to live: absent to every read, its guard expired with it.
    let old = Invite {
        id: "1".into(),
        email: "ada@example.com".into(),
        expires: now() - 60,
    };
    db.create(&old).send().await.unwrap();
    let taker = Invite {
        id: "2".into(),
        email: "ada@example.com".into(),
        expires: now() + 3_600,
    };
    db.create(&taker).send().await.unwrap();
    // Brought back with the same email: the email is now the other's.
    let revived = Invite {
        expires: now() + 3_600,
        ..old.clone()
    };
    match db.put(&revived).send().await {
        Err(Error::UniqueViolation {
            entity: "Invite",
            field: "email",
        }) => {}
        other => panic!("expected the email taken, got {other:?}"),
    }
    // And the expired item can be deleted.
    db.delete(Invite::key(&"1".to_string()).unwrap())
        .send()
        .await
        .unwrap();
    let found = db
        .get_unique(Invite::by_email(&"ada@example.com".to_string()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(taker));
}

#[tokio::test]
async fn the_cost_report_counts_the_guards() {
    ddb_tests::requires!(CapacityByItemSize);
    let ada = user("1", "ada@example.com").to_item().unwrap();
    let report = ddb_tools::cost::cost_report(&[(&User::SCHEMA, ada)], 20);
    // One write unit for the item, one per guard, each twice in the transaction.
    assert!(report.contains("User keeps 2 unique value(s)"), "{report}");
    assert!(
        report.contains("its create is one transaction, 6 WCU"),
        "{report}"
    );
    let ada = user("1", "ada@example.com").to_item().unwrap();
    let cost = ddb_tools::cost::write_cost(&User::SCHEMA, &ada);
    assert_eq!((cost.table, cost.guards, cost.total()), (1.0, 2.0, 6.0));
    // A create's write units, as DynamoDB reports them.
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let transaction = db
        .transact_write()
        .create(&user("1", "ada@example.com"))
        .send_with_capacity()
        .await
        .unwrap();
    assert_eq!(transaction.1.total, cost.total());
}

#[tokio::test]
async fn a_lookup_names_the_guard_attributes_through_placeholders() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    db.create(&user("1", "ada@example.com"))
        .send()
        .await
        .unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
    proxy.record("GetItem");
    let key = User::by_email(&"ada@example.com".to_string());
    assert!(through.get_unique(key).send().await.unwrap().is_some());
    let guard_read = &ddb_tests::recorded_json(&proxy, "GetItem")[0];
    // A name starting with `_` is not a plain name in an expression.
    assert_eq!(guard_read["ProjectionExpression"], "#n0, #n1");
    assert_eq!(
        guard_read["ExpressionAttributeNames"]["#n0"],
        "_ddb_owner_pk"
    );
}

/// Each write of an entity with unique values sends what a careful engineer
/// would send by hand to keep the invariant: the read that names the old
/// guards (none for a create), and one transaction holding the item and
/// only the guards that change; a write that changes no guarded attribute
/// goes alone.
#[tokio::test]
async fn unique_writes_send_the_fewest_requests_that_keep_the_values() {
    let direct = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, db) = ddb_tests::through_proxy::<Accounts>(&direct).await;
    proxy.record("TransactWriteItems");
    let targets = ["GetItem", "PutItem", "UpdateItem", "TransactWriteItems"];
    let mut seen = [0; 4];
    let mut sent = || {
        let now = targets.map(|t| proxy.seen(t));
        let delta: Vec<usize> = now.iter().zip(seen).map(|(n, s)| n - s).collect();
        seen = now;
        let actions = proxy.recorded("TransactWriteItems").last().map(|body| {
            let body: serde_json::Value = serde_json::from_slice(body).unwrap();
            body["TransactItems"].as_array().unwrap().len()
        });
        (delta, actions)
    };
    let fields = User::fields();
    let key = User::key(&"1".to_string()).unwrap();
    // A create: one transaction, the item and a guard per value (2).
    db.create(&user("1", "a@x.io")).send().await.unwrap();
    assert_eq!(sent(), (vec![0, 0, 0, 1], Some(3)));
    // A put keeping every value: the read, then the put alone.
    db.put(&user("1", "a@x.io")).send().await.unwrap();
    assert_eq!(sent(), (vec![1, 1, 0, 0], Some(3)));
    // A put changing the email: the read, then the item, the old guard's
    // delete and the new one's put.
    db.put(&user("1", "b@x.io")).send().await.unwrap();
    assert_eq!(sent(), (vec![1, 0, 0, 1], Some(3)));
    // An update setting it: the same.
    db.update(key.clone())
        .set(fields.email, "c@x.io")
        .send()
        .await
        .unwrap();
    assert_eq!(sent(), (vec![1, 0, 0, 1], Some(3)));
    // An update of another field: one UpdateItem, no read.
    db.update(key.clone())
        .set(fields.name, "Ada")
        .send()
        .await
        .unwrap();
    assert_eq!(sent().0, vec![0, 0, 1, 0]);
    // A lookup by value: the guard, then the item.
    db.get_unique(User::by_email(&"c@x.io".to_string()))
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sent().0, vec![2, 0, 0, 0]);
    // A delete: the read, then the item and both guards.
    db.delete(key).send().await.unwrap();
    assert_eq!(sent(), (vec![1, 0, 0, 1], Some(3)));
}

#[tokio::test]
async fn a_transaction_create_over_a_stored_key_fails_as_its_own_condition() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    db.create(&user("1", "ada@x.io")).send().await.unwrap();
    let sent = db
        .transact_write()
        .create(&user("1", "other@x.io"))
        .send()
        .await;
    match sent {
        Err(Error::TransactionCanceled { reasons }) => assert_eq!(
            reasons[0].reason(),
            ddb_runtime::CancellationReason::ConditionFailed
        ),
        other => panic!("expected the create's condition to fail, got {other:?}"),
    }
}

/// A profile whose nickname, when it has one, is unique.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Profile", pk = "PROFILE#{id}", sk = "PROFILE")]
pub struct Profile {
    pub id: String,
    #[ddb(unique)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[ddb(version)]
    pub version: u64,
}

#[tokio::test]
async fn an_optional_unique_value_is_guarded_only_when_present() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let none = Profile {
        id: "1".into(),
        nickname: None,
        version: 0,
    };
    // A create is a transaction even with no value to guard.
    let cost = ddb_tools::cost::write_cost(&Profile::SCHEMA, &none.to_item().unwrap());
    assert_eq!((cost.guards, cost.total()), (0.0, 2.0));
    db.create(&none).send().await.unwrap();
    let key = Profile::key(&"1".to_string()).unwrap();
    let fields = Profile::fields();
    let written = db
        .update(key.clone())
        .set(fields.nickname, Some("ada".to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, Some(2));
    let (guards, _) = raw_state(&db).await;
    assert_eq!(
        guards["_DDB#UNIQUE#Profile#nickname#S:ada"],
        "PROFILE#1 / PROFILE"
    );
    // Removed, the value is let go.
    db.update(key).remove(fields.nickname).send().await.unwrap();
    let (guards, _) = raw_state(&db).await;
    assert!(guards.is_empty(), "{guards:?}");
}
