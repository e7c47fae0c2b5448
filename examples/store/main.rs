//! The online store on one table, `Ecommerce`.
//!
//! `cargo run --example store` starts an embedded local DynamoDB (or uses
//! `DDB_ENDPOINT`; `DDB_REAL_AWS=1` for real DynamoDB), creates the table from
//! the entities' schema if missing, loads the seed with idempotent creates,
//! runs every access pattern and prints its results and read cost, backfills
//! the open-orders index of orders stored before it existed (with a progress
//! bar in a terminal), then prints the access-pattern report, and writes the
//! NoSQL Workbench model of both designs to `docs/store.workbench.json`.

use ddb_examples::print::{cost, order_row, table, ORDER_COLUMNS};
use ddb_examples::single_table::{self as store, CustomerItem, Ecommerce};
use ddb_runtime::{Db, Table};
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
    println!(
        "ddb online store, single table `{}` on {target:?}\n",
        Ecommerce::DEF.name
    );

    let loaded = store::load(&db).await?;
    println!(
        "seed: {} item(s) created, {} already present\n",
        loaded.created, loaded.already_present
    );
    let mut costs: Vec<Vec<String>> = Vec::new();
    let mut record =
        |pattern: &str, footer: &str| costs.push(vec![pattern.to_owned(), footer.to_owned()]);

    let profile = store::customer_profile(&db, "123").await?;
    let rows = profile
        .items
        .iter()
        .map(|c| {
            vec![
                c.customer_id.0.clone(),
                c.name.clone(),
                c.order_count.to_string(),
            ]
        })
        .collect::<Vec<_>>();
    println!(
        "{}",
        table(
            "Customer profile of 123 (GetItem)",
            &["customer", "name", "orders"],
            &rows,
            &cost(&profile)
        )
    );
    record("customer profile", &cost(&profile));

    let latest = store::latest_orders(&db, "456", 20).await?;
    println!(
        "{}",
        table(
            "Latest 20 orders of 456, newest first (Query)",
            &ORDER_COLUMNS,
            &order_rows(&latest.items),
            &cost(&latest)
        )
    );
    record("latest 20 orders", &cost(&latest));

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
            "Orders of 123 in September 2026 (Query, BETWEEN)",
            &ORDER_COLUMNS,
            &order_rows(&between.items),
            &cost(&between)
        )
    );
    record("orders between dates", &cost(&between));

    let by_id = store::order_by_id(&db, "A145").await?;
    println!(
        "{}",
        table(
            "Order A145 by id (Query GSI1)",
            &ORDER_COLUMNS,
            &order_rows(&by_id.items),
            &cost(&by_id)
        )
    );
    record("order by id", &cost(&by_id));

    let open = store::open_orders(&db).await?;
    let rows = open
        .items
        .iter()
        .map(|o| {
            vec![
                o.order_id.0.clone(),
                o.customer_id.0.clone(),
                ddb_examples::print::at(o.placed_at),
                format!("{:.2}", o.total_cents as f64 / 100.0),
            ]
        })
        .collect::<Vec<_>>();
    println!(
        "{}",
        table(
            "Open orders (Query GSI2, 4 shards merged)",
            &["order", "customer", "placed at", "total"],
            &rows,
            &cost(&open)
        )
    );
    record("open orders", &cost(&open));

    let products = store::products_of_order(&db, "A145").await?;
    let item_rows = |items: &[store::OrderItem]| {
        items
            .iter()
            .map(|i| {
                vec![
                    i.order_id.0.clone(),
                    i.product_id.0.clone(),
                    i.quantity.to_string(),
                    format!("{:.2}", i.price_cents as f64 / 100.0),
                ]
            })
            .collect::<Vec<_>>()
    };
    let item_columns = ["order", "product", "quantity", "price"];
    println!(
        "{}",
        table(
            "Products of order A145 (Query)",
            &item_columns,
            &item_rows(&products.items),
            &cost(&products)
        )
    );
    record("products of an order", &cost(&products));

    let orders = store::orders_of_product(&db, "P9").await?;
    println!(
        "{}",
        table(
            "Orders containing P9 (Query GSI1)",
            &item_columns,
            &item_rows(&orders.items),
            &cost(&orders)
        )
    );
    record("orders of a product", &cost(&orders));

    let collection = store::profile_and_orders(&db, "123").await?;
    let rows = collection
        .items
        .iter()
        .map(|item| match item {
            CustomerItem::Profile(c) => vec!["profile".into(), c.name.clone()],
            CustomerItem::Order(o) => vec![
                "order".into(),
                format!(
                    "{} at {}",
                    o.order_id.0,
                    ddb_examples::print::at(o.placed_at)
                ),
            ],
        })
        .collect::<Vec<_>>();
    println!(
        "{}",
        table(
            "Profile and orders of 123 together (one Query)",
            &["item", "detail"],
            &rows,
            &cost(&collection)
        )
    );
    record("profile and orders", &cost(&collection));

    place_an_order(&db).await?;
    similar_products(&db).await?;
    backfill_open_orders(&db).await?;

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

    // What each entity's writes and each page of reads cost, from the seed.
    let (customers, orders, lines) = store::seed_entities();
    use ddb_runtime::Entity as _;
    let samples = [
        (&store::Customer::SCHEMA, customers[0].to_item()?),
        (&store::Order::SCHEMA, orders[0].to_item()?),
        (&store::OrderItem::SCHEMA, lines[0].to_item()?),
    ];
    println!("Capacity per access pattern (from seed items)\n");
    println!("{}", ddb_tools::cost::cost_report(&samples, 100));

    // Least privilege for a customer acting on their own data: the
    // partitions of their customer id (an IAM principal tag), and what IAM
    // cannot scope left out.
    use ddb_tools::iam::{Access, PolicyBuilder};
    let policy = PolicyBuilder::new(format!(
        "arn:aws:dynamodb:*:*:table/{}",
        Ecommerce::DEF.name
    ))
    .entity(&store::Customer::SCHEMA, Access::ReadWrite)
    .entity(&store::Order::SCHEMA, Access::ReadWrite)
    .entity(&store::OrderItem::SCHEMA, Access::Read)
    .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
    .build()?;
    println!("IAM policy for a customer's own data (generated from the declarations)\n");
    println!("{policy}");

    // Both designs as a NoSQL Workbench model, with the seed as its data.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/store.workbench.json");
    let model = ddb_examples::workbench_model()?;
    let written = std::fs::read_to_string(path).ok();
    let unchanged = written
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|old| ddb_examples::same_model(&old, &model));
    if unchanged {
        println!("NoSQL Workbench model of both designs: docs/store.workbench.json is current");
    } else {
        std::fs::write(path, serde_json::to_string_pretty(&model)? + "\n")?;
        println!("NoSQL Workbench model of both designs written to docs/store.workbench.json");
    }
    Ok(())
}

/// "Products like this one, in stock": a vector search of the catalogue,
/// within the product's category.
async fn similar_products(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    use ddb_examples::catalog;
    catalog::load(db).await?;
    let lamp = &catalog::products()[0];
    let found = catalog::similar_in_stock(db, lamp, 3).await?;
    let rows = found
        .results
        .iter()
        .map(|hit| {
            vec![
                hit.item.product_id.0.clone(),
                hit.item.name.clone(),
                format!("{:.4}", hit.score),
            ]
        })
        .collect::<Vec<_>>();
    println!(
        "{}",
        table(
            &format!(
                "Products like `{}`, in stock (SearchVectors, cosine)",
                lamp.name
            ),
            &["product", "name", "score (0 = same)"],
            &rows,
            &format!("{} search bytes", found.search_bytes)
        )
    );
    Ok(())
}

/// "Place an order", sent twice as a client retrying after a timeout would:
/// the second call, with a new server timestamp, reports the first order.
/// The request id is fixed: run again on the same table, both calls report
/// the first run's order.
async fn place_an_order(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    let store::Checkout { first, retry } = store::checkout(db).await?;
    let key = |k: &ddb_runtime::Key<store::Order>| {
        k.values()
            .sk
            .as_ref()
            .map(|sk| sk.to_string())
            .unwrap_or_default()
    };
    let rows = vec![
        vec![
            "first call".to_owned(),
            format!("{:?}", first.created),
            key(&first.key),
        ],
        vec![
            "retry".to_owned(),
            format!("{:?}", retry.created),
            key(&retry.key),
        ],
    ];
    println!(
        "{}",
        table(
            "Place an order under an idempotency key, then retry it (TransactWriteItems each)",
            &["call", "outcome", "order key"],
            &rows,
            "a retry writes nothing: one order, under the first call's key (run again, both calls are retries)"
        )
    );
    Ok(())
}

/// Changing the design after launch: orders stored before the open-orders
/// index (GSI2) existed lack its attributes, and the dashboard does not see
/// them until a backfill writes them.
async fn backfill_open_orders(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    // Stand-in for orders written by the first version of the code: the
    // plain SDK takes GSI2's attributes off the open orders.
    let open = store::open_orders(db).await?.items;
    for order in &open {
        let key = store::Order::key(&order.customer_id, &order.placed_at, &order.order_id)?;
        db.client()
            .update_item()
            .table_name(db.table_name::<Ecommerce>())
            .set_key(Some(key.to_item()))
            .update_expression("REMOVE GSI2PK, GSI2SK")
            .send()
            .await?;
    }
    let unseen = store::open_orders(db).await?.items.len();

    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(indicatif::ProgressStyle::with_template(
        "backfill {bar:30} {pos}/{len} items scanned, {msg}",
    )?);
    let shown = bar.clone();
    let done = db
        .backfill::<store::Order>()
        .segments(2)
        .page_size(10)
        .on_progress(move |p| {
            shown.set_length(p.table_items.unwrap_or(p.scanned).max(p.scanned));
            shown.set_position(p.scanned);
            shown.set_message(format!("{} written", p.updated));
        })
        .send()
        .await?;
    bar.finish_and_clear();
    let seen = store::open_orders(db).await?.items.len();
    let rows = vec![vec![
        format!("{} of {}", unseen, open.len()),
        done.scanned.to_string(),
        done.updated.to_string(),
        done.skipped.to_string(),
        format!("{:.1}", done.consumed_capacity.total),
        format!("{} of {}", seen, open.len()),
    ]];
    println!(
        "{}",
        table(
            "Backfill of the open-orders index (Scan in 2 segments, UpdateItem per stale order)",
            &[
                "open orders seen before",
                "scanned",
                "written",
                "already right",
                "capacity units",
                "seen after"
            ],
            &rows,
            ""
        )
    );
    Ok(())
}
