//! The online store of ddb's seed articles, declared once for the examples and
//! the acceptance tests: customers, orders and order items, in a single-table
//! design ([`single_table`]) and in separate tables ([`separate_tables`]),
//! with every access pattern as a function both the examples and the tests
//! call.

pub mod catalog;
pub mod cli;
pub mod connect;
pub mod print;
pub mod seed;
pub mod separate_tables;
pub mod single_table;

use ddb_runtime::{Entity, KeySegment, Page};
use futures::{Stream, TryStreamExt};
use serde::{Deserialize, Serialize};

/// A customer id such as `123`.
#[derive(
    KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[serde(transparent)]
pub struct CustomerId(pub String);

/// An order id such as `A102`.
#[derive(
    KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[serde(transparent)]
pub struct OrderId(pub String);

/// A product id such as `P9`.
#[derive(
    KeySegment, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[serde(transparent)]
pub struct ProductId(pub String);

/// Where an order is: open orders are still being processed.
#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    /// Still being processed (`OPEN`).
    Open,
    /// Sent to the customer (`SHIPPED`).
    Shipped,
}

/// How a load went: items written, and items already there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Items written by this load.
    pub created: usize,
    /// Items found already stored, identical (a second run).
    pub already_present: usize,
}

impl Loaded {
    /// Creates every entity (idempotently), counting what was written and
    /// what was already there.
    pub async fn create_all<E: ddb_runtime::Entity + 'static>(
        &mut self,
        db: &ddb_runtime::Db,
        entities: &[E],
    ) -> ddb_runtime::Result<()> {
        for entity in entities {
            match db.create(entity).send().await? {
                ddb_runtime::Created::Created => self.created += 1,
                ddb_runtime::Created::AlreadyExisted => self.already_present += 1,
            }
        }
        Ok(())
    }
}

/// What one access pattern returned and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<T> {
    /// The items, in the order DynamoDB returned them.
    pub items: Vec<T>,
    /// Read capacity units consumed, as DynamoDB reported them.
    pub consumed_capacity: f64,
    /// Requests sent.
    pub requests: u32,
}

impl<T> Outcome<T> {
    fn new(items: Vec<T>, consumed_capacity: f64, requests: u32) -> Self {
        Self {
            items,
            consumed_capacity,
            requests,
        }
    }

    fn from_page(page: Page<T>) -> Self {
        Self::new(page.items, page.consumed_capacity.total, page.requests)
    }

    async fn from_pages(
        pages: impl Stream<Item = ddb_runtime::Result<Page<T>>>,
    ) -> ddb_runtime::Result<Self> {
        pages
            .try_fold(
                Self::new(Vec::new(), 0.0, 0),
                |mut outcome, page| async move {
                    outcome.items.extend(page.items);
                    outcome.consumed_capacity += page.consumed_capacity.total;
                    outcome.requests += page.requests;
                    Ok(outcome)
                },
            )
            .await
    }
}

/// The NoSQL Workbench model of both designs of the store, the seed's first
/// customer, orders and order items as each table's data (the store example
/// writes it to `docs/store.workbench.json`).
pub fn workbench_model() -> ddb_runtime::Result<serde_json::Value> {
    let mut entities = single_table::ENTITIES.to_vec();
    entities.extend(separate_tables::ENTITIES);
    let mut samples = Vec::new();
    let (customers, orders, lines) = single_table::seed_entities();
    samples.push((&single_table::Customer::SCHEMA, customers[0].to_item()?));
    for order in orders.iter().take(2) {
        samples.push((&single_table::Order::SCHEMA, order.to_item()?));
    }
    samples.push((&single_table::OrderItem::SCHEMA, lines[0].to_item()?));
    let (customers, orders, lines) = separate_tables::seed_entities();
    samples.push((&separate_tables::Customer::SCHEMA, customers[0].to_item()?));
    for order in orders.iter().take(2) {
        samples.push((&separate_tables::Order::SCHEMA, order.to_item()?));
    }
    samples.push((&separate_tables::OrderItem::SCHEMA, lines[0].to_item()?));
    Ok(ddb_tools::workbench("Online store", &entities, &samples))
}

/// Whether two Workbench models are the same but for the dates they were
/// written on.
pub fn same_model(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    let undated = |model: &serde_json::Value| {
        let mut model = model.clone();
        if let Some(metadata) = model["ModelMetadata"].as_object_mut() {
            metadata.remove("DateCreated");
            metadata.remove("DateLastModified");
        }
        model
    };
    undated(a) == undated(b)
}
