// One mistake is one error: an entity missing `entity = "..."` is reported
// once, and its code is generated all the same (the struct's name stands in
// for the entity type), so a projection, queries, key functions, updates and
// a collection of it add no error of their own.
use ddb_runtime::{Collection, Db, Entity, Projection, Table};

#[derive(Table)]
#[ddb(name = "Shop", pk = "PK", sk = "SK")]
#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct Shop;

#[derive(Entity)]
#[ddb(table = Shop, entity = "User", pk = "USER#{user_id}", sk = "PROFILE")]
pub struct User {
    pub user_id: String,
    pub name: String,
}

#[derive(Entity)]
#[ddb(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_id}", query = "by_user")]
#[ddb(index(name = "GSI1", pk = "ORDER#{order_id}", sk = "ORDER", query = "by_id"))]
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

pub async fn reads_and_writes(db: &Db) -> ddb_runtime::Result<()> {
    let user = "u1".to_owned();
    let _orders: Vec<Order> = db.query(Order::by_user(&user)).collect().await?;
    let _totals: Vec<OrderTotal> = db
        .query(Order::by_user(&user))
        .project::<OrderTotal>()
        .collect()
        .await?;
    let _by_id = db.query(Order::by_id(&"A1".to_owned())).send().await?;
    let key = Order::key(&user, &"A1".to_owned())?;
    let _order: Option<Order> = db.get(key.clone()).send().await?;
    db.update(key).set(Order::fields().total_cents, 10).send().await?;
    let _items: Vec<UserItem> = db.collection::<UserItem>(User::pk(&user)?).collect().await?;
    Ok(())
}

fn main() {}
