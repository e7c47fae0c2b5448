// Generated code names everything by absolute path: a module that shadows the
// prelude still compiles, warning-free under deny(warnings).
#![deny(warnings, unused_qualifications)]
#![allow(dead_code)]

mod shadow {
    use serde::{Deserialize, Serialize};

    pub struct Result;
    pub struct Option;
    pub struct String;
    pub struct Vec;
    pub struct Box;
    pub struct Ok;
    pub struct Err;
    pub struct Some;
    pub struct None;
    pub trait Entity {}
    pub trait Table {}
    pub trait KeySegment {}

    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Shadowed", pk = "PK", sk = "SK")]
    #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
    pub struct Shadowed;

    #[derive(ddb_runtime::KeySegment, Serialize, Deserialize)]
    pub struct Id(pub std::string::String);

    #[derive(ddb_runtime::KeySegment, Serialize, Deserialize, PartialEq)]
    pub enum Kind {
        A,
        B,
    }

    #[derive(ddb_runtime::Entity, Serialize, Deserialize)]
    #[ddb(table = Shadowed, entity = "Thing", pk = "THING#{id}", sk = "KIND#{kind}#{n}", query = "things")]
    #[ddb(index(name = "GSI1", pk = "N#{n}", sk = "{id}", shards = 2, when(Thing::indexed, reads(kind))))]
    pub struct Thing {
        pub id: Id,
        pub kind: Kind,
        pub n: i32,
        pub note: std::option::Option<std::string::String>,
    }

    impl Thing {
        fn indexed(&self) -> bool {
            self.kind == Kind::A
        }
    }
}

fn main() {
    use ddb_runtime::Entity;
    let thing = shadow::Thing { id: shadow::Id("x".into()), kind: shadow::Kind::A, n: -1, note: None };
    let item = thing.to_item().unwrap();
    assert!(item.contains_key("GSI1PK"));
}
