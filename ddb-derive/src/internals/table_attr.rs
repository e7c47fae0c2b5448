//! The syntax of `#[ddb(...)]` on a table: its name, key attributes and
//! indexes, raw with their tokens, for errors. The rules are `table.rs`'s.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, LitStr};

use super::ctxt::Ctxt;
use super::meta::{for_each_ddb, set_list, set_once, set_value, unknown, Attr};
use super::symbol::*;

/// `index(...)` or `local_index(...)` on a table, as written.
#[derive(Default)]
pub struct RawTableIndex {
    pub local: bool,
    pub tokens: TokenStream,
    pub name: Option<Attr<LitStr>>,
    pub pk: Option<Attr<LitStr>>,
    pub sk: Option<Attr<LitStr>>,
    /// `pk("a", "b: N")`: a multi-attribute partition key.
    pub pk_list: Option<Attr<Vec<LitStr>>>,
    /// `sk("a", "b: N")`: a multi-attribute sort key.
    pub sk_list: Option<Attr<Vec<LitStr>>>,
    pub pk_type: Option<Attr<LitStr>>,
    pub sk_type: Option<Attr<LitStr>>,
    pub projection: Option<Attr<LitStr>>,
    pub include: Option<Attr<Vec<LitStr>>>,
}

/// `vector_index(...)` on a table, as written.
#[derive(Default)]
pub struct RawVectorIndex {
    pub tokens: TokenStream,
    pub name: Option<Attr<LitStr>>,
    /// The vector attribute.
    pub vector: Option<Attr<LitStr>>,
    pub dimensions: Option<Attr<syn::LitInt>>,
    pub distance: Option<Attr<LitStr>>,
    /// The search schema's HASH attribute.
    pub hash: Option<Attr<LitStr>>,
    pub hash_type: Option<Attr<LitStr>>,
    /// `filters("price: N")`: the search schema's INLINE_FILTER attributes.
    pub filters: Option<Attr<Vec<LitStr>>>,
    pub projection: Option<Attr<LitStr>>,
    pub include: Option<Attr<Vec<LitStr>>>,
}

/// A table's container attributes, as written.
#[derive(Default)]
pub struct RawTable {
    pub name: Option<Attr<LitStr>>,
    pub pk: Option<Attr<LitStr>>,
    pub sk: Option<Attr<LitStr>>,
    pub pk_type: Option<Attr<LitStr>>,
    pub sk_type: Option<Attr<LitStr>>,
    pub entity_attribute: Option<Attr<LitStr>>,
    pub ttl: Option<Attr<LitStr>>,
    /// `stream = "new_and_old_images"`: the stream view the code reads.
    pub stream: Option<Attr<LitStr>>,
    /// `entities(Customer, Order)`: every entity the table stores.
    pub entities: Option<Attr<Vec<syn::Path>>>,
    /// `table_class = "standard_infrequent_access"`.
    pub table_class: Option<Attr<LitStr>>,
    /// `recovery_period_days = 35`: point-in-time recovery's period.
    pub recovery_period_days: Option<Attr<syn::LitInt>>,
    /// `contributor_insights = "throttled_keys"`.
    pub contributor_insights: Option<Attr<LitStr>>,
    /// `multi_region_consistency = "eventual"` or `"strong"`.
    pub multi_region_consistency: Option<Attr<LitStr>>,
    /// `single_region_writes`: each item is written in one Region.
    pub single_region_writes: Option<Attr<()>>,
    pub indexes: Vec<RawTableIndex>,
    pub vector_indexes: Vec<RawVectorIndex>,
}

pub fn parse_table(cx: &Ctxt, input: &DeriveInput) -> RawTable {
    let mut raw = RawTable::default();
    for_each_ddb(cx, &input.attrs, |meta| {
        let path = &meta.path;
        if path.is_ident(NAME) {
            set_value(cx, &mut raw.name, meta)
        } else if path.is_ident(PK) {
            set_value(cx, &mut raw.pk, meta)
        } else if path.is_ident(SK) {
            set_value(cx, &mut raw.sk, meta)
        } else if path.is_ident(PK_TYPE) {
            set_value(cx, &mut raw.pk_type, meta)
        } else if path.is_ident(SK_TYPE) {
            set_value(cx, &mut raw.sk_type, meta)
        } else if path.is_ident(ENTITY_ATTRIBUTE) {
            set_value(cx, &mut raw.entity_attribute, meta)
        } else if path.is_ident(TTL) {
            set_value(cx, &mut raw.ttl, meta)
        } else if path.is_ident(STREAM) {
            set_value(cx, &mut raw.stream, meta)
        } else if path.is_ident(TABLE_CLASS) {
            set_value(cx, &mut raw.table_class, meta)
        } else if path.is_ident(RECOVERY_PERIOD_DAYS) {
            set_value(cx, &mut raw.recovery_period_days, meta)
        } else if path.is_ident(CONTRIBUTOR_INSIGHTS) {
            set_value(cx, &mut raw.contributor_insights, meta)
        } else if path.is_ident(MULTI_REGION_CONSISTENCY) {
            set_value(cx, &mut raw.multi_region_consistency, meta)
        } else if path.is_ident(SINGLE_REGION_WRITES) {
            let tokens = meta.path.to_token_stream();
            set_once(cx, &mut raw.single_region_writes, meta, (), tokens);
            super::attr::flag_without_value(cx, meta)
        } else if path.is_ident(ENTITIES) {
            set_list(cx, &mut raw.entities, meta)
        } else if path.is_ident(INDEX) || path.is_ident(LOCAL_INDEX) {
            raw.indexes.push(parse_table_index(cx, meta)?);
            Ok(())
        } else if path.is_ident(VECTOR_INDEX) {
            raw.vector_indexes.push(parse_vector_index(cx, meta)?);
            Ok(())
        } else {
            unknown(cx, meta, "a table", TABLE_KEYS)
        }
    });
    raw
}

/// `index(...)` or `local_index(...)` on a table.
fn parse_table_index(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<RawTableIndex> {
    let path = &meta.path;
    let local = path.is_ident(LOCAL_INDEX);
    let mut index = RawTableIndex {
        local,
        tokens: path.to_token_stream(),
        ..RawTableIndex::default()
    };
    let valid = if local {
        TABLE_LOCAL_INDEX_KEYS
    } else {
        TABLE_INDEX_KEYS
    };
    meta.parse_nested_meta(|inner| {
        let path = &inner.path;
        let list = inner.input.peek(syn::token::Paren);
        if path.is_ident(NAME) {
            set_value(cx, &mut index.name, &inner)
        } else if path.is_ident(PK) && !local && list {
            set_list(cx, &mut index.pk_list, &inner)
        } else if path.is_ident(PK) && !local {
            set_value(cx, &mut index.pk, &inner)
        } else if path.is_ident(SK) && !local && list {
            set_list(cx, &mut index.sk_list, &inner)
        } else if path.is_ident(SK) {
            set_value(cx, &mut index.sk, &inner)
        } else if path.is_ident(PK_TYPE) && !local {
            set_value(cx, &mut index.pk_type, &inner)
        } else if path.is_ident(SK_TYPE) {
            set_value(cx, &mut index.sk_type, &inner)
        } else if path.is_ident(PROJECTION) {
            set_value(cx, &mut index.projection, &inner)
        } else if path.is_ident(INCLUDE) {
            set_list(cx, &mut index.include, &inner)
        } else {
            unknown(
                cx,
                &inner,
                if local { "a local index" } else { "an index" },
                valid,
            )
        }
    })?;
    Ok(index)
}

/// `vector_index(...)` on a table.
fn parse_vector_index(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<RawVectorIndex> {
    let mut index = RawVectorIndex {
        tokens: meta.path.to_token_stream(),
        ..RawVectorIndex::default()
    };
    meta.parse_nested_meta(|inner| {
        let path = &inner.path;
        if path.is_ident(NAME) {
            set_value(cx, &mut index.name, &inner)
        } else if path.is_ident(VECTOR) {
            set_value(cx, &mut index.vector, &inner)
        } else if path.is_ident(DIMENSIONS) {
            set_value(cx, &mut index.dimensions, &inner)
        } else if path.is_ident(DISTANCE) {
            set_value(cx, &mut index.distance, &inner)
        } else if path.is_ident(HASH) {
            set_value(cx, &mut index.hash, &inner)
        } else if path.is_ident(HASH_TYPE) {
            set_value(cx, &mut index.hash_type, &inner)
        } else if path.is_ident(FILTERS) {
            set_list(cx, &mut index.filters, &inner)
        } else if path.is_ident(PROJECTION) {
            set_value(cx, &mut index.projection, &inner)
        } else if path.is_ident(INCLUDE) {
            set_list(cx, &mut index.include, &inner)
        } else {
            unknown(cx, &inner, "a vector index", TABLE_VECTOR_INDEX_KEYS)
        }
    })?;
    Ok(index)
}
