//! Typed reads against the local server: GetItem, queries by key and index,
//! item collections, filters and limits, consistent reads, and pages that say
//! whether more items follow.

use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::{Collection, Error, Projection};
use futures::TryStreamExt;
use serde::Deserialize;
use time::macros::datetime;

use crate::fixtures::{
    customer, generated, ids, order, reading, seed_orders, store, Reading, Readings,
};

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

#[tokio::test]
async fn latest_orders_newest_first_across_pages() {
    let db = store().await.with_return_consumed_capacity();
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
    assert!(first.consumed_capacity.total > 0.0);

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

/// A page says whether more items follow: by default it reads one item
/// past the page in the same request, so a page ending at the last item
/// has no cursor; with `exact_end(false)` it reads only the page and says
/// so only when DynamoDB's answer tells.
#[tokio::test]
async fn a_page_says_whether_more_items_follow() {
    ddb_tests::requires!(LastEvaluatedKeyAtLimit);
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    ddb_tests::put_raw(&db, &generated("m", 3, OrderStatus::Open)).await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("Query");
    let orders = || through.query(Order::by_customer(&CustomerId("m".into())));

    // Fewer items than the limit: DynamoDB reports the end.
    let page = orders().limit(5).exact_end(false).send().await.unwrap();
    assert_eq!((page.items.len(), page.has_more), (3, Some(false)));
    assert!(page.cursor.is_none());

    // Exactly the limit, reading only the page: DynamoDB stops without
    // saying; the page does not pretend to know.
    let page = orders().limit(3).exact_end(false).send().await.unwrap();
    assert_eq!((page.items.len(), page.has_more), (3, None));
    assert!(page.cursor.is_some());
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert_eq!(sent.last().unwrap()["Limit"], 3);

    // By default: one request, reading one item past the page.
    let before = proxy.seen("Query");
    let page = orders().limit(3).send().await.unwrap();
    assert_eq!((page.items.len(), page.has_more), (3, Some(false)));
    assert!(page.cursor.is_none(), "no cursor to an empty page");
    assert_eq!(proxy.seen("Query") - before, 1);
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert_eq!(sent.last().unwrap()["Limit"], 4);

    let first = orders().limit(2).send().await.unwrap();
    assert_eq!((first.items.len(), first.has_more), (2, Some(true)));
    let rest = orders()
        .limit(2)
        .after(first.cursor.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!((rest.items.len(), rest.has_more), (1, Some(false)));
    assert_eq!(ids(&rest.items), ["Gm-002"]);
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

/// `limit(n)` with a selective filter takes few requests (DynamoDB limits the
/// items it reads, not those it returns: asking it for the remaining count
/// would take a request per item read), and pages resumed by cursor return
/// every match once, in order.
#[tokio::test]
async fn a_limit_with_a_selective_filter_takes_few_requests() {
    let db = ddb_tests::db_with_table::<Readings>().await;
    let mut readings = Vec::new();
    for i in 0..60 {
        let mut r = reading("site", "s");
        r.id = format!("r{i:02}");
        r.value = if i % 20 == 19 { 100.0 } else { 1.0 };
        readings.push(r);
    }
    ddb_tests::put_raw(&db, &readings).await;
    let (proxy, through) = ddb_tests::through_proxy::<Readings>(&db).await;
    let high = || Reading::fields().value.gt(50.0);
    let first = through
        .query(Reading::at_site(&"site".to_string()))
        .filter(high())
        .limit(1)
        .send()
        .await
        .unwrap();
    assert_eq!(first.items.len(), 1);
    assert_eq!(first.items[0].id, "r19");
    assert!(
        proxy.seen("Query") <= 3,
        "{} requests for one item",
        proxy.seen("Query")
    );
    // Pages of two, resumed by cursor, return every match once, in order.
    let mut ids = Vec::new();
    let mut cursor = None;
    loop {
        let mut query = through
            .query(Reading::at_site(&"site".to_string()))
            .filter(high())
            .limit(2);
        if let Some(c) = cursor.take() {
            query = query.after(c);
        }
        let page = query.send().await.unwrap();
        assert!(page.items.len() <= 2);
        ids.extend(page.items.into_iter().map(|r| r.id));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    let expected: Vec<String> = (0..60)
        .filter(|i| i % 20 == 19)
        .map(|i| format!("r{i:02}"))
        .collect();
    assert_eq!(ids, expected);
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

/// A table where another entity's keys fall inside an entity's own range:
/// a note's sort key `NOTE#<id>#<n>` begins with the entry's `NOTE#`.
#[derive(ddb_runtime::Table)]
#[ddb(name = "Journal", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK", include("id", "title")))]
struct Journal;

#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Journal, entity = "Entry", pk = "BOOK#{book}", sk = "NOTE#{id}", query = "in_book")]
#[ddb(index(name = "GSI1", pk = "TITLED#{book}", sk = "{id}", query = "titled"))]
struct Entry {
    book: String,
    id: String,
    title: String,
    body: String,
}

#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Journal, entity = "Remark", pk = "BOOK#{book}", sk = "NOTE#{entry}#{n}")]
#[ddb(index(name = "GSI1", pk = "TITLED#{book}", sk = "{entry}#{n}"))]
struct Remark {
    book: String,
    entry: String,
    n: u32,
    title: String,
}

/// The titles of entries: all GSI1 projects.
#[derive(Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Entry)]
struct Title {
    id: String,
    title: String,
}

#[tokio::test]
async fn a_query_sends_no_type_filter_and_returns_only_its_entity() {
    let db = ddb_tests::db_with_table::<Journal>().await;
    let book = "b".to_string();
    for id in ["e1", "e2", "e3"] {
        let entry = Entry {
            book: book.clone(),
            id: id.into(),
            title: format!("title {id}"),
            body: "text".into(),
        };
        db.create(&entry).send().await.unwrap();
        for n in 0..3 {
            let remark = Remark {
                book: book.clone(),
                entry: id.into(),
                n,
                title: format!("remark {n}"),
            };
            db.create(&remark).send().await.unwrap();
        }
    }
    let (proxy, through) = ddb_tests::through_proxy::<Journal>(&db).await;
    proxy.record("Query");

    // Pages of two, both ways: each entry once, no remark, though the
    // remarks are inside the range read and nothing filters them there.
    for newest_first in [false, true] {
        let query = || {
            through
                .query(Entry::in_book(&book))
                .limit(2)
                .newest_first(newest_first)
        };
        let read: Vec<Entry> = query().items().try_collect().await.unwrap();
        let mut ids: Vec<&str> = read.iter().map(|e| e.id.as_str()).collect();
        if newest_first {
            ids.reverse();
        }
        assert_eq!(ids, ["e1", "e2", "e3"]);
        let first = query().send().await.unwrap();
        assert_eq!(first.items.len(), 2, "a page of two entries");
    }
    // The index read returns what the index projects; the projection
    // decodes from it.
    let titles: Vec<Title> = through
        .query(Entry::titled(&book))
        .project::<Title>()
        .items()
        .try_collect()
        .await
        .unwrap();
    let titles: Vec<&str> = titles.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, ["title e1", "title e2", "title e3"]);

    // The requests: the key condition and the limit, no filter, no
    // `Select` beside a projection, and no direction when it is DynamoDB's
    // default.
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    for body in &sent {
        assert!(body.get("FilterExpression").is_none(), "{body}");
        assert!(body.get("Select").is_none(), "{body}");
        assert_ne!(
            body.get("ScanIndexForward"),
            Some(&serde_json::json!(true)),
            "{body}"
        );
    }
    let backward = sent.iter().filter(|b| b.get("ScanIndexForward").is_some());
    assert!(backward.count() > 0, "newest first is sent");
}
