// The seed's separate tables compile: Customers keyed by the raw customerId
// (here a Number), Orders, OrderItems with ProductOrdersIndex, and an LSI.
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Customers", pk = "customerId", pk_type = "N")]
pub struct Customers;

#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK")]
#[ddb(index(name = "OrderIdIndex", pk = "orderId", projection = "keys_only"))]
#[ddb(local_index(name = "ByTotal", sk = "totalCents", sk_type = "N"))]
pub struct Orders;

#[derive(Table)]
#[ddb(name = "OrderItems", pk = "PK", sk = "SK")]
#[ddb(index(name = "ProductOrdersIndex", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct OrderItems;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Customers, entity = "Customer", pk = "{customer_id}")]
pub struct Customer {
    pub customer_id: u64,
    pub name: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[ddb(table = Orders, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "{placed_at}#{order_id}")]
#[ddb(index(name = "OrderIdIndex", pk = "{order_id}"))]
#[ddb(index(name = "ByTotal", sk = "{total_cents}"))]
pub struct Order {
    pub customer_id: u64,
    pub order_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub placed_at: time::OffsetDateTime,
    pub total_cents: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = OrderItems, entity = "OrderItem", pk = "ORDER#{order_id}", sk = "PRODUCT#{product_id}")]
#[ddb(index(name = "ProductOrdersIndex", pk = "PRODUCT#{product_id}", sk = "ORDER#{order_id}"))]
pub struct OrderItem {
    pub order_id: String,
    pub product_id: String,
}

fn main() {
    let key = Customer::key(&123).unwrap();
    assert_eq!(key.pk(), &ddb_runtime::KeyValue::N("123".into()));
}
