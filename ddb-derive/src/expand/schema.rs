//! The entity's declaration as constants (`SCHEMA`), and the compile-time
//! checks spanned at what they check.

use proc_macro2::TokenStream;

use crate::internals::meta::first_span;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::template::template_const;
use crate::internals::ast::Entity;
use crate::internals::attr::RawWhen;
use crate::internals::template::{Part, Template};

/// The `KeyDef` of each key: templates, query, shards, membership.
pub(super) fn key_defs(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    entity.keys.iter().map(|key| {
        let index = match &key.index {
            Some(index) => {
                let name = &index.value;
                quote!(::core::option::Option::Some(#name))
            }
            None => quote!(::core::option::Option::None),
        };
        let pk = template_const(&key.pk.value);
        let sk = match &key.sk {
            Some(sk) => {
                let sk = template_const(&sk.value);
                quote!(::core::option::Option::Some(#sk))
            }
            None => quote!(::core::option::Option::None),
        };
        let query = match &key.query {
            Some(query) => {
                let query = &query.value;
                quote!(::core::option::Option::Some(#query))
            }
            None => quote!(::core::option::Option::None),
        };
        let shards = key.shards;
        let membership = match &key.when {
            Some(when) => {
                let reads = key.when_reads().into_iter().map(|f| f.to_string());
                let evaluable = matches!(when.value, RawWhen::Field { .. });
                quote!(::core::option::Option::Some(#p::Membership { reads: &[#(#reads),*], evaluable: #evaluable }))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(#p::KeyDef { index: #index, pk: #pk, sk: #sk, query: #query, shards: #shards, membership: #membership })
    })
    .collect()
}

/// The `FieldDef` of each field: name, attribute, roles.
pub(super) fn field_defs(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    entity
        .fields
        .iter()
        .map(|field| {
            let name = field.ident.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
            let attribute = &field.attribute;
            let raw = &field.raw;
            let (version, ttl, created_at, updated_at, sensitive) = (
                raw.version.is_some(),
                raw.ttl.is_some(),
                raw.created_at.is_some(),
                raw.updated_at.is_some(),
                raw.sensitive.is_some(),
            );
            quote!(#p::FieldDef {
                name: #name,
                attribute: #attribute,
                role: #p::FieldRole {
                    version: #version, ttl: #ttl, created_at: #created_at,
                    updated_at: #updated_at, sensitive: #sensitive,
                },
            })
        })
        .collect()
}

/// The checks: key fields are key segments and stamps have stamp types (at
/// the field's type), keys agree with the table (at the key), and no field
/// takes an attribute the table writes (at the struct).
pub(super) fn checks(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    let segment_asserts = segment_asserts(entity);
    let key_checks = key_checks(entity);
    let type_checks = role_type_asserts(entity);
    let fields_check = quote_spanned! {ident.span()=>
        const _: () = if let ::core::option::Option::Some(__message) =
            #p::check_fields(&<#ident as #p::Entity>::SCHEMA)
        {
            ::core::panic!("{}", __message.as_str())
        };
    };
    let ttl_checks = ttl_checks(entity);
    quote! {
        const _: () = {
            #(#segment_asserts)*
            #(#type_checks)*
        };
        #(#ttl_checks)*
        #(#key_checks)*
        #fields_check
    }
}

/// Each field used in a key must be a key segment: checked at its type.
fn segment_asserts(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let mut key_fields: Vec<&str> = Vec::new();
    for key in &entity.keys {
        for field in key.fields() {
            if !key_fields.contains(&field) {
                key_fields.push(field);
            }
        }
    }
    key_fields
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|field| {
            let ty = field.ty;
            quote_spanned!(ty.span()=> #p::assert_key_segment::<#ty>();)
        })
        .collect()
}

/// Each key checked against the table (`check_key`), spanned at its index
/// name, or at the entity for the primary key.
fn key_checks(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    entity
        .keys
        .iter()
        .enumerate()
        .map(|(k, key)| {
            let flag = |template: Option<&Template>| match template.map(|t| t.parts.as_slice()) {
                Some([Part::Field(field)]) => match entity.field(field) {
                    Some(f) => {
                        let ty = f.ty;
                        quote!(#p::is_numeric::<#ty>())
                    }
                    None => quote!(false),
                },
                _ => quote!(false),
            };
            let pk = flag(Some(&key.pk.value));
            let sk = flag(key.sk.as_ref().map(|sk| &sk.value));
            let span = match &key.index {
                Some(index) => index.tokens.clone(),
                None => quote!(#ident),
            };
            let span = first_span(&span);
            quote_spanned! {span=>
                const _: () = if let ::core::option::Option::Some(__message) =
                    #p::check_key(&<#ident as #p::Entity>::SCHEMA, #k, [#pk, #sk])
                {
                    ::core::panic!("{}", __message.as_str())
                };
            }
        })
        .collect()
}

/// The type a timestamp or time-to-live field must have, checked at it.
fn role_type_asserts(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    entity
        .fields
        .iter()
        .filter_map(|field| {
            let ty = field.ty;
            let raw = &field.raw;
            if raw.created_at.is_some() || raw.updated_at.is_some() {
                Some(quote_spanned!(ty.span()=> #p::assert_timestamp_field::<#ty>();))
            } else if raw.ttl.is_some() {
                Some(quote_spanned!(ty.span()=> #p::assert_ttl_field::<#ty>();))
            } else {
                None
            }
        })
        .collect()
}

/// A time-to-live field is the table's `ttl` attribute: checked at its
/// `#[ddb(ttl)]`.
fn ttl_checks(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    entity
        .fields
        .iter()
        .filter_map(|field| {
            let ttl = field.raw.ttl.as_ref()?;
            let name = field.ident.to_string();
            let span = ttl.span();
            Some(quote_spanned! {span=>
                const _: () = if let ::core::option::Option::Some(__message) =
                    #p::check_ttl_field(&<#ident as #p::Entity>::SCHEMA, #name)
                {
                    ::core::panic!("{}", __message.as_str())
                };
            })
        })
        .collect()
}
