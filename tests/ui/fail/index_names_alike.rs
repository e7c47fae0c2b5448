// `Idx-1` and `Idx_1` are two valid DynamoDB index names, but an index's key
// functions are named after it in snake_case (`idx_1_key`, `idx_1_pk`,
// `IDX_1_PK_PREFIX`), and both names give the same ones: refused at the
// second name, rather than as duplicate definitions.
use ddb_runtime::{Entity, Table};

#[derive(Table)]
#[ddb(name = "Shop", pk = "PK", sk = "SK")]
#[ddb(index(name = "Idx-1", pk = "GSI1PK", sk = "GSI1SK"))]
#[ddb(index(name = "Idx_1", pk = "GSI2PK", sk = "GSI2SK"))]
#[ddb(index(name = "ByOwner", pk = "GSI3PK"))]
#[ddb(index(name = "by_owner", pk = "GSI4PK"))]
#[ddb(index(name = "1st", pk = "GSI5PK"))]
pub struct Shop;

#[derive(Entity)]
#[ddb(table = Shop, entity = "Order", pk = "ORDER#{order_id}", sk = "ORDER")]
#[ddb(index(name = "Idx-1", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}"))]
#[ddb(index(name = "Idx_1", pk = "STATUS#{status}", sk = "ORDER#{order_id}"))]
pub struct Order {
    pub order_id: String,
    pub customer_id: String,
    pub status: String,
}

// Case alone makes no difference either.
#[derive(Entity)]
#[ddb(table = Shop, entity = "Item", pk = "ITEM#{item_id}", sk = "ITEM")]
#[ddb(index(name = "ByOwner", pk = "OWNER#{owner}"))]
#[ddb(index(name = "by_owner", pk = "BY_OWNER#{owner}"))]
pub struct Item {
    pub item_id: String,
    pub owner: String,
}

// A name starting with a digit gives no Rust name at all (`1st_key`).
#[derive(Entity)]
#[ddb(table = Shop, entity = "Line", pk = "LINE#{line_id}", sk = "LINE")]
#[ddb(index(name = "1st", pk = "FIRST#{line_id}"))]
pub struct Line {
    pub line_id: String,
}

fn main() {}
