// A derive whose input is wrong still implements its trait (a stand-in
// beside the error), so using the type adds no error of its own: a key
// segment in a key, a projection in a query, a collection in a read.
use ddb_runtime::{Collection, Db, Entity, KeySegment, Projection, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Shop", pk = "PK", sk = "SK")]
pub struct Shop;

#[derive(KeySegment, Serialize, Deserialize)]
pub struct Sku {
    pub code: String,
}

#[derive(KeySegment, Serialize, Deserialize)]
pub struct Wrapped<T>(pub T);

#[derive(Entity)]
#[ddb(table = Shop, entity = "Product", pk = "PRODUCT#{sku}", sk = "SIZE#{size}", query = "by_sku")]
pub struct Product {
    pub sku: Sku,
    pub size: Wrapped<u32>,
    pub name: String,
}

#[derive(Projection)]
pub struct ProductName {
    pub name: String,
}

#[derive(Collection)]
pub struct Catalog {
    pub product: Product,
}

pub async fn reads(db: &Db, sku: Sku) -> ddb_runtime::Result<()> {
    let _names: Vec<ProductName> = db
        .query(Product::by_sku(&sku))
        .project::<ProductName>()
        .collect()
        .await?;
    let _all: Vec<Catalog> = db.collection::<Catalog>(Product::pk(&sku)?).collect().await?;
    Ok(())
}

fn main() {}
