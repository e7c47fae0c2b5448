use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK", include("order_id", "total_cents")))]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER", query = "by_order_id"))]
#[ddb(index(name = "GSI2", pk = "STATUS#{status}", sk = "{order_id}", query = "by_status"))]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub status: String,
    pub total_cents: u64,
    pub note: String,
}

#[derive(ddb_runtime::Projection, Deserialize)]
#[ddb(entity = Order)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub order_id: String,
}

fn main() {}
