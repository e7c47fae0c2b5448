//! The online store on three tables, `Customers`, `Orders` and `OrderItems`,
//! as the seed first draws them.
//!
//! `cargo run --example store_tables`: the same data and access patterns as
//! `--example store`; a customer's profile and orders together take two
//! requests here instead of one Query.

use ddb_examples::print::{cost, order_row, table, totals, ORDER_COLUMNS};
use ddb_examples::separate_tables as store;
use ddb_examples::OrderStatus;
use ddb_runtime::Db;
use time::macros::datetime;

fn order_rows(orders: &[store::Order]) -> Vec<Vec<String>> {
    orders
        .iter()
        .map(|o| {
            order_row(
                &o.order_id.0,
                &o.customer_id.0,
                o.placed_at,
                o.status,
                o.total_cents,
            )
        })
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (client, target, _local) = ddb_examples::connect::client().await?;
    // The example prints each access pattern's read units: it asks for them.
    let db = Db::new(client).with_return_consumed_capacity();
    println!("ddb online store, tables Customers, Orders, OrderItems on {target:?}\n");

    let loaded = store::load(&db).await?;
    println!(
        "seed: {} item(s) created, {} already present\n",
        loaded.created, loaded.already_present
    );
    let mut costs: Vec<Vec<String>> = Vec::new();
    let mut record = |pattern: &str, footer: String| costs.push(vec![pattern.to_owned(), footer]);

    let profile = store::customer_profile(&db, "123").await?;
    let rows = profile
        .items
        .iter()
        .map(|c| vec![c.customer_id.0.clone(), c.name.clone()])
        .collect::<Vec<_>>();
    println!(
        "{}",
        table(
            "Customer profile of 123 (GetItem Customers)",
            &["customer", "name"],
            &rows,
            &cost(&profile)
        )
    );
    record("customer profile", cost(&profile));

    let latest = store::latest_orders(&db, "456", 20).await?;
    println!(
        "{}",
        table(
            "Latest 20 orders of 456, newest first (Query Orders)",
            &ORDER_COLUMNS,
            &order_rows(&latest.items),
            &cost(&latest)
        )
    );
    record("latest 20 orders", cost(&latest));

    let between = store::orders_between(
        &db,
        "123",
        datetime!(2026-09-10 00:00:00 UTC),
        datetime!(2026-09-30 23:59:59 UTC),
    )
    .await?;
    println!(
        "{}",
        table(
            "Orders of 123 in September 2026 (Query Orders, BETWEEN)",
            &ORDER_COLUMNS,
            &order_rows(&between.items),
            &cost(&between)
        )
    );
    record("orders between dates", cost(&between));

    let by_id = store::order_by_id(&db, "A145").await?;
    println!(
        "{}",
        table(
            "Order A145 by id (Query OrderIdIndex)",
            &ORDER_COLUMNS,
            &order_rows(&by_id.items),
            &cost(&by_id)
        )
    );
    record("order by id", cost(&by_id));

    let open = store::open_orders(&db).await?;
    let rows = open
        .items
        .iter()
        .map(|o| {
            vec![
                o.order_id.0.clone(),
                o.customer_id.0.clone(),
                ddb_examples::print::at(o.placed_at),
            ]
        })
        .collect::<Vec<_>>();
    println!(
        "{}",
        table(
            "Open orders (Query StatusIndex, 4 shards merged)",
            &["order", "customer", "placed at"],
            &rows,
            &cost(&open)
        )
    );
    record("open orders", cost(&open));

    let shipped = store::orders_in_status(&db, "123", OrderStatus::Shipped).await?;
    println!(
        "{}",
        table(
            "Customer 123's shipped orders, newest first (Query CustomerStatusIndex, multi-attribute key)",
            &ORDER_COLUMNS,
            &order_rows(&shipped.items),
            &cost(&shipped)
        )
    );
    record("orders in a status", cost(&shipped));

    let item_columns = ["order", "product", "quantity"];
    let item_rows = |items: &[store::OrderItem]| {
        items
            .iter()
            .map(|i| {
                vec![
                    i.order_id.0.clone(),
                    i.product_id.0.clone(),
                    i.quantity.to_string(),
                ]
            })
            .collect::<Vec<_>>()
    };
    let products = store::products_of_order(&db, "A145").await?;
    println!(
        "{}",
        table(
            "Products of order A145 (Query OrderItems)",
            &item_columns,
            &item_rows(&products.items),
            &cost(&products)
        )
    );
    record("products of an order", cost(&products));

    let orders = store::orders_of_product(&db, "P9").await?;
    println!(
        "{}",
        table(
            "Orders containing P9 (Query ProductOrdersIndex)",
            &item_columns,
            &item_rows(&orders.items),
            &cost(&orders)
        )
    );
    record("orders of a product", cost(&orders));

    let (profile, orders) = store::profile_and_orders(&db, "123").await?;
    let mut rows: Vec<Vec<String>> = profile
        .items
        .iter()
        .map(|c| vec!["profile".into(), c.name.clone()])
        .collect();
    rows.extend(orders.items.iter().map(|o| {
        vec![
            "order".into(),
            format!(
                "{} at {}",
                o.order_id.0,
                ddb_examples::print::at(o.placed_at)
            ),
        ]
    }));
    let both = totals(
        rows.len(),
        profile.consumed_capacity + orders.consumed_capacity,
        profile.requests + orders.requests,
    );
    println!(
        "{}",
        table(
            "Profile and orders of 123 (GetItem + Query: two tables)",
            &["item", "detail"],
            &rows,
            &both
        )
    );
    record("profile and orders", both);

    println!(
        "{}",
        table(
            "Read cost per access pattern",
            &["pattern", "cost"],
            &costs,
            ""
        )
    );
    println!("Access patterns (generated from the declarations)\n");
    println!("{}", ddb_tools::access_pattern_report(&store::ENTITIES));
    Ok(())
}
