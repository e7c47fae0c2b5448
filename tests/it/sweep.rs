//! The correctness sweep: each test failed on the code before its fix.

use ddb_examples::single_table::{Customer, Ecommerce};
use ddb_examples::CustomerId;
use ddb_runtime::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

fn ada() -> Customer {
    Customer {
        customer_id: CustomerId("123".into()),
        name: "Ada".into(),
        email: "ada@example.com".into(),
        order_count: 0,
    }
}

/// Writes an item the entity cannot decode (its `name` is a number).
async fn put_undecodable(db: &Db, customer: &Customer) {
    let mut item = customer.to_item().unwrap();
    item.insert(
        "name".into(),
        aws_sdk_dynamodb::types::AttributeValue::N("7".into()),
    );
    db.client()
        .put_item()
        .table_name(db.table_name::<Ecommerce>())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

/// `expect_version` on an entity without a version was silently ignored.
#[tokio::test]
async fn expect_version_without_a_version_field_is_refused_before_sending() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    db.create(&ada()).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = Customer::key(&ada().customer_id).unwrap();
    let update = through
        .update(key.clone())
        .set(Customer::fields().name, "Ada L.".to_string())
        .expect_version(3)
        .send()
        .await;
    assert!(
        matches!(&update, Err(Error::InvalidRequest { reason, .. }) if reason.contains("#[ddb(version)]")),
        "{update:?}"
    );
    let delete = through.delete(key).expect_version(3).send().await;
    assert!(
        matches!(&delete, Err(Error::InvalidRequest { .. })),
        "{delete:?}"
    );
    assert_eq!(proxy.seen("UpdateItem") + proxy.seen("DeleteItem"), 0);
}

#[derive(Table)]
#[ddb(name = "Counters", pk = "PK")]
struct Counters;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
struct Counter {
    name: String,
    hits: u64,
    #[ddb(version)]
    version: u64,
}

/// `v + 1` on `u64::MAX` overflowed (a panic in debug builds).
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

/// A write DynamoDB applied returned `Err` when the item it returned
/// did not decode, inviting a retry that applies it twice.
#[tokio::test]
async fn an_applied_write_is_ok_even_when_the_returned_item_does_not_decode() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let customer = ada();
    let key = Customer::key(&customer.customer_id).unwrap();
    put_undecodable(&db, &customer).await;

    let put = db.put(&customer).return_old(true).send().await;
    let written = put.expect("the put was applied");
    assert!(written.item.is_none(), "the old item does not decode");
    assert!(written.raw.as_ref().is_some_and(|raw| raw["name"].is_n()));
    assert!(Customer::from_item(written.raw.unwrap()).is_err());

    put_undecodable(&db, &customer).await;
    let updated = db
        .update(key.clone())
        .add(Customer::fields().order_count, 1u32)
        .return_new(true)
        .send()
        .await
        .expect("the increment was applied");
    assert!(updated.item.is_none());
    let raw = updated.raw.expect("the new item is returned");
    assert_eq!(raw["order_count"].as_n().unwrap(), "1");

    let deleted = db
        .delete(key)
        .return_old(true)
        .send()
        .await
        .expect("the delete was applied");
    assert!(deleted.item.is_none() && deleted.raw.is_some());
}

#[derive(Table)]
#[ddb(name = "Stamped", pk = "PK")]
struct Stamped;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Stamped, entity = "Note", pk = "NOTE#{id}")]
struct Note {
    id: String,
    #[ddb(created_at)]
    created_at: u64,
    #[ddb(updated_at)]
    updated_at: u64,
}

/// `batch_put` stamped a new `created_at` on entities that carry one.
#[tokio::test]
async fn batch_put_keeps_the_creation_time_an_entity_carries() {
    let db = ddb_tests::db_with_table::<Stamped>().await;
    let note = Note {
        id: "n1".into(),
        created_at: 1_700_000_000,
        updated_at: 1_700_000_000,
    };
    db.batch_put(std::slice::from_ref(&note)).await.unwrap();
    let stored: Note = db
        .get(note.primary_key().unwrap())
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.created_at, 1_700_000_000, "created_at kept");
    assert!(stored.updated_at > 1_700_000_000, "updated_at stamped");
}

/// A key error of a query lost its type (`clone_result` turned it
/// into `InvalidRequest { entity: "" }`), so `KeyTooLarge` could not be
/// matched.
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

#[derive(Table)]
#[ddb(name = "Readings", pk = "PK", sk = "SK")]
#[ddb(index(name = "BySensor", pk = "SENSOR_PK", sk = "SENSOR_SK"))]
struct Readings;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Readings, entity = "Reading", pk = "SITE#{site}", sk = "READING#{id}", query = "at_site")]
#[ddb(index(
    name = "BySensor",
    pk = "SENSOR#{sensor}",
    sk = "SITE#{site}",
    shards = 4
))]
struct Reading {
    site: String,
    id: String,
    sensor: String,
    value: f64,
    note: String,
}

fn reading(site: &str, sensor: &str) -> Reading {
    Reading {
        site: site.into(),
        id: "r1".into(),
        sensor: sensor.into(),
        value: 1.5,
        note: String::new(),
    }
}

/// A sort-condition value over 1 KB underflowed `SORT_KEY_BYTES -
/// out.len()` (a panic in debug builds, a request DynamoDB refuses in
/// release).
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

/// Values that are not numbers DynamoDB can store, or too large, were
/// sent in update values, conditions and filters, and failed as DynamoDB
/// validation errors.
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

/// A write-sharded index partition key was size-checked before its
/// `#<shard>` suffix was added.
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

#[derive(Table)]
#[ddb(name = "Visits", pk = "PK", sk = "SK")]
struct Visits;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Visits, entity = "Visit", pk = "PAGE#{page}", sk = "AT#{at}")]
struct Visit {
    page: String,
    at: ddb_runtime::Timestamp,
}

/// `Timestamp::now()` carries nanoseconds, which a key refuses, and
/// the error did not say how to get a key-ready instant.
#[tokio::test]
async fn a_key_ready_instant_is_one_call() {
    let db = ddb_tests::db_with_table::<Visits>().await;
    let now = Visit {
        page: "home".into(),
        at: ddb_runtime::Timestamp::now(),
    };
    if now.at.0.nanosecond() != 0 {
        let refused = db.create(&now).send().await;
        assert!(
            matches!(&refused, Err(e @ Error::InvalidKeySegment { .. }) if e.to_string().contains("Timestamp::now_in_seconds()")),
            "{refused:?}"
        );
    }
    let visit = Visit {
        page: "home".into(),
        at: ddb_runtime::Timestamp::now_in_seconds(),
    };
    db.create(&visit).send().await.unwrap();
    let stored = db.get(visit.primary_key().unwrap()).send().await.unwrap();
    assert_eq!(stored, Some(visit));
}

#[derive(Table)]
#[ddb(name = "Carts", pk = "PK")]
struct Carts;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Carts, entity = "Cart", pk = "CART#{id}")]
struct Cart {
    id: String,
    items: u32,
    /// Computed in memory, never stored.
    #[serde(skip)]
    cached_total: u64,
}

/// A `#[serde(skip)]` field was listed among the entity's attributes
/// (a filter on it could never match); it is now no attribute at all, and
/// the item round-trips without it.
#[tokio::test]
async fn a_skipped_field_is_no_attribute() {
    let db = ddb_tests::db_with_table::<Carts>().await;
    let cart = Cart {
        id: "c1".into(),
        items: 2,
        cached_total: 999,
    };
    assert!(Cart::SCHEMA.field("cached_total").is_none());
    db.create(&cart).send().await.unwrap();
    let raw = ddb_tests::raw_item::<Carts>(&db, cart.primary_key().unwrap().to_item())
        .await
        .unwrap();
    assert!(!raw.contains_key("cached_total"), "{raw:?}");
    let stored = db.get(cart.primary_key().unwrap()).send().await.unwrap();
    assert_eq!(
        stored,
        Some(Cart {
            cached_total: 0,
            ..cart
        })
    );
}

#[derive(Table)]
#[ddb(name = "Leases", pk = "PK", ttl = "expiresAt")]
struct Leases;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Leases, entity = "Lease", pk = "LEASE#{name}")]
struct Lease {
    name: String,
    holder: String,
    #[ddb(ttl)]
    expires_at: u64,
}

fn epoch_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Tables created from entities with a `#[ddb(ttl)]` field never
/// enabled TTL, so items never expired.
#[tokio::test]
async fn creating_the_table_enables_its_time_to_live() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let ttl = db
        .client()
        .describe_time_to_live()
        .table_name(db.table_name::<Leases>())
        .send()
        .await
        .unwrap()
        .time_to_live_description
        .unwrap();
    assert_eq!(ttl.attribute_name(), Some("expiresAt"));
    assert!(
        matches!(
            ttl.time_to_live_status().map(|s| s.as_str()),
            Some("ENABLED" | "ENABLING")
        ),
        "{ttl:?}"
    );
    let report = ddb_runtime::schema::access_pattern_report(&[&Lease::SCHEMA]);
    assert!(report.contains("time to live `expiresAt`"), "{report}");
}

/// `create` at the key of an expired item (DynamoDB deletes it days
/// later) returned `AlreadyExists` while `get` said there was nothing.
#[tokio::test]
async fn create_replaces_an_expired_item() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let old = Lease {
        name: "leader".into(),
        holder: "a".into(),
        expires_at: epoch_now() - 60,
    };
    ddb_tests::put_raw(&db, std::slice::from_ref(&old)).await;
    let key = old.primary_key().unwrap();
    assert_eq!(db.get(key.clone()).send().await.unwrap(), None);
    let new = Lease {
        holder: "b".into(),
        expires_at: epoch_now() + 60,
        ..old
    };
    assert_eq!(
        db.create(&new).send().await.unwrap(),
        ddb_runtime::Created::Created
    );
    assert_eq!(db.get(key).send().await.unwrap(), Some(new.clone()));
    // A live item is still there to stay.
    let other = Lease {
        holder: "c".into(),
        ..new
    };
    assert!(matches!(
        db.create(&other).send().await,
        Err(Error::AlreadyExists { .. })
    ));
}

/// The leases table as an item collection.
#[derive(ddb_runtime::Collection, Debug, PartialEq)]
enum LeaseItem {
    Lease(Lease),
}

/// Items past their time to live were left out of GetItem and Query only:
/// a batch get, a transaction's get and a collection returned them.
#[tokio::test]
async fn expired_items_are_left_out_of_every_read() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let expired = Lease {
        name: "old".into(),
        holder: "a".into(),
        expires_at: epoch_now() - 60,
    };
    let live = Lease {
        name: "new".into(),
        holder: "b".into(),
        expires_at: epoch_now() + 600,
    };
    ddb_tests::put_raw(&db, &[expired.clone(), live.clone()]).await;
    let keys = vec![expired.primary_key().unwrap(), live.primary_key().unwrap()];
    assert_eq!(
        db.batch_get(keys.clone()).await.unwrap(),
        vec![live.clone()]
    );
    let read = db
        .transact_get()
        .get(keys[0].clone())
        .get(keys[1].clone())
        .send()
        .await
        .unwrap();
    assert_eq!(read.get::<Lease>(0).unwrap(), None);
    assert_eq!(read.get::<Lease>(1).unwrap(), Some(live.clone()));
    let partition = Lease::pk(&"old".to_owned()).unwrap();
    let items = db
        .collection::<LeaseItem>(partition.clone())
        .collect()
        .await
        .unwrap();
    assert_eq!(items, vec![]);
    let items = db
        .collection::<LeaseItem>(partition)
        .include_expired(true)
        .collect()
        .await
        .unwrap();
    assert_eq!(items, vec![LeaseItem::Lease(expired)]);
    let live_partition = Lease::pk(&"new".to_owned()).unwrap();
    let items = db
        .collection::<LeaseItem>(live_partition)
        .collect()
        .await
        .unwrap();
    assert_eq!(items, vec![LeaseItem::Lease(live)]);
}

#[derive(Table)]
#[ddb(name = "Tickets", pk = "PK", ttl = "expiresAt")]
#[ddb(index(name = "ByDesk", pk = "desk", sk = "id", projection = "keys_only"))]
struct Tickets;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Tickets, entity = "Ticket", pk = "TICKET#{id}")]
#[ddb(index(name = "ByDesk", pk = "{desk}", sk = "{id}", query = "at_desk"))]
struct Ticket {
    id: String,
    desk: String,
    #[ddb(ttl)]
    expires_at: u64,
}

/// A KEYS_ONLY index does not carry the time-to-live attribute, so the
/// query cannot filter expired items: `.hydrate()` read them from the table
/// and returned them; it leaves them out now, unless `include_expired`.
#[tokio::test]
async fn a_hydrated_query_leaves_out_expired_items() {
    let db = ddb_tests::db_with_table::<Tickets>().await;
    let ticket = |id: &str, expires_at: u64| Ticket {
        id: id.into(),
        desk: "d1".into(),
        expires_at,
    };
    let (expired, live) = (
        ticket("t1", epoch_now() - 60),
        ticket("t2", epoch_now() + 600),
    );
    ddb_tests::put_raw(&db, &[expired.clone(), live.clone()]).await;
    let read = |include_expired: bool| {
        let query = db.query(Ticket::at_desk(&"d1".to_owned()));
        let query = if include_expired {
            query.include_expired(true)
        } else {
            query
        };
        query.hydrate().collect()
    };
    assert_eq!(read(false).await.unwrap(), vec![live.clone()]);
    assert_eq!(read(true).await.unwrap(), vec![expired, live]);
}

/// `limit(n)` with a filter asked DynamoDB for the remaining count,
/// and DynamoDB limits items read, not returned: one request per item read.
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

#[derive(Table)]
#[ddb(name = "Shelves", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByAisle", pk = "aisle", sk = "id", projection = "keys_only"))]
struct Shelves;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shelves, entity = "Shelf", pk = "SHELF#{id}", sk = "SHELF", query = "shelf")]
#[ddb(index(name = "ByAisle", pk = "{aisle}", sk = "{id}", query = "in_aisle"))]
struct Shelf {
    id: String,
    aisle: String,
    label: String,
}

/// Another entity in the same index partition, to be told apart.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shelves, entity = "Sign", pk = "SIGN#{id}", sk = "SIGN")]
#[ddb(index(name = "ByAisle", pk = "{aisle}", sk = "{id}"))]
struct Sign {
    id: String,
    aisle: String,
}

/// What the KEYS_ONLY index carries of a shelf: its raw key fields.
#[derive(ddb_runtime::Projection, Deserialize, Debug, PartialEq)]
#[ddb(entity = Shelf)]
struct ShelfKey {
    id: String,
    aisle: String,
}

/// A KEYS_ONLY index does not carry `_type`, and every query filtered
/// on it: `.hydrate()` and `.project()` on such an index found nothing. Items
/// of another entity in the partition are told apart by their table key.
#[tokio::test]
async fn a_keys_only_index_hydrates_and_projects() {
    let db = ddb_tests::db_with_table::<Shelves>().await;
    for id in ["s1", "s2"] {
        db.create(&Shelf {
            id: id.into(),
            aisle: "7".into(),
            label: format!("shelf {id}"),
        })
        .send()
        .await
        .unwrap();
    }
    db.create(&Sign {
        id: "s15".into(),
        aisle: "7".into(),
    })
    .send()
    .await
    .unwrap();
    let shelves: Vec<Shelf> = db
        .query(Shelf::in_aisle(&"7".to_string()))
        .hydrate()
        .collect()
        .await
        .unwrap();
    let labels: Vec<&str> = shelves.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["shelf s1", "shelf s2"]);
    let keys: Vec<ShelfKey> = db
        .query(Shelf::in_aisle(&"7".to_string()))
        .project::<ShelfKey>()
        .limit(2)
        .collect()
        .await
        .unwrap();
    let ids: Vec<&str> = keys.iter().map(|k| k.id.as_str()).collect();
    assert_eq!(ids, ["s1", "s2"]);
}

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

/// A field stored as a key attribute whose serde form is not its key
/// form was written in the key form and could not be read back (create), or
/// written in the serde form where no query finds it (update). Both are now
/// typed errors, with nothing sent.
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

/// Errors keep the SDK's distinction between an error DynamoDB
/// answered and a request whose answer was lost, and say whether sending
/// again may succeed.
#[tokio::test]
async fn errors_say_how_a_request_failed_and_whether_to_retry() {
    use ddb_runtime::SdkErrorKind;
    use ddb_tests::proxy::Fault;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = Customer::key(&ada().customer_id).unwrap();

    // Throttled on every attempt the SDK makes: DynamoDB answered, retry later.
    proxy.fail("GetItem", 4, Fault::Error(400, "ThrottlingException"));
    let throttled = through.get(key.clone()).send().await.unwrap_err();
    assert!(
        matches!(
            throttled,
            Error::Sdk {
                kind: SdkErrorKind::Service,
                ..
            }
        ),
        "{throttled:?}"
    );
    assert!(throttled.is_retryable() && !throttled.is_invalid_input());

    // A validation error: DynamoDB answered, and the same request fails again.
    proxy.fail("GetItem", 1, Fault::Error(400, "ValidationException"));
    let invalid = through.get(key.clone()).send().await.unwrap_err();
    assert!(
        matches!(
            invalid,
            Error::Sdk {
                kind: SdkErrorKind::Service,
                ..
            }
        ),
        "{invalid:?}"
    );
    assert!(!invalid.is_retryable());

    // Every answer lost: the request may have been applied; sending again may work.
    proxy.fail("GetItem", 4, Fault::DropResponse);
    let lost = through.get(key.clone()).send().await.unwrap_err();
    assert!(
        matches!(
            lost,
            Error::Sdk {
                kind: SdkErrorKind::Response | SdkErrorKind::Dispatch | SdkErrorKind::Timeout,
                ..
            }
        ),
        "{lost:?}"
    );
    assert!(lost.is_retryable());

    // Input ddb refuses is not retryable and says so.
    let refused = through
        .update(key)
        .add(Customer::fields().order_count, 1u32)
        .set(Customer::fields().order_count, 2u32)
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(refused, Error::InvalidUpdate { .. }),
        "{refused:?}"
    );
    assert!(refused.is_invalid_input() && !refused.is_retryable());
}

/// DynamoDB never deletes an item whose time to live is more than
/// five years in the past (a `0` meant as "never"): ddb does not treat it as
/// expired either, and a create does not replace it.
#[tokio::test]
async fn a_time_to_live_far_in_the_past_is_not_expired() {
    let db = ddb_tests::db_with_table::<Leases>().await;
    let never = Lease {
        name: "pinned".into(),
        holder: "a".into(),
        expires_at: 0,
    };
    db.create(&never).send().await.unwrap();
    let key = never.primary_key().unwrap();
    assert_eq!(db.get(key).send().await.unwrap(), Some(never.clone()));
    let other = Lease {
        holder: "b".into(),
        ..never
    };
    assert!(matches!(
        db.create(&other).send().await,
        Err(Error::AlreadyExists { .. })
    ));
}

#[derive(Table)]
#[ddb(name = "Rentals", pk = "PK", ttl = "expiresAt")]
struct Rentals;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Rentals, entity = "Rental", pk = "RENTAL#{id}")]
struct Rental {
    id: String,
    #[ddb(version)]
    version: u64,
    #[ddb(ttl)]
    expires_at: u64,
}

/// A put that expects no item (version 0) takes the place of an expired
/// one, as a create does: every read already says there is none.
#[tokio::test]
async fn a_put_expecting_no_item_replaces_an_expired_one() {
    let db = ddb_tests::db_with_table::<Rentals>().await;
    let old = Rental {
        id: "r".into(),
        version: 3,
        expires_at: epoch_now() - 60,
    };
    ddb_tests::put_raw(&db, std::slice::from_ref(&old)).await;
    let new = Rental {
        id: "r".into(),
        version: 0,
        expires_at: epoch_now() + 60,
    };
    let written = db.put(&new).send().await.unwrap();
    assert_eq!(written.version, Some(1));
}

#[derive(Table)]
#[ddb(name = "Threads", pk = "PK", sk = "SK")]
#[ddb(local_index(name = "ByActivity", sk = "LSI1SK", projection = "keys_only"))]
struct Threads;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Threads, entity = "Thread", pk = "FORUM#{forum}", sk = "THREAD#{id}", query = "threads")]
#[ddb(index(
    name = "ByActivity",
    sk = "ACTIVE#{active_at}#{id}",
    query = "by_activity"
))]
struct Thread {
    forum: String,
    id: String,
    active_at: u64,
    title: String,
    #[serde(default)]
    note: Option<String>,
    /// Stamped by ddb at each write, in a key: whole seconds.
    #[ddb(updated_at)]
    updated_at: Option<ddb_runtime::Timestamp>,
}

/// A local index that projects only keys still reads whole entities (the
/// local index fetches the rest from the table): DynamoDB returns only the
/// projected attributes unless asked for all.
#[tokio::test]
async fn a_keys_only_local_index_reads_whole_entities() {
    let db = ddb_tests::db_with_table::<Threads>().await;
    let thread = Thread {
        forum: "rust".into(),
        id: "t1".into(),
        active_at: 5,
        title: "Keys".into(),
        note: Some("pinned".into()),
        updated_at: None,
    };
    db.create(&thread).send().await.unwrap();
    let found: Vec<Thread> = db
        .query(Thread::by_activity(&"rust".to_string()))
        .collect()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].title, "Keys");
    assert_eq!(found[0].note.as_deref(), Some("pinned"));
}

#[derive(Table)]
#[ddb(name = "Feeds", pk = "PK", sk = "SK")]
#[ddb(index(name = "Recent", pk = "RECENT_PK", sk = "RECENT_SK"))]
struct Feeds;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Feeds, entity = "Post", pk = "POST#{id}", sk = "POST")]
#[ddb(index(
    name = "Recent",
    pk = "FEED#{feed}",
    sk = "AT#{updated}#{id}",
    query = "recent"
))]
struct Post {
    id: String,
    feed: String,
    #[ddb(updated_at)]
    updated: ddb_runtime::Timestamp,
}

/// A `Timestamp` ddb stamps itself can be a key segment: stamps are whole
/// seconds (a stamp with nanoseconds failed every write of such a key).
#[tokio::test]
async fn a_stamped_timestamp_can_be_a_key() {
    let db = ddb_tests::db_with_table::<Feeds>().await;
    let post = Post {
        id: "p1".into(),
        feed: "news".into(),
        updated: ddb_runtime::Timestamp::now_in_seconds(),
    };
    db.create(&post).send().await.unwrap();
    let recent: Vec<Post> = db
        .query(Post::recent(&"news".to_string()))
        .collect()
        .await
        .unwrap();
    assert_eq!(recent.len(), 1);
}

#[derive(Table)]
#[ddb(name = "Racks", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByRank", pk = "aisle", sk = "rank", projection = "keys_only"))]
struct Racks;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Racks, entity = "Rack", pk = "RACK#{id}", sk = "RACK")]
#[ddb(index(name = "ByRank", pk = "{aisle}", sk = "{rank}", query = "by_rank"))]
struct Rack {
    id: String,
    aisle: String,
    rank: String,
}

/// Another entity in the same index partition: dropped by ddb, so a page
/// takes more than one Query.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Racks, entity = "Label", pk = "LABEL#{id}", sk = "LABEL")]
#[ddb(index(name = "ByRank", pk = "{aisle}", sk = "{rank}"))]
struct Label {
    id: String,
    aisle: String,
    rank: String,
}

/// A hydrated page read with two Query requests met the same
/// item twice when its index sort key moved past the first request's end
/// between them, and the batch get of the page refused the repeated key
/// (`DuplicateKey`). The page now asks for each key once.
#[tokio::test]
async fn a_hydrated_page_that_meets_an_item_twice_reads_it_once() {
    let db = ddb_tests::db_with_table::<Racks>().await;
    let rack = |id: &str, rank: &str| Rack {
        id: id.into(),
        aisle: "7".into(),
        rank: rank.into(),
    };
    db.create(&rack("a", "b")).send().await.unwrap();
    db.create(&rack("z", "e")).send().await.unwrap();
    db.create(&Label {
        id: "l".into(),
        aisle: "7".into(),
        rank: "c".into(),
    })
    .send()
    .await
    .unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Racks>(&db).await;
    // The first Query reads rack a (rank b) and the label (rank c); while its
    // answer is held, rack a moves to rank d, which the second Query reads.
    let held = proxy.hold("Query");
    let page = tokio::spawn(async move {
        through
            .query(Rack::by_rank(&"7".to_string()))
            .hydrate()
            .limit(2)
            .send()
            .await
    });
    held.applied().await;
    let key = Rack::key(&"a".to_string()).unwrap();
    db.update(key)
        .set(Rack::fields().rank, "d".to_string())
        .send()
        .await
        .unwrap();
    held.release();
    let page = page.await.unwrap().unwrap();
    let ids: Vec<&str> = page.items.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a"], "rack a once, as it is now: {page:?}");
    assert_eq!(page.items[0].rank, "d");
    assert!(proxy.seen("Query") >= 2, "the page took two Query requests");
}
