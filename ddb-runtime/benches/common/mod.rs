//! The order of the seed articles' store, its item written and read by hand:
//! the model both benches measure ddb against.

#![allow(dead_code)]

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::{Entity, KeySegment, Table};
use serde::{Deserialize, Serialize};
use time::macros::datetime;

/// An item as the SDK holds it.
pub type Item = HashMap<String, AttributeValue>;

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Ecommerce;

#[derive(KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(transparent)]
pub struct CustomerId(pub String);

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}",
      query = "by_customer")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER"))]
pub struct Order {
    pub customer_id: CustomerId,
    pub order_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub placed_at: time::OffsetDateTime,
    pub status: String,
    pub total_cents: u64,
    #[ddb(version)]
    pub version: u64,
}

pub fn order() -> Order {
    Order {
        customer_id: CustomerId("123".into()),
        order_id: "A102".into(),
        placed_at: datetime!(2026-09-10 08:12:44 UTC),
        status: "SHIPPED".into(),
        total_cents: 4200,
        version: 3,
    }
}

/// What a hand-written conversion of the same item does.
pub fn by_hand(order: &Order) -> HashMap<String, AttributeValue> {
    let at = order
        .placed_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    HashMap::from([
        (
            "PK".to_owned(),
            AttributeValue::S(format!("CUSTOMER#{}", order.customer_id.0)),
        ),
        (
            "SK".to_owned(),
            AttributeValue::S(format!("ORDER#{at}#{}", order.order_id)),
        ),
        (
            "GSI1PK".to_owned(),
            AttributeValue::S(format!("ORDER#{}", order.order_id)),
        ),
        ("GSI1SK".to_owned(), AttributeValue::S("ORDER".into())),
        ("_type".to_owned(), AttributeValue::S("Order".into())),
        (
            "customer_id".to_owned(),
            AttributeValue::S(order.customer_id.0.clone()),
        ),
        (
            "order_id".to_owned(),
            AttributeValue::S(order.order_id.clone()),
        ),
        ("placed_at".to_owned(), AttributeValue::S(at)),
        ("status".to_owned(), AttributeValue::S(order.status.clone())),
        (
            "total_cents".to_owned(),
            AttributeValue::N(order.total_cents.to_string()),
        ),
        (
            "version".to_owned(),
            AttributeValue::N(order.version.to_string()),
        ),
    ])
}

/// What a hand-written decoding of the same item does.
pub fn from_hand(item: HashMap<String, AttributeValue>) -> Option<Order> {
    let text = |name: &str| item.get(name)?.as_s().ok().cloned();
    let number = |name: &str| item.get(name)?.as_n().ok()?.parse::<u64>().ok();
    if text("_type")? != "Order" {
        return None;
    }
    Some(Order {
        customer_id: CustomerId(text("customer_id")?),
        order_id: text("order_id")?,
        placed_at: time::OffsetDateTime::parse(
            &text("placed_at")?,
            &time::format_description::well_known::Rfc3339,
        )
        .ok()?,
        status: text("status")?,
        total_cents: number("total_cents")?,
        version: number("version")?,
    })
}
