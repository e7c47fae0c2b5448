//! Updates: every update action and what it stores, an update taking an item
//! in and out of a sparse index, conditions, and the exact expressions sent.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, Ecommerce, Order};
use ddb_examples::OrderStatus;
use ddb_runtime::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

use crate::fixtures::{customer, open_order};

async fn raw_item(db: &Db, key: ddb_runtime::Item) -> Option<ddb_runtime::Item> {
    ddb_tests::raw_item::<Ecommerce>(db, key).await
}

#[tokio::test]
async fn shipping_an_order_takes_it_out_of_the_open_orders_index() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let order = open_order("A145");
    db.create(&order).send().await.unwrap();
    let key = order.primary_key().unwrap();
    let before = raw_item(&db, key.to_item()).await.unwrap();
    assert!(before["GSI2PK"].as_s().unwrap().starts_with("STATUS#OPEN#"));

    let fields = Order::fields();
    let written = db
        .update(key.clone())
        .set(fields.status, OrderStatus::Shipped)
        .return_new(true)
        .send()
        .await
        .unwrap();
    assert_eq!(written.version, Some(2));
    assert_eq!(written.item.unwrap().status, OrderStatus::Shipped);

    let after = raw_item(&db, key.to_item()).await.unwrap();
    assert!(
        !after.contains_key("GSI2PK") && !after.contains_key("GSI2SK"),
        "left the sparse index"
    );
    for attribute in [
        "PK",
        "SK",
        "GSI1PK",
        "GSI1SK",
        "_type",
        "customer_id",
        "order_id",
        "placed_at",
    ] {
        assert_eq!(
            after.get(attribute),
            before.get(attribute),
            "{attribute} unchanged"
        );
    }
    assert_eq!(after["status"], AttributeValue::S("SHIPPED".into()));
    let open = db
        .query(Order::open_orders(&OrderStatus::Open))
        .hydrate()
        .collect()
        .await
        .unwrap();
    assert!(open.is_empty());

    // And back: reopening puts it in the right shard again.
    db.update(key.clone())
        .set(fields.status, OrderStatus::Open)
        .send()
        .await
        .unwrap();
    let reopened = raw_item(&db, key.to_item()).await.unwrap();
    assert_eq!(reopened["GSI2PK"], before["GSI2PK"]);
    assert_eq!(reopened["GSI2SK"], before["GSI2SK"]);

    // Updating a missing item is NotFound, and creates nothing.
    let ghost = open_order("A999").primary_key().unwrap();
    let missing = db
        .update(ghost.clone())
        .set(fields.total_cents, 1u64)
        .send()
        .await;
    assert!(
        matches!(missing, Err(Error::NotFound { .. })),
        "{missing:?}"
    );
    assert!(raw_item(&db, ghost.to_item()).await.is_none());
}

/// The stored version of `key`'s item.
async fn stored_version(db: &Db, key: &ddb_runtime::Item) -> String {
    let item = raw_item(db, key.clone()).await.unwrap();
    item["version"].as_n().unwrap().clone()
}

#[tokio::test]
async fn an_update_asks_for_the_item_back_only_when_its_caller_reads_it() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("UpdateItem");
    let order = open_order("A146");
    db.create(&order).send().await.unwrap();
    let key = order.primary_key().unwrap();
    let fields = Order::fields();
    let update = || through.update(key.clone()).set(fields.total_cents, 7u64);

    // A plain update: nothing comes back, and its version is not known.
    let plain = update().send().await.unwrap();
    assert_eq!((plain.version, &plain.raw), (None, &None));
    assert_eq!(stored_version(&db, &key.to_item()).await, "2");
    // Expecting a version: the version written is that one plus 1.
    let expected = update().expect_version(2).send().await.unwrap();
    assert_eq!((expected.version, &expected.raw), (Some(3), &None));
    assert_eq!(stored_version(&db, &key.to_item()).await, "3");
    // Asking for the new item: it comes back, its version with it.
    let new = update().return_new(true).send().await.unwrap();
    assert_eq!(new.version, Some(4));
    assert_eq!(new.item.unwrap().version, 4);

    let asked = ddb_tests::recorded_field(&proxy, "UpdateItem", "ReturnValues");
    let all_new = Some(serde_json::json!("ALL_NEW"));
    assert_eq!(asked, [None, None, all_new]);
}

#[derive(Table)]
#[ddb(name = "Badges", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Badges;

/// Renaming a badge recomputes its GSI1 sort key from `level`, which a
/// rename does not set: that update reads the item first.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Badges, entity = "Badge", pk = "BADGE#{id}", sk = "BADGE")]
#[ddb(index(name = "GSI1", pk = "NAME#{name}", sk = "{name}#{level}"))]
struct Badge {
    id: String,
    name: String,
    level: u64,
    #[ddb(version)]
    version: u64,
}

#[tokio::test]
async fn an_update_that_reads_first_knows_the_version_it_wrote() {
    let db = ddb_tests::db_with_table::<Badges>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Badges>(&db).await;
    proxy.record("UpdateItem");
    let badge = Badge {
        id: "b1".into(),
        name: "Bronze".into(),
        level: 1,
        version: 0,
    };
    db.create(&badge).send().await.unwrap();
    let key = badge.primary_key().unwrap();
    // Another writer moves the version on: the update reads 7 and writes 8.
    db.client()
        .update_item()
        .table_name(db.table_name::<Badges>())
        .set_key(Some(key.to_item()))
        .update_expression("SET version = :v")
        .expression_attribute_values(":v", AttributeValue::N("7".into()))
        .send()
        .await
        .unwrap();
    let renamed = through
        .update(key.clone())
        .set(Badge::fields().name, "Silver".to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("GetItem"), 1, "read first");
    assert_eq!((renamed.version, &renamed.raw), (Some(8), &None));
    let stored = db.get(key).send().await.unwrap().unwrap();
    assert_eq!((stored.name.as_str(), stored.version), ("Silver", 8));
    let asked = ddb_tests::recorded_field(&proxy, "UpdateItem", "ReturnValues");
    assert_eq!(asked, [None]);
}

#[tokio::test]
async fn updates_without_index_fields_are_one_request() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let ada = customer("123");
    db.create(&ada).send().await.unwrap();
    let key = Customer::key(&ada.customer_id).unwrap();
    let fields = Customer::fields();
    let updated = db
        .update(key.clone())
        .add(fields.order_count, 2u32)
        .set(fields.name, "Ada L.".to_string())
        .condition(fields.order_count.eq(0u32))
        .return_new(true)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.item.unwrap().order_count, 2);
    let failed = db
        .update(key)
        .add(fields.order_count, 1u32)
        .condition(fields.order_count.eq(0u32))
        .send()
        .await;
    assert!(
        matches!(
            &failed,
            Err(Error::ConditionFailed {
                existing: Some(_),
                ..
            })
        ),
        "{failed:?}"
    );
    assert!(failed.unwrap_err().is_condition_failed());
}

#[derive(Table)]
#[ddb(name = "Carts", pk = "PK", sk = "SK")]
#[ddb(local_index(name = "ByTotal", sk = "total", sk_type = "N"))]
struct Carts;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Carts, entity = "Cart", pk = "USER#{user}", sk = "CART#{id}", query = "carts")]
#[ddb(index(name = "ByTotal", sk = "{total}", query = "by_total"))]
struct Cart {
    user: String,
    id: String,
    total: u64,
    #[serde(with = "serde_dynamo::string_set")]
    tags: std::collections::BTreeSet<String>,
    lines: Vec<String>,
    note: Option<String>,
}

#[tokio::test]
async fn every_update_operation_and_a_local_index() {
    let db = ddb_tests::db_with_table::<Carts>().await;
    let cart = |id: &str, total: u64| Cart {
        user: "ada".into(),
        id: id.into(),
        total,
        tags: ["gift".to_string()].into(),
        lines: vec!["P9".into()],
        note: Some("leave at the door".into()),
    };
    db.create(&cart("c1", 300)).send().await.unwrap();
    db.create(&cart("c2", 100)).send().await.unwrap();
    let key = Cart::key(&"ada".to_string(), &"c1".to_string()).unwrap();
    let fields = Cart::fields();
    let updated = db
        .update(key.clone())
        .add(fields.tags, ["fragile".to_string()].into())
        .append(fields.lines, vec!["P31".to_string()])
        .remove(fields.note)
        .set(fields.total, 50u64)
        .return_new(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        updated.tags,
        ["fragile".to_string(), "gift".to_string()].into()
    );
    assert_eq!(updated.lines, ["P9", "P31"]);
    assert_eq!(updated.note, None);
    let shrunk = db
        .update(key.clone())
        .delete_from_set(fields.tags, ["gift".to_string()].into())
        .return_new(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(shrunk.tags, ["fragile".to_string()].into());
    let empty = db
        .update(key)
        .add(fields.tags, std::collections::BTreeSet::new())
        .send()
        .await;
    assert!(
        matches!(empty, Err(Error::InvalidValue { .. })),
        "an empty set is refused before sending"
    );

    // The local index follows the changed total, and allows consistent reads.
    let by_total = db
        .query(Cart::by_total(&"ada".to_string()))
        .consistent_read(true)
        .collect()
        .await
        .unwrap();
    let order: Vec<_> = by_total.iter().map(|c| (c.id.as_str(), c.total)).collect();
    assert_eq!(order, [("c1", 50), ("c2", 100)]);
    let cheap = db
        .query(Cart::by_total(&"ada".to_string()))
        .lt(&100u64)
        .collect()
        .await
        .unwrap();
    assert_eq!(cheap.len(), 1);
}

/// The update expressions ddb sends, pinned to the text: every kind of
/// action (set, remove, add, append, delete from a set), an update that
/// takes an order out of its sparse index, with and without an expected
/// version. A change in how they are written must show here first. Names
/// DynamoDB reads as they are stand as they are; reserved words (`status`,
/// `total`, `lines`) and `_schema` go through placeholders.
#[tokio::test]
async fn update_expressions_are_written_as_pinned() {
    let sent = |proxy: &ddb_tests::proxy::Proxy| -> Vec<serde_json::Value> {
        ddb_tests::recorded_json(proxy, "UpdateItem")
            .iter()
            .map(|body| {
                serde_json::json!({
                    "update": body["UpdateExpression"],
                    "condition": body["ConditionExpression"],
                    "names": body["ExpressionAttributeNames"],
                    "values": body["ExpressionAttributeValues"],
                })
            })
            .collect()
    };

    let carts = ddb_tests::db_with_table::<Carts>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Carts>(&carts).await;
    let cart = Cart {
        user: "ada".into(),
        id: "c1".into(),
        total: 300,
        tags: ["gift".to_string()].into(),
        lines: vec!["P9".into()],
        note: Some("leave at the door".into()),
    };
    carts.create(&cart).send().await.unwrap();
    proxy.record("UpdateItem");
    let key = Cart::key(&"ada".to_string(), &"c1".to_string()).unwrap();
    let fields = Cart::fields();
    through
        .update(key.clone())
        .add(fields.tags, ["fragile".to_string()].into())
        .append(fields.lines, vec!["P31".to_string()])
        .remove(fields.note)
        .set(fields.total, 50u64)
        .send()
        .await
        .unwrap();
    through
        .update(key)
        .delete_from_set(fields.tags, ["gift".to_string()].into())
        .send()
        .await
        .unwrap();

    let orders = ddb_tests::db_with_table::<Ecommerce>().await;
    let (order_proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&orders).await;
    orders.create(&open_order("V1")).send().await.unwrap();
    order_proxy.record("UpdateItem");
    let key = open_order("V1").primary_key().unwrap();
    let fields = Order::fields();
    through
        .update(key.clone())
        .set(fields.status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    through
        .update(key)
        .set(fields.total_cents, 7u64)
        .expect_version(2)
        .send()
        .await
        .unwrap();

    let actual = serde_json::json!({ "carts": sent(&proxy), "orders": sent(&order_proxy) });
    // `remove(note)` on a plain `Option` stores what to_item writes for
    // `None`: a NULL.
    let expected: serde_json::Value = serde_json::from_str(
        r##"{
  "carts": [
    {
      "condition": "attribute_exists(PK) AND attribute_not_exists(#n2)",
      "names": {
        "#n0": "lines",
        "#n1": "total",
        "#n2": "_schema"
      },
      "update": "SET #n0 = list_append(if_not_exists(#n0, :v1), :v2), note = :v3, #n1 = :v4 ADD tags :v0",
      "values": {
        ":v0": {
          "SS": [
            "fragile"
          ]
        },
        ":v1": {
          "L": []
        },
        ":v2": {
          "L": [
            {
              "S": "P31"
            }
          ]
        },
        ":v3": {
          "NULL": true
        },
        ":v4": {
          "N": "50"
        }
      }
    },
    {
      "condition": "attribute_exists(PK) AND attribute_not_exists(#n0)",
      "names": {
        "#n0": "_schema"
      },
      "update": "DELETE tags :v0",
      "values": {
        ":v0": {
          "SS": [
            "gift"
          ]
        }
      }
    }
  ],
  "orders": [
    {
      "condition": "attribute_exists(PK) AND attribute_not_exists(#n1)",
      "names": {
        "#n0": "status",
        "#n1": "_schema"
      },
      "update": "SET #n0 = :v0 REMOVE GSI2PK, GSI2SK ADD version :v1",
      "values": {
        ":v0": {
          "S": "SHIPPED"
        },
        ":v1": {
          "N": "1"
        }
      }
    },
    {
      "condition": "attribute_exists(PK) AND attribute_not_exists(#n0) AND version = :v2",
      "names": {
        "#n0": "_schema"
      },
      "update": "SET total_cents = :v0, version = :v1",
      "values": {
        ":v0": {
          "N": "7"
        },
        ":v1": {
          "N": "3"
        },
        ":v2": {
          "N": "2"
        }
      }
    }
  ]
}"##,
    )
    .unwrap();
    assert_eq!(
        actual,
        expected,
        "{}",
        serde_json::to_string_pretty(&actual).unwrap()
    );
}
