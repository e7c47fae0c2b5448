//! What generated code uses. Not public API: it changes without notice.

pub use crate::check::{
    check_distinct_keys, check_fields, check_key, check_multi_attribute_key, check_ttl_field,
    Message,
};
pub use crate::key::{
    raw_key, read_raw_key, shard_of, KeyReader, KeyWriter, PARTITION_KEY_LIMIT, SORT_KEY_LIMIT,
};
pub use crate::model::{
    EntitySchema, FieldDef, FieldRole, IndexDef, IndexKind, IndexProjection, KeyAttribute, KeyDef,
    Membership, MultiAttributeKey, Part, ScalarType, TableDef, Template,
};

/// `index_key_from` asked for a position that is not an index it can
/// compute from values alone: a bug in ddb, reported rather than panicking.
pub fn no_such_index(entity: &'static str, position: usize) -> Error {
    Error::InvalidRequest {
        entity,
        reason: format!("index key {position} cannot be computed from field values alone"),
    }
}
pub use crate::{Entity, Error, Item, Key, KeySegment, KeyValue, KeyValues, SegmentError, Table};
pub use ::core;
pub use ::serde;
pub use ::std;

pub use crate::segment::{Codec, IsSegment, NotSegment, SegmentCodec};

/// Spanned at a key field's type, so a type that cannot be a key segment is
/// reported once, on the field.
pub const fn assert_key_segment<T: KeySegment>() {}

/// Whether a key segment type can be stored as a Number.
pub const fn is_numeric<T: KeySegment>() -> bool {
    T::NUMERIC
}

/// The table type of an entity whose `table = ...` is missing, so the
/// derive can still emit its impl next to the error.
pub enum NoTable {}

impl Table for NoTable {
    const DEF: TableDef = TableDef {
        name: "",
        pk: KeyAttribute {
            name: "",
            ty: ScalarType::S,
        },
        sk: None,
        indexes: &[],
        entity_attribute: "",
        ttl: None,
        entities: None,
    };
}

/// The attribute types of the primary key (`index` = `None`) or an index.
/// A missing index or sort key reads as S; `check_key` reports those.
pub const fn key_types(table: &TableDef, index: Option<&str>) -> (ScalarType, ScalarType) {
    let (pk, sk) = match index {
        None => (table.pk, table.sk),
        Some(name) => match table.index(name) {
            Some(index) => (index.pk, index.sk),
            None => return (ScalarType::S, ScalarType::S),
        },
    };
    let sk = match sk {
        Some(sk) => sk.ty,
        None => ScalarType::S,
    };
    (pk.ty, sk)
}

/// Whether `attribute` is the partition (or, with `sort`, the sort) key
/// attribute of `index`.
pub fn is_key_attribute(table: &TableDef, index: &str, sort: bool, attribute: &str) -> bool {
    match table.index(index) {
        Some(index) if sort => index.sk.is_some_and(|sk| sk.name == attribute),
        Some(index) => index.pk.name == attribute,
        None => false,
    }
}

/// The sort key of a key, or an error naming the entity.
pub fn require_sort_key<'a>(
    entity: &'static str,
    sk: Option<&'a KeyValue>,
) -> Result<&'a KeyValue, Error> {
    sk.ok_or(Error::KeyMismatch {
        entity,
        key: "sort key",
        template: "",
        reason: "the key has no sort key value".to_owned(),
    })
}

/// The whole item: the fields through serde_dynamo, then the primary and
/// index key attributes and the entity type.
///
/// `attribute_keys` holds, for each field of a multi-attribute index key,
/// its attribute and its value as a key (`None` for an `Option` that is
/// `None`): the stored value must be exactly that, or the index would hold
/// something no typed query can ask for; a `None` leaves the attribute out,
/// so the item is not in the index (DynamoDB refuses NULL in an index key).
pub fn to_item<E: Entity>(
    mut item: Item,
    primary: Key<E>,
    indexes: std::vec::Vec<(&'static str, KeyValues)>,
    attribute_keys: std::vec::Vec<(&'static str, &'static str, Option<KeyValue>)>,
) -> Result<Item, Error> {
    let schema = &E::SCHEMA;
    let table = schema.table;
    for (field, attribute, key) in attribute_keys {
        match key {
            Some(key) => check_key_form(schema.entity_type, field, item.get(attribute), &key)?,
            None => {
                item.remove(attribute);
            }
        }
    }
    check_raw_keys(
        schema,
        &item,
        schema.primary(),
        table.pk,
        table.sk,
        primary.values(),
    )?;
    insert_key(&mut item, table.pk, table.sk, primary.into_values());
    for (name, values) in indexes {
        if let Some(index) = table.index(name) {
            if let Some(key) = schema.keys.iter().find(|k| k.index == Some(name)) {
                check_raw_keys(schema, &item, key, index.pk, index.sk, &values)?;
            }
            insert_key(&mut item, index.pk, index.sk, values);
        }
    }
    item.insert(
        table.entity_attribute.to_owned(),
        AttributeValue::S(schema.entity_type.to_owned()),
    );
    Ok(item)
}

/// Checks that a field of a multi-attribute key is stored (`stored`, its
/// serde form) exactly as its key form, so a typed query finds it.
pub fn check_key_form(
    entity: &'static str,
    field: &'static str,
    stored: Option<&AttributeValue>,
    key: &KeyValue,
) -> Result<(), Error> {
    if stored == Some(&key.to_attribute_value()) {
        return Ok(());
    }
    Err(Error::KeyMismatch {
        entity,
        key: "key attribute",
        template: field,
        reason: format!(
            "field `{field}` is stored as a key attribute itself, and serde writes it in another \
             form than its key form (KeySegment), so it would not read back or no typed query would \
             find it; make the two agree (e.g. #[serde(rename_all = \"SCREAMING_SNAKE_CASE\")] on \
             an enum that derives KeySegment)"
        ),
    })
}

/// A field stored under the very key attribute its single-field template
/// writes (`"{customer_id}"` on `customerId`) is that key: its serde form
/// must be its key form, or the item would not read back (or a query would
/// not find it).
fn check_raw_keys(
    schema: &EntitySchema,
    item: &Item,
    key: &KeyDef,
    pk: KeyAttribute,
    sk: Option<KeyAttribute>,
    values: &KeyValues,
) -> Result<(), Error> {
    let sides = [
        (Some(key.pk), Some(pk), Some(&values.pk)),
        (key.sk, sk, values.sk.as_ref()),
    ];
    for (template, attribute, value) in sides {
        let (Some(template), Some(attribute), Some(value)) = (template, attribute, value) else {
            continue;
        };
        if let [Part::Field(field)] = template.parts {
            if schema.attribute_of(field) == attribute.name {
                check_key_form(schema.entity_type, field, item.get(attribute.name), value)?;
            }
        }
    }
    Ok(())
}

fn insert_key(item: &mut Item, pk: KeyAttribute, sk: Option<KeyAttribute>, values: KeyValues) {
    item.insert(pk.name.to_owned(), values.pk.into_attribute_value());
    if let (Some(attribute), Some(value)) = (sk, values.sk) {
        item.insert(attribute.name.to_owned(), value.into_attribute_value());
    }
}

/// Appends `#<shard>` to a sharded index's partition key, the shard
/// chosen from the item's primary key; the key as written must fit
/// DynamoDB's partition key limit.
pub fn with_shard(
    entity: &'static str,
    pk: KeyValue,
    primary: &KeyValues,
    shards: u16,
) -> Result<KeyValue, Error> {
    shard_partition(entity, pk, crate::key::shard_of(primary, shards))
}

/// The partition key of one shard, `<pk>#<shard>` (a number key is not
/// sharded), the suffix written onto the key's own text; the key as
/// written must fit DynamoDB's partition key limit.
pub(crate) fn shard_partition(
    entity: &'static str,
    pk: KeyValue,
    shard: u16,
) -> Result<KeyValue, Error> {
    let sharded = match pk {
        KeyValue::S(mut text) => {
            use std::fmt::Write;
            let _ = write!(text, "#{shard}");
            KeyValue::S(text)
        }
        number => number,
    };
    crate::key::check_size(
        entity,
        "index partition key",
        sharded.as_str().len(),
        PARTITION_KEY_LIMIT,
    )?;
    Ok(sharded)
}

pub use crate::collection::{check_collection, Collection};
pub use crate::expr::{Attr, KeyPart, Value};
pub use crate::keys::convert::{
    from_serde, missing, missing_field, to_serde, Conv, DirectConv, SerdeConv, SerdeDecode,
};
pub use crate::timestamp::{IsStamp, NotStamp, Stamp, TimestampField, TtlField};
pub use aws_sdk_dynamodb::types::AttributeValue;

/// Spanned at a `#[ddb(created_at)]` or `#[ddb(updated_at)]` field's type.
pub const fn assert_timestamp_field<T: TimestampField>() {}

/// Spanned at a `#[ddb(ttl)]` field's type.
pub const fn assert_ttl_field<T: TtlField>() {}
pub use crate::projection::Projection;

/// Whether a query of `index` carries every attribute of the entity.
pub const fn carries_all(schema: &EntitySchema, index: Option<&str>) -> bool {
    crate::projection::carries_all(schema, index)
}

/// The key of entity `E` with `values`: generated key functions build keys
/// only from the entity's own templates.
pub fn key_from_values<E>(values: KeyValues) -> Key<E> {
    Key::from_values(values)
}

/// The attribute named `name` of entity `E`: `Entity::fields()` makes them.
pub const fn attr<E, T, M>(
    name: &'static str,
    encode: fn(&T) -> Result<AttributeValue, Error>,
    read: fn(Option<AttributeValue>) -> Result<T, Error>,
    omits: fn(&T) -> bool,
) -> Attr<E, T, M> {
    Attr::new(
        name,
        crate::expr::FieldCodec {
            encode,
            read,
            omits,
        },
    )
}
pub use crate::query::QueryKey;

/// Checks that a projection field is read under the entity's attribute name.
pub const fn check_projection_field(
    schema: &EntitySchema,
    field: &str,
    read_as: &str,
) -> Option<crate::check::Message> {
    let stored = schema.attribute_of(field);
    if stored.is_empty() {
        return crate::check::Message::new()
            .push("projection field `")
            .push(field)
            .push("` is not an attribute of entity `")
            .push(schema.rust_name)
            .push("`: the entity does not store it (#[serde(skip)], or no such field); remove it from the projection")
            .into_error();
    }
    if crate::check::str_eq(stored, read_as) {
        return None;
    }
    crate::check::Message::new()
        .push("projection field `")
        .push(field)
        .push("` is read as attribute `")
        .push(read_as)
        .push("`, but entity `")
        .push(schema.rust_name)
        .push("` stores it as `")
        .push(stored)
        .push("`; add #[serde(rename = \"")
        .push(stored)
        .push("\")] to the field")
        .into_error()
}
pub use crate::query::{IndexKindOf, MultiAttributeIndex, ProjectionOf, Select};

/// The type of attribute `position` of `index`'s multi-attribute key,
/// counting the partition attributes then the sort ones; S when there is no
/// such attribute (`check_multi_attribute_key` reports that).
pub const fn index_attribute_type(table: &TableDef, index: &str, position: usize) -> ScalarType {
    let Some(index) = table.index(index) else {
        return ScalarType::S;
    };
    let pk_count = 1 + index.pk_more.len();
    if position == 0 {
        return index.pk.ty;
    }
    if position < pk_count {
        return index.pk_more[position - 1].ty;
    }
    match index.sk {
        Some(sk) if position == pk_count => sk.ty,
        Some(_) if position - pk_count - 1 < index.sk_more.len() => {
            index.sk_more[position - pk_count - 1].ty
        }
        _ => ScalarType::S,
    }
}

/// Whether `index` (by name) of `table` is a global secondary index.
pub const fn is_global(table: &TableDef, index: Option<&str>) -> bool {
    match index {
        Some(name) => match table.index(name) {
            Some(index) => matches!(index.kind, IndexKind::Global),
            None => false,
        },
        None => false,
    }
}

/// The entity's fields as serde_dynamo writes them: the conversion of an
/// entity the derive cannot convert field by field.
pub fn serde_item<E: serde::Serialize>(entity: &E, name: &'static str) -> Result<Item, Error> {
    serde_dynamo::to_item(entity).map_err(|source| Error::Encode {
        entity: name,
        source,
    })
}

/// Checks the entity type, then deserializes with serde_dynamo.
pub fn item_to_fields<T: serde::de::DeserializeOwned>(
    entity: &'static str,
    table: &TableDef,
    item: Item,
) -> Result<T, Error> {
    check_entity_type(entity, table, &item)?;
    serde_dynamo::from_item(item).map_err(|source| Error::Decode {
        entity,
        key: None,
        source,
    })
}

/// Checks that `item` stores entity type `entity`.
pub fn check_entity_type(entity: &'static str, table: &TableDef, item: &Item) -> Result<(), Error> {
    match item.get(table.entity_attribute) {
        Some(AttributeValue::S(found)) if found == entity => {}
        other => {
            return Err(Error::WrongEntityType {
                entity,
                found: match other {
                    Some(AttributeValue::S(found)) => found.clone(),
                    _ => String::new(),
                },
            })
        }
    }
    Ok(())
}

/// A two-shard cursor over `PK`/`SK`, encoded and decoded as a query does,
/// for ddb's criterion bench of cursor cost (signed or not).
#[derive(Debug)]
pub struct CursorBench {
    keys: Option<crate::cursor::CursorKeys>,
    positions: Vec<crate::cursor::Position>,
}

impl CursorBench {
    /// Signed under `key` when one is given.
    pub fn new(key: Option<&[u8]>) -> Self {
        let after: Item = [
            ("PK".to_owned(), AttributeValue::S("CUSTOMER#123".into())),
            (
                "SK".to_owned(),
                AttributeValue::S("ORDER#2026-10-02T14:31:07Z#A145".into()),
            ),
        ]
        .into();
        CursorBench {
            keys: key.map(|key| crate::cursor::CursorKeys::new(key.to_vec())),
            positions: vec![
                crate::cursor::Position::After(after),
                crate::cursor::Position::Start,
            ],
        }
    }

    /// Encrypted under `key` (AES-256-GCM-SIV).
    pub fn encrypted(key: &[u8]) -> Self {
        let mut bench = Self::new(Some(key));
        bench.keys = bench.keys.map(|keys| keys.encrypting());
        bench
    }

    /// Encodes the cursor.
    pub fn encode(&self) -> crate::Cursor {
        crate::cursor::encode("fingerprint", &self.positions, self.keys.as_ref())
    }

    /// Decodes (and verifies) `cursor`; whether it was taken.
    pub fn decode(&self, cursor: &crate::Cursor) -> bool {
        crate::cursor::decode(cursor, "fingerprint", 2, &["PK", "SK"], self.keys.as_ref()).is_ok()
    }
}

/// A migration of a versioned entity's stored item, one version up.
pub type Migration = fn(&mut Item) -> Result<(), String>;

/// The attribute a versioned entity's items carry their schema version in.
pub const SCHEMA_VERSION_ATTRIBUTE: &str = crate::schema::SCHEMA_VERSION_ATTRIBUTE;

/// `item` brought from its stored schema version (1 when it has none) to
/// `E`'s, through `chain` (`(from, migration)`, in order); the version
/// attribute is taken off.
pub fn migrate<E: Entity>(mut item: Item, chain: &[(u32, Migration)]) -> Result<Item, Error> {
    let schema = &E::SCHEMA;
    let current = schema.schema_version;
    let failed = |item: &Item, from: u32, reason: String| Error::Migration {
        entity: schema.entity_type,
        key: crate::schema::item_key_text(schema.table, item),
        from,
        reason,
    };
    // Taken off and read in one lookup: an item is decoded per call.
    let stored = match crate::schema::schema_version(item.remove(SCHEMA_VERSION_ATTRIBUTE).as_ref())
    {
        Ok(stored) => stored,
        Err(reason) => return Err(failed(&item, 0, reason)),
    };
    if stored > current {
        return Err(failed(
            &item,
            stored,
            format!(
                "written by code at schema version {stored}, newer than this code's {current}: \
                 deploy the newer code everywhere before it writes"
            ),
        ));
    }
    for (from, migration) in chain.iter().filter(|(from, _)| *from >= stored) {
        migration(&mut item).map_err(|reason| failed(&item, *from, reason))?;
    }
    Ok(item)
}
