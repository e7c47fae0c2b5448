use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Ecommerce;

#[derive(Serialize, Deserialize)]
pub struct Address {
    pub street: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Shipping", pk = "CUSTOMER#{customer_id}", sk = "ADDRESS#{address}")]
pub struct Shipping {
    pub customer_id: String,
    pub address: Address,
}
fn main() {}
