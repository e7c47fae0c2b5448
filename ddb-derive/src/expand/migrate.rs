//! Versioned entities: the schema version `to_item` writes, and the
//! migration chain `from_item` runs on an older item before decoding it.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::ast::Entity;

/// Today's schema version (1 when the entity declares none).
pub fn version(entity: &Entity) -> u32 {
    entity.schema.as_ref().map_or(1, |s| s.version)
}

/// Added to the item `to_item` builds: its schema version.
pub fn write_version(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match &entity.schema {
        Some(schema) => {
            let version = schema.version.to_string();
            quote! {
                __fields.insert(
                    ::core::convert::From::from(#p::SCHEMA_VERSION_ATTRIBUTE),
                    #p::AttributeValue::N(::core::convert::From::from(#version)),
                );
            }
        }
        None => quote!(),
    }
}

/// Run at the top of `from_item`: an older item through the chain. An
/// entity without a schema version runs it too, with no step: an item
/// written by newer code (a later `schema_version`) is then refused rather
/// than read under the wrong names.
pub fn read_version(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let steps = entity.schema.iter().flat_map(|schema| {
        schema
            .migrations
            .iter()
            .map(|(from, path)| quote!((#from, #path as #p::Migration)))
    });
    quote! {
        let __item = #p::migrate::<Self>(__item, &[#(#steps),*])?;
    }
}
