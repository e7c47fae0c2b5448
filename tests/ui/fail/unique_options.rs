// The options of unique(...) are `ignore_case`, `normalize = path` and
// `allow_empty`: an unknown key lists them, a flag takes no value, and
// `normalize` names a function.
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
#[ddb(unique(tenant, handle, normalise = trimmed))]
#[ddb(unique(tenant, nick, ignore_cas))]
#[ddb(unique(tenant, email, allow_empty = true))]
pub struct User {
    pub id: String,
    #[ddb(unique(ignorecase))]
    pub email: String,
    #[ddb(unique(normalize))]
    pub login: String,
    #[ddb(unique(handle))]
    pub phone: String,
    pub tenant: String,
    pub handle: String,
    pub nick: String,
}

fn main() {}
