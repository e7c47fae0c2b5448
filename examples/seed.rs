//! The store's data, shared by both designs: the seed articles' customers,
//! orders and order items, plus generated orders so "latest 20" needs paging.

use time::macros::datetime;
use time::OffsetDateTime;

use crate::OrderStatus;

/// A customer.
#[derive(Debug, Clone, PartialEq)]
pub struct Customer {
    /// `123`
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// E-mail (personal data).
    pub email: &'static str,
}

/// An order.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// Who placed it.
    pub customer: &'static str,
    /// `A102`
    pub id: String,
    /// When.
    pub placed_at: OffsetDateTime,
    /// Open or shipped.
    pub status: OrderStatus,
    /// Total in cents.
    pub total_cents: u64,
}

/// One product of an order.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The order.
    pub order: &'static str,
    /// The product.
    pub product: &'static str,
    /// How many.
    pub quantity: u32,
    /// Price paid per unit, in cents.
    pub price_cents: u64,
}

/// Customers 123, 456 and 789.
pub fn customers() -> Vec<Customer> {
    vec![
        Customer {
            id: "123",
            name: "Ada Lovelace",
            email: "ada@example.com",
        },
        Customer {
            id: "456",
            name: "Grace Hopper",
            email: "grace@example.com",
        },
        Customer {
            id: "789",
            name: "Alan Turing",
            email: "alan@example.com",
        },
    ]
}

/// How many orders customer 456 has besides A153.
pub const GENERATED_ORDERS: usize = 45;

/// The seed's orders (A102, A117, A145 of 123; A153 of 456; only A145 open)
/// and 45 generated orders of 456 across 2026 (B201..B245, every tenth open).
pub fn orders() -> Vec<Order> {
    let mut orders = vec![
        seed_order(
            "123",
            "A102",
            datetime!(2026-09-10 08:12:44 UTC),
            OrderStatus::Shipped,
            4200,
        ),
        seed_order(
            "123",
            "A117",
            datetime!(2026-09-18 19:03:10 UTC),
            OrderStatus::Shipped,
            1999,
        ),
        seed_order(
            "123",
            "A145",
            datetime!(2026-10-02 14:31:07 UTC),
            OrderStatus::Open,
            5600,
        ),
        seed_order(
            "456",
            "A153",
            datetime!(2026-10-05 09:20:00 UTC),
            OrderStatus::Shipped,
            1299,
        ),
    ];
    for i in 0..GENERATED_ORDERS {
        let at = datetime!(2026-01-03 10:00:00 UTC)
            + time::Duration::days(7 * i as i64)
            + time::Duration::minutes(37 * i as i64);
        let status = if i % 10 == 9 {
            OrderStatus::Open
        } else {
            OrderStatus::Shipped
        };
        orders.push(seed_order(
            "456",
            &format!("B{}", 201 + i),
            at,
            status,
            1000 + 25 * i as u64,
        ));
    }
    orders
}

fn seed_order(
    customer: &'static str,
    id: &str,
    at: OffsetDateTime,
    status: OrderStatus,
    total_cents: u64,
) -> Order {
    Order {
        customer,
        id: id.to_owned(),
        placed_at: at,
        status,
        total_cents,
    }
}

/// A145 contains P9 and P31, A153 contains P9.
pub fn items() -> Vec<Item> {
    vec![
        Item {
            order: "A145",
            product: "P9",
            quantity: 1,
            price_cents: 2500,
        },
        Item {
            order: "A145",
            product: "P31",
            quantity: 2,
            price_cents: 1550,
        },
        Item {
            order: "A153",
            product: "P9",
            quantity: 1,
            price_cents: 1299,
        },
    ]
}
