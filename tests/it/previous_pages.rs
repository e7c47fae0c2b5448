//! Pages in both directions: a page's `previous` cursor reads the page
//! before it, in the query's order, signed and encrypted like the others;
//! walking back from the last page meets every page the forward walk met.

use ddb_examples::single_table::{Customer, CustomerItem, Ecommerce, Order};
use ddb_examples::{CustomerId, OrderStatus};
use ddb_runtime::{Cursor, Db, Error, Page};

use crate::fixtures::{customer, generated};

const CUSTOMER: &str = "777";

/// A table holding 23 orders of one customer, and that customer.
async fn orders() -> Db {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    ddb_tests::put_raw(&db, &generated(CUSTOMER, 23, OrderStatus::Shipped)).await;
    ddb_tests::put_raw(&db, &[customer(CUSTOMER)]).await;
    db
}

fn ids(page: &Page<Order>) -> Vec<String> {
    page.items.iter().map(|o| o.order_id.0.clone()).collect()
}

/// How a test reads one page from a cursor.
type Read<'a> = &'a dyn Fn(
    Option<Cursor>,
)
    -> futures::future::BoxFuture<'static, ddb_runtime::Result<Page<Order>>>;

/// Every page forward from the first, then every page back from the last
/// by its `previous` cursors: the same pages, in reverse.
async fn walk_both_ways(read: Read<'_>) -> Vec<Vec<String>> {
    let mut forward = vec![read(None).await.unwrap()];
    assert!(forward[0].previous.is_none(), "the first page has none");
    while let Some(cursor) = forward.last().unwrap().cursor.clone() {
        let page = read(Some(cursor)).await.unwrap();
        assert!(page.previous.is_some(), "a later page has a previous page");
        forward.push(page);
    }
    let forward_ids: Vec<Vec<String>> = forward.iter().map(ids).collect();
    let mut back = vec![forward.last().unwrap().clone()];
    while let Some(previous) = back.last().unwrap().previous.clone() {
        back.push(read(Some(previous)).await.unwrap());
    }
    back.reverse();
    let back_ids: Vec<Vec<String>> = back.iter().map(ids).collect();
    // The last forward page may be empty (it ended exactly at a limit):
    // back from it is the page before it.
    let nonempty: Vec<Vec<String>> = forward_ids
        .iter()
        .filter(|page| !page.is_empty())
        .cloned()
        .collect();
    let back_nonempty: Vec<Vec<String>> = back_ids
        .iter()
        .filter(|page| !page.is_empty())
        .cloned()
        .collect();
    assert_eq!(back_nonempty, nonempty);
    forward_ids
}

#[tokio::test]
async fn walking_back_from_the_last_page_meets_every_page_in_both_orders() {
    let db = orders().await;
    for newest_first in [false, true] {
        for exact_end in [false, true] {
            let query = || {
                db.query(Order::by_customer(&CustomerId(CUSTOMER.into())))
                    .newest_first(newest_first)
                    .exact_end(exact_end)
                    .limit(5)
            };
            let read = |cursor: Option<Cursor>| {
                let query = query();
                let query = match cursor {
                    Some(cursor) => query.after(cursor),
                    None => query,
                };
                query.send()
            };
            let pages = walk_both_ways(&read).await;
            let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
            assert_eq!(sizes, [5, 5, 5, 5, 3], "newest first {newest_first}");
            let mut all: Vec<String> = pages.concat();
            if newest_first {
                all.reverse();
            }
            let expected: Vec<String> = (0..23).map(|i| format!("G{CUSTOMER}-{i:03}")).collect();
            assert_eq!(all, expected);
        }
    }
}

#[tokio::test]
async fn a_filtered_query_pages_back_over_the_items_it_leaves_out() {
    let db = orders().await;
    // Totals run 100..=122: the even ones, 12 orders.
    let even = || {
        (100u64..=122)
            .step_by(2)
            .map(|total| Order::fields().total_cents.eq(total))
            .reduce(|a, b| a.or(b))
            .unwrap()
    };
    let query = || {
        db.query(Order::by_customer(&CustomerId(CUSTOMER.into())))
            .filter(even())
            .limit(5)
    };
    let read = |cursor: Option<Cursor>| {
        let query = query();
        match cursor {
            Some(cursor) => query.after(cursor).send(),
            None => query.send(),
        }
    };
    let pages = walk_both_ways(&read).await;
    let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
    assert_eq!(sizes, [5, 5, 2]);
}

#[tokio::test]
async fn a_previous_page_leads_forward_to_the_page_it_was_read_from() {
    let db = orders().await;
    let query = || {
        db.query(Order::by_customer(&CustomerId(CUSTOMER.into())))
            .limit(4)
    };
    let first = query().send().await.unwrap();
    let second = query().after(first.cursor.unwrap()).send().await.unwrap();
    let third = query()
        .after(second.cursor.clone().unwrap())
        .send()
        .await
        .unwrap();
    let back = query()
        .after(third.previous.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(ids(&back), ids(&second));
    // Read backward, a page does not know whether the page after it still
    // holds items: it does not say.
    assert_eq!(back.has_more, None);
    let again = query().after(back.cursor.unwrap()).send().await.unwrap();
    assert_eq!(ids(&again), ids(&third));
}

#[tokio::test]
async fn an_empty_page_at_the_end_leads_back_to_the_last_items() {
    let db = orders().await;
    let query = || {
        db.query(Order::by_customer(&CustomerId(CUSTOMER.into())))
            .limit(23)
            .exact_end(false)
    };
    let all = query().send().await.unwrap();
    // Reading only the page, DynamoDB stopped at the limit without saying
    // the partition ended.
    let Some(cursor) = all.cursor.clone() else {
        panic!("a page ending exactly at its limit carries a cursor");
    };
    let empty = query().after(cursor).send().await.unwrap();
    assert!(empty.items.is_empty());
    let back = query().after(empty.previous.unwrap()).send().await.unwrap();
    assert_eq!(ids(&back), ids(&all));
    assert!(back.previous.is_none());
}

#[tokio::test]
async fn previous_page_cursors_are_encrypted_and_checked_like_the_others() {
    let db = orders()
        .await
        .with_cursor_encryption(b"0123456789abcdef0123456789abcdef".to_vec());
    let query = || {
        db.query(Order::by_customer(&CustomerId(CUSTOMER.into())))
            .limit(5)
    };
    let first = query().send().await.unwrap();
    let second = query()
        .after(first.cursor.clone().unwrap())
        .send()
        .await
        .unwrap();
    let previous = second.previous.clone().unwrap();
    assert!(!previous.as_str().contains(CUSTOMER));
    let back = query().after(previous.clone()).send().await.unwrap();
    assert_eq!(ids(&back), ids(&first));
    // Tampered, or given to another query: refused.
    let mut text = previous.to_string();
    text.truncate(text.len() - 3);
    let tampered = query().after(Cursor::from(text)).send().await;
    assert!(
        matches!(tampered, Err(Error::InvalidCursor { .. })),
        "{tampered:?}"
    );
    let reversed = query().newest_first(true).after(previous).send().await;
    assert!(
        matches!(reversed, Err(Error::InvalidCursor { .. })),
        "{reversed:?}"
    );
}

#[tokio::test]
async fn an_item_collection_pages_back_too() {
    let db = orders().await;
    let partition = Customer::pk(&CustomerId(CUSTOMER.into())).unwrap();
    let read = |cursor: Option<Cursor>| {
        let query = db.collection::<CustomerItem>(partition.clone()).limit(7);
        let query = match cursor {
            Some(cursor) => query.after(cursor),
            None => query,
        };
        query.send()
    };
    let mut forward = vec![read(None).await.unwrap()];
    while let Some(cursor) = forward.last().unwrap().cursor.clone() {
        forward.push(read(Some(cursor)).await.unwrap());
    }
    let count = |page: &Page<CustomerItem>| page.items.len();
    // The customer and its 23 orders.
    assert_eq!(forward.iter().map(count).sum::<usize>(), 24);
    let mut back = forward.last().unwrap().clone();
    let mut walked = vec![count(&back)];
    while let Some(previous) = back.previous.clone() {
        back = read(Some(previous)).await.unwrap();
        walked.push(count(&back));
    }
    walked.reverse();
    let sizes: Vec<usize> = forward.iter().map(count).collect();
    assert_eq!(walked, sizes);
}

#[tokio::test]
async fn merged_pages_of_a_sharded_index_have_no_previous_page() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    ddb_tests::put_raw(&db, &generated(CUSTOMER, 12, OrderStatus::Open)).await;
    let query = || {
        db.query(Order::open_orders(&OrderStatus::Open))
            .project::<ddb_examples::single_table::OpenOrder>()
            .limit(5)
    };
    let first = query().send().await.unwrap();
    let second = query().after(first.cursor.unwrap()).send().await.unwrap();
    assert_eq!(second.items.len(), 5);
    assert!(second.previous.is_none());
}

#[tokio::test]
async fn a_page_without_a_limit_offers_no_previous_page() {
    let db = orders().await;
    let query = || db.query(Order::by_customer(&CustomerId(CUSTOMER.into())));
    let first = query().limit(5).send().await.unwrap();
    // One DynamoDB page read back from a page need not end where the page
    // before it began: without a limit there is no previous page to offer.
    let rest = query().after(first.cursor.unwrap()).send().await.unwrap();
    assert_eq!(rest.items.len(), 18);
    assert!(rest.previous.is_none());
}
