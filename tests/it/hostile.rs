//! The hostile-input catalogue. Each case is one input a careless or
//! hostile caller can give; each outcome is a typed error with nothing sent,
//! or an exact round trip, never a panic. The test writes the catalogue to
//! `docs/reliability.md` with `DDB_BLESS=1` and otherwise checks it is current.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::{Cursor, Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};
use time::macros::datetime;
use time::OffsetDateTime;

/// What happened to one case.
type Outcome = Result<String, Error>;

fn customer(id: &str) -> Customer {
    Customer {
        customer_id: CustomerId(id.into()),
        name: "Hostile".into(),
        email: "h@example.com".into(),
        order_count: 0,
    }
}

fn order(id: &str, at: OffsetDateTime) -> Order {
    Order {
        customer_id: CustomerId("c".into()),
        order_id: OrderId(id.into()),
        placed_at: at,
        status: OrderStatus::Shipped,
        total_cents: 1,
        version: 0,
    }
}

/// Creates `customer` and reads it back: "round trip" when equal.
async fn customer_round_trip(db: &Db, customer: Customer) -> Outcome {
    db.create(&customer).send().await?;
    let back = db.get(customer.primary_key()?).send().await?;
    Ok(if back.as_ref() == Some(&customer) {
        "round trip".into()
    } else {
        format!("read back {back:?}")
    })
}

async fn order_round_trip(db: &Db, order: Order) -> Outcome {
    db.create(&order).send().await?;
    let key = order.primary_key()?;
    let back = db.get(key).send().await?.ok_or_else(|| Error::NotFound {
        entity: "Order",
        key: String::new(),
    })?;
    Ok(
        if back.placed_at == order.placed_at && back.order_id == order.order_id {
            "round trip".into()
        } else {
            format!("read back {back:?}")
        },
    )
}

#[derive(Table)]
#[ddb(name = "Edges", pk = "PK", sk = "SK")]
struct Edges;

/// Integers at their edges, as key segments and as values.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Edges, entity = "Edge", pk = "EDGE", sk = "N#{n}", query = "all_edges")]
struct Edge {
    n: i64,
    small: u8,
    big: u64,
    payload: serde_json::Value,
    tags: Vec<String>,
}

fn edge(n: i64) -> Edge {
    Edge {
        n,
        small: u8::MAX,
        big: u64::MAX,
        payload: serde_json::Value::Null,
        tags: vec![],
    }
}

/// `depth` nested lists.
fn nested(depth: usize) -> serde_json::Value {
    (0..depth).fold(serde_json::json!(1), |inner, _| serde_json::json!([inner]))
}

fn name_of(outcome: &Outcome) -> String {
    match outcome {
        Ok(text) => text.clone(),
        Err(error) => {
            let debug = format!("{error:?}");
            let variant = debug.split([' ', '(', '{']).next().unwrap_or("").to_owned();
            format!("{variant} error")
        }
    }
}

#[tokio::test]
async fn the_hostile_input_catalogue() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let edges = ddb_tests::db_with_table::<Edges>().await;
    let at = datetime!(2026-09-10 08:12:44 UTC);
    // (family, input, expected outcome, the outcome, requests sent)
    let mut rows: Vec<(&str, String, &str, String, usize)> = Vec::new();
    let sent = || {
        [
            "PutItem",
            "UpdateItem",
            "GetItem",
            "Query",
            "BatchWriteItem",
            "TransactWriteItems",
        ]
        .iter()
        .map(|op| proxy.seen(op))
        .sum::<usize>()
    };
    // Runs one case through the proxy, counting what it sent.
    macro_rules! case {
        ($family:expr, $input:expr, $expected:expr, $outcome:expr $(,)?) => {{
            let before = sent();
            let outcome: Outcome = $outcome;
            rows.push((
                $family,
                $input,
                $expected,
                name_of(&outcome),
                sent() - before,
            ));
        }};
    }

    // Ids: every byte is data, never structure.
    for (label, id) in [
        ("`#` (the delimiter)", "a#ORDER#b"),
        ("`$` (the escape)", "a$b$$c"),
        ("`%`", "100%"),
        ("NUL", "a\0b"),
        ("emoji", "🦀🦀"),
        ("right-to-left mark", "\u{202E}abc"),
        ("combining character", "e\u{301}"),
        ("spaces and `!`", " a! "),
    ] {
        let outcome = customer_round_trip(&through, customer(id)).await;
        case!("id", format!("id with {label}"), "round trip", outcome);
    }
    case!(
        "id",
        "lone surrogate".into(),
        "impossible",
        Ok("impossible".into()),
    );
    case!(
        "id",
        "empty id".into(),
        "InvalidKeySegment error",
        customer_round_trip(&through, customer("")).await,
    );
    // Key sizes, after the prefix and escaping.
    case!(
        "key size",
        "partition key of exactly 2,048 bytes".into(),
        "round trip",
        customer_round_trip(&through, customer(&"a".repeat(2048 - 9))).await,
    );
    case!(
        "key size",
        "partition key of 2,049 bytes".into(),
        "KeyTooLarge error",
        customer_round_trip(&through, customer(&"a".repeat(2049 - 9))).await,
    );
    case!(
        "key size",
        "partition key over 2,048 bytes once `#` is escaped".into(),
        "KeyTooLarge error",
        customer_round_trip(&through, customer(&"#".repeat(1020))).await,
    );
    // ORDER# (6) + timestamp (20) + # (1) + id.
    case!(
        "key size",
        "sort key of exactly 1,024 bytes".into(),
        "round trip",
        order_round_trip(&through, order(&"o".repeat(1024 - 27), at)).await,
    );
    case!(
        "key size",
        "sort key of 1,025 bytes".into(),
        "KeyTooLarge error",
        order_round_trip(&through, order(&"o".repeat(1025 - 27), at)).await,
    );
    // Timestamps.
    case!(
        "timestamp",
        "before 1970".into(),
        "round trip",
        order_round_trip(&through, order("t1", datetime!(1969-12-31 23:59:59 UTC))).await,
    );
    case!(
        "timestamp",
        "year 9999".into(),
        "round trip",
        order_round_trip(&through, order("t2", datetime!(9999-12-31 23:59:59 UTC))).await,
    );
    case!(
        "timestamp",
        "year -1, outside the fixed-width 0000-9999".into(),
        "InvalidKeySegment error",
        order_round_trip(&through, order("t3", datetime!(-0001-01-01 00:00:00 UTC))).await,
    );
    case!(
        "timestamp",
        "with an offset (+02:00), keyed in UTC".into(),
        "round trip",
        order_round_trip(&through, order("t4", datetime!(2026-09-10 10:12:44 +2))).await,
    );
    case!(
        "timestamp",
        "with a fraction of a second".into(),
        "InvalidKeySegment error",
        order_round_trip(&through, order("t5", datetime!(2026-09-10 08:12:44.5 UTC))).await,
    );

    // Prefixes of each other: each key addresses its own item only.
    let prefixes = async {
        for id in ["12", "123", "12#3"] {
            through.create(&customer(id)).send().await?;
        }
        let twelve = through
            .get(Customer::key(&CustomerId("12".into()))?)
            .send()
            .await?;
        Ok(match twelve {
            Some(c) if c.customer_id.0 == "12" => "round trip".to_owned(),
            other => format!("read back {other:?}"),
        })
    };
    case!(
        "id",
        "ids that are prefixes of each other (12, 123, 12#3)".into(),
        "round trip",
        prefixes.await,
    );

    // Integers at their edges, as sort keys: they round trip and sort by value.
    let integers = async {
        let values = [i64::MIN, -1, 0, 1, i64::MAX];
        for n in values.iter().rev() {
            edges.create(&edge(*n)).send().await?;
        }
        let read: Vec<i64> = edges
            .query(Edge::all_edges())
            .collect()
            .await?
            .into_iter()
            .map(|e| e.n)
            .collect();
        Ok(if read == values {
            "round trip".to_owned()
        } else {
            format!("read back {read:?}")
        })
    };
    case!(
        "number",
        "i64::MIN, -1, 0, 1, i64::MAX as sort keys, u8::MAX and u64::MAX as values".into(),
        "round trip",
        integers.await,
    );

    // Values.
    let mut deep = edge(7);
    deep.payload = nested(31);
    case!(
        "value",
        "lists nested 32 deep".into(),
        "round trip",
        edges
            .create(&deep)
            .send()
            .await
            .map(|_| "round trip".into()),
    );
    let mut deeper = edge(8);
    deeper.payload = nested(32);
    case!(
        "value",
        "lists nested 33 deep".into(),
        "InvalidValue error",
        edges.create(&deeper).send().await.map(|_| "written".into()),
    );
    let mut duplicates = edge(9);
    duplicates.tags = vec!["a".into(), "a".into()];
    let listed = async {
        edges.create(&duplicates).send().await?;
        let back = edges.get(duplicates.primary_key()?).send().await?;
        Ok(if back.as_ref() == Some(&duplicates) {
            "round trip".to_owned()
        } else {
            format!("read back {back:?}")
        })
    };
    case!(
        "value",
        "a list with duplicates (a list, not a set)".into(),
        "round trip",
        listed.await,
    );
    let key = Customer::key(&CustomerId("v".into())).unwrap();
    let fields = Customer::fields();
    case!(
        "value",
        "an update value over 400 KB".into(),
        "ItemTooLarge error",
        through
            .update(key.clone())
            .set(fields.name, "x".repeat(410_000))
            .send()
            .await
            .map(|_| "written".into()),
    );
    case!(
        "value",
        "an update value of 400 KiB, over the limit with the item's key".into(),
        "ItemTooLarge error",
        through
            .update(key.clone())
            .set(fields.name, "n".repeat(409_600))
            .send()
            .await
            .map(|_| "written".into()),
    );
    let huge = (0..400).fold(fields.name.eq("x"), |c, i| {
        c | fields.name.eq(format!("{i}"))
    });
    case!(
        "value",
        "a condition over DynamoDB's 4 KB expression limit".into(),
        "ExpressionTooLarge error",
        through
            .update(key.clone())
            .set(fields.order_count, 1u32)
            .condition(huge)
            .send()
            .await
            .map(|_| "written".into()),
    );
    case!(
        "value",
        "an update that changes nothing".into(),
        "InvalidUpdate error",
        through
            .update(key.clone())
            .send()
            .await
            .map(|_| "written".into()),
    );

    // Item size: exactly 400 KB and one byte over (the name fills it).
    let fitted = |extra: usize| {
        let mut c = customer("size");
        c.name = String::new();
        let base = ddb_runtime::write::item_size(&c.to_item().unwrap());
        c.name = "n".repeat(ddb_runtime::write::ITEM_SIZE_LIMIT - base + extra);
        c
    };
    if ddb_tests::engine::has(ddb_tests::engine::Behaviour::FullSizeItems) {
        case!(
            "item size",
            "exactly 400 KB".into(),
            "written",
            through
                .put(&fitted(0))
                .send()
                .await
                .map(|_| "written".into()),
        );
    }
    case!(
        "item size",
        "one byte over 400 KB".into(),
        "ItemTooLarge error",
        through
            .put(&fitted(1))
            .send()
            .await
            .map(|_| "written".into()),
    );

    // Cursors.
    let query = |db: &Db| {
        db.query(Order::by_customer(&CustomerId("c".into())))
            .limit(1)
    };
    let genuine = query(&through).send().await.unwrap().cursor.unwrap();
    let text = genuine.as_str().to_owned();
    let resume = |cursor: String| {
        let query = query(&through).after(Cursor::from(cursor));
        async move { query.send().await.map(|_| "resumed".to_owned()) }
    };
    case!(
        "cursor",
        "truncated".into(),
        "InvalidCursor error",
        resume(text[..text.len() / 2].to_owned()).await,
    );
    case!(
        "cursor",
        "re-encoded with padded standard base64".into(),
        "InvalidCursor error",
        resume({
            use base64::Engine;
            let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(&text)
                .unwrap();
            base64::engine::general_purpose::STANDARD.encode(raw) + "="
        })
        .await,
    );
    case!(
        "cursor",
        "empty".into(),
        "InvalidCursor error",
        resume(String::new()).await,
    );
    case!(
        "cursor",
        "not base64".into(),
        "InvalidCursor error",
        resume("%%%".into()).await,
    );
    let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
        use base64::Engine;
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut document: serde_json::Value =
            serde_json::from_slice(&engine.decode(&text).unwrap()).unwrap();
        edit(&mut document);
        engine.encode(serde_json::to_vec(&document).unwrap())
    };
    case!(
        "cursor",
        "pointing into another partition".into(),
        "InvalidCursor error",
        resume(edited(&|d| {
            d["s"][0]["PK"] = serde_json::json!({ "S": "CUSTOMER#other" })
        }))
        .await,
    );
    case!(
        "cursor",
        "outside the query's sort range (the profile's key)".into(),
        "InvalidCursor error",
        resume(edited(&|d| {
            d["s"][0]["SK"] = serde_json::json!({ "S": "PROFILE" })
        }))
        .await,
    );
    case!(
        "cursor",
        "of another query (another fingerprint)".into(),
        "InvalidCursor error",
        resume(edited(&|d| d["q"] = serde_json::json!("0000000000000000"))).await,
    );
    case!(
        "cursor",
        "with an extra key attribute".into(),
        "InvalidCursor error",
        resume(edited(&|d| {
            d["s"][0]["GSI1PK"] = serde_json::json!({ "S": "x" })
        }))
        .await,
    );
    let other_partition = query(&through).send().await.unwrap().cursor.unwrap();
    let of_another = db
        .query(Order::by_customer(&CustomerId("d".into())))
        .limit(1)
        .after(other_partition)
        .send()
        .await
        .map(|_| "resumed".to_owned());
    case!(
        "cursor",
        "of the same entity's query on another partition".into(),
        "InvalidCursor error",
        of_another,
    );

    // Sort conditions and limits.
    case!(
        "query",
        "a sort condition over 1,024 bytes".into(),
        "KeyTooLarge error",
        through
            .query(Order::by_customer(&CustomerId("c".into())))
            .ge(&datetime!(2026-01-01 00:00:00 UTC))
            .eq((&at, &OrderId("o".repeat(1100))))
            .collect()
            .await
            .map(|_| "sent".into()),
    );
    case!(
        "query",
        "limit(0)".into(),
        "InvalidRequest error",
        through
            .query(Order::by_customer(&CustomerId("c".into())))
            .limit(0)
            .send()
            .await
            .map(|_| "sent".into()),
    );

    // Keys read from items.
    let foreign = Customer::key(&CustomerId("c".into())).unwrap().to_item();
    case!(
        "key",
        "another entity's key read as an order's".into(),
        "KeyMismatch error",
        ddb_runtime::Key::<Order>::from_item(&foreign).map(|_| "parsed".into()),
    );
    let mut wrong_type = foreign.clone();
    wrong_type.insert("PK".into(), AttributeValue::Bool(true));
    case!(
        "key",
        "a key attribute of the wrong type".into(),
        "KeyMismatch error",
        ddb_runtime::Key::<Customer>::from_item(&wrong_type).map(|_| "parsed".into()),
    );

    // Batches and transactions.
    case!(
        "batch",
        "the same key twice in a batch".into(),
        "DuplicateKey error",
        through
            .batch_put(&[customer("b"), customer("b")])
            .await
            .map(|_| "written".into()),
    );
    let mut transaction = through.transact_write();
    for i in 0..101 {
        transaction = transaction.create(&customer(&format!("t{i}")));
    }
    case!(
        "batch",
        "a transaction of 101 actions".into(),
        "InvalidRequest error",
        transaction.send().await.map(|_| "written".into()),
    );

    for (family, input, expected, outcome, requests) in &rows {
        assert_eq!(outcome, expected, "{family}: {input}");
        if outcome.ends_with("error") {
            assert_eq!(
                *requests, 0,
                "{family}: {input}: no request is sent for invalid input"
            );
        }
    }
    assert!(rows.len() >= 40, "{} cases", rows.len());
    // The catalogue is written from a run with every case.
    ddb_tests::requires!(FullSizeItems);

    let mut doc = String::from(
        "## Hostile input\n\nEvery case of `tests/it/hostile.rs`, with its outcome: a typed error with \
         no request sent, or an exact round trip; none panics. The test checks every outcome and that no request \
         was sent for an invalid input, and keeps this file current (`DDB_BLESS=1 cargo test -p ddb-tests --test it \
         hostile` rewrites this section).\n\n| family | input | outcome |\n|---|---|---|\n",
    );
    for (family, input, _, outcome, _) in &rows {
        let outcome = if outcome == "impossible" {
            "cannot be built: a Rust `String` is valid UTF-8".to_owned()
        } else {
            outcome.clone()
        };
        doc.push_str(&format!("| {family} | {input} | {outcome} |\n"));
    }
    doc.push('\n');
    // The catalogue is this file's "Hostile input" section, up to the next.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/reliability.md");
    let file = std::fs::read_to_string(path).unwrap_or_default();
    let start = file.find("## Hostile input").unwrap_or(file.len());
    let end = file[start..]
        .find("\n## ")
        .map_or(file.len(), |at| start + at + 1);
    let checked_in = &file[start..end];
    if std::env::var_os("DDB_BLESS").is_some() {
        let mut blessed = file[..start].to_owned();
        if blessed.is_empty() {
            blessed.push_str("# Reliability\n\n");
        }
        blessed.push_str(&doc);
        blessed.push_str(&file[end..]);
        std::fs::write(path, blessed).unwrap();
        return;
    }
    assert_eq!(
        checked_in, doc,
        "docs/reliability.md is stale: run with DDB_BLESS=1"
    );
}
