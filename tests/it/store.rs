//! The online store, in both designs: one test per access pattern asserting
//! the exact items and a read budget, the raw key layout, and idempotent loads.

use std::collections::BTreeSet;

use ddb_examples::{separate_tables as sep, single_table as one, OrderStatus};
use ddb_runtime::Db;
use time::macros::datetime;

/// Every single-page pattern of the store reads a handful of small items: at
/// most 1 RCU. A Scan of the store's table reads far more (checked below).
const BUDGET: f64 = 1.0;

async fn single_table() -> Db {
    let client = ddb_tests::client();
    let db = Db::new(client)
        .with_return_consumed_capacity()
        .with_table_name::<one::Ecommerce>(ddb_local::unique_table_name("Ecommerce"));
    one::load(&db).await.unwrap();
    db
}

async fn separate_tables() -> Db {
    let client = ddb_tests::client();
    let db = Db::new(client)
        .with_return_consumed_capacity()
        .with_table_name::<sep::Customers>(ddb_local::unique_table_name("Customers"))
        .with_table_name::<sep::Orders>(ddb_local::unique_table_name("Orders"))
        .with_table_name::<sep::OrderItems>(ddb_local::unique_table_name("OrderItems"));
    sep::load(&db).await.unwrap();
    db
}

fn within_budget<T>(outcome: &ddb_examples::Outcome<T>, budget: f64) {
    assert!(outcome.consumed_capacity > 0.0, "DynamoDB reports the read");
    assert!(
        outcome.consumed_capacity <= budget,
        "{} RCU is over the budget of {budget}",
        outcome.consumed_capacity
    );
}

/// The 20 newest orders of 456 by the seed, newest first.
fn latest_20_of_456() -> Vec<String> {
    let mut orders: Vec<_> = ddb_examples::seed::orders()
        .into_iter()
        .filter(|o| o.customer == "456")
        .collect();
    orders.sort_by_key(|o| std::cmp::Reverse(o.placed_at));
    orders.into_iter().take(20).map(|o| o.id).collect()
}

const OPEN: [&str; 5] = ["B210", "B220", "B230", "A145", "B240"];

#[tokio::test]
async fn single_table_customer_profile() {
    let db = single_table().await;
    let outcome = one::customer_profile(&db, "123").await.unwrap();
    let names: Vec<_> = outcome
        .items
        .iter()
        .map(|c| (c.customer_id.0.as_str(), c.name.as_str(), c.order_count))
        .collect();
    assert_eq!(names, [("123", "Ada Lovelace", 3)]);
    within_budget(&outcome, BUDGET);
    assert!(one::customer_profile(&db, "999")
        .await
        .unwrap()
        .items
        .is_empty());
}

#[tokio::test]
async fn single_table_latest_orders() {
    let db = single_table().await;
    let outcome = one::latest_orders(&db, "456", 20).await.unwrap();
    let ids: Vec<_> = outcome.items.iter().map(|o| o.order_id.0.clone()).collect();
    assert_eq!(ids, latest_20_of_456());
    assert_eq!(ids[..6], ["B245", "B244", "B243", "B242", "B241", "A153"]);
    assert_eq!(outcome.requests, 1);
    within_budget(&outcome, BUDGET);
    let of_123: Vec<_> = one::latest_orders(&db, "123", 20)
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|o| o.order_id.0)
        .collect();
    assert_eq!(of_123, ["A145", "A117", "A102"]);
}

#[tokio::test]
async fn single_table_orders_between_dates() {
    let db = single_table().await;
    let outcome = one::orders_between(
        &db,
        "123",
        datetime!(2026-09-10 08:12:44 UTC),
        datetime!(2026-10-02 14:31:06 UTC),
    )
    .await
    .unwrap();
    let ids: Vec<_> = outcome
        .items
        .iter()
        .map(|o| o.order_id.0.as_str())
        .collect();
    assert_eq!(
        ids,
        ["A102", "A117"],
        "inclusive at the lower edge, A145 one second past the upper"
    );
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn single_table_order_by_id() {
    let db = single_table().await;
    let outcome = one::order_by_id(&db, "A145").await.unwrap();
    let found: Vec<_> = outcome
        .items
        .iter()
        .map(|o| (o.customer_id.0.as_str(), o.order_id.0.as_str(), o.status))
        .collect();
    assert_eq!(found, [("123", "A145", OrderStatus::Open)]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn single_table_open_orders() {
    let db = single_table().await;
    let outcome = one::open_orders(&db).await.unwrap();
    let ids: Vec<_> = outcome
        .items
        .iter()
        .map(|o| o.order_id.0.as_str())
        .collect();
    assert_eq!(ids, OPEN, "merged across the shards in placement order");
    assert_eq!(outcome.requests, 4, "one Query per shard");
    within_budget(&outcome, 4.0 * BUDGET);
}

#[tokio::test]
async fn single_table_products_of_an_order() {
    let db = single_table().await;
    let outcome = one::products_of_order(&db, "A145").await.unwrap();
    let products: Vec<_> = outcome
        .items
        .iter()
        .map(|i| (i.product_id.0.as_str(), i.quantity))
        .collect();
    assert_eq!(products, [("P31", 2), ("P9", 1)]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn single_table_orders_of_a_product() {
    let db = single_table().await;
    let outcome = one::orders_of_product(&db, "P9").await.unwrap();
    let orders: Vec<_> = outcome
        .items
        .iter()
        .map(|i| i.order_id.0.as_str())
        .collect();
    assert_eq!(orders, ["A145", "A153"]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn single_table_profile_and_orders_in_one_query() {
    let db = single_table().await;
    let outcome = one::profile_and_orders(&db, "123").await.unwrap();
    let kinds: Vec<String> = outcome
        .items
        .iter()
        .map(|item| match item {
            one::CustomerItem::Profile(c) => format!("profile {}", c.name),
            one::CustomerItem::Order(o) => format!("order {}", o.order_id.0),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "order A102",
            "order A117",
            "order A145",
            "profile Ada Lovelace"
        ]
    );
    assert_eq!(outcome.requests, 1);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_customer_profile() {
    let db = separate_tables().await;
    let outcome = sep::customer_profile(&db, "123").await.unwrap();
    let names: Vec<_> = outcome
        .items
        .iter()
        .map(|c| (c.customer_id.0.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(names, [("123", "Ada Lovelace")]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_latest_orders() {
    let db = separate_tables().await;
    let outcome = sep::latest_orders(&db, "456", 20).await.unwrap();
    let ids: Vec<_> = outcome.items.iter().map(|o| o.order_id.0.clone()).collect();
    assert_eq!(ids, latest_20_of_456());
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_orders_between_dates() {
    let db = separate_tables().await;
    let outcome = sep::orders_between(
        &db,
        "123",
        datetime!(2026-09-10 08:12:44 UTC),
        datetime!(2026-10-02 14:31:06 UTC),
    )
    .await
    .unwrap();
    let ids: Vec<_> = outcome
        .items
        .iter()
        .map(|o| o.order_id.0.as_str())
        .collect();
    assert_eq!(ids, ["A102", "A117"]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_order_by_id() {
    let db = separate_tables().await;
    let outcome = sep::order_by_id(&db, "A153").await.unwrap();
    let found: Vec<_> = outcome
        .items
        .iter()
        .map(|o| (o.customer_id.0.as_str(), o.order_id.0.as_str()))
        .collect();
    assert_eq!(found, [("456", "A153")]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_open_orders() {
    let db = separate_tables().await;
    let outcome = sep::open_orders(&db).await.unwrap();
    let ids: Vec<_> = outcome
        .items
        .iter()
        .map(|o| o.order_id.0.as_str())
        .collect();
    assert_eq!(ids, OPEN);
    within_budget(&outcome, 4.0 * BUDGET);
}

#[tokio::test]
async fn separate_tables_products_of_an_order() {
    let db = separate_tables().await;
    let outcome = sep::products_of_order(&db, "A145").await.unwrap();
    let products: Vec<_> = outcome
        .items
        .iter()
        .map(|i| i.product_id.0.as_str())
        .collect();
    assert_eq!(products, ["P31", "P9"]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_orders_of_a_product() {
    let db = separate_tables().await;
    let outcome = sep::orders_of_product(&db, "P9").await.unwrap();
    let orders: Vec<_> = outcome
        .items
        .iter()
        .map(|i| i.order_id.0.as_str())
        .collect();
    assert_eq!(orders, ["A145", "A153"]);
    within_budget(&outcome, BUDGET);
}

#[tokio::test]
async fn separate_tables_profile_and_orders_take_two_requests() {
    let db = separate_tables().await;
    let (profile, orders) = sep::profile_and_orders(&db, "123").await.unwrap();
    assert_eq!(profile.items.len(), 1);
    let ids: Vec<_> = orders.items.iter().map(|o| o.order_id.0.as_str()).collect();
    assert_eq!(ids, ["A102", "A117", "A145"]);
    assert_eq!(profile.requests + orders.requests, 2);
    within_budget(&profile, BUDGET);
    within_budget(&orders, BUDGET);
}

async fn scan(db: &Db, table: &str) -> (Vec<ddb_runtime::Item>, f64) {
    let mut items = Vec::new();
    let mut capacity = 0.0;
    let mut start = None;
    loop {
        let page = db
            .client()
            .scan()
            .table_name(table)
            .set_exclusive_start_key(start)
            .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total)
            .send()
            .await
            .unwrap();
        capacity += page
            .consumed_capacity()
            .and_then(|c| c.capacity_units())
            .unwrap_or(0.0);
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return (items, capacity);
        }
    }
}

fn s(item: &ddb_runtime::Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

fn rfc3339(at: time::OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

#[tokio::test]
async fn a_scan_costs_more_than_any_pattern_budget() {
    ddb_tests::requires!(CapacityByItemSize);
    let db = single_table().await;
    let (items, capacity) = scan(&db, db.table_name::<one::Ecommerce>()).await;
    assert_eq!(items.len(), 3 + 49 + 3);
    assert!(
        capacity > BUDGET,
        "a scan ({capacity} RCU) must not fit a pattern's budget"
    );
}

#[tokio::test]
async fn single_table_keys_are_the_seed_layout() {
    let db = single_table().await;
    let (items, _) = scan(&db, db.table_name::<one::Ecommerce>()).await;
    let keys: BTreeSet<(String, String)> = items
        .iter()
        .map(|i| (s(i, "PK").unwrap(), s(i, "SK").unwrap()))
        .collect();
    for seed in [
        ("CUSTOMER#123", "PROFILE"),
        ("CUSTOMER#123", "ORDER#2026-09-10T08:12:44Z#A102"),
        ("CUSTOMER#123", "ORDER#2026-09-18T19:03:10Z#A117"),
        ("CUSTOMER#123", "ORDER#2026-10-02T14:31:07Z#A145"),
        ("ORDER#A145", "PRODUCT#P9"),
        ("ORDER#A145", "PRODUCT#P31"),
        ("ORDER#A153", "PRODUCT#P9"),
    ] {
        assert!(
            keys.contains(&(seed.0.to_owned(), seed.1.to_owned())),
            "{seed:?}"
        );
    }
    let mut expected = BTreeSet::new();
    for c in ddb_examples::seed::customers() {
        expected.insert((format!("CUSTOMER#{}", c.id), "PROFILE".to_owned()));
    }
    for o in ddb_examples::seed::orders() {
        expected.insert((
            format!("CUSTOMER#{}", o.customer),
            format!("ORDER#{}#{}", rfc3339(o.placed_at), o.id),
        ));
    }
    for i in ddb_examples::seed::items() {
        expected.insert((
            format!("ORDER#{}", i.order),
            format!("PRODUCT#{}", i.product),
        ));
    }
    assert_eq!(keys, expected, "exactly the seed's keys, nothing else");
    for item in &items {
        match s(item, "_type").as_deref() {
            Some("Order") => {
                let id = s(item, "order_id").unwrap();
                assert_eq!(s(item, "GSI1PK"), Some(format!("ORDER#{id}")));
                assert_eq!(s(item, "GSI1SK").as_deref(), Some("ORDER"));
                let open = s(item, "status").as_deref() == Some("OPEN");
                assert_eq!(OPEN.contains(&id.as_str()), open);
                match s(item, "GSI2PK") {
                    Some(pk) => {
                        assert!(open, "only open orders are in GSI2");
                        let shard: u16 = pk.strip_prefix("STATUS#OPEN#").unwrap().parse().unwrap();
                        assert!(shard < 4);
                        let sk = s(item, "GSI2SK").unwrap();
                        assert!(sk.ends_with(&format!("#{id}")), "{sk}");
                    }
                    None => assert!(!open && !item.contains_key("GSI2SK")),
                }
            }
            Some("OrderItem") => {
                let pk = s(item, "PK").unwrap();
                let sk = s(item, "SK").unwrap();
                assert_eq!(
                    s(item, "GSI1PK"),
                    Some(sk.clone()),
                    "inverted: PRODUCT#... first"
                );
                assert_eq!(s(item, "GSI1SK"), Some(pk));
            }
            Some("Customer") => assert!(!item.contains_key("GSI1PK")),
            other => panic!("unexpected entity type {other:?}"),
        }
    }
}

#[tokio::test]
async fn separate_tables_keys_are_the_seed_layout() {
    let db = separate_tables().await;
    let (customers, _) = scan(&db, db.table_name::<sep::Customers>()).await;
    let ids: BTreeSet<String> = customers
        .iter()
        .map(|i| s(i, "customerId").unwrap())
        .collect();
    assert_eq!(
        ids,
        BTreeSet::from(["123".to_owned(), "456".to_owned(), "789".to_owned()])
    );

    let (orders, _) = scan(&db, db.table_name::<sep::Orders>()).await;
    let keys: BTreeSet<(String, String)> = orders
        .iter()
        .map(|i| (s(i, "PK").unwrap(), s(i, "SK").unwrap()))
        .collect();
    for seed in [
        ("CUSTOMER#123", "2026-09-10T08:12:44Z#A102"),
        ("CUSTOMER#123", "2026-09-18T19:03:10Z#A117"),
        ("CUSTOMER#123", "2026-10-02T14:31:07Z#A145"),
    ] {
        assert!(
            keys.contains(&(seed.0.to_owned(), seed.1.to_owned())),
            "{seed:?}"
        );
    }
    assert_eq!(keys.len(), 49);
    for item in &orders {
        let sk = s(item, "SK").unwrap();
        assert!(
            sk.ends_with(&format!("#{}", s(item, "orderId").unwrap())),
            "GSI key orderId is the raw id"
        );
    }

    let (items, _) = scan(&db, db.table_name::<sep::OrderItems>()).await;
    let layout: BTreeSet<(String, String, String, String)> = items
        .iter()
        .map(|i| {
            (
                s(i, "PK").unwrap(),
                s(i, "SK").unwrap(),
                s(i, "GSI1PK").unwrap(),
                s(i, "GSI1SK").unwrap(),
            )
        })
        .collect();
    let expected: BTreeSet<_> = [("A145", "P9"), ("A145", "P31"), ("A153", "P9")]
        .iter()
        .map(|(o, p)| {
            (
                format!("ORDER#{o}"),
                format!("PRODUCT#{p}"),
                format!("PRODUCT#{p}"),
                format!("ORDER#{o}"),
            )
        })
        .collect();
    assert_eq!(layout, expected);
}

#[tokio::test]
async fn loading_twice_changes_nothing() {
    let db = single_table().await;
    let again = one::load(&db).await.unwrap();
    assert_eq!(
        again,
        ddb_examples::Loaded {
            created: 0,
            already_present: 55
        }
    );
    let sep_db = separate_tables().await;
    let again = sep::load(&sep_db).await.unwrap();
    assert_eq!(
        again,
        ddb_examples::Loaded {
            created: 0,
            already_present: 55
        }
    );
}

/// Set by `the_store_checkout_run_twice_places_one_order` for the child
/// process it starts: the table the store example's checkout runs on.
const CHECKOUT_TABLE_VAR: &str = "DDB_TEST_CHECKOUT_TABLE";

/// The orders of `db`'s store table, counted by a raw Scan.
async fn orders_stored(db: &Db) -> usize {
    let items = ddb_tests::scan_raw::<one::Ecommerce>(db).await;
    let is_order = |item: &ddb_runtime::Item| {
        let entity_type = item.get("_type").and_then(|t| t.as_s().ok());
        entity_type.is_some_and(|t| t == "Order")
    };
    items.iter().filter(|item| is_order(item)).count()
}

/// The store example's checkout, run by two processes against one table as
/// two `cargo run --example store` against one `DDB_ENDPOINT` are: the
/// second run sends the first run's request again, and places no second
/// order.
#[tokio::test]
async fn the_store_checkout_run_twice_places_one_order() {
    let db = single_table().await;
    let table = db.table_name::<one::Ecommerce>().to_owned();
    let seeded = orders_stored(&db).await;
    for run in 1..=2 {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "store::checkout_in_a_process_of_its_own",
                "--exact",
                "--ignored",
            ])
            .env(ddb_local::ENDPOINT_VAR, ddb_tests::local().endpoint())
            .env(CHECKOUT_TABLE_VAR, &table)
            .output()
            .expect("start the test binary");
        let stdout = String::from_utf8_lossy(&child.stdout);
        assert!(
            child.status.success() && stdout.contains("1 passed"),
            "run {run}: {stdout}{}",
            String::from_utf8_lossy(&child.stderr)
        );
    }
    assert_eq!(orders_stored(&db).await, seeded + 1);
}

/// One run of the store example's checkout, on the table the parent test
/// names; nothing without it.
#[tokio::test]
#[ignore = "run by the_store_checkout_run_twice_places_one_order, in a process of its own"]
async fn checkout_in_a_process_of_its_own() {
    let Ok(table) = std::env::var(CHECKOUT_TABLE_VAR) else {
        return;
    };
    let db = Db::new(ddb_tests::client()).with_table_name::<one::Ecommerce>(table);
    let checkout = one::checkout(&db).await.unwrap();
    assert_eq!(checkout.retry.created, ddb_runtime::Created::AlreadyExisted);
    assert_eq!(checkout.retry.key, checkout.first.key);
}
