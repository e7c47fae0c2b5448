//! What ddb writes itself: the version an entity carries, and the
//! `created_at` / `updated_at` stamps.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::ast::Entity;

/// `Entity::version`, when a field is `#[ddb(version)]`.
pub(super) fn version_fn(entity: &Entity) -> Option<TokenStream> {
    entity
        .fields
        .iter()
        .find(|f| f.raw.version.is_some())
        .map(|field| {
            let name = field.ident;
            quote! {
                fn version(&self) -> ::core::option::Option<u64> {
                    ::core::convert::TryFrom::try_from(self.#name).ok()
                }
            }
        })
}

/// `Entity::stamps`, when a field is `created_at` or `updated_at`.
pub(super) fn stamps_fn(entity: &Entity) -> Option<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let stamps = entity.fields.iter().filter_map(|field| {
        let ty = field.ty;
        let attribute = &field.attribute;
        if field.raw.created_at.is_some() {
            Some(quote! {
                if __created {
                    __stamps.push((#attribute, (&&#p::Stamp::<#ty>::NEW).stamp(__now)));
                }
            })
        } else if field.raw.updated_at.is_some() {
            Some(quote! {
                __stamps.push((#attribute, (&&#p::Stamp::<#ty>::NEW).stamp(__now)));
            })
        } else {
            None
        }
    });
    let stamps: Vec<TokenStream> = stamps.collect();
    (!stamps.is_empty()).then(|| {
        quote! {
            fn stamps(
                __created: bool,
                __now: #p::std::time::SystemTime,
            ) -> #p::std::vec::Vec<(&'static str, #p::AttributeValue)> {
                #[allow(unused_imports)]
                use #p::{IsStamp as _, NotStamp as _};
                let mut __stamps = #p::std::vec::Vec::new();
                #(#stamps)*
                __stamps
            }
        }
    })
}
