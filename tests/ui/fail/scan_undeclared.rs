use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
}

async fn export(db: ddb_runtime::Db) {
    let _ = db.scan::<Order>().collect().await;
}

fn main() {}
