//! The online store on one table, `Ecommerce`.
//!
//! `cargo run --example store` starts an embedded local DynamoDB (or uses
//! `DDB_ENDPOINT`; `DDB_REAL_AWS=1` for real DynamoDB), creates the table from
//! the entities' schema if missing, writes the seed with conditional puts and
//! prints each item's keys and the access-pattern report.

use std::time::Duration;

use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::{Entity, Table};
use time::macros::datetime;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (client, _local) = ddb_examples::connect::client().await?;
    let table = Ecommerce::DEF.name;
    let created = ddb_runtime::schema::create_table_if_missing(
        &client,
        &Ecommerce::DEF,
        table,
        Duration::from_secs(120),
    )
    .await?;
    println!("table {table}: {created:?}\n");

    let customer = Customer {
        customer_id: CustomerId("123".into()),
        name: "Ada Lovelace".into(),
        email: "ada@example.com".into(),
        order_count: 3,
    };
    let order = |id: &str, at, status| Order {
        customer_id: CustomerId("123".into()),
        order_id: OrderId(id.into()),
        placed_at: at,
        status,
        total_cents: 4200,
        version: 1,
    };
    let orders = [
        order(
            "A102",
            datetime!(2026-09-10 08:12:44 UTC),
            OrderStatus::Shipped,
        ),
        order(
            "A117",
            datetime!(2026-09-18 19:03:10 UTC),
            OrderStatus::Shipped,
        ),
        order(
            "A145",
            datetime!(2026-10-02 14:31:07 UTC),
            OrderStatus::Open,
        ),
    ];
    let items =
        [("A145", "P9", 1, 1299), ("A145", "P31", 2, 450)].map(|(o, p, quantity, price_cents)| {
            OrderItem {
                order_id: OrderId(o.into()),
                product_id: ProductId(p.into()),
                quantity,
                price_cents,
            }
        });

    let mut seed = vec![customer.to_item()?];
    for order in &orders {
        seed.push(order.to_item()?);
    }
    for item in &items {
        seed.push(item.to_item()?);
    }
    println!("{:<14} {:<34} written", "PK", "SK");
    for item in seed {
        let pk = item["PK"].as_s().cloned().unwrap_or_default();
        let sk = item["SK"].as_s().cloned().unwrap_or_default();
        let written = client
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", "PK")
            .send()
            .await;
        let outcome = match written {
            Ok(_) => "created",
            Err(error)
                if error
                    .as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                "already present"
            }
            Err(error) => return Err(error.into()),
        };
        println!("{pk:<14} {sk:<34} {outcome}");
    }

    let key = Customer::key(&CustomerId("123".into()))?;
    let got = client
        .get_item()
        .table_name(table)
        .set_key(Some(key.to_item()))
        .send()
        .await?;
    let profile = got.item.map(Customer::from_item).transpose()?;
    println!(
        "\nGetItem {} / {} -> {:?}",
        key.pk(),
        key.sk().map(|k| k.as_str()).unwrap_or(""),
        profile.map(|c| c.name)
    );

    println!(
        "\n{}",
        ddb_runtime::schema::access_pattern_report(&[
            &Customer::SCHEMA,
            &Order::SCHEMA,
            &OrderItem::SCHEMA
        ])
    );
    Ok(())
}
