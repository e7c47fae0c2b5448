//! Vector search: a table's vector indexes declared, written through the
//! fields' own encoders, searched with SearchVectors, results checked
//! against a brute-force ranking of the same data.

use ddb_runtime::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK")]
#[ddb(vector_index(
    name = "ByEmbedding",
    vector = "embedding",
    dimensions = 4,
    distance = "cosine",
    hash = "category",
    filters("color", "_type")
))]
pub struct Catalog;

/// A product: its embedding is searched within its category.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Catalog, entity = "Product", pk = "PRODUCT#{id}")]
pub struct Product {
    pub id: String,
    pub category: String,
    pub color: String,
    #[ddb(vector(index = "ByEmbedding", search = "similar", by = category))]
    pub embedding: Option<Vec<f32>>,
}

#[derive(Table)]
#[ddb(name = "Points", pk = "PK")]
#[ddb(vector_index(
    name = "ByEuclidean",
    vector = "at",
    dimensions = 3,
    distance = "euclidean"
))]
pub struct EuclideanPoints;

/// A point searched by straight-line distance, over the whole table.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = EuclideanPoints, entity = "Point", pk = "POINT#{id}")]
pub struct Point {
    pub id: u32,
    #[ddb(vector(index = "ByEuclidean", search = "nearest"))]
    pub at: [f32; 3],
}

#[derive(Table)]
#[ddb(name = "Signals", pk = "PK")]
#[ddb(vector_index(name = "ByDot", vector = "v", dimensions = 3, distance = "dot_product"))]
pub struct DotSignals;

/// A signal searched by dot product (higher is closer).
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = DotSignals, entity = "Signal", pk = "SIGNAL#{id}")]
pub struct Signal {
    pub id: u32,
    #[ddb(vector(index = "ByDot", search = "aligned"))]
    pub v: Vec<f32>,
}

/// A reproducible vector of `n` numbers in -1..1.
fn vector(rng: &mut ddb_tests::SplitMix64, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.below(2001) as f32 - 1000.0) / 1000.0)
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    1.0 - dot / (norm(a) * norm(b))
}

fn euclidean(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

/// The ids of the `k` best of `items` by `score` (lower first, or higher
/// first when `higher`).
fn brute_force<T: Clone>(items: &[(T, f64)], k: usize, higher: bool) -> Vec<T> {
    let mut ranked = items.to_vec();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    if higher {
        ranked.reverse();
    }
    ranked.into_iter().take(k).map(|(t, _)| t).collect()
}

async fn catalog(db: &Db, n: u64) -> Vec<Product> {
    let mut rng = ddb_tests::SplitMix64(3);
    let products: Vec<Product> = (0..n)
        .map(|i| Product {
            id: format!("P{i}"),
            category: ["lamps", "chairs"][(i % 2) as usize].into(),
            color: ["red", "blue", "green"][rng.below(3) as usize].into(),
            embedding: Some(vector(&mut rng, 4)),
        })
        .collect();
    for product in &products {
        db.create(product).send().await.unwrap();
    }
    products
}

#[tokio::test]
async fn a_cosine_search_returns_the_closest_items_of_its_category_best_first() {
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<Catalog>().await;
    let products = catalog(&db, 40).await;
    let query = [0.3, -0.2, 0.9, 0.1];
    let found = db
        .search(Product::similar(&"lamps".to_string(), &query))
        .top_k(5)
        .send()
        .await
        .unwrap();
    let lamps: Vec<(String, f64)> = products
        .iter()
        .filter(|p| p.category == "lamps")
        .map(|p| (p.id.clone(), cosine(p.embedding.as_ref().unwrap(), &query)))
        .collect();
    let ids: Vec<String> = found.results.iter().map(|r| r.item.id.clone()).collect();
    assert_eq!(ids, brute_force(&lamps, 5, false));
    for hit in &found.results {
        let expected = lamps.iter().find(|(id, _)| *id == hit.item.id).unwrap().1;
        assert!(
            (hit.score - expected).abs() < 1e-5,
            "{} vs {expected}",
            hit.score
        );
    }
    // A filter on the search schema.
    let red = db
        .search(Product::similar(&"lamps".to_string(), &query))
        .top_k(5)
        .filter(Product::fields().color.eq("red"))
        .send()
        .await
        .unwrap();
    let red_lamps: Vec<(String, f64)> = lamps
        .iter()
        .filter(|(id, _)| products.iter().any(|p| p.id == *id && p.color == "red"))
        .cloned()
        .collect();
    let ids: Vec<String> = red.results.iter().map(|r| r.item.id.clone()).collect();
    assert_eq!(ids, brute_force(&red_lamps, 5, false));
    // Another comparison than `=` is refused before sending.
    let ranged = db
        .search(Product::similar(&"lamps".to_string(), &query))
        .filter(Product::fields().color.gt("a"))
        .send()
        .await;
    assert!(
        matches!(ranged, Err(Error::InvalidRequest { .. })),
        "{ranged:?}"
    );
}

#[tokio::test]
async fn euclidean_and_dot_product_searches_rank_as_their_distance_says() {
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<EuclideanPoints>().await;
    let mut rng = ddb_tests::SplitMix64(9);
    let points: Vec<Point> = (0..30)
        .map(|id| {
            let v = vector(&mut rng, 3);
            Point {
                id,
                at: [v[0], v[1], v[2]],
            }
        })
        .collect();
    for point in &points {
        db.put(point).send().await.unwrap();
    }
    let query = [0.5, 0.5, -0.5];
    let found = db
        .search(Point::nearest(&query))
        .top_k(7)
        .send()
        .await
        .unwrap();
    let scored: Vec<(u32, f64)> = points
        .iter()
        .map(|p| (p.id, euclidean(&p.at, &query)))
        .collect();
    let ids: Vec<u32> = found.results.iter().map(|r| r.item.id).collect();
    assert_eq!(ids, brute_force(&scored, 7, false));

    let db = ddb_tests::db_with_table::<DotSignals>().await;
    let signals: Vec<Signal> = (0..30)
        .map(|id| Signal {
            id,
            v: vector(&mut rng, 3),
        })
        .collect();
    for signal in &signals {
        db.put(signal).send().await.unwrap();
    }
    let found = db
        .search(Signal::aligned(&query))
        .top_k(7)
        .send()
        .await
        .unwrap();
    let scored: Vec<(u32, f64)> = signals.iter().map(|s| (s.id, dot(&s.v, &query))).collect();
    let ids: Vec<u32> = found.results.iter().map(|r| r.item.id).collect();
    assert_eq!(ids, brute_force(&scored, 7, true), "higher is closer");
}

#[tokio::test]
async fn a_malformed_vector_is_refused_before_sending_and_a_missing_one_is_not_indexed() {
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<Catalog>().await;
    let product = |id: &str, embedding: Option<Vec<f32>>| Product {
        id: id.into(),
        category: "lamps".into(),
        color: "red".into(),
        embedding,
    };
    for bad in [
        vec![1.0, 2.0],
        vec![1.0, f32::NAN, 0.0, 0.0],
        vec![f32::INFINITY, 0.0, 0.0, 1.0],
    ] {
        match db.create(&product("P1", Some(bad.clone()))).send().await {
            Err(Error::InvalidValue {
                entity: "Product", ..
            }) => {}
            other => panic!("expected {bad:?} refused, got {other:?}"),
        }
    }
    assert!(
        ddb_tests::scan_raw::<Catalog>(&db).await.is_empty(),
        "nothing was written"
    );
    // Without a vector the item is stored, and not searchable.
    db.create(&product("P2", None)).send().await.unwrap();
    db.create(&product("P3", Some(vec![1.0, 0.0, 0.0, 0.0])))
        .send()
        .await
        .unwrap();
    let found = db
        .search(Product::similar(
            &"lamps".to_string(),
            &[1.0, 0.0, 0.0, 0.0],
        ))
        .send()
        .await
        .unwrap();
    let ids: Vec<&str> = found.results.iter().map(|r| r.item.id.as_str()).collect();
    assert_eq!(ids, ["P3"]);
    // A search vector of the wrong length, or a top_k out of range, sends nothing.
    let wrong = db
        .search(Product::similar(&"lamps".to_string(), &[1.0]))
        .send()
        .await;
    assert!(
        matches!(wrong, Err(Error::InvalidValue { .. })),
        "{wrong:?}"
    );
    let many = db
        .search(Product::similar(
            &"lamps".to_string(),
            &[1.0, 0.0, 0.0, 0.0],
        ))
        .top_k(101)
        .send()
        .await;
    assert!(
        matches!(many, Err(Error::InvalidRequest { .. })),
        "{many:?}"
    );
    // A filter on an attribute outside the search schema is refused.
    let off_schema = db
        .search(Product::similar(
            &"lamps".to_string(),
            &[1.0, 0.0, 0.0, 0.0],
        ))
        .filter(Product::fields().id.eq("P3"))
        .send()
        .await;
    assert!(
        matches!(off_schema, Err(Error::InvalidRequest { .. })),
        "{off_schema:?}"
    );
}

#[tokio::test]
async fn an_update_that_changes_the_vector_moves_the_item_in_the_results() {
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<Catalog>().await;
    let product = |id: &str, v: [f32; 4]| Product {
        id: id.into(),
        category: "lamps".into(),
        color: "red".into(),
        embedding: Some(v.to_vec()),
    };
    db.create(&product("near", [1.0, 0.0, 0.0, 0.0]))
        .send()
        .await
        .unwrap();
    db.create(&product("far", [0.0, 1.0, 0.0, 0.0]))
        .send()
        .await
        .unwrap();
    let query = [1.0, 0.1, 0.0, 0.0];
    let first = |found: &ddb_runtime::Searched<Product>| found.results[0].item.id.clone();
    let search = || {
        db.search(Product::similar(&"lamps".to_string(), &query))
            .send()
    };
    assert_eq!(first(&search().await.unwrap()), "near");
    db.update(Product::key(&"far".to_string()).unwrap())
        .set(Product::fields().embedding, Some(vec![1.0, 0.1, 0.0, 0.0]))
        .send()
        .await
        .unwrap();
    assert_eq!(first(&search().await.unwrap()), "far");
    // An update setting a malformed vector sends nothing.
    let bad = db
        .update(Product::key(&"far".to_string()).unwrap())
        .set(Product::fields().embedding, Some(vec![1.0]))
        .send()
        .await;
    assert!(matches!(bad, Err(Error::InvalidValue { .. })), "{bad:?}");
}

/// The catalog as launched, before it had its vector index.
#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK")]
pub struct CatalogAtLaunch;

/// An index added after launch: the sync adds it with UpdateTable and waits
/// for it to be ACTIVE; until DynamoDB has filled it a search is refused
/// with a typed, retryable error, then it finds the items stored before.
#[tokio::test]
async fn a_vector_index_added_after_launch_is_searchable_once_filled() {
    ddb_tests::requires!(VectorSearch);
    let launched = ddb_tests::db_with_table::<CatalogAtLaunch>().await;
    let name = launched.table_name::<CatalogAtLaunch>().to_owned();
    let db = launched.with_table_name::<Catalog>(&name);
    let products = catalog(&db, 6).await;
    // Stored before the index, an item whose vector is malformed: DynamoDB
    // leaves it out of the index it fills.
    use aws_sdk_dynamodb::types::AttributeValue as V;
    let malformed = [
        ("PK", V::S("PRODUCT#BAD".into())),
        ("_type", V::S("Product".into())),
        ("id", V::S("BAD".into())),
        ("category", V::S("lamps".into())),
        ("color", V::S("red".into())),
        ("embedding", V::S("not a vector".into())),
    ];
    db.client()
        .put_item()
        .table_name(&name)
        .set_item(Some(
            malformed
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        ))
        .send()
        .await
        .unwrap();
    let plan = ddb_runtime::schema::plan_sync(db.client(), &Catalog::DEF, &name)
        .await
        .unwrap();
    assert_eq!(
        plan.changes,
        [ddb_runtime::schema::SyncChange::AddVectorIndex(
            "ByEmbedding"
        )]
    );
    let syncing = {
        let db = db.clone();
        tokio::spawn(async move { db.sync_table::<Catalog>().await })
    };
    let query = [0.3, -0.2, 0.9, 0.1];
    let search = || {
        db.search(Product::similar(&"lamps".to_string(), &query))
            .send()
    };
    let mut refused = false;
    let found = loop {
        match search().await {
            Ok(found) => break found,
            Err(error @ Error::IndexNotSearchable { .. }) => {
                assert!(error.is_retryable());
                refused = true;
            }
            // Not yet created by the sync.
            Err(Error::Sdk { .. }) if !refused => {}
            Err(error) => panic!("unexpected: {error:?}"),
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    };
    assert!(refused, "the index was searchable at once");
    let applied = syncing.await.unwrap().unwrap();
    assert_eq!(applied.changes, plan.changes);
    let lamps: Vec<(String, f64)> = products
        .iter()
        .filter(|p| p.category == "lamps")
        .map(|p| (p.id.clone(), cosine(p.embedding.as_ref().unwrap(), &query)))
        .collect();
    let ids: Vec<String> = found.results.iter().map(|r| r.item.id.clone()).collect();
    assert_eq!(ids, brute_force(&lamps, 10, false));
    let again = ddb_runtime::schema::plan_sync(db.client(), &Catalog::DEF, &name)
        .await
        .unwrap();
    assert!(again.is_empty(), "{again}");
}

#[test]
fn the_search_is_reported_priced_and_granted() {
    let report = ddb_tools::access_pattern_report(&[&Product::SCHEMA]);
    assert!(
        report.contains("| Product | similar | SearchVectors | ByEmbedding | category = :value, top k by COSINE (4 dimensions) | eventual |"),
        "{report}"
    );
    let item = Product {
        id: "P1".into(),
        category: "lamps".into(),
        color: "red".into(),
        embedding: Some(vec![0.5; 4]),
    }
    .to_item()
    .unwrap();
    let cost = ddb_tools::cost::cost_report(&[(&Product::SCHEMA, item)], 10);
    assert!(
        cost.contains("Product searches vector index ByEmbedding (`similar`)"),
        "{cost}"
    );
    let arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/Catalog";
    let policy = ddb_tools::iam::PolicyBuilder::new(arn)
        .entity(&Product::SCHEMA, ddb_tools::iam::Access::Read)
        .build()
        .unwrap();
    let statements = policy.document["Statement"].as_array().unwrap();
    let search = statements
        .iter()
        .find(|s| s["Action"][0] == "dynamodb:SearchVectors")
        .expect("SearchVectors is granted");
    assert_eq!(search["Resource"][0], format!("{arn}/index/ByEmbedding"));
    assert!(
        search.get("Condition").is_none(),
        "no FGAC condition applies to SearchVectors"
    );
    // Scoped to a caller's partitions, it is left to a policy of its own.
    let scoped = ddb_tools::iam::PolicyBuilder::new(arn)
        .entity(&Product::SCHEMA, ddb_tools::iam::Access::Read)
        .scoped_to("id", "P1")
        .build()
        .unwrap();
    assert!(
        scoped.left_out.iter().any(|l| l.contains("SearchVectors")),
        "{:?}",
        scoped.left_out
    );
}

#[derive(Table)]
#[ddb(name = "Shelf", pk = "PK")]
#[ddb(vector_index(
    name = "ByLook",
    vector = "look",
    dimensions = 2,
    distance = "euclidean",
    hash = "aisle",
    filters("size: N"),
    projection = "keys_only"
))]
pub struct Shelf;

/// An item on a shelf: its size is optional, and the index holds keys only.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Shelf, entity = "Item", pk = "ITEM#{id}")]
pub struct ShelfItem {
    pub id: String,
    pub aisle: String,
    pub size: Option<u32>,
    #[ddb(vector(index = "ByLook", search = "looking_like", by = aisle))]
    pub look: Vec<f32>,
}

/// A projection of a shelf item: its id, which the keys-only index does
/// not carry, and its aisle, which it does.
#[derive(ddb_runtime::Projection, Debug, PartialEq)]
#[ddb(entity = ShelfItem)]
pub struct Aisle {
    pub aisle: String,
}

#[tokio::test]
async fn the_search_schema_is_written_and_searched_as_dynamodb_takes_it() {
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<Shelf>().await;
    let item = |id: &str, aisle: &str, size: Option<u32>, look: [f32; 2]| ShelfItem {
        id: id.into(),
        aisle: aisle.into(),
        size,
        look: look.to_vec(),
    };
    // A filter attribute left `None` is left out of the item, not sent as
    // a NULL DynamoDB would refuse; an empty hash value is refused.
    db.create(&item("a", "7", None, [0.0, 0.0]))
        .send()
        .await
        .unwrap();
    db.create(&item("b", "7", Some(3), [1.0, 0.0]))
        .send()
        .await
        .unwrap();
    db.create(&item("c", "7", Some(3), [5.0, 5.0]))
        .send()
        .await
        .unwrap();
    match db.create(&item("d", "", None, [0.0, 1.0])).send().await {
        Err(Error::InvalidValue { .. }) => {}
        other => panic!("expected the empty hash value refused, got {other:?}"),
    }
    db.update(ShelfItem::key(&"b".to_string()).unwrap())
        .set(ShelfItem::fields().size, None)
        .send()
        .await
        .unwrap();
    db.update(ShelfItem::key(&"b".to_string()).unwrap())
        .set(ShelfItem::fields().size, Some(3))
        .send()
        .await
        .unwrap();
    // A keys-only index: whole entities by hydrating, or a projection of
    // what it carries.
    let search = || db.search(ShelfItem::looking_like(&"7".to_string(), &[0.9, 0.0]));
    let ids: Vec<String> = search()
        .hydrate()
        .await
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.item.id)
        .collect();
    assert_eq!(ids, ["b", "a", "c"]);
    let aisles = search().project::<Aisle>().await.unwrap();
    assert_eq!(aisles.results.len(), 3);
    assert!(matches!(
        search().send().await,
        Err(Error::InvalidRequest { .. })
    ));
    let sized = search()
        .filter(ShelfItem::fields().size.eq(Some(3)))
        .hydrate()
        .await
        .unwrap();
    let ids: Vec<String> = sized.results.into_iter().map(|r| r.item.id).collect();
    assert_eq!(ids, ["b", "c"]);
    // Conditions SearchVectors refuses are refused before sending.
    for refused in [
        search().filter(ShelfItem::fields().aisle.eq("7")),
        search()
            .filter(ShelfItem::fields().size.eq(Some(3)) & ShelfItem::fields().size.eq(Some(4))),
        db.search(ShelfItem::looking_like(&String::new(), &[0.9, 0.0])),
    ] {
        let sent = refused.hydrate().await;
        assert!(
            matches!(sent, Err(Error::InvalidRequest { .. })),
            "{sent:?}"
        );
    }
}

/// A note as stored before it had an embedding, at schema version 1.
mod note_at_version_1 {
    use super::*;

    #[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[ddb(table = Notebook, entity = "Note", pk = "NOTE#{id}")]
    pub struct Note {
        pub id: String,
    }
}

#[derive(Table)]
#[ddb(name = "Notebook", pk = "PK")]
#[ddb(vector_index(
    name = "ByMeaning",
    vector = "meaning",
    dimensions = 2,
    distance = "cosine"
))]
pub struct Notebook;

/// A note at schema version 2, which added an embedding the migration
/// cannot compute: upgraded items have none until one is written.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Notebook, entity = "Note", pk = "NOTE#{id}")]
#[ddb(schema_version = 2, migrate(from = 1, with = no_meaning_yet))]
pub struct Note {
    pub id: String,
    #[ddb(vector(index = "ByMeaning", search = "meaning_like"))]
    pub meaning: Option<Vec<f32>>,
}

fn no_meaning_yet(_: &mut ddb_runtime::Item) -> Result<(), String> {
    Ok(())
}

#[tokio::test]
async fn an_upgrade_that_adds_no_vector_leaves_the_item_out_of_the_index() {
    ddb_tests::requires!(VectorSearch);
    let db = ddb_tests::db_with_table::<Notebook>().await;
    for id in ["1", "2"] {
        let old = note_at_version_1::Note { id: id.into() };
        db.create(&old).send().await.unwrap();
    }
    let done = db.backfill::<Note>().send().await.unwrap();
    assert_eq!((done.updated, done.failed), (2, 0));
    db.put(&Note {
        id: "2".into(),
        meaning: Some(vec![1.0, 0.0]),
    })
    .send()
    .await
    .unwrap();
    // A versioned entity is read whole from the table.
    let found = db
        .search(Note::meaning_like(&[1.0, 0.1]))
        .send()
        .await
        .unwrap();
    let ids: Vec<&str> = found.results.iter().map(|r| r.item.id.as_str()).collect();
    assert_eq!(ids, ["2"]);
}
