use ddb_runtime::Table;

#[derive(Table)]
#[ddb(name = "Ecommerce", pk = "PK", sk = "SK", stream = "new_and_old")]
pub struct Ecommerce;

fn main() {}
