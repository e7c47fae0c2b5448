//! Idempotency keys on a whole transaction: a business operation (a
//! purchase: a create keyed on the server's time and a debit) applied once
//! per request however often, from however many processes, a client sends
//! it; the first call's outcome reported to every later one, even when its
//! debit would now fail or its writes read first; other content under a
//! used key refused; concurrent calls charged exactly once.

use std::time::Duration;

use ddb_runtime::{Db, Entity, Error, Key, Table, TransactWrite};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Shop", pk = "PK", sk = "SK")]
pub struct Shop;

/// A player and their coins.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shop, entity = "Player", pk = "PLAYER#{player}", sk = "PROFILE")]
pub struct Player {
    pub player: String,
    pub coins: i64,
}

/// A purchase, keyed on the time the server took it.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shop, entity = "Purchase", pk = "PLAYER#{player}", sk = "PURCHASE#{at}")]
pub struct Purchase {
    pub player: String,
    pub at: u64,
    pub item: String,
    pub price: i64,
}

/// A player's handle: one player per handle.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shop, entity = "Profile", pk = "PROFILE#{player}", sk = "PROFILE")]
pub struct Profile {
    pub player: String,
    #[ddb(unique)]
    pub handle: String,
}

/// A medical note: personal data.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shop, entity = "Note", pk = "NOTE#{id}", sk = "NOTE")]
pub struct Note {
    pub id: String,
    #[ddb(sensitive)]
    pub diagnosis: String,
}

/// A fresh time, as a server would take it on each try.
fn now() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static TICK: AtomicU64 = AtomicU64::new(1);
    TICK.fetch_add(1, Ordering::Relaxed)
}

fn player_key(player: &str) -> Key<Player> {
    Player::key(&player.to_string()).unwrap()
}

/// A purchase of `item` for `price` coins, with its debit, never below
/// zero, under `request`.
fn purchase(
    db: &Db,
    player: &str,
    item: &str,
    price: i64,
    request: &str,
) -> (TransactWrite, Key<Purchase>) {
    let bought = Purchase {
        player: player.into(),
        at: now(),
        item: item.into(),
        price,
    };
    let coins = Player::fields().coins;
    let debit = db
        .update(player_key(player))
        .add(coins, -price)
        .condition(coins.ge(price));
    let key = bought.primary_key().unwrap();
    let transaction = db
        .transact_write()
        .idempotency_key(request)
        .create(&bought)
        .update(debit);
    (transaction, key)
}

async fn shop(players: &[(&str, i64)]) -> Db {
    let db = ddb_tests::db_with_table::<Shop>().await;
    for (player, coins) in players {
        let player = Player {
            player: (*player).into(),
            coins: *coins,
        };
        db.create(&player).send().await.unwrap();
    }
    db
}

async fn coins(db: &Db, player: &str) -> i64 {
    let stored = db
        .get(player_key(player))
        .consistent_read(true)
        .send()
        .await;
    stored.unwrap().unwrap().coins
}

async fn purchases(db: &Db) -> Vec<Purchase> {
    let raw = ddb_tests::scan_raw::<Shop>(db).await;
    raw.into_iter()
        .filter(|item| {
            item.get("_type")
                .and_then(|t| t.as_s().ok())
                .map(String::as_str)
                == Some("Purchase")
        })
        .map(|item| Purchase::from_item(item).unwrap())
        .collect()
}

/// A retry with a fresh timestamp, from another handle, after the first
/// call was applied and when its debit would now fail, reports the first
/// purchase ("already charged", not "too few coins") and writes nothing.
#[tokio::test]
async fn a_retried_purchase_reports_the_first_even_when_its_debit_would_now_fail() {
    let db = shop(&[("ada", 100)]).await;
    let (first, first_key) = purchase(&db, "ada", "sword", 80, "req-1");
    let done = first.send().await.unwrap();
    assert!(!done.replayed());
    assert_eq!(done.key(&first_key), Some(first_key.clone()));
    let other = Db::new(ddb_tests::client()).with_table_name::<Shop>(db.table_name::<Shop>());
    let (retry, retry_key) = purchase(&other, "ada", "sword", 80, "req-1");
    assert_ne!(retry_key, first_key, "a new time, a new key");
    let again = retry.send().await.unwrap();
    assert!(again.replayed());
    assert_eq!(again.key(&retry_key), Some(first_key));
    assert_eq!(coins(&db, "ada").await, 20, "charged once");
    assert_eq!(purchases(&db).await.len(), 1);
    // Another request is another purchase, refused for too few coins.
    let (next, _) = purchase(&db, "ada", "shield", 80, "req-2");
    let error = next.send().await.unwrap_err();
    let debit = error.action_failure(&player_key("ada")).unwrap();
    assert!(
        matches!(debit.error(), Some(Error::ConditionFailed { .. })),
        "{debit:?}"
    );
}

/// The same key with another content (another price) is refused, and
/// nothing is written; a key is forgotten once its time is up.
#[tokio::test]
async fn a_key_reused_for_another_purchase_is_refused_until_forgotten() {
    let db = shop(&[("bob", 100)]).await;
    let (first, _) = purchase(&db, "bob", "sword", 30, "req-1");
    first.keep_for(Duration::from_secs(1)).send().await.unwrap();
    let (other, _) = purchase(&db, "bob", "sword", 31, "req-1");
    match other.send().await {
        // The record is the player's: `Player` sorts before `Purchase`.
        Err(Error::IdempotencyKeyReused { entity: "Player" }) => {}
        other => panic!("expected the key refused, got {other:?}"),
    }
    assert_eq!(
        (coins(&db, "bob").await, purchases(&db).await.len()),
        (70, 1)
    );
    // Past the record's expiry (epoch seconds): a new request.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (later, _) = purchase(&db, "bob", "sword", 31, "req-1");
    assert!(!later.send().await.unwrap().replayed());
    assert_eq!(
        (coins(&db, "bob").await, purchases(&db).await.len()),
        (39, 2)
    );
}

/// A transaction whose write reads first (a put of an entity with unique
/// values, which moves their guards) is replayed too: its retry reads the
/// item the first call wrote, and still reports the first outcome.
#[tokio::test]
async fn a_transaction_whose_writes_read_first_is_replayed() {
    let db = shop(&[("cat", 100)]).await;
    db.create(&Profile {
        player: "cat".into(),
        handle: "@cat".into(),
    })
    .send()
    .await
    .unwrap();
    let rename = |db: &Db| {
        let profile = Profile {
            player: "cat".into(),
            handle: "@kitty".into(),
        };
        let (transaction, key) = purchase(db, "cat", "rename", 10, "req-rename");
        (transaction.put(db.put(&profile)), key)
    };
    let (first, first_key) = rename(&db);
    assert!(first.dry_run().unwrap().reads_first());
    first.send().await.unwrap();
    let (retry, retry_key) = rename(&db);
    let again = retry.send().await.unwrap();
    assert!(again.replayed());
    assert_eq!(again.key(&retry_key), Some(first_key));
    assert_eq!(coins(&db, "cat").await, 90);
}

/// 16 concurrent identical purchases under one key: one is charged, and
/// every caller is told the same purchase.
#[tokio::test]
async fn concurrent_tries_of_one_purchase_charge_once() {
    ddb_tests::requires!(SerializableTransactions);
    let db = shop(&[("dan", 1_000)]).await;
    let tries = (0..16).map(|_| {
        let db = db.clone();
        tokio::spawn(async move {
            let (transaction, key) = purchase(&db, "dan", "sword", 50, "req-1");
            transaction.send().await.map(|done| done.key(&key).unwrap())
        })
    });
    let told: Vec<Key<Purchase>> = futures::future::join_all(tries)
        .await
        .into_iter()
        .map(|told| told.unwrap().unwrap())
        .collect();
    assert!(told.iter().all(|key| *key == told[0]), "{told:?}");
    assert_eq!(coins(&db, "dan").await, 950, "charged once");
    assert_eq!(purchases(&db).await.len(), 1);
}

/// 16 concurrent purchases under 16 keys with coins for 7: seven are
/// charged, and the nine others are told their debit failed.
#[tokio::test]
async fn concurrent_purchases_charge_only_what_the_coins_allow() {
    ddb_tests::requires!(SerializableTransactions);
    let db = shop(&[("eve", 7 * 50)]).await;
    let tries = (0..16).map(|i| {
        let db = db.clone();
        tokio::spawn(async move {
            let (transaction, _) = purchase(&db, "eve", "sword", 50, &format!("req-{i}"));
            transaction.send().await
        })
    });
    let mut charged = 0;
    let mut too_few = 0;
    for told in futures::future::join_all(tries).await {
        match told.unwrap() {
            Ok(_) => charged += 1,
            Err(error) => {
                let debit = error.action_failure(&player_key("eve"));
                match debit.and_then(|d| d.error()) {
                    Some(Error::ConditionFailed { .. }) => too_few += 1,
                    _ => panic!("expected too few coins, got {error:?}"),
                }
            }
        }
    }
    assert_eq!((charged, too_few), (7, 9));
    assert_eq!(coins(&db, "eve").await, 0);
    assert_eq!(purchases(&db).await.len(), 7);
}

/// The record of a transaction writing an entity with a sensitive field
/// keeps a fingerprint keyed by the guard hash key, which it needs: without
/// one, nothing is sent.
#[tokio::test]
async fn a_sensitive_transaction_needs_the_guard_hash_key() {
    let db = shop(&[]).await;
    let note = Note {
        id: "n1".into(),
        diagnosis: "flu".into(),
    };
    let sent = db
        .transact_write()
        .idempotency_key("req-1")
        .create(&note)
        .send()
        .await;
    assert!(
        matches!(sent, Err(Error::InvalidRequest { .. })),
        "{sent:?}"
    );
    assert!(ddb_tests::scan_raw::<Shop>(&db).await.is_empty());
    let keyed = db.with_guard_hash_key(b"32 random bytes from the secrets".to_vec());
    let sent = keyed
        .transact_write()
        .idempotency_key("req-1")
        .create(&note)
        .send()
        .await;
    assert!(!sent.unwrap().replayed());
    let raw = format!("{:?}", ddb_tests::scan_raw::<Shop>(&db).await);
    assert_eq!(
        raw.matches("flu").count(),
        1,
        "only the note holds the diagnosis"
    );
}

/// What a purchase costs: one TransactWriteItems of three items (the
/// purchase, the debit, the key's record), two write units each; a retry
/// of the applied request is the canceled transaction and a consistent
/// read of the record, and writes nothing.
#[tokio::test]
async fn a_purchase_is_one_request_and_its_retry_two() {
    ddb_tests::requires!(CapacityByItemSize);
    let db = shop(&[("fay", 500)]).await;
    let (proxy, through) = ddb_tests::through_proxy::<Shop>(&db).await;
    let sent =
        |proxy: &ddb_tests::proxy::Proxy| (proxy.seen("TransactWriteItems"), proxy.seen("GetItem"));
    let (first, _) = purchase(&through, "fay", "sword", 50, "req-1");
    let (done, capacity) = first.send_with_capacity().await.unwrap();
    assert!(!done.replayed());
    assert_eq!(capacity.total, 6.0);
    assert_eq!(sent(&proxy), (1, 0));
    let (retry, _) = purchase(&through, "fay", "sword", 50, "req-1");
    assert!(retry.send().await.unwrap().replayed());
    // The record read; and, from a server that returns no item with a
    // failed condition, the record read back for the cancellation too.
    let (transactions, reads) = sent(&proxy);
    assert_eq!(transactions, 2);
    assert!((1..=2).contains(&reads), "{reads} GetItems");
    assert_eq!(coins(&db, "fay").await, 450);
}

/// A cancellation that none of the caller's actions caused (only the
/// record, held by a concurrent try that had not finished when it was
/// read) is a transaction conflict, safe to send again, not a cancellation
/// without a reason.
#[tokio::test]
async fn a_cancellation_only_the_record_caused_is_a_retryable_conflict() {
    let db = shop(&[("gus", 100)]).await;
    let (proxy, through) = ddb_tests::through_proxy::<Shop>(&db).await;
    let reason = |code: &str| serde_json::json!({ "Code": code });
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": "Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, TransactionConflict]",
        "CancellationReasons": [reason("None"), reason("None"), reason("TransactionConflict")],
    });
    let canceled = ddb_tests::proxy::Fault::Json(400, body.to_string());
    proxy.fail("TransactWriteItems", 1_000, canceled);
    let (transaction, _) = purchase(&through, "gus", "sword", 50, "req-1");
    let error = transaction.send().await.unwrap_err();
    assert!(
        matches!(error, Error::TransactionConflict { .. }),
        "{error:?}"
    );
    assert!(error.is_retryable());
    assert_eq!(coins(&db, "gus").await, 100);
}

/// The record goes with a write, never with a condition check: a policy
/// that grants the checked entity only reads grants no record of it. Here
/// `Player` (checked) sorts before `Purchase` (written).
#[tokio::test]
async fn the_record_goes_with_a_write_not_a_condition_check() {
    let db = shop(&[("hal", 100)]).await;
    let coins = Player::fields().coins;
    let bought = Purchase {
        player: "hal".into(),
        at: now(),
        item: "map".into(),
        price: 0,
    };
    db.transact_write()
        .idempotency_key("req-1")
        .condition_check(player_key("hal"), coins.ge(0))
        .create(&bought)
        .send()
        .await
        .unwrap();
    let raw = ddb_tests::scan_raw::<Shop>(&db).await;
    let records: Vec<&str> = raw
        .iter()
        .filter_map(|item| item.get("PK")?.as_s().ok())
        .filter(|pk| pk.starts_with("_DDB#IDEMPOTENCY#"))
        .map(String::as_str)
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(
        records[0].starts_with("_DDB#IDEMPOTENCY#Purchase#"),
        "{records:?}"
    );
}
