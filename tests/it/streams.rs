//! DynamoDB Streams records, as AWS Lambda delivers them, decoded
//! into the store's collection enum: INSERT, MODIFY with both images,
//! REMOVE, a time-to-live deletion, KEYS_ONLY and NEW_IMAGE views, an
//! entity type the collection does not list, and a record that does not
//! decode.

use ddb_examples::single_table::{Customer, CustomerItem, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::stream::{self, events::Event, Image, StreamEvent};
use ddb_runtime::Error;
use time::macros::datetime;

fn event(json: &str) -> Event {
    serde_json::from_str(json).expect("the event JSON AWS documents")
}

#[test]
fn new_and_old_images_decode_by_entity_type() {
    let changes = stream::decode::<CustomerItem>(&event(include_str!(
        "../fixtures/streams/new_and_old_images.json"
    )))
    .unwrap();
    assert_eq!(changes.len(), 4);

    let insert = &changes[0];
    assert_eq!(insert.event, StreamEvent::Insert);
    assert_eq!(insert.sequence_number, "4421584500000000017450439091");
    assert_eq!(insert.old, None);
    assert_eq!(
        insert.new,
        Some(Image::Known(CustomerItem::Profile(Customer {
            customer_id: CustomerId("123".into()),
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            order_count: 0,
        })))
    );
    assert_eq!(insert.keys["PK"].as_s().unwrap(), "CUSTOMER#123");

    let modify = &changes[1];
    assert_eq!(modify.event, StreamEvent::Modify);
    let order = |status, version| {
        Some(Image::Known(CustomerItem::Order(Order {
            customer_id: CustomerId("123".into()),
            order_id: OrderId("A145".into()),
            placed_at: datetime!(2026-10-02 14:31:07 UTC),
            status,
            total_cents: 5600,
            version,
        })))
    };
    assert_eq!(modify.old, order(OrderStatus::Open, 1));
    assert_eq!(modify.new, order(OrderStatus::Shipped, 2));

    // An order item is not in the collection: kept, raw, not dropped.
    let removed = &changes[2];
    assert_eq!(removed.event, StreamEvent::Remove);
    assert!(!removed.expired);
    match &removed.old {
        Some(Image::Unknown { entity_type, item }) => {
            assert_eq!(entity_type, "OrderItem");
            assert_eq!(item["product_id"].as_s().unwrap(), "P9");
        }
        other => panic!("{other:?}"),
    }

    // Deleted by time to live: the service's userIdentity.
    let expired = &changes[3];
    assert_eq!(expired.event, StreamEvent::Remove);
    assert!(expired.expired);
    assert!(
        matches!(&expired.old, Some(Image::Known(CustomerItem::Profile(c))) if c.name == "Grace Hopper")
    );
}

#[test]
fn a_keys_only_stream_carries_keys_and_no_image() {
    let changes =
        stream::decode::<CustomerItem>(&event(include_str!("../fixtures/streams/keys_only.json")))
            .unwrap();
    assert_eq!(changes[0].event, StreamEvent::Modify);
    assert_eq!((&changes[0].old, &changes[0].new), (&None, &None));
    assert_eq!(changes[0].keys["SK"].as_s().unwrap(), "PROFILE");
}

#[test]
fn a_record_that_does_not_decode_names_its_sequence_number() {
    let event = event(include_str!("../fixtures/streams/new_image_bad.json"));
    // Record by record, the good one decodes.
    let first = stream::decode_record::<CustomerItem>(&event.records[0]).unwrap();
    assert!(first.old.is_none() && first.new.is_some(), "NEW_IMAGE view");
    let all = stream::decode::<CustomerItem>(&event);
    match all {
        Err(Error::StreamRecord {
            sequence_number, ..
        }) => assert_eq!(sequence_number, "4421585100000000017450439097"),
        other => panic!("{other:?}"),
    }
}
