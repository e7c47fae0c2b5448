//! The pieces every derive parses its `#[ddb(...)]` keys with: a value and
//! the tokens an error points at, keys set once, and unknown keys reported.

use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::{Attribute, LitStr};

use super::ctxt::{unknown_key_message, Ctxt};
use super::symbol::*;

/// A value and the tokens an error about it points at.
#[derive(Clone)]
pub struct Attr<T> {
    pub value: T,
    pub tokens: proc_macro2::TokenStream,
}

impl<T> Attr<T> {
    /// Where the attribute starts: the span a check of it is reported at.
    pub fn span(&self) -> proc_macro2::Span {
        first_span(&self.tokens)
    }
}

/// The span of the first token of `tokens` (the call site when empty).
pub fn first_span(tokens: &proc_macro2::TokenStream) -> proc_macro2::Span {
    tokens
        .clone()
        .into_iter()
        .next()
        .map(|t| t.span())
        .unwrap_or_else(proc_macro2::Span::call_site)
}

/// Sets `slot` once; a second occurrence is an error at its key.
pub fn set_once<T>(
    cx: &Ctxt,
    slot: &mut Option<Attr<T>>,
    meta: &ParseNestedMeta,
    value: T,
    tokens: proc_macro2::TokenStream,
) {
    if slot.is_some() {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        cx.error_spanned_by(&meta.path, format!("duplicate `{key}` in #[ddb(...)]"));
    } else {
        *slot = Some(Attr { value, tokens });
    }
}

/// `key = value`: parses the value and sets `slot` once; an error about it
/// points at the value.
pub fn set_value<T: Parse + ToTokens>(
    cx: &Ctxt,
    slot: &mut Option<Attr<T>>,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    let value: T = meta.value()?.parse()?;
    let tokens = value.to_token_stream();
    set_once(cx, slot, meta, value, tokens);
    Ok(())
}

/// `key(a, b)`: parses the comma-separated list and sets `slot` once; an
/// error about it points at the key.
pub fn set_list<T: Parse>(
    cx: &Ctxt,
    slot: &mut Option<Attr<Vec<T>>>,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    let content;
    syn::parenthesized!(content in meta.input);
    let values: Vec<T> = content
        .parse_terminated(T::parse, syn::Token![,])?
        .into_iter()
        .collect();
    let tokens = meta.path.to_token_stream();
    set_once(cx, slot, meta, values, tokens);
    Ok(())
}

/// Consumes whatever follows an unknown key so parsing can go on.
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

pub fn lit_str(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

pub fn path_tokens(meta: &ParseNestedMeta) -> proc_macro2::TokenStream {
    let path = &meta.path;
    quote::quote!(#path)
}

pub fn key_name(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_else(|| path_tokens(meta).to_string())
}

/// Parses every `#[ddb(...)]` in `attrs` with `each`, reporting syntax errors.
pub fn for_each_ddb(
    cx: &Ctxt,
    attrs: &[Attribute],
    mut each: impl FnMut(&ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident(DDB)) {
        if let Err(error) = attr.parse_nested_meta(|meta| each(&meta)) {
            cx.syn_error(error);
        }
    }
}

/// Reports an unknown key at its path and skips its value.
pub fn unknown(cx: &Ctxt, meta: &ParseNestedMeta, place: &str, valid: &[&str]) -> syn::Result<()> {
    cx.error_spanned_by(
        &meta.path,
        unknown_key_message(place, &key_name(meta), valid),
    );
    skip_value(meta)
}
