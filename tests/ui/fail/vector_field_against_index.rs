// A vector field is checked against the table's vector index: the index
// exists, an array has its dimensions, the search names the hash field the
// index partitions by, and the field holds 32-bit floats.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 4, distance = "cosine", hash = "category"))]
pub struct Catalog;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Undeclared", pk = "UNDECLARED#{id}")]
pub struct Undeclared {
    pub id: String,
    pub category: String,
    #[ddb(vector(index = "ByPicture", search = "similar", by = category))]
    pub embedding: Vec<f32>,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Short", pk = "SHORT#{id}")]
pub struct Short {
    pub id: String,
    pub category: String,
    #[ddb(vector(index = "ByEmbedding", search = "similar", by = category))]
    pub embedding: [f32; 3],
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Everywhere", pk = "EVERYWHERE#{id}")]
pub struct Everywhere {
    pub id: String,
    #[ddb(vector(index = "ByEmbedding", search = "similar"))]
    pub embedding: Vec<f32>,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Catalog, entity = "Words", pk = "WORDS#{id}")]
pub struct Words {
    pub id: String,
    pub category: String,
    #[ddb(vector(index = "ByEmbedding", search = "similar", by = category))]
    pub embedding: Vec<String>,
}

fn main() {}
