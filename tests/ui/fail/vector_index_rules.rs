// A vector index declaration DynamoDB would refuse, or that cannot hold
// vectors, is refused at the attribute at fault.
use ddb_runtime::Table;

#[derive(Table)]
#[ddb(name = "NoDimensions", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", distance = "cosine"))]
pub struct NoDimensions;

#[derive(Table)]
#[ddb(name = "TooManyDimensions", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 5000, distance = "cosine"))]
pub struct TooManyDimensions;

#[derive(Table)]
#[ddb(name = "UnknownDistance", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 4, distance = "manhattan"))]
pub struct UnknownDistance;

#[derive(Table)]
#[ddb(name = "VectorInKey", pk = "PK", sk = "SK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "SK", dimensions = 4, distance = "cosine"))]
pub struct VectorInKey;

#[derive(Table)]
#[ddb(name = "HashTwice", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 4, distance = "cosine", hash = "category", filters("category")))]
pub struct HashTwice;

#[derive(Table)]
#[ddb(name = "TypedTwice", pk = "PK")]
#[ddb(index(name = "GSI1", pk = "category", pk_type = "N"))]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 4, distance = "cosine", hash = "category"))]
pub struct TypedTwice;

#[derive(Table)]
#[ddb(name = "TwoCounts", pk = "PK")]
#[ddb(vector_index(name = "Small", vector = "embedding", dimensions = 4, distance = "cosine"))]
#[ddb(vector_index(name = "Large", vector = "embedding", dimensions = 8, distance = "euclidean"))]
pub struct TwoCounts;

#[derive(Table)]
#[ddb(name = "TwoRoles", pk = "PK")]
#[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 4, distance = "cosine"))]
#[ddb(vector_index(name = "ByOther", vector = "other", dimensions = 4, distance = "cosine", filters("embedding", "_type: N")))]
pub struct TwoRoles;

fn main() {}
