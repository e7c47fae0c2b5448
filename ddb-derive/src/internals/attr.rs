//! The raw `#[ddb(...)]` attributes of an entity and its fields, each value
//! with its tokens, for errors. No rule that spans several attributes lives here.

use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::{Attribute, LitInt, LitStr, Path};

use super::ctxt::Ctxt;
use super::meta::{
    for_each_ddb, key_name, path_tokens, set_list, set_once, set_value, skip_value, unknown, Attr,
};
use super::serde_attr::{
    serde_conversion, serde_keys, serde_value, SerdeConversion, CONTAINER_SERDE_REFUSED,
    FIELD_SERDE_REFUSED, SPLIT_RENAME,
};
use super::symbol::*;

#[derive(Default)]
pub struct RawIndex {
    pub name: Option<Attr<LitStr>>,
    pub pk: Option<Attr<LitStr>>,
    pub sk: Option<Attr<LitStr>>,
    /// `pk(customer_id, status)`: a multi-attribute key's partition fields.
    pub pk_fields: Option<Attr<Vec<syn::Ident>>>,
    /// `sk(placed_at, order_id)`: a multi-attribute key's sort fields.
    pub sk_fields: Option<Attr<Vec<syn::Ident>>>,
    pub query: Option<Attr<LitStr>>,
    pub shards: Option<Attr<LitInt>>,
    pub when: Option<Attr<RawWhen>>,
    pub tokens: proc_macro2::TokenStream,
}

/// How an index's membership is compared: `==`, `!=`, or one of a list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Eq,
    Ne,
    In,
}

/// A sparse index's membership rule, as written in `when(...)`.
#[derive(Clone)]
pub enum RawWhen {
    /// `when(status = OrderStatus::Open)`, `!=`, or `in [A, B]`.
    Field {
        field: syn::Ident,
        compare: Compare,
        value: syn::Expr,
    },
    /// `when(Order::is_open, reads(status))`.
    Function { path: Path, reads: Vec<syn::Ident> },
}

/// `migrate(from = 1, with = path::to_fn)`: how an item stored at schema
/// version `from` becomes one of version `from + 1`.
pub struct RawMigration {
    pub from: Option<Attr<LitInt>>,
    pub with: Option<Attr<Path>>,
    pub tokens: proc_macro2::TokenStream,
}

#[derive(Default)]
pub struct RawEntity {
    pub table: Option<Attr<Path>>,
    pub schema_version: Option<Attr<LitInt>>,
    pub migrations: Vec<RawMigration>,
    pub pk: Option<Attr<LitStr>>,
    pub sk: Option<Attr<LitStr>>,
    pub query: Option<Attr<LitStr>>,
    pub entity: Option<Attr<LitStr>>,
    pub indexes: Vec<RawIndex>,
    /// `unique(a, b)`: the fields whose values together are unique, and
    /// how values compare.
    pub unique: Vec<Attr<RawUnique>>,
    /// `scan`: the entity is read by a Scan.
    pub scan: Option<Attr<()>>,
    pub serde_rename_all: Option<String>,
    /// Container serde attributes ddb cannot follow, with their tokens.
    pub serde_refused: Vec<Attr<String>>,
    /// What the generated conversion needs of the container's serde attributes.
    pub conversion: SerdeConversion,
    /// An unknown key was reported: a missing `table` or `pk` is then likely
    /// that key misspelt, and not reported again.
    pub had_unknown_key: bool,
}

#[derive(Default)]
pub struct RawField {
    pub version: Option<Attr<()>>,
    pub ttl: Option<Attr<()>>,
    pub created_at: Option<Attr<()>>,
    pub updated_at: Option<Attr<()>>,
    pub sensitive: Option<Attr<()>>,
    /// `unique`, or `unique(...)` with how values compare (no fields).
    pub unique: Option<Attr<RawUnique>>,
    /// `vector(index = "...", search = "...", by = field)`.
    pub vector: Option<Attr<RawVector>>,
    pub serde_rename: Option<String>,
    /// `#[serde(skip)]`: never stored, never read.
    pub serde_skip: Option<Attr<()>>,
    /// Field serde attributes ddb cannot follow, with their tokens.
    pub serde_refused: Vec<Attr<String>>,
    /// What the generated conversion needs of the field's serde attributes.
    pub conversion: SerdeConversion,
}

pub fn parse_entity(cx: &Ctxt, attrs: &[Attribute]) -> RawEntity {
    let mut raw = RawEntity::default();
    for_each_ddb(cx, attrs, |meta| {
        let tokens = path_tokens(meta);
        let path = &meta.path;
        if path.is_ident(TABLE) {
            set_value(cx, &mut raw.table, meta)?;
        } else if path.is_ident(PK) {
            set_value(cx, &mut raw.pk, meta)?;
        } else if path.is_ident(SK) {
            set_value(cx, &mut raw.sk, meta)?;
        } else if path.is_ident(QUERY) {
            set_value(cx, &mut raw.query, meta)?;
        } else if path.is_ident(ENTITY) {
            set_value(cx, &mut raw.entity, meta)?;
        } else if path.is_ident(INDEX) {
            raw.indexes.push(parse_index(cx, meta, tokens)?);
        } else if path.is_ident(SCHEMA_VERSION) {
            set_value(cx, &mut raw.schema_version, meta)?;
        } else if path.is_ident(MIGRATE) {
            raw.migrations.push(parse_migration(cx, meta, tokens)?);
        } else if path.is_ident(UNIQUE) {
            let value = parse_unique(cx, meta, true)?;
            raw.unique.push(Attr { value, tokens });
        } else if path.is_ident(SCAN) {
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                cx.error_spanned_by(&meta.path, "#[ddb(scan)] takes no value");
                skip_value(meta)?;
            }
            set_once(cx, &mut raw.scan, meta, (), tokens);
        } else {
            raw.had_unknown_key = true;
            unknown(cx, meta, "an entity", ENTITY_KEYS)?;
        }
        Ok(())
    });
    raw.serde_rename_all = serde_value(attrs, RENAME_ALL);
    raw.conversion = serde_conversion(attrs, &[RENAME_ALL, RENAME]);
    for key in serde_keys(attrs) {
        if CONTAINER_SERDE_REFUSED.contains(&key.value.as_str()) || key.value == SPLIT_RENAME {
            raw.serde_refused.push(key);
        }
    }
    raw
}

/// A unique constraint as written: its fields (on the entity), and how
/// its values compare.
#[derive(Default)]
pub struct RawUnique {
    /// The fields, in order; none on a field's `unique(...)`.
    pub fields: Vec<syn::Ident>,
    /// `ignore_case`: values compare lowercased.
    pub ignore_case: Option<Attr<()>>,
    /// `normalize = path::to::function`: a `fn(&str) -> String` each value
    /// goes through before it is compared.
    pub normalize: Option<Attr<Path>>,
    /// `allow_empty`: an empty value is a value like any other.
    pub allow_empty: Option<Attr<()>>,
}

/// `unique(...)`: on the entity (`with_fields`) the fields, in order, among
/// the options; on a field the options only. An option's keyword is always
/// the option: `r#allow_empty` names a field called `allow_empty`.
fn parse_unique(cx: &Ctxt, meta: &ParseNestedMeta, with_fields: bool) -> syn::Result<RawUnique> {
    let mut unique = RawUnique::default();
    let place = if with_fields {
        "unique(...)"
    } else {
        "a field's unique(...)"
    };
    // `unique()` is read as empty (and reported by the rules), where
    // `parse_nested_meta` would refuse it as a syntax error.
    let content;
    syn::parenthesized!(content in meta.input);
    let content: proc_macro2::TokenStream = content.parse()?;
    let each = syn::meta::parser(|inner| {
        let path = &inner.path;
        let bare = inner.input.is_empty() || inner.input.peek(syn::Token![,]);
        if path.is_ident(IGNORE_CASE) || path.is_ident(ALLOW_EMPTY) {
            let slot = if path.is_ident(IGNORE_CASE) {
                &mut unique.ignore_case
            } else {
                &mut unique.allow_empty
            };
            if !bare {
                cx.error_spanned_by(
                    path,
                    format!("`{}` in unique(...) takes no value", key_name(&inner)),
                );
                skip_value(&inner)?;
            }
            set_once(cx, slot, &inner, (), path_tokens(&inner));
        } else if path.is_ident(NORMALIZE) {
            if !inner.input.peek(syn::Token![=]) {
                cx.error_spanned_by(
                    path,
                    "`normalize` in unique(...) names a function: `normalize = path::to::function`, \
                     a fn(&str) -> String",
                );
                return skip_value(&inner);
            }
            set_value(cx, &mut unique.normalize, &inner)?;
        } else if let (true, true, Some(ident)) = (with_fields, bare, path.get_ident()) {
            unique.fields.push(field_name(ident));
        } else {
            unknown(cx, &inner, place, UNIQUE_KEYS)?;
        }
        Ok(())
    });
    syn::parse::Parser::parse2(each, content)?;
    Ok(unique)
}

/// A field named in `unique(...)`: `r#allow_empty` is the field called
/// `allow_empty`, as an option's keyword alone is the option.
fn field_name(ident: &syn::Ident) -> syn::Ident {
    use syn::ext::IdentExt;
    let plain = ident.unraw();
    if UNIQUE_KEYS.contains(&plain.to_string().as_str()) {
        plain
    } else {
        ident.clone()
    }
}

fn parse_migration(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    tokens: proc_macro2::TokenStream,
) -> syn::Result<RawMigration> {
    let mut migration = RawMigration {
        from: None,
        with: None,
        tokens,
    };
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident(FROM) {
            set_value(cx, &mut migration.from, &inner)?;
        } else if inner.path.is_ident(WITH) {
            set_value(cx, &mut migration.with, &inner)?;
        } else {
            unknown(cx, &inner, "migrate(...)", MIGRATE_KEYS)?;
        }
        Ok(())
    })?;
    Ok(migration)
}

fn parse_index(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    tokens: proc_macro2::TokenStream,
) -> syn::Result<RawIndex> {
    let mut index = RawIndex {
        tokens,
        ..RawIndex::default()
    };
    meta.parse_nested_meta(|inner| {
        let path = &inner.path;
        if path.is_ident(NAME) {
            set_value(cx, &mut index.name, &inner)?;
        } else if (path.is_ident(PK) || path.is_ident(SK)) && inner.input.peek(syn::token::Paren) {
            let slot = if path.is_ident(PK) {
                &mut index.pk_fields
            } else {
                &mut index.sk_fields
            };
            set_list(cx, slot, &inner)?;
        } else if path.is_ident(PK) {
            set_value(cx, &mut index.pk, &inner)?;
        } else if path.is_ident(SK) {
            set_value(cx, &mut index.sk, &inner)?;
        } else if path.is_ident(QUERY) {
            set_value(cx, &mut index.query, &inner)?;
        } else if path.is_ident(SHARDS) {
            set_value(cx, &mut index.shards, &inner)?;
        } else if path.is_ident(WHEN) {
            if inner.input.peek(syn::Token![=]) {
                let value: Path = inner.value()?.parse()?;
                cx.error_spanned_by(
                    &value,
                    format!(
                        "`when = {}` hides which fields decide membership, so ddb would have to read the whole item \
                         on every update; declare them: `when(status = OrderStatus::Open)` (also `!=` and `in [..]`), \
                         or `when({}, reads(status))`",
                        quote::quote!(#value).to_string().replace(' ', ""),
                        quote::quote!(#value).to_string().replace(' ', ""),
                    ),
                );
            } else {
                let content;
                syn::parenthesized!(content in inner.input);
                let tokens: proc_macro2::TokenStream = content.fork().parse()?;
                let when = parse_when(&content)?;
                set_once(cx, &mut index.when, &inner, when, tokens);
            }
        } else {
            unknown(cx, &inner, "an index", INDEX_KEYS)?;
        }
        Ok(())
    })?;
    Ok(index)
}

/// `field = value`, `field != value`, `field in [a, b]`, or
/// `path::to::function, reads(field, ...)`.
fn parse_when(input: syn::parse::ParseStream) -> syn::Result<RawWhen> {
    let path: Path = input.parse()?;
    let compare = if input.peek(syn::Token![!=]) {
        input.parse::<syn::Token![!=]>()?;
        Some(Compare::Ne)
    } else if input.peek(syn::Token![=]) {
        input.parse::<syn::Token![=]>()?;
        Some(Compare::Eq)
    } else if input.peek(syn::Token![in]) {
        input.parse::<syn::Token![in]>()?;
        Some(Compare::In)
    } else {
        None
    };
    if let Some(compare) = compare {
        let Some(field) = path.get_ident().cloned() else {
            return Err(syn::Error::new_spanned(
                &path,
                "the left side of a `when(...)` comparison is a field name, e.g. `when(status = OrderStatus::Open)`",
            ));
        };
        let value: syn::Expr = input.parse()?;
        if compare == Compare::In && !matches!(value, syn::Expr::Array(_)) {
            return Err(syn::Error::new_spanned(
                &value,
                "`in` takes a list of values, e.g. `when(status in [OrderStatus::Open, OrderStatus::Held])`",
            ));
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the `when(...)` comparison"));
        }
        return Ok(RawWhen::Field {
            field,
            compare,
            value,
        });
    }
    let missing_reads = || {
        syn::Error::new_spanned(
            &path,
            format!(
                "a function in `when(...)` must declare the fields it reads, e.g. `when({}, reads(status))`, \
                 so ddb knows which updates can change membership",
                quote::quote!(#path).to_string().replace(' ', "")
            ),
        )
    };
    if input.is_empty() {
        return Err(missing_reads());
    }
    input.parse::<syn::Token![,]>()?;
    let key: syn::Ident = input.parse()?;
    if key != READS {
        return Err(missing_reads());
    }
    let content;
    syn::parenthesized!(content in input);
    let reads = content.parse_terminated(syn::Ident::parse, syn::Token![,])?;
    if reads.is_empty() {
        return Err(missing_reads());
    }
    let _ = input.parse::<Option<syn::Token![,]>>()?;
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after `reads(...)`"));
    }
    Ok(RawWhen::Function {
        path,
        reads: reads.into_iter().collect(),
    })
}

/// `vector(...)` on a field: the vector index it feeds, the name of the
/// search entry point, and the field holding the search schema's hash value.
pub struct RawVector {
    pub index: Option<Attr<syn::LitStr>>,
    pub search: Option<Attr<syn::LitStr>>,
    pub by: Option<Attr<syn::Ident>>,
}

fn parse_vector(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<RawVector> {
    let mut raw = RawVector {
        index: None,
        search: None,
        by: None,
    };
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident(INDEX) {
            set_value(cx, &mut raw.index, &inner)
        } else if inner.path.is_ident(SEARCH) {
            set_value(cx, &mut raw.search, &inner)
        } else if inner.path.is_ident(BY) {
            set_value(cx, &mut raw.by, &inner)
        } else {
            unknown(cx, &inner, "a vector field", VECTOR_FIELD_KEYS)
        }
    })?;
    Ok(raw)
}

/// A flag given a value (`#[ddb(version = 1)]`) is an error at its key.
pub(crate) fn flag_without_value(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
    if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        cx.error_spanned_by(
            &meta.path,
            format!("#[ddb({})] takes no value", key_name(meta)),
        );
        skip_value(meta)?;
    }
    Ok(())
}

pub fn parse_field(cx: &Ctxt, attrs: &[Attribute]) -> RawField {
    let mut raw = RawField::default();
    for_each_ddb(cx, attrs, |meta| {
        let tokens = path_tokens(meta);
        let path = &meta.path;
        if path.is_ident(VECTOR) {
            let vector = parse_vector(cx, meta)?;
            set_once(cx, &mut raw.vector, meta, vector, tokens);
            return Ok(());
        }
        if path.is_ident(UNIQUE) {
            let unique = if meta.input.peek(syn::token::Paren) {
                parse_unique(cx, meta, false)?
            } else {
                flag_without_value(cx, meta)?;
                RawUnique::default()
            };
            set_once(cx, &mut raw.unique, meta, unique, tokens);
            return Ok(());
        }
        let slot = if path.is_ident(VERSION) {
            &mut raw.version
        } else if path.is_ident(TTL) {
            &mut raw.ttl
        } else if path.is_ident(CREATED_AT) {
            &mut raw.created_at
        } else if path.is_ident(UPDATED_AT) {
            &mut raw.updated_at
        } else if path.is_ident(SENSITIVE) {
            &mut raw.sensitive
        } else {
            return unknown(cx, meta, "a field", FIELD_KEYS);
        };
        flag_without_value(cx, meta)?;
        set_once(cx, slot, meta, (), tokens);
        Ok(())
    });
    raw.serde_rename = serde_value(attrs, RENAME);
    raw.conversion = serde_conversion(attrs, &[RENAME, "skip"]);
    for key in serde_keys(attrs) {
        if key.value == "skip" {
            raw.serde_skip = Some(Attr {
                value: (),
                tokens: key.tokens,
            });
        } else if FIELD_SERDE_REFUSED.contains(&key.value.as_str()) || key.value == SPLIT_RENAME {
            raw.serde_refused.push(key);
        }
    }
    raw
}
