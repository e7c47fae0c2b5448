use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Tags", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByType", pk = "_type", sk = "TypeSK"))]
pub struct Tags;

// The index's partition key is the entity-type attribute, where ddb writes
// "Tag" on every item: a query asking for "TAG" would find nothing.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Tags, entity = "Tag", pk = "TAG#{id}", sk = "TAG")]
#[ddb(index(name = "ByType", pk = "TAG", sk = "TAG#{id}"))]
pub struct Tag {
    pub id: String,
}

fn main() {}
