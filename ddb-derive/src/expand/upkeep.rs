//! What keeps index keys right on update: sparse membership rules, and each
//! index key computed from the primary key and the values an update knows.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Entity, Key};
use crate::attr::{Compare, RawWhen};

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
        return arm(entity, position, key, key_fn, quote!());
    };
    if let RawWhen::Function { .. } = when {
        // A function of the whole entity: the runtime reads the item instead.
        return quote! {
            #position => ::core::result::Result::Err(#p::no_such_index(#entity_type, __position)),
        };
    }
    let holds = membership(when, |field| quote!(#field));
    arm(
        entity,
        position,
        key,
        key_fn,
        quote!(if !(#holds) { return ::core::result::Result::Ok(::core::option::Option::None); }),
    )
}

pub(super) fn arm(
    entity: &Entity,
    position: usize,
    key: &Key,
    key_fn: &syn::Ident,
    check: TokenStream,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let primary: Vec<&str> = entity.keys[0].fields();
    let primary_idents = primary
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|f| f.ident);
    let inputs = key.inputs();
    let decoded = inputs
        .iter()
        .filter(|name| !primary.contains(&name.as_str()))
        .filter_map(|name| entity.field(name))
        .map(|f| {
            let (ident, ty, attribute) = (f.ident, f.ty, &f.attribute);
            quote!(let #ident: #ty = #p::field_from(#entity_type, #attribute, __values)?;)
        });
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
            #[allow(unused_variables)]
            let (#(#primary_idents,)*) = Self::parse_key(__key)?;
            #(#decoded)*
            #check
            #[allow(unused_mut)]
            let mut __index = Self::#key_fn(#(#args),*)?;
            #shard
            ::core::result::Result::Ok(::core::option::Option::Some(__index))
        }
    }
}
