// What the derives refuse in a multi-attribute key, before any type is known.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK")]
// Five partition attributes: DynamoDB takes at most four.
#[ddb(index(name = "TooMany", pk("a", "b", "c", "d", "e")))]
// An attribute named twice.
#[ddb(index(name = "Twice", pk("customerId"), sk("customerId")))]
// A list with a separate type.
#[ddb(index(name = "Typed", pk("customerId"), pk_type = "N", sk("placedAt")))]
// One attribute with two types; the table's own sort key in a list.
#[ddb(index(name = "Retyped", pk("customerId"), sk("placedAt: N")))]
#[ddb(index(name = "OwnKey", pk("SK")))]
pub struct Orders;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
// A field that does not exist.
#[ddb(index(name = "ByStatus", pk(customer_id, stauts), query = "by_status"))]
// Fields and a template at once.
#[ddb(index(name = "Mixed", pk(customer_id), sk = "{order_id}"))]
// Sharding and a membership rule: the attributes are the key.
#[ddb(index(name = "Sharded", pk(status), shards = 4, when(status = 1)))]
// A field ddb stamps at each write.
#[ddb(index(name = "Stamped", pk(customer_id), sk(updated_at)))]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub status: String,
    #[ddb(updated_at)]
    pub updated_at: u64,
}

fn main() {}
