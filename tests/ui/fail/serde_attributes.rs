// Serde attributes that change attribute names or presence: refused, each
// with what to do instead.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Serialize, Deserialize)]
pub struct Address {
    pub city: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
pub struct Order {
    pub customer_id: String,
    // Never stored: it cannot be part of a key.
    #[serde(skip)]
    pub order_id: String,
    #[serde(flatten)]
    pub address: Address,
    #[serde(skip_serializing)]
    pub note: String,
    #[serde(rename(serialize = "total", deserialize = "sum"))]
    pub total_cents: u64,
    #[serde(skip)]
    #[ddb(updated_at)]
    pub updated_at: u64,
}

fn main() {}
