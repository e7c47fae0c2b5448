// A multi-attribute key checked against the table's index.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByStatus", pk("customerId", "status"), sk("placedAt: N")))]
#[ddb(index(name = "ByTotal", pk("customerId"), sk("totalCents: N")))]
#[ddb(index(name = "ByRef", pk = "refId"))]
pub struct Orders;

// Fields out of the table's order.
#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
#[ddb(index(name = "ByStatus", pk(status, customer_id), sk(placed_at)))]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub status: String,
    pub placed_at: u64,
}

// A text field on a Number attribute.
#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Total", pk = "CUSTOMER#{customer_id}", sk = "TOTAL#{order_id}")]
#[ddb(index(name = "ByTotal", pk(customer_id), sk(total_cents)))]
pub struct Total {
    pub customer_id: String,
    pub order_id: String,
    pub total_cents: String,
}

// Templates on an index the table keys by several attributes.
#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Note", pk = "CUSTOMER#{customer_id}", sk = "NOTE#{order_id}")]
#[ddb(index(name = "ByStatus", pk = "{customer_id}", sk = "{order_id}"))]
pub struct Note {
    pub customer_id: String,
    pub order_id: String,
}

// Fields on an index the table keys by a template's attribute.
#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Ref", pk = "CUSTOMER#{customer_id}", sk = "REF#{order_id}")]
#[ddb(index(name = "ByRef", pk(order_id)))]
pub struct Ref {
    pub customer_id: String,
    pub order_id: String,
}

fn main() {}
