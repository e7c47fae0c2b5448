//! Fixtures the tests of several files share: the store's customers, orders
//! and order lines, the seeded store, and small tables of their own.

use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::{Db, Entity, Table};
use serde::{Deserialize, Serialize};
use time::macros::datetime;
use time::OffsetDateTime;

/// Customer `id` of the store, its name and email made from the id.
pub fn customer(id: &str) -> Customer {
    Customer {
        customer_id: CustomerId(id.into()),
        name: format!("Customer {id}"),
        email: format!("c{id}@example.com"),
        order_count: 0,
    }
}

/// Ada, the store's customer 123.
pub fn ada() -> Customer {
    Customer {
        customer_id: CustomerId("123".into()),
        name: "Ada".into(),
        email: "ada@example.com".into(),
        order_count: 0,
    }
}

/// Order `id` of customer 123, open and not yet written (version 0).
pub fn open_order(id: &str) -> Order {
    Order {
        customer_id: CustomerId("123".into()),
        order_id: OrderId(id.into()),
        placed_at: datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 5600,
        version: 0,
    }
}

/// One unit of `product` in `order`, at 100 cents.
pub fn line(order: &str, product: &str) -> OrderItem {
    OrderItem {
        order_id: OrderId(order.into()),
        product_id: ProductId(product.into()),
        quantity: 1,
        price_cents: 100,
    }
}

/// An order of `customer` as stored (version 1).
pub fn order(
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

/// The seed's orders of customer 123: A102 and A117 shipped, A145 open.
pub fn seed_orders() -> Vec<Order> {
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
pub fn generated(customer: &str, n: usize, status: OrderStatus) -> Vec<Order> {
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

/// A table holding the seed (customers 123 and 456, the orders of 123), written
/// with plain PutItem requests.
pub async fn store() -> Db {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    ddb_tests::put_raw(&db, &[customer("123"), customer("456")]).await;
    ddb_tests::put_raw(&db, &seed_orders()).await;
    db
}

/// The ids of `orders`, in their order.
pub fn ids(orders: &[Order]) -> Vec<&str> {
    orders.iter().map(|o| o.order_id.0.as_str()).collect()
}

/// How many items the raw table holds.
pub async fn count_items(db: &Db) -> usize {
    ddb_tests::scan_raw::<Ecommerce>(db).await.len()
}

/// A table keyed by a partition key alone.
#[derive(Table)]
#[ddb(name = "Counters", pk = "PK")]
pub struct Counters;

/// A versioned counter.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Counters, entity = "Counter", pk = "COUNTER#{name}")]
pub struct Counter {
    pub name: String,
    pub value: u64,
    #[ddb(version)]
    pub version: u64,
}

/// A table with a time to live.
#[derive(Table)]
#[ddb(name = "Sessions", pk = "PK", ttl = "expires")]
pub struct Sessions;

/// A session with the times ddb keeps itself and a time to live.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Sessions, entity = "Session", pk = "SESSION#{id}", query = "session")]
pub struct Session {
    pub id: String,
    pub user: String,
    #[ddb(created_at)]
    pub created: Option<ddb_runtime::Timestamp>,
    #[ddb(updated_at)]
    pub updated: u64,
    #[ddb(ttl)]
    pub expires: Option<u64>,
}

/// Sensor readings by site, and by sensor in a write-sharded index.
#[derive(Table)]
#[ddb(name = "Readings", pk = "PK", sk = "SK")]
#[ddb(index(name = "BySensor", pk = "SENSOR_PK", sk = "SENSOR_SK"))]
pub struct Readings;

/// A sensor's reading at a site.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Readings, entity = "Reading", pk = "SITE#{site}", sk = "READING#{id}", query = "at_site")]
#[ddb(index(
    name = "BySensor",
    pk = "SENSOR#{sensor}",
    sk = "SITE#{site}",
    shards = 4
))]
pub struct Reading {
    pub site: String,
    pub id: String,
    pub sensor: String,
    pub value: f64,
    pub note: String,
}

/// Reading `r1` at `site` from `sensor`.
pub fn reading(site: &str, sensor: &str) -> Reading {
    Reading {
        site: site.into(),
        id: "r1".into(),
        sensor: sensor.into(),
        value: 1.5,
        note: String::new(),
    }
}

/// A resource-based policy that denies deleting the table.
pub fn deny_delete_policy() -> String {
    serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [{
            "Effect": "Deny",
            "Principal": "*",
            "Action": "dynamodb:DeleteTable",
            "Resource": "*"
        }]
    })
    .to_string()
}

/// Every per-environment setting of a table with a global index `GSI1`:
/// the customer managed key `key`, the tag `team`, the table's and the
/// index's maximum and warm throughput, and [`deny_delete_policy`].
pub fn every_setting(key: &str, team: &str) -> ddb_runtime::schema::TableSettings {
    use ddb_runtime::schema::{TableSettings, Units};
    TableSettings::default()
        .kms_key(key)
        .tag("team", team)
        .max_throughput(Units {
            read: 4000,
            write: 1000,
        })
        .index_max_throughput(
            "GSI1",
            Units {
                read: 2000,
                write: 500,
            },
        )
        .warm_throughput(Units {
            read: 15000,
            write: 5000,
        })
        .index_warm_throughput(
            "GSI1",
            Units {
                read: 13000,
                write: 4500,
            },
        )
        .resource_policy(deny_delete_policy())
}
