// A projection reading an attribute that is another index's key, which this
// index does not project: it would be missing at run time.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "OrderIdIndex", pk = "orderId"))]
#[ddb(index(name = "StatusIndex", pk = "StatusPK", sk = "StatusSK", include("totalCents")))]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
#[ddb(index(name = "OrderIdIndex", pk = "{order_id}"))]
#[ddb(index(name = "StatusIndex", pk = "STATUS#{status}", sk = "{customer_id}", query = "by_status"))]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub status: String,
    pub total_cents: u64,
}

#[derive(ddb_runtime::Projection, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(entity = Order)]
pub struct Total {
    pub order_id: String,
    pub total_cents: u64,
}

fn read(db: ddb_runtime::Db) {
    let _ = db.query(Order::by_status(&"OPEN".to_string())).project::<Total>();
}

fn main() {
    // Post-monomorphization check: it fires when `read` is compiled to code.
    let _ = read as fn(ddb_runtime::Db);
}
