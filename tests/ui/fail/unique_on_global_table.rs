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

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK", multi_region_consistency = "strong")]
pub struct Accounts;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Account", pk = "ACCOUNT#{id}", sk = "ACCOUNT")]
pub struct Account {
    id: String,
    #[ddb(unique)]
    email: String,
}

fn main() {}
