//! The online store of ddb's seed articles, declared once for the examples and
//! the acceptance tests: customers, orders and order items, in a single-table
//! design ([`single_table`]) and in separate tables ([`separate_tables`]).

use ddb_runtime::KeySegment;
use serde::{Deserialize, Serialize};

/// A customer id such as `123`.
#[derive(
    KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[serde(transparent)]
pub struct CustomerId(pub String);

/// An order id such as `A102`.
#[derive(
    KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[serde(transparent)]
pub struct OrderId(pub String);

/// A product id such as `P9`.
#[derive(
    KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[serde(transparent)]
pub struct ProductId(pub String);

/// Where an order is: open orders are still being processed.
#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    /// Still being processed (`OPEN`).
    Open,
    /// Sent to the customer (`SHIPPED`).
    Shipped,
}

/// One table, `Ecommerce`, holding every entity (the seed's single-table design).
pub mod single_table {
    use super::*;
    use ddb_runtime::{Entity, Table};
    use time::OffsetDateTime;

    /// The physical table: PK/SK, GSI1 (order by id; orders of a product),
    /// GSI2 (open orders, sparse and write-sharded, projecting what the
    /// admin dashboard shows).
    #[derive(Table)]
    #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
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
    #[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
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
    #[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}",
          query = "by_customer")]
    #[ddb(index(
        name = "GSI1",
        pk = "ORDER#{order_id}",
        sk = "ORDER",
        query = "by_order_id"
    ))]
    #[ddb(index(name = "GSI2", pk = "STATUS#{status}", sk = "{placed_at}#{order_id}",
                query = "open_orders", shards = 4, when = Order::is_open))]
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

    impl Order {
        /// Whether the order is in the open-orders index.
        pub fn is_open(&self) -> bool {
            self.status == OrderStatus::Open
        }
    }

    /// One product of an order, at `ORDER#A145` / `PRODUCT#P9`; GSI1 inverts it.
    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Ecommerce, pk = "ORDER#{order_id}", sk = "PRODUCT#{product_id}", query = "products_of_order")]
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

    ddb_runtime::assert_distinct_keys!(Customer, Order, OrderItem);
}

/// Three tables, as the seed first draws them: `Customers` keyed by the raw
/// `customerId`, `Orders` and `OrderItems`.
pub mod separate_tables {
    use super::*;
    use ddb_runtime::{Entity, Table};
    use time::OffsetDateTime;

    /// `Customers`: partition key `customerId`, no sort key.
    #[derive(Table)]
    #[ddb(name = "Customers", pk = "customerId")]
    pub struct Customers;

    /// `Orders`: `CUSTOMER#123` / `2026-09-10T08:12:44Z#A102`, and a GSI keyed
    /// by the raw order id.
    #[derive(Table)]
    #[ddb(name = "Orders", pk = "PK", sk = "SK")]
    #[ddb(index(name = "OrderIdIndex", pk = "orderId"))]
    pub struct Orders;

    /// `OrderItems`: `ORDER#A145` / `PRODUCT#P9`, inverted by `ProductOrdersIndex`.
    #[derive(Table)]
    #[ddb(name = "OrderItems", pk = "PK", sk = "SK")]
    #[ddb(index(name = "ProductOrdersIndex", pk = "GSI1PK", sk = "GSI1SK"))]
    pub struct OrderItems;

    /// A customer, keyed by the raw id.
    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    #[ddb(table = Customers, pk = "{customer_id}")]
    pub struct Customer {
        /// The customer id, stored as `customerId`.
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
    #[ddb(table = Orders, pk = "CUSTOMER#{customer_id}", sk = "{placed_at}#{order_id}", query = "by_customer")]
    #[ddb(index(name = "OrderIdIndex", pk = "{order_id}", query = "by_order_id"))]
    pub struct Order {
        /// Who placed it.
        pub customer_id: CustomerId,
        /// The order id, stored as `orderId` (the GSI's partition key).
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
    #[ddb(table = OrderItems, pk = "ORDER#{order_id}", sk = "PRODUCT#{product_id}", query = "products_of_order")]
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
}

/// Where the examples run.
pub mod connect {
    use aws_config::BehaviorVersion;
    use aws_sdk_dynamodb::config::Credentials;
    use aws_sdk_dynamodb::Client;
    use ddb_runtime::local::{LocalDynamoDb, ENDPOINT_VAR};

    /// Set to `1` to run against real DynamoDB with the standard AWS
    /// environment (credentials, `AWS_REGION`, `AWS_PROFILE`, ...).
    pub const REAL_AWS_VAR: &str = "DDB_REAL_AWS";

    /// A client built the way production code builds it, from aws-config's
    /// defaults (so `AWS_MAX_ATTEMPTS`, `AWS_RETRY_MODE` and the rest apply),
    /// overriding only the endpoint and, for a local server, the credentials:
    ///
    /// - `DDB_REAL_AWS=1`: real DynamoDB, nothing overridden;
    /// - `DDB_ENDPOINT=http://...`: that endpoint;
    /// - otherwise: an embedded local DynamoDB, kept alive by the returned guard.
    pub async fn client() -> Result<(Client, Option<LocalDynamoDb>), Box<dyn std::error::Error>> {
        let real = std::env::var(REAL_AWS_VAR).is_ok_and(|v| v == "1");
        let config = aws_config::load_defaults(BehaviorVersion::latest()).await;
        if real {
            return Ok((Client::new(&config), None));
        }
        let local = match std::env::var(ENDPOINT_VAR) {
            Ok(endpoint) if !endpoint.is_empty() => LocalDynamoDb::connect(endpoint)?,
            _ => LocalDynamoDb::embedded()?,
        };
        let mut builder =
            aws_sdk_dynamodb::config::Builder::from(&config).endpoint_url(local.endpoint());
        if local.is_embedded() || config.credentials_provider().is_none() {
            builder = builder.credentials_provider(Credentials::new(
                "ddblocal",
                "ddblocal",
                None,
                None,
                "ddb-local",
            ));
        }
        if config.region().is_none() {
            builder = builder.region(aws_sdk_dynamodb::config::Region::new("us-east-1"));
        }
        let guard = local.is_embedded().then_some(local);
        Ok((Client::from_conf(builder.build()), guard))
    }
}
