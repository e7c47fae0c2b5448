// `normalize = path` names a fn(&str) -> String: one of another signature
// is an error at the path.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

fn trimmed(value: &str) -> &str {
    value.trim()
}

fn owned(value: String) -> String {
    value
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(unique(tenant, handle, normalize = owned))]
pub struct User {
    pub id: String,
    #[ddb(unique(normalize = trimmed))]
    pub email: String,
    pub tenant: String,
    pub handle: String,
}

fn main() {}
