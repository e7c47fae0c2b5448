//! What a vector field emits: the check of its declaration against the
//! table's vector index, and the search entry point (`similar(&category,
//! &vector)`), which encodes the hash value with its field's own encoder.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::convert::encoder_name;
use crate::internals::ast::{Entity, Field};

/// The size of a `[f32; N]` field (inside an `Option` too), as an
/// expression; `None` for any other type.
fn array_length(ty: &syn::Type) -> Option<&syn::Expr> {
    match ty {
        syn::Type::Array(array) => Some(&array.len),
        syn::Type::Path(path) => {
            let last = path.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match (last.ident == "Option", args.args.first()) {
                (true, Some(syn::GenericArgument::Type(inner))) => array_length(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The vector fields, each with its declaration.
fn vector_fields<'e, 'a>(
    entity: &'e Entity<'a>,
) -> impl Iterator<Item = (&'e Field<'a>, &'e crate::internals::attr::RawVector, Span)> {
    entity.fields.iter().filter_map(|field| {
        let vector = field.raw.vector.as_ref()?;
        let span = vector.span();
        Some((field, &vector.value, span))
    })
}

/// The checks of each vector field: its type, and its declaration against
/// the table's vector index.
pub(super) fn checks(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    vector_fields(entity)
        .filter_map(|(field, vector, span)| {
            let index = vector.index.as_ref()?.value.value();
            let name = field.ident.to_string();
            let ty = field.ty;
            let length = match array_length(ty) {
                Some(len) => quote!(::core::option::Option::Some(#len)),
                None => quote!(::core::option::Option::None),
            };
            let by = vector.by.as_ref().and_then(|by| entity.field(&by.value.to_string()));
            let hash = match by {
                Some(by) => {
                    let (by_name, by_ty) = (by.ident.to_string(), by.ty);
                    quote!(::core::option::Option::Some((#by_name, #p::is_numeric::<#by_ty>())))
                }
                None => quote!(::core::option::Option::None),
            };
            Some(quote_spanned! {span=>
                const _: () = #p::assert_vector_field::<#ty>();
                const _: () = if let ::core::option::Option::Some(__message) =
                    #p::check_vector_field(&<#ident as #p::Entity>::SCHEMA, #name, #index, #hash, #length)
                {
                    ::core::panic!("{}", __message.as_str())
                };
            })
        })
        .collect()
}

/// The search entry point of each vector field, in `impl Entity`.
pub(super) fn searches(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let vis = entity.vis;
    vector_fields(entity)
        .filter_map(|(field, vector, _)| {
            let index = vector.index.as_ref()?.value.value();
            let search = vector.search.as_ref()?;
            // A name that is no identifier is reported by the checks.
            let search_fn: syn::Ident = syn::parse_str(&search.value.value()).ok()?;
            let search_fn = syn::Ident::new(&search_fn.to_string(), search.tokens.span());
            let by = vector.by.as_ref().and_then(|by| entity.field(&by.value.to_string()));
            let (params, hash) = match by {
                Some(by) => {
                    let (by_ident, by_ty, encoder) = (by.ident, by.ty, encoder_name(by));
                    (
                        quote!(#by_ident: &#by_ty,),
                        quote!(::core::option::Option::Some(Self::#encoder(#by_ident))),
                    )
                }
                None => (TokenStream::new(), quote!(::core::option::Option::None)),
            };
            let doc = format!(
                "The vector search of vector index `{index}` by field `{}`: run it with `Db::search`.",
                field.ident
            );
            Some(quote! {
                #[doc = #doc]
                #vis fn #search_fn(#params vector: &[f32]) -> #p::VectorSearch<Self> {
                    #p::vector_search(#index, #hash, vector)
                }
            })
        })
        .collect()
}

/// The `SearchDef` of each vector field.
pub(super) fn search_defs(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    vector_fields(entity)
        .filter_map(|(_, vector, _)| {
            let index = vector.index.as_ref()?.value.value();
            let name = vector.search.as_ref()?.value.value();
            Some(quote!(#p::SearchDef { name: #name, index: #index }))
        })
        .collect()
}
