//! What is emitted in place of an entity's code when its attributes have
//! errors that leave no whole model: a stand-in, so the user reads the real
//! errors and not a cascade of missing items.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::internals::ast::Entity;

/// The trait impls (`Entity`, `Scannable`), the fields' codecs and
/// `fields()`, as the whole code has them. The stand-in schema declares the
/// fields by name and attribute name, without roles, and no key: the
/// runtime's compile-time checks read a schema without keys as a stand-in
/// and say nothing of it. Its functions return an error; no program holding
/// them is ever built, since the errors beside them fail the build.
pub fn fallback(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    let table = &entity.table;
    let rust_name = ident.to_string();
    let entity_type = &entity.entity_type;
    let fields = entity.fields.iter().map(|field| {
        let name = field.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
        let attribute = &field.attribute;
        quote!(#p::FieldDef {
            name: #name,
            attribute: #attribute,
            role: #p::FieldRole {
                version: false, ttl: false, created_at: false, updated_at: false, sensitive: false,
            },
        })
    });
    let codecs = super::convert::codecs(entity);
    let fields_struct = super::fields::fields_struct(entity);
    let error = quote!(#p::stand_in_error(#entity_type));
    let span = Span::call_site();
    let impls = quote_spanned! {span=>
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Table = #table;
            const SCHEMA: #p::EntitySchema = #p::EntitySchema {
                rust_name: #rust_name,
                entity_type: #entity_type,
                table: &<#table as #p::Table>::DEF,
                keys: &[],
                multi_attribute_keys: &[],
                fields: &[#(#fields),*],
                schema_version: 1,
                schema_declared: false,
                unique: &[],
                searches: &[],
                // A scan of it is not a second error to read.
                scan: true,
            };
            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::Error> {
                ::core::result::Result::Err(#error)
            }
            fn index_keys(&self) -> ::core::result::Result<#p::std::vec::Vec<(&'static str, #p::KeyValues)>, #p::Error> {
                ::core::result::Result::Err(#error)
            }
            fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                ::core::result::Result::Err(#error)
            }
            fn from_item(_: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                ::core::result::Result::Err(#error)
            }
            fn check_key(_: &#p::Key<Self>) -> ::core::result::Result<(), #p::Error> {
                ::core::result::Result::Err(#error)
            }
        }

        #[automatically_derived]
        impl #p::Scannable for #ident {}
    };
    quote! {
        #impls

        #[automatically_derived]
        impl #ident {
            #codecs
        }

        #fields_struct
    }
}
