//! `#[derive(Table)]`: the physical table, its key attributes and indexes,
//! from the attributes `internals::table_attr` reads, checked here.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{DeriveInput, LitStr};

use crate::internals::ctxt::Ctxt;
use crate::internals::meta::Attr;
use crate::internals::table_attr::{parse_table, RawTable, RawTableIndex};

mod vector;

fn scalar(cx: &Ctxt, ty: &Option<Attr<LitStr>>) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match ty.as_ref().map(|t| t.value.value()) {
        None => quote!(#p::ScalarType::S),
        Some(t) if t == "S" => quote!(#p::ScalarType::S),
        Some(t) if t == "N" => quote!(#p::ScalarType::N),
        Some(t) => {
            cx.error_spanned_by(
                ty.as_ref().map(|t| t.tokens.clone()),
                format!("key type `{t}` is not supported; use \"S\" (string) or \"N\" (number)"),
            );
            quote!(#p::ScalarType::S)
        }
    }
}

/// DynamoDB's rule for table and index names: 3 to 255 of `[a-zA-Z0-9_.-]`.
fn check_name(cx: &Ctxt, name: &Attr<LitStr>, what: &str) {
    let value = name.value.value();
    let valid_chars = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !(3..=255).contains(&value.len()) || !valid_chars {
        cx.error_spanned_by(
            &name.tokens,
            format!("{what} name `{value}` is not valid in DynamoDB: use 3 to 255 letters, digits, `_`, `.` or `-`"),
        );
    }
}

fn key_attribute(cx: &Ctxt, name: &Attr<LitStr>, ty: &Option<Attr<LitStr>>) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let value = name.value.value();
    if value.is_empty() || value.len() > 255 {
        cx.error_spanned_by(&name.tokens, "a key attribute name must be 1 to 255 bytes");
    }
    let ty = scalar(cx, ty);
    quote!(#p::KeyAttribute { name: #value, ty: #ty })
}

/// One attribute has one type in the table's `AttributeDefinitions`: the
/// same name declared S in one key and N in another is an error.
fn check_attribute_types(cx: &Ctxt, raw: &RawTable) {
    let mut declared: Vec<(String, String)> = Vec::new();
    let mut check = |name: String, ty: String, tokens: &dyn ToTokens| {
        match declared.iter().find(|(n, _)| *n == name) {
            Some((_, first)) if *first != ty => cx.error_spanned_by(
                tokens,
                format!("attribute `{name}` is declared {first} in one key and {ty} in another; a key attribute has one type"),
            ),
            Some(_) => {}
            None => declared.push((name, ty)),
        }
    };
    let ty_of = |ty: &Option<Attr<LitStr>>| ty.as_ref().map_or("S".to_owned(), |t| t.value.value());
    let single = |name: &Option<Attr<LitStr>>, ty: &Option<Attr<LitStr>>| {
        name.as_ref()
            .map(|n| (n.value.value(), ty_of(ty), n.tokens.clone()))
    };
    let mut all: Vec<(String, String, TokenStream)> = Vec::new();
    all.extend(single(&raw.pk, &raw.pk_type));
    all.extend(single(&raw.sk, &raw.sk_type));
    for index in &raw.indexes {
        all.extend(single(&index.pk, &index.pk_type));
        all.extend(single(&index.sk, &index.sk_type));
        for list in [&index.pk_list, &index.sk_list].into_iter().flatten() {
            for entry in &list.value {
                let text = entry.value();
                let (name, ty) = split_type(&text);
                all.push((
                    name.to_owned(),
                    ty.unwrap_or("S").to_owned(),
                    entry.to_token_stream(),
                ));
            }
        }
    }
    for index in &raw.vector_indexes {
        all.extend(single(&index.hash, &index.hash_type));
        for entry in index.filters.iter().flat_map(|list| &list.value) {
            let text = entry.value();
            let (name, ty) = split_type(&text);
            let ty = ty.unwrap_or("S").to_owned();
            all.push((name.to_owned(), ty, entry.to_token_stream()));
        }
    }
    for (name, ty, tokens) in all {
        check(name, ty, &tokens);
    }
}

/// DynamoDB's limit on the attributes of a multi-attribute key, per side.
const MAX_KEY_ATTRIBUTES: usize = 4;

/// `"placedAt"` is a String attribute, `"totalCents: N"` a Number.
fn split_type(entry: &str) -> (&str, Option<&str>) {
    match entry.split_once(':') {
        Some((name, ty)) => (name.trim(), Some(ty.trim())),
        None => (entry.trim(), None),
    }
}

/// The attributes of `pk("a", "b: N")` or `sk(...)`, each with its type.
fn attribute_list(
    cx: &Ctxt,
    list: &Attr<Vec<LitStr>>,
    list_type: &Option<Attr<LitStr>>,
    side: &str,
    min: usize,
) -> Vec<TokenStream> {
    if let Some(ty) = list_type {
        cx.error_spanned_by(
            &ty.tokens,
            format!("a {side} key given as a list types each attribute in it: write \"name: N\" for a Number"),
        );
    }
    if list.value.len() < min || list.value.len() > MAX_KEY_ATTRIBUTES {
        cx.error_spanned_by(
            &list.tokens,
            format!(
                "a multi-attribute {side} key has 1 to {MAX_KEY_ATTRIBUTES} attributes, and this one has {}",
                list.value.len()
            ),
        );
        return Vec::new();
    }
    list.value
        .iter()
        .map(|entry| {
            let text = entry.value();
            let (name, ty) = split_type(&text);
            let name = LitStr::new(name, entry.span());
            let tokens = entry.to_token_stream();
            let ty = ty.map(|ty| Attr {
                value: LitStr::new(ty, entry.span()),
                tokens: tokens.clone(),
            });
            key_attribute(
                cx,
                &Attr {
                    value: name,
                    tokens,
                },
                &ty,
            )
        })
        .collect()
}

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let raw = parse_table(&cx, input);
    let ident = &input.ident;
    let p = quote!(::ddb_runtime::__private);
    let name = table_name(&cx, &raw, ident);
    let pk = primary_pk(&cx, &raw, ident);
    let sk = primary_sk(&cx, &raw);
    check_attribute_types(&cx, &raw);
    let written_by_ddb = written_by_ddb(&raw);
    let mut seen: Vec<String> = Vec::new();
    let indexes: Vec<TokenStream> = raw
        .indexes
        .iter()
        .filter_map(|index| index_def(&cx, index, &pk, &written_by_ddb, &mut seen))
        .collect();
    let vector_indexes = vector::vector_index_defs(&cx, &raw, &mut seen);
    let ttl = ttl(&cx, &raw, &written_by_ddb);
    let stream = stream(&cx, &raw);
    let table_class = table_class(&cx, &raw);
    let recovery_period_days = recovery_period_days(&cx, &raw);
    let contributor_insights = contributor_insights(&cx, &raw);
    let multi_region_consistency = multi_region_consistency(&cx, &raw);
    let single_region_writes = raw.single_region_writes.is_some();
    let (entities, distinct) = listed_entities(&raw);
    let entity_attribute = raw
        .entity_attribute
        .as_ref()
        .map(|a| a.value.value())
        .unwrap_or_else(|| "_type".to_owned());
    let errors = cx.into_compile_errors();
    quote! {
        #errors
        #distinct
        #[automatically_derived]
        impl #p::Table for #ident {
            const DEF: #p::TableDef = #p::TableDef {
                name: #name,
                pk: #pk,
                sk: #sk,
                indexes: &[#(#indexes),*],
                entity_attribute: #entity_attribute,
                ttl: #ttl,
                entities: #entities,
                vector_indexes: &[#(#vector_indexes),*],
                stream: #stream,
                table_class: #table_class,
                recovery_period_days: #recovery_period_days,
                contributor_insights: #contributor_insights,
                multi_region_consistency: #multi_region_consistency,
                single_region_writes: #single_region_writes,
            };
        }
    }
}

/// The table's name, checked; empty (and reported) when missing.
fn table_name(cx: &Ctxt, raw: &RawTable, ident: &syn::Ident) -> String {
    match &raw.name {
        Some(name) => {
            check_name(cx, name, "table");
            name.value.value()
        }
        None => {
            cx.error_spanned_by(ident, "missing #[ddb(name = \"...\")]: give the table's name, e.g. #[ddb(name = \"Ecommerce\", pk = \"PK\", sk = \"SK\")]");
            String::new()
        }
    }
}

/// The `KeyAttribute` of the table's partition key.
fn primary_pk(cx: &Ctxt, raw: &RawTable, ident: &syn::Ident) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match &raw.pk {
        Some(pk) => key_attribute(cx, pk, &raw.pk_type),
        None => {
            cx.error_spanned_by(ident, "missing #[ddb(pk = \"...\")]: give the partition key attribute name, e.g. pk = \"PK\"");
            quote!(#p::KeyAttribute { name: "", ty: #p::ScalarType::S })
        }
    }
}

/// The table's sort key: `Option<KeyAttribute>`.
fn primary_sk(cx: &Ctxt, raw: &RawTable) -> TokenStream {
    if raw.sk.is_none() {
        if let Some(ty) = &raw.sk_type {
            cx.error_spanned_by(
                &ty.tokens,
                "sk_type without sk: declare the sort key with sk = \"...\"",
            );
        }
    }
    match &raw.sk {
        Some(sk) => {
            let sk = key_attribute(cx, sk, &raw.sk_type);
            quote!(::core::option::Option::Some(#sk))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// The attributes ddb writes itself: the table's keys and the entity-type
/// attribute.
fn written_by_ddb(raw: &RawTable) -> Vec<String> {
    [&raw.pk, &raw.sk, &raw.entity_attribute]
        .into_iter()
        .flatten()
        .map(|a| a.value.value())
        .chain(raw.entity_attribute.is_none().then(|| "_type".to_owned()))
        .collect()
}

/// The `IndexDef` of one index; `None` when its keys are wrong (reported).
/// `seen` holds the names of the indexes before it.
fn index_def(
    cx: &Ctxt,
    index: &RawTableIndex,
    pk: &TokenStream,
    written_by_ddb: &[String],
    seen: &mut Vec<String>,
) -> Option<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let Some(index_name) = &index.name else {
        cx.error_spanned_by(&index.tokens, "an index needs `name = \"...\"`");
        return None;
    };
    check_name(cx, index_name, "index");
    let value = index_name.value.value();
    if seen.contains(&value) {
        cx.error_spanned_by(
            &index_name.tokens,
            format!("index `{value}` is declared twice"),
        );
    }
    seen.push(value.clone());
    let (index_pk, pk_more) = index_partition_key(cx, index, index_name, pk)?;
    let (index_sk, sk_more) = index_sort_key(cx, index, index_name)?;
    check_key_attribute_names(cx, index, &value, written_by_ddb);
    let projection = index_projection(cx, &index.projection, &index.include);
    let kind = if index.local {
        quote!(#p::IndexKind::Local)
    } else {
        quote!(#p::IndexKind::Global)
    };
    let multi_attribute = index.pk_list.is_some() || index.sk_list.is_some();
    Some(quote!(#p::IndexDef {
        name: #value,
        kind: #kind,
        pk: #index_pk,
        pk_more: &[#(#pk_more),*],
        sk: #index_sk,
        sk_more: &[#(#sk_more),*],
        multi_attribute: #multi_attribute,
        projection: #projection,
    }))
}

/// An index's partition key: its first `KeyAttribute` and the rest of a
/// multi-attribute key; a local index's is the table's.
fn index_partition_key(
    cx: &Ctxt,
    index: &RawTableIndex,
    index_name: &Attr<LitStr>,
    pk: &TokenStream,
) -> Option<(TokenStream, Vec<TokenStream>)> {
    let value = index_name.value.value();
    if index.local {
        return Some((pk.clone(), Vec::new()));
    }
    match (&index.pk, &index.pk_list) {
        (Some(ipk), None) => Some((key_attribute(cx, ipk, &index.pk_type), Vec::new())),
        (None, Some(list)) => {
            let mut attributes = attribute_list(cx, list, &index.pk_type, "partition", 1);
            if attributes.is_empty() {
                return None;
            }
            let first = attributes.remove(0);
            Some((first, attributes))
        }
        (Some(_), Some(list)) => {
            cx.error_spanned_by(
                &list.tokens,
                "give the partition key once: pk = \"...\" or pk(\"a\", \"b\")",
            );
            None
        }
        (None, None) => {
            cx.error_spanned_by(&index_name.tokens, format!("index `{value}` needs its partition key attribute: pk = \"...\", or pk(\"a\", \"b\") for a multi-attribute key"));
            None
        }
    }
}

/// An index's sort key: `Option<KeyAttribute>` and the rest of a
/// multi-attribute key.
fn index_sort_key(
    cx: &Ctxt,
    index: &RawTableIndex,
    index_name: &Attr<LitStr>,
) -> Option<(TokenStream, Vec<TokenStream>)> {
    let value = index_name.value.value();
    match (&index.sk, &index.sk_list) {
        (Some(isk), None) => {
            let isk = key_attribute(cx, isk, &index.sk_type);
            Some((quote!(::core::option::Option::Some(#isk)), Vec::new()))
        }
        (None, Some(list)) => {
            let mut attributes = attribute_list(cx, list, &index.sk_type, "sort", 1);
            if attributes.is_empty() {
                return None;
            }
            let first = attributes.remove(0);
            Some((quote!(::core::option::Option::Some(#first)), attributes))
        }
        (Some(_), Some(list)) => {
            cx.error_spanned_by(
                &list.tokens,
                "give the sort key once: sk = \"...\" or sk(\"a\", \"b\")",
            );
            None
        }
        (None, None) if index.local => {
            cx.error_spanned_by(
                &index_name.tokens,
                format!("local index `{value}` needs its sort key attribute: sk = \"...\""),
            );
            None
        }
        (None, None) => Some((quote!(::core::option::Option::None), Vec::new())),
    }
}

/// A multi-attribute key names each attribute once, and none that ddb
/// writes itself.
fn check_key_attribute_names(
    cx: &Ctxt,
    index: &RawTableIndex,
    value: &str,
    written_by_ddb: &[String],
) {
    let mut names: Vec<String> = Vec::new();
    for list in [&index.pk_list, &index.sk_list].into_iter().flatten() {
        for name in &list.value {
            let attribute = split_type(&name.value()).0.to_owned();
            if names.contains(&attribute) {
                cx.error_spanned_by(name, format!("attribute `{attribute}` is named twice in index `{value}`'s key; each key attribute appears once"));
            }
            if written_by_ddb.contains(&attribute) {
                cx.error_spanned_by(name, format!(
                    "attribute `{attribute}` is the table's key or entity-type attribute, which ddb writes itself; \
                     a multi-attribute key is made of the items' own attributes"
                ));
            }
            names.push(attribute);
        }
    }
}

/// An index's `IndexProjection`, from `projection = "..."` or `include(...)`.
fn index_projection(
    cx: &Ctxt,
    projection: &Option<Attr<LitStr>>,
    include: &Option<Attr<Vec<LitStr>>>,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match (projection.as_ref().map(|p| p.value.value()), include) {
        (None, None) => quote!(#p::IndexProjection::All),
        (Some(kind), None) if kind == "all" => quote!(#p::IndexProjection::All),
        (Some(kind), None) if kind == "keys_only" => quote!(#p::IndexProjection::KeysOnly),
        (None, Some(include)) => {
            let names = &include.value;
            if names.is_empty() {
                cx.error_spanned_by(&include.tokens, "include(...) needs at least one attribute name; use projection = \"keys_only\" for none");
            }
            quote!(#p::IndexProjection::Include(&[#(#names),*]))
        }
        (Some(_), Some(include)) => {
            cx.error_spanned_by(
                &include.tokens,
                "give either projection = \"...\" or include(...), not both",
            );
            quote!(#p::IndexProjection::All)
        }
        (Some(kind), None) => {
            cx.error_spanned_by(
                projection.as_ref().map(|p| p.tokens.clone()),
                format!("projection `{kind}` is not one of \"all\", \"keys_only\"; for some attributes write include(\"a\", \"b\")"),
            );
            quote!(#p::IndexProjection::All)
        }
    }
}

/// The time-to-live attribute: `Option<&str>`.
fn ttl(cx: &Ctxt, raw: &RawTable, written_by_ddb: &[String]) -> TokenStream {
    match &raw.ttl {
        Some(ttl) => {
            let name = ttl.value.value();
            if name.is_empty() || written_by_ddb.contains(&name) {
                cx.error_spanned_by(&ttl.tokens, format!("`{name}` cannot be the time-to-live attribute: name an attribute of its own, e.g. ttl = \"expiresAt\""));
            }
            quote!(::core::option::Option::Some(#name))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// The stream view: `Option<StreamView>`.
fn stream(cx: &Ctxt, raw: &RawTable) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let Some(stream) = &raw.stream else {
        return quote!(::core::option::Option::None);
    };
    let view = match stream.value.value().as_str() {
        "keys_only" => quote!(KeysOnly),
        "new_image" => quote!(NewImage),
        "old_image" => quote!(OldImage),
        "new_and_old_images" => quote!(NewAndOldImages),
        other => {
            cx.error_spanned_by(
                &stream.tokens,
                format!("stream `{other}` is not a stream view: use \"keys_only\", \"new_image\", \"old_image\" or \"new_and_old_images\" (what each record carries)"),
            );
            return quote!(::core::option::Option::None);
        }
    };
    quote!(::core::option::Option::Some(#p::StreamView::#view))
}

/// The listed entities, by Rust name (their SCHEMA refers to this DEF, so
/// the DEF cannot refer to them), and the const check of their keys
/// together.
fn listed_entities(raw: &RawTable) -> (TokenStream, TokenStream) {
    let p = quote!(::ddb_runtime::__private);
    match &raw.entities {
        Some(list) => {
            let names = list
                .value
                .iter()
                .filter_map(|path| path.segments.last().map(|s| s.ident.to_string()));
            let schemas = list
                .value
                .iter()
                .map(|path| quote!(&<#path as #p::Entity>::SCHEMA));
            let span = list.span();
            (
                quote!(::core::option::Option::Some(&[#(#names),*])),
                quote::quote_spanned! {span=>
                    const _: () = if let ::core::option::Option::Some(__message) =
                        #p::check_distinct_keys(&[#(#schemas),*])
                    {
                        ::core::panic!("{}", __message.as_str())
                    };
                },
            )
        }
        None => (quote!(::core::option::Option::None), TokenStream::new()),
    }
}

/// The table class: `TableClass`, STANDARD unless declared.
fn table_class(cx: &Ctxt, raw: &RawTable) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let Some(class) = &raw.table_class else {
        return quote!(#p::TableClass::Standard);
    };
    match class.value.value().as_str() {
        "standard" => quote!(#p::TableClass::Standard),
        "standard_infrequent_access" => quote!(#p::TableClass::StandardInfrequentAccess),
        other => {
            cx.error_spanned_by(
                &class.tokens,
                format!("table class `{other}` is not one of \"standard\", \"standard_infrequent_access\""),
            );
            quote!(#p::TableClass::Standard)
        }
    }
}

/// DynamoDB keeps point-in-time recovery 1 to 35 days: `Option<u8>`.
fn recovery_period_days(cx: &Ctxt, raw: &RawTable) -> TokenStream {
    let Some(days) = &raw.recovery_period_days else {
        return quote!(::core::option::Option::None);
    };
    match days.value.base10_parse::<u8>() {
        Ok(days @ 1..=35) => quote!(::core::option::Option::Some(#days)),
        _ => {
            cx.error_spanned_by(
                &days.tokens,
                format!(
                    "recovery_period_days = {} is out of range: point-in-time recovery keeps 1 to 35 days",
                    days.value.base10_digits()
                ),
            );
            quote!(::core::option::Option::None)
        }
    }
}

/// Contributor Insights' mode: `Option<ContributorInsights>`.
fn contributor_insights(cx: &Ctxt, raw: &RawTable) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let Some(mode) = &raw.contributor_insights else {
        return quote!(::core::option::Option::None);
    };
    let mode = match mode.value.value().as_str() {
        "accessed_and_throttled_keys" => quote!(AccessedAndThrottledKeys),
        "throttled_keys" => quote!(ThrottledKeys),
        other => {
            cx.error_spanned_by(
                &mode.tokens,
                format!("contributor_insights `{other}` is not one of \"accessed_and_throttled_keys\", \"throttled_keys\""),
            );
            return quote!(::core::option::Option::None);
        }
    };
    quote!(::core::option::Option::Some(#p::ContributorInsights::#mode))
}

/// A global table's consistency mode: `Option<MultiRegionConsistency>`.
/// Under eventual consistency DynamoDB replicates through the table's
/// stream, which must carry new and old images.
fn multi_region_consistency(cx: &Ctxt, raw: &RawTable) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let Some(mode) = &raw.multi_region_consistency else {
        if let Some(flag) = &raw.single_region_writes {
            cx.error_spanned_by(
                &flag.tokens,
                "`single_region_writes` is for a global table: declare its multi_region_consistency = \"eventual\" too, or remove it",
            );
        }
        return quote!(::core::option::Option::None);
    };
    let variant = match mode.value.value().as_str() {
        "eventual" => quote!(Eventual),
        "strong" => quote!(Strong),
        other => {
            cx.error_spanned_by(
                &mode.tokens,
                format!("multi_region_consistency `{other}` is not one of \"eventual\" (last writer wins), \"strong\""),
            );
            return quote!(::core::option::Option::None);
        }
    };
    if mode.value.value() == "strong" {
        refuse_under_strong_consistency(cx, raw);
    }
    let stream = raw.stream.as_ref().map(|s| s.value.value());
    if mode.value.value() == "eventual" && stream.as_deref() != Some("new_and_old_images") {
        cx.error_spanned_by(
            &mode.tokens,
            "a global table with eventual consistency replicates through its stream: declare stream = \"new_and_old_images\" on the table",
        );
    }
    quote!(::core::option::Option::Some(#p::MultiRegionConsistency::#variant))
}

/// What DynamoDB does not run on a table with multi-Region strong
/// consistency: time to live and local secondary indexes.
fn refuse_under_strong_consistency(cx: &Ctxt, raw: &RawTable) {
    if let Some(ttl) = &raw.ttl {
        cx.error_spanned_by(
            &ttl.tokens,
            "a table with multi_region_consistency = \"strong\" has no time to live in DynamoDB: remove `ttl`, or use \"eventual\"",
        );
    }
    for index in raw.indexes.iter().filter(|index| index.local) {
        cx.error_spanned_by(
            &index.tokens,
            "a table with multi_region_consistency = \"strong\" has no local secondary index in DynamoDB: declare it as a global index (`index(...)`), or use \"eventual\"",
        );
    }
}
