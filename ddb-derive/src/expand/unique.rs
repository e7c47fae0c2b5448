//! What a unique constraint emits: its `UniqueDef` (the runtime reads each
//! constraint's value from the item's attributes, so every write path sees
//! the value as stored, and normalises it as the constraint says), the lookup by value (`by_<name>`, which encodes its
//! arguments with the fields' own encoders), and the check that the table
//! can key guard items.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::convert::encoder_name;
use crate::internals::ast::{Entity, Field, Unique};

/// The fields of a constraint, as the entity declares them.
fn fields<'e, 'a>(entity: &'e Entity<'a>, unique: &'e Unique) -> Vec<&'e Field<'a>> {
    unique
        .fields
        .iter()
        .filter_map(|ident| entity.field(&ident.to_string()))
        .collect()
}

/// The `UniqueDef` of each constraint.
pub(super) fn unique_defs(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    entity
        .unique
        .iter()
        .map(|unique| {
            let name = unique.name();
            let fields = fields(entity, unique);
            let names = fields.iter().map(|f| f.ident.to_string());
            let attributes = fields.iter().map(|f| &f.attribute);
            let sensitive = fields.iter().any(|f| f.raw.sensitive.is_some());
            let normalize = normalize(unique);
            let allow_empty = unique.allow_empty;
            quote!(#p::UniqueDef {
                name: #name,
                fields: &[#(#names),*],
                attributes: &[#(#attributes),*],
                sensitive: #sensitive,
                normalize: #normalize,
                allow_empty: #allow_empty,
            })
        })
        .collect()
}

/// How a constraint's values compare. The user's function is coerced to a
/// `fn(&str) -> String` at its path: one of another signature is a type
/// error there.
fn normalize(unique: &Unique) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    match (&unique.normalize, &unique.ignore_case) {
        (Some(function), _) => {
            // Every token at the path, so a type error is reported there.
            let path = &function.value;
            let normalize = quote_spanned!(path.span()=>
                ::ddb_runtime::__private::Normalize::Function(#path)
            );
            quote!(::core::option::Option::Some(#normalize))
        }
        (None, Some(_)) => quote!(::core::option::Option::Some(#p::Normalize::IgnoreCase)),
        (None, None) => quote!(::core::option::Option::None),
    }
}

/// `by_<name>(&a, &b)`: the unique value to read an entity by, each
/// argument encoded as the item stores its field.
pub(super) fn lookups(entity: &Entity) -> Vec<TokenStream> {
    let p = quote!(::ddb_runtime::__private);
    let vis = entity.vis;
    entity
        .unique
        .iter()
        .enumerate()
        .map(|(position, unique)| {
            let lookup = format_ident!("by_{}", unique.name());
            let fields = fields(entity, unique);
            let params = fields.iter().map(|field| {
                let (ident, ty) = (field.ident, field.ty);
                quote!(#ident: &#ty)
            });
            let encoded = fields.iter().map(|field| {
                let (ident, encoder) = (field.ident, encoder_name(field));
                quote!(Self::#encoder(#ident))
            });
            let doc = format!(
                "The unique value (`{}`) to read the entity by, with `Db::get_unique`.",
                unique.fields.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("`, `")
            );
            quote! {
                #[doc = #doc]
                #vis fn #lookup(#(#params),*) -> #p::UniqueKey<Self> {
                    let __values: ::core::result::Result<#p::std::vec::Vec<#p::AttributeValue>, #p::Error> =
                        (|| ::core::result::Result::Ok(#p::std::vec![#(#encoded?),*]))();
                    #p::unique_key(#position, __values)
                }
            }
        })
        .collect()
}

/// The table keys its items by text, as guards are.
pub(super) fn checks(entity: &Entity) -> TokenStream {
    let Some(first) = entity.unique.first() else {
        return TokenStream::new();
    };
    let p = quote!(::ddb_runtime::__private);
    let table = &entity.table;
    let message = format!(
        "entity `{}` has unique fields, whose guard items are keyed by text: its table needs String partition and sort keys (pk_type and sk_type \"S\")",
        entity.ident
    );
    let across_regions = format!(
        "entity `{}` has unique fields, whose guards are conditional writes: its table replicates with multi_region_consistency = \"eventual\", where two Regions can each take the same value. Declare `single_region_writes` on the table if every write of an item is sent in one Region",
        entity.ident
    );
    let strong = format!(
        "entity `{}` has unique fields, whose guards are written in transactions: its table has multi_region_consistency = \"strong\", where DynamoDB runs no transaction. Check the value another way, or use \"eventual\" with `single_region_writes`",
        entity.ident
    );
    quote_spanned!(first.tokens.span()=>
        const _: () = ::core::assert!(#p::holds_guards(&<#table as #p::Table>::DEF), #message);
        const _: () = ::core::assert!(<#table as #p::Table>::DEF.runs_transactions(), #strong);
        const _: () = ::core::assert!(
            <#table as #p::Table>::DEF.conditions_hold_across_regions(),
            #across_regions
        );
    )
}
