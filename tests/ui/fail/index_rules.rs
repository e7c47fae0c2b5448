use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByNumber", pk = "number", pk_type = "N"))]
#[ddb(local_index(name = "ByTotal", sk = "total", sk_type = "N"))]
pub struct Orders;

// A sharded index needs a String partition key (the shard is appended as `#<shard>`).
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "Sharded", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
#[ddb(index(name = "ByNumber", pk = "{number}", shards = 4))]
pub struct Sharded {
    pub customer_id: String,
    pub order_id: String,
    pub number: u64,
}

// A local index keeps the table's partition key.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "LocalWithPk", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
#[ddb(index(name = "ByTotal", pk = "OTHER#{order_id}", sk = "{total}"))]
pub struct LocalWithPk {
    pub customer_id: String,
    pub order_id: String,
    pub total: u64,
}

// ByNumber has no sort key.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "SortOnHashOnly", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
#[ddb(index(name = "ByNumber", pk = "{number}", sk = "X#{order_id}"))]
pub struct SortOnHashOnly {
    pub customer_id: String,
    pub order_id: String,
    pub number: u64,
}

fn main() {}
