//! The store's product catalogue, searched by similarity: each product
//! carries a small embedding (fixed numbers here, where a service would
//! store a model's output), and a vector index finds the products closest
//! to one, within its category.

use ddb_runtime::search::Searched;
use ddb_runtime::{Db, Entity, Result, Table};
use serde::{Deserialize, Serialize};

use crate::ProductId;

/// The catalogue table: products, and a vector index over their embeddings
/// partitioned by category (every search names one), filterable by stock.
#[derive(Table)]
#[ddb(name = "Catalog", pk = "PK")]
#[ddb(vector_index(
    name = "SimilarProducts",
    vector = "embedding",
    dimensions = 4,
    distance = "cosine",
    hash = "category",
    filters("stock", "_type")
))]
pub struct Catalog;

/// A product of the catalogue.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Catalog, entity = "Product", pk = "PRODUCT#{product_id}")]
pub struct Product {
    pub product_id: ProductId,
    pub name: String,
    pub category: String,
    /// `IN_STOCK` or `SOLD_OUT`.
    pub stock: String,
    #[ddb(vector(index = "SimilarProducts", search = "similar", by = category))]
    pub embedding: [f32; 4],
}

/// The products of the seed, with their embeddings.
pub fn products() -> Vec<Product> {
    let product = |id: &str, name: &str, category: &str, stock: &str, embedding| Product {
        product_id: ProductId(id.into()),
        name: name.into(),
        category: category.into(),
        stock: stock.into(),
        embedding,
    };
    vec![
        product(
            "P9",
            "Desk lamp",
            "lighting",
            "IN_STOCK",
            [0.9, 0.1, 0.3, 0.0],
        ),
        product(
            "P31",
            "Reading lamp",
            "lighting",
            "IN_STOCK",
            [0.8, 0.2, 0.4, 0.1],
        ),
        product(
            "P40",
            "Floor lamp",
            "lighting",
            "SOLD_OUT",
            [0.7, 0.1, 0.6, 0.2],
        ),
        product(
            "P52",
            "Pendant light",
            "lighting",
            "IN_STOCK",
            [0.3, 0.8, 0.2, 0.5],
        ),
        product(
            "P60",
            "Oak desk",
            "furniture",
            "IN_STOCK",
            [0.9, 0.1, 0.3, 0.1],
        ),
    ]
}

/// Creates the table if missing and puts the products.
pub async fn load(db: &Db) -> Result<()> {
    db.create_table::<Catalog>().await?;
    for product in products() {
        db.put(&product).send().await?;
    }
    Ok(())
}

/// The `n` products of `product`'s category most like it and in stock,
/// closest first (itself among them, at score 0).
pub async fn similar_in_stock(db: &Db, product: &Product, n: u32) -> Result<Searched<Product>> {
    db.search(Product::similar(&product.category, &product.embedding))
        .top_k(n)
        .filter(Product::fields().stock.eq("IN_STOCK"))
        .send()
        .await
}
