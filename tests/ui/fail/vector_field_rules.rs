// A vector field names its index and entry point, is in no key, and its
// `by` field is another field of the entity.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 2, distance = "cosine"))]
pub struct Catalog;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Keyed", pk = "KEYED#{embedding}")]
pub struct Keyed {
    #[ddb(vector(index = "ByEmbedding", search = "similar"))]
    pub embedding: Vec<f32>,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Unnamed", pk = "UNNAMED#{id}")]
pub struct Unnamed {
    pub id: String,
    #[ddb(vector(index = "ByEmbedding", by = category))]
    pub embedding: Vec<f32>,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Spaced", pk = "SPACED#{id}")]
pub struct Spaced {
    pub id: String,
    #[ddb(vector(index = "ByEmbedding", search = "find similar"))]
    pub embedding: Vec<f32>,
}

fn main() {}
