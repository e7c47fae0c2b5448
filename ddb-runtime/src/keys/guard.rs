//! Guard items: the items ddb keeps beside an entity's items so that a
//! value stays unique (one guard per unique value) or a request is applied
//! once (one guard per idempotency key). Each guard is keyed under
//! [`GUARD_PREFIX`], which no entity key may start with, and names the item
//! it guards by that item's primary key.

use std::borrow::Cow;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::declaration::model::{EntitySchema, Normalize, ScalarType, TableDef, UniqueDef};
use crate::error::Error;
use crate::item::number::Decimal;
pub use crate::keys::key::GUARD_PREFIX;
use crate::keys::key::{KeyValue, KeyValues};
use crate::keys::segment::escape_into;

/// The entity type guard items carry: no entity's reads decode them.
pub const GUARD_TYPE: &str = "_ddb.guard";

/// The attributes a guard names its item by.
pub const OWNER_PK: &str = "_ddb_owner_pk";
/// See [`OWNER_PK`].
pub const OWNER_SK: &str = "_ddb_owner_sk";

/// The attribute an idempotency guard keeps its item's fingerprint in: a
/// hash of the whole item, `sensitive` fields included, so never printed.
pub(crate) const FINGERPRINT: &str = "_ddb_fingerprint";

/// The value of a unique constraint, from the attribute values of its
/// fields in order (as the item stores them): each typed and escaped as in
/// a key, a text normalised as the constraint says (see [`normalized`]),
/// joined by `#`; `None` when one is missing or NULL (the constraint then
/// holds no value). A list, map or set is refused. An empty text is a value
/// here: reads and the release of a stored value take it as it is.
pub(crate) fn unique_value<'v>(
    entity: &'static str,
    unique: &UniqueDef,
    values: impl IntoIterator<Item = Option<&'v AttributeValue>>,
) -> Result<Option<String>, Error> {
    Ok(composed(entity, unique, values)?.map(|(text, _)| text))
}

/// [`unique_value`], for a value an item takes: one with an empty text
/// part (after normalisation) is refused, unless the constraint allows it.
fn unique_value_taken<'v>(
    entity: &'static str,
    unique: &UniqueDef,
    values: impl IntoIterator<Item = Option<&'v AttributeValue>>,
) -> Result<Option<String>, Error> {
    match composed(entity, unique, values)? {
        Some((_, true)) if !unique.allow_empty => Err(empty_value(entity, unique)),
        value => Ok(value.map(|(text, _)| text)),
    }
}

/// The value of `unique`, and whether a text part of it is empty.
fn composed<'v>(
    entity: &'static str,
    unique: &UniqueDef,
    values: impl IntoIterator<Item = Option<&'v AttributeValue>>,
) -> Result<Option<(String, bool)>, Error> {
    let mut text = String::new();
    let mut empty = false;
    for (i, value) in values.into_iter().enumerate() {
        if i > 0 {
            text.push('#');
        }
        match value {
            None | Some(AttributeValue::Null(_)) => return Ok(None),
            Some(AttributeValue::S(s)) => {
                let s = normalized(unique, s);
                empty |= s.is_empty();
                text.push_str("S:");
                escape_into(&s, &mut text);
            }
            Some(AttributeValue::N(n)) => {
                text.push_str("N:");
                text.push_str(&Decimal::parse(n).map_or_else(|| n.clone(), |d| d.canonical()));
            }
            Some(AttributeValue::B(b)) => {
                text.push_str("B:");
                b.as_ref().iter().for_each(|byte| text.push_str(&format!("{byte:02x}")));
            }
            Some(AttributeValue::Bool(b)) => text.push_str(if *b { "BOOL:true" } else { "BOOL:false" }),
            Some(_) => {
                return Err(Error::InvalidValue {
                    entity,
                    reason: format!(
                        "unique `{}` holds a list, map or set; a unique value is made of strings, numbers, binaries or booleans",
                        unique.name
                    ),
                })
            }
        }
    }
    Ok(Some((text, empty)))
}

/// A text part of a unique value as `unique` compares it: lowercased
/// (`ignore_case`), through the user's function (`normalize = path`), or as
/// it is. Every guard key, lookup and duplicate check goes through here;
/// numbers, binaries and booleans compare as they are.
pub(crate) fn normalized<'t>(unique: &UniqueDef, text: &'t str) -> Cow<'t, str> {
    match unique.normalize {
        None => Cow::Borrowed(text),
        Some(Normalize::IgnoreCase) => Cow::Owned(text.to_lowercase()),
        Some(Normalize::Function(normalize)) => Cow::Owned(normalize(text)),
    }
}

/// Refuses `value`, one attribute of `unique` an item is to hold, when it
/// is a text that is empty after normalisation and the constraint does not
/// allow it: what an update can check before it reads the item.
pub(crate) fn refuse_empty_part(
    entity: &'static str,
    unique: &UniqueDef,
    value: &AttributeValue,
) -> Result<(), Error> {
    match value {
        AttributeValue::S(s) if !unique.allow_empty && normalized(unique, s).is_empty() => {
            Err(empty_value(entity, unique))
        }
        _ => Ok(()),
    }
}

/// An empty value a constraint refuses: named by its constraint, never its
/// value.
fn empty_value(entity: &'static str, unique: &UniqueDef) -> Error {
    let shown = if unique.normalize.is_some() {
        "is empty once normalised"
    } else {
        "is empty"
    };
    Error::InvalidValue {
        entity,
        reason: format!(
            "unique `{}` {shown}, and an empty value cannot be unique: give it a value, \
             leave the field unset (None holds no value), or declare `allow_empty` in its \
             #[ddb(unique(...))]",
            unique.name
        ),
    }
}

/// The value of `unique` an item holds.
pub fn unique_value_of(
    schema: &EntitySchema,
    unique: &UniqueDef,
    item: &HashMap<String, AttributeValue>,
) -> Result<Option<String>, Error> {
    let values = unique.attributes.iter().map(|a| item.get(*a));
    unique_value(schema.entity_type, unique, values)
}

/// Refuses `item`, which an entity write is to store, when it holds a
/// unique value its constraint refuses (an empty one without
/// `allow_empty`), before anything is sent.
pub(crate) fn check_unique_values(
    schema: &EntitySchema,
    item: &HashMap<String, AttributeValue>,
) -> Result<(), Error> {
    for unique in schema.unique {
        unique_value_taken_of(schema, unique, item)?;
    }
    Ok(())
}

/// The value of `unique` an item takes: [`unique_value_of`], an empty one
/// refused unless the constraint allows it.
pub(crate) fn unique_value_taken_of(
    schema: &EntitySchema,
    unique: &UniqueDef,
    item: &HashMap<String, AttributeValue>,
) -> Result<Option<String>, Error> {
    let values = unique.attributes.iter().map(|a| item.get(*a));
    unique_value_taken(schema.entity_type, unique, values)
}

/// Whether a table's keys can hold guards: text partition and sort keys.
pub const fn holds_guards(table: &TableDef) -> bool {
    let sk_is_text = match table.sk {
        Some(sk) => matches!(sk.ty, ScalarType::S),
        None => true,
    };
    matches!(table.pk.ty, ScalarType::S) && sk_is_text
}

/// The key of the guard of `value` under `unique`: the value itself, or
/// for a sensitive constraint its keyed hash (`hash`), never the value.
pub(crate) fn unique_guard_key(
    schema: &EntitySchema,
    unique: &UniqueDef,
    value: &str,
    hash: impl FnOnce(&str) -> Option<String>,
) -> Result<KeyValues, Error> {
    let shown = if unique.sensitive {
        hash(value)
    } else {
        Some(value.to_owned())
    };
    let shown = match shown {
        Some(shown) => shown,
        None => {
            return Err(Error::InvalidRequest {
                entity: schema.entity_type,
                reason: format!(
                    "unique `{}` holds a sensitive field, whose guard is keyed by a keyed hash: \
                     give the Db its key with Db::with_guard_hash_key",
                    unique.name
                ),
            })
        }
    };
    let text = format!(
        "{}{}#{shown}",
        unique_guard_prefix(schema.entity_type),
        unique.name
    );
    Ok(guard_key(schema.table, text))
}

/// The text every guard of `entity_type`'s unique values starts with
/// (`_DDB#UNIQUE#User#`).
pub fn unique_guard_prefix(entity_type: &str) -> String {
    format!("{GUARD_PREFIX}UNIQUE#{entity_type}#")
}

/// The text every idempotency guard key of `entity_type` starts with.
pub fn idempotency_guard_prefix(entity_type: &str) -> String {
    format!("{GUARD_PREFIX}IDEMPOTENCY#{entity_type}#")
}

/// A key as errors show it: a guard's without its value (`_DDB#UNIQUE#User#email#…`),
/// which may be personal data; any other key as it is.
pub(crate) fn shown_key(text: String) -> String {
    if !text.starts_with(GUARD_PREFIX) {
        return text;
    }
    // `_DDB#UNIQUE#<entity>#<name>#<value>`, `_DDB#IDEMPOTENCY#<entity>#<key>`.
    let kept = if text[GUARD_PREFIX.len()..].starts_with("UNIQUE#") {
        4
    } else {
        3
    };
    let end = text
        .match_indices('#')
        .nth(kept - 1)
        .map_or(text.len(), |(i, _)| i);
    format!("{}#…", &text[..end])
}

/// A guard as stored: its key, the guard type (which no entity's reads
/// decode) and the key of the item it names.
pub(crate) fn guard_item(
    table: &TableDef,
    guard: &KeyValues,
    owner: &KeyValues,
) -> HashMap<String, AttributeValue> {
    let mut item = guard.to_item(table);
    item.insert(
        table.entity_attribute.to_owned(),
        AttributeValue::S(GUARD_TYPE.to_owned()),
    );
    item.insert(OWNER_PK.to_owned(), owner.pk.to_attribute_value());
    if let Some(sk) = &owner.sk {
        item.insert(OWNER_SK.to_owned(), sk.to_attribute_value());
    }
    item
}

/// The key of the item a guard names.
pub(crate) fn owner_of(guard: &HashMap<String, AttributeValue>) -> Option<KeyValues> {
    let value = |name: &str| guard.get(name).and_then(KeyValue::from_attribute_value);
    Some(KeyValues {
        pk: value(OWNER_PK)?,
        sk: value(OWNER_SK),
    })
}

/// The key of the guard of idempotency key `key` of entity `entity_type`.
pub(crate) fn idempotency_guard_key(table: &TableDef, entity_type: &str, key: &str) -> KeyValues {
    let mut text = idempotency_guard_prefix(entity_type);
    // Escaped as a key segment is: a `#` in the key cannot name another.
    escape_into(key, &mut text);
    guard_key(table, text)
}

/// A guard's key: `text` as its partition key, and as its sort key when
/// the table has one.
fn guard_key(table: &TableDef, text: String) -> KeyValues {
    KeyValues {
        sk: table.sk.map(|_| KeyValue::S(text.clone())),
        pk: KeyValue::S(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNIQUE: UniqueDef = UniqueDef {
        name: "tenant_id_email",
        fields: &["tenant_id", "email"],
        attributes: &["tenant", "email"],
        sensitive: false,
        normalize: None,
        allow_empty: false,
    };

    #[test]
    fn a_unique_value_is_typed_escaped_and_joined() {
        let (tenant, email) = (
            AttributeValue::S("t#1".into()),
            AttributeValue::S("a@b.c".into()),
        );
        let value = unique_value("User", &UNIQUE, [Some(&tenant), Some(&email)]).unwrap();
        assert_eq!(value.as_deref(), Some("S:t$c1#S:a@b.c"));
        let one = AttributeValue::N("1.50".into());
        let same = AttributeValue::N("15e-1".into());
        assert_eq!(
            unique_value("User", &UNIQUE, [Some(&one), Some(&email)]).unwrap(),
            unique_value("User", &UNIQUE, [Some(&same), Some(&email)]).unwrap()
        );
        let text = AttributeValue::S("1.5".into());
        assert_ne!(
            unique_value("User", &UNIQUE, [Some(&one), Some(&email)]).unwrap(),
            unique_value("User", &UNIQUE, [Some(&text), Some(&email)]).unwrap()
        );
    }

    #[test]
    fn an_error_shows_a_guard_key_without_its_value() {
        let shown = |t: &str| shown_key(t.to_owned());
        assert_eq!(
            shown("_DDB#UNIQUE#User#email#S:ada@example.com"),
            "_DDB#UNIQUE#User#email#…"
        );
        assert_eq!(
            shown("_DDB#IDEMPOTENCY#Order#req-1"),
            "_DDB#IDEMPOTENCY#Order#…"
        );
        assert_eq!(shown("CUSTOMER#123 / PROFILE"), "CUSTOMER#123 / PROFILE");
        assert_eq!(
            shown("_DDB#UNIQUE#User#email#S:a / _DDB#UNIQUE#User#email#S:a"),
            "_DDB#UNIQUE#User#email#…"
        );
    }

    #[test]
    fn a_value_is_normalised_as_its_constraint_says() {
        let ignore_case = UniqueDef {
            normalize: Some(Normalize::IgnoreCase),
            ..UNIQUE
        };
        let (tenant, email) = (
            AttributeValue::S("ÀCME".into()),
            AttributeValue::S("Ada@B.c".into()),
        );
        let value = unique_value("User", &ignore_case, [Some(&tenant), Some(&email)]).unwrap();
        assert_eq!(value.as_deref(), Some("S:àcme#S:ada@b.c"));
        let plain = unique_value("User", &UNIQUE, [Some(&tenant), Some(&email)]).unwrap();
        assert_eq!(plain.as_deref(), Some("S:ÀCME#S:Ada@B.c"));
        fn trimmed(value: &str) -> String {
            value.trim().to_owned()
        }
        let trim = UniqueDef {
            normalize: Some(Normalize::Function(trimmed)),
            ..UNIQUE
        };
        let padded = AttributeValue::S(" a#b ".into());
        let value = unique_value("User", &trim, [Some(&padded), Some(&padded)]).unwrap();
        assert_eq!(
            value.as_deref(),
            Some("S:a$cb#S:a$cb"),
            "normalised, then escaped"
        );
        // Numbers are not text: as they are.
        let number = AttributeValue::N("1.50".into());
        let lower = AttributeValue::S("ada@b.c".into());
        assert_eq!(
            unique_value("User", &ignore_case, [Some(&number), Some(&email)]).unwrap(),
            unique_value("User", &UNIQUE, [Some(&number), Some(&lower)]).unwrap()
        );
    }

    #[test]
    fn an_empty_value_is_taken_only_when_allowed() {
        let (empty, spaces, email) = (
            AttributeValue::S(String::new()),
            AttributeValue::S("  ".into()),
            AttributeValue::S("a@b.c".into()),
        );
        let taken = |unique: &UniqueDef, first: &AttributeValue| {
            unique_value_taken("User", unique, [Some(first), Some(&email)])
        };
        let refused = taken(&UNIQUE, &empty).unwrap_err().to_string();
        assert!(
            refused.contains("unique `tenant_id_email` is empty"),
            "{refused}"
        );
        // Read as stored, an empty value is a value: its guard can be let go.
        let read = unique_value("User", &UNIQUE, [Some(&empty), Some(&email)]).unwrap();
        assert_eq!(read.as_deref(), Some("S:#S:a@b.c"));
        assert!(taken(&UNIQUE, &spaces).is_ok(), "spaces are text");
        fn trimmed(value: &str) -> String {
            value.trim().to_owned()
        }
        let trim = UniqueDef {
            normalize: Some(Normalize::Function(trimmed)),
            ..UNIQUE
        };
        let refused = taken(&trim, &spaces).unwrap_err().to_string();
        assert!(refused.contains("is empty once normalised"), "{refused}");
        assert!(!refused.contains("a@b.c"), "never the value: {refused}");
        assert!(refuse_empty_part("User", &trim, &spaces).is_err());
        assert!(refuse_empty_part("User", &trim, &email).is_ok());
        let allowed = UniqueDef {
            allow_empty: true,
            ..trim
        };
        assert_eq!(
            taken(&allowed, &spaces).unwrap().as_deref(),
            Some("S:#S:a@b.c")
        );
        assert!(refuse_empty_part("User", &allowed, &empty).is_ok());
        // A NULL part holds no value, refused or not.
        let null = AttributeValue::Null(true);
        assert_eq!(taken(&UNIQUE, &null).unwrap(), None);
    }

    #[test]
    fn a_missing_or_null_field_holds_no_value() {
        let email = AttributeValue::S("a@b.c".into());
        assert_eq!(
            unique_value("User", &UNIQUE, [None, Some(&email)]).unwrap(),
            None
        );
        let null = AttributeValue::Null(true);
        assert_eq!(
            unique_value("User", &UNIQUE, [Some(&null), Some(&email)]).unwrap(),
            None
        );
        let list = AttributeValue::L(vec![]);
        assert!(unique_value("User", &UNIQUE, [Some(&list), Some(&email)]).is_err());
    }
}
