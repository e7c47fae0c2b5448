//! The names and values of one request's expressions: every value behind a
//! placeholder (`:v0`), every name written as it is or through one (`#n0`),
//! and the expression size limit.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::value::check_value;

/// DynamoDB's limit on one expression (condition, filter, key condition,
/// update, projection), in bytes.
pub const EXPRESSION_LIMIT: usize = 4096;

/// Refuses an expression over [`EXPRESSION_LIMIT`] before it is sent.
pub(crate) fn check_expression(
    entity: &'static str,
    expression: &'static str,
    text: &str,
) -> crate::error::Result<()> {
    if text.len() > EXPRESSION_LIMIT {
        return Err(crate::error::Error::ExpressionTooLarge {
            entity,
            expression,
            size: text.len(),
            limit: EXPRESSION_LIMIT,
        });
    }
    Ok(())
}

/// checked as it is added ([`check_value`]); the first one DynamoDB would
/// refuse is reported by [`Placeholders::check`] before the request is sent.
#[derive(Debug, Default, Clone)]
pub(crate) struct Placeholders {
    pub(super) names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    invalid: Option<String>,
}

impl Placeholders {
    /// Attribute `name` as an expression writes it: the name itself, or its
    /// placeholder (one per distinct name).
    pub fn name(&mut self, name: &str) -> String {
        let mut placeholder = String::with_capacity(name.len().max(5));
        self.write_name(name, &mut placeholder);
        placeholder
    }

    /// A new placeholder holding `value`.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let mut placeholder = String::with_capacity(5);
        self.write_value(value, &mut placeholder);
        placeholder
    }

    /// [`name`](Self::name), written at the end of `out`: the name itself
    /// when DynamoDB reads it as a plain attribute name, else its
    /// placeholder ([`crate::expr_names`]).
    pub(crate) fn write_name(&mut self, name: &str, out: &mut String) {
        if !crate::expression::names::needs_placeholder(name) {
            out.push_str(name);
            return;
        }
        self.write_placeholder(name, out);
    }

    /// The placeholder of `name`, written at the end of `out`.
    fn write_placeholder(&mut self, name: &str, out: &mut String) {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, n)| n.as_str() == name) {
            out.push_str(placeholder);
            return;
        }
        let placeholder = numbered("#n", self.names.len());
        out.push_str(&placeholder);
        self.names.insert(placeholder, name.to_owned());
    }

    /// [`value`](Self::value), written at the end of `out`.
    pub(crate) fn write_value(&mut self, value: AttributeValue, out: &mut String) {
        let placeholder = numbered(":v", self.values.len());
        if self.invalid.is_none() {
            if let Err(reason) = check_value(&placeholder, &value) {
                let named = format!("attribute `{placeholder}`");
                self.invalid =
                    Some(reason.replace(&named, "a value of a condition, filter or update"));
            }
        }
        out.push_str(&placeholder);
        self.values.insert(placeholder, value);
    }

    /// `function(name)`, or `function(name, :value)`, written at the end of
    /// `out`.
    pub(crate) fn write_call(
        &mut self,
        function: &str,
        name: &str,
        value: Option<AttributeValue>,
        out: &mut String,
    ) {
        out.push_str(function);
        out.push('(');
        self.write_name(name, out);
        if let Some(value) = value {
            out.push_str(", ");
            self.write_value(value, out);
        }
        out.push(')');
    }

    /// `name op :value`, written at the end of `out`.
    pub(crate) fn write_comparison(
        &mut self,
        name: &str,
        op: &str,
        value: AttributeValue,
        out: &mut String,
    ) {
        self.write_name(name, out);
        out.push(' ');
        out.push_str(op);
        out.push(' ');
        self.write_value(value, out);
    }

    /// `name = :value`, or `attribute_not_exists(name)` when `value` is
    /// `None`: the attribute as it was read, written at the end of `out`.
    pub(crate) fn write_as_read(
        &mut self,
        name: &str,
        value: Option<AttributeValue>,
        out: &mut String,
    ) {
        match value {
            Some(value) => self.write_comparison(name, "=", value, out),
            None => self.write_call("attribute_not_exists", name, None, out),
        }
    }

    /// `text`, an expression of `kind` rendered into these placeholders,
    /// within DynamoDB's [`EXPRESSION_LIMIT`]: as it is when it fits, else
    /// with every name it writes as it is put through a placeholder (as ddb
    /// wrote every name before it wrote plain ones as they are), and refused
    /// as [`ExpressionTooLarge`](crate::error::Error::ExpressionTooLarge) if it
    /// still does not fit. Only the placeholders' numbers may differ from an
    /// expression written with placeholders throughout (a name may take
    /// `#n10` where it would have taken `#n2`), a byte or two per use.
    ///
    /// Every word of the text that `needs_placeholder` finds plain is taken
    /// for a name: any function or keyword ddb writes must be a reserved
    /// word or one of `expr_names`'s keywords.
    pub(crate) fn fit(
        &mut self,
        entity: &'static str,
        kind: &'static str,
        text: String,
    ) -> crate::error::Result<String> {
        if text.len() <= EXPRESSION_LIMIT {
            return Ok(text);
        }
        let word = crate::expression::names::in_name;
        let bytes = text.as_bytes();
        let mut placed = String::with_capacity(text.len());
        let mut copied = 0;
        let mut i = 0;
        while i < bytes.len() {
            // A word starts at a letter that follows no word character and
            // no placeholder sigil: a name, a function or a keyword.
            let follows = i.checked_sub(1).map(|p| bytes[p]);
            let starts = bytes[i].is_ascii_alphabetic()
                && !follows.is_some_and(|b| word(b) || b == b'#' || b == b':');
            if !starts {
                i += 1;
                continue;
            }
            let end = i + bytes[i..].iter().take_while(|&&b| word(b)).count();
            let token = &text[i..end];
            // What ddb wrote as it is and not as a function or keyword.
            if !crate::expression::names::needs_placeholder(token) {
                placed.push_str(&text[copied..i]);
                self.write_placeholder(token, &mut placed);
                copied = end;
            }
            i = end;
        }
        placed.push_str(&text[copied..]);
        check_expression(entity, kind, &placed)?;
        Ok(placed)
    }

    /// A projection expression of `attributes`, each named once.
    pub(crate) fn projection<'a>(
        &mut self,
        attributes: impl IntoIterator<Item = &'a str>,
    ) -> String {
        let mut names: Vec<String> = Vec::new();
        for attribute in attributes {
            let name = self.name(attribute);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names.join(", ")
    }

    /// The first value DynamoDB would refuse, as a typed error.
    pub(crate) fn check(&self, entity: &'static str) -> crate::error::Result<()> {
        match &self.invalid {
            Some(reason) => Err(crate::error::Error::InvalidValue {
                entity,
                reason: reason.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Both maps, moved out, for the request that sends them.
    pub(crate) fn into_maps(self) -> (NameMap, ValueMap) {
        let names = (!self.names.is_empty()).then_some(self.names);
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}

/// A placeholder: `sigil` and `n` in decimal (`#n0`, `:v12`), written
/// without the formatting machinery (a request numbers several).
pub(super) fn numbered(sigil: &str, n: usize) -> String {
    fn digits(n: usize, out: &mut String) {
        if n >= 10 {
            digits(n / 10, out);
        }
        out.push(char::from(b'0' + (n % 10) as u8));
    }
    let mut placeholder = String::with_capacity(sigil.len() + 3);
    placeholder.push_str(sigil);
    digits(n, &mut placeholder);
    placeholder
}

/// A request's `ExpressionAttributeNames`, `None` when empty.
pub(crate) type NameMap = Option<HashMap<String, String>>;
/// A request's `ExpressionAttributeValues`, `None` when empty.
pub(crate) type ValueMap = Option<HashMap<String, AttributeValue>>;
