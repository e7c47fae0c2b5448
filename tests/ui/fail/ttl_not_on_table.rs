// A #[ddb(ttl)] field on a table that does not name its time-to-live
// attribute: DynamoDB would never delete the items.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Sessions", pk = "PK")]
pub struct Sessions;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Sessions, entity = "Session", pk = "SESSION#{id}")]
pub struct Session {
    pub id: String,
    #[ddb(ttl)]
    pub expires_at: u64,
}

fn main() {}
