//! Code generation for `#[derive(Entity)]`. Works on a validated model and
//! never fails; every path it emits is absolute. One file per thing emitted:
//! `schema` (the `SCHEMA` constants and compile-time checks), `keys` (key
//! functions, query entry points, index keys, `parse_key`), `template` (key
//! templates written and read), `upkeep` (sparse rules and index keys an
//! update recomputes), `multi_attribute` (indexes keyed by the entity's own
//! attributes), `fields` (`Entity::fields()`), `stamps` (version and
//! timestamps), `migrate` (schema versions and migrations), `convert` (the
//! item conversion), `fallback` (the stub impl emitted when the attributes
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
mod upkeep;

pub use fallback::fallback;

/// `ProductOrdersIndex` -> `product_orders_index`, `GSI1` -> `gsi1`.
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || next_lower) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else if c.is_alphanumeric() {
            out.push(*c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

pub fn expand(entity: &Entity) -> TokenStream {
    let ident = entity.ident;
    let table = &entity.table;
    let entity_type = &entity.entity_type;
    let rust_name = ident.to_string();
    let p = quote!(::ddb_runtime::__private);
    let table_def = quote!(<#table as #p::Table>::DEF);

    let key_defs = schema::key_defs(entity);
    let field_defs = schema::field_defs(entity);
    let checks = schema::checks(entity);
    let fields_struct = fields::fields_struct(entity);
    let version_fn = stamps::version_fn(entity);
    let stamps_fn = stamps::stamps_fn(entity);

    let keys::KeyCode {
        mut builders,
        index_pushes,
        index_from_values,
        index_sides,
        needs_primary,
    } = keys::key_code(entity);
    let index_count = index_pushes.len();
    let (parse_key, primary_args) = keys::parse_key(entity);
    // Index keys that need the primary key (a shard, a local index) take
    // it from the caller: `to_item` builds it once for both.
    let primary_param = if needs_primary {
        quote!(__primary)
    } else {
        quote!(_)
    };
    let multi_attribute_defs = multi_attribute::schema_defs(entity);
    let multi_attribute_checks = multi_attribute::checks(entity);
    let attribute_keys = multi_attribute::attribute_keys(entity);
    let check_attribute_key = upkeep::check_attribute_key(entity);
    let fields_to_item = convert::fields_to_item(entity);
    let item_to_fields = convert::item_to_fields(entity);
    let codecs = convert::codecs(entity);
    let schema_version = migrate::version(entity);
    let write_version = migrate::write_version(entity);
    let read_version = migrate::read_version(entity);
    builders.extend(multi_attribute::query_builders(entity));

    quote! {
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Table = #table;

            const SCHEMA: #p::EntitySchema = #p::EntitySchema {
                rust_name: #rust_name,
                entity_type: #entity_type,
                table: &#table_def,
                keys: &[#(#key_defs),*],
                multi_attribute_keys: &[#(#multi_attribute_defs),*],
                fields: &[#(#field_defs),*],
                schema_version: #schema_version,
            };

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

            #version_fn

            #stamps_fn

            #check_attribute_key
        }

        #fields_struct

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

        #checks
        #multi_attribute_checks
    }
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn index_names_become_snake_case() {
        assert_eq!(snake_case("GSI1"), "gsi1");
        assert_eq!(snake_case("ProductOrdersIndex"), "product_orders_index");
        assert_eq!(snake_case("order-id.index"), "order_id_index");
    }
}
