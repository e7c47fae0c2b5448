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
        return cx.into_compile_errors();
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
        return cx.into_compile_errors();
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

        const _: () = if let ::core::option::Option::Some(__message) =
            #p::check_collection(&[#(#schemas2),*])
        {
            ::core::panic!("{}", __message.as_str())
        };
    }
}
