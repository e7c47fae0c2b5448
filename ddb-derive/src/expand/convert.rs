//! The item conversion of an entity: each field straight to and from its
//! `AttributeValue` (serde_dynamo only for field types that are not stored
//! as they are), following the serde attributes that shape the item:
//! `rename`/`rename_all` (the attribute names), `skip`, `default`,
//! `skip_serializing_if`, `with`, `serialize_with` and `deserialize_with`. An entity with any other serde
//! attribute is converted by serde_dynamo as a whole, as before.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::internals::ast::{Entity, Field};
use crate::internals::serde_attr::SerdeConversion;

/// Whether the generated conversion follows every serde attribute in play.
fn follows(entity: &Entity) -> bool {
    let container = &entity.serde_conversion;
    !container.unfollowed
        && container.default.is_none()
        && entity.fields.iter().all(|f| !f.raw.conversion.unfollowed)
        && entity.skipped_serde.iter().all(|c| !c.unfollowed)
}

fn path(text: &str) -> TokenStream {
    text.parse()
        .unwrap_or_else(|_| quote!(::core::compile_error!("not a path")))
}

/// The value `value` (an expression of type `&#ty`) as an `AttributeValue`
/// `Result` expression: the field's one encoder.
fn encode(
    entity_type: &str,
    ty: &syn::Type,
    conversion: &SerdeConversion,
    value: TokenStream,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let serialize = match (&conversion.serialize_with, &conversion.with) {
        (Some(function), _) => Some(path(function)),
        (None, Some(module)) => {
            let module = path(module);
            Some(quote!(#module::serialize))
        }
        (None, None) => None,
    };
    match serialize {
        Some(function) => quote! {{
            struct __With<'__a>(&'__a #ty);
            impl #p::serde::Serialize for __With<'_> {
                fn serialize<__S: #p::serde::Serializer>(
                    &self,
                    __serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    #function(self.0, __serializer)
                }
            }
            #p::to_serde(&__With(#value), #entity_type)
        }},
        None => quote!((&&#p::Conv::<#ty>::NEW).encode(#value, #entity_type)),
    }
}

/// The field decoded from `__value`, a `Result` expression. `entity_type` is an
/// expression of the entity's type name, for errors.
fn decode(entity_type: &TokenStream, ty: &syn::Type, conversion: &SerdeConversion) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let deserialize = match (&conversion.deserialize_with, &conversion.with) {
        (Some(function), _) => Some(path(function)),
        (None, Some(module)) => {
            let module = path(module);
            Some(quote!(#module::deserialize))
        }
        (None, None) => None,
    };
    match deserialize {
        Some(function) => quote! {{
            struct __With(#ty);
            impl<'__de> #p::serde::Deserialize<'__de> for __With {
                fn deserialize<__D: #p::serde::Deserializer<'__de>>(
                    __deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    #function(__deserializer).map(__With)
                }
            }
            #p::from_serde::<__With>(__value, #entity_type).map(|__with| __with.0)
        }},
        None => quote!((&&#p::Conv::<#ty>::NEW).decode(__value, #entity_type)),
    }
}

pub(super) fn encoder_name(field: &Field) -> syn::Ident {
    format_ident!("__ddb_encode_{}", field.ident)
}

fn reader_name(field: &Field) -> syn::Ident {
    format_ident!("__ddb_read_{}", field.ident)
}

fn omits_name(field: &Field) -> syn::Ident {
    format_ident!("__ddb_omits_{}", field.ident)
}

/// The path of the field's one reader, `fn(Option<AttributeValue>) ->
/// Result<T, Error>`: every path that reads the field goes through it.
pub fn reader(field: &Field) -> TokenStream {
    let name = reader_name(field);
    quote!(Self::#name)
}

/// Each field's one encoder and one reader, as associated functions of the
/// entity: `to_item`, `from_item`, the typed attribute handles of
/// `fields()`, the index keys an update recomputes and the key-form checks
/// all call these, so a field has one stored form on every path.
pub fn codecs(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let functions = entity.fields.iter().map(|field| {
        let ty = field.ty;
        let conversion = &field.raw.conversion;
        let encoder = encoder_name(field);
        let reader = reader_name(field);
        let encode = encode(entity_type, ty, conversion, quote!(__v));
        let decode = decode(&quote!(#entity_type), ty, conversion);
        // A field the item lacks takes its own `default`, else the
        // container's (`#[serde(default)]` on the struct), else serde's rule.
        let ident = field.ident;
        let missing = match (&conversion.default, &entity.serde_conversion.default) {
            (None, Some(None)) => {
                quote!(::core::result::Result::Ok(<Self as ::core::default::Default>::default().#ident))
            }
            (None, Some(Some(function))) => {
                let function = path(function);
                quote!(::core::result::Result::Ok(#function().#ident))
            }
            _ => missing(&quote!(#entity_type), ty, &field.attribute, conversion),
        };
        let omits = omits_name(field);
        let omitted = match &conversion.skip_if {
            Some(predicate) => {
                let predicate = path(predicate);
                quote!(#predicate(__v))
            }
            None => quote!(false),
        };
        quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code, unused_variables)]
            fn #omits(__v: &#ty) -> bool {
                #omitted
            }

            #[doc(hidden)]
            #[allow(unused_imports, non_snake_case, dead_code)]
            fn #encoder(__v: &#ty) -> ::core::result::Result<#p::AttributeValue, #p::Error> {
                use #p::{DirectConv as _, SerdeConv as _};
                #encode
            }

            #[doc(hidden)]
            #[allow(unused_imports, non_snake_case, dead_code)]
            fn #reader(
                __slot: ::core::option::Option<#p::AttributeValue>,
            ) -> ::core::result::Result<#ty, #p::Error> {
                use #p::{DirectConv as _, SerdeDecode as _};
                match __slot {
                    ::core::option::Option::Some(__value) => #decode,
                    ::core::option::Option::None => #missing,
                }
            }
        }
    });
    quote!(#(#functions)*)
}

/// The arguments of `__private::attr` for one field: its two functions.
pub fn codec_args(field: &Field) -> TokenStream {
    let (encoder, reader, omits) = (encoder_name(field), reader_name(field), omits_name(field));
    quote!(Self::#encoder, Self::#reader, Self::#omits)
}

/// The field when the item does not have it (a `Result` expression), as serde decides: its
/// `default`, `None` for an `Option` read without `with`, else an error.
fn missing(
    entity_type: &TokenStream,
    ty: &syn::Type,
    attribute: &str,
    conversion: &SerdeConversion,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match &conversion.default {
        Some(Some(function)) => {
            let function = path(function);
            quote!(::core::result::Result::Ok(#function()))
        }
        Some(None) => quote!(::core::result::Result::Ok(
            ::core::default::Default::default()
        )),
        None if conversion.with.is_some() || conversion.deserialize_with.is_some() => {
            quote!(::core::result::Result::Err(#p::missing_field(#entity_type, #attribute)))
        }
        // serde's missing-field rule: a type that reads an option takes
        // `None`, any other is a missing-field error.
        None => quote!(#p::missing::<#ty>(#entity_type, #attribute)),
    }
}

/// One field `read_fields` reads: `let #binding: #ty` from `attribute`,
/// by `reader` (the field's one reader, a path or expression callable with
/// the attribute's value, `None` when the item does not have it).
pub struct FieldRead<'a> {
    pub binding: syn::Ident,
    pub ty: &'a syn::Type,
    pub attribute: &'a str,
    pub reader: TokenStream,
}

/// `let #binding: #ty = ...;` for each field: the fields' values taken out
/// of `__item` in one pass over it (a match on each attribute's name, where
/// a lookup per field would hash each name), then each read by its reader.
pub fn read_fields(fields: &[FieldRead<'_>]) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let slots: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("__slot_{}", i))
        .collect();
    let arms = fields.iter().zip(&slots).map(|(field, slot)| {
        let attribute = field.attribute;
        quote!(#attribute => #slot = ::core::option::Option::Some(__value),)
    });
    let lets = fields.iter().zip(&slots).map(|(field, slot)| {
        let (binding, ty, reader) = (&field.binding, field.ty, &field.reader);
        quote!(let #binding: #ty = (#reader)(#slot)?;)
    });
    quote! {
        #(let mut #slots: ::core::option::Option<#p::AttributeValue> = ::core::option::Option::None;)*
        for (__name, __value) in __item {
            #[allow(unreachable_patterns)]
            match __name.as_str() {
                #(#arms)*
                _ => {}
            }
        }
        #(#lets)*
    }
}

/// The body of `to_item`'s field part: an `Item` of the entity's fields.
/// Every attribute is made before the map that holds them is allocated, as
/// hand-written code building an item from its pairs does: allocators serve
/// the many small strings fastest before the one large table.
pub fn fields_to_item(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    if !follows(entity) {
        return quote!(#p::serde_item(self, #entity_type)?);
    }
    let count = entity.fields.len();
    let bindings: Vec<_> = (0..count)
        .map(|i| format_ident!("__attribute{}", i))
        .collect();
    let attributes = entity.fields.iter().zip(&bindings).map(|(field, binding)| {
        let attribute = &field.attribute;
        let ident = field.ident;
        let encoder = encoder_name(field);
        let pair =
            quote!((#p::std::string::String::from(#attribute), Self::#encoder(&self.#ident)?));
        let omits = omits_name(field);
        match &field.raw.conversion.skip_if {
            Some(_) => {
                quote!(let #binding = if Self::#omits(&self.#ident) {
                    ::core::option::Option::None
                } else {
                    ::core::option::Option::Some(#pair)
                };)
            }
            None => quote!(let #binding = ::core::option::Option::Some(#pair);),
        }
    });
    quote! {{
        #(#attributes)*
        // The fields, the table and index keys, and the entity type.
        let mut __item = #p::Item::with_capacity(#count + <Self as #p::Entity>::SCHEMA.keys.len() * 2 + 1);
        let __attributes: [::core::option::Option<(#p::std::string::String, #p::AttributeValue)>; #count] =
            [#(#bindings),*];
        __item.extend(__attributes.into_iter().flatten());
        __item
    }}
}

/// The body of `from_item` after the entity-type check: `Self` from
/// `__item`.
pub fn item_to_fields(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let table = &entity.table;
    if !follows(entity) {
        return quote!(#p::item_to_fields(#entity_type, &<#table as #p::Table>::DEF, __item));
    }
    let reads: Vec<FieldRead> = entity
        .fields
        .iter()
        .enumerate()
        .map(|(i, field)| FieldRead {
            binding: format_ident!("__field_{}", i),
            ty: field.ty,
            attribute: &field.attribute,
            reader: reader(field),
        })
        .collect();
    let lets = read_fields(&reads);
    let assigned = entity.fields.iter().enumerate().map(|(i, field)| {
        let ident = field.ident;
        let binding = format_ident!("__field_{}", i);
        quote!(#ident: #binding)
    });
    let skipped =
        entity
            .skipped
            .iter()
            .zip(&entity.skipped_serde)
            .map(|(ident, serde)| match &serde.default {
                Some(Some(function)) => {
                    let function = path(function);
                    quote!(#ident: #function())
                }
                _ => quote!(#ident: ::core::default::Default::default()),
            });
    quote! {{
        #p::check_entity_type(#entity_type, &<#table as #p::Table>::DEF, &__item)?;
        #lets
        ::core::result::Result::Ok(Self { #(#assigned,)* #(#skipped,)* })
    }}
}
