//! Code generation for `#[derive(Entity)]`. Works on a validated model and
//! never fails; every path it emits is absolute. One file per thing emitted:
//! `schema` (the `SCHEMA` constants and compile-time checks), `keys` (key
//! functions, query entry points, index keys, `parse_key`), `template` (key
//! templates written and read), `upkeep` (sparse rules and index keys an
//! update recomputes), `multi_attribute` (indexes keyed by the entity's own
//! attributes), `fields` (`Entity::fields()`), `stamps` (version and
//! timestamps), `migrate` (schema versions and migrations), `unique` (unique
//! constraints: their values, lookups and checks), `convert` (the
//! item conversion), `fallback` (the stand-in emitted when the attributes
//! have errors). This file assembles them.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::ast::Entity;

pub(crate) mod convert;
mod fallback;
mod fields;
mod keys;
mod migrate;
mod multi_attribute;
mod schema;
mod stamps;
mod template;
mod unique;
mod upkeep;
mod vector;

pub use fallback::fallback;

pub fn expand(entity: &Entity) -> TokenStream {
    let checks = schema::checks(entity);
    let fields_struct = fields::fields_struct(entity);
    let key_code = keys::key_code(entity);
    let (parse_key, primary_args) = keys::parse_key(entity);
    let multi_attribute_checks = multi_attribute::checks(entity);
    let unique_checks = unique::checks(entity);
    let vector_checks = vector::checks(entity);
    let entity_impl = entity_impl(entity, &key_code, &primary_args);
    let inherent_impl = inherent_impl(entity, key_code, parse_key);
    let scannable = scannable(entity);
    quote! {
        #entity_impl

        #scannable

        #fields_struct

        #inherent_impl

        #checks
        #multi_attribute_checks
        #unique_checks
        #(#vector_checks)*
    }
}

/// `impl Scannable` for an entity declared with `scan`: what `Db::scan` needs.
fn scannable(entity: &Entity) -> TokenStream {
    let ident = entity.ident;
    if !entity.scan {
        return TokenStream::new();
    }
    quote! {
        #[automatically_derived]
        impl ::ddb_runtime::__private::Scannable for #ident {}
    }
}

/// `impl Entity`: the schema constant, the item conversion, index keys
/// from an item's values, and the version and timestamp hooks.
fn entity_impl(
    entity: &Entity,
    key_code: &keys::KeyCode,
    primary_args: &[TokenStream],
) -> TokenStream {
    let ident = entity.ident;
    let table = &entity.table;
    let p = quote!(::ddb_runtime::__private);
    let schema_const = schema_const(entity);
    let version_fn = stamps::version_fn(entity);
    let stamps_fn = stamps::stamps_fn(entity);
    let check_attribute_key = upkeep::check_attribute_key(entity);
    let item_fns = item_fns(entity, primary_args);
    let index_from_fns = index_from_fns(entity, key_code);
    quote! {
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Table = #table;

            #schema_const

            #item_fns

            #index_from_fns

            #version_fn

            #stamps_fn

            #check_attribute_key
        }
    }
}

/// `const SCHEMA`: the entity's declaration, read by the runtime.
fn schema_const(entity: &Entity) -> TokenStream {
    let table = &entity.table;
    let entity_type = &entity.entity_type;
    let rust_name = entity.ident.to_string();
    let p = quote!(::ddb_runtime::__private);
    let table_def = quote!(<#table as #p::Table>::DEF);
    let key_defs = schema::key_defs(entity);
    let field_defs = schema::field_defs(entity);
    let multi_attribute_defs = multi_attribute::schema_defs(entity);
    let schema_version = migrate::version(entity);
    let schema_declared = entity.schema.is_some();
    let unique_defs = unique::unique_defs(entity);
    let searches = vector::search_defs(entity);
    let scan = entity.scan;
    quote! {
        const SCHEMA: #p::EntitySchema = #p::EntitySchema {
            rust_name: #rust_name,
            entity_type: #entity_type,
            table: &#table_def,
            keys: &[#(#key_defs),*],
            multi_attribute_keys: &[#(#multi_attribute_defs),*],
            fields: &[#(#field_defs),*],
            schema_version: #schema_version,
            schema_declared: #schema_declared,
            unique: &[#(#unique_defs),*],
            searches: &[#(#searches),*],
            scan: #scan,
        };
    }
}

/// The item's keys and its conversion to and from an item: `primary_key`,
/// `index_keys`, `to_item`, `from_item`, `check_key`.
fn item_fns(entity: &Entity, primary_args: &[TokenStream]) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let attribute_keys = multi_attribute::attribute_keys(entity);
    let fields_to_item = convert::fields_to_item(entity);
    let item_to_fields = convert::item_to_fields(entity);
    let write_version = migrate::write_version(entity);
    let read_version = migrate::read_version(entity);
    quote! {
        fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::Error> {
            Self::key(#(#primary_args),*)
        }

        fn index_keys(&self) -> ::core::result::Result<#p::std::vec::Vec<(&'static str, #p::KeyValues)>, #p::Error> {
            self.__ddb_index_keys(&#p::Entity::primary_key(self)?)
        }

        fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
            // Keys first: a value no key can hold is reported as such.
            let __primary = #p::Entity::primary_key(self)?;
            let __indexes = self.__ddb_index_keys(&__primary)?;
            #[allow(unused_mut)]
            let mut __fields = #fields_to_item;
            #write_version
            #p::to_item::<Self>(__fields, __primary, __indexes, #attribute_keys)
        }

        fn from_item(__item: #p::Item) -> ::core::result::Result<Self, #p::Error> {
            #read_version
            #item_to_fields
        }

        fn check_key(key: &#p::Key<Self>) -> ::core::result::Result<(), #p::Error> {
            Self::parse_key(key).map(|_| ())
        }
    }
}

/// `index_key_from` and `index_side_from`: an index's key, or one side of
/// it, from the values an update writes.
fn index_from_fns(entity: &Entity, key_code: &keys::KeyCode) -> TokenStream {
    let entity_type = &entity.entity_type;
    let p = quote!(::ddb_runtime::__private);
    let index_from_values = &key_code.index_from_values;
    let index_sides = &key_code.index_sides;
    quote! {
        fn index_key_from(
            __position: usize,
            __key: &#p::Key<Self>,
            __values: &#p::Item,
        ) -> ::core::result::Result<::core::option::Option<#p::KeyValues>, #p::Error> {
            match __position {
                #(#index_from_values)*
                _ => ::core::result::Result::Err(#p::no_such_index(#entity_type, __position)),
            }
        }

        fn index_side_from(
            __position: usize,
            __sort: bool,
            __key: &#p::Key<Self>,
            __values: &#p::Item,
        ) -> ::core::result::Result<::core::option::Option<#p::KeyValue>, #p::Error> {
            match (__position, __sort) {
                #(#index_sides)*
                _ => ::core::result::Result::Err(#p::no_such_index(#entity_type, __position)),
            }
        }
    }
}

/// The struct's own `impl`: key functions, query entry points,
/// codecs, `parse_key` and the index keys of an item.
fn inherent_impl(entity: &Entity, key_code: keys::KeyCode, parse_key: TokenStream) -> TokenStream {
    let ident = entity.ident;
    let p = quote!(::ddb_runtime::__private);
    let keys::KeyCode {
        mut builders,
        index_pushes,
        needs_primary,
        ..
    } = key_code;
    let index_count = index_pushes.len();
    // Index keys that need the primary key (a shard, a local index) take
    // it from the caller: `to_item` builds it once for both.
    let primary_param = if needs_primary {
        quote!(__primary)
    } else {
        quote!(_)
    };
    let codecs = convert::codecs(entity);
    builders.extend(multi_attribute::query_builders(entity));
    builders.extend(unique::lookups(entity));
    builders.extend(vector::searches(entity));
    quote! {
        #[automatically_derived]
        impl #ident {
            #(#builders)*

            #codecs

            #parse_key

            #[doc(hidden)]
            fn __ddb_index_keys(
                &self,
                #primary_param: &#p::Key<Self>,
            ) -> ::core::result::Result<#p::std::vec::Vec<(&'static str, #p::KeyValues)>, #p::Error> {
                let mut __keys = #p::std::vec::Vec::with_capacity(#index_count);
                #(#index_pushes)*
                ::core::result::Result::Ok(__keys)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::internals::ast::Entity;
    use crate::internals::ctxt::Ctxt;

    /// `scan` reaches the model and its schema, and the `Scannable` impl
    /// that `Db::scan` needs is emitted only for an entity declaring it.
    #[test]
    fn only_a_declared_scan_is_scannable() {
        let declared: syn::DeriveInput = syn::parse_quote! {
            #[ddb(table = Shop, entity = "Order", pk = "ORDER#{id}", scan)]
            struct Order { id: String }
        };
        let undeclared: syn::DeriveInput = syn::parse_quote! {
            #[ddb(table = Shop, entity = "Order", pk = "ORDER#{id}")]
            struct Order { id: String }
        };
        for (input, scan) in [(declared, true), (undeclared, false)] {
            let cx = Ctxt::default();
            let entity = Entity::from_input(&cx, &input);
            assert!(entity.has_keys());
            assert!(!cx.has_errors());
            assert_eq!(entity.scan, scan);
            let code = super::expand(&entity).to_string();
            assert_eq!(code.contains("Scannable for Order"), scan, "{code}");
            assert!(code.contains(&format!("scan : {scan}")), "{code}");
            drop(cx.into_compile_errors());
        }
    }
}
