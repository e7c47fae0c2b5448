//! Whether the entities of one table can be told apart by their keys: two
//! partition keys that can hold the same value need sort keys whose literal
//! prefixes are not prefixes of each other.

use crate::declaration::check::Message;
use crate::declaration::model::{str_eq, EntitySchema, KeyDef, Template};

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
