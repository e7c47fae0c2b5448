//! The typed key functions of each key (`Order::key`, `Order::gsi1_key`,
//! `Order::pk`), the query entry points, the index keys of an item, and
//! `parse_key`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::template::{codecs, literal_prefix, read_template, write_template};
use super::upkeep::{index_key_from, membership, side_arms};
use crate::internals::ast::{snake_case, Entity, Key};

/// Literal prefixes and names of one key, for messages and method names.
struct Names {
    pk_label: String,
    sk_label: String,
    key_fn: syn::Ident,
    pk_fn: syn::Ident,
    sk_fn: syn::Ident,
    const_prefix: String,
}

fn names(key: &Key) -> Names {
    match &key.index {
        None => Names {
            pk_label: "partition key".into(),
            sk_label: "sort key".into(),
            key_fn: format_ident!("key"),
            pk_fn: format_ident!("pk"),
            sk_fn: format_ident!("sk"),
            const_prefix: String::new(),
        },
        Some(index) => {
            let snake = snake_case(&index.value);
            Names {
                pk_label: format!("{} partition key", index.value),
                sk_label: format!("{} sort key", index.value),
                key_fn: format_ident!("{}_key", snake),
                pk_fn: format_ident!("{}_pk", snake),
                sk_fn: format_ident!("{}_sk", snake),
                const_prefix: format!("{}_", snake.to_uppercase()),
            }
        }
    }
}

/// `&self.field` for each field of `key`'s templates, in order.
fn self_fields(entity: &Entity, key: &Key) -> Vec<TokenStream> {
    key.fields()
        .into_iter()
        .filter_map(|name| entity.field(name))
        .map(|f| {
            let ident = f.ident;
            quote!(&self.#ident)
        })
        .collect()
}

/// The key code of every template key of an entity.
pub(super) struct KeyCode {
    /// Key functions, prefixes and query entry points, in `impl Entity`.
    pub builders: Vec<TokenStream>,
    /// The body of `index_keys`: one push per index the item is in.
    pub index_pushes: Vec<TokenStream>,
    /// The arms of `index_key_from`.
    pub index_from_values: Vec<TokenStream>,
    /// The arms of `index_side_from`.
    pub index_sides: Vec<TokenStream>,
    /// Whether `index_keys` needs the primary key (a sharded index).
    pub needs_primary: bool,
}

pub(super) fn key_code(entity: &Entity) -> KeyCode {
    let mut builders = Vec::new();
    let mut index_pushes = Vec::new();
    let mut index_from_values = Vec::new();
    let mut index_sides = Vec::new();
    let mut needs_primary = false;
    for (k, key) in entity.keys.iter().enumerate() {
        let n = names(key);
        let types = key_types(entity, key);
        builders.push(key_builders(entity, key, &n, &types));
        builders.extend(index_sk_builder(entity, key, &n, &types));
        builders.extend(query_builder(entity, k, key, &n));
        if let Some(index_name) = key.index.as_ref().map(|i| i.value.clone()) {
            let (push, sharded) = index_push(entity, key, &n, &index_name);
            needs_primary |= sharded;
            index_pushes.push(push);
            index_from_values.push(index_key_from(entity, k, key, &n.key_fn));
            index_sides.push(side_arms(entity, k, key, &n.pk_fn, &n.sk_fn));
        }
    }

    KeyCode {
        builders,
        index_pushes,
        index_from_values,
        index_sides,
        needs_primary,
    }
}

/// The key's scalar types, read from the table's declaration at compile time.
fn key_types(entity: &Entity, key: &Key) -> TokenStream {
    let table = &entity.table;
    let p = quote!(::ddb_runtime::__private);
    let table_def = quote!(<#table as #p::Table>::DEF);
    let index_name = key.index.as_ref().map(|i| i.value.clone());
    match &index_name {
        Some(name) => quote!(#p::key_types(&#table_def, ::core::option::Option::Some(#name))),
        None => quote!(#p::key_types(&#table_def, ::core::option::Option::None)),
    }
}

/// `field: &Type` for each of `fields`, in order.
fn params(entity: &Entity, fields: Vec<&str>) -> Vec<TokenStream> {
    fields
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|field| {
            let ident = field.ident;
            let ty = field.ty;
            quote!(#ident: &#ty)
        })
        .collect()
}

/// One side of the key alone (partition key; an index's sort key):
/// query entry points take the partition key, and an update that
/// changes only what one side reads writes only it.
fn side_fn(
    name: &syn::Ident,
    doc: String,
    params: &[TokenStream],
    codecs: &TokenStream,
    value: &TokenStream,
    types: &TokenStream,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    quote! {
        #[doc = #doc]
        #[allow(clippy::needless_question_mark)]
        pub fn #name(#(#params),*) -> ::core::result::Result<#p::KeyValue, #p::Error> {
            #[allow(dead_code)]
            const __TYPES: (#p::ScalarType, #p::ScalarType) = #types;
            #codecs
            ::core::result::Result::Ok(#value)
        }
    }
}

/// The key's prefix constants, its key function (`key`, `gsi1_key`) and
/// its partition key function (`pk`, `gsi1_pk`).
fn key_builders(entity: &Entity, key: &Key, n: &Names, types: &TokenStream) -> TokenStream {
    let rust_name = entity.ident.to_string();
    let p = quote!(::ddb_runtime::__private);
    let (pk_value, sk_value) = key_values(entity, key, n);
    let all_params = params(entity, key.fields());
    let all_codecs = codecs(entity, key.fields());
    let pk_codecs = codecs(entity, key.pk.value.fields());
    let pk_params = params(entity, key.pk.value.fields().collect());
    let key_fn = &n.key_fn;
    let pk_fn = &n.pk_fn;
    let doc_key = format!(
        "The {} of a `{}` item: `{}`{}.",
        if key.index.is_some() {
            "index key"
        } else {
            "primary key"
        },
        rust_name,
        key.pk.value.source,
        key.sk
            .as_ref()
            .map(|sk| format!(" / `{}`", sk.value.source))
            .unwrap_or_default()
    );
    let doc_pk = format!("The partition key value `{}`.", key.pk.value.source);
    let key_ret = if key.index.is_none() {
        quote!(#p::Key<Self>)
    } else {
        quote!(#p::KeyValues)
    };
    let wrap = if key.index.is_none() {
        quote!(#p::key_from_values)
    } else {
        quote!(::core::convert::identity)
    };
    let prefixes = prefix_consts(key, n);
    let pk_builder = side_fn(pk_fn, doc_pk, &pk_params, &pk_codecs, &pk_value, types);
    quote! {
        #prefixes

        #[doc = #doc_key]
        #[allow(clippy::needless_question_mark)]
        pub fn #key_fn(#(#all_params),*) -> ::core::result::Result<#key_ret, #p::Error> {
            #[allow(dead_code)]
            const __TYPES: (#p::ScalarType, #p::ScalarType) = #types;
            #all_codecs
            ::core::result::Result::Ok(#wrap(#p::KeyValues { pk: #pk_value, sk: #sk_value }))
        }

        #pk_builder
    }
}

/// The key's partition key value and its sort key value (an `Option`),
/// written from its templates.
fn key_values(entity: &Entity, key: &Key, n: &Names) -> (TokenStream, TokenStream) {
    let entity_type = &entity.entity_type;
    let p = quote!(::ddb_runtime::__private);
    let (pk_label, sk_label) = (&n.pk_label, &n.sk_label);
    let pk_limit = quote!(#p::PARTITION_KEY_LIMIT);
    let sk_limit = quote!(#p::SORT_KEY_LIMIT);
    let pk_value = write_template(
        entity_type,
        pk_label,
        &key.pk.value,
        quote!(__TYPES.0),
        pk_limit,
    );
    let sk_value = match &key.sk {
        Some(sk) => {
            let value = write_template(
                entity_type,
                sk_label,
                &sk.value,
                quote!(__TYPES.1),
                sk_limit,
            );
            quote!(::core::option::Option::Some(#value))
        }
        None => quote!(::core::option::Option::None),
    };
    (pk_value, sk_value)
}

/// The literal prefixes of the key's templates, as constants.
fn prefix_consts(key: &Key, n: &Names) -> TokenStream {
    let pk_prefix_const = format_ident!("{}PK_PREFIX", n.const_prefix);
    let pk_prefix = literal_prefix(&key.pk.value);
    let sk_prefix = key.sk.as_ref().map(|sk| {
        let name = format_ident!("{}SK_PREFIX", n.const_prefix);
        let value = literal_prefix(&sk.value);
        quote! {
            #[doc = "The literal text the sort key template starts with."]
            pub const #name: &'static str = #value;
        }
    });
    quote! {
        #[doc = "The literal text the partition key template starts with."]
        pub const #pk_prefix_const: &'static str = #pk_prefix;
        #sk_prefix
    }
}

/// An index's sort key function (`gsi1_sk`), when it has a sort key.
fn index_sk_builder(
    entity: &Entity,
    key: &Key,
    n: &Names,
    types: &TokenStream,
) -> Option<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let (Some(_), Some(sk)) = (&key.index, &key.sk) else {
        return None;
    };
    let doc_sk = format!("The index sort key value `{}`.", sk.value.source);
    let value = write_template(
        &entity.entity_type,
        &n.sk_label,
        &sk.value,
        quote!(__TYPES.1),
        quote!(#p::SORT_KEY_LIMIT),
    );
    let params = params(entity, sk.value.fields().collect());
    let codecs = codecs(entity, sk.value.fields());
    Some(side_fn(&n.sk_fn, doc_sk, &params, &codecs, &value, types))
}

/// The query entry point of a key with `query = "..."`.
fn query_builder(entity: &Entity, k: usize, key: &Key, n: &Names) -> Option<TokenStream> {
    let ident = entity.ident;
    let table = &entity.table;
    let p = quote!(::ddb_runtime::__private);
    let table_def = quote!(<#table as #p::Table>::DEF);
    let query = key.query.as_ref()?;
    let pk_params = params(entity, key.pk.value.fields().collect());
    let pk_fn = &n.pk_fn;
    let query_fn = format_ident!("{}", query.value);
    let mut sort_fields: Vec<&str> = Vec::new();
    for field in key.sk.iter().flat_map(|sk| sk.value.fields()) {
        if !sort_fields.contains(&field) {
            sort_fields.push(field);
        }
    }
    let sort_types = sort_fields
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|f| f.ty);
    let pk_args = key
        .pk
        .value
        .fields()
        .filter_map(|name| entity.field(name))
        .map(|f| f.ident);
    let index_expr = match key.index.as_ref().map(|i| i.value.clone()) {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    let doc = format!(
        "Query `{}`: the partition `{}`{}. Run it with `Db::query`.",
        query.value,
        key.pk.value.source,
        key.sk
            .as_ref()
            .map(|sk| format!(", sort key `{}`", sk.value.source))
            .unwrap_or_default()
    );
    Some(quote! {
        #[doc = #doc]
        #[allow(clippy::self_named_constructors)]
        pub fn #query_fn(#(#pk_params),*) -> #p::QueryKey<
            #ident,
            (#(#sort_types,)*),
            <#p::IndexKindOf<{ #p::is_global(&#table_def, #index_expr) }> as #p::Select>::Type,
            <#p::ProjectionOf<{ #p::carries_all(&<#ident as #p::Entity>::SCHEMA, #index_expr) }> as #p::Select>::Type,
            #k,
        > {
            #p::query_key(Self::#pk_fn(#(#pk_args),*))
        }
    })
}

/// The push of an index's key in `index_keys`, under its membership rule;
/// and whether it needs the primary key (a sharded index).
fn index_push(entity: &Entity, key: &Key, n: &Names, index_name: &str) -> (TokenStream, bool) {
    let entity_type = &entity.entity_type;
    let p = quote!(::ddb_runtime::__private);
    let key_fn = &n.key_fn;
    let args = self_fields(entity, key);
    let mut compute = quote!(let mut __values = Self::#key_fn(#(#args),*)?;);
    let sharded = key.shards > 1;
    if sharded {
        let shards = key.shards;
        compute.extend(quote! {
            __values.pk = #p::with_shard(#entity_type, __values.pk, __primary.values(), #shards)?;
        });
    }
    let push = quote! {
        #compute
        __keys.push((#index_name, __values));
    };
    let push = match &key.when {
        Some(when) => {
            let holds = membership(&when.value, |field| quote!(self.#field));
            quote!(if #holds { #push })
        }
        None => push,
    };
    (push, sharded)
}

/// `parse_key` and the primary key's arguments: the primary key back into
/// its typed fields.
pub(super) fn parse_key(entity: &Entity) -> (TokenStream, Vec<TokenStream>) {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let rust_name = entity.ident.to_string();
    let primary = &entity.keys[0];
    let primary_args = self_fields(entity, primary);
    let parse_codecs = codecs(entity, primary.fields());
    let mut bound = Vec::new();
    let pk_read = read_template(
        entity,
        "partition key",
        &primary.pk.value,
        quote!(__key.pk()),
        &mut bound,
    );
    let sk_read = primary.sk.as_ref().map(|sk| {
        let read = read_template(entity, "sort key", &sk.value, quote!(__sk), &mut bound);
        quote! {
            let __sk = #p::require_sort_key(#entity_type, __key.sk())?;
            #read
        }
    });
    let parsed_fields: Vec<_> = primary
        .fields()
        .into_iter()
        .filter_map(|name| entity.field(name))
        .collect();
    let parsed_types = parsed_fields.iter().map(|f| f.ty);
    let parsed_idents = parsed_fields.iter().map(|f| f.ident);
    let parse_doc = format!(
        "Parses a `{rust_name}` primary key back into its typed fields ({}).",
        parsed_fields
            .iter()
            .map(|f| f.ident.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let parse_key = quote! {
        #[doc = #parse_doc]
        pub fn parse_key(__key: &#p::Key<Self>) -> ::core::result::Result<(#(#parsed_types,)*), #p::Error> {
            #parse_codecs
            #pk_read
            #sk_read
            ::core::result::Result::Ok((#(#parsed_idents,)*))
        }
    };
    (parse_key, primary_args)
}
