//! `#[derive(Collection)]`: an enum of the entities sharing a partition.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::internals::ctxt::Ctxt;

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let ident = &input.ident;
    let p = quote!(::ddb_runtime::__private);
    let Data::Enum(data) = &input.data else {
        cx.error_spanned_by(ident, "#[derive(Collection)] needs an enum with one variant per entity, e.g. `enum CustomerItem { Profile(Customer), Order(Order) }`");
        let mut out = cx.into_compile_errors();
        out.extend(stand_in(ident, None));
        return out;
    };
    let mut members = Vec::new();
    for variant in &data.variants {
        match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                members.push((&variant.ident, &fields.unnamed[0].ty));
            }
            _ => cx.error_spanned_by(
                variant,
                "each variant of a collection holds one entity: `Order(Order)`",
            ),
        }
    }
    if members.is_empty() {
        cx.error_spanned_by(ident, "a collection needs at least one entity variant");
    }
    if cx.has_errors() {
        let mut out = cx.into_compile_errors();
        out.extend(stand_in(ident, members.first().map(|(_, ty)| *ty)));
        return out;
    }
    let first = members[0].1;
    let schemas = members
        .iter()
        .map(|(_, ty)| quote!(&<#ty as #p::Entity>::SCHEMA));
    let schemas2 = schemas.clone();
    let arms = members.iter().map(|(variant, ty)| {
        quote! {
            if found == <#ty as #p::Entity>::SCHEMA.entity_type {
                return ::core::option::Option::Some(<#ty as #p::Entity>::from_item(item).map(#ident::#variant));
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #p::Collection for #ident {
            type Table = <#first as #p::Entity>::Table;
            const MEMBERS: &'static [&'static #p::EntitySchema] = &[#(#schemas),*];

            fn from_item(found: &str, item: #p::Item) -> ::core::option::Option<::core::result::Result<Self, #p::Error>> {
                #(#arms)*
                ::core::option::Option::None
            }
        }

        // A member whose declaration has errors stands in without keys:
        // its own errors are the ones to read.
        const _: () = {
            let __members: &[&#p::EntitySchema] = &[#(#schemas2),*];
            if !#p::has_stand_in(__members) {
                if let ::core::option::Option::Some(__message) = #p::check_collection(__members) {
                    ::core::panic!("{}", __message.as_str())
                }
            }
        };
    }
}

/// The `Collection` impl emitted beside the errors, so uses of the
/// collection add none: no member, the first member's table when there is
/// one.
fn stand_in(ident: &syn::Ident, first: Option<&syn::Type>) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let table = match first {
        Some(ty) => quote!(<#ty as #p::Entity>::Table),
        None => quote!(#p::NoTable),
    };
    quote! {
        #[automatically_derived]
        impl #p::Collection for #ident {
            type Table = #table;
            const MEMBERS: &'static [&'static #p::EntitySchema] = &[];

            fn from_item(_: &str, _: #p::Item) -> ::core::option::Option<::core::result::Result<Self, #p::Error>> {
                ::core::option::Option::None
            }
        }
    }
}
