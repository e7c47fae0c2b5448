//! One table, `Ecommerce`, holding every entity: the seed's single-table
//! design, with its access patterns as functions the example and the tests
//! share.

use ddb_runtime::{Collection, Db, Entity, Projection, Result, Table};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::{seed, CustomerId, Loaded, OrderId, OrderStatus, Outcome, ProductId};

/// The physical table: PK/SK, GSI1 (an order by its id; the orders of a
/// product) and GSI2 (open orders: sparse, write-sharded, projecting what the
/// admin dashboard shows); a stream with both images, which the Lambda
/// stream handler (`examples/lambda_stream`) decodes.
#[derive(Table)]
#[ddb(
    name = "Ecommerce",
    pk = "PK",
    sk = "SK",
    stream = "new_and_old_images",
    entities(Customer, Order, OrderItem)
)]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(
    name = "GSI2",
    pk = "GSI2PK",
    sk = "GSI2SK",
    include("customer_id", "order_id", "placed_at", "status", "total_cents")
))]
pub struct Ecommerce;

/// A customer's profile, at `CUSTOMER#123` / `PROFILE`.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
pub struct Customer {
    /// The customer id.
    pub customer_id: CustomerId,
    /// Display name.
    pub name: String,
    /// Personal data: never part of a key.
    #[ddb(sensitive)]
    pub email: String,
    /// How many orders the customer placed.
    pub order_count: u32,
}

/// An order, at `CUSTOMER#123` / `ORDER#2026-09-10T08:12:44Z#A102`.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}",
      query = "by_customer")]
#[ddb(index(
    name = "GSI1",
    pk = "ORDER#{order_id}",
    sk = "ORDER",
    query = "by_order_id"
))]
#[ddb(index(name = "GSI2", pk = "STATUS#{status}", sk = "{placed_at}#{order_id}",
            query = "open_orders", shards = 4, when(status = OrderStatus::Open)))]
pub struct Order {
    /// Who placed it.
    pub customer_id: CustomerId,
    /// The order id.
    pub order_id: OrderId,
    /// When it was placed (second precision).
    #[serde(with = "time::serde::rfc3339")]
    pub placed_at: OffsetDateTime,
    /// Open or shipped.
    pub status: OrderStatus,
    /// The total in cents.
    pub total_cents: u64,
    /// Optimistic-locking counter.
    #[ddb(version)]
    pub version: u64,
}

/// One product of an order, at `ORDER#A145` / `PRODUCT#P9`; GSI1 inverts it.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ecommerce, entity = "OrderItem", pk = "ORDER#{order_id}", sk = "PRODUCT#{product_id}", query = "products_of_order")]
#[ddb(index(
    name = "GSI1",
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

/// A customer's item collection: the profile and the orders.
#[derive(Collection, Clone, Debug, PartialEq)]
pub enum CustomerItem {
    /// The profile.
    Profile(Customer),
    /// An order.
    Order(Order),
}

/// What the admin dashboard shows of an open order: GSI2's projection.
#[derive(Projection, Deserialize, Clone, Debug, PartialEq)]
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
    let orders: Vec<Order> = seed::orders()
        .into_iter()
        .map(|o| Order {
            customer_id: CustomerId(o.customer.into()),
            order_id: OrderId(o.id),
            placed_at: o.placed_at,
            status: o.status,
            total_cents: o.total_cents,
            version: 1,
        })
        .collect();
    let customers = seed::customers()
        .into_iter()
        .map(|c| Customer {
            customer_id: CustomerId(c.id.into()),
            name: c.name.into(),
            email: c.email.into(),
            order_count: orders.iter().filter(|o| o.customer_id.0 == c.id).count() as u32,
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

/// Creates the table if missing and loads the seed with idempotent creates.
pub async fn load(db: &Db) -> Result<Loaded> {
    db.create_table::<Ecommerce>().await?;
    let (customers, orders, items) = seed_entities();
    let mut loaded = Loaded::default();
    loaded.create_all(db, &customers).await?;
    loaded.create_all(db, &orders).await?;
    loaded.create_all(db, &items).await?;
    Ok(loaded)
}

/// Customer profile by customer id: one GetItem.
pub async fn customer_profile(db: &Db, customer: &str) -> Result<Outcome<Customer>> {
    let key = Customer::key(&CustomerId(customer.into()))?;
    let (found, capacity) = db.get(key).send_with_capacity().await?;
    Ok(Outcome::new(found.into_iter().collect(), capacity.total, 1))
}

/// The latest `n` orders of a customer, newest first: one Query page.
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

/// An order by its id, without knowing the customer: GSI1.
pub async fn order_by_id(db: &Db, order: &str) -> Result<Outcome<Order>> {
    let page = db
        .query(Order::by_order_id(&OrderId(order.into())))
        .send()
        .await?;
    Ok(Outcome::from_page(page))
}

/// Orders still being processed, oldest first: GSI2, four shards merged.
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

/// The orders that contain a product: GSI1, inverted.
pub async fn orders_of_product(db: &Db, product: &str) -> Result<Outcome<OrderItem>> {
    let pages = db
        .query(OrderItem::orders_of_product(&ProductId(product.into())))
        .pages();
    Outcome::from_pages(pages).await
}

/// A customer's profile and orders together: one Query of the item collection.
pub async fn profile_and_orders(db: &Db, customer: &str) -> Result<Outcome<CustomerItem>> {
    let partition = Customer::pk(&CustomerId(customer.into()))?;
    let pages = db.collection::<CustomerItem>(partition).pages();
    Outcome::from_pages(pages).await
}

/// "Place an order": the server stamps the time and makes the order id, so
/// a client's retry would make a new key; the client's request id is the
/// idempotency key, and a retry reports the first order.
pub async fn place_order(
    db: &Db,
    customer: &str,
    request_id: &str,
    total_cents: u64,
) -> Result<ddb_runtime::Idempotent<Order>> {
    let now = OffsetDateTime::now_utc();
    let order = Order {
        customer_id: CustomerId(customer.into()),
        order_id: OrderId(format!("W{}", now.unix_timestamp_nanos() % 1_000_000_000)),
        placed_at: now.replace_nanosecond(0).unwrap_or(now),
        status: OrderStatus::Open,
        total_cents,
        version: 0,
    };
    db.create(&order).idempotency_key(request_id).send().await
}

/// The two calls of [`checkout`]: the client's first call and its retry.
#[derive(Debug)]
pub struct Checkout {
    /// The first call.
    pub first: ddb_runtime::Idempotent<Order>,
    /// The same request sent again, as a client retrying after a timeout.
    pub retry: ddb_runtime::Idempotent<Order>,
}

/// The client's request id of the store's checkout. It is fixed, as a
/// client's is for one purchase: a second run of the example against the
/// same table (within the idempotency key's 24 hours) sends the first run's
/// request again, and reports the first run's order instead of placing
/// another.
pub const CHECKOUT_REQUEST: &str = "checkout-123-0001";

/// The store's checkout: "place an order" for customer 123 under
/// [`CHECKOUT_REQUEST`], sent twice as a client retrying after a timeout
/// would. The retry, a second later (a new server timestamp, so a new order
/// key), reports the first order.
pub async fn checkout(db: &Db) -> Result<Checkout> {
    let first = place_order(db, "123", CHECKOUT_REQUEST, 4_200).await?;
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let retry = place_order(db, "123", CHECKOUT_REQUEST, 4_200).await?;
    Ok(Checkout { first, retry })
}
