// What only generated code may do is not public: making an attribute handle
// by name (which would bypass the rule that key fields are not updatable),
// making a key from any values or a query key from any partition, and
// ddb's expression, check, cursor-signing and key-writing internals.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
pub struct Ecommerce;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
}

fn main() {
    let _ = ddb_runtime::Attr::<Order, String>::new("PK");
    let _ = ddb_runtime::Key::<Order>::from_values(ddb_runtime::KeyValues {
        pk: ddb_runtime::KeyValue::S("anything".into()),
        sk: None,
    });
    let _ = ddb_runtime::expr::Placeholders::default();
    let _ = ddb_runtime::check::str_eq("a", "b");
    let _ = ddb_runtime::QueryKey::<Order, (), ddb_runtime::query::TableIndex, ddb_runtime::query::Full, 0>::new;
    let _ = ddb_runtime::cursor::CursorKeys::new;
    let _ = ddb_runtime::key::KeyWriter::new;
}
