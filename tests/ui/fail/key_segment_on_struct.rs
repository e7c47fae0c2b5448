use ddb_runtime::KeySegment;

#[derive(KeySegment)]
pub struct Money {
    pub cents: u64,
    pub currency: String,
}

#[derive(KeySegment)]
pub enum Status {
    Open,
    Closed(String),
    #[ddb(rename = "OPEN")]
    Reopened,
}

fn main() {}
