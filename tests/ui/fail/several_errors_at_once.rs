use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{custmer_id}", sk = "ORDER#{}", colour = "red")]
pub struct Order {
    pub customer_id: String,
    #[ddb(version)]
    pub version: String,
}
fn main() {}
