use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "PROFILE", entity = "Customer")]
pub struct Profile {
    pub customer_id: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "ADDRESS", entity = "Customer")]
pub struct Address {
    pub customer_id: String,
}

ddb_runtime::assert_distinct_keys!(Profile, Address);

fn main() {}
