// An entity whose key cannot be read is reported where it is wrong; in its
// place the derive emits a stand-in with the struct's fields, so a
// projection, a collection, a get or a scan of it add no error of their own
// (a query entry point the broken key would have made is missing).
use ddb_runtime::{Collection, Db, Entity, Projection, Table};

#[derive(Table)]
#[ddb(name = "Shop", pk = "PK", sk = "SK")]
pub struct Shop;

#[derive(Entity)]
#[ddb(table = Shop, entity = "User", pk = "USER#{user_id}", sk = "PROFILE")]
pub struct User {
    pub user_id: String,
    pub name: String,
}

#[derive(Entity)]
#[ddb(table = Shop, entity = "Order", pk = "USER#{user_id", sk = "ORDER#{order_id}", scan)]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub total_cents: u64,
}

#[derive(Projection)]
#[ddb(entity = Order)]
pub struct OrderTotal {
    pub user_id: String,
    pub total_cents: u64,
}

#[derive(Collection)]
pub enum UserItem {
    Profile(User),
    Order(Order),
}

pub async fn reads(db: &Db, key: ddb_runtime::Key<Order>) -> ddb_runtime::Result<()> {
    let _order: Option<Order> = db.get(key.clone()).send().await?;
    let _total: Option<OrderTotal> = db.get(key).project::<OrderTotal>().send().await?;
    let _all: Vec<Order> = db.scan::<Order>().filter(Order::fields().total_cents.gt(10u64)).collect().await?;
    let _items: Vec<UserItem> = db.collection::<UserItem>(User::pk(&"u1".to_owned())?).collect().await?;
    Ok(())
}

fn main() {}
