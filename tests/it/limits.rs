//! What DynamoDB would refuse is refused before anything is sent, as a typed
//! error: items, keys and sort conditions over their size limits, numbers and
//! sets DynamoDB cannot store, a version with no next one, and expressions
//! over DynamoDB's size limit (long attribute names fall back to placeholders
//! where that makes an expression fit).

use ddb_examples::single_table::{Ecommerce, Order};
use ddb_examples::CustomerId;
use ddb_runtime::{Entity, Error, Table};
use serde::{Deserialize, Serialize};

use crate::fixtures::{
    count_items, customer, line, open_order, reading, Counters, Reading, Readings,
};

#[tokio::test]
async fn oversized_items_and_keys_are_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let mut big = customer("big");
    big.name = "x".repeat(401 * 1024);
    match through.create(&big).send().await {
        Err(Error::ItemTooLarge {
            entity: "Customer",
            size,
            limit: 409_600,
            ..
        }) => assert!(size > 409_600),
        other => panic!("expected ItemTooLarge, got {other:?}"),
    }
    let long_sk = line("A1", &"p".repeat(1025 - "PRODUCT#".len()));
    match through.create(&long_sk).send().await {
        Err(Error::KeyTooLarge {
            size: 1025,
            limit: 1024,
            key: "sort key",
            ..
        }) => {}
        other => panic!("expected KeyTooLarge, got {other:?}"),
    }
    assert!(matches!(
        through.batch_put(&[big.clone()]).await,
        Err(Error::ItemTooLarge { .. })
    ));
    assert!(matches!(
        through.put(&big).send().await,
        Err(Error::ItemTooLarge { .. })
    ));
    assert_eq!(
        proxy.seen("PutItem") + proxy.seen("BatchWriteItem"),
        0,
        "nothing was sent"
    );
    assert_eq!(count_items(&db).await, 0);

    // Just under the limit is written.
    ddb_tests::requires!(FullSizeItems);
    let mut fits = customer("fits");
    let overhead = ddb_runtime::write::item_size(&fits.to_item().unwrap()) - fits.name.len();
    fits.name = "y".repeat(409_600 - overhead);
    assert_eq!(
        ddb_runtime::write::item_size(&fits.to_item().unwrap()),
        409_600
    );
    through.create(&fits).send().await.unwrap();
}

/// A key error of a query keeps its type: a partition key over the limit is
/// `KeyTooLarge`, naming the entity, which a caller can match.
#[tokio::test]
async fn a_query_key_error_keeps_its_type() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let long = CustomerId("x".repeat(3000));
    let query = db
        .query(ddb_examples::single_table::Order::by_customer(&long))
        .collect()
        .await;
    assert!(
        matches!(
            query,
            Err(Error::KeyTooLarge {
                entity: "Order",
                ..
            })
        ),
        "{query:?}"
    );
}

/// A sort-condition value over the sort key's size limit is `KeyTooLarge`, with
/// nothing sent, for `gt`, `eq` and `lt`.
#[tokio::test]
async fn a_sort_condition_over_the_key_limit_is_a_typed_error() {
    let db = ddb_tests::db_with_table::<Readings>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Readings>(&db).await;
    let long = "s".repeat(1100);
    for query in [
        through.query(Reading::at_site(&"a".to_string())).gt(&long),
        through.query(Reading::at_site(&"a".to_string())).eq(&long),
        through.query(Reading::at_site(&"a".to_string())).lt(&long),
    ] {
        let result = query.collect().await;
        assert!(
            matches!(result, Err(Error::KeyTooLarge { .. })),
            "{result:?}"
        );
    }
    assert_eq!(proxy.seen("Query"), 0);
}

/// A write-sharded index partition key is size-checked with its `#<shard>`
/// suffix.
#[tokio::test]
async fn a_sharded_index_key_is_checked_with_its_shard_suffix() {
    let db = ddb_tests::db_with_table::<Readings>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Readings>(&db).await;
    // "SENSOR#" (7 bytes) + 2041 = 2048 bytes, then "#<shard>" makes 2050.
    let sensor = "s".repeat(2041);
    let create = through.create(&reading("a", &sensor)).send().await;
    assert!(
        matches!(create, Err(Error::KeyTooLarge { limit: 2048, .. })),
        "{create:?}"
    );
    assert_eq!(proxy.seen("PutItem"), 0);
}

/// Every value is checked before anything is sent: a number DynamoDB cannot
/// store is `InvalidValue` in an update value, a condition and a filter, and an
/// update value too large for an item is refused.
#[tokio::test]
async fn every_value_is_checked_before_anything_is_sent() {
    let db = ddb_tests::db_with_table::<Readings>().await;
    db.create(&reading("a", "t1")).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Readings>(&db).await;
    let key = Reading::key(&"a".to_string(), &"r1".to_string()).unwrap();
    let fields = Reading::fields();

    let nan = through
        .update(key.clone())
        .set(fields.value, f64::NAN)
        .send()
        .await;
    assert!(matches!(nan, Err(Error::InvalidValue { .. })), "{nan:?}");
    let huge = through
        .update(key.clone())
        .set(fields.note, "x".repeat(410_000))
        .send()
        .await;
    assert!(huge.is_err(), "{huge:?}");
    let condition = through
        .put(&reading("a", "t1"))
        .condition(fields.value.lt(f64::NAN))
        .send()
        .await;
    assert!(
        matches!(condition, Err(Error::InvalidValue { .. })),
        "{condition:?}"
    );
    let filter = through
        .query(Reading::at_site(&"a".to_string()))
        .filter(fields.value.gt(f64::INFINITY))
        .collect()
        .await;
    assert!(
        matches!(filter, Err(Error::InvalidValue { .. })),
        "{filter:?}"
    );
    assert_eq!(
        proxy.seen("UpdateItem") + proxy.seen("PutItem") + proxy.seen("Query"),
        0
    );
}

/// Numbers and sets DynamoDB cannot store, on an entity of their own (a
/// `Reading` of another shape than the sensor readings above).
mod unstorable {
    use super::*;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Counters, entity = "Reading", pk = "READING#{name}")]
    struct Reading {
        name: String,
        value: f64,
        #[serde(with = "serde_dynamo::string_set")]
        tags: std::collections::BTreeSet<String>,
    }

    #[tokio::test]
    async fn values_dynamodb_cannot_store_are_refused_before_sending() {
        let db = ddb_tests::db_with_table::<Counters>().await;
        let (proxy, through) = ddb_tests::through_proxy::<Counters>(&db).await;
        let reading = |value: f64, tags: &[&str]| Reading {
            name: "t".into(),
            value,
            tags: tags.iter().map(|t| t.to_string()).collect(),
        };
        for bad in [
            reading(f64::NAN, &["a"]),
            reading(f64::INFINITY, &["a"]),
            reading(1.0, &[]),
        ] {
            match through.create(&bad).send().await {
                Err(Error::InvalidValue {
                    entity: "Reading",
                    reason,
                }) => assert!(reason.starts_with("READING#t "), "{reason}"),
                other => panic!("expected InvalidValue, got {other:?}"),
            }
        }
        assert_eq!(proxy.seen("PutItem"), 0, "nothing was sent");
        through
            .create(&reading(21.5, &["celsius"]))
            .send()
            .await
            .unwrap();
    }
}

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
struct Counter {
    name: String,
    hits: u64,
    #[ddb(version)]
    version: u64,
}

/// A version at `u64::MAX`, which has no next version, is a typed error for a
/// put and an update, never an overflow.
#[tokio::test]
async fn a_version_at_the_top_of_its_range_is_a_typed_error() {
    let db = ddb_tests::db_with_table::<Counters>().await;
    let top = Counter {
        name: "top".into(),
        hits: 0,
        version: u64::MAX,
    };
    let put = db.put(&top).send().await;
    assert!(matches!(&put, Err(Error::InvalidRequest { .. })), "{put:?}");
    let update = db
        .update(top.primary_key().unwrap())
        .set(Counter::fields().hits, 1u64)
        .expect_version(u64::MAX)
        .send()
        .await;
    assert!(
        matches!(&update, Err(Error::InvalidRequest { .. })),
        "{update:?}"
    );
}

#[tokio::test]
async fn expressions_over_dynamodb_limit_are_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let fields = Order::fields();
    // 400 alternatives: about 8 KB of condition text.
    let huge = (0..400u64).fold(fields.total_cents.eq(0), |c, n| {
        c | fields.total_cents.eq(n)
    });
    let query = through
        .query(Order::by_customer(&CustomerId("123".into())))
        .filter(huge.clone())
        .send()
        .await;
    match query {
        Err(Error::ExpressionTooLarge {
            expression: "filter",
            limit: 4096,
            ..
        }) => {}
        other => panic!("expected ExpressionTooLarge, got {other:?}"),
    }
    let put = through.put(&open_order("A1")).condition(huge).send().await;
    assert!(
        matches!(
            put,
            Err(Error::ExpressionTooLarge {
                expression: "condition",
                ..
            })
        ),
        "{put:?}"
    );
    assert_eq!(
        proxy.seen("Query") + proxy.seen("PutItem"),
        0,
        "nothing was sent"
    );
    // A condition of ordinary size goes through.
    let small = (0..10u64).fold(fields.total_cents.eq(0), |c, n| {
        c | fields.total_cents.eq(n)
    });
    let page = through
        .query(Order::by_customer(&CustomerId("123".into())))
        .filter(small)
        .send()
        .await
        .unwrap();
    assert!(page.items.is_empty());
}

#[derive(Table)]
#[ddb(name = "Ledgers", pk = "PK", sk = "SK")]
struct Ledgers;

/// An entity whose attribute name is long (but plain): written as it is,
/// a few references to it fill an expression.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ledgers, entity = "Ledger", pk = "LEDGER#{id}", sk = "LEDGER", query = "ledger")]
struct Ledger {
    id: String,
    #[serde(
        rename = "balance_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_"
    )]
    balance: u64,
}

/// A name written as it is never makes an expression too large where its
/// placeholder would fit: ddb falls back to placeholders for that
/// expression, in a write's condition, an update and a query's filter.
#[tokio::test]
async fn long_attribute_names_fall_back_to_placeholders_when_an_expression_would_not_fit() {
    let db = ddb_tests::db_with_table::<Ledgers>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ledgers>(&db).await;
    proxy.record("UpdateItem");
    proxy.record("Query");
    let ledger = Ledger {
        id: "L1".into(),
        balance: 10,
    };
    db.create(&ledger).send().await.unwrap();
    let balance = Ledger::fields().balance;
    let mut wide = balance.exists();
    for n in 0..20u64 {
        wide = wide & (balance.between(0u64, 100 + n) | balance.exists());
    }
    through
        .update(ledger.primary_key().unwrap())
        .set(balance, 20u64)
        .condition(wide.clone())
        .send()
        .await
        .unwrap();
    let page = through
        .query(Ledger::ledger(&"L1".to_string()))
        .filter(wide)
        .send()
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].balance, 20);

    let name = "balance_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_in_cents_of_the_ledger_";
    let sent = ddb_tests::recorded_json(&proxy, "UpdateItem");
    for body in sent
        .iter()
        .chain(&ddb_tests::recorded_json(&proxy, "Query"))
    {
        for expression in ["ConditionExpression", "FilterExpression"] {
            if let Some(text) = body[expression].as_str() {
                assert!(text.len() <= ddb_runtime::expr::EXPRESSION_LIMIT);
                assert!(!text.contains(name), "{text}");
            }
        }
        let names = body["ExpressionAttributeNames"].as_object().unwrap();
        assert!(names.values().any(|n| n == name));
    }
}
