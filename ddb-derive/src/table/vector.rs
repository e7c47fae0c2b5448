//! `vector_index(...)` on a table, checked, as a `VectorIndexDef`.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::LitStr;

use crate::internals::ctxt::Ctxt;
use crate::internals::meta::Attr;
use crate::internals::table_attr::{RawTable, RawVectorIndex};

use super::{check_name, index_projection, key_attribute, split_type};

/// DynamoDB's limits: vector indexes per table, and dimensions per vector.
const MAX_VECTOR_INDEXES: usize = 5;
const MAX_DIMENSIONS: u32 = 4096;

/// The `VectorIndexDef`s of the table's vector indexes; `seen` holds the
/// names of its other indexes.
pub(super) fn vector_index_defs(
    cx: &Ctxt,
    raw: &RawTable,
    seen: &mut Vec<String>,
) -> Vec<TokenStream> {
    if raw.vector_indexes.len() > MAX_VECTOR_INDEXES {
        cx.error_spanned_by(
            &raw.vector_indexes[MAX_VECTOR_INDEXES].tokens,
            format!("a table has at most {MAX_VECTOR_INDEXES} vector indexes"),
        );
    }
    let keys = key_attribute_names(raw);
    check_across_indexes(cx, raw);
    raw.vector_indexes
        .iter()
        .filter_map(|index| vector_index_def(cx, index, &keys, seen))
        .collect()
}

/// What DynamoDB refuses across a table's vector indexes: one vector
/// attribute with two dimension counts, an attribute that is one index's
/// vector and another's search schema, and the entity-type attribute (a
/// String) as a Number filter.
fn check_across_indexes(cx: &Ctxt, raw: &RawTable) {
    let entity_attribute = raw
        .entity_attribute
        .as_ref()
        .map_or_else(|| "_type".to_owned(), |a| a.value.value());
    let mut vectors: Vec<(String, String)> = Vec::new();
    for index in &raw.vector_indexes {
        let (Some(vector), Some(dimensions)) = (&index.vector, &index.dimensions) else {
            continue;
        };
        let (name, count) = (vector.value.value(), dimensions.value.to_string());
        match vectors.iter().find(|(n, _)| *n == name) {
            Some((_, other)) if *other != count => cx.error_spanned_by(&dimensions.tokens, format!(
                "vector attribute `{name}` is indexed with {other} dimensions by another vector index; an attribute has one dimension count"
            )),
            Some(_) => {}
            None => vectors.push((name, count)),
        }
    }
    for index in &raw.vector_indexes {
        let hash = index
            .hash
            .iter()
            .map(|h| (h.value.value(), None, h.tokens.clone()));
        let filters = index
            .filters
            .iter()
            .flat_map(|list| &list.value)
            .map(|entry| {
                let text = entry.value();
                let (name, ty) = split_type(&text);
                (
                    name.to_owned(),
                    ty.map(str::to_owned),
                    entry.to_token_stream(),
                )
            });
        for (name, ty, tokens) in hash.chain(filters) {
            if vectors.iter().any(|(v, _)| *v == name) {
                cx.error_spanned_by(&tokens, format!("`{name}` is the vector attribute of a vector index; it cannot also be in a search schema"));
            }
            if name == entity_attribute && ty.as_deref().is_some_and(|ty| ty != "S") {
                cx.error_spanned_by(&tokens, format!("`{name}` is the entity-type attribute, a String: filter on it as \"{name}\""));
            }
        }
    }
}

/// Every key attribute of the table and its indexes, and its entity-type
/// attribute: none of them can hold a vector.
fn key_attribute_names(raw: &RawTable) -> Vec<String> {
    let mut names: Vec<String> = super::written_by_ddb(raw);
    for index in &raw.indexes {
        names.extend(
            [&index.pk, &index.sk]
                .into_iter()
                .flatten()
                .map(|a| a.value.value()),
        );
        for list in [&index.pk_list, &index.sk_list].into_iter().flatten() {
            names.extend(
                list.value
                    .iter()
                    .map(|e| split_type(&e.value()).0.to_owned()),
            );
        }
    }
    names
}

fn vector_index_def(
    cx: &Ctxt,
    index: &RawVectorIndex,
    keys: &[String],
    seen: &mut Vec<String>,
) -> Option<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let Some(name) = &index.name else {
        cx.error_spanned_by(&index.tokens, "a vector index needs name = \"...\"");
        return None;
    };
    check_name(cx, name, "vector index");
    let index_name = name.value.value();
    if seen.contains(&index_name) {
        cx.error_spanned_by(
            &name.tokens,
            format!("index `{index_name}` is declared twice; index names are unique in a table"),
        );
    }
    seen.push(index_name.clone());
    let vector = required(
        cx,
        &index.vector,
        index,
        "vector = \"embedding\" (the attribute holding each item's vector)",
    )?;
    let vector_name = vector.value.value();
    if vector_name.is_empty() || keys.contains(&vector_name) {
        cx.error_spanned_by(&vector.tokens, format!(
            "`{vector_name}` cannot hold a vector: it is a key attribute of the table or an index (or the entity-type attribute); name an attribute of its own"
        ));
    }
    let dimensions = dimensions(cx, index)?;
    let distance = distance(cx, index)?;
    let hash = match &index.hash {
        Some(hash) => {
            let name = hash.value.value();
            if name == vector_name {
                cx.error_spanned_by(
                    &hash.tokens,
                    "the search schema's hash attribute cannot be the vector attribute",
                );
            }
            let hash = key_attribute(cx, hash, &index.hash_type);
            quote!(::core::option::Option::Some(#hash))
        }
        None => {
            if let Some(ty) = &index.hash_type {
                cx.error_spanned_by(&ty.tokens, "hash_type without hash: name the search schema's hash attribute with hash = \"...\"");
            }
            quote!(::core::option::Option::None)
        }
    };
    let filters = filters(cx, index, &vector_name);
    let projection = index_projection(cx, &index.projection, &index.include);
    Some(quote! {
        #p::VectorIndexDef {
            name: #index_name,
            vector: #vector_name,
            dimensions: #dimensions,
            distance: #distance,
            hash: #hash,
            filters: &[#(#filters),*],
            projection: #projection,
        }
    })
}

/// A setting the index needs, reported at the index when missing.
fn required<'a>(
    cx: &Ctxt,
    slot: &'a Option<Attr<LitStr>>,
    index: &RawVectorIndex,
    what: &str,
) -> Option<&'a Attr<LitStr>> {
    if slot.is_none() {
        cx.error_spanned_by(&index.tokens, format!("a vector index needs {what}"));
    }
    slot.as_ref()
}

fn dimensions(cx: &Ctxt, index: &RawVectorIndex) -> Option<u32> {
    let Some(dimensions) = &index.dimensions else {
        cx.error_spanned_by(
            &index.tokens,
            "a vector index needs dimensions = N (the numbers in each vector)",
        );
        return None;
    };
    match dimensions.value.base10_parse::<u32>() {
        Ok(n) if (1..=MAX_DIMENSIONS).contains(&n) => Some(n),
        _ => {
            cx.error_spanned_by(
                &dimensions.tokens,
                format!("a vector has 1 to {MAX_DIMENSIONS} dimensions in DynamoDB"),
            );
            None
        }
    }
}

fn distance(cx: &Ctxt, index: &RawVectorIndex) -> Option<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let distance = required(
        cx,
        &index.distance,
        index,
        "distance = \"cosine\", \"euclidean\" or \"dot_product\"",
    )?;
    match distance.value.value().to_ascii_lowercase().as_str() {
        "cosine" => Some(quote!(#p::DistanceFunction::Cosine)),
        "euclidean" => Some(quote!(#p::DistanceFunction::Euclidean)),
        "dot_product" => Some(quote!(#p::DistanceFunction::DotProduct)),
        other => {
            cx.error_spanned_by(
                &distance.tokens,
                format!(
                    "distance `{other}` is not one of \"cosine\", \"euclidean\", \"dot_product\""
                ),
            );
            None
        }
    }
}

/// The `INLINE_FILTER` attributes, each `"name"` (a String) or `"name: N"`.
fn filters(cx: &Ctxt, index: &RawVectorIndex, vector: &str) -> Vec<TokenStream> {
    let Some(list) = &index.filters else {
        return Vec::new();
    };
    let hash = index.hash.as_ref().map(|h| h.value.value());
    let mut names: Vec<String> = Vec::new();
    list.value
        .iter()
        .map(|entry| {
            let text = entry.value();
            let (name, ty) = split_type(&text);
            if name == vector || Some(name) == hash.as_deref() || names.iter().any(|n| n == name) {
                cx.error_spanned_by(entry, format!("`{name}` is named twice in the search schema, or is the vector attribute; each attribute has one role"));
            }
            names.push(name.to_owned());
            let tokens = entry.to_token_stream();
            let ty = ty.map(|ty| Attr {
                value: LitStr::new(ty, entry.span()),
                tokens: tokens.clone(),
            });
            let name = Attr {
                value: LitStr::new(name, entry.span()),
                tokens,
            };
            key_attribute(cx, &name, &ty)
        })
        .collect()
}
