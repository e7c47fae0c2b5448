//! Derive macros for ddb: `Table`, `Entity`, `KeySegment`, `Projection` and
//! `Collection`.
//!
//! `internals` holds the model every derive reads (attributes, key
//! templates, the entity model and its rules); `expand` emits an entity's
//! code, and `table`, `segment`, `projection` and `collection` each emit
//! their derive's.
//!
//! Use them through `ddb-runtime`, which re-exports them and documents the
//! attributes; generated code names runtime items only through
//! `::ddb_runtime::__private`.

mod collection;
mod expand;
mod internals;
mod projection;
mod segment;
mod table;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Declares a DynamoDB table; see `ddb_runtime::Table`, and
/// `ddb_runtime::attributes` for every attribute it takes.
#[proc_macro_derive(Table, attributes(ddb))]
pub fn derive_table(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    table::derive(&input).into()
}

/// Declares an entity stored in a table; see `ddb_runtime::Entity`, and
/// `ddb_runtime::attributes` for every container, index and field attribute.
#[proc_macro_derive(Entity, attributes(ddb))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let cx = internals::ctxt::Ctxt::default();
    let model = internals::ast::Entity::from_input(&cx, &input);
    if model.has_keys() {
        internals::valid::check(&cx, &model);
    }
    // Errors the model holds a stand-in for (a missing `entity`) leave the
    // code as declared: generated whole, the error is the only one.
    let whole = model.has_keys() && cx.only_stand_ins();
    let mut out = cx.into_compile_errors();
    if whole {
        out.extend(expand::expand(&model));
    } else if input.generics.params.is_empty() {
        // In place of the code, a stand-in (the trait impls, the fields and
        // their codecs), so that uses of the entity add no errors. A generic
        // struct is refused outright: a stand-in would need its generics
        // and only add errors.
        out.extend(expand::fallback(&model));
    }
    out.into()
}

/// Makes a newtype or a fieldless enum usable in key templates; see
/// `ddb_runtime::KeySegment` and `ddb_runtime::attributes`.
#[proc_macro_derive(KeySegment, attributes(ddb))]
pub fn derive_key_segment(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    segment::derive(&input).into()
}

/// A subset of an entity's fields; see `ddb_runtime::Projection` and
/// `ddb_runtime::attributes`.
#[proc_macro_derive(Projection, attributes(ddb))]
pub fn derive_projection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    projection::derive(&input).into()
}

/// An enum of the entities sharing a partition; see `ddb_runtime::Collection`
/// and `ddb_runtime::attributes`.
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    collection::derive(&input).into()
}
