use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Tags", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByType", pk = "_type", sk = "TypeSK"))]
pub struct Tags;

// The template is the entity type, but a shard would be appended to it
// ("Tag#3") where ddb writes "Tag".
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Tags, entity = "Tag", pk = "TAG#{id}", sk = "TAG")]
#[ddb(index(name = "ByType", pk = "Tag", sk = "TAG#{id}", shards = 4))]
pub struct Tag {
    pub id: String,
}

fn main() {}
