use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", scan = true)]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Refund", pk = "CUSTOMER#{customer_id}", sk = "REFUND#{refund_id}", scan, scan)]
pub struct Refund {
    pub customer_id: String,
    pub refund_id: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Line", pk = "CUSTOMER#{customer_id}", sk = "LINE#{line_id}", scans)]
pub struct Line {
    pub customer_id: String,
    pub line_id: String,
}

fn main() {}
