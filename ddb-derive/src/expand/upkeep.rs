//! What keeps index keys right on update: sparse membership rules, and each
//! index key computed from the primary key and the values an update knows.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::template::codecs;
use crate::internals::ast::{Entity, Field, Key};
use crate::internals::attr::{Compare, RawWhen};
use crate::internals::template::Part;

/// Whether a sparse index's rule holds, reading each field through `access`.
pub(super) fn membership(
    when: &RawWhen,
    access: impl Fn(&syn::Ident) -> TokenStream,
) -> TokenStream {
    match when {
        RawWhen::Field {
            field,
            compare,
            value,
        } => {
            let field = access(field);
            // An invisible group keeps the value's precedence without parentheses.
            let value = proc_macro2::Group::new(
                proc_macro2::Delimiter::None,
                quote::ToTokens::to_token_stream(value),
            );
            match compare {
                Compare::Eq => quote_spanned!(value.span()=> #field == #value),
                Compare::Ne => quote_spanned!(value.span()=> #field != #value),
                Compare::In => {
                    quote_spanned!(value.span()=> #value.iter().any(|__v| &#field == __v))
                }
            }
        }
        RawWhen::Function { path, .. } => quote_spanned!(path.span()=> (#path)(self)),
    }
}

/// One arm of `index_key_from`: index `position`'s key from the primary key
/// and the values of the other fields it reads, without the whole item.
pub(super) fn index_key_from(
    entity: &Entity,
    position: usize,
    key: &Key,
    key_fn: &syn::Ident,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let Some(when) = key.when.as_ref().map(|w| &w.value) else {
        return arm(entity, position, key, key_fn, quote!(), None);
    };
    if let RawWhen::Function { .. } = when {
        // A function of the whole entity: the runtime reads the item instead.
        return quote! {
            #position => ::core::result::Result::Err(#p::no_such_index(#entity_type, __position)),
        };
    }
    let holds = membership(when, |field| quote!(#field));
    let when_field = match when {
        RawWhen::Field { field, .. } => Some(field),
        RawWhen::Function { .. } => None,
    };
    arm(
        entity,
        position,
        key,
        key_fn,
        quote!(if !(#holds) { return ::core::result::Result::Ok(::core::option::Option::None); }),
        when_field,
    )
}

/// One arm of `index_key_from`, `check` deciding membership. When the
/// membership rule reads one field that is not in the primary key, that
/// field is decoded and the rule checked first: an update that takes an
/// item out of a sparse index does not parse its primary key.
pub(super) fn arm(
    entity: &Entity,
    position: usize,
    key: &Key,
    key_fn: &syn::Ident,
    check: TokenStream,
    when_field: Option<&syn::Ident>,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let primary: Vec<&str> = entity.keys[0].fields();
    let primary_idents = primary
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|f| f.ident);
    let early = when_field.filter(|f| !primary.contains(&f.to_string().as_str()));
    let decode = |f: &Field| {
        let (ident, ty, attribute) = (f.ident, f.ty, &f.attribute);
        let reader = super::convert::reader(f);
        quote!(let #ident: #ty = #reader(__values.get(#attribute).cloned())?;)
    };
    let inputs = key.inputs();
    let not_primary = inputs
        .iter()
        .filter(|name| !primary.contains(&name.as_str()))
        .filter_map(|name| entity.field(name));
    let (first, decoded): (Vec<_>, Vec<_>) =
        not_primary.partition(|f| early.is_some_and(|e| f.ident == e));
    let first = first.into_iter().map(decode);
    let decoded = decoded.into_iter().map(decode);
    let (check_first, check_after) = match early {
        Some(_) => (check, quote!()),
        None => (quote!(), check),
    };
    let args = key
        .fields()
        .into_iter()
        .filter_map(|name| entity.field(name))
        .map(|f| {
            let ident = f.ident;
            quote!(&#ident)
        });
    let shard = (key.shards > 1).then(|| {
        let shards = key.shards;
        quote!(__index.pk = #p::with_shard(#entity_type, __index.pk, __key.values(), #shards)?;)
    });
    quote! {
        #position => {
            #(#first)*
            #check_first
            #[allow(unused_variables)]
            let (#(#primary_idents,)*) = Self::parse_key(__key)?;
            #(#decoded)*
            #check_after
            #[allow(unused_mut)]
            let mut __index = Self::#key_fn(#(#args),*)?;
            #shard
            ::core::result::Result::Ok(::core::option::Option::Some(__index))
        }
    }
}

/// The two arms of `index_side_from` for index `position`: its partition
/// key (sharded as `to_item` shards it) or its sort key, each from the
/// primary key and the values of the fields that side reads. Membership is
/// not decided here: the update conditions on it.
pub(super) fn side_arms(
    entity: &Entity,
    position: usize,
    key: &Key,
    pk_fn: &syn::Ident,
    sk_fn: &syn::Ident,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let primary: Vec<&str> = entity.keys[0].fields();
    let side = |fields: Vec<&str>, call: TokenStream| {
        let primary_idents = primary
            .iter()
            .filter_map(|name| entity.field(name))
            .map(|f| f.ident);
        let decoded = fields
            .iter()
            .filter(|name| !primary.contains(name))
            .filter_map(|name| entity.field(name))
            .map(|f| {
                let (ident, ty, attribute) = (f.ident, f.ty, &f.attribute);
                let reader = super::convert::reader(f);
                quote!(let #ident: #ty = #reader(__values.get(#attribute).cloned())?;)
            });
        let args = fields
            .iter()
            .filter_map(|name| entity.field(name))
            .map(|f| {
                let ident = f.ident;
                quote!(&#ident)
            });
        quote! {{
            #[allow(unused_variables)]
            let (#(#primary_idents,)*) = Self::parse_key(__key)?;
            #(#decoded)*
            #call(#(#args),*)
        }}
    };
    let pk_fields: Vec<&str> = key.pk.value.fields().collect();
    let shard = if key.shards > 1 {
        let shards = key.shards;
        quote!(.and_then(|__pk| #p::with_shard(#entity_type, __pk, __key.values(), #shards)))
    } else {
        quote!()
    };
    let pk = side(pk_fields, quote!(Self::#pk_fn));
    let sk = match &key.sk {
        Some(sk) => {
            let sk = side(sk.value.fields().collect(), quote!(Self::#sk_fn));
            quote!(#sk.map(::core::option::Option::Some))
        }
        None => quote!(::core::result::Result::Ok(::core::option::Option::None)),
    };
    quote! {
        (#position, false) => #pk #shard .map(::core::option::Option::Some),
        (#position, true) => #sk,
    }
}

/// `Entity::check_attribute_key`: a value an update stores under an
/// attribute that is a key by itself (a single-field template on the
/// field's own attribute, or a field of a multi-attribute key) must be the
/// field's key form, or no typed query would find the item.
pub(super) fn check_attribute_key(entity: &Entity) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let table = &entity.table;
    let table_def = quote!(<#table as #p::Table>::DEF);
    let mut arms = Vec::new();
    for key in &entity.keys[1..] {
        let Some(index) = &key.index else { continue };
        let index = &index.value;
        let sides = [(Some(&key.pk), false), (key.sk.as_ref(), true)];
        for (template, sort) in sides {
            let Some(template) = template else { continue };
            let [Part::Field(name)] = template.value.parts.as_slice() else {
                continue;
            };
            let Some(field) = entity.field(name) else {
                continue;
            };
            let (attribute, ty) = (&field.attribute, field.ty);
            let reader = super::convert::reader(field);
            let codecs = codecs(entity, [name.as_str()]);
            let codec = format_ident!("__codec_{}", name);
            let (label, limit, side) = if sort {
                ("sort key", quote!(#p::SORT_KEY_LIMIT), quote!(1))
            } else {
                ("partition key", quote!(#p::PARTITION_KEY_LIMIT), quote!(0))
            };
            arms.push(quote! {
                #attribute if #p::is_key_attribute(&#table_def, #index, #sort, #attribute) => {
                    #codecs
                    let __field: #ty = #reader(::core::option::Option::Some(__value.clone()))?;
                    let __types = #p::key_types(&#table_def, ::core::option::Option::Some(#index));
                    let __key = #p::raw_key(#entity_type, #label, #name, &__field, #codec, __types.#side, #limit)?;
                    #p::check_key_form(#entity_type, #name, ::core::option::Option::Some(__value), &__key)
                }
            });
        }
    }
    arms.extend(super::multi_attribute::check_attribute_key_arms(entity));
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn check_attribute_key(
            __attribute: &str,
            __value: &#p::AttributeValue,
        ) -> ::core::result::Result<(), #p::Error> {
            match __attribute {
                #(#arms)*
                _ => ::core::result::Result::Ok(()),
            }
        }
    }
}
