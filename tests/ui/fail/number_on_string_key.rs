// A numeric field stored as the String key attribute its template writes:
// the zero-padded key text would replace the number.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Customers", pk = "customerId")]
pub struct Customers;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Customers, entity = "Customer", pk = "{customer_id}")]
pub struct Customer {
    pub customer_id: u64,
    pub name: String,
}

fn main() {}
