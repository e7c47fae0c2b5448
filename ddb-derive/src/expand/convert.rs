//! The item conversion of an entity: each field straight to and from its
//! `AttributeValue` (serde_dynamo only for field types that are not stored
//! as they are), following the serde attributes that shape the item:
//! `rename`/`rename_all` (the attribute names), `skip`, `default`,
//! `skip_serializing_if` and `with`. An entity with any other serde
//! attribute is converted by serde_dynamo as a whole, as before.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::{Entity, Field};
use crate::attr::SerdeConversion;

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

/// The field's value as an `AttributeValue` expression (`?` inside).
fn value_of(entity: &Entity, field: &Field) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let (ident, ty) = (field.ident, field.ty);
    match &field.raw.conversion.with {
        Some(module) => {
            let module = path(module);
            quote! {{
                struct __With<'__a>(&'__a #ty);
                impl #p::serde::Serialize for __With<'_> {
                    fn serialize<__S: #p::serde::Serializer>(
                        &self,
                        __serializer: __S,
                    ) -> ::core::result::Result<__S::Ok, __S::Error> {
                        #module::serialize(self.0, __serializer)
                    }
                }
                #p::to_serde(&__With(&self.#ident), #entity_type)?
            }}
        }
        None => quote!((&&#p::Conv::<#ty>::NEW).encode(&self.#ident, #entity_type)?),
    }
}

/// The field decoded from `__value` (`?` inside). `entity_type` is an
/// expression of the entity's type name, for errors.
fn decode(entity_type: &TokenStream, ty: &syn::Type, conversion: &SerdeConversion) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match &conversion.with {
        Some(module) => {
            let module = path(module);
            quote! {{
                struct __With(#ty);
                impl<'__de> #p::serde::Deserialize<'__de> for __With {
                    fn deserialize<__D: #p::serde::Deserializer<'__de>>(
                        __deserializer: __D,
                    ) -> ::core::result::Result<Self, __D::Error> {
                        #module::deserialize(__deserializer).map(__With)
                    }
                }
                #p::from_serde::<__With>(__value, #entity_type)?.0
            }}
        }
        None => quote!((&&#p::Conv::<#ty>::NEW).decode(__value, #entity_type)?),
    }
}

/// The field when the item does not have it, as serde decides: its
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
            quote!(#function())
        }
        Some(None) => quote!(::core::default::Default::default()),
        None if conversion.with.is_some() => {
            quote!(return ::core::result::Result::Err(#p::missing_field(#entity_type, #attribute)))
        }
        // serde's missing-field rule: a type that reads an option takes
        // `None`, any other is a missing-field error.
        None => quote!(#p::missing::<#ty>(#entity_type, #attribute)?),
    }
}

/// One field `read_fields` reads: `let #binding: #ty` from `attribute`.
pub struct FieldRead<'a> {
    pub binding: syn::Ident,
    pub ty: &'a syn::Type,
    pub attribute: &'a str,
    pub conversion: &'a SerdeConversion,
}

/// `let #binding: #ty = ...;` for each field: the fields' values taken out
/// of `__item` in one pass over it (a match on each attribute's name, where
/// a lookup per field would hash each name), then each decoded in order,
/// or, when the item does not have it, what serde makes of a missing field.
pub fn read_fields(entity_type: &TokenStream, fields: &[FieldRead<'_>]) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let slots: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("__slot_{}", i))
        .collect();
    let arms = fields.iter().zip(&slots).map(|(field, slot)| {
        let attribute = field.attribute;
        quote!(#attribute => #slot = ::core::option::Option::Some(__value),)
    });
    let lets = fields.iter().zip(&slots).map(|(field, slot)| {
        let (binding, ty) = (&field.binding, field.ty);
        let decode = decode(entity_type, ty, field.conversion);
        let missing = missing(entity_type, ty, field.attribute, field.conversion);
        quote! {
            let #binding: #ty = match #slot {
                ::core::option::Option::Some(__value) => #decode,
                ::core::option::Option::None => #missing,
            };
        }
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
        let value = value_of(entity, field);
        let pair = quote!((#p::std::string::String::from(#attribute), #value));
        match &field.raw.conversion.skip_if {
            Some(predicate) => {
                let predicate = path(predicate);
                quote!(let #binding = if #predicate(&self.#ident) {
                    ::core::option::Option::None
                } else {
                    ::core::option::Option::Some(#pair)
                };)
            }
            None => quote!(let #binding = ::core::option::Option::Some(#pair);),
        }
    });
    quote! {{
        #[allow(unused_imports)]
        use #p::{DirectConv as _, SerdeConv as _, SerdeDecode as _};
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
            conversion: &field.raw.conversion,
        })
        .collect();
    let lets = read_fields(&quote!(#entity_type), &reads);
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
        #[allow(unused_imports)]
        use #p::{DirectConv as _, SerdeConv as _, SerdeDecode as _};
        #p::check_entity_type(#entity_type, &<#table as #p::Table>::DEF, &__item)?;
        #lets
        ::core::result::Result::Ok(Self { #(#assigned,)* #(#skipped,)* })
    }}
}
