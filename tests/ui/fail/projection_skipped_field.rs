// A projection reading a field the entity never stores (#[serde(skip)]).
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Carts", pk = "PK")]
pub struct Carts;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Carts, entity = "Cart", pk = "CART#{id}")]
pub struct Cart {
    pub id: String,
    #[serde(skip)]
    pub cached_total: u64,
}

#[derive(ddb_runtime::Projection, Deserialize)]
#[ddb(entity = Cart)]
pub struct Total {
    pub cached_total: u64,
}

fn main() {}
