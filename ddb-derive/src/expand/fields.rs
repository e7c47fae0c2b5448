//! `Entity::fields()`: the typed attributes filters, conditions and updates
//! are built from.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::ast::Entity;

pub(super) fn fields_struct(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    let vis = entity.vis;
    let fields_type = format_ident!("{}Fields", ident);
    // A stand-in (no keys) marks no field as a key part.
    let primary_fields = entity.keys.first().map(|k| k.fields()).unwrap_or_default();
    let field_attrs: Vec<TokenStream> = entity
        .fields
        .iter()
        .map(|field| {
            let name = field.ident;
            let vis = field.vis;
            let ty = field.ty;
            let attribute = &field.attribute;
            let (doc, marker) = if primary_fields.contains(&name.to_string().as_str()) {
                (
                    format!("The `{attribute}` attribute, part of the primary key: readable, never updated."),
                    quote!(#p::KeyPart),
                )
            } else {
                (format!("The `{attribute}` attribute."), quote!(#p::Value))
            };
            quote! {
                #[doc = #doc]
                #vis #name: #p::Attr<#ident, #ty, #marker>
            }
        })
        .collect();
    let field_values = entity.fields.iter().map(|field| {
        let name = field.ident;
        let attribute = &field.attribute;
        let codec = super::convert::codec_args(field);
        quote!(#name: #p::attr(#attribute, #codec))
    });
    let fields_doc = format!(
        "The attributes of `{ident}`, to build filters and conditions from: `{ident}::fields()`."
    );
    quote! {
        #[doc = #fields_doc]
        #[derive(Debug, Clone, Copy)]
        #[allow(dead_code, non_snake_case)]
        #vis struct #fields_type {
            #(#field_attrs,)*
        }

        #[automatically_derived]
        impl #ident {
            /// The entity's attributes, typed, for filters and conditions.
            #vis const fn fields() -> #fields_type {
                #fields_type { #(#field_values,)* }
            }
        }
    }
}
