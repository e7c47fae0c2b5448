//! Rules that span several attributes of one entity. Rules that need another
//! type (the table, other entities) are const checks in ddb-runtime.

use std::collections::HashSet;

use syn::Type;

use super::ast::{snake_case, Entity};
use super::ctxt::{closest, Ctxt};
use super::symbol::UNIQUE_KEYS;

/// The start of the keys of ddb's guard items (`ddb_runtime`'s
/// `keys::guard::GUARD_PREFIX`): no template may start with it.
const GUARD_PREFIX: &str = "_DDB#";

pub fn check(cx: &Ctxt, entity: &Entity) {
    check_serde(cx, entity);
    check_template_fields(cx, entity);
    check_multi_attribute_fields(cx, entity);
    check_roles(cx, entity);
    check_names(cx, entity);
    check_unique(cx, entity);
    check_vectors(cx, entity);
}

/// Why `field`, named in `place`, is not a stored field.
fn not_a_field(entity: &Entity, names: &[String], field: &str, place: &str) -> String {
    if entity.skipped.iter().any(|s| *s == field) {
        return format!(
            "field `{field}` is #[serde(skip)]: it is never stored, so it cannot be read in {place}; \
             remove the skip, or key on a stored field"
        );
    }
    let mut message = format!(
        "unknown field `{field}` in {place}; fields are: {}",
        names.join(", ")
    );
    if let Some(near) = closest(field, names.iter().map(String::as_str)) {
        message.push_str(&format!("; did you mean `{near}`?"));
    }
    message
}

/// Serde attributes that would make ddb compute wrong attribute names or
/// presence are refused, each with what to do instead.
fn check_serde(cx: &Ctxt, entity: &Entity) {
    for refused in &entity.serde_refused {
        let key = refused.value.as_str();
        let why = match key {
            "deny_unknown_fields" => "an item carries key attributes and the entity type beside the fields, so every read would fail; remove it".to_owned(),
            "tag" | "untagged" | "content" => format!("#[serde({key})] is for enums; an entity is a struct stored as one item, one attribute per field"),
            _ if key.starts_with("rename") => "the entity's attribute names must be the same both ways; use rename_all = \"...\"".to_owned(),
            _ => format!("#[serde({key})] stores the entity as something other than its fields, so ddb cannot compute attribute names; remove it"),
        };
        cx.error_spanned_by(
            &refused.tokens,
            format!("ddb cannot follow #[serde({key})] on an entity: {why}"),
        );
    }
    for field in &entity.fields {
        for refused in &field.raw.serde_refused {
            let key = refused.value.as_str();
            let name = field.ident;
            let why = match key {
                "flatten" => "ddb names each attribute after an entity field, and a flattened struct's fields are not known to it; \
                              declare them as fields of the entity, or store the struct as one map attribute (remove flatten)",
                "skip_serializing" | "skip_deserializing" => "the field would be stored and not read back, or read and never stored; \
                              use #[serde(skip)] for a field that is never stored",
                _ => "a field has one attribute name both ways; use rename = \"...\"",
            };
            cx.error_spanned_by(
                &refused.tokens,
                format!("field `{name}`: ddb cannot follow #[serde({key})]: {why}"),
            );
        }
    }
}

fn key_label(index: Option<&str>, part: &str) -> String {
    match index {
        None => format!("{part} template"),
        Some(name) => format!("{part} template of index `{name}`"),
    }
}

fn check_template_fields(cx: &Ctxt, entity: &Entity) {
    let names: Vec<String> = entity.fields.iter().map(|f| f.ident.to_string()).collect();
    for key in &entity.keys {
        for field in key.when_reads() {
            if entity.field(&field.to_string()).is_none() {
                let message = not_a_field(entity, &names, &field.to_string(), "`when(...)`");
                cx.error_spanned_by(field, message);
            }
        }
        if key.pk_from_primary && key.index.is_some() {
            // The primary key's template, already checked.
            if let Some(sk) = &key.sk {
                check_one(
                    cx,
                    entity,
                    &names,
                    key.index.as_ref().map(|i| i.value.as_str()),
                    "sk",
                    sk,
                );
            }
            continue;
        }
        let index = key.index.as_ref().map(|i| i.value.as_str());
        check_one(cx, entity, &names, index, "pk", &key.pk);
        if let Some(sk) = &key.sk {
            check_one(cx, entity, &names, index, "sk", sk);
        }
    }
}

/// The fields of `pk(a, b)` and `sk(c, d)`: each exists, is named once, and
/// is not sensitive.
fn check_multi_attribute_fields(cx: &Ctxt, entity: &Entity) {
    let names: Vec<String> = entity.fields.iter().map(|f| f.ident.to_string()).collect();
    for key in &entity.multi_attribute_keys {
        let mut seen: Vec<String> = Vec::new();
        for field in key.fields() {
            let name = field.to_string();
            match entity.field(&name) {
                None => {
                    let place = format!("the key of index `{}`", key.index.value);
                    cx.error_spanned_by(field, not_a_field(entity, &names, &name, &place));
                }
                Some(f)
                    if f.raw.version.is_some()
                        || f.raw.created_at.is_some()
                        || f.raw.updated_at.is_some() =>
                {
                    cx.error_spanned_by(
                        field,
                        format!(
                            "field `{name}` is written by ddb at each write (version, created_at or updated_at), \
                             in a form that is not a key; key the index on a field you set"
                        ),
                    )
                }
                Some(f) if f.raw.sensitive.is_some() => cx.error_spanned_by(
                    field,
                    format!(
                        "field `{name}` is #[ddb(sensitive)] and cannot be part of a key: keys show up in logs, \
                         metrics, cursors and backups; key on an id, or on a keyed hash of the value"
                    ),
                ),
                Some(_) => {}
            }
            if seen.contains(&name) {
                cx.error_spanned_by(
                    field,
                    format!(
                        "field `{name}` is named twice in the key of index `{}`",
                        key.index.value
                    ),
                );
            }
            seen.push(name);
        }
    }
}

fn check_one(
    cx: &Ctxt,
    entity: &Entity,
    names: &[String],
    index: Option<&str>,
    part: &str,
    template: &super::meta::Attr<super::template::Template>,
) {
    if let Some(super::template::Part::Literal(text)) = template.value.parts.first() {
        if text.starts_with(GUARD_PREFIX) {
            cx.error_spanned_by(
                &template.tokens,
                format!(
                    "{} starts with `{GUARD_PREFIX}`, which is reserved for the guard items ddb keeps \
                     for unique values and idempotency keys; start it with another prefix",
                    key_label(index, part)
                ),
            );
        }
    }
    for field in template.value.fields() {
        match entity.field(field) {
            None => {
                let message = not_a_field(entity, names, field, &key_label(index, part));
                cx.error_spanned_by(&template.tokens, message);
            }
            Some(f) if f.raw.sensitive.is_some() => {
                cx.error_spanned_by(
                    &template.tokens,
                    format!(
                        "field `{field}` is #[ddb(sensitive)] and cannot be in a key template: keys are stored in plain text \
                         and show up in logs, metrics, cursors and backups; key on an id, or on a keyed hash of the value"
                    ),
                );
            }
            Some(_) => {}
        }
    }
}

fn is_integer(ty: &Type) -> bool {
    const INTEGERS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ];
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .get_ident()
            .is_some_and(|ident| INTEGERS.iter().any(|i| ident == i)),
        Type::Group(group) => is_integer(&group.elem),
        _ => false,
    }
}

fn check_roles(cx: &Ctxt, entity: &Entity) {
    let key_fields: HashSet<&str> = entity.keys[0].fields().into_iter().collect();
    let mut seen: [Option<&syn::Ident>; 4] = [None; 4];
    for field in &entity.fields {
        let raw = &field.raw;
        let roles = [
            ("version", &raw.version),
            ("ttl", &raw.ttl),
            ("created_at", &raw.created_at),
            ("updated_at", &raw.updated_at),
        ];
        // A field holds one role: ddb writes each differently (a version
        // counts, a ttl expires, created_at is written once, updated_at on
        // every write).
        let mut first_role: Option<&str> = None;
        for (i, (name, role)) in roles.iter().enumerate() {
            let Some(role) = role else { continue };
            if let Some(other) = first_role {
                cx.error_spanned_by(
                    &role.tokens,
                    format!(
                        "#[ddb({name})] and #[ddb({other})] are both on field `{}`; ddb writes \
                         each differently, so give each its own field",
                        field.ident
                    ),
                );
                // Refused here: not also reported against the field that
                // rightly holds this role.
                continue;
            }
            first_role = Some(name);
            if let Some(first) = seen[i] {
                cx.error_spanned_by(
                    &role.tokens,
                    format!(
                        "#[ddb({name})] is already on field `{first}`; an entity has at most one"
                    ),
                );
            } else {
                seen[i] = Some(field.ident);
            }
            if key_fields.contains(field.ident.to_string().as_str()) {
                cx.error_spanned_by(
                    &role.tokens,
                    format!("#[ddb({name})] cannot be on `{}`, a field of the primary key: the library changes it on writes", field.ident),
                );
            }
        }
        if let Some(version) = &raw.version {
            if !is_integer(field.ty) {
                cx.error_spanned_by(
                    &version.tokens,
                    format!(
                        "#[ddb(version)] needs an integer field such as `u64`; `{}` is not one",
                        field.ident
                    ),
                );
            }
        }
    }
}

fn check_names(cx: &Ctxt, entity: &Entity) {
    check_index_function_names(cx, entity);
    let mut indexes = HashSet::new();
    let mut queries = HashSet::new();
    let templates = entity
        .keys
        .iter()
        .map(|k| (k.index.as_ref(), k.query.as_ref()));
    let multi = entity
        .multi_attribute_keys
        .iter()
        .map(|k| (Some(&k.index), k.query.as_ref()));
    for (index, query) in templates.chain(multi) {
        if let Some(index) = index {
            if !indexes.insert(index.value.as_str()) {
                cx.error_spanned_by(
                    &index.tokens,
                    format!("index `{}` is declared twice on this entity; an entity has one key per index", index.value),
                );
            }
        }
        if let Some(query) = query {
            if syn::parse_str::<syn::Ident>(&query.value).is_err() {
                cx.error_spanned_by(
                    &query.tokens,
                    format!(
                        "query name `{}` must be a Rust identifier such as `by_customer`",
                        query.value
                    ),
                );
            } else if !queries.insert(query.value.as_str()) {
                cx.error_spanned_by(
                    &query.tokens,
                    format!("query name `{}` is used twice on this entity", query.value),
                );
            }
        }
    }
}

/// An index keyed by templates gets key functions named after it in
/// snake_case (`idx_1_key`, `idx_1_pk`, `IDX_1_PK_PREFIX`), which drops
/// case and punctuation: two index names alike but for those (`Idx-1`,
/// `Idx_1`) would get the same functions, and a name starting with a digit
/// none at all.
fn check_index_function_names(cx: &Ctxt, entity: &Entity) {
    let mut taken: Vec<(String, &str)> = Vec::new();
    for index in entity.keys.iter().filter_map(|k| k.index.as_ref()) {
        let name = index.value.as_str();
        let snake = snake_case(name);
        if snake.starts_with(|c: char| c.is_ascii_digit()) {
            cx.error_spanned_by(
                &index.tokens,
                format!(
                    "index `{name}` starts with a digit, so its key functions (`{snake}_key`, `{snake}_pk`) \
                     cannot be Rust names; ddb names them after the index"
                ),
            );
            continue;
        }
        match taken.iter().find(|(s, n)| *s == snake && *n != name) {
            Some((_, first)) => cx.error_spanned_by(
                &index.tokens,
                format!(
                    "index `{name}` would get the same key functions as index `{first}` \
                     (`{snake}_key`, `{snake}_pk`, `{}_PK_PREFIX`): ddb names them after the index \
                     in snake_case, without its case and punctuation; declare only one of the two \
                     on this entity",
                    snake.to_uppercase()
                ),
            ),
            None => taken.push((snake, name)),
        }
    }
}

/// Each unique constraint names stored fields, once each, that ddb does not
/// write itself; no two constraints are the same, no lookup (`by_<name>`)
/// takes a query's name, and values are lowercased by `ignore_case` or by
/// the `normalize` function, not both.
fn check_unique(cx: &Ctxt, entity: &Entity) {
    let names: Vec<String> = entity.fields.iter().map(|f| f.ident.to_string()).collect();
    let mut seen: Vec<Vec<String>> = Vec::new();
    for unique in &entity.unique {
        if let (Some(ignore_case), Some(normalize)) = (&unique.ignore_case, &unique.normalize) {
            let function = &normalize.value;
            cx.error_spanned_by(
                &ignore_case.tokens,
                format!(
                    "unique(...) takes `ignore_case` or `normalize`, not both: lowercase in `{}` instead \
                     (`value.to_lowercase()`) and remove `ignore_case`",
                    quote::quote!(#function).to_string().replace(' ', "")
                ),
            );
        }
        if unique.fields.is_empty() {
            cx.error_spanned_by(
                &unique.tokens,
                "unique(...) needs the fields whose values together are unique, e.g. unique(tenant_id, email)",
            );
            continue;
        }
        let mut fields: Vec<String> = Vec::new();
        for ident in &unique.fields {
            let name = ident.to_string();
            let Some(field) = entity.field(&name) else {
                let mut message = not_a_field(entity, &names, &name, "unique(...)");
                let skipped = entity.skipped.iter().any(|s| *s == name.as_str());
                let near_field = closest(&name, names.iter().map(String::as_str));
                let near_option = closest(&name, UNIQUE_KEYS.iter().copied());
                if let (false, None, Some(option)) = (skipped, near_field, near_option) {
                    message.push_str(&format!("; did you mean the option `{option}`?"));
                }
                cx.error_spanned_by(ident, message);
                continue;
            };
            if fields.contains(&name) {
                cx.error_spanned_by(
                    ident,
                    format!("field `{name}` is named twice in one unique(...)"),
                );
            }
            let raw = &field.raw;
            let written_by_ddb = [
                ("version", &raw.version),
                ("ttl", &raw.ttl),
                ("created_at", &raw.created_at),
                ("updated_at", &raw.updated_at),
            ];
            if let Some((role, _)) = written_by_ddb.iter().find(|(_, r)| r.is_some()) {
                cx.error_spanned_by(
                    &unique.tokens,
                    format!("field `{name}` is #[ddb({role})], which ddb writes itself, so it cannot be unique; make another field unique"),
                );
            }
            fields.push(name);
        }
        let mut set = fields.clone();
        set.sort();
        if seen.contains(&set) {
            cx.error_spanned_by(
                &unique.tokens,
                format!(
                    "the fields {} are declared unique twice on this entity",
                    fields.join(", ")
                ),
            );
        }
        seen.push(set);
        let lookup = format!("by_{}", unique.name());
        let query_names = entity.keys.iter().filter_map(|k| k.query.as_ref());
        let multi_names = entity
            .multi_attribute_keys
            .iter()
            .filter_map(|k| k.query.as_ref());
        if query_names.chain(multi_names).any(|q| q.value == lookup) {
            cx.error_spanned_by(
                &unique.tokens,
                format!("the lookup of this unique constraint is `{lookup}`, which is also a query name on this entity; rename the query"),
            );
        }
    }
}

/// A vector field names its index and its search entry point, is in no
/// key, and its `by` field (the search schema's hash value) is another
/// stored field.
fn check_vectors(cx: &Ctxt, entity: &Entity) {
    let names: Vec<String> = entity.fields.iter().map(|f| f.ident.to_string()).collect();
    for field in &entity.fields {
        let Some(vector) = &field.raw.vector else {
            continue;
        };
        let name = field.ident.to_string();
        if vector.value.index.is_none() {
            cx.error_spanned_by(
                &vector.tokens,
                "vector(...) needs index = \"...\": the table's vector index this field feeds",
            );
        }
        if let Some(search) = &vector.value.search {
            if syn::parse_str::<syn::Ident>(&search.value.value()).is_err() {
                cx.error_spanned_by(
                    &search.tokens,
                    format!(
                        "search = \"{}\" is not a Rust function name",
                        search.value.value()
                    ),
                );
            }
        }
        if vector.value.search.is_none() {
            cx.error_spanned_by(&vector.tokens, "vector(...) needs search = \"...\": the name of the search entry point, e.g. search = \"similar\"");
        }
        let in_key = entity
            .keys
            .iter()
            .any(|key| key.fields().contains(&name.as_str()));
        let in_attribute_key = entity
            .multi_attribute_keys
            .iter()
            .any(|key| key.fields().any(|f| *f == name));
        if in_key || in_attribute_key {
            cx.error_spanned_by(&vector.tokens, format!("field `{name}` holds a vector, which cannot be part of a key; key on another field"));
        }
        if let Some(by) = &vector.value.by {
            let by_name = by.value.to_string();
            if by_name == name {
                cx.error_spanned_by(
                    &by.tokens,
                    "the search's hash field cannot be the vector field itself",
                );
            } else if entity.field(&by_name).is_none() {
                cx.error_spanned_by(
                    &by.tokens,
                    not_a_field(entity, &names, &by_name, "vector(by = ...)"),
                );
            }
        }
    }
}
