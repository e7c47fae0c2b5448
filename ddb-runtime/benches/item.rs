//! Key building and item conversion, the CPU work ddb adds to every request.
//!
//! `cargo bench -p ddb-runtime --features time`. The hand-written conversion
//! of the same item, both ways, is the baseline of the generated one.

use std::hint::black_box;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{criterion_group, criterion_main, Criterion};
use ddb_runtime::Entity;
use time::format_description::well_known::Rfc3339;

mod common;
use common::{by_hand, from_hand, order, Order};

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
    c.bench_function("to_item serde_dynamo (fields only, no keys)", |b| {
        b.iter(|| serde_dynamo::to_item::<_, common::Item>(black_box(&order)))
    });
    c.bench_function("to_item serde_dynamo + keys by hand", |b| {
        b.iter(|| {
            let order = black_box(&order);
            let mut item: common::Item = serde_dynamo::to_item(order).unwrap();
            let at = order.placed_at.format(&Rfc3339).unwrap();
            let id = &order.order_id;
            let keys = [
                ("PK", format!("CUSTOMER#{}", order.customer_id.0)),
                ("SK", format!("ORDER#{at}#{id}")),
                ("GSI1PK", format!("ORDER#{id}")),
                ("GSI1SK", "ORDER".to_owned()),
                ("_type", "Order".to_owned()),
            ];
            for (name, value) in keys {
                item.insert(name.to_owned(), AttributeValue::S(value));
            }
            item
        })
    });
    c.bench_function("from_item serde_dynamo", |b| {
        b.iter(|| serde_dynamo::from_item::<_, Order>(black_box(item.clone())))
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
