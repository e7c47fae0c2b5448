//! A canceled transaction reports each action the caller added with its own
//! failure, in the words of the same write sent alone (AlreadyExists,
//! NotFound, ConditionFailed, VersionConflict, UniqueViolation,
//! ChangedSinceRead, TransactionConflict), reached by the action's key; what
//! an action reports does not depend on what the other actions did, and the
//! error's predicates answer as each action's would.

use ddb_runtime::{Created, Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Game", pk = "PK", sk = "SK")]
pub struct Game;

/// A player and their coins.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Game, entity = "Player", pk = "PLAYER#{player}", sk = "PROFILE")]
pub struct Player {
    pub player: String,
    pub coins: i64,
    #[ddb(version)]
    pub version: u64,
}

/// A purchase, at most one per request id.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Game, entity = "Purchase", pk = "PLAYER#{player}", sk = "PURCHASE#{at}")]
pub struct Purchase {
    pub player: String,
    pub at: u64,
    #[ddb(unique)]
    pub request: String,
    pub price: u64,
}

fn player(id: &str, coins: i64) -> Player {
    Player {
        player: id.into(),
        coins,
        version: 0,
    }
}

fn purchase(id: &str, at: u64, request: &str) -> Purchase {
    Purchase {
        player: id.into(),
        at,
        request: request.into(),
        price: 50,
    }
}

fn player_key(id: &str) -> ddb_runtime::Key<Player> {
    Player::key(&id.to_string()).unwrap()
}

/// A debit of `price` coins that never goes below zero.
fn debit(db: &Db, id: &str, price: i64) -> ddb_runtime::Update<Player> {
    let coins = Player::fields().coins;
    db.update(player_key(id))
        .add(coins, -price)
        .condition(coins.ge(price))
}

/// The failure the action at `key` reports, which must be one.
fn failure_of<'e, E: Entity>(error: &'e Error, key: &ddb_runtime::Key<E>) -> &'e Error {
    let action = error
        .action_failure(key)
        .unwrap_or_else(|| panic!("no action at the key: {error:?}"));
    action
        .error()
        .unwrap_or_else(|| panic!("the action did not fail: {action:?}"))
}

async fn seeded() -> Db {
    let db = ddb_tests::db_with_table::<Game>().await;
    db.create(&player("ada", 100)).send().await.unwrap();
    db.create(&player("bob", 100)).send().await.unwrap();
    db.create(&purchase("ada", 1, "r-1")).send().await.unwrap();
    db
}

#[tokio::test]
async fn each_failed_action_reports_what_the_write_alone_would() {
    let db = seeded().await;
    let mut ada = db.get(player_key("ada")).send().await.unwrap().unwrap();
    ada.version += 1; // stale: the stored version is 1
    let coins = Player::fields().coins;
    let sent = db
        .transact_write()
        // AlreadyExists: a create over another item.
        .create(&Purchase {
            price: 99,
            ..purchase("ada", 1, "r-9")
        })
        // NotFound: an update of a missing item.
        .update(db.update(player_key("nobody")).set(coins, 1i64))
        // ConditionFailed: the caller's condition, with the item met.
        .update(
            db.update(player_key("bob"))
                .set(coins, 1i64)
                .condition(coins.gt(500i64)),
        )
        // VersionConflict: a delete expecting another version.
        .delete(db.delete_entity(&ada))
        // Not failed.
        .create(&purchase("carol", 7, "r-7"))
        .send()
        .await;
    let error = sent.unwrap_err();
    let existing = purchase("ada", 1, "r-9").primary_key().unwrap();
    match failure_of(&error, &existing) {
        Error::AlreadyExists { existing, .. } => {
            assert_eq!(existing.decode::<Purchase>().unwrap().price, 50)
        }
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    assert!(matches!(
        failure_of(&error, &player_key("nobody")),
        Error::NotFound {
            entity: "Player",
            ..
        }
    ));
    match failure_of(&error, &player_key("bob")) {
        Error::ConditionFailed {
            existing: Some(item),
            ..
        } => assert_eq!(item.decode::<Player>().unwrap().coins, 100),
        other => panic!("expected ConditionFailed, got {other:?}"),
    }
    assert!(matches!(
        failure_of(&error, &player_key("ada")),
        Error::VersionConflict {
            expected: 2,
            current: Some(1),
            ..
        }
    ));
    let carol = purchase("carol", 7, "r-7").primary_key().unwrap();
    let untouched = error.action_failure(&carol).unwrap();
    assert!(untouched.error().is_none(), "{untouched:?}");
    assert_eq!(untouched.code, "None");
    // The error answers as each of its writes would.
    assert!(error.is_already_exists() && error.is_not_found() && error.is_version_conflict());
    assert!(!error.is_unique_violation() && !error.is_retryable());
    // Alone, each write says the same.
    let alone = db
        .update(player_key("nobody"))
        .set(coins, 1i64)
        .send()
        .await;
    assert!(matches!(alone, Err(Error::NotFound { .. })), "{alone:?}");
    let alone = db.delete_entity(&ada).send().await;
    assert!(
        matches!(alone, Err(Error::VersionConflict { .. })),
        "{alone:?}"
    );
}

/// A purchase sent again under the same request id, whose debit would now
/// fail too, reports both: the purchase's value taken, the debit's
/// condition. Neither hides the other.
#[tokio::test]
async fn a_taken_value_and_a_failed_debit_are_each_reported() {
    let db = seeded().await;
    let buy = |at: u64, coins_left: &Db| {
        coins_left
            .transact_write()
            .create(&purchase("bob", at, "r-2"))
            .update(debit(coins_left, "bob", 80))
    };
    buy(10, &db).send().await.unwrap();
    // Bob has 20 coins left; the same request again, a new timestamp.
    let error = buy(11, &db).send().await.unwrap_err();
    let again = purchase("bob", 11, "r-2").primary_key().unwrap();
    assert!(matches!(
        failure_of(&error, &again),
        Error::UniqueViolation {
            entity: "Purchase",
            field: "request"
        }
    ));
    assert!(matches!(
        failure_of(&error, &player_key("bob")),
        Error::ConditionFailed { .. }
    ));
    assert!(error.is_unique_violation() && error.is_condition_failed());
    // Only the purchase failing: the same report for it.
    let error = db
        .transact_write()
        .create(&purchase("bob", 12, "r-2"))
        .send()
        .await
        .unwrap_err();
    let again = purchase("bob", 12, "r-2").primary_key().unwrap();
    assert!(matches!(
        failure_of(&error, &again),
        Error::UniqueViolation {
            field: "request",
            ..
        }
    ));
    let stored = db.get(player_key("bob")).send().await.unwrap().unwrap();
    assert_eq!(stored.coins, 20, "charged once");
}

/// A guarded write whose read went stale before its transaction landed
/// reports ChangedSinceRead, its neighbour nothing.
#[tokio::test]
async fn a_write_planned_from_a_stale_read_reports_changed_since_read() {
    let db = seeded().await;
    let (proxy, through) = ddb_tests::through_proxy::<Game>(&db).await;
    let held = proxy.hold("GetItem");
    let moved = Purchase {
        price: 70,
        ..purchase("ada", 1, "r-1b")
    };
    let sent = tokio::spawn({
        let through = through.clone();
        async move {
            through
                .transact_write()
                .put(through.put(&moved))
                .update(debit(&through, "bob", 10))
                .send()
                .await
        }
    });
    held.applied().await;
    // Another writer moves the purchase's request id after the read.
    let changed = Purchase {
        price: 60,
        ..purchase("ada", 1, "r-1c")
    };
    db.put(&changed).send().await.unwrap();
    held.release();
    let error = sent.await.unwrap().unwrap_err();
    let key = purchase("ada", 1, "r-1").primary_key().unwrap();
    assert!(matches!(
        failure_of(&error, &key),
        Error::ChangedSinceRead { .. }
    ));
    assert!(error
        .action_failure(&player_key("bob"))
        .unwrap()
        .error()
        .is_none());
    assert!(error.is_changed_since_read() && error.is_retryable());
}

/// A transaction that loses to another every time it is sent reports each
/// action as a transaction conflict: nothing was written, and sending it
/// again is safe.
#[tokio::test]
async fn an_action_held_by_another_transaction_is_a_transaction_conflict() {
    let db = seeded().await;
    let (proxy, through) = ddb_tests::through_proxy::<Game>(&db).await;
    proxy.fail(
        "TransactWriteItems",
        10,
        ddb_tests::proxy::Fault::TransactionConflict,
    );
    let error = through
        .transact_write()
        .client_request_token("pinned-token")
        .create(&purchase("bob", 20, "r-20"))
        .update(debit(&through, "bob", 5))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(
        failure_of(&error, &player_key("bob")),
        Error::TransactionConflict {
            entity: "Player",
            ..
        }
    ));
    let key = purchase("bob", 20, "r-20").primary_key().unwrap();
    assert!(matches!(
        failure_of(&error, &key),
        Error::TransactionConflict { .. }
    ));
    assert!(error.is_transaction_conflict() && error.is_retryable());
    assert_eq!(
        db.create(&purchase("bob", 20, "r-20"))
            .send()
            .await
            .unwrap(),
        Created::Created,
        "nothing was written"
    );
}
