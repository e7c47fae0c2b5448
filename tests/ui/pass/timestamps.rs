// created_at / updated_at in epoch seconds or ddb's Timestamp, ttl in epoch seconds.
use ddb_runtime::{Entity, Table, Timestamp};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Sessions", pk = "PK", ttl = "expires")]
pub struct Sessions;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Sessions, entity = "Session", pk = "SESSION#{id}")]
pub struct Session {
    pub id: String,
    #[ddb(created_at)]
    pub created: Option<Timestamp>,
    #[ddb(updated_at)]
    pub updated: u64,
    #[ddb(ttl)]
    pub expires: Option<i64>,
}

fn main() {
    let stamps = Session::stamps(true, std::time::UNIX_EPOCH);
    assert_eq!(stamps.len(), 2);
}
