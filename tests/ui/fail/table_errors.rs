use ddb_runtime::Table;

#[derive(Table)]
#[ddb(pk = "PK", sk_type = "N", partition = "PK")]
#[ddb(index(name = "G", pk = "GSI1PK", projection = "some"))]
#[ddb(index(name = "GSI2", pk_type = "B"))]
pub struct Broken;

fn main() {}
