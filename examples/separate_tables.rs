//! Three tables, as the seed first draws them: `Customers` keyed by the raw
//! `customerId`, `Orders` and `OrderItems`, with the same access patterns as
//! the single-table design.

use ddb_runtime::{Db, Entity, Projection, Result, Table};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::{seed, CustomerId, Loaded, OrderId, OrderStatus, Outcome, ProductId};

/// `Customers`: partition key `customerId`, no sort key.
#[derive(Table)]
#[ddb(name = "Customers", pk = "customerId", entities(Customer))]
pub struct Customers;

/// `Orders`: `CUSTOMER#123` / `2026-09-10T08:12:44Z#A102`; `OrderIdIndex`
/// keyed by the raw order id; `StatusIndex` for open orders (sparse,
/// write-sharded); `CustomerStatusIndex` keyed by four of the order's own
/// attributes (a multi-attribute key DynamoDB keeps).
#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK", entities(Order))]
#[ddb(index(name = "OrderIdIndex", pk = "orderId"))]
#[ddb(index(
    name = "CustomerStatusIndex",
    pk("customerId", "status"),
    sk("placedAt", "orderId")
))]
#[ddb(index(
    name = "StatusIndex",
    pk = "StatusPK",
    sk = "StatusSK",
    include("customerId", "orderId", "placedAt", "totalCents")
))]
pub struct Orders;

/// `OrderItems`: `ORDER#A145` / `PRODUCT#P9`, inverted by `ProductOrdersIndex`.
#[derive(Table)]
#[ddb(name = "OrderItems", pk = "PK", sk = "SK", entities(OrderItem))]
#[ddb(index(name = "ProductOrdersIndex", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct OrderItems;

/// A customer, keyed by the raw id.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Customers, entity = "Customer", pk = "{customer_id}")]
pub struct Customer {
    /// The customer id, stored as `customerId` (the partition key itself).
    pub customer_id: CustomerId,
    /// Display name.
    pub name: String,
    /// Personal data: never part of a key.
    #[ddb(sensitive)]
    pub email: String,
}

/// An order of the `Orders` table.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "{placed_at}#{order_id}", query = "by_customer")]
#[ddb(index(name = "OrderIdIndex", pk = "{order_id}", query = "by_order_id"))]
#[ddb(index(name = "StatusIndex", pk = "STATUS#{status}", sk = "{placed_at}#{order_id}",
            query = "open_orders", shards = 4, when(status = OrderStatus::Open)))]
#[ddb(index(
    name = "CustomerStatusIndex",
    pk(customer_id, status),
    sk(placed_at, order_id),
    query = "orders_in_status"
))]
pub struct Order {
    /// Who placed it.
    pub customer_id: CustomerId,
    /// The order id, stored as `orderId` (the index's partition key).
    pub order_id: OrderId,
    /// When it was placed.
    #[serde(with = "time::serde::rfc3339")]
    pub placed_at: OffsetDateTime,
    /// Open or shipped.
    pub status: OrderStatus,
    /// The total in cents.
    pub total_cents: u64,
}

/// One product of an order.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(table = OrderItems, entity = "OrderItem", pk = "ORDER#{order_id}", sk = "PRODUCT#{product_id}", query = "products_of_order")]
#[ddb(index(
    name = "ProductOrdersIndex",
    pk = "PRODUCT#{product_id}",
    sk = "ORDER#{order_id}",
    query = "orders_of_product"
))]
pub struct OrderItem {
    /// The order.
    pub order_id: OrderId,
    /// The product.
    pub product_id: ProductId,
    /// How many.
    pub quantity: u32,
    /// The price paid per unit, in cents.
    pub price_cents: u64,
}

/// What the admin dashboard shows of an open order: StatusIndex's projection.
#[derive(Projection, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[ddb(entity = Order)]
pub struct OpenOrder {
    /// Who placed it.
    pub customer_id: CustomerId,
    /// The order id.
    pub order_id: OrderId,
    /// When.
    #[serde(with = "time::serde::rfc3339")]
    pub placed_at: OffsetDateTime,
    /// The total in cents.
    pub total_cents: u64,
}

/// The store's entities, for schema and reports.
pub const ENTITIES: [&ddb_runtime::model::EntitySchema; 3] =
    [&Customer::SCHEMA, &Order::SCHEMA, &OrderItem::SCHEMA];

/// The seed as this design's entities.
pub fn seed_entities() -> (Vec<Customer>, Vec<Order>, Vec<OrderItem>) {
    let customers = seed::customers()
        .into_iter()
        .map(|c| Customer {
            customer_id: CustomerId(c.id.into()),
            name: c.name.into(),
            email: c.email.into(),
        })
        .collect();
    let orders = seed::orders()
        .into_iter()
        .map(|o| Order {
            customer_id: CustomerId(o.customer.into()),
            order_id: OrderId(o.id),
            placed_at: o.placed_at,
            status: o.status,
            total_cents: o.total_cents,
        })
        .collect();
    let items = seed::items()
        .into_iter()
        .map(|i| OrderItem {
            order_id: OrderId(i.order.into()),
            product_id: ProductId(i.product.into()),
            quantity: i.quantity,
            price_cents: i.price_cents,
        })
        .collect();
    (customers, orders, items)
}

/// Creates the three tables if missing and loads the seed with idempotent creates.
pub async fn load(db: &Db) -> Result<Loaded> {
    db.create_table::<Customers>().await?;
    db.create_table::<Orders>().await?;
    db.create_table::<OrderItems>().await?;
    let (customers, orders, items) = seed_entities();
    let mut loaded = Loaded::default();
    loaded.create_all(db, &customers).await?;
    loaded.create_all(db, &orders).await?;
    loaded.create_all(db, &items).await?;
    Ok(loaded)
}

/// Customer profile by customer id: one GetItem on `Customers`.
pub async fn customer_profile(db: &Db, customer: &str) -> Result<Outcome<Customer>> {
    let key = Customer::key(&CustomerId(customer.into()))?;
    let (found, capacity) = db.get(key).send_with_capacity().await?;
    Ok(Outcome::new(found.into_iter().collect(), capacity.total, 1))
}

/// The latest `n` orders of a customer, newest first.
pub async fn latest_orders(db: &Db, customer: &str, n: usize) -> Result<Outcome<Order>> {
    let page = db
        .query(Order::by_customer(&CustomerId(customer.into())))
        .newest_first(true)
        .limit(n)
        .send()
        .await?;
    Ok(Outcome::from_page(page))
}

/// A customer's orders placed between two instants, both included.
pub async fn orders_between(
    db: &Db,
    customer: &str,
    from: OffsetDateTime,
    to: OffsetDateTime,
) -> Result<Outcome<Order>> {
    let pages = db
        .query(Order::by_customer(&CustomerId(customer.into())))
        .between(&from, &to)
        .pages();
    Outcome::from_pages(pages).await
}

/// An order by its id, without knowing the customer: `OrderIdIndex`.
pub async fn order_by_id(db: &Db, order: &str) -> Result<Outcome<Order>> {
    let page = db
        .query(Order::by_order_id(&OrderId(order.into())))
        .send()
        .await?;
    Ok(Outcome::from_page(page))
}

/// A customer's orders in one status, newest first: `CustomerStatusIndex`,
/// one Query on the order's own attributes (no synthetic key to keep).
pub async fn orders_in_status(
    db: &Db,
    customer: &str,
    status: OrderStatus,
) -> Result<Outcome<Order>> {
    let pages = db
        .query(Order::orders_in_status(
            &CustomerId(customer.into()),
            &status,
        ))
        .newest_first(true)
        .pages();
    Outcome::from_pages(pages).await
}

/// Orders still being processed, oldest first: `StatusIndex`, four shards merged.
pub async fn open_orders(db: &Db) -> Result<Outcome<OpenOrder>> {
    let pages = db
        .query(Order::open_orders(&OrderStatus::Open))
        .project::<OpenOrder>()
        .pages();
    Outcome::from_pages(pages).await
}

/// The products of an order.
pub async fn products_of_order(db: &Db, order: &str) -> Result<Outcome<OrderItem>> {
    let pages = db
        .query(OrderItem::products_of_order(&OrderId(order.into())))
        .pages();
    Outcome::from_pages(pages).await
}

/// The orders that contain a product: `ProductOrdersIndex`.
pub async fn orders_of_product(db: &Db, product: &str) -> Result<Outcome<OrderItem>> {
    let pages = db
        .query(OrderItem::orders_of_product(&ProductId(product.into())))
        .pages();
    Outcome::from_pages(pages).await
}

/// A customer's profile and orders together: with separate tables, a GetItem
/// and a Query (the single-table design answers it with one Query).
pub async fn profile_and_orders(
    db: &Db,
    customer: &str,
) -> Result<(Outcome<Customer>, Outcome<Order>)> {
    let profile = customer_profile(db, customer);
    let orders = Outcome::from_pages(
        db.query(Order::by_customer(&CustomerId(customer.into())))
            .pages(),
    );
    futures::try_join!(profile, orders)
}
