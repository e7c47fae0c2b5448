//! What an index keyed by the entity's own fields emits: its schema entry,
//! the const checks against the table, the typed query entry point, and the
//! key form of each field for `to_item` to check the stored value against.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use crate::internals::ast::{Entity, Field, MultiAttributeKey};

/// `T` for a field of type `Option<T>` (which leaves the item out of the
/// index when `None`), with whether it was optional.
fn key_type(ty: &Type) -> (&Type, bool) {
    if let Type::Path(path) = ty {
        if let Some(last) = path.path.segments.last() {
            if last.ident == "Option" {
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    if let [GenericArgument::Type(inner)] =
                        args.args.iter().collect::<Vec<_>>().as_slice()
                    {
                        return (inner, true);
                    }
                }
            }
        }
    }
    (ty, false)
}

/// The fields of `key`, partition then sort, each with its position.
fn fields<'e, 'a>(
    entity: &'e Entity<'a>,
    key: &'e MultiAttributeKey,
) -> impl Iterator<Item = (usize, &'e Field<'a>)> {
    key.fields()
        .filter_map(|ident| entity.field(&ident.to_string()))
        .enumerate()
}

fn codec(field: &Field) -> syn::Ident {
    format_ident!("__codec_{}", field.ident)
}

/// `let __codec_f = ...;` for the key type of each field of `key`.
fn codecs(entity: &Entity, key: &MultiAttributeKey) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let lets = fields(entity, key).map(|(_, field)| {
        let (ty, _) = key_type(field.ty);
        let codec = codec(field);
        quote!(let #codec = (&&#p::Codec::<#ty>::NEW).codec();)
    });
    quote! {
        #[allow(unused_imports)]
        use #p::{IsSegment as _, NotSegment as _};
        #(#lets)*
    }
}

/// `raw_key(...)`: one field's value as the index attribute holds it.
fn key_value(
    entity: &Entity,
    key: &MultiAttributeKey,
    position: usize,
    field: &Field,
    value: TokenStream,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let table = &entity.table;
    let entity_type = &entity.entity_type;
    let index = &key.index.value;
    let name = field.ident.to_string();
    let codec = codec(field);
    let (label, limit) = if position < key.pk.value.len() {
        (
            "index partition key attribute",
            quote!(#p::PARTITION_KEY_LIMIT),
        )
    } else {
        ("index sort key attribute", quote!(#p::SORT_KEY_LIMIT))
    };
    quote! {
        #p::raw_key(
            #entity_type,
            #label,
            #name,
            #value,
            #codec,
            #p::index_attribute_type(&<#table as #p::Table>::DEF, #index, #position),
            #limit,
        )
    }
}

/// The `MultiAttributeKey` constants of `SCHEMA.multi_attribute_keys`.
pub fn schema_defs(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    entity
        .multi_attribute_keys
        .iter()
        .map(|key| {
            let index = &key.index.value;
            let pk = key.pk.value.iter().map(|f| f.to_string());
            let sk = key.sk.iter().flat_map(|sk| &sk.value).map(|f| f.to_string());
            let query = match &key.query {
                Some(query) => {
                    let query = &query.value;
                    quote!(::core::option::Option::Some(#query))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#p::MultiAttributeKey { index: #index, pk: &[#(#pk),*], sk: &[#(#sk),*], query: #query })
        })
        .collect()
}

/// The const checks: each field's key type is a key segment (at the field),
/// and the key matches the table's index (at the index name).
pub fn checks(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    let mut out = TokenStream::new();
    for (m, key) in entity.multi_attribute_keys.iter().enumerate() {
        let mut numeric = Vec::new();
        for (_, field) in fields(entity, key) {
            let (ty, _) = key_type(field.ty);
            out.extend(quote_spanned!(ty.span()=> const _: () = #p::assert_key_segment::<#ty>();));
            numeric.push(quote!(#p::is_numeric::<#ty>()));
        }
        let span = key.index.span();
        out.extend(quote_spanned! {span=>
            const _: () = if let ::core::option::Option::Some(__message) =
                #p::check_multi_attribute_key(&<#ident as #p::Entity>::SCHEMA, #m, &[#(#numeric),*])
            {
                ::core::panic!("{}", __message.as_str())
            };
        });
    }
    out
}

/// The typed query entry points: one argument per partition field, the sort
/// fields as the query's sort tuple.
pub fn query_builders(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let ident = entity.ident;
    let mut builders = Vec::new();
    for (m, key) in entity.multi_attribute_keys.iter().enumerate() {
        let Some(query) = &key.query else { continue };
        let query_fn = format_ident!("{}", query.value);
        let index = &key.index.value;
        let partition: Vec<(usize, &Field)> = fields(entity, key)
            .filter(|(position, _)| *position < key.pk.value.len())
            .collect();
        let params = partition.iter().map(|(_, field)| {
            let name = field.ident;
            let (ty, _) = key_type(field.ty);
            quote!(#name: &#ty)
        });
        let values = partition.iter().map(|(position, field)| {
            let name = field.ident;
            key_value(entity, key, *position, field, quote!(#name))
        });
        let sort_types = fields(entity, key)
            .filter(|(position, _)| *position >= key.pk.value.len())
            .map(|(_, field)| key_type(field.ty).0);
        let codecs = codecs(entity, key);
        let doc = format!(
            "Query `{}` on index `{index}`, keyed by the items' own attributes: the partition ({}){}. Run it with `Db::query`.",
            query.value,
            key.pk.value.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", "),
            key.sk
                .as_ref()
                .map(|sk| format!(", sorted by {}", sk.value.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", ")))
                .unwrap_or_default()
        );
        builders.push(quote! {
            #[doc = #doc]
            #[allow(clippy::self_named_constructors)]
            pub fn #query_fn(#(#params),*) -> #p::QueryKey<
                #ident,
                (#(#sort_types,)*),
                #p::MultiAttributeIndex,
                <#p::ProjectionOf<{ #p::carries_all(&<#ident as #p::Entity>::SCHEMA, ::core::option::Option::Some(#index)) }> as #p::Select>::Type,
                #m,
            > {
                #codecs
                let __values = (|| -> ::core::result::Result<#p::std::vec::Vec<#p::KeyValue>, #p::Error> {
                    ::core::result::Result::Ok(#p::std::vec![#(#values?),*])
                })();
                #p::query_key_of_attributes(__values)
            }
        });
    }
    builders
}

/// The arms of `Entity::check_attribute_key` for the fields of
/// multi-attribute keys: a value an update stores under one must be that
/// field's key form.
pub fn check_attribute_key_arms(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let mut seen: Vec<String> = Vec::new();
    let mut arms = Vec::new();
    for key in &entity.multi_attribute_keys {
        for (position, field) in fields(entity, key) {
            if seen.contains(&field.attribute) {
                continue;
            }
            seen.push(field.attribute.clone());
            let attribute = &field.attribute;
            let name = field.ident.to_string();
            let (ty, optional) = key_type(field.ty);
            let codecs = codecs(entity, key);
            let value = key_value(entity, key, position, field, quote!(&__field));
            let reader = super::convert::reader(field);
            let read = quote!(#reader(::core::option::Option::Some(__value.clone()))?);
            // A NULL leaves the index (the update removes the attribute).
            let read = if optional {
                quote!(match #read {
                    ::core::option::Option::Some(__field) => __field,
                    ::core::option::Option::None => return ::core::result::Result::Ok(()),
                })
            } else {
                read
            };
            arms.push(quote! {
                #attribute => {
                    #codecs
                    let __field: #ty = #read;
                    let __key = #value?;
                    #p::check_key_form(#entity_type, #name, ::core::option::Option::Some(__value), &__key)
                }
            });
        }
    }
    arms
}

/// The `attribute_keys` argument of `__private::to_item`: each field of a
/// multi-attribute key once, with its key form (`None` when an `Option` is
/// `None`).
pub fn attribute_keys(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let mut seen: Vec<String> = Vec::new();
    let mut codecs_out = Vec::new();
    let mut pushes = Vec::new();
    for key in &entity.multi_attribute_keys {
        let codec_lets = codecs(entity, key);
        codecs_out.push(quote!(#codec_lets));
        for (position, field) in fields(entity, key) {
            let name = field.ident.to_string();
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            let ident = field.ident;
            let attribute = &field.attribute;
            let (_, optional) = key_type(field.ty);
            let value = key_value(entity, key, position, field, quote!(__value));
            let access = if optional {
                quote!(self.#ident.as_ref())
            } else {
                quote!(::core::option::Option::Some(&self.#ident))
            };
            pushes.push(quote! {
                __keys.push((#name, #attribute, match #access {
                    ::core::option::Option::Some(__value) => ::core::option::Option::Some(#value?),
                    ::core::option::Option::None => ::core::option::Option::None,
                }));
            });
        }
    }
    quote! {{
        #(#codecs_out)*
        let mut __keys: #p::std::vec::Vec<(&'static str, &'static str, ::core::option::Option<#p::KeyValue>)> =
            #p::std::vec::Vec::new();
        #(#pushes)*
        __keys
    }}
}
