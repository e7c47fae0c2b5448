use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
pub struct Customer {
    pub customer_id: String,
    #[serde(rename = "GSI1PK")]
    pub nickname: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "ORDER#{order_id}", sk = "ORDER")]
pub struct Order {
    pub order_id: String,
    #[serde(rename = "_schema")]
    pub schema: u32,
}

fn main() {}
