//! Checks on an entity's keys against its table: the index exists and takes
//! the entity's kind of key, the key attributes' types match the templates or
//! fields, and the entity-type attribute holds exactly the entity type.

use crate::declaration::check::Message;
use crate::declaration::model::{
    str_eq, EntitySchema, IndexDef, IndexKind, KeyAttribute, KeyDef, MultiAttributeKey, ScalarType,
    Template,
};

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
                check!(check_index_takes_templates(schema, key, name, index));
                (index.pk, index.sk)
            }
            None => return undeclared_index(schema, name),
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
    check!(check_sharded_partition_key(schema, key, pk_attr));
    check_sort_key(schema, key, sk_attr, numeric[1])
}

/// An index keyed by templates: a local index keeps the table's partition
/// key (the entity gives no other), and an index with a multi-attribute key
/// takes fields, not templates.
const fn check_index_takes_templates(
    schema: &EntitySchema,
    key: &KeyDef,
    name: &str,
    index: &IndexDef,
) -> Option<Message> {
    let table = schema.table;
    if matches!(index.kind, IndexKind::Local) && !str_eq(key.pk.source, schema.keys[0].pk.source) {
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
    None
}

/// An entity keyed by templates on an index its table does not declare.
const fn undeclared_index(schema: &EntitySchema, name: &str) -> Option<Message> {
    Message::new()
        .push("index `")
        .push(name)
        .push("` of entity `")
        .push(schema.rust_name)
        .push("` is not declared on table `")
        .push(schema.table.name)
        .push("`; declare it on the table with #[ddb(index(name = \"")
        .push(name)
        .push("\", pk = \"...\", sk = \"...\"))]")
        .into_error()
}

/// A sharded partition key has `#<shard>` appended, so its attribute must be
/// a String.
const fn check_sharded_partition_key(
    schema: &EntitySchema,
    key: &KeyDef,
    pk_attr: KeyAttribute,
) -> Option<Message> {
    if key.shards > 1 && matches!(pk_attr.ty, ScalarType::N) {
        return Message::new()
            .push_key(key)
            .push(" of entity `")
            .push(schema.rust_name)
            .push("` is sharded, so its partition key attribute must be a String (S): the shard is appended as `#<shard>`")
            .into_error();
    }
    None
}

/// The entity gives a sort key template exactly when the table or index has
/// a sort key, of the attribute's type.
const fn check_sort_key(
    schema: &EntitySchema,
    key: &KeyDef,
    sk_attr: Option<KeyAttribute>,
    numeric: bool,
) -> Option<Message> {
    match (key.sk, sk_attr) {
        (Some(sk), Some(attr)) => check_key_type(schema, key, "sort key", &sk, attr, numeric),
        (None, None) => None,
        (Some(_), None) => Message::new()
            .push("entity `")
            .push(schema.rust_name)
            .push("` gives a sort key template for the ")
            .push_key(key)
            .push(" of table `")
            .push(schema.table.name)
            .push("`, which has no sort key there; remove `sk = ...` or declare the sort key")
            .into_error(),
        (None, Some(attr)) => Message::new()
            .push("entity `")
            .push(schema.rust_name)
            .push("` needs a sort key template for the ")
            .push_key(key)
            .push(": table `")
            .push(schema.table.name)
            .push("` has sort key `")
            .push(attr.name)
            .push("` there; add `sk = \"...\"`")
            .into_error(),
    }
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
    let key = &schema.multi_attribute_keys[m];
    let Some(index) = schema.table.index(key.index) else {
        return undeclared_multi_attribute_index(schema, key);
    };
    check!(check_index_takes_fields(schema, key, index));
    let pk_count = 1 + index.pk_more.len();
    let sk_count = index.sk_more.len() + if index.sk.is_some() { 1 } else { 0 };
    check!(check_field_counts(schema, key, pk_count, sk_count));
    // One field per key attribute: the partition key's, then the sort key's.
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
        check!(check_field_stored_as(schema, key, field, attribute));
        if i < numeric.len() {
            check!(check_field_type(schema, key, field, attribute, numeric[i]));
        }
        i += 1;
    }
    None
}

/// An entity keyed by fields on an index its table does not declare.
const fn undeclared_multi_attribute_index(
    schema: &EntitySchema,
    key: &MultiAttributeKey,
) -> Option<Message> {
    Message::new()
        .push("index `")
        .push(key.index)
        .push("` of entity `")
        .push(schema.rust_name)
        .push("` is not declared on table `")
        .push(schema.table.name)
        .push("`; declare it on the table with #[ddb(index(name = \"")
        .push(key.index)
        .push("\", pk(\"attribute\", ...), sk(\"attribute\", ...)))]")
        .into_error()
}

/// An index keyed by fields: a global index the table declares with a
/// multi-attribute key.
const fn check_index_takes_fields(
    schema: &EntitySchema,
    key: &MultiAttributeKey,
    index: &IndexDef,
) -> Option<Message> {
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
            .push(schema.table.name)
            .push("` is keyed by attributes ddb writes from templates; to key it by the entity's own fields, declare it on the table with lists, pk(\"attribute\", ...) and sk(\"attribute\", ...), or give entity `")
            .push(schema.rust_name)
            .push("` templates: pk = \"...\"")
            .into_error();
    }
    None
}

/// The entity names as many partition and sort key fields as the index has
/// partition and sort key attributes.
const fn check_field_counts(
    schema: &EntitySchema,
    key: &MultiAttributeKey,
    pk_count: usize,
    sk_count: usize,
) -> Option<Message> {
    if key.pk.len() == pk_count && key.sk.len() == sk_count {
        return None;
    }
    Message::new()
        .push("entity `")
        .push(schema.rust_name)
        .push("` names ")
        .push(count(key.pk.len()))
        .push(" partition and ")
        .push(count(key.sk.len()))
        .push(" sort key fields for index `")
        .push(key.index)
        .push("`, and table `")
        .push(schema.table.name)
        .push("` declares ")
        .push(count(pk_count))
        .push(" and ")
        .push(count(sk_count))
        .push("; name one field per key attribute, in the table's order")
        .into_error()
}

/// The field named in a place of the key is stored under that place's key
/// attribute.
const fn check_field_stored_as(
    schema: &EntitySchema,
    key: &MultiAttributeKey,
    field: &str,
    attribute: KeyAttribute,
) -> Option<Message> {
    let stored = schema.attribute_of(field);
    if str_eq(stored, attribute.name) {
        return None;
    }
    Message::new()
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
        .into_error()
}

/// A numeric field is keyed under a Number attribute, any other under a
/// String one.
const fn check_field_type(
    schema: &EntitySchema,
    key: &MultiAttributeKey,
    field: &str,
    attribute: KeyAttribute,
    numeric: bool,
) -> Option<Message> {
    let is_number = matches!(attribute.ty, ScalarType::N);
    if numeric == is_number {
        return None;
    }
    Message::new()
        .push("field `")
        .push(field)
        .push("` of entity `")
        .push(schema.rust_name)
        .push("` is ")
        .push(if numeric { "a number" } else { "not a number" })
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
        .into_error()
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
