//! The `impl Entity` emitted in place of the real one when an entity's
//! attributes have errors.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// What is emitted when the attributes are wrong: the trait impl, so the
/// user sees the real error and not a cascade of missing items.
pub fn fallback(ident: &syn::Ident, table: Option<&syn::Path>) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let table = match table {
        Some(table) => quote!(#table),
        None => quote!(#p::NoTable),
    };
    let name = ident.to_string();
    let span = Span::call_site();
    quote_spanned! {span=>
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Table = #table;
            const SCHEMA: #p::EntitySchema = #p::EntitySchema {
                rust_name: #name,
                entity_type: #name,
                table: &<#table as #p::Table>::DEF,
                keys: &[],
                multi_attribute_keys: &[],
                fields: &[],
                schema_version: 1,
                schema_declared: false,
                unique: &[],
                searches: &[],
                scan: false,
            };
            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::Error> {
                ::core::unreachable!()
            }
            fn index_keys(&self) -> ::core::result::Result<#p::std::vec::Vec<(&'static str, #p::KeyValues)>, #p::Error> {
                ::core::unreachable!()
            }
            fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                ::core::unreachable!()
            }
            fn from_item(_: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                ::core::unreachable!()
            }
            fn check_key(_: &#p::Key<Self>) -> ::core::result::Result<(), #p::Error> {
                ::core::unreachable!()
            }
        }

        // A scan of it is not a second error to read.
        #[automatically_derived]
        impl #p::Scannable for #ident {}
    }
}
