//! Checks that span several declarations, evaluated at compile time.
//!
//! The derive sees one struct at a time; whether an index exists on the table,
//! whether key types match, and whether two entities of one table can be told
//! apart by their keys are answered here, in `const` code, so a mistake is a
//! compile error that names what is wrong.

use crate::declaration::model::str_eq;

use crate::declaration::model::{
    EntitySchema, IndexKind, KeyAttribute, KeyDef, ScalarType, TableDef, Template,
};

/// Whether `text` starts with `prefix`, usable in `const` code.
pub const fn starts_with(text: &str, prefix: &str) -> bool {
    let (t, p) = (text.as_bytes(), prefix.as_bytes());
    if p.len() > t.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if t[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A fixed buffer to build a compile-time error message in.
pub struct Message {
    buf: [u8; 600],
    len: usize,
}

impl Message {
    /// An empty message.
    pub const fn new() -> Self {
        Self {
            buf: [0; 600],
            len: 0,
        }
    }

    /// Appends `text`, cutting it off (at a character boundary) when full.
    pub const fn push(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            // Only whole characters: stop before one that does not fit.
            let width = match bytes[i] {
                b if b < 0x80 => 1,
                b if b >= 0xF0 => 4,
                b if b >= 0xE0 => 3,
                _ => 2,
            };
            if self.len + width > self.buf.len() {
                break;
            }
            let mut k = 0;
            while k < width && i + k < bytes.len() {
                self.buf[self.len] = bytes[i + k];
                self.len += 1;
                k += 1;
            }
            i += width;
        }
        self
    }

    /// Appends `primary key` or ``index `NAME` ``.
    pub const fn push_key(self, key: &KeyDef) -> Self {
        match key.index {
            Some(name) => self.push("index `").push(name).push("`"),
            None => self.push("primary key"),
        }
    }

    /// The message text.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(text) => text,
            Err(_) => "ddb: invalid declaration",
        }
    }
}

impl Message {
    pub(crate) const fn into_error(self) -> Option<Message> {
        Some(self)
    }
}

/// Returns the message of a failed check from the enclosing function.
macro_rules! check {
    ($e:expr) => {
        if let Some(message) = $e {
            return Some(message);
        }
    };
}

impl Default for Message {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks key `k` of an entity against its table: the index exists, the
/// entity gives a sort key exactly when the table or index has one, Number
/// keys are single numeric fields, sharded keys are Strings, a local
/// index keeps the table's partition key, and a key attribute that is the
/// table's entity-type attribute is given exactly the entity type. The
/// derive evaluates it in a `const`, spanned at the key's declaration.
///
/// `numeric` tells whether the partition and sort key templates are one field
/// of a numeric [`KeySegment`](crate::KeySegment) type.
pub const fn check_key(schema: &EntitySchema, k: usize, numeric: [bool; 2]) -> Option<Message> {
    let table = schema.table;
    let key = &schema.keys[k];
    let (pk_attr, sk_attr) = match key.index {
        None => (table.pk, table.sk),
        Some(name) => match table.index(name) {
            Some(index) => {
                if matches!(index.kind, IndexKind::Local)
                    && !str_eq(key.pk.source, schema.keys[0].pk.source)
                {
                    return Message::new()
                        .push("index `")
                        .push(name)
                        .push("` is a local index of table `")
                        .push(table.name)
                        .push("`: it shares the table's partition key, so entity `")
                        .push(schema.rust_name)
                        .push("` must not give it a pk template; remove `pk = ...` from index(...)")
                        .into_error();
                }
                if index.is_multi_attribute() {
                    return Message::new()
                        .push("index `")
                        .push(name)
                        .push("` of table `")
                        .push(table.name)
                        .push("` has a multi-attribute key, built by DynamoDB from the items' own attributes, so entity `")
                        .push(schema.rust_name)
                        .push("` cannot give it key templates; name its fields in order instead: index(name = \"")
                        .push(name)
                        .push("\", pk(field, ...), sk(field, ...))")
                        .into_error();
                }
                (index.pk, index.sk)
            }
            None => {
                return Message::new()
                    .push("index `")
                    .push(name)
                    .push("` of entity `")
                    .push(schema.rust_name)
                    .push("` is not declared on table `")
                    .push(table.name)
                    .push("`; declare it on the table with #[ddb(index(name = \"")
                    .push(name)
                    .push("\", pk = \"...\", sk = \"...\"))]")
                    .into_error()
            }
        },
    };
    check!(check_key_type(
        schema,
        key,
        "partition key",
        &key.pk,
        pk_attr,
        numeric[0]
    ));
    check!(check_entity_type_key(
        schema,
        key,
        "partition key",
        &key.pk,
        pk_attr,
        key.shards > 1
    ));
    if let (Some(sk), Some(attr)) = (key.sk, sk_attr) {
        check!(check_entity_type_key(
            schema, key, "sort key", &sk, attr, false
        ));
    }
    if key.shards > 1 && matches!(pk_attr.ty, ScalarType::N) {
        return Message::new()
            .push_key(key)
            .push(" of entity `")
            .push(schema.rust_name)
            .push("` is sharded, so its partition key attribute must be a String (S): the shard is appended as `#<shard>`")
            .into_error();
    }
    match (key.sk, sk_attr) {
        (Some(sk), Some(attr)) => check_key_type(schema, key, "sort key", &sk, attr, numeric[1]),
        (None, None) => None,
        (Some(_), None) => Message::new()
            .push("entity `")
            .push(schema.rust_name)
            .push("` gives a sort key template for the ")
            .push_key(key)
            .push(" of table `")
            .push(table.name)
            .push("`, which has no sort key there; remove `sk = ...` or declare the sort key")
            .into_error(),
        (None, Some(attr)) => Message::new()
            .push("entity `")
            .push(schema.rust_name)
            .push("` needs a sort key template for the ")
            .push_key(key)
            .push(": table `")
            .push(table.name)
            .push("` has sort key `")
            .push(attr.name)
            .push("` there; add `sk = \"...\"`")
            .into_error(),
    }
}

/// Checks that no field is stored under an attribute name the table uses for
/// a key or the entity type (unless the field is that raw key itself).
pub const fn check_fields(schema: &EntitySchema) -> Option<Message> {
    let table = schema.table;
    if let Some(entities) = table.entities {
        let mut listed = false;
        let mut e = 0;
        while e < entities.len() {
            listed = listed || str_eq(entities[e], schema.rust_name);
            e += 1;
        }
        if !listed {
            return Message::new()
                .push("entity `")
                .push(schema.rust_name)
                .push("` is stored in table `")
                .push(table.name)
                .push("`, whose entities(...) does not list it, so its keys are not checked against the others'; add `")
                .push(schema.rust_name)
                .push("` to the table's entities(...)")
                .into_error();
        }
    }
    let mut f = 0;
    while f < schema.fields.len() {
        let attribute = schema.fields[f].attribute;
        if is_reserved(table, attribute) && !is_raw_key_of(schema, schema.fields[f].name, attribute)
        {
            return Message::new()
                .push("field `")
                .push(schema.fields[f].name)
                .push("` of entity `")
                .push(schema.rust_name)
                .push("` is stored as attribute `")
                .push(attribute)
                .push("`, which table `")
                .push(table.name)
                .push("` uses for a key, the entity type or the schema version; rename it with #[serde(rename = \"...\")]")
                .into_error();
        }
        f += 1;
    }
    None
}

/// Checks that the `#[ddb(ttl)]` field `field` is stored under the table's
/// time-to-live attribute; spanned at the field's `#[ddb(ttl)]`.
pub const fn check_ttl_field(schema: &EntitySchema, field: &str) -> Option<Message> {
    let table = schema.table;
    let attribute = schema.attribute_of(field);
    let declared = match table.ttl {
        Some(ttl) => str_eq(ttl, attribute),
        None => false,
    };
    if declared {
        return None;
    }
    Message::new()
        .push("field `")
        .push(field)
        .push("` of entity `")
        .push(schema.rust_name)
        .push("` is #[ddb(ttl)], stored as `")
        .push(attribute)
        .push("`, but table `")
        .push(table.name)
        .push("` does not name it its time-to-live attribute, so DynamoDB would never delete the item; declare #[ddb(ttl = \"")
        .push(attribute)
        .push("\")] on the table")
        .into_error()
}

/// A key attribute that is the table's entity-type attribute: ddb writes
/// the entity type there on every item, over any other value, so the key's
/// template must be exactly the entity type, unsharded, or no query would
/// find the items under the value it asks for.
const fn check_entity_type_key(
    schema: &EntitySchema,
    key: &KeyDef,
    which: &str,
    template: &Template,
    attribute: KeyAttribute,
    sharded: bool,
) -> Option<Message> {
    let exact = template.is_constant() && str_eq(template.source, schema.entity_type);
    if !str_eq(attribute.name, schema.table.entity_attribute) || (exact && !sharded) {
        return None;
    }
    let mut message = Message::new()
        .push("the ")
        .push(which)
        .push(" of the ")
        .push_key(key)
        .push(" of entity `")
        .push(schema.rust_name)
        .push("` is the table's entity-type attribute `")
        .push(attribute.name)
        .push("`, where ddb writes \"")
        .push(schema.entity_type)
        .push("\" on every item; ");
    if !exact {
        message = message
            .push("give it exactly \"")
            .push(schema.entity_type)
            .push("\" (not \"")
            .push(template.source)
            .push("\")");
        if sharded {
            message = message.push(" and ");
        }
    }
    if sharded {
        message = message.push("do not shard it (the shard would follow the entity type)");
    }
    message
        .push(", or key the index on another attribute")
        .into_error()
}

const fn check_key_type(
    schema: &EntitySchema,
    key: &KeyDef,
    which: &str,
    template: &Template,
    attribute: KeyAttribute,
    numeric: bool,
) -> Option<Message> {
    // A numeric field stored under the String key attribute its template
    // writes would be overwritten by its zero-padded key text.
    if let [crate::declaration::model::Part::Field(field)] = template.parts {
        if numeric
            && matches!(attribute.ty, ScalarType::S)
            && str_eq(schema.attribute_of(field), attribute.name)
        {
            return Message::new()
                .push("field `")
                .push(field)
                .push("` of entity `")
                .push(schema.rust_name)
                .push("` is a number stored as the String key attribute `")
                .push(attribute.name)
                .push("` itself; declare the attribute a Number on the table (pk_type = \"N\" or sk_type = \"N\"), or make the field a string type")
                .into_error();
        }
    }
    if matches!(attribute.ty, ScalarType::N) && !(template.is_single_field() && numeric) {
        return Message::new()
            .push("the ")
            .push(which)
            .push(" of the ")
            .push_key(key)
            .push(" of entity `")
            .push(schema.rust_name)
            .push("` is a Number, so its template must be a single numeric field like \"{id}\", not \"")
            .push(template.source)
            .push("\"")
            .into_error();
    }
    None
}

/// Whether `attribute` is a key attribute whose template is exactly the field
/// `field` (`"{customer_id}"` on attribute `customerId`): the field is the key.
const fn is_raw_key_of(schema: &EntitySchema, field: &str, attribute: &str) -> bool {
    let table = schema.table;
    let mut k = 0;
    while k < schema.keys.len() {
        let key = &schema.keys[k];
        let (pk, sk) = match key.index {
            None => (Some(table.pk), table.sk),
            Some(name) => match table.index(name) {
                Some(index) => (Some(index.pk), index.sk),
                None => (None, None),
            },
        };
        if let Some(pk) = pk {
            if str_eq(pk.name, attribute) && is_field(&key.pk, field) {
                return true;
            }
        }
        if let (Some(sk_attr), Some(sk)) = (sk, key.sk) {
            if str_eq(sk_attr.name, attribute) && is_field(&sk, field) {
                return true;
            }
        }
        k += 1;
    }
    false
}

/// Checks a multi-attribute key of an entity against its table: the index
/// is a global index of the table, and the entity names, in order, fields
/// stored under exactly the index's key attributes, with matching types.
///
/// `numeric` tells, for each field of the partition then the sort key,
/// whether its [`KeySegment`](crate::KeySegment) type is numeric.
pub const fn check_multi_attribute_key(
    schema: &EntitySchema,
    m: usize,
    numeric: &[bool],
) -> Option<Message> {
    let table = schema.table;
    let key = &schema.multi_attribute_keys[m];
    let Some(index) = table.index(key.index) else {
        return Message::new()
            .push("index `")
            .push(key.index)
            .push("` of entity `")
            .push(schema.rust_name)
            .push("` is not declared on table `")
            .push(table.name)
            .push("`; declare it on the table with #[ddb(index(name = \"")
            .push(key.index)
            .push("\", pk(\"attribute\", ...), sk(\"attribute\", ...)))]")
            .into_error();
    };
    if matches!(index.kind, IndexKind::Local) {
        return Message::new()
            .push("index `")
            .push(key.index)
            .push("` is a local index: its partition key is the table's, so it cannot be keyed by the entity's fields; give it a sort key template with sk = \"...\"")
            .into_error();
    }
    if !index.is_multi_attribute() {
        return Message::new()
            .push("index `")
            .push(key.index)
            .push("` of table `")
            .push(table.name)
            .push("` is keyed by attributes ddb writes from templates; to key it by the entity's own fields, declare it on the table with lists, pk(\"attribute\", ...) and sk(\"attribute\", ...), or give entity `")
            .push(schema.rust_name)
            .push("` templates: pk = \"...\"")
            .into_error();
    }
    let pk_count = 1 + index.pk_more.len();
    let sk_count = index.sk_more.len() + if index.sk.is_some() { 1 } else { 0 };
    if key.pk.len() != pk_count || key.sk.len() != sk_count {
        return Message::new()
            .push("entity `")
            .push(schema.rust_name)
            .push("` names ")
            .push(count(key.pk.len()))
            .push(" partition and ")
            .push(count(key.sk.len()))
            .push(" sort key fields for index `")
            .push(key.index)
            .push("`, and table `")
            .push(table.name)
            .push("` declares ")
            .push(count(pk_count))
            .push(" and ")
            .push(count(sk_count))
            .push("; name one field per key attribute, in the table's order")
            .into_error();
    }
    let mut i = 0;
    while i < pk_count + sk_count {
        let (field, attribute) = if i < pk_count {
            (key.pk[i], attribute_at(index.pk, index.pk_more, i))
        } else {
            let j = i - pk_count;
            let Some(first) = index.sk else {
                return None;
            };
            (key.sk[j], attribute_at(first, index.sk_more, j))
        };
        let stored = schema.attribute_of(field);
        if !str_eq(stored, attribute.name) {
            return Message::new()
                .push("field `")
                .push(field)
                .push("` of entity `")
                .push(schema.rust_name)
                .push("` is stored as `")
                .push(stored)
                .push("`, but index `")
                .push(key.index)
                .push("` has `")
                .push(attribute.name)
                .push("` in that place of its key; name the field stored as `")
                .push(attribute.name)
                .push("` (keys are matched in the table's order)")
                .into_error();
        }
        let is_number = matches!(attribute.ty, ScalarType::N);
        if i < numeric.len() && numeric[i] != is_number {
            return Message::new()
                .push("field `")
                .push(field)
                .push("` of entity `")
                .push(schema.rust_name)
                .push("` is ")
                .push(if numeric[i] {
                    "a number"
                } else {
                    "not a number"
                })
                .push(", but attribute `")
                .push(attribute.name)
                .push("` of index `")
                .push(key.index)
                .push("` is declared ")
                .push(attribute.ty.as_str())
                .push(if is_number {
                    "; declare it \"name\" (a String) on the table, or key on a numeric field"
                } else {
                    "; declare it \"name: N\" on the table, or key on a text field"
                })
                .into_error();
        }
        i += 1;
    }
    None
}

const fn attribute_at(first: KeyAttribute, more: &[KeyAttribute], i: usize) -> KeyAttribute {
    if i == 0 {
        first
    } else {
        more[i - 1]
    }
}

const fn count(n: usize) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        2 => "2",
        3 => "3",
        4 => "4",
        _ => "more than 4",
    }
}

const fn is_field(template: &Template, field: &str) -> bool {
    match template.parts {
        [crate::declaration::model::Part::Field(name)] => str_eq(name, field),
        _ => false,
    }
}

/// Whether `attribute` is a key attribute of the table or its indexes, the
/// entity-type attribute, or the schema-version attribute.
pub const fn is_reserved(table: &TableDef, attribute: &str) -> bool {
    if str_eq(attribute, table.entity_attribute)
        || str_eq(attribute, table.pk.name)
        || str_eq(
            attribute,
            crate::declaration::model::SCHEMA_VERSION_ATTRIBUTE,
        )
    {
        return true;
    }
    if let Some(sk) = table.sk {
        if str_eq(attribute, sk.name) {
            return true;
        }
    }
    let mut i = 0;
    while i < table.indexes.len() {
        let index = &table.indexes[i];
        // A multi-attribute key is made of ordinary attributes of the items.
        if index.is_multi_attribute() {
            i += 1;
            continue;
        }
        if str_eq(attribute, index.pk.name) {
            return true;
        }
        if let Some(sk) = index.sk {
            if str_eq(attribute, sk.name) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Whether the partition keys of two key definitions can hold the same value:
/// both start with a field, or their literal prefixes are prefixes of each other.
const fn partitions_overlap(a: &Template, b: &Template) -> bool {
    let (pa, pb) = (a.literal_prefix(), b.literal_prefix());
    let a_open = !a.is_constant();
    let b_open = !b.is_constant();
    if a.is_constant() && b.is_constant() {
        return str_eq(pa, pb);
    }
    (a_open && starts_with(pb, pa)) || (b_open && starts_with(pa, pb)) || str_eq(pa, pb)
}

/// Checks that the entities given, stored in one table, can be told apart by
/// their keys; used by [`assert_distinct_keys!`](crate::assert_distinct_keys).
pub const fn check_distinct_keys(entities: &[&EntitySchema]) -> Option<Message> {
    let mut i = 0;
    while i < entities.len() {
        let mut j = i + 1;
        while j < entities.len() {
            check!(check_pair(entities[i], entities[j]));
            j += 1;
        }
        i += 1;
    }
    None
}

const fn same_index(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => str_eq(a, b),
        _ => false,
    }
}

const fn check_pair(a: &EntitySchema, b: &EntitySchema) -> Option<Message> {
    if !str_eq(a.table.name, b.table.name) {
        return None;
    }
    if str_eq(a.entity_type, b.entity_type) {
        return Message::new()
            .push("entities `")
            .push(a.rust_name)
            .push("` and `")
            .push(b.rust_name)
            .push("` store the same entity type `")
            .push(a.entity_type)
            .push("`; give one another with #[ddb(entity = \"...\")]")
            .into_error();
    }
    let mut x = 0;
    while x < a.keys.len() {
        let mut y = 0;
        while y < b.keys.len() {
            let (ka, kb) = (&a.keys[x], &b.keys[y]);
            if same_index(ka.index, kb.index) && partitions_overlap(&ka.pk, &kb.pk) {
                check!(check_sort_keys(a, ka, b, kb));
            }
            y += 1;
        }
        x += 1;
    }
    None
}

const fn check_sort_keys(
    a: &EntitySchema,
    ka: &KeyDef,
    b: &EntitySchema,
    kb: &KeyDef,
) -> Option<Message> {
    let (sa, sb) = match (ka.sk, kb.sk) {
        (Some(sa), Some(sb)) => (sa, sb),
        // One item per partition key value, and the partition prefixes overlap.
        _ => {
            return pair_error(
                a,
                ka,
                b,
                "their partition keys can hold the same value and there is no sort key to tell them apart",
            )
        }
    };
    let (pa, pb) = (sa.literal_prefix(), sb.literal_prefix());
    if pa.is_empty() || pb.is_empty() {
        return pair_error(
            a,
            ka,
            b,
            "a sort key that starts with a field cannot share a partition with another entity; start it with a literal such as \"ORDER#\"",
        );
    }
    let both_constant = sa.is_constant() && sb.is_constant();
    if (both_constant && str_eq(pa, pb))
        || (!both_constant && (starts_with(pa, pb) || starts_with(pb, pa)))
    {
        return Message::new()
            .push("entities `")
            .push(a.rust_name)
            .push("` and `")
            .push(b.rust_name)
            .push("` share a partition in the ")
            .push_key(ka)
            .push(" and their sort keys begin \"")
            .push(pa)
            .push("\" and \"")
            .push(pb)
            .push("\": one is a prefix of the other, so begins_with on one would return both; give them distinct prefixes such as \"ORDER#\" and \"ITEM#\"")
            .into_error();
    }
    None
}

const fn pair_error(a: &EntitySchema, ka: &KeyDef, b: &EntitySchema, why: &str) -> Option<Message> {
    Message::new()
        .push("entities `")
        .push(a.rust_name)
        .push("` and `")
        .push(b.rust_name)
        .push("` cannot be told apart in the ")
        .push_key(ka)
        .push(": ")
        .push(why)
        .into_error()
}

/// Asserts at compile time that entities stored together in one table can be
/// told apart by their keys.
///
/// Two entities whose partition-key templates can hold the same value (same
/// literal prefix, one a prefix of the other) must have sort keys whose literal
/// prefixes are not prefixes of each other: otherwise `begins_with(SK, "ORDER#")`
/// for one would also return the other. A sort key that starts with a field
/// cannot share a partition at all.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # pub struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # pub struct Customer { customer_id: String }
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
/// # pub struct Order { customer_id: String, order_id: String }
/// ddb_runtime::assert_distinct_keys!(Customer, Order);
/// ```
#[macro_export]
macro_rules! assert_distinct_keys {
    ($($entity:ty),+ $(,)?) => {
        const _: () = if let ::core::option::Option::Some(message) =
            $crate::__private::check_distinct_keys(&[$(&<$entity as $crate::Entity>::SCHEMA),+])
        {
            ::core::panic!("{}", message.as_str())
        };
    };
}

/// Checks that a projection field is read under the entity's attribute name.
pub const fn check_projection_field(
    schema: &EntitySchema,
    field: &str,
    read_as: &str,
) -> Option<crate::declaration::check::Message> {
    let stored = schema.attribute_of(field);
    if stored.is_empty() {
        return crate::declaration::check::Message::new()
            .push("projection field `")
            .push(field)
            .push("` is not an attribute of entity `")
            .push(schema.rust_name)
            .push("`: the entity does not store it (#[serde(skip)], or no such field); remove it from the projection")
            .into_error();
    }
    if crate::declaration::check::str_eq(stored, read_as) {
        return None;
    }
    crate::declaration::check::Message::new()
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

#[cfg(test)]
mod tests {
    use super::Message;

    /// A message ending in a non-ASCII character lost it.
    #[test]
    fn a_trailing_non_ascii_character_is_kept() {
        assert_eq!(
            Message::new().push("naïve ").push("café").as_str(),
            "naïve café"
        );
        assert_eq!(Message::new().push("→ 🦀").as_str(), "→ 🦀");
    }

    #[test]
    fn a_full_message_is_cut_at_a_character_boundary() {
        let long = "é".repeat(400);
        let message = Message::new().push("x").push(&long);
        assert!(message.as_str().len() <= 600);
        assert!(message.as_str().ends_with('é'));
    }
}
