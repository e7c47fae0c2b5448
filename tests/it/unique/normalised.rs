//! Unique values that compare normalised (`ignore_case`, `normalize =
//! path`): the item keeps the value as entered, its guard holds the
//! normalised one, and every write, lookup and backfill compares by it. An
//! empty value is refused before anything is sent, unless the constraint
//! allows it.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Created, Db, Entity, Error};
use serde::{Deserialize, Serialize};

use super::Accounts;

/// A player: one per handle, whatever its case.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Player", pk = "PLAYER#{id}", sk = "PROFILE")]
pub struct Player {
    pub id: String,
    #[ddb(unique(ignore_case))]
    pub handle: String,
    pub name: String,
}

fn player(id: &str, handle: &str) -> Player {
    Player {
        id: id.into(),
        handle: handle.into(),
        name: format!("Player {id}"),
    }
}

/// A team: one per name, spaces around it aside.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Team", pk = "TEAM#{id}", sk = "TEAM")]
pub struct Team {
    pub id: String,
    #[ddb(unique(normalize = trimmed))]
    pub name: String,
}

fn trimmed(name: &str) -> String {
    name.trim().to_owned()
}

/// A guild: one per motto, the empty motto included.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Guild", pk = "GUILD#{id}", sk = "GUILD")]
pub struct Guild {
    pub id: String,
    #[ddb(unique(allow_empty))]
    pub motto: String,
}

/// A seat: per venue, one per label whatever its case; the venue and the
/// label are both needed.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Seat", pk = "SEAT#{id}", sk = "SEAT")]
#[ddb(unique(venue, label, ignore_case))]
pub struct Seat {
    pub id: String,
    pub venue: String,
    pub label: String,
}

/// A citizen: the email is personal data, unique whatever its case.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Citizen", pk = "CITIZEN#{id}", sk = "PROFILE")]
pub struct Citizen {
    pub id: String,
    #[ddb(unique(ignore_case), sensitive)]
    pub email: String,
}

/// The guards of the raw table, by key: the key of the item each names.
async fn guards(db: &Db) -> BTreeMap<String, String> {
    let text = |item: &ddb_runtime::Item, name: &str| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    ddb_tests::scan_raw::<Accounts>(db)
        .await
        .iter()
        .filter(|item| text(item, "PK").starts_with("_DDB#"))
        .map(|item| {
            let owner = format!(
                "{} / {}",
                text(item, "_ddb_owner_pk"),
                text(item, "_ddb_owner_sk")
            );
            (text(item, "PK"), owner)
        })
        .collect()
}

/// `pairs` as [`guards`] lists them.
fn owners(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(guard, owner)| (guard.to_string(), owner.to_string()))
        .collect()
}

/// The attribute `name` of the item at `pk` / `sk`, read raw.
async fn stored(db: &Db, pk: &str, sk: &str, name: &str) -> Option<String> {
    let key = [
        ("PK".to_owned(), AttributeValue::S(pk.into())),
        ("SK".to_owned(), AttributeValue::S(sk.into())),
    ];
    let item = ddb_tests::raw_item::<Accounts>(db, key.into()).await?;
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

fn taken(result: Result<Created, Error>, entity: &str, field: &str) {
    match result {
        Err(Error::UniqueViolation {
            entity: e,
            field: f,
        }) if e == entity && f == field => {}
        other => panic!("expected {entity}'s {field} taken, got {other:?}"),
    }
}

#[tokio::test]
async fn values_that_differ_only_in_case_collide_under_ignore_case() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let ada = player("1", "Ada");
    assert_eq!(db.create(&ada).send().await.unwrap(), Created::Created);
    taken(
        db.create(&player("2", "ADA")).send().await,
        "Player",
        "handle",
    );
    taken(
        db.create(&player("2", "ada")).send().await,
        "Player",
        "handle",
    );
    // The item keeps the handle as entered; its guard holds it lowercased.
    assert_eq!(
        stored(&db, "PLAYER#1", "PROFILE", "handle")
            .await
            .as_deref(),
        Some("Ada")
    );
    assert_eq!(
        guards(&db).await,
        owners(&[("_DDB#UNIQUE#Player#handle#S:ada", "PLAYER#1 / PROFILE")])
    );
    // A lookup lowercases its argument: any case finds the player.
    for handle in ["Ada", "ADA", "ada", "aDA"] {
        let found = db
            .get_unique(Player::by_handle(&handle.to_string()))
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        assert_eq!(found.as_ref(), Some(&ada), "looked up as {handle}");
    }
    // Another handle is free; a transaction compares by the lowercase too.
    db.create(&player("2", "Bob")).send().await.unwrap();
    match db
        .transact_write()
        .create(&player("3", "Eve"))
        .create(&player("4", "EVE"))
        .send()
        .await
    {
        Err(Error::UniqueViolation {
            entity: "Player",
            field: "handle",
        }) => {}
        other => panic!("expected the handle taken, got {other:?}"),
    }
    let sent = db
        .transact_write()
        .create(&player("3", "BOB"))
        .send()
        .await
        .unwrap_err();
    assert!(sent.is_unique_violation(), "{sent:?}");
    // Delete lets the lowercase guard go.
    db.delete(Player::key(&"1".to_string()).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        guards(&db).await,
        owners(&[("_DDB#UNIQUE#Player#handle#S:bob", "PLAYER#2 / PROFILE")])
    );
    db.create(&player("5", "aDa")).send().await.unwrap();
}

#[tokio::test]
async fn a_change_of_case_only_moves_no_guard() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    db.create(&player("1", "ada")).send().await.unwrap();
    let key = Player::key(&"1".to_string()).unwrap();
    let guard = owners(&[("_DDB#UNIQUE#Player#handle#S:ada", "PLAYER#1 / PROFILE")]);
    // An update: the item takes the new spelling, the guard stays.
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
    through
        .update(key.clone())
        .set(Player::fields().handle, "Ada".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        proxy.seen("TransactWriteItems"),
        0,
        "no guard moved, so no transaction"
    );
    assert_eq!(
        stored(&db, "PLAYER#1", "PROFILE", "handle")
            .await
            .as_deref(),
        Some("Ada")
    );
    assert_eq!(guards(&db).await, guard);
    // A put: the same.
    through.put(&player("1", "ADA")).send().await.unwrap();
    assert_eq!(proxy.seen("TransactWriteItems"), 0);
    assert_eq!(
        stored(&db, "PLAYER#1", "PROFILE", "handle")
            .await
            .as_deref(),
        Some("ADA")
    );
    assert_eq!(guards(&db).await, guard);
    // A change of the value itself moves it.
    db.update(key)
        .set(Player::fields().handle, "Grace".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        guards(&db).await,
        owners(&[("_DDB#UNIQUE#Player#handle#S:grace", "PLAYER#1 / PROFILE")])
    );
}

#[tokio::test]
async fn a_normalize_function_decides_what_compares_equal() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let team = |id: &str, name: &str| Team {
        id: id.into(),
        name: name.into(),
    };
    db.create(&team("1", "  Rovers ")).send().await.unwrap();
    taken(db.create(&team("2", "Rovers")).send().await, "Team", "name");
    // Case is not the function's business: another value.
    db.create(&team("2", "ROVERS")).send().await.unwrap();
    assert_eq!(
        stored(&db, "TEAM#1", "TEAM", "name").await.as_deref(),
        Some("  Rovers ")
    );
    assert_eq!(
        guards(&db).await,
        owners(&[
            ("_DDB#UNIQUE#Team#name#S:ROVERS", "TEAM#2 / TEAM"),
            ("_DDB#UNIQUE#Team#name#S:Rovers", "TEAM#1 / TEAM"),
        ])
    );
    let found = db
        .get_unique(Team::by_name(&"Rovers\n".to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(team("1", "  Rovers ")));
    // Only spaces are empty once trimmed: refused, nothing written.
    match db.create(&team("3", "   ")).send().await {
        Err(Error::InvalidValue {
            entity: "Team",
            reason,
        }) => assert!(reason.contains("unique `name`"), "{reason}"),
        other => panic!("expected the empty name refused, got {other:?}"),
    }
    assert_eq!(guards(&db).await.len(), 2);
    assert_eq!(stored(&db, "TEAM#3", "TEAM", "name").await, None);
}

#[tokio::test]
async fn an_empty_value_is_refused_before_anything_is_sent() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
    let refused = |result: Result<_, Error>| match result {
        Err(Error::InvalidValue {
            entity: "Player",
            reason,
        }) => {
            assert!(reason.contains("unique `handle` is empty"), "{reason}");
            assert!(reason.contains("allow_empty"), "{reason}");
        }
        other => panic!("expected the empty handle refused, got {other:?}"),
    };
    refused(through.create(&player("1", "")).send().await.map(|_| ()));
    refused(through.put(&player("1", "")).send().await.map(|_| ()));
    refused(
        through
            .transact_write()
            .create(&player("1", ""))
            .send()
            .await
            .map(|_| ()),
    );
    let sent = ["GetItem", "PutItem", "UpdateItem", "TransactWriteItems"];
    assert!(
        sent.iter().all(|target| proxy.seen(target) == 0),
        "nothing was sent"
    );
    assert!(ddb_tests::scan_raw::<Accounts>(&db).await.is_empty());
    // An update setting it is refused before it reads the item.
    db.create(&player("1", "ada")).send().await.unwrap();
    let key = Player::key(&"1".to_string()).unwrap();
    refused(
        through
            .update(key)
            .set(Player::fields().handle, String::new())
            .send()
            .await
            .map(|_| ()),
    );
    assert!(sent.iter().all(|target| proxy.seen(target) == 0));
    assert_eq!(
        stored(&db, "PLAYER#1", "PROFILE", "handle")
            .await
            .as_deref(),
        Some("ada")
    );
    // Of several fields, one empty part is enough.
    let seat = |id: &str, venue: &str, label: &str| Seat {
        id: id.into(),
        venue: venue.into(),
        label: label.into(),
    };
    for (venue, label) in [("hall", ""), ("", "A1"), ("", "")] {
        match db.create(&seat("1", venue, label)).send().await {
            Err(Error::InvalidValue {
                entity: "Seat",
                reason,
            }) => assert!(reason.contains("unique `venue_label`"), "{reason}"),
            other => panic!("expected ({venue:?}, {label:?}) refused, got {other:?}"),
        }
    }
    db.create(&seat("1", "Hall", "a1")).send().await.unwrap();
    taken(
        db.create(&seat("2", "hall", "A1")).send().await,
        "Seat",
        "venue_label",
    );
}

#[tokio::test]
async fn an_empty_value_is_a_value_under_allow_empty() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let guild = |id: &str, motto: &str| Guild {
        id: id.into(),
        motto: motto.into(),
    };
    db.create(&guild("1", "")).send().await.unwrap();
    assert_eq!(
        guards(&db).await,
        owners(&[("_DDB#UNIQUE#Guild#motto#S:", "GUILD#1 / GUILD")])
    );
    taken(db.create(&guild("2", "")).send().await, "Guild", "motto");
    let found = db
        .get_unique(Guild::by_motto(&String::new()))
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(guild("1", "")));
}

#[tokio::test]
async fn a_sensitive_value_is_normalised_then_hashed() {
    let db = ddb_tests::db_with_table::<Accounts>()
        .await
        .with_guard_hash_key(b"thirty-two bytes of guard hashing".to_vec());
    let ada = Citizen {
        id: "1".into(),
        email: "Ada@Example.com".into(),
    };
    db.create(&ada).send().await.unwrap();
    // The guard holds neither the email as entered nor lowercased.
    let keys: Vec<String> = guards(&db).await.into_keys().collect();
    assert_eq!(keys.len(), 1);
    assert!(
        !keys[0].to_lowercase().contains("ada@example.com"),
        "{keys:?}"
    );
    let twin = Citizen {
        id: "2".into(),
        email: "ADA@EXAMPLE.COM".into(),
    };
    taken(db.create(&twin).send().await, "Citizen", "email");
    let found = db
        .get_unique(Citizen::by_email(&"ada@example.com".to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(ada));
}

/// A nickname as stored before it was declared unique whatever its case,
/// and as the code declares it now.
mod before_ignore_case {
    use super::*;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Accounts, entity = "Nick", pk = "NICK#{id}", sk = "NICK")]
    pub struct Nick {
        pub id: String,
        pub nick: String,
    }
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Accounts, entity = "Nick", pk = "NICK#{id}", sk = "NICK")]
pub struct Nick {
    pub id: String,
    #[ddb(unique(ignore_case))]
    pub nick: String,
}

#[tokio::test]
async fn a_backfill_finds_values_that_differ_only_in_case_held_twice() {
    use before_ignore_case::Nick as Before;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let before = |id: &str, nick: &str| Before {
        id: id.into(),
        nick: nick.into(),
    };
    for (id, nick) in [("1", "Ada"), ("2", "bob"), ("3", "ADA")] {
        db.put(&before(id, nick)).send().await.unwrap();
    }
    let expected = vec![ddb_runtime::schema::UniqueDuplicate {
        field: "nick",
        items: vec!["NICK#1 / NICK".into(), "NICK#3 / NICK".into()],
    }];
    assert_eq!(db.backfill::<Nick>().duplicates().await.unwrap(), expected);
    match db.backfill::<Nick>().send().await {
        Err(Error::UniqueDuplicates { duplicates, .. }) => assert_eq!(duplicates, expected),
        other => panic!("expected the duplicate reported, got {other:?}"),
    }
    assert!(guards(&db).await.is_empty(), "nothing was written");
    // Once each value is held once, the guards hold the lowercase.
    db.put(&before("3", "Carol")).send().await.unwrap();
    let done = db.backfill::<Nick>().send().await.unwrap();
    assert_eq!(done.guards_written, 3);
    assert_eq!(
        guards(&db).await,
        owners(&[
            ("_DDB#UNIQUE#Nick#nick#S:ada", "NICK#1 / NICK"),
            ("_DDB#UNIQUE#Nick#nick#S:bob", "NICK#2 / NICK"),
            ("_DDB#UNIQUE#Nick#nick#S:carol", "NICK#3 / NICK"),
        ])
    );
    assert_eq!(
        stored(&db, "NICK#1", "NICK", "nick").await.as_deref(),
        Some("Ada")
    );
}

#[tokio::test]
async fn a_backfill_reports_a_stored_empty_value() {
    use before_ignore_case::Nick as Before;
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let before = |id: &str, nick: &str| Before {
        id: id.into(),
        nick: nick.into(),
    };
    db.put(&before("1", "Ada")).send().await.unwrap();
    db.put(&before("2", "")).send().await.unwrap();
    match db.backfill::<Nick>().send().await {
        Err(Error::IndexKeyViolations { violations, .. }) => {
            assert_eq!(violations.len(), 1, "{violations:?}");
            assert_eq!(violations[0].key, "NICK#2 / NICK");
            assert_eq!(violations[0].attribute, "unique");
            assert!(
                violations[0].reason.contains("unique `nick` is empty"),
                "{violations:?}"
            );
        }
        other => panic!("expected the empty nick reported, got {other:?}"),
    }
    assert!(guards(&db).await.is_empty(), "nothing was written");
}
