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
    pub total_cents: u64,
}

fn rename(db: &ddb_runtime::Db, key: ddb_runtime::Key<Order>) {
    let fields = Order::fields();
    let _ = db.update(key).set(fields.customer_id, "456");
}

fn main() {}
