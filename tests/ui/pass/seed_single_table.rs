// The seed's single-table design compiles: Ecommerce with PK/SK, GSI1, GSI2.
use ddb_runtime::{Entity, KeySegment, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK", ttl = "expires_at")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK", include("status", "placed_at", "customer_id", "order_id", "total_cents")))]
pub struct Ecommerce;

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub enum OrderStatus {
    Open,
    Shipped,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
pub struct Customer {
    pub customer_id: String,
    #[ddb(sensitive)]
    pub email: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}", query = "by_customer")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER", query = "by_order_id"))]
#[ddb(index(name = "GSI2", pk = "STATUS#{status}", sk = "{placed_at}#{order_id}", query = "open",
            shards = 4, when(status = OrderStatus::Open)))]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub placed_at: time::OffsetDateTime,
    pub status: OrderStatus,
    pub total_cents: u64,
    #[ddb(version)]
    pub version: u64,
    #[ddb(ttl)]
    pub expires_at: Option<u64>,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "OrderItem", pk = "ORDER#{order_id}", sk = "PRODUCT#{product_id}")]
#[ddb(index(name = "GSI1", pk = "PRODUCT#{product_id}", sk = "ORDER#{order_id}"))]
pub struct OrderItem {
    pub order_id: String,
    pub product_id: String,
    pub quantity: u32,
}

ddb_runtime::assert_distinct_keys!(Customer, Order, OrderItem);

fn main() {
    let key = Order::key(&"123".to_string(), &time::macros::datetime!(2026-09-10 08:12:44 UTC), &"A102".to_string()).unwrap();
    assert_eq!(key.sk().unwrap().as_str(), "ORDER#2026-09-10T08:12:44Z#A102");
}
