//! Entities keyed by their own fields (`{field}` templates): a field that is
//! itself a key attribute round-trips through every operation, one whose
//! serde form is not its key form is refused, and the items read are matched
//! to the keys asked by their typed values, whatever their text.

use ddb_runtime::{Entity, Error, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "accountId", pk_type = "N")]
#[ddb(index(name = "ByTier", pk = "tier", sk = "accountId", sk_type = "N"))]
struct Accounts;

#[derive(ddb_runtime::KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Tier {
    Gold,
    Silver,
}

/// Keyed by its own attributes: a number on a Number key, an enum on a
/// String index key.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Accounts, entity = "Account", pk = "{account_id}", query = "account")]
#[ddb(index(name = "ByTier", pk = "{tier}", sk = "{account_id}", query = "in_tier"))]
struct Account {
    account_id: u64,
    tier: Tier,
}

/// A field that is itself a key attribute round-trips through every
/// operation: create, get, query (table and index), batch get, transactions
/// and updates.
#[tokio::test]
async fn a_field_that_is_a_key_attribute_round_trips_everywhere() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let account = Account {
        account_id: 123,
        tier: Tier::Gold,
    };
    db.create(&account).send().await.unwrap();
    let key = account.primary_key().unwrap();
    let raw = ddb_tests::raw_item::<Accounts>(&db, key.to_item())
        .await
        .unwrap();
    assert_eq!(raw["accountId"].as_n().unwrap(), "123");
    assert_eq!(raw["tier"].as_s().unwrap(), "GOLD");
    assert_eq!(
        db.get(key.clone()).send().await.unwrap(),
        Some(account.clone())
    );
    let by_key: Vec<Account> = db.query(Account::account(&123)).collect().await.unwrap();
    assert_eq!(by_key, std::slice::from_ref(&account));
    let gold: Vec<Account> = db
        .query(Account::in_tier(&Tier::Gold))
        .collect()
        .await
        .unwrap();
    assert_eq!(gold, std::slice::from_ref(&account));
    let batch = db.batch_get::<Account>(vec![key.clone()]).await.unwrap();
    assert_eq!(batch, std::slice::from_ref(&account));
    db.update(key.clone())
        .set(Account::fields().tier, Tier::Silver)
        .send()
        .await
        .unwrap();
    let silver: Vec<Account> = db
        .query(Account::in_tier(&Tier::Silver))
        .collect()
        .await
        .unwrap();
    assert_eq!(silver.len(), 1);
    db.transact_write()
        .put(db.put(&account))
        .send()
        .await
        .unwrap();
    assert_eq!(db.get(key).send().await.unwrap(), Some(account));
}

#[derive(Table)]
#[ddb(name = "Plans", pk = "PK")]
#[ddb(index(name = "ByLevel", pk = "level"))]
struct Plans;

/// serde writes `Basic`; the key form is `BASIC`.
#[derive(ddb_runtime::KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
enum Level {
    Basic,
    Pro,
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Plans, entity = "Plan", pk = "PLAN#{id}")]
#[ddb(index(name = "ByLevel", pk = "{level}", query = "at_level"))]
struct Plan {
    id: String,
    level: Level,
}

/// A field stored as a key attribute whose serde form is not its key form is
/// refused with nothing sent, by a create and an update: written in the key
/// form it could not be read back, and in the serde form no query would find
/// it.
#[tokio::test]
async fn a_key_field_whose_serde_form_differs_is_refused() {
    let db = ddb_tests::db_with_table::<Plans>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Plans>(&db).await;
    let plan = Plan {
        id: "p1".into(),
        level: Level::Basic,
    };
    let create = through.create(&plan).send().await;
    assert!(
        matches!(create, Err(Error::KeyMismatch { .. })),
        "{create:?}"
    );
    let update = through
        .update(plan.primary_key().unwrap())
        .set(Plan::fields().level, Level::Pro)
        .send()
        .await;
    assert!(
        matches!(update, Err(Error::KeyMismatch { .. })),
        "{update:?}"
    );
    assert_eq!(proxy.seen("PutItem") + proxy.seen("UpdateItem"), 0);
}

#[derive(ddb_runtime::Table)]
#[ddb(name = "Paths", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByName", pk = "NamePK", sk = "NameSK"))]
struct Paths;

/// A file stored under its folder and name as they are (single-field keys
/// hold any text, ` / ` included).
#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Paths, entity = "File", pk = "{folder}", sk = "{name}")]
#[ddb(index(
    name = "ByName",
    pk = "FILES",
    sk = "{folder}#{name}",
    query = "all_files"
))]
struct File {
    folder: String,
    name: String,
}

/// Keys whose `PK / SK` texts run together (`a / b`+`c` and `a`+`b / c`) are
/// two keys, matched by their typed values: a batch get reads both, and a
/// hydrated page holds both.
#[tokio::test]
async fn keys_whose_text_runs_together_are_read_apart() {
    let db = ddb_tests::db_with_table::<Paths>().await;
    let files = [
        File {
            folder: "a / b".into(),
            name: "c".into(),
        },
        File {
            folder: "a".into(),
            name: "b / c".into(),
        },
    ];
    db.batch_put(&files).await.unwrap();
    let keys = files
        .iter()
        .map(|f| File::key(&f.folder, &f.name).unwrap())
        .collect();
    assert_eq!(db.batch_get::<File>(keys).await.unwrap(), files);
    let mut read = db
        .query(File::all_files())
        .hydrate()
        .collect()
        .await
        .unwrap();
    read.sort_by(|a: &File, b| a.folder.cmp(&b.folder));
    let mut expected = files.to_vec();
    expected.sort_by(|a, b| a.folder.cmp(&b.folder));
    assert_eq!(read, expected);
}

/// A key segment stored as a Number, written in a form DynamoDB does not
/// keep (`12.50`: DynamoDB stores and returns `12.5`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Cents(u32);

impl ddb_runtime::KeySegment for Cents {
    const NUMERIC: bool = true;
    fn write_segment(&self, out: &mut String) -> Result<(), ddb_runtime::SegmentError> {
        out.push_str(&self.0.to_string());
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, ddb_runtime::SegmentError> {
        text.parse()
            .map(Cents)
            .map_err(|e| ddb_runtime::SegmentError::new(format!("{e}")))
    }
    fn to_number(&self) -> Option<String> {
        Some(format!("{}.{:02}", self.0 / 100, self.0 % 100))
    }
    fn from_number(number: &str) -> Result<Self, ddb_runtime::SegmentError> {
        let (units, cents) = number.split_once('.').unwrap_or((number, "0"));
        let cents = format!("{cents:0<2}");
        let parse = |t: &str| {
            t.parse::<u32>()
                .map_err(|e| ddb_runtime::SegmentError::new(format!("{e}")))
        };
        Ok(Cents(parse(units)? * 100 + parse(&cents[..2])?))
    }
}

#[derive(Table)]
#[ddb(name = "Prices", pk = "PK", pk_type = "N")]
struct Prices;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Prices, entity = "Price", pk = "{price}")]
struct Price {
    price: Cents,
    label: String,
}

/// Two prices whose Number keys DynamoDB writes in another form than ddb
/// sends them (`12.50` as `12.5`, `7.00` as `7`).
fn two_prices() -> [Price; 2] {
    [
        Price {
            price: Cents(1250),
            label: "twelve fifty".into(),
        },
        Price {
            price: Cents(700),
            label: "seven".into(),
        },
    ]
}

/// A batch get matches the items it reads to the keys asked by value, not by
/// text: a Number key written as `12.50` (stored and returned as `12.5`) is
/// found.
#[tokio::test]
async fn a_number_key_in_another_form_is_matched_by_value() {
    let db = ddb_tests::db_with_table::<Prices>().await;
    let prices = two_prices();
    db.batch_put(&prices).await.unwrap();
    let keys = prices
        .iter()
        .map(|p| Price::key(&p.price).unwrap())
        .collect();
    assert_eq!(db.batch_get::<Price>(keys).await.unwrap(), prices);
}

/// A batch write matches what DynamoDB leaves unprocessed to the keys sent by
/// value, not by text: a put sent under `12.50` and returned under `12.5`
/// is the one left, never reported written.
#[tokio::test]
async fn a_number_key_left_unprocessed_in_another_form_is_matched_by_value() {
    let db = ddb_tests::db_with_table::<Prices>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Prices>(&db).await;
    let through = through.with_retry_policy(ddb_runtime::batch::RetryPolicy {
        max_attempts: 1,
        ..ddb_runtime::batch::RetryPolicy::default()
    });
    let left = serde_json::json!({ "UnprocessedItems": { db.table_name::<Prices>(): [
        { "PutRequest": { "Item": {
            "PK": { "N": "12.5" }, "label": { "S": "twelve fifty" }
        } } }
    ] } });
    proxy.fail(
        "BatchWriteItem",
        1,
        ddb_tests::proxy::Fault::Json(200, left.to_string()),
    );
    let prices = two_prices();
    match through.batch_put(&prices).await {
        Err(Error::Unprocessed { keys, outcome, .. }) => {
            assert_eq!(keys, ["12.50"]);
            assert_eq!(outcome.done, ["7.00"]);
        }
        other => panic!("expected Unprocessed, got {other:?}"),
    }
}

/// An idempotency key's record is keyed by text: on a table keyed by a
/// number it is refused before anything is sent, a create's and a
/// transaction's alike.
#[tokio::test]
async fn an_idempotency_key_on_a_table_keyed_by_a_number_is_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Accounts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Accounts>(&db).await;
    let account = Account {
        account_id: 7,
        tier: Tier::Gold,
    };
    let created = through.create(&account).idempotency_key("r").send().await;
    assert!(
        matches!(created, Err(ddb_runtime::Error::InvalidRequest { .. })),
        "{created:?}"
    );
    let transacted = through
        .transact_write()
        .idempotency_key("r")
        .create(&account)
        .send()
        .await;
    assert!(
        matches!(transacted, Err(ddb_runtime::Error::InvalidRequest { .. })),
        "{transacted:?}"
    );
    assert_eq!(proxy.seen("TransactWriteItems") + proxy.seen("GetItem"), 0);
    assert!(ddb_tests::scan_raw::<Accounts>(&db).await.is_empty());
}
