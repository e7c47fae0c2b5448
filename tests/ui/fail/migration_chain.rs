use ddb_runtime::{Entity, Item, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

fn step(_: &mut Item) -> Result<(), String> {
    Ok(())
}

// A gap: nothing takes an item from version 2 to 3.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Gap", pk = "USER#{id}", sk = "PROFILE", schema_version = 3)]
#[ddb(migrate(from = 1, with = step))]
pub struct Gap {
    pub id: String,
}

// A migration that does not lead to a newer version.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "NotIncreasing", pk = "USER#{id}", sk = "PROFILE", schema_version = 2)]
#[ddb(migrate(from = 1, with = step), migrate(from = 2, with = step))]
pub struct NotIncreasing {
    pub id: String,
}

// Two migrations from one version.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Twice", pk = "USER#{id}", sk = "PROFILE", schema_version = 2)]
#[ddb(migrate(from = 1, with = step), migrate(from = 1, with = step))]
pub struct Twice {
    pub id: String,
}

// Migrations without a schema version.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Unversioned", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(migrate(from = 1, with = step))]
pub struct Unversioned {
    pub id: String,
}

// Version 0, and a migration missing its function.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "Zero", pk = "USER#{id}", sk = "PROFILE", schema_version = 0)]
pub struct Zero {
    pub id: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "NoFunction", pk = "USER#{id}", sk = "PROFILE", schema_version = 2)]
#[ddb(migrate(from = 1))]
pub struct NoFunction {
    pub id: String,
}

fn main() {}
