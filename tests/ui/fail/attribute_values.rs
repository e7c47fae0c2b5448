use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
pub struct Orders;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER", query = "by_customer", shards = 0))]
#[ddb(index(name = "GSI2", pk = "BY#{order_id}", sk = "ORDER", query = "by customer"))]
pub struct Order {
    pub customer_id: String,
    #[ddb(version)]
    pub order_id: u64,
}

fn main() {}
