// `ignore_case` and `normalize` are not combined: the function lowercases.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

fn trimmed(value: &str) -> String {
    value.trim().to_owned()
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(unique(tenant, handle, normalize = trimmed, ignore_case))]
pub struct User {
    pub id: String,
    #[ddb(unique(ignore_case, normalize = trimmed))]
    pub email: String,
    pub tenant: String,
    pub handle: String,
}

fn main() {}
