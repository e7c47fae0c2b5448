//! Time to live: creating a table turns it on; expired items, stored until
//! DynamoDB deletes them, are left out of every read unless asked for and are
//! not brought back by an update; a create, or a put expecting no item, takes
//! their place; a time to live far in the past is never expired.

use ddb_runtime::Error;

use crate::fixtures::{Session, Sessions};

#[tokio::test]
async fn expired_items_are_left_out_until_asked_for() {
    let db = ddb_tests::db_with_table::<Sessions>().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let session = |id: &str, expires: Option<u64>| Session {
        id: id.into(),
        user: "ada".into(),
        created: None,
        updated: 0,
        expires,
    };
    db.create(&session("old", Some(now - 60)))
        .send()
        .await
        .unwrap();
    db.create(&session("live", Some(now + 3600)))
        .send()
        .await
        .unwrap();
    db.create(&session("forever", None)).send().await.unwrap();
    let get = |id: &str| db.get(Session::key(&id.to_string()).unwrap());
    assert!(
        get("old").send().await.unwrap().is_none(),
        "expired, though still stored"
    );
    assert!(get("old")
        .include_expired(true)
        .send()
        .await
        .unwrap()
        .is_some());
    assert!(get("live").send().await.unwrap().is_some());
    assert!(get("forever").send().await.unwrap().is_some());
    let query = |id: &str| db.query(Session::session(&id.to_string()));
    assert!(query("old").collect().await.unwrap().is_empty());
    assert_eq!(
        query("old")
            .include_expired(true)
            .collect()
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(query("live").collect().await.unwrap().len(), 1);
    assert_eq!(query("forever").collect().await.unwrap().len(), 1);

    // An expired item is not brought back by an update.
    let fields = Session::fields();
    let revived = db
        .update(Session::key(&"old".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await;
    assert!(
        matches!(revived, Err(Error::NotFound { .. })),
        "{revived:?}"
    );
    db.update(Session::key(&"live".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await
        .unwrap();
    db.update(Session::key(&"forever".to_string()).unwrap())
        .set(fields.user, "eve")
        .send()
        .await
        .unwrap();
}
