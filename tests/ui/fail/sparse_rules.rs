use ddb_runtime::{Entity, KeySegment, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Orders", pk = "PK", sk = "SK")]
#[ddb(index(name = "Open", pk = "OPEN_PK", sk = "OPEN_SK"))]
pub struct Orders;

#[derive(KeySegment, Serialize, Deserialize, Clone, Copy, PartialEq)]
pub enum Status {
    Open,
    Shipped,
}

// An opaque function: ddb cannot know which updates change membership.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "Opaque", pk = "ORDER#{id}", sk = "ORDER")]
#[ddb(index(name = "Open", pk = "OPEN", sk = "{id}", when = Opaque::is_open))]
pub struct Opaque {
    pub id: String,
    pub status: Status,
}

impl Opaque {
    fn is_open(&self) -> bool {
        self.status == Status::Open
    }
}

// A function must declare what it reads.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "Undeclared", pk = "ORDER#{id}", sk = "ORDER")]
#[ddb(index(name = "Open", pk = "OPEN", sk = "{id}", when(Undeclared::is_open)))]
pub struct Undeclared {
    pub id: String,
    pub status: Status,
}

impl Undeclared {
    fn is_open(&self) -> bool {
        self.status == Status::Open
    }
}

// The rule names a field the entity does not have.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "UnknownField", pk = "ORDER#{id}", sk = "ORDER")]
#[ddb(index(name = "Open", pk = "OPEN", sk = "{id}", when(state = Status::Open)))]
pub struct UnknownField {
    pub id: String,
    pub status: Status,
}

// `in` takes a list.
#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Orders, entity = "NotAList", pk = "ORDER#{id}", sk = "ORDER")]
#[ddb(index(name = "Open", pk = "OPEN", sk = "{id}", when(status in Status::Open)))]
pub struct NotAList {
    pub id: String,
    pub status: Status,
}

fn main() {}
