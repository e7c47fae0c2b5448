// A unique constraint names stored fields ddb does not write itself, each
// once; two constraints are not the same; a lookup does not take a query's
// name; no key template starts with the guard items' prefix.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(unique(emial))]
#[ddb(unique(tenant, tenant))]
#[ddb(unique())]
#[ddb(unique(handle, tenant), unique(tenant, handle))]
pub struct User {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
    pub tenant: String,
    pub handle: String,
    #[ddb(version, unique)]
    pub version: u64,
    #[serde(skip)]
    pub cache: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Team", pk = "TEAM#{id}", sk = "TEAM", query = "by_name")]
#[ddb(unique(cache))]
pub struct Team {
    pub id: String,
    #[ddb(unique)]
    pub name: String,
    #[serde(skip)]
    pub cache: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Forged", pk = "_DDB#UNIQUE#{id}", sk = "X")]
pub struct Forged {
    pub id: String,
}

fn main() {}
