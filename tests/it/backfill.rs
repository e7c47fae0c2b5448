//! A new index on stored items: sync the table, backfill the index
//! while the application keeps updating the same items, interrupt and resume,
//! and check every item against the raw table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::schema::{Checkpoint, Progress};
use ddb_runtime::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

/// The table as first shipped: no secondary index.
#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK", sk = "SK")]
struct CatalogV1;

/// The product as first shipped.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = CatalogV1, entity = "Product", pk = "PRODUCT#{id}", sk = "PRODUCT")]
struct ProductV1 {
    id: String,
    category: String,
    stock: u64,
    #[ddb(version)]
    version: u64,
}

/// Another entity in the same table, which the backfill leaves alone.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = CatalogV1, entity = "Review", pk = "PRODUCT#{product}", sk = "REVIEW#{id}")]
struct Review {
    product: String,
    id: String,
    stars: u8,
}

/// The table today: it gains GSI1.
#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Catalog;

/// The product today: "the products of a category" is a new access pattern.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Catalog, entity = "Product", pk = "PRODUCT#{id}", sk = "PRODUCT")]
#[ddb(index(
    name = "GSI1",
    pk = "CATEGORY#{category}",
    sk = "PRODUCT#{id}",
    query = "in_category"
))]
struct Product {
    id: String,
    category: String,
    stock: u64,
    #[ddb(version)]
    version: u64,
}

fn category(i: usize) -> String {
    format!("C{}", i % 7)
}

/// A table at the first design, holding `n` products and some reviews, and
/// the same table seen by today's code.
async fn shipped(n: usize) -> (Db, Db) {
    let old = ddb_tests::db_with_table::<CatalogV1>().await;
    let products: Vec<ProductV1> = (0..n)
        .map(|i| ProductV1 {
            id: format!("P{i:05}"),
            category: category(i),
            stock: 10,
            version: 1,
        })
        .collect();
    old.batch_put(&products).await.unwrap();
    let reviews: Vec<Review> = (0..50)
        .map(|i| Review {
            product: format!("P{i:05}"),
            id: format!("R{i}"),
            stars: 5,
        })
        .collect();
    old.batch_put(&reviews).await.unwrap();
    let new =
        Db::new(old.client().clone()).with_table_name::<Catalog>(old.table_name::<CatalogV1>());
    (old, new)
}

/// Products whose GSI1 attributes are not what their fields make them, and
/// reviews that gained any.
fn out_of_step(items: &[HashMap<String, AttributeValue>]) -> usize {
    items
        .iter()
        .filter(|item| match item["_type"].as_s().unwrap().as_str() {
            "Product" => {
                let expected = Product::from_item((*item).clone())
                    .unwrap()
                    .to_item()
                    .unwrap();
                ["GSI1PK", "GSI1SK"]
                    .iter()
                    .any(|a| item.get(*a).is_none() || item.get(*a) != expected.get(*a))
            }
            _ => item.contains_key("GSI1PK") || item.contains_key("GSI1SK"),
        })
        .count()
}

#[tokio::test]
async fn a_new_index_is_backfilled_under_concurrent_updates_and_resumes() {
    ddb_tests::requires!(AtomicConditionalWrites);
    let n = 5_000;
    let (_old, db) = shipped(n).await;

    // The code changed: sync adds GSI1, which sees none of the stored items.
    let sync = db.sync_table::<Catalog>().await.unwrap();
    assert!(!sync.changes.is_empty(), "{sync}");
    let before = db
        .query(Product::in_category(&"C1".to_string()))
        .collect()
        .await
        .unwrap();
    assert!(before.is_empty());

    // The application keeps updating products meanwhile: each task owns a
    // slice of them, adds stock and moves some to another category.
    let expected: Arc<Mutex<HashMap<String, (u64, String)>>> = Arc::new(Mutex::new(
        (0..n)
            .map(|i| (format!("P{i:05}"), (10, category(i))))
            .collect(),
    ));
    let updaters: Vec<_> = (0..4)
        .map(|task| {
            let (db, expected) = (db.clone(), expected.clone());
            tokio::spawn(async move {
                for step in 0..150 {
                    let i = (step * 97 + task * 13) % n;
                    if i % 4 != task {
                        continue;
                    }
                    let id = format!("P{i:05}");
                    let key = Product::key(&id).unwrap();
                    let mut update = db.update(key).add(Product::fields().stock, 1u64);
                    let moved = step % 3 == 0;
                    let new_category = format!("M{}", step % 5);
                    if moved {
                        update = update.set(Product::fields().category, new_category.clone());
                    }
                    update.send().await.unwrap();
                    let mut expected = expected.lock().unwrap();
                    let entry = expected.get_mut(&id).unwrap();
                    entry.0 += 1;
                    if moved {
                        entry.1 = new_category;
                    }
                }
            })
        })
        .collect();

    // The first run is interrupted (dropped) half-way.
    let saved: Arc<Mutex<Option<Progress>>> = Arc::new(Mutex::new(None));
    let half = Arc::new(tokio::sync::Notify::new());
    let first = {
        let (saved, half) = (saved.clone(), half.clone());
        db.backfill::<Product>()
            .segments(4)
            .page_size(100)
            .on_progress(move |progress| {
                if progress.scanned as usize >= n / 2 {
                    half.notify_one();
                }
                *saved.lock().unwrap() = Some(progress.clone());
            })
            .send()
    };
    tokio::select! {
        finished = first => panic!("the first run was to be interrupted: {finished:?}"),
        _ = half.notified() => {}
    }
    let interrupted = saved.lock().unwrap().clone().unwrap();
    assert!(!interrupted.is_done());
    assert!(interrupted.updated > 0);
    let remaining = interrupted.estimated_remaining().unwrap();
    assert!(remaining > 0 && remaining < (n + 50) as u64, "{remaining}");

    // Resumed from the checkpoint as a string, as a job would store it.
    let checkpoint: Checkpoint = interrupted.checkpoint.to_string().parse().unwrap();
    let done = db
        .backfill::<Product>()
        .resume(checkpoint)
        .page_size(100)
        .send()
        .await
        .unwrap();
    assert!(done.is_done());

    assert!(
        (done.matched as usize) < n,
        "resumed, not started over: {done:?}"
    );
    assert!(
        done.scanned >= (n + 50) as u64,
        "counts carried over: {done:?}"
    );
    // Whether the updaters met the backfill's writes depends on the
    // server's speed; the collision itself is forced in
    // a_write_between_the_scan_and_the_update_is_not_overwritten.
    for updater in updaters {
        updater.await.unwrap();
    }

    // Every product is in the index as its fields say, and no update was lost.
    let items = ddb_tests::scan_raw::<Catalog>(&db).await;
    assert_eq!(items.len(), n + 50);
    assert_eq!(out_of_step(&items), 0);
    let expected = expected.lock().unwrap().clone();
    for item in items
        .iter()
        .filter(|i| i["_type"].as_s().unwrap() == "Product")
    {
        let product = Product::from_item(item.clone()).unwrap();
        assert_eq!(
            (product.stock, product.category.clone()),
            expected[&product.id],
            "{}",
            product.id
        );
    }
    // The new access pattern answers from the index.
    let c1 = db
        .query(Product::in_category(&"C1".to_string()))
        .collect()
        .await
        .unwrap();
    let want = expected.values().filter(|(_, c)| c == "C1").count();
    assert_eq!(c1.len(), want);

    // A second run finds nothing to do.
    let again = db.backfill::<Product>().send().await.unwrap();
    assert_eq!((again.updated, again.matched), (0, n as u64));
}

/// Items the new index cannot hold are reported before anything is
/// written.
#[tokio::test]
async fn items_an_index_cannot_hold_are_reported_before_writing() {
    let (old, db) = shipped(20).await;
    db.sync_table::<Catalog>().await.unwrap();
    // An empty category cannot be a key segment.
    let mut broken = ProductV1 {
        id: "P00003".into(),
        category: "C3".into(),
        stock: 1,
        version: 1,
    }
    .to_item()
    .unwrap();
    broken.insert("category".into(), AttributeValue::S(String::new()));
    old.client()
        .put_item()
        .table_name(old.table_name::<CatalogV1>())
        .set_item(Some(broken))
        .send()
        .await
        .unwrap();

    let violations = db.backfill::<Product>().check().await.unwrap();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].key, "PRODUCT#P00003 / PRODUCT");
    let refused = db.backfill::<Product>().send().await;
    assert!(
        matches!(&refused, Err(Error::IndexKeyViolations { violations, .. }) if violations.len() == 1),
        "{refused:?}"
    );
    let items = ddb_tests::scan_raw::<Catalog>(&db).await;
    assert!(
        items.iter().all(|i| !i.contains_key("GSI1PK")),
        "nothing written"
    );
    let bad = db.backfill::<Product>().segments(0).send().await;
    assert!(matches!(bad, Err(Error::InvalidRequest { .. })), "{bad:?}");
    let forged: Checkpoint = "4:bm90IGEgY2hlY2twb2ludA".parse().unwrap();
    let forged = db.backfill::<Product>().resume(forged).send().await;
    assert!(
        matches!(forged, Err(Error::InvalidCursor { .. })),
        "{forged:?}"
    );
}

/// A rate limit spaces the scan: pages of 10 at 400 items a second.
#[tokio::test]
async fn a_rate_limited_backfill_completes() {
    let (_old, db) = shipped(100).await;
    db.sync_table::<Catalog>().await.unwrap();
    let pages = Arc::new(Mutex::new(Vec::new()));
    let seen = pages.clone();
    let done = db
        .backfill::<Product>()
        .segments(2)
        .page_size(10)
        .items_per_second(400.0)
        .capacity_per_second(10_000.0)
        .on_progress(move |p| seen.lock().unwrap().push(p.scanned))
        .send()
        .await
        .unwrap();
    assert_eq!((done.updated, done.matched), (100, 100));
    assert!(done.consumed_capacity.total > 0.0);
    let pages = pages.lock().unwrap();
    assert!(pages.windows(2).all(|w| w[0] <= w[1]), "{pages:?}");
    assert!(pages.len() >= 15, "about 15 pages of 10: {pages:?}");
}

/// The capacity each UpdateItem of a backfill asked DynamoDB for.
fn updates_asked(proxy: &ddb_tests::proxy::Proxy) -> Vec<Option<serde_json::Value>> {
    ddb_tests::recorded_field(proxy, "UpdateItem", "ReturnConsumedCapacity")
}

/// The writes ask DynamoDB for their capacity only when the backfill paces
/// by it; the scans always do, and the result counts what was asked.
#[tokio::test]
async fn a_backfill_asks_its_writes_for_capacity_only_to_pace_by_it() {
    let (_old, db) = shipped(10).await;
    db.sync_table::<Catalog>().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Catalog>(&db).await;
    proxy.record("UpdateItem");
    let unpaced = through.backfill::<Product>().send().await.unwrap();
    assert_eq!(unpaced.updated, 10);
    assert_eq!(updates_asked(&proxy), vec![None; 10]);
    let scans = unpaced.consumed_capacity.total;
    assert!(scans > 0.0, "the scans' capacity is counted");

    // The index attributes taken out again, then a backfill held to a rate.
    let table = db.table_name::<Catalog>();
    let stored = db.client().scan().table_name(table).send().await.unwrap();
    for item in stored.items().iter().filter(|i| i.contains_key("GSI1PK")) {
        let remove = db.client().update_item().table_name(table);
        remove
            .key("PK", item["PK"].clone())
            .key("SK", item["SK"].clone())
            .update_expression("REMOVE GSI1PK, GSI1SK")
            .send()
            .await
            .unwrap();
    }
    let paced = through
        .backfill::<Product>()
        .capacity_per_second(10_000.0)
        .send()
        .await
        .unwrap();
    assert_eq!(paced.updated, 10);
    let indexes = Some(serde_json::json!("INDEXES"));
    assert_eq!(updates_asked(&proxy)[10..], vec![indexes; 10]);
    // At least one write unit each, where the engine reports them.
    if ddb_tests::engine::has(ddb_tests::engine::Behaviour::CapacityByItemSize) {
        assert!(paced.consumed_capacity.total >= scans + 10.0, "{paced:?}");
    }
}

/// The store's table after moving the open-orders access pattern from the
/// synthetic, sharded GSI2 to a native multi-attribute index on the orders'
/// own attributes: GSI2 is gone from the code.
#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "StatusIndex", pk("status"), sk("placed_at", "order_id")))]
struct EcommerceV2;

/// The store's order, keyed in `StatusIndex` by its own attributes.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = EcommerceV2, entity = "Order", pk = "CUSTOMER#{customer_id}",
      sk = "ORDER#{placed_at}#{order_id}")]
#[ddb(index(
    name = "GSI1",
    pk = "ORDER#{order_id}",
    sk = "ORDER",
    query = "by_order_id"
))]
#[ddb(index(
    name = "StatusIndex",
    pk(status),
    sk(placed_at, order_id),
    query = "in_status"
))]
struct OrderV2 {
    customer_id: ddb_examples::CustomerId,
    order_id: ddb_examples::OrderId,
    #[serde(with = "time::serde::rfc3339")]
    placed_at: time::OffsetDateTime,
    status: ddb_examples::OrderStatus,
    total_cents: u64,
    #[ddb(version)]
    version: u64,
}

/// On the store's data: the native index is filled by DynamoDB from
/// the orders' own attributes (no backfill), the query moves to it, then a
/// backfill drops the old synthetic attributes.
#[tokio::test]
async fn synthetic_keys_move_to_a_native_multi_attribute_index() {
    use ddb_examples::single_table as store;
    use ddb_examples::OrderStatus;
    let db = ddb_tests::db_with_table::<store::Ecommerce>().await;
    store::load(&db).await.unwrap();
    let open_before: Vec<String> = store::open_orders(&db)
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|o| o.order_id.0)
        .collect();
    assert!(!open_before.is_empty());

    // 1. The new index, from the code: sync adds it and keeps GSI2 (it never
    //    deletes an index), saying so.
    let v2 = Db::new(db.client().clone())
        .with_table_name::<EcommerceV2>(db.table_name::<store::Ecommerce>());
    let sync = v2.sync_table::<EcommerceV2>().await.unwrap();
    assert_eq!(sync.changes.len(), 1, "{sync}");
    assert!(sync.to_string().contains("StatusIndex"), "{sync}");
    assert!(sync.to_string().contains("GSI2"), "GSI2 reported: {sync}");

    // 2. The query moves: the new index already holds every order.
    let mut open_now: Vec<String> = v2
        .query(OrderV2::in_status(&OrderStatus::Open))
        .collect()
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.order_id.0)
        .collect();
    let mut open_before = open_before;
    open_before.sort();
    open_now.sort();
    assert_eq!(open_now, open_before);

    // 3. The synthetic attributes go, with a backfill that writes nothing
    //    else: it is refused for an attribute the entity still writes.
    let refused = v2
        .backfill::<OrderV2>()
        .remove_attributes(["GSI1PK"])
        .send()
        .await;
    assert!(
        matches!(refused, Err(Error::InvalidRequest { .. })),
        "{refused:?}"
    );
    let done = v2
        .backfill::<OrderV2>()
        .remove_attributes(["GSI2PK", "GSI2SK"])
        .send()
        .await
        .unwrap();
    assert_eq!(done.updated as usize, open_before.len(), "{done:?}");
    let items = ddb_tests::scan_raw::<store::Ecommerce>(&db).await;
    assert!(items
        .iter()
        .all(|i| !i.contains_key("GSI2PK") && !i.contains_key("GSI2SK")));
    assert!(items
        .iter()
        .filter(|i| i["_type"].as_s().unwrap() == "Order")
        .all(|i| i.contains_key("GSI1PK")));
    assert!(store::open_orders(&db).await.unwrap().items.is_empty());
    let still: Vec<OrderV2> = v2
        .query(OrderV2::in_status(&OrderStatus::Open))
        .collect()
        .await
        .unwrap();
    assert_eq!(still.len(), open_before.len());
}

/// A write that lands between the backfill's scan and its update is not
/// overwritten: the update is conditioned on every attribute the index keys
/// were computed from, not only the version (this writer keeps the version,
/// as a batch put does).
#[tokio::test]
async fn a_write_between_the_scan_and_the_update_is_not_overwritten() {
    let (_old, db) = shipped(1).await;
    db.sync_table::<Catalog>().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Catalog>(&db).await;
    let held = proxy.hold("Scan");
    let backfill = tokio::spawn(async move {
        through
            .backfill::<Product>()
            .segments(1)
            .skip_check(true)
            .send()
            .await
    });
    held.applied().await;
    // The scan has read the product in category C0; it moves to M9.
    let key = Product::key(&"P00000".to_string()).unwrap().to_item();
    db.client()
        .update_item()
        .table_name(db.table_name::<Catalog>())
        .set_key(Some(key))
        .update_expression("SET category = :c, GSI1PK = :pk, GSI1SK = :sk")
        .expression_attribute_values(":c", AttributeValue::S("M9".into()))
        .expression_attribute_values(":pk", AttributeValue::S("CATEGORY#M9".into()))
        .expression_attribute_values(":sk", AttributeValue::S("PRODUCT#P00000".into()))
        .send()
        .await
        .unwrap();
    held.release();
    let done = backfill.await.unwrap().unwrap();
    assert_eq!((done.retried, done.updated), (1, 0), "{done:?}");
    let items = ddb_tests::scan_raw::<Catalog>(&db).await;
    assert_eq!(out_of_step(&items), 0);
    let moved = db
        .query(Product::in_category(&"M9".to_string()))
        .collect()
        .await
        .unwrap();
    assert_eq!(moved.len(), 1);
}

/// The table's item count is asked for (DescribeTable) only by a backfill
/// that reports its progress, beside its scans; a backfill that reports
/// nothing sends only its scans and writes.
#[tokio::test]
async fn only_a_backfill_that_reports_progress_describes_the_table() {
    let (_old, db) = shipped(40).await;
    db.sync_table::<Catalog>().await.unwrap();
    let proxy = ddb_tests::proxy::Proxy::start(ddb_tests::local().endpoint())
        .await
        .unwrap();
    let through = Db::new(ddb_tests::patient_client(&proxy))
        .with_table_name::<Catalog>(db.table_name::<Catalog>());

    let silent = through.backfill::<Product>().send().await.unwrap();
    assert_eq!(silent.updated, 40);
    assert_eq!(proxy.seen("DescribeTable"), 0);
    assert_eq!(silent.table_items, None);

    let reports = Arc::new(Mutex::new(0));
    let counted = reports.clone();
    let watched = through
        .backfill::<Product>()
        .on_progress(move |_| *counted.lock().unwrap() += 1)
        .send()
        .await
        .unwrap();
    assert_eq!(watched.updated, 0, "in line after the first run");
    assert_eq!(proxy.seen("DescribeTable"), 1);
    assert_eq!(watched.table_items, Some(90), "40 products and 50 reviews");
    assert!(*reports.lock().unwrap() >= 1);
}

/// A table whose index is keyed on the entity-type attribute ("every item of
/// a type, by its tag").
#[derive(Table)]
#[ddb(name = "Tags", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByType", pk = "_type", sk = "TypeSK"))]
struct Tags;

/// An entity whose index key writes the entity-type attribute (its template
/// is the entity type itself) and a sort key ddb maintains.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Tags, entity = "Tag", pk = "TAG#{id}", sk = "TAG")]
#[ddb(index(name = "ByType", pk = "Tag", sk = "TAG#{id}", query = "all_tags"))]
struct Tag {
    id: String,
    label: String,
}

/// The backfill decodes each item it scans: an index keyed on the entity-type
/// attribute, which decoding reads, still has every item brought in line.
#[tokio::test]
async fn an_index_keyed_on_the_entity_type_is_backfilled() {
    let db = ddb_tests::db_with_table::<Tags>().await;
    for i in 0..5 {
        // Stored before the index: the type and fields, no TypeSK.
        let item = HashMap::from([
            ("PK".to_owned(), AttributeValue::S(format!("TAG#T{i}"))),
            ("SK".to_owned(), AttributeValue::S("TAG".into())),
            ("_type".to_owned(), AttributeValue::S("Tag".into())),
            ("id".to_owned(), AttributeValue::S(format!("T{i}"))),
            ("label".to_owned(), AttributeValue::S(format!("label {i}"))),
        ]);
        db.client()
            .put_item()
            .table_name(db.table_name::<Tags>())
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let done = db.backfill::<Tag>().send().await.unwrap();
    assert_eq!((done.updated, done.failed), (5, 0), "{done:?}");
    let tags = db.query(Tag::all_tags()).collect().await.unwrap();
    assert_eq!(tags.len(), 5);
}

/// A cache on the same `Db` lets go of every item the backfill wrote, as of
/// any other write: the next read asks the table again.
#[tokio::test]
async fn a_backfill_lets_go_of_the_cached_items_it_writes() {
    let (_old, db) = shipped(3).await;
    db.sync_table::<Catalog>().await.unwrap();
    let cache = db.cache::<Product>(ddb_runtime::cache::CacheLimits::new(
        100,
        std::time::Duration::from_secs(600),
    ));
    let key = |id: &str| Product::key(&id.to_string()).unwrap();
    let before = cache.get(key("P00001")).await.unwrap().unwrap();
    let report = db.backfill::<Product>().send().await.unwrap();
    assert_eq!(report.updated, 3, "{report:?}");
    let after = cache.get(key("P00001")).await.unwrap().unwrap();
    let stored = db.get(key("P00001")).send().await.unwrap().unwrap();
    assert_eq!((&before, &after), (&stored, &stored));
    assert_eq!(
        cache.stats().misses,
        2,
        "the backfill's write let go of the item"
    );
}

/// On an on-demand table, the backfill raises the warm throughput, caps the
/// on-demand throughput while it runs, and restores the maximum after,
/// whether it succeeds or fails; its plan says so first.
#[tokio::test]
async fn a_cost_safe_backfill_warms_caps_and_restores_the_table() {
    ddb_tests::requires!(TableSettings);
    use ddb_runtime::schema::Units;
    use ddb_tests::proxy::Fault;
    let (_old, db) = shipped(20).await;
    db.sync_table::<Catalog>().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Catalog>(&db).await;
    proxy.record("UpdateTable");
    // The in-process server keeps no warm throughput: UpdateTable answered
    // as DynamoDB answers it, the requests recorded.
    let answer = serde_json::json!({ "TableDescription": { "TableStatus": "UPDATING" } });
    proxy.fail(
        "UpdateTable",
        usize::MAX,
        Fault::Json(200, answer.to_string()),
    );
    let warm = Units {
        read: 12_000,
        write: 4_000,
    };
    let cap = Units {
        read: 2_000,
        write: 1_000,
    };
    let backfill = || {
        through
            .backfill::<Product>()
            .warm_throughput(warm)
            .max_throughput(cap)
    };
    let plan = backfill().throughput_plan().await.unwrap();
    assert_eq!(
        plan.to_string(),
        "raise the warm throughput from none to 12000 reads and 4000 writes per second\n\
         cap the on-demand throughput at 2000 reads and 1000 writes per second while the backfill runs, then restore no maximum of reads and no maximum of writes per second\n"
    );
    let done = backfill().send().await.unwrap();
    assert_eq!(done.updated, 20);
    let sent = ddb_tests::recorded_json(&proxy, "UpdateTable");
    let name = db.table_name::<Catalog>();
    assert_eq!(
        sent,
        [
            serde_json::json!({ "TableName": name, "WarmThroughput": { "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000 } }),
            serde_json::json!({ "TableName": name, "OnDemandThroughput": { "MaxReadRequestUnits": 2000, "MaxWriteRequestUnits": 1000 } }),
            serde_json::json!({ "TableName": name, "OnDemandThroughput": { "MaxReadRequestUnits": -1, "MaxWriteRequestUnits": -1 } }),
        ]
    );
    // A backfill that fails restores the maximum too.
    proxy.fail("Scan", usize::MAX, Fault::Error(400, "ValidationException"));
    assert!(backfill().send().await.is_err());
    let sent = ddb_tests::recorded_json(&proxy, "UpdateTable");
    assert_eq!(sent.len(), 6);
    assert_eq!(sent[5]["OnDemandThroughput"]["MaxReadRequestUnits"], -1);
    // Bad units send nothing.
    let zero = Units { read: 0, write: 1 };
    assert!(through
        .backfill::<Product>()
        .max_throughput(zero)
        .send()
        .await
        .is_err());
    assert_eq!(ddb_tests::recorded_json(&proxy, "UpdateTable").len(), 6);
}

/// A table that already has a maximum keeps its tighter units under the
/// backfill's cap, gets exactly its own maximum back, and is never asked
/// to lower its warm throughput.
#[tokio::test]
async fn a_backfill_cap_keeps_a_tighter_maximum_and_restores_it_exactly() {
    ddb_tests::requires!(TableSettings);
    use aws_sdk_dynamodb::types::OnDemandThroughput;
    use ddb_runtime::schema::Units;
    let (_old, db) = shipped(5).await;
    db.sync_table::<Catalog>().await.unwrap();
    let own = OnDemandThroughput::builder()
        .max_read_request_units(500)
        .max_write_request_units(8_000)
        .build();
    let name = db.table_name::<Catalog>().to_owned();
    db.client()
        .update_table()
        .table_name(&name)
        .on_demand_throughput(own)
        .send()
        .await
        .unwrap();
    let cap = Units {
        read: 2_000,
        write: 1_000,
    };
    let plan = db
        .backfill::<Product>()
        .max_throughput(cap)
        .throughput_plan()
        .await
        .unwrap();
    assert_eq!(
        plan.cap,
        Some((
            Units {
                read: 500,
                write: 8_000
            },
            Units {
                read: 500,
                write: 1_000
            }
        )),
        "{plan}"
    );
    let done = db
        .backfill::<Product>()
        .max_throughput(cap)
        .send()
        .await
        .unwrap();
    assert_eq!(done.updated, 5);
    let described = db
        .client()
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap();
    let max = described.table().unwrap().on_demand_throughput().unwrap();
    assert_eq!(
        (max.max_read_request_units(), max.max_write_request_units()),
        (Some(500), Some(8_000)),
        "restored exactly"
    );
}
