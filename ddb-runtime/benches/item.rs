//! Key building and item conversion, the CPU work ddb adds to every request.
//!
//! `cargo bench -p ddb-runtime --features time`. The hand-written conversion
//! of the same item, both ways, is the baseline of the generated one.

use std::collections::HashMap;
use std::hint::black_box;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{criterion_group, criterion_main, Criterion};
use ddb_runtime::{Entity, KeySegment, Table};
use serde::{Deserialize, Serialize};
use time::macros::datetime;

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Ecommerce;

#[derive(KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(transparent)]
struct CustomerId(String);

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Ecommerce, pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER"))]
struct Order {
    customer_id: CustomerId,
    order_id: String,
    #[serde(with = "time::serde::rfc3339")]
    placed_at: time::OffsetDateTime,
    status: String,
    total_cents: u64,
    #[ddb(version)]
    version: u64,
}

fn order() -> Order {
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
fn by_hand(order: &Order) -> HashMap<String, AttributeValue> {
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
fn from_hand(item: HashMap<String, AttributeValue>) -> Option<Order> {
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

fn bench(c: &mut Criterion) {
    let order = order();
    let item = order.to_item().unwrap();
    let key = order.primary_key().unwrap();
    c.bench_function("primary key (composite, timestamp)", |b| {
        b.iter(|| {
            Order::key(
                black_box(&order.customer_id),
                black_box(&order.placed_at),
                black_box(&order.order_id),
            )
        })
    });
    c.bench_function("parse_key", |b| {
        b.iter(|| Order::parse_key(black_box(&key)))
    });
    c.bench_function("to_item (generated + keys)", |b| {
        b.iter(|| black_box(&order).to_item())
    });
    c.bench_function("to_item by hand (baseline)", |b| {
        b.iter(|| by_hand(black_box(&order)))
    });
    c.bench_function("from_item (generated)", |b| {
        b.iter(|| Order::from_item(black_box(item.clone())))
    });
    c.bench_function("from_item by hand (baseline)", |b| {
        b.iter(|| from_hand(black_box(item.clone())))
    });
    c.bench_function("item clone (from_item's input cost)", |b| {
        b.iter(|| black_box(&item).clone())
    });
    let key = &b"0123456789abcdef0123456789abcdef"[..];
    for (name, cursor) in [
        ("cursor", ddb_runtime::__private::CursorBench::new(None)),
        (
            "cursor signed (HMAC-SHA256)",
            ddb_runtime::__private::CursorBench::new(Some(key)),
        ),
        (
            "cursor encrypted (AES-256-GCM-SIV)",
            ddb_runtime::__private::CursorBench::encrypted(key),
        ),
    ] {
        let encoded = cursor.encode();
        c.bench_function(&format!("{name}: encode"), |b| b.iter(|| cursor.encode()));
        c.bench_function(&format!("{name}: decode"), |b| {
            b.iter(|| cursor.decode(black_box(&encoded)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
