// One field cannot be both created_at and updated_at (nor hold any two of
// version, ttl, created_at and updated_at): ddb writes each differently.
use ddb_runtime::{Entity, Table, Timestamp};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
pub struct Customer {
    pub customer_id: String,
    #[ddb(created_at, updated_at)]
    pub stamped: Option<Timestamp>,
    // Rightly updated_at: not also reported as a second updated_at.
    #[ddb(updated_at)]
    pub updated: u64,
}
fn main() {}
