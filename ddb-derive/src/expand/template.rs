//! Key templates: their constants, and the code that writes a key from the
//! fields in scope and reads it back.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::ast::Entity;
use crate::internals::template::{Part, Template};

pub(super) fn template_const(template: &Template) -> TokenStream {
    let source = &template.source;
    let parts = template.parts.iter().map(|part| match part {
        Part::Literal(text) => quote!(::ddb_runtime::__private::Part::Literal(#text)),
        Part::Field(name) => quote!(::ddb_runtime::__private::Part::Field(#name)),
    });
    quote!(::ddb_runtime::__private::Template { source: #source, parts: &[#(#parts),*] })
}

/// The literal prefix of a template (text before its first field).
pub(super) fn literal_prefix(template: &Template) -> String {
    match template.parts.first() {
        Some(Part::Literal(text)) => text.clone(),
        _ => String::new(),
    }
}

/// The codec of a field's key segment type, bound in the enclosing function
/// by `codecs`.
pub(super) fn codec_of(field: &str) -> syn::Ident {
    format_ident!("__codec_{}", field)
}

/// `let` bindings of the codecs of `fields`: `(&&Codec::<T>::NEW).codec()`
/// resolves to the real codec when `T` is a key segment, so a type that is not
/// is reported once, by the bound at the field, and not at every use.
pub(super) fn codecs<'a>(
    entity: &Entity,
    fields: impl IntoIterator<Item = &'a str>,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let mut seen = Vec::new();
    let mut out = quote! {
        #[allow(unused_imports)]
        use #p::{IsSegment as _, NotSegment as _};
    };
    for name in fields {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if let Some(field) = entity.field(name) {
            let ty = field.ty;
            let codec = codec_of(name);
            out.extend(quote! {
                let #codec = (&&#p::Codec::<#ty>::NEW).codec();
            });
        }
    }
    out
}

/// Expression building one key value from the fields in scope as references.
pub(super) fn write_template(
    entity: &str,
    label: &str,
    template: &Template,
    ty: TokenStream,
    limit: TokenStream,
) -> TokenStream {
    if let [Part::Field(field)] = template.parts.as_slice() {
        let ident = format_ident!("{}", field);
        let codec = codec_of(field);
        return quote! {
            ::ddb_runtime::__private::raw_key(#entity, #label, #field, #ident, #codec, #ty, #limit)?
        };
    }
    let steps = template.parts.iter().map(|part| match part {
        Part::Literal(text) => quote!(.literal(#text)),
        Part::Field(field) => {
            let ident = format_ident!("{}", field);
            let codec = codec_of(field);
            quote!(.field(#field, #ident, #codec)?)
        }
    });
    quote! {
        ::ddb_runtime::__private::KeyWriter::new(#entity, #label) #(#steps)* .finish(#limit)?
    }
}

/// Statements reading one key value back into `let` bindings of its fields.
pub(super) fn read_template(
    entity: &Entity,
    label: &str,
    template: &Template,
    value: TokenStream,
    bound: &mut Vec<String>,
) -> TokenStream {
    let name = &entity.entity_type;
    let source = &template.source;
    let mut binding = |field: &str| {
        let ty = entity.field(field).map(|f| f.ty.clone());
        let ident = if bound.iter().any(|b| b == field) {
            format_ident!("_")
        } else {
            bound.push(field.to_owned());
            format_ident!("{}", field)
        };
        (ident, ty)
    };
    if let [Part::Field(field)] = template.parts.as_slice() {
        let (ident, ty) = binding(field);
        let codec = codec_of(field);
        return quote! {
            let #ident: #ty = ::ddb_runtime::__private::read_raw_key(#name, #label, #source, #value, #codec)?;
        };
    }
    let count = template.parts.len();
    let steps = template
        .parts
        .iter()
        .enumerate()
        .map(|(i, part)| match part {
            Part::Literal(text) => quote!(__reader = __reader.literal(#text)?;),
            Part::Field(field) => {
                let (ident, ty) = binding(field);
                let last = i + 1 == count;
                let codec = codec_of(field);
                quote!(let #ident: #ty = __reader.field(#field, #last, #codec)?;)
            }
        });
    quote! {
        let mut __reader = ::ddb_runtime::__private::KeyReader::new(#name, #label, #source, #value)?;
        #(#steps)*
        __reader.finish()?;
    }
}
