//! Key strings and items, without the network: exactly the seed's layout.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::{
    separate_tables as sep, single_table as one, CustomerId, OrderId, OrderStatus, ProductId,
};
use ddb_runtime::{Entity, Error, KeyValue};
use time::macros::datetime;

fn s(text: &str) -> KeyValue {
    KeyValue::S(text.to_owned())
}

fn order(id: &str, at: time::OffsetDateTime, status: OrderStatus) -> one::Order {
    one::Order {
        customer_id: CustomerId("123".into()),
        order_id: OrderId(id.into()),
        placed_at: at,
        status,
        total_cents: 4200,
        version: 1,
    }
}

fn attr<'a>(item: &'a ddb_runtime::Item, name: &str) -> &'a AttributeValue {
    item.get(name)
        .unwrap_or_else(|| panic!("attribute {name} missing"))
}

#[test]
fn single_table_keys_are_the_seeds() {
    let customer = CustomerId("123".into());
    let key = one::Customer::key(&customer).unwrap();
    assert_eq!(key.pk(), &s("CUSTOMER#123"));
    assert_eq!(key.sk(), Some(&s("PROFILE")));

    let seed = [
        (
            "A102",
            datetime!(2026-09-10 08:12:44 UTC),
            "ORDER#2026-09-10T08:12:44Z#A102",
        ),
        (
            "A117",
            datetime!(2026-09-18 19:03:10 UTC),
            "ORDER#2026-09-18T19:03:10Z#A117",
        ),
        (
            "A145",
            datetime!(2026-10-02 14:31:07 UTC),
            "ORDER#2026-10-02T14:31:07Z#A145",
        ),
    ];
    for (id, at, sk) in seed {
        let key = one::Order::key(&customer, &at, &OrderId(id.into())).unwrap();
        assert_eq!(key.pk(), &s("CUSTOMER#123"));
        assert_eq!(key.sk(), Some(&s(sk)));
        assert_eq!(
            order(id, at, OrderStatus::Shipped).primary_key().unwrap(),
            key
        );
    }

    let item = one::OrderItem::key(&OrderId("A145".into()), &ProductId("P9".into())).unwrap();
    assert_eq!(
        (item.pk(), item.sk()),
        (&s("ORDER#A145"), Some(&s("PRODUCT#P9")))
    );
    let inverted =
        one::OrderItem::gsi1_key(&ProductId("P9".into()), &OrderId("A145".into())).unwrap();
    assert_eq!(
        (inverted.pk, inverted.sk),
        (s("PRODUCT#P9"), Some(s("ORDER#A145")))
    );
    assert_eq!(
        one::Order::gsi1_pk(&OrderId("A145".into())).unwrap(),
        s("ORDER#A145")
    );
    assert_eq!(one::Order::SK_PREFIX, "ORDER#");
    assert_eq!(one::Order::GSI2_PK_PREFIX, "STATUS#");
}

#[test]
fn separate_table_keys_are_the_seeds() {
    let key = sep::Customer::key(&CustomerId("123".into())).unwrap();
    assert_eq!(key.pk(), &s("123"));
    assert_eq!(key.sk(), None);
    let customer = sep::Customer {
        customer_id: CustomerId("123".into()),
        name: "Ada".into(),
        email: "ada@example.com".into(),
    };
    let item = customer.to_item().unwrap();
    assert_eq!(attr(&item, "customerId").as_s().unwrap(), "123");

    let at = datetime!(2026-09-10 08:12:44 UTC);
    let key = sep::Order::key(&CustomerId("123".into()), &at, &OrderId("A102".into())).unwrap();
    assert_eq!(
        (key.pk(), key.sk()),
        (&s("CUSTOMER#123"), Some(&s("2026-09-10T08:12:44Z#A102")))
    );

    let order = sep::Order {
        customer_id: CustomerId("123".into()),
        order_id: OrderId("A102".into()),
        placed_at: at,
        status: OrderStatus::Shipped,
        total_cents: 100,
    };
    let item = order.to_item().unwrap();
    assert_eq!(attr(&item, "PK").as_s().unwrap(), "CUSTOMER#123");
    assert_eq!(
        attr(&item, "SK").as_s().unwrap(),
        "2026-09-10T08:12:44Z#A102"
    );
    assert_eq!(attr(&item, "orderId").as_s().unwrap(), "A102");
    assert_eq!(sep::Order::from_item(item).unwrap(), order);

    let item = sep::OrderItem::key(&OrderId("A153".into()), &ProductId("P9".into())).unwrap();
    assert_eq!(
        (item.pk(), item.sk()),
        (&s("ORDER#A153"), Some(&s("PRODUCT#P9")))
    );
    let inverted =
        sep::OrderItem::product_orders_index_key(&ProductId("P31".into()), &OrderId("A145".into()))
            .unwrap();
    assert_eq!(
        (inverted.pk, inverted.sk),
        (s("PRODUCT#P31"), Some(s("ORDER#A145")))
    );
}

#[test]
fn the_item_carries_keys_indexes_and_type() {
    let open = order(
        "A145",
        datetime!(2026-10-02 14:31:07 UTC),
        OrderStatus::Open,
    );
    let item = open.to_item().unwrap();
    assert_eq!(attr(&item, "PK").as_s().unwrap(), "CUSTOMER#123");
    assert_eq!(
        attr(&item, "SK").as_s().unwrap(),
        "ORDER#2026-10-02T14:31:07Z#A145"
    );
    assert_eq!(attr(&item, "GSI1PK").as_s().unwrap(), "ORDER#A145");
    assert_eq!(attr(&item, "GSI1SK").as_s().unwrap(), "ORDER");
    let shard = ddb_runtime::key::shard_of(open.primary_key().unwrap().values(), 4);
    assert_eq!(
        attr(&item, "GSI2PK").as_s().unwrap(),
        &format!("STATUS#OPEN#{shard}")
    );
    assert_eq!(
        attr(&item, "GSI2SK").as_s().unwrap(),
        "2026-10-02T14:31:07Z#A145"
    );
    assert_eq!(attr(&item, "_type").as_s().unwrap(), "Order");
    assert_eq!(
        attr(&item, "placed_at").as_s().unwrap(),
        "2026-10-02T14:31:07Z"
    );
    assert_eq!(attr(&item, "total_cents").as_n().unwrap(), "4200");
    assert_eq!(one::Order::from_item(item).unwrap(), open);

    // Sparse: a shipped order is not in the open-orders index at all (no
    // attribute, never NULL).
    let shipped = order(
        "A102",
        datetime!(2026-09-10 08:12:44 UTC),
        OrderStatus::Shipped,
    );
    let item = shipped.to_item().unwrap();
    assert!(!item.contains_key("GSI2PK") && !item.contains_key("GSI2SK"));
    assert!(item.contains_key("GSI1PK"));
}

#[test]
fn shard_hash_is_pinned() {
    // FNV-1a 64 over pk, a zero byte and sk, computed independently of ddb:
    // these vectors must never change, or items written by one release would
    // be invisible to the next.
    let key = |pk: &str, sk: &str| ddb_runtime::KeyValues {
        pk: s(pk),
        sk: Some(s(sk)),
    };
    let vectors = [
        (key("CUSTOMER#123", "ORDER#2026-09-10T08:12:44Z#A102"), 4, 3),
        (key("CUSTOMER#123", "ORDER#2026-09-18T19:03:10Z#A117"), 4, 0),
        (key("CUSTOMER#123", "ORDER#2026-10-02T14:31:07Z#A145"), 4, 0),
        (key("CUSTOMER#456", "ORDER#2026-01-01T00:00:00Z#A153"), 4, 1),
        (key("a", "b"), 1000, 754),
    ];
    for (key, shards, expected) in vectors {
        assert_eq!(
            ddb_runtime::key::shard_of(&key, shards),
            expected,
            "{key:?}"
        );
    }
}

#[test]
fn delimiters_in_values_are_escaped_and_parse_back() {
    let customer = CustomerId("12#3".into());
    let at = datetime!(2026-09-10 08:12:44 UTC);
    let id = OrderId("A$1 0".into());
    let key = one::Order::key(&customer, &at, &id).unwrap();
    assert_eq!(key.pk(), &s("CUSTOMER#12$c3"));
    assert_eq!(key.sk(), Some(&s("ORDER#2026-09-10T08:12:44Z#A$d1$`0")));
    assert_eq!(one::Order::parse_key(&key).unwrap(), (customer, at, id));

    // ("A#", "B") and ("A", "#B") must not collide.
    let a = one::OrderItem::key(&OrderId("A#".into()), &ProductId("B".into())).unwrap();
    let b = one::OrderItem::key(&OrderId("A".into()), &ProductId("#B".into())).unwrap();
    assert_ne!(a, b);
    // An id shaped like another entity's key stays inside its own segment.
    let sneaky = one::Customer::key(&CustomerId("123#ORDER".into())).unwrap();
    assert_eq!(sneaky.pk(), &s("CUSTOMER#123$cORDER"));
}

#[test]
fn a_key_of_another_entity_is_refused() {
    // A customer's key read as an order's: its sort key does not parse.
    let key = one::Customer::key(&CustomerId("123".into())).unwrap();
    match ddb_runtime::Key::<one::Order>::from_item(&key.to_item()) {
        Err(Error::KeyMismatch {
            entity: "Order",
            key: "sort key",
            ..
        }) => {}
        other => panic!("expected a sort key mismatch, got {other:?}"),
    }
    // A key with text after the template's last field.
    let item = std::collections::HashMap::from([
        (
            "PK".to_string(),
            aws_sdk_dynamodb::types::AttributeValue::S("CUSTOMER#123".into()),
        ),
        (
            "SK".to_string(),
            aws_sdk_dynamodb::types::AttributeValue::S(
                "ORDER#2026-09-10T08:12:44Z#A102#extra".into(),
            ),
        ),
    ]);
    assert!(matches!(
        ddb_runtime::Key::<one::Order>::from_item(&item),
        Err(Error::KeyMismatch { .. })
    ));
}

#[test]
fn empty_and_oversized_segments_are_typed_errors() {
    match one::Customer::key(&CustomerId(String::new())) {
        Err(Error::InvalidKeySegment {
            entity: "Customer",
            key: "partition key",
            field: "customer_id",
            ..
        }) => {}
        other => panic!("expected an invalid segment, got {other:?}"),
    }
    match sep::Customer::key(&CustomerId(String::new())) {
        Err(Error::InvalidKeySegment { .. }) => {}
        other => panic!("expected an invalid raw key, got {other:?}"),
    }
    // Partition key: "CUSTOMER#" is 9 bytes; 2048 in all is accepted, 2049 is not.
    let fits = CustomerId("x".repeat(2048 - 9));
    assert!(one::Customer::key(&fits).is_ok());
    let over = CustomerId("x".repeat(2049 - 9));
    match one::Customer::key(&over) {
        Err(Error::KeyTooLarge {
            size: 2049,
            limit: 2048,
            key: "partition key",
            ..
        }) => {}
        other => panic!("expected KeyTooLarge, got {other:?}"),
    }
    // Sort key, counted in UTF-8 bytes: "PRODUCT#" is 8 bytes, "é" is 2.
    let product = |n: usize| ProductId("é".repeat(n));
    assert!(one::OrderItem::key(&OrderId("A1".into()), &product((1024 - 8) / 2)).is_ok());
    match one::OrderItem::key(
        &OrderId("A1".into()),
        &ProductId(format!("{}x", "é".repeat((1024 - 8) / 2))),
    ) {
        Err(Error::KeyTooLarge {
            size: 1025,
            limit: 1024,
            key: "sort key",
            ..
        }) => {}
        other => panic!("expected KeyTooLarge, got {other:?}"),
    }
    // A timestamp with a fraction of a second is refused, not truncated.
    let at = datetime!(2026-09-10 08:12:44.5 UTC);
    assert!(matches!(
        one::Order::key(&CustomerId("1".into()), &at, &OrderId("A".into())),
        Err(Error::InvalidKeySegment {
            field: "placed_at",
            ..
        })
    ));
}

/// A key segment that replaces the text it is given instead of appending
/// to it (against `KeySegment`'s contract).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Careless(String);

impl ddb_runtime::KeySegment for Careless {
    fn write_segment(&self, out: &mut String) -> Result<(), ddb_runtime::SegmentError> {
        *out = self.0.clone();
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, ddb_runtime::SegmentError> {
        Ok(Careless(text.to_owned()))
    }
}

#[derive(ddb_runtime::Table)]
#[ddb(name = "Careless", pk = "PK")]
struct CarelessTable;

#[derive(Entity, serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = CarelessTable, entity = "CarelessThing", pk = "A_LONG_PREFIX#{id}")]
struct CarelessThing {
    id: Careless,
}

/// Segments are written in place after the key's prefix: a segment that
/// replaces the text it is given (leaving it shorter than the prefix) is a
/// typed error, not an index out of bounds.
#[test]
fn a_segment_that_replaces_the_key_is_an_error_not_a_panic() {
    let built = CarelessThing::key(&Careless("x".into()));
    assert!(
        matches!(built, Err(Error::InvalidKeySegment { .. })),
        "{built:?}"
    );
}
