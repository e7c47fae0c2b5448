use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Sessions", pk = "PK", ttl = "expires")]
pub struct Sessions;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Sessions, entity = "Session", pk = "SESSION#{id}")]
pub struct Session {
    pub id: String,
    #[ddb(created_at)]
    pub created: String,
    #[ddb(ttl)]
    pub expires: f64,
}

fn main() {}
