//! `#[derive(Projection)]`: a struct of some of an entity's fields.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Path};

use crate::expand::convert::{read_fields, FieldRead};
use crate::internals::ctxt::Ctxt;
use crate::internals::meta::{for_each_ddb, unknown};
use crate::internals::serde_attr::{attribute_name, serde_value};
use crate::internals::symbol::{ENTITY, PROJECTION_KEYS, RENAME, RENAME_ALL};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let ident = &input.ident;
    let p = quote!(::ddb_runtime::__private);
    let entity = projected_entity(&cx, input);
    let fields = named_fields(&cx, input);
    let (Some(entity), Some(fields)) = (entity, fields) else {
        let mut out = cx.into_compile_errors();
        out.extend(stand_in(ident));
        return out;
    };
    let FieldParts {
        reads,
        assigned,
        attributes,
        fn_checks,
        const_checks,
    } = field_parts(input, &entity, fields);
    let errors = cx.into_compile_errors();
    let from_item = from_item(&reads, &assigned);
    quote! {
        #errors
        #[automatically_derived]
        impl #p::Projection<#entity> for #ident {
            const ATTRIBUTES: &'static [&'static str] = &[#(#attributes),*];
            #from_item
        }

        const _: () = {
            #[allow(dead_code, clippy::all)]
            fn __check(entity: &#entity) {
                #(#fn_checks)*
            }
            #(#const_checks)*
        };
    }
}

/// The `Projection` impl emitted beside the errors, for every entity, so
/// uses of the projection add none: it reads no attribute.
fn stand_in(ident: &syn::Ident) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    quote! {
        #[automatically_derived]
        impl<__E: #p::Entity> #p::Projection<__E> for #ident {
            const ATTRIBUTES: &'static [&'static str] = &[];

            fn __from_item(_: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                ::core::result::Result::Err(#p::stand_in_error(<__E as #p::Entity>::SCHEMA.entity_type))
            }
        }
    }
}

/// `#[ddb(entity = ...)]`: the entity projected; `None` when missing
/// (reported).
fn projected_entity(cx: &Ctxt, input: &DeriveInput) -> Option<Path> {
    let mut entity: Option<Path> = None;
    for_each_ddb(cx, &input.attrs, |meta| {
        if meta.path.is_ident(ENTITY) {
            entity = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            unknown(cx, meta, "a projection", PROJECTION_KEYS)
        }
    });
    if entity.is_none() {
        cx.error_spanned_by(&input.ident, "missing #[ddb(entity = ...)]: name the entity this projection reads, e.g. #[ddb(entity = Order)]");
    }
    entity
}

/// The struct's named fields; `None` (reported) for any other input.
fn named_fields<'a>(
    cx: &Ctxt,
    input: &'a DeriveInput,
) -> Option<&'a Punctuated<syn::Field, syn::Token![,]>> {
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(&named.named),
            _ => None,
        },
        _ => None,
    };
    if fields.is_none() {
        cx.error_spanned_by(
            &input.ident,
            "#[derive(Projection)] needs a struct with named fields",
        );
    }
    fields
}

/// What each field of the projection adds to the derive's output.
struct FieldParts<'a> {
    /// Each field's binding, type, attribute name and reader.
    reads: Vec<(syn::Ident, &'a syn::Type, String, TokenStream)>,
    /// `field: binding`, to build `Self`.
    assigned: Vec<TokenStream>,
    /// The attribute each field reads, as the entity's schema names it.
    attributes: Vec<TokenStream>,
    /// The field exists on the entity with the same type.
    fn_checks: Vec<TokenStream>,
    /// The field is read under the attribute name the entity stores it as.
    const_checks: Vec<TokenStream>,
}

/// Each named field's read, assignment, attribute and checks, in order.
fn field_parts<'a>(
    input: &DeriveInput,
    entity: &Path,
    fields: &'a Punctuated<syn::Field, syn::Token![,]>,
) -> FieldParts<'a> {
    let p = quote!(::ddb_runtime::__private);
    let rename_all = serde_value(&input.attrs, RENAME_ALL);
    let mut reads = Vec::new();
    let mut assigned = Vec::new();
    let mut attributes = Vec::new();
    let mut fn_checks = Vec::new();
    let mut const_checks = Vec::new();
    for field in fields {
        let Some(name) = &field.ident else { continue };
        let ty = &field.ty;
        let rust_name = name.to_string();
        let own = attribute_name(
            name,
            serde_value(&field.attrs, RENAME).as_deref(),
            rename_all.as_deref(),
        );
        attributes.push(quote!(<#entity as #p::Entity>::SCHEMA.attribute_of(#rust_name)));
        let binding = format_ident!("__field_{}", assigned.len());
        assigned.push(quote!(#name: #binding));
        // Read by the entity field's own reader: a projection decodes each
        // attribute exactly as the entity does.
        let reader = quote_spanned! {ty.span()=>
            |__value| <#entity>::fields().#name.from_attribute_value(__value)
        };
        reads.push((binding, ty, own.clone(), reader));
        // The field exists on the entity with the same type.
        fn_checks.push(quote_spanned! {ty.span()=>
            let _: &#ty = &entity.#name;
        });
        // ...and is read under the attribute name the entity stores it as.
        const_checks.push(quote_spanned! {name.span()=>
            const _: () = if let ::core::option::Option::Some(__message) =
                #p::check_projection_field(&<#entity as #p::Entity>::SCHEMA, #rust_name, #own)
            {
                ::core::panic!("{}", __message.as_str())
            };
        });
    }
    FieldParts {
        reads,
        assigned,
        attributes,
        fn_checks,
        const_checks,
    }
}

/// `__from_item`: the projection's fields read out of an item.
fn from_item(
    reads: &[(syn::Ident, &syn::Type, String, TokenStream)],
    assigned: &[TokenStream],
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let reads: Vec<FieldRead> = reads
        .iter()
        .map(|(binding, ty, attribute, reader)| FieldRead {
            binding: binding.clone(),
            ty,
            attribute,
            reader: reader.clone(),
        })
        .collect();
    let reads = read_fields(&reads);
    quote! {
        fn __from_item(__item: #p::Item) -> ::core::result::Result<Self, #p::Error> {
            #reads
            ::core::result::Result::Ok(Self { #(#assigned,)* })
        }
    }
}
