use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(
    name = "Users",
    pk = "PK",
    sk = "SK",
    stream = "new_and_old_images",
    multi_region_consistency = "eventual"
)]
pub struct Users;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Users, entity = "User", pk = "USER#{id}", sk = "USER")]
pub struct User {
    id: String,
    #[ddb(unique)]
    email: String,
}

fn main() {}
