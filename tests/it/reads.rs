//! Typed reads over HTTP against the local server: GetItem, queries per key
//! and index, pagination, collections, sparse and sharded indexes.

use std::collections::HashSet;

use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::{Collection, Cursor, Db, Entity, Error, Projection, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use time::macros::datetime;
use time::OffsetDateTime;

fn customer(id: &str) -> Customer {
    Customer {
        customer_id: CustomerId(id.into()),
        name: format!("Customer {id}"),
        email: format!("c{id}@example.com"),
        order_count: 0,
    }
}

fn order(
    customer: &str,
    id: &str,
    at: OffsetDateTime,
    status: OrderStatus,
    total_cents: u64,
) -> Order {
    Order {
        customer_id: CustomerId(customer.into()),
        order_id: OrderId(id.into()),
        placed_at: at,
        status,
        total_cents,
        version: 1,
    }
}

fn seed_orders() -> Vec<Order> {
    vec![
        order(
            "123",
            "A102",
            datetime!(2026-09-10 08:12:44 UTC),
            OrderStatus::Shipped,
            4200,
        ),
        order(
            "123",
            "A117",
            datetime!(2026-09-18 19:03:10 UTC),
            OrderStatus::Shipped,
            1999,
        ),
        order(
            "123",
            "A145",
            datetime!(2026-10-02 14:31:07 UTC),
            OrderStatus::Open,
            5600,
        ),
    ]
}

/// `n` orders of `customer` an hour apart from 2026-01-01, ids G000...
fn generated(customer: &str, n: usize, status: OrderStatus) -> Vec<Order> {
    (0..n)
        .map(|i| {
            let at = datetime!(2026-01-01 00:00:00 UTC) + time::Duration::hours(i as i64);
            order(
                customer,
                &format!("G{customer}-{i:03}"),
                at,
                status,
                100 + i as u64,
            )
        })
        .collect()
}

async fn store() -> Db {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    ddb_tests::put_raw(&db, &[customer("123"), customer("456")]).await;
    ddb_tests::put_raw(&db, &seed_orders()).await;
    db
}

fn ids(orders: &[Order]) -> Vec<&str> {
    orders.iter().map(|o| o.order_id.0.as_str()).collect()
}

#[tokio::test]
async fn get_item_by_typed_key() {
    let db = store().await;
    let key = Customer::key(&CustomerId("123".into())).unwrap();
    let found = db
        .get(key.clone())
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(found, Some(customer("123")));
    let missing = db
        .get(Customer::key(&CustomerId("999".into())).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(missing, None);

    #[derive(Projection, Deserialize, Debug, PartialEq)]
    #[ddb(entity = Customer)]
    struct Name {
        name: String,
    }
    let name = db.get(key).project::<Name>().send().await.unwrap();
    assert_eq!(
        name,
        Some(Name {
            name: "Customer 123".into()
        })
    );
}

#[tokio::test]
async fn a_decode_failure_names_the_entity_and_key() {
    let db = store().await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let key = Customer::key(&CustomerId("bad".into())).unwrap();
    let mut item = key.to_item();
    item.insert(
        "_type".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("Customer".into()),
    );
    item.insert(
        "name".into(),
        aws_sdk_dynamodb::types::AttributeValue::N("7".into()),
    );
    db.client()
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
    let error = db.get(key).send().await.unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(
            error,
            Error::Decode {
                entity: "Customer",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(text.contains("CUSTOMER#bad / PROFILE"), "{text}");
}

#[tokio::test]
async fn latest_orders_newest_first_across_pages() {
    let db = store().await;
    let mut all = seed_orders();
    all.extend(generated("123", 50, OrderStatus::Shipped));
    ddb_tests::put_raw(&db, &all[3..]).await;
    all.sort_by_key(|o| std::cmp::Reverse(o.placed_at));

    let query = || {
        db.query(Order::by_customer(&CustomerId("123".into())))
            .newest_first(true)
            .limit(20)
    };
    let first = query().send().await.unwrap();
    assert_eq!(ids(&first.items), ids(&all[..20]));
    assert_eq!(ids(&first.items)[..3], ["A145", "A117", "A102"]);
    assert!(first.consumed_capacity > 0.0);

    let mut seen: Vec<Order> = first.items.clone();
    let mut cursor = first.cursor.clone();
    let mut pages = 1;
    while let Some(next) = cursor {
        let page = query().after(next).send().await.unwrap();
        seen.extend(page.items);
        cursor = page.cursor;
        pages += 1;
    }
    assert!(pages >= 3);
    assert_eq!(ids(&seen), ids(&all), "every order exactly once, in order");

    // The same through the stream of pages and of items.
    let streamed: Vec<Order> = query().items().try_collect().await.unwrap();
    assert_eq!(ids(&streamed), ids(&all));
    let pages: Vec<_> = query().pages().try_collect().await.unwrap();
    assert_eq!(
        pages.iter().map(|p| p.items.len()).collect::<Vec<_>>(),
        [20, 20, 13]
    );
}

#[tokio::test]
async fn orders_between_two_timestamps_inclusive() {
    let db = store().await;
    let q = || db.query(Order::by_customer(&CustomerId("123".into())));
    let between = q()
        .between(
            &datetime!(2026-09-10 08:12:44 UTC),
            &datetime!(2026-09-18 19:03:10 UTC),
        )
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&between), ["A102", "A117"]);
    let just_inside = q()
        .between(
            &datetime!(2026-09-10 08:12:45 UTC),
            &datetime!(2026-10-02 14:31:07 UTC),
        )
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&just_inside), ["A117", "A145"]);
    let after = q()
        .gt(&datetime!(2026-09-18 19:03:10 UTC))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&after), ["A145"]);
    let from = q()
        .ge(&datetime!(2026-09-18 19:03:10 UTC))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&from), ["A117", "A145"]);
    let before = q()
        .lt(&datetime!(2026-09-18 19:03:10 UTC))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&before), ["A102"]);
    let up_to = q()
        .le(&datetime!(2026-09-18 19:03:10 UTC))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&up_to), ["A102", "A117"]);
    let exact = q()
        .eq((&datetime!(2026-09-18 19:03:10 UTC), &OrderId("A117".into())))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&exact), ["A117"]);
    // Ranges never reach the profile, which shares the partition.
    let everything_after = q()
        .gt(&datetime!(1970-01-01 00:00:00 UTC))
        .collect()
        .await
        .unwrap();
    assert_eq!(everything_after.len(), 3);
    // A reversed range is a typed error, and nothing is sent.
    let reversed = q()
        .between(
            &datetime!(2026-10-01 00:00:00 UTC),
            &datetime!(2026-09-01 00:00:00 UTC),
        )
        .send()
        .await;
    assert!(matches!(reversed, Err(Error::InvalidSortCondition { .. })));
}

#[tokio::test]
async fn order_by_id_through_the_index() {
    let db = store().await;
    let page = db
        .query(Order::by_order_id(&OrderId("A145".into())))
        .send()
        .await
        .unwrap();
    assert_eq!(page.items, vec![seed_orders()[2].clone()]);
    let none = db
        .query(Order::by_order_id(&OrderId("A999".into())))
        .send()
        .await
        .unwrap();
    assert!(none.items.is_empty());
}

#[derive(Collection, Debug, PartialEq)]
enum CustomerItem {
    Profile(Customer),
    Order(Order),
}

#[tokio::test]
async fn profile_and_orders_in_one_query() {
    let db = store().await;
    let page = db
        .collection::<CustomerItem>(Customer::pk(&CustomerId("123".into())).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(page.requests, 1);
    let mut orders = Vec::new();
    let mut profile = None;
    for item in page.items {
        match item {
            CustomerItem::Profile(c) => profile = Some(c),
            CustomerItem::Order(o) => orders.push(o),
        }
    }
    assert_eq!(profile, Some(customer("123")));
    assert_eq!(ids(&orders), ["A102", "A117", "A145"]);

    // An item of a type the collection does not list: skipped, or an error.
    let table = db.table_name::<Ecommerce>().to_owned();
    let mut stray = Customer::key(&CustomerId("123".into())).unwrap().to_item();
    stray.insert(
        "SK".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("WISHLIST#1".into()),
    );
    stray.insert(
        "_type".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("Wishlist".into()),
    );
    db.client()
        .put_item()
        .table_name(table)
        .set_item(Some(stray))
        .send()
        .await
        .unwrap();
    let partition = Customer::pk(&CustomerId("123".into())).unwrap();
    let skipped = db
        .collection::<CustomerItem>(partition.clone())
        .collect()
        .await
        .unwrap();
    assert_eq!(skipped.len(), 4);
    let strict = db
        .collection::<CustomerItem>(partition)
        .unknown_items(ddb_runtime::UnknownItems::Error)
        .send()
        .await;
    assert!(matches!(strict, Err(Error::UnknownEntityType { found }) if found == "Wishlist"));
}

#[derive(Projection, Deserialize, Debug, PartialEq, Clone)]
#[ddb(entity = Order)]
struct OpenOrderSummary {
    customer_id: CustomerId,
    order_id: OrderId,
    #[serde(with = "time::serde::rfc3339")]
    placed_at: OffsetDateTime,
    total_cents: u64,
}

#[tokio::test]
async fn open_orders_merge_across_shards() {
    let db = store().await;
    // 40 open orders of several customers, interleaved in time, and shipped
    // ones that must not appear.
    let mut open: Vec<Order> = (0..40)
        .map(|i| {
            let at = datetime!(2026-03-01 00:00:00 UTC) + time::Duration::minutes(7 * i);
            order(
                &format!("{}", 500 + i % 7),
                &format!("O{i:03}"),
                at,
                OrderStatus::Open,
                i as u64,
            )
        })
        .collect();
    ddb_tests::put_raw(&db, &open).await;
    ddb_tests::put_raw(&db, &generated("777", 10, OrderStatus::Shipped)).await;
    open.push(seed_orders()[2].clone()); // A145 is open too
    open.sort_by(|a, b| (a.placed_at, &a.order_id).cmp(&(b.placed_at, &b.order_id)));
    let shards: HashSet<u16> = open
        .iter()
        .map(|o| {
            ddb_runtime::key::shard_of(ddb_runtime::Entity::primary_key(o).unwrap().values(), 4)
        })
        .collect();
    assert_eq!(shards.len(), 4, "the data spreads over all four shards");

    let query = || {
        db.query(Order::open_orders(&OrderStatus::Open))
            .project::<OpenOrderSummary>()
    };
    // A limit smaller than one shard's share, page after page.
    let mut seen = Vec::new();
    let mut page = query().limit(3).send().await.unwrap();
    assert_eq!(page.items.len(), 3);
    seen.extend(page.items.clone());
    while let Some(cursor) = page.cursor.clone() {
        page = query().limit(3).after(cursor).send().await.unwrap();
        assert!(page.items.len() <= 3);
        seen.extend(page.items.clone());
    }
    let expected: Vec<&str> = open.iter().map(|o| o.order_id.0.as_str()).collect();
    assert_eq!(
        seen.iter()
            .map(|o| o.order_id.0.as_str())
            .collect::<Vec<_>>(),
        expected
    );

    let newest: Vec<OpenOrderSummary> = query()
        .newest_first(true)
        .limit(5)
        .send()
        .await
        .unwrap()
        .items;
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(
        newest
            .iter()
            .map(|o| o.order_id.0.as_str())
            .collect::<Vec<_>>(),
        reversed[..5]
    );

    // Hydrated: whole orders, fetched from the table by key.
    let hydrated = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .limit(4)
        .send()
        .await
        .unwrap();
    assert_eq!(hydrated.items, open[..4].to_vec());
}

#[tokio::test]
async fn delimiters_and_prefix_ids_never_leak() {
    let db = store().await;
    let at = datetime!(2026-05-05 05:05:05 UTC);
    let tricky = vec![
        order("12", "X1", at, OrderStatus::Shipped, 1),
        order("12#3", "X2", at, OrderStatus::Shipped, 1),
        order("12", "12", at, OrderStatus::Shipped, 1),
        order("12", "123", at, OrderStatus::Shipped, 1),
        order("12", "12#ORDER", at, OrderStatus::Shipped, 1),
    ];
    ddb_tests::put_raw(&db, &tricky).await;
    let of = |c: &str| {
        db.query(Order::by_customer(&CustomerId(c.into())))
            .collect()
    };
    // Value order: "12" < "12#ORDER" < "123" < "X1".
    assert_eq!(
        ids(&of("12").await.unwrap()),
        ["12", "12#ORDER", "123", "X1"]
    );
    assert_eq!(ids(&of("12#3").await.unwrap()), ["X2"]);
    assert_eq!(ids(&of("123").await.unwrap()), ["A102", "A117", "A145"]);
    // Order id 12 by the index: never 123 or 12#ORDER.
    let by_id = db
        .query(Order::by_order_id(&OrderId("12".into())))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&by_id), ["12"]);
    // The complete segment (at, "12") matches exactly one order.
    let exact = db
        .query(Order::by_customer(&CustomerId("12".into())))
        .eq((&at, &OrderId("12".into())))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&exact), ["12"]);
    // begins_with on the text of the last field is a text prefix, on purpose.
    let prefixed = db
        .query(Order::by_customer(&CustomerId("12".into())))
        .begins_with((&at, &OrderId("12".into())))
        .collect()
        .await
        .unwrap();
    assert_eq!(ids(&prefixed), ["12", "12#ORDER", "123"]);
}

#[tokio::test]
async fn tampered_cursors_are_typed_errors() {
    let db = store().await;
    ddb_tests::put_raw(&db, &generated("123", 5, OrderStatus::Shipped)).await;
    ddb_tests::put_raw(&db, &generated("456", 5, OrderStatus::Shipped)).await;
    let of = |c: &str| db.query(Order::by_customer(&CustomerId(c.into()))).limit(2);
    let cursor = of("123").send().await.unwrap().cursor.expect("more pages");

    let invalid = |result: ddb_runtime::Result<ddb_runtime::Page<Order>>| {
        matches!(result, Err(Error::InvalidCursor { .. }))
    };
    assert!(invalid(
        of("123")
            .after(Cursor::from("garbage!".to_owned()))
            .send()
            .await
    ));
    let mut text = cursor.to_string();
    text.truncate(text.len() - 5);
    assert!(invalid(of("123").after(Cursor::from(text)).send().await));
    // Another partition, another index, another entity, another direction.
    assert!(invalid(of("456").after(cursor.clone()).send().await));
    assert!(invalid(
        db.query(Order::by_order_id(&OrderId("A145".into())))
            .after(cursor.clone())
            .send()
            .await
    ));
    assert!(invalid(
        of("123")
            .newest_first(true)
            .after(cursor.clone())
            .send()
            .await
    ));
    let items = db
        .query(OrderItem::products_of_order(&OrderId("A145".into())))
        .after(cursor.clone())
        .send()
        .await;
    assert!(matches!(items, Err(Error::InvalidCursor { .. })));
    // A re-encoded cursor whose key points into another partition.
    let other = of("456").send().await.unwrap().cursor.unwrap();
    let forged = forge(&cursor, &other);
    assert!(invalid(of("123").after(forged).send().await));
    // The genuine cursor works.
    assert_eq!(of("123").after(cursor).send().await.unwrap().items.len(), 2);
}

/// The first cursor with its fingerprint and the second's key.
fn forge(own: &Cursor, other: &Cursor) -> Cursor {
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut a: serde_json::Value =
        serde_json::from_slice(&engine.decode(own.as_str()).unwrap()).unwrap();
    let b: serde_json::Value =
        serde_json::from_slice(&engine.decode(other.as_str()).unwrap()).unwrap();
    a["s"] = b["s"].clone();
    Cursor::from(engine.encode(serde_json::to_vec(&a).unwrap()))
}

#[tokio::test]
async fn limit_counts_returned_items_past_the_filter() {
    let db = store().await;
    ddb_tests::put_raw(&db, &generated("123", 60, OrderStatus::Shipped)).await;
    // Only every tenth generated order costs at least 150 cents... and the
    // seed orders: a filter DynamoDB applies after reading.
    let fields = Order::fields();
    let page = db
        .query(Order::by_customer(&CustomerId("123".into())))
        .filter(fields.total_cents.ge(150u64) & fields.total_cents.lt(1000u64))
        .limit(5)
        .send()
        .await
        .unwrap();
    assert_eq!(page.items.len(), 5);
    assert!(page
        .items
        .iter()
        .all(|o| (150..1000).contains(&o.total_cents)));
    assert!(
        page.requests > 1,
        "the filter made DynamoDB return short pages"
    );
    let all = db
        .query(Order::by_customer(&CustomerId("123".into())))
        .filter(fields.total_cents.ge(150u64) & fields.total_cents.lt(1000u64))
        .collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 10);
}

#[tokio::test]
async fn products_of_an_order_and_orders_of_a_product() {
    let db = store().await;
    let item = |o: &str, p: &str| OrderItem {
        order_id: OrderId(o.into()),
        product_id: ProductId(p.into()),
        quantity: 1,
        price_cents: 100,
    };
    ddb_tests::put_raw(
        &db,
        &[item("A145", "P9"), item("A145", "P31"), item("A153", "P9")],
    )
    .await;
    let products = db
        .query(OrderItem::products_of_order(&OrderId("A145".into())))
        .collect()
        .await
        .unwrap();
    assert_eq!(
        products
            .iter()
            .map(|i| i.product_id.0.as_str())
            .collect::<Vec<_>>(),
        ["P31", "P9"]
    );
    let orders = db
        .query(OrderItem::orders_of_product(&ProductId("P9".into())))
        .collect()
        .await
        .unwrap();
    assert_eq!(
        orders
            .iter()
            .map(|i| i.order_id.0.as_str())
            .collect::<Vec<_>>(),
        ["A145", "A153"]
    );
}

#[tokio::test]
async fn every_kind_of_filter_condition_is_accepted_by_dynamodb() {
    use ddb_runtime::expr::{AttributeType, Comparison};
    let db = store().await;
    let fields = Order::fields();
    let of_123 = |filter: ddb_runtime::Condition<Order>| {
        let db = db.clone();
        async move {
            let orders = db
                .query(Order::by_customer(&CustomerId("123".into())))
                .filter(filter)
                .collect()
                .await
                .unwrap();
            orders.into_iter().map(|o| o.order_id.0).collect::<Vec<_>>()
        }
    };
    // A102: 4200 shipped, A117: 1999 shipped, A145: 5600 open.
    let shipped_big = fields.status.eq(OrderStatus::Shipped) & fields.total_cents.gt(2000);
    assert_eq!(
        of_123(shipped_big | fields.order_id.contains("45")).await,
        ["A102", "A145"]
    );
    assert_eq!(
        of_123(!fields.order_id.begins_with("A1")).await,
        Vec::<String>::new()
    );
    assert_eq!(of_123(fields.order_id.begins_with("A11")).await, ["A117"]);
    assert_eq!(
        of_123(fields.total_cents.between(1999, 4200)).await,
        ["A102", "A117"]
    );
    assert_eq!(
        of_123(fields.total_cents.ne(4200) & fields.total_cents.le(5600)).await,
        ["A117", "A145"]
    );
    assert_eq!(
        of_123(fields.total_cents.lt(2000) | fields.total_cents.ge(5600)).await,
        ["A117", "A145"]
    );
    assert_eq!(
        of_123(fields.order_id.size(Comparison::Eq, 4) & fields.order_id.exists())
            .await
            .len(),
        3
    );
    assert_eq!(
        of_123(fields.total_cents.has_type(AttributeType::N))
            .await
            .len(),
        3
    );
    assert_eq!(
        of_123(fields.total_cents.has_type(AttributeType::S))
            .await
            .len(),
        0
    );
    assert_eq!(of_123(fields.status.not_exists()).await.len(), 0);
}

#[tokio::test]
async fn a_cursor_naming_another_entitys_key_is_refused_before_any_request() {
    let db = store().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let of_123 = || {
        through
            .query(Order::by_customer(&CustomerId("123".into())))
            .limit(1)
    };
    let genuine = of_123().send().await.unwrap().cursor.unwrap();
    let sent = proxy.seen("Query");
    // Same query, same partition, but the key of the customer's profile.
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut document: serde_json::Value =
        serde_json::from_slice(&engine.decode(genuine.as_str()).unwrap()).unwrap();
    document["s"][0]["SK"] = serde_json::json!({ "S": "PROFILE" });
    let forged = Cursor::from(engine.encode(serde_json::to_vec(&document).unwrap()));
    let result = of_123().after(forged).send().await;
    assert!(
        matches!(result, Err(Error::InvalidCursor { .. })),
        "{result:?}"
    );
    assert_eq!(proxy.seen("Query"), sent, "nothing was sent");
}

/// Streaming a sharded index read every shard's whole remaining page
/// on every page and threw away what it did not take: about shards-times
/// the read units. A stream now reads each item once: its read units are
/// within 10% of reading the four shards directly with the SDK.
#[tokio::test]
async fn a_sharded_stream_reads_each_item_once() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let orders: Vec<Order> = (0..2000)
        .map(|i| {
            order(
                &format!("C{}", i % 7),
                &format!("F{i:04}"),
                datetime!(2026-01-01 00:00:00 UTC) + time::Duration::minutes(i),
                OrderStatus::Open,
                100,
            )
        })
        .collect();
    ddb_tests::put_raw(&db, &orders).await;

    let mut ddb_units = 0.0;
    let mut returned = 0;
    let mut pages = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .limit(100)
        .pages();
    // Hydrating fetches from the table; count the index reads only.
    while let Some(page) = pages.try_next().await.unwrap() {
        returned += page.items.len();
        ddb_units += page.consumed_capacity;
    }
    assert_eq!(returned, 2000);

    let (mut raw_units, mut raw_requests) = (0.0, 0);
    for shard in 0..4 {
        let mut start = None;
        loop {
            let output = db
                .client()
                .query()
                .table_name(db.table_name::<Ecommerce>())
                .index_name("GSI2")
                .key_condition_expression("GSI2PK = :pk")
                .expression_attribute_values(
                    ":pk",
                    aws_sdk_dynamodb::types::AttributeValue::S(format!("STATUS#OPEN#{shard}")),
                )
                .set_exclusive_start_key(start)
                .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total)
                .send()
                .await
                .unwrap();
            raw_requests += 1;
            raw_units += output
                .consumed_capacity()
                .and_then(|c| c.capacity_units())
                .unwrap_or(0.0);
            start = output.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
    }
    assert!(raw_units > 0.0, "the server reports consumed capacity");
    assert!(
        ddb_units <= raw_units * 1.1,
        "ddb read {ddb_units} units, the shards read directly {raw_units}"
    );

    // Without a page size, a stream reads each shard as the direct reads
    // did: whole DynamoDB pages, so the same requests and units, and its
    // items come merged in sort-key order.
    let (mut units, mut requests, mut placed) = (0.0, 0, Vec::new());
    let mut pages = db
        .query(Order::open_orders(&OrderStatus::Open))
        .project::<OpenOrderSummary>()
        .pages();
    while let Some(page) = pages.try_next().await.unwrap() {
        assert!(page.items.len() <= 100, "pages of 100 without a limit");
        units += page.consumed_capacity;
        requests += page.requests;
        placed.extend(page.items.iter().map(|o| o.placed_at));
    }
    assert_eq!(placed.len(), 2000);
    assert!(placed.windows(2).all(|w| w[0] <= w[1]), "merged in order");
    assert_eq!(requests, raw_requests, "one request per DynamoDB page");
    assert!(
        units <= raw_units * 1.1,
        "ddb read {units} units, the shards read directly {raw_units}"
    );
}

/// A Db with a cursor key signs the cursors it returns and takes only
/// cursors signed under its keys; pages resume through signed cursors.
#[tokio::test]
async fn signed_cursors_resume_and_cannot_be_forged() {
    let db = store().await;
    let signed = db.with_cursor_key(b"a key of at least thirty-two bytes".to_vec());
    let query = |db: &Db| {
        db.query(Order::by_customer(&CustomerId("123".into())))
            .limit(1)
    };
    let first = query(&signed).send().await.unwrap();
    let cursor = first.cursor.clone().unwrap();
    assert!(cursor.as_str().contains('.'), "signed: document.signature");
    let second = query(&signed).after(cursor.clone()).send().await.unwrap();
    assert!(!second.items.is_empty());
    assert_ne!(first.items, second.items);
    // A cursor of the unsigned handle, or one with its document changed.
    let unsigned = query(&db).send().await.unwrap().cursor.unwrap();
    let refused = query(&signed).after(unsigned).send().await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { .. })),
        "{refused:?}"
    );
    let (document, tag) = cursor.as_str().split_once('.').unwrap();
    let mut changed = document.to_owned();
    changed.replace_range(0..1, if document.starts_with('e') { "f" } else { "e" });
    let forged = Cursor::from(format!("{changed}.{tag}"));
    let refused = query(&signed).after(forged).send().await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { .. })),
        "{refused:?}"
    );
    // After a rotation, cursors handed out under the old key still resume.
    let rotated = signed.with_cursor_key(b"the next key, thirty-two bytes..".to_vec());
    assert!(query(&rotated).after(cursor).send().await.is_ok());
}

/// Encrypted cursors resume a query, do not show the item keys, and
/// are refused by a handle without the key.
#[tokio::test]
async fn encrypted_cursors_resume_and_hide_the_keys() {
    let db = store().await;
    let private = db.with_cursor_encryption(b"a key of at least thirty-two bytes".to_vec());
    let query = |db: &Db| {
        db.query(Order::by_customer(&CustomerId("123".into())))
            .limit(1)
    };
    let first = query(&private).send().await.unwrap();
    let cursor = first.cursor.clone().unwrap();
    use base64::Engine;
    let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.as_str().trim_start_matches("e."))
        .unwrap();
    assert!(!String::from_utf8_lossy(&sealed).contains("CUSTOMER#123"));
    let second = query(&private).after(cursor.clone()).send().await.unwrap();
    assert!(!second.items.is_empty());
    assert_ne!(first.items, second.items);
    let refused = query(&db).after(cursor).send().await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { .. })),
        "{refused:?}"
    );
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

/// Batch gets named keys by their `PK / SK` text, so the
/// keys `a / b`+`c` and `a`+`b / c` were one name: a batch get of both was
/// refused as a duplicate, and a hydrated page holding both lost one. Keys
/// are now matched by their typed values.
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

#[derive(ddb_runtime::Table)]
#[ddb(name = "Events", pk = "PK", sk = "SK")]
#[ddb(index(name = "Recent", pk = "RecentPK", sk = "RecentSK"))]
struct Events;

/// An event of a feed so busy its index spreads over 20 shards.
#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Events, entity = "Event", pk = "EVENT#{id}", sk = "EVENT")]
#[ddb(index(
    name = "Recent",
    pk = "FEED",
    sk = "{id}",
    query = "recent",
    shards = 20
))]
struct Event {
    id: String,
}

/// A stream without a page size reads its shards a whole
/// DynamoDB page at a time only on indexes of up to 16 shards; on more it
/// reads in growing steps from the page size, so what it reads ahead stays
/// bounded (20 shards of 150 events: 100 each first, then the rest).
#[tokio::test]
async fn a_stream_over_many_shards_reads_in_steps() {
    let db = ddb_tests::db_with_table::<Events>().await;
    let events: Vec<Event> = (0..3000)
        .map(|i| Event {
            id: format!("E{i:05}"),
        })
        .collect();
    db.batch_put(&events).await.unwrap();
    let mut pages = db.query(Event::recent()).pages();
    let first = pages.try_next().await.unwrap().unwrap();
    assert_eq!(first.items.len(), 100);
    assert_eq!(first.requests, 20, "one request a shard");
    let (mut requests, mut read) = (first.requests, first.items.len());
    while let Some(page) = pages.try_next().await.unwrap() {
        requests += page.requests;
        read += page.items.len();
    }
    assert_eq!(read, 3000);
    // Whole pages would have read each shard's 150 events in one request.
    assert!(requests > 20, "{requests} requests");
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

/// Batch gets matched the items read to the keys asked by
/// their text, so a Number key written as `12.50` (stored as `12.5`) was
/// read and then dropped: batch_get returned nothing, with no error.
#[tokio::test]
async fn a_number_key_in_another_form_is_matched_by_value() {
    let db = ddb_tests::db_with_table::<Prices>().await;
    let prices = [
        Price {
            price: Cents(1250),
            label: "twelve fifty".into(),
        },
        Price {
            price: Cents(700),
            label: "seven".into(),
        },
    ];
    db.batch_put(&prices).await.unwrap();
    let keys = prices
        .iter()
        .map(|p| Price::key(&p.price).unwrap())
        .collect();
    assert_eq!(db.batch_get::<Price>(keys).await.unwrap(), prices);
}

/// What goes on the wire for `consistent_read`: `true` sends
/// `ConsistentRead: true`; the default and `false` leave it out (DynamoDB's
/// default, an eventually consistent read), for a GetItem, a query and a
/// collection read.
#[tokio::test]
async fn consistent_read_is_sent_exactly_when_asked() {
    let db = store().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let consistent = |target: &str| -> Vec<Option<bool>> {
        ddb_tests::recorded_json(&proxy, target)
            .iter()
            .map(|body| body.get("ConsistentRead").map(|v| v.as_bool().unwrap()))
            .collect()
    };
    proxy.record("GetItem");
    proxy.record("Query");

    let key = || Customer::key(&CustomerId("123".into())).unwrap();
    for read in [None, Some(true), Some(false)] {
        let get = through.get(key());
        let get = match read {
            Some(consistent) => get.consistent_read(consistent),
            None => get,
        };
        assert_eq!(get.send().await.unwrap(), Some(customer("123")));
    }
    assert_eq!(consistent("GetItem"), [None, Some(true), None]);

    let customer_id = CustomerId("123".into());
    for read in [None, Some(true), Some(false)] {
        let query = through.query(Order::by_customer(&customer_id));
        let query = match read {
            Some(consistent) => query.consistent_read(consistent),
            None => query,
        };
        assert!(!query.send().await.unwrap().items.is_empty());
    }
    for read in [None, Some(true), Some(false)] {
        let partition = Customer::pk(&customer_id).unwrap();
        let collection = through.collection::<CustomerItem>(partition);
        let collection = match read {
            Some(consistent) => collection.consistent_read(consistent),
            None => collection,
        };
        assert!(!collection.send().await.unwrap().items.is_empty());
    }
    let expected = [None, Some(true), None];
    assert_eq!(consistent("Query"), [expected, expected].concat());
}

/// A failed request's error displays DynamoDB's error code and message,
/// not only the SDK's "unhandled error": here a query of an index the
/// table lacks.
#[tokio::test]
async fn a_service_error_displays_its_code_and_message() {
    let client = ddb_tests::client();
    let without_indexes = ddb_runtime::model::TableDef {
        indexes: &[],
        ..Ecommerce::DEF
    };
    let name = ddb_tests::create_table(&client, &without_indexes).await;
    let db = Db::new(client).with_table_name::<Ecommerce>(name);
    let error = db
        .query(Order::by_order_id(&OrderId("A102".into())))
        .send()
        .await
        .unwrap_err();
    let sdk = error.sdk_error().expect("the service refused the query");
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let (code, message) = (sdk.code().unwrap(), sdk.message().unwrap());
    assert_eq!(code, "ValidationException");
    let shown = error.to_string();
    assert!(
        shown.contains(&format!("{code}: {message}")),
        "the display carries the code and message: {shown}"
    );
}

/// A page says whether more items follow: at no extra read when DynamoDB's
/// answer tells, and always with `exact_end`, which reads one item past the
/// page (still one request).
#[tokio::test]
async fn a_page_says_whether_more_items_follow() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    ddb_tests::put_raw(&db, &generated("m", 3, OrderStatus::Open)).await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("Query");
    let orders = || through.query(Order::by_customer(&CustomerId("m".into())));

    // Fewer items than the limit: DynamoDB reports the end.
    let page = orders().limit(5).send().await.unwrap();
    assert_eq!((page.items.len(), page.has_more), (3, Some(false)));
    assert!(page.cursor.is_none());

    // Exactly the limit: DynamoDB stops without saying; the page does not
    // pretend to know.
    let page = orders().limit(3).send().await.unwrap();
    assert_eq!((page.items.len(), page.has_more), (3, None));

    // exact_end: one request, reading one item past the page.
    let before = proxy.seen("Query");
    let page = orders().limit(3).exact_end(true).send().await.unwrap();
    assert_eq!((page.items.len(), page.has_more), (3, Some(false)));
    assert!(page.cursor.is_none(), "no cursor to an empty page");
    assert_eq!(proxy.seen("Query") - before, 1);
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert_eq!(sent.last().unwrap()["Limit"], 4);

    let first = orders().limit(2).exact_end(true).send().await.unwrap();
    assert_eq!((first.items.len(), first.has_more), (2, Some(true)));
    let rest = orders()
        .limit(2)
        .exact_end(true)
        .after(first.cursor.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!((rest.items.len(), rest.has_more), (1, Some(false)));
    assert_eq!(ids(&rest.items), ["Gm-002"]);
}
