use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}")]
pub struct Order {
    pub customer_id: String,
    pub placed_at: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "OrderLine", pk = "CUSTOMER#{customer_id}", sk = "ORDER#ITEM#{n}")]
pub struct OrderLine {
    pub customer_id: String,
    pub n: u32,
}

ddb_runtime::assert_distinct_keys!(Order, OrderLine);
fn main() {}
