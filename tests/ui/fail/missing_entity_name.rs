// The stored entity type is named explicitly: a name taken from the struct
// would hide every stored item when the struct is renamed.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
pub struct Member {
    pub customer_id: String,
}

fn main() {}
