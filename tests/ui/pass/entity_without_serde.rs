// An entity and a projection need no serde derive of their own: each field
// is written and read by the derive, and only a field type DynamoDB does not
// store as it is (a float, a nested struct, a list, a key-segment newtype)
// goes through serde.
use ddb_runtime::{Entity, KeySegment, Projection, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Shop", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Shop;

#[derive(KeySegment, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct CustomerId(pub String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub city: String,
    pub lines: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[ddb(table = Shop, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER"))]
pub struct Order {
    pub customer_id: CustomerId,
    pub order_id: String,
    pub total_cents: u64,
    pub paid: bool,
    pub note: Option<String>,
    pub weight_kg: f64,
    pub ship_to: Address,
    pub tags: Vec<String>,
}

#[derive(Projection, Debug, PartialEq)]
#[ddb(entity = Order)]
pub struct OrderTotal {
    pub order_id: String,
    pub total_cents: u64,
    pub ship_to: Address,
}

fn main() {
    let order = Order {
        customer_id: CustomerId("123".into()),
        order_id: "A1".into(),
        total_cents: 4200,
        paid: true,
        note: None,
        weight_kg: 1.5,
        ship_to: Address {
            city: "Lyon".into(),
            lines: vec!["1 rue de la Paix".into()],
        },
        tags: vec!["gift".into()],
    };
    let item = order.to_item().unwrap();
    assert_eq!(item["PK"].as_s().unwrap(), "CUSTOMER#123");
    assert_eq!(item["customer_id"].as_s().unwrap(), "123");
    assert_eq!(item["weight_kg"].as_n().unwrap(), "1.5");
    assert_eq!(item["ship_to"].as_m().unwrap()["city"].as_s().unwrap(), "Lyon");
    assert_eq!(Order::from_item(item.clone()).unwrap(), order);
    let total = <OrderTotal as Projection<Order>>::__from_item(item).unwrap();
    assert_eq!(total.total_cents, 4200);
    assert_eq!(total.ship_to, order.ship_to);
    let _query = Order::by_customer(&order.customer_id);
}
