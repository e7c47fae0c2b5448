// A table that lists its entities checks their keys against each other
// without a separate assert_distinct_keys!, and refuses an entity it leaves
// out.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK", entities(Order, OrderLine))]
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

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Note", pk = "CUSTOMER#{customer_id}", sk = "NOTE#{n}")]
pub struct Note {
    pub customer_id: String,
    pub n: u32,
}

fn main() {}
