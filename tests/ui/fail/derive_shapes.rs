use ddb_runtime::{Collection, Entity, Projection, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "NotAStruct", pk = "CUSTOMER#{id}", sk = "PROFILE")]
pub enum NotAStruct {
    A { id: String },
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Generic", pk = "CUSTOMER#{id}", sk = "PROFILE")]
pub struct Generic<T> {
    pub id: String,
    pub extra: T,
}

#[derive(Collection)]
pub struct NotAnEnum;

#[derive(Projection, Deserialize)]
pub struct NoEntity {
    pub id: String,
}

fn main() {}
