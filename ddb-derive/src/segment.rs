//! `#[derive(KeySegment)]` for newtypes (delegating to the inner type) and
//! fieldless enums (one name per variant, SCREAMING_SNAKE_CASE by default).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::internals::ctxt::Ctxt;
use crate::internals::meta::{for_each_ddb, lit_str, unknown};
use crate::internals::symbol::{RENAME, VARIANT_KEYS};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let ident = &input.ident;
    let p = quote!(::ddb_runtime::__private);
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "#[derive(KeySegment)] does not support generic types",
        );
    }
    let body = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                Some(newtype_body(ident, &fields.unnamed[0].ty))
            }
            _ => None,
        },
        Data::Enum(data) => Some(enum_body(&cx, ident, data)),
        _ => None,
    };
    if body.is_none() {
        cx.error_spanned_by(
            ident,
            "#[derive(KeySegment)] needs a newtype struct such as `struct CustomerId(String);` or an enum without fields",
        );
    }
    match body {
        Some(body) if !cx.has_errors() => quote! {
            #[automatically_derived]
            impl #p::KeySegment for #ident {
                #body
            }
        },
        _ => {
            let mut out = cx.into_compile_errors();
            out.extend(stand_in(input));
            out
        }
    }
}

/// The `KeySegment` impl emitted beside the errors (with the type's
/// generics), so uses of the type in keys add none: it writes and reads
/// nothing.
fn stand_in(input: &DeriveInput) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let reason = format!("`{ident}` has errors in its #[derive(KeySegment)]");
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::KeySegment for #ident #ty_generics #where_clause {
            fn write_segment(&self, _: &mut #p::std::string::String) -> ::core::result::Result<(), #p::SegmentError> {
                ::core::result::Result::Err(#p::SegmentError::new(#reason))
            }
            fn read_segment(_: &str) -> ::core::result::Result<Self, #p::SegmentError> {
                ::core::result::Result::Err(#p::SegmentError::new(#reason))
            }
        }
    }
}

/// A newtype's `KeySegment` items: each delegates to the inner type.
fn newtype_body(ident: &syn::Ident, inner: &syn::Type) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    quote! {
        const NUMERIC: bool = <#inner as #p::KeySegment>::NUMERIC;
        fn write_segment(&self, out: &mut #p::std::string::String) -> ::core::result::Result<(), #p::SegmentError> {
            #p::KeySegment::write_segment(&self.0, out)
        }
        fn read_segment(text: &str) -> ::core::result::Result<Self, #p::SegmentError> {
            ::core::result::Result::Ok(#ident(<#inner as #p::KeySegment>::read_segment(text)?))
        }
        fn to_number(&self) -> ::core::option::Option<#p::std::string::String> {
            #p::KeySegment::to_number(&self.0)
        }
        fn from_number(number: &str) -> ::core::result::Result<Self, #p::SegmentError> {
            ::core::result::Result::Ok(#ident(<#inner as #p::KeySegment>::from_number(number)?))
        }
    }
}

/// A fieldless enum's `KeySegment` items: one name per variant, written
/// and read back.
fn enum_body(cx: &Ctxt, ident: &syn::Ident, data: &syn::DataEnum) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let mut names = Vec::new();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            cx.error_spanned_by(
                variant,
                "#[derive(KeySegment)] needs an enum whose variants have no fields",
            );
            continue;
        }
        let name = variant_name(cx, variant);
        if names.contains(&name) {
            cx.error_spanned_by(variant, format!("two variants are written as `{name}`; rename one with #[ddb(rename = \"...\")]"));
        }
        names.push(name.clone());
        let v = &variant.ident;
        writes.push(quote!(#ident::#v => #name,));
        reads.push(quote!(#name => ::core::result::Result::Ok(#ident::#v),));
    }
    let expected = names.join(", ");
    quote! {
        fn write_segment(&self, out: &mut #p::std::string::String) -> ::core::result::Result<(), #p::SegmentError> {
            out.push_str(match self { #(#writes)* });
            ::core::result::Result::Ok(())
        }
        fn read_segment(text: &str) -> ::core::result::Result<Self, #p::SegmentError> {
            match text {
                #(#reads)*
                other => ::core::result::Result::Err(#p::SegmentError::new(
                    #p::std::format!("`{}` is not one of {}", other, #expected),
                )),
            }
        }
    }
}

/// A variant's name in keys: `#[ddb(rename = "...")]`, else its name in
/// SCREAMING_SNAKE_CASE; never empty.
fn variant_name(cx: &Ctxt, variant: &syn::Variant) -> String {
    let mut rename: Option<LitStr> = None;
    for_each_ddb(cx, &variant.attrs, |meta| {
        if meta.path.is_ident(RENAME) {
            rename = Some(lit_str(meta)?);
            Ok(())
        } else {
            unknown(cx, meta, "an enum variant", VARIANT_KEYS)
        }
    });
    let name = rename
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| screaming_snake(&variant.ident.to_string()));
    if name.is_empty() {
        cx.error_spanned_by(&rename, "a key segment name cannot be empty");
    }
    name
}

/// `InTransit` -> `IN_TRANSIT`.
fn screaming_snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_uppercase());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn variant_names() {
        assert_eq!(super::screaming_snake("Open"), "OPEN");
        assert_eq!(super::screaming_snake("InTransit"), "IN_TRANSIT");
    }
}
