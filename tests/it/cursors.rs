//! Cursors: a page resumes only from a cursor of its own query; tampered,
//! forged and foreign cursors are typed errors (one naming another entity's
//! key is refused before any request); signed cursors cannot be forged, and
//! encrypted ones hide the item keys.

use ddb_examples::single_table::{Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::{Cursor, Db, Error};

use crate::fixtures::{generated, store};

#[tokio::test]
async fn tampered_cursors_are_typed_errors() {
    let db = store().await;
    ddb_tests::put_raw(&db, &generated("123", 5, OrderStatus::Shipped)).await;
    ddb_tests::put_raw(&db, &generated("456", 5, OrderStatus::Shipped)).await;
    let of = |c: &str| db.query(Order::by_customer(&CustomerId(c.into()))).limit(2);
    let cursor = of("123").send().await.unwrap().cursor.expect("more pages");

    let invalid = |result: ddb_runtime::Result<ddb_runtime::Page<Order>>| {
        matches!(result, Err(Error::InvalidCursor { .. }))
    };
    assert!(invalid(
        of("123")
            .after(Cursor::from("garbage!".to_owned()))
            .send()
            .await
    ));
    let mut text = cursor.to_string();
    text.truncate(text.len() - 5);
    assert!(invalid(of("123").after(Cursor::from(text)).send().await));
    // Another partition, another index, another entity, another direction.
    assert!(invalid(of("456").after(cursor.clone()).send().await));
    assert!(invalid(
        db.query(Order::by_order_id(&OrderId("A145".into())))
            .after(cursor.clone())
            .send()
            .await
    ));
    assert!(invalid(
        of("123")
            .newest_first(true)
            .after(cursor.clone())
            .send()
            .await
    ));
    let items = db
        .query(OrderItem::products_of_order(&OrderId("A145".into())))
        .after(cursor.clone())
        .send()
        .await;
    assert!(matches!(items, Err(Error::InvalidCursor { .. })));
    // A re-encoded cursor whose key points into another partition.
    let other = of("456").send().await.unwrap().cursor.unwrap();
    let forged = forge(&cursor, &other);
    assert!(invalid(of("123").after(forged).send().await));
    // The genuine cursor works.
    assert_eq!(of("123").after(cursor).send().await.unwrap().items.len(), 2);
}

/// The first cursor with its fingerprint and the second's key.
fn forge(own: &Cursor, other: &Cursor) -> Cursor {
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut a: serde_json::Value =
        serde_json::from_slice(&engine.decode(own.as_str()).unwrap()).unwrap();
    let b: serde_json::Value =
        serde_json::from_slice(&engine.decode(other.as_str()).unwrap()).unwrap();
    a["s"] = b["s"].clone();
    Cursor::from(engine.encode(serde_json::to_vec(&a).unwrap()))
}

#[tokio::test]
async fn a_cursor_naming_another_entitys_key_is_refused_before_any_request() {
    let db = store().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let of_123 = || {
        through
            .query(Order::by_customer(&CustomerId("123".into())))
            .limit(1)
    };
    let genuine = of_123().send().await.unwrap().cursor.unwrap();
    let sent = proxy.seen("Query");
    // Same query, same partition, but the key of the customer's profile.
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut document: serde_json::Value =
        serde_json::from_slice(&engine.decode(genuine.as_str()).unwrap()).unwrap();
    document["s"][0]["SK"] = serde_json::json!({ "S": "PROFILE" });
    let forged = Cursor::from(engine.encode(serde_json::to_vec(&document).unwrap()));
    let result = of_123().after(forged).send().await;
    assert!(
        matches!(result, Err(Error::InvalidCursor { .. })),
        "{result:?}"
    );
    assert_eq!(proxy.seen("Query"), sent, "nothing was sent");
}

/// A Db with a cursor key signs the cursors it returns and takes only
/// cursors signed under its keys; pages resume through signed cursors.
#[tokio::test]
async fn signed_cursors_resume_and_cannot_be_forged() {
    let db = store().await;
    let signed = db.with_cursor_key(b"a key of at least thirty-two bytes".to_vec());
    let query = |db: &Db| {
        db.query(Order::by_customer(&CustomerId("123".into())))
            .limit(1)
    };
    let first = query(&signed).send().await.unwrap();
    let cursor = first.cursor.clone().unwrap();
    assert!(cursor.as_str().contains('.'), "signed: document.signature");
    let second = query(&signed).after(cursor.clone()).send().await.unwrap();
    assert!(!second.items.is_empty());
    assert_ne!(first.items, second.items);
    // A cursor of the unsigned handle, or one with its document changed.
    let unsigned = query(&db).send().await.unwrap().cursor.unwrap();
    let refused = query(&signed).after(unsigned).send().await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { .. })),
        "{refused:?}"
    );
    let (document, tag) = cursor.as_str().split_once('.').unwrap();
    let mut changed = document.to_owned();
    changed.replace_range(0..1, if document.starts_with('e') { "f" } else { "e" });
    let forged = Cursor::from(format!("{changed}.{tag}"));
    let refused = query(&signed).after(forged).send().await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { .. })),
        "{refused:?}"
    );
    // After a rotation, cursors handed out under the old key still resume.
    let rotated = signed.with_cursor_key(b"the next key, thirty-two bytes..".to_vec());
    assert!(query(&rotated).after(cursor).send().await.is_ok());
}

/// Encrypted cursors resume a query, do not show the item keys, and
/// are refused by a handle without the key.
#[tokio::test]
async fn encrypted_cursors_resume_and_hide_the_keys() {
    let db = store().await;
    let private = db.with_cursor_encryption(b"a key of at least thirty-two bytes".to_vec());
    let query = |db: &Db| {
        db.query(Order::by_customer(&CustomerId("123".into())))
            .limit(1)
    };
    let first = query(&private).send().await.unwrap();
    let cursor = first.cursor.clone().unwrap();
    use base64::Engine;
    let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.as_str().trim_start_matches("e."))
        .unwrap();
    assert!(!String::from_utf8_lossy(&sealed).contains("CUSTOMER#123"));
    let second = query(&private).after(cursor.clone()).send().await.unwrap();
    assert!(!second.items.is_empty());
    assert_ne!(first.items, second.items);
    let refused = query(&db).after(cursor).send().await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { .. })),
        "{refused:?}"
    );
}
