// Guard items are keyed by text: a table keyed by a Number cannot hold
// them, so an entity of it cannot declare unique fields.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Counters", pk = "id", pk_type = "N")]
pub struct Counters;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Counters, entity = "Counter", pk = "{id}")]
pub struct Counter {
    pub id: u64,
    #[ddb(unique)]
    pub name: String,
}

fn main() {}
