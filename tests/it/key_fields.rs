//! Entities keyed by their own fields (`{field}` templates): a field that is
//! itself a key attribute round-trips through every operation, one whose
//! serde form is not its key form is refused, and the items read are matched
//! to the keys asked by their typed values, whatever their text.

use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(ddb_runtime::Table)]
#[ddb(name = "Paths", pk = "PK", sk = "SK")]
#[ddb(index(name = "ByName", pk = "NamePK", sk = "NameSK"))]
struct Paths;

/// A file stored under its folder and name as they are (single-field keys
/// hold any text, ` / ` included).
#[derive(ddb_runtime::Entity, serde::Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Paths, entity = "File", pk = "{folder}", sk = "{name}")]
#[ddb(index(
    name = "ByName",
    pk = "FILES",
    sk = "{folder}#{name}",
    query = "all_files"
))]
struct File {
    folder: String,
    name: String,
}

/// Batch gets named keys by their `PK / SK` text, so the
/// keys `a / b`+`c` and `a`+`b / c` were one name: a batch get of both was
/// refused as a duplicate, and a hydrated page holding both lost one. Keys
/// are now matched by their typed values.
#[tokio::test]
async fn keys_whose_text_runs_together_are_read_apart() {
    let db = ddb_tests::db_with_table::<Paths>().await;
    let files = [
        File {
            folder: "a / b".into(),
            name: "c".into(),
        },
        File {
            folder: "a".into(),
            name: "b / c".into(),
        },
    ];
    db.batch_put(&files).await.unwrap();
    let keys = files
        .iter()
        .map(|f| File::key(&f.folder, &f.name).unwrap())
        .collect();
    assert_eq!(db.batch_get::<File>(keys).await.unwrap(), files);
    let mut read = db
        .query(File::all_files())
        .hydrate()
        .collect()
        .await
        .unwrap();
    read.sort_by(|a: &File, b| a.folder.cmp(&b.folder));
    let mut expected = files.to_vec();
    expected.sort_by(|a, b| a.folder.cmp(&b.folder));
    assert_eq!(read, expected);
}

/// A key segment stored as a Number, written in a form DynamoDB does not
/// keep (`12.50`: DynamoDB stores and returns `12.5`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Cents(u32);

impl ddb_runtime::KeySegment for Cents {
    const NUMERIC: bool = true;
    fn write_segment(&self, out: &mut String) -> Result<(), ddb_runtime::SegmentError> {
        out.push_str(&self.0.to_string());
        Ok(())
    }
    fn read_segment(text: &str) -> Result<Self, ddb_runtime::SegmentError> {
        text.parse()
            .map(Cents)
            .map_err(|e| ddb_runtime::SegmentError::new(format!("{e}")))
    }
    fn to_number(&self) -> Option<String> {
        Some(format!("{}.{:02}", self.0 / 100, self.0 % 100))
    }
    fn from_number(number: &str) -> Result<Self, ddb_runtime::SegmentError> {
        let (units, cents) = number.split_once('.').unwrap_or((number, "0"));
        let cents = format!("{cents:0<2}");
        let parse = |t: &str| {
            t.parse::<u32>()
                .map_err(|e| ddb_runtime::SegmentError::new(format!("{e}")))
        };
        Ok(Cents(parse(units)? * 100 + parse(&cents[..2])?))
    }
}

#[derive(Table)]
#[ddb(name = "Prices", pk = "PK", pk_type = "N")]
struct Prices;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[ddb(table = Prices, entity = "Price", pk = "{price}")]
struct Price {
    price: Cents,
    label: String,
}

/// Batch gets matched the items read to the keys asked by
/// their text, so a Number key written as `12.50` (stored as `12.5`) was
/// read and then dropped: batch_get returned nothing, with no error.
#[tokio::test]
async fn a_number_key_in_another_form_is_matched_by_value() {
    let db = ddb_tests::db_with_table::<Prices>().await;
    let prices = [
        Price {
            price: Cents(1250),
            label: "twelve fifty".into(),
        },
        Price {
            price: Cents(700),
            label: "seven".into(),
        },
    ];
    db.batch_put(&prices).await.unwrap();
    let keys = prices
        .iter()
        .map(|p| Price::key(&p.price).unwrap())
        .collect();
    assert_eq!(db.batch_get::<Price>(keys).await.unwrap(), prices);
}
