//! Collects every error of one derive, so they are reported together.

use std::cell::{Cell, RefCell};
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
    /// An error left the model without a stand-in: code generated from it
    /// would not be what was declared.
    without_stand_in: Cell<bool>,
}

impl Ctxt {
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.without_stand_in.set(true);
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// An error for which the model holds a stand-in that generates sound
    /// code (a missing `entity`, read as the struct's name): the derive
    /// still generates everything, so this error is the only one.
    pub fn error_with_stand_in<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    pub fn syn_error(&self, error: syn::Error) {
        self.without_stand_in.set(true);
        self.errors.borrow_mut().push(error);
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// No error so far, or only errors the model holds a stand-in for.
    pub fn only_stand_ins(&self) -> bool {
        !self.without_stand_in.get()
    }

    /// All errors as `compile_error!` invocations, in the order they were found.
    pub fn into_compile_errors(self) -> TokenStream {
        self.errors
            .into_inner()
            .into_iter()
            .map(|e| e.to_compile_error())
            .collect()
    }
}

/// The valid name closest to `given`, when one is close enough to be a typo.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(given, c), c))
        .filter(|(d, c)| *d <= c.len().max(given.len()).div_ceil(3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == *cb {
                previous
            } else {
                1 + previous.min(row[j]).min(row[j + 1])
            };
            previous = current;
        }
    }
    row[b.len()]
}

/// `unknown #[ddb(...)] key `x` ...; valid keys are: a, b` with a suggestion.
pub fn unknown_key_message(place: &str, given: &str, valid: &[&str]) -> String {
    let mut message = format!(
        "unknown key `{given}` in #[ddb(...)] on {place}; valid keys are: {}",
        valid.join(", ")
    );
    if let Some(near) = closest(given, valid.iter().copied()) {
        message.push_str(&format!("; did you mean `{near}`?"));
    }
    message.push_str(" (every key is described in `ddb_runtime::attributes`)");
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            closest("custmer_id", ["customer_id", "order_id"]),
            Some("customer_id")
        );
        assert_eq!(closest("zzz", ["customer_id", "order_id"]), None);
    }
}
