use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

// Guard items of unique values are stored as `_ddb.guard`: an entity of that
// type would read them as its own.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "_ddb.guard", pk = "USER#{id}", sk = "PROFILE", scan)]
pub struct User {
    pub id: String,
}

// `#` delimits key segments: the guards of `Order#Line` would start with
// those of `Order`, and no IAM pattern could tell them apart.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Order#Line", pk = "LINE#{id}", sk = "LINE")]
pub struct Line {
    pub id: String,
}

fn main() {}
