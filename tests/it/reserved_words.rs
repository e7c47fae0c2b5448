//! DynamoDB's reserved words against the server, which refuses one written
//! as it is in an expression: every attribute name ddb writes as it is must
//! be one the server takes, in any case, and every reserved word must reach
//! it through a placeholder. The words are ddb's own word table, whose unit
//! tests check the hash table built from it; here the list meets the server.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_runtime::dry_run::Request;
use ddb_runtime::expr::{Attr, Value};
use ddb_runtime::{Db, Entity, Table, Update};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Words", pk = "PK")]
struct Words;

/// The item every update names its attributes on; the attributes are
/// named by the test alone.
#[derive(Entity, Serialize, Deserialize, Clone, Debug)]
#[ddb(table = Words, entity = "Word", pk = "WORD#{id}")]
struct Word {
    id: String,
}

/// ddb's word table, read from its source (`expression/reserved.rs`), where
/// it is private: `list` is `RESERVED_WORDS` (DynamoDB's reserved words) or
/// `KEYWORDS` (the other words of its expressions), upper-case.
fn word_table(list: &str) -> Vec<&'static str> {
    let source = include_str!("../../ddb-runtime/src/expression/reserved.rs");
    let declaration = format!("const {list}: [&str; ");
    let start = source.find(&declaration).expect("the list in reserved.rs") + declaration.len();
    let rest = &source[start..];
    let declared: usize = rest[..rest.find(']').unwrap()].parse().unwrap();
    let body = &rest[rest.find("= [").unwrap()..rest.find("];").unwrap()];
    let words: Vec<&str> = body.split('"').skip(1).step_by(2).collect();
    assert_eq!(words.len(), declared, "{list} read whole");
    words
}

/// Attribute `name` of a word, holding a number.
fn number(name: &str) -> Attr<Word, u64, Value> {
    ddb_runtime::__private::attr::<Word, u64, Value>(
        leak(name),
        |n| Ok(AttributeValue::N(n.to_string())),
        |_| Ok(0),
        |_| false,
    )
}

/// Attribute `name` of a word, holding a number left out of the item when
/// `None`: set to `None`, it is removed.
fn optional(name: &str) -> Attr<Word, Option<u64>, Value> {
    ddb_runtime::__private::attr::<Word, Option<u64>, Value>(
        leak(name),
        |n| Ok(AttributeValue::N(n.unwrap_or_default().to_string())),
        |_| Ok(None),
        Option::is_none,
    )
}

/// An attribute handle names its attribute for the life of the program.
fn leak(name: &str) -> &'static str {
    Box::leak(name.to_owned().into_boxed_str())
}

/// An update that SETs the first half of `names`, REMOVEs the second, under
/// a condition naming them all.
fn update(db: &Db, names: &[String]) -> Update<Word> {
    let key = Word::key(&"x".to_owned()).unwrap();
    let (set, remove) = names.split_at(names.len() / 2);
    let mut update = db.update(key);
    for (i, name) in set.iter().enumerate() {
        update = update.set(number(name), i as u64);
    }
    for name in remove {
        update = update.remove(optional(name));
    }
    let condition = names
        .iter()
        .map(|name| number(name).not_exists())
        .reduce(|a, b| a | b)
        .expect("some names");
    update.condition(condition)
}

/// Sends the update of `names`, after checking that its dry run (the
/// request it sends) writes each of `placed` through a placeholder.
async fn send(db: &Db, names: Vec<String>, placed: impl Fn(&str) -> bool) {
    let dry = update(db, &names).dry_run().unwrap();
    let Some(Request::UpdateItemInput(input)) = dry.input() else {
        panic!("an update sends an UpdateItem first: {dry}");
    };
    let placeholders = input.expression_attribute_names().cloned();
    let placeholders = placeholders.unwrap_or_default();
    for name in names.iter().filter(|name| placed(name)) {
        assert!(
            placeholders.values().any(|n| n == name),
            "{name} is written as it is"
        );
    }
    update(db, &names).send().await.unwrap();
}

// One item, every word and name form against it in turn: read whole, it is
// one scenario (split, each part would set the table up again).
#[tokio::test]
async fn the_server_takes_every_name_as_ddb_writes_it() {
    let db = ddb_tests::db_with_table::<Words>().await;
    let table = db.table_name::<Words>().to_owned();
    db.create(&Word { id: "x".into() }).send().await.unwrap();

    // The server does refuse a reserved word written as it is.
    let key = Word::key(&"x".to_owned()).unwrap();
    let bare = db
        .client()
        .get_item()
        .table_name(&table)
        .key("PK", key.pk().to_attribute_value())
        .projection_expression("status")
        .send()
        .await;
    assert!(bare.is_err(), "the server took a bare reserved word");

    let reserved = word_table("RESERVED_WORDS");
    let keywords = word_table("KEYWORDS");
    let is_word = |name: &str| {
        let upper = name.to_ascii_uppercase();
        reserved.contains(&upper.as_str()) || keywords.contains(&upper.as_str())
    };
    let title = |word: &str| word[..1].to_owned() + &word[1..].to_ascii_lowercase();
    let words = reserved.iter().copied();
    let variants = [
        words.clone().map(str::to_owned).collect::<Vec<_>>(),
        words.clone().map(str::to_ascii_lowercase).collect(),
        words.map(title).collect(),
    ];
    for names in variants {
        for chunk in names.chunks(50) {
            send(&db, chunk.to_vec(), is_word).await;
        }
    }
    let plain = ["version", "customer_id", "GSI1PK", "x1", "a_b_c"];
    let odd = ["_type", "1st", "a-b", "a.b", "a b", "a#b", "é"];
    let lower: Vec<String> = keywords.iter().map(|k| k.to_ascii_lowercase()).collect();
    let keywords = keywords
        .iter()
        .copied()
        .chain(lower.iter().map(String::as_str));
    let names: Vec<String> = keywords
        .chain(plain)
        .chain(odd)
        .map(str::to_owned)
        .collect();
    send(&db, names, |name| !plain.contains(&name)).await;
}
