//! Conditions over an entity's attributes, for filters and conditional writes.
//!
//! Every value goes through an expression placeholder (`:v0`), so no value
//! is ever spliced into the expression text. An attribute name is written as
//! it is when DynamoDB reads it as a plain name (`PK`), and through a
//! placeholder (`#n0`) otherwise, so reserved words such as `status` or
//! `name` just work.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

/// DynamoDB's limit on one expression (condition, filter, key condition,
/// update, projection), in bytes.
pub const EXPRESSION_LIMIT: usize = 4096;

/// Refuses an expression over [`EXPRESSION_LIMIT`] before it is sent.
pub(crate) fn check_expression(
    entity: &'static str,
    expression: &'static str,
    text: &str,
) -> crate::Result<()> {
    if text.len() > EXPRESSION_LIMIT {
        return Err(crate::Error::ExpressionTooLarge {
            entity,
            expression,
            size: text.len(),
            limit: EXPRESSION_LIMIT,
        });
    }
    Ok(())
}

/// DynamoDB's list and map nesting limit, counting the item itself as the
/// first level (as Dynoxide, which follows AWS's captures, does: an
/// attribute may hold 31 nested lists or maps).
const MAX_NESTING: usize = 32;

/// Refuses a value DynamoDB would: numbers that are not numbers (NaN,
/// infinity), have more than 38 significant digits or are out of range, empty
/// sets, lists or maps nested deeper than 32 levels counting the item, and a
/// value larger than a whole item can be.
pub(crate) fn check_value(name: &str, value: &AttributeValue) -> Result<(), String> {
    check_value_shape(name, value)?;
    let size = crate::write::value_size(value);
    if size > crate::write::ITEM_SIZE_LIMIT {
        return Err(format!(
            "a value of attribute `{name}` is {size} bytes; a DynamoDB item holds at most {}",
            crate::write::ITEM_SIZE_LIMIT
        ));
    }
    Ok(())
}

/// [`check_value`] without the size: for a whole item, whose size is
/// checked once.
pub(crate) fn check_value_shape(name: &str, value: &AttributeValue) -> Result<(), String> {
    fn check(name: &str, value: &AttributeValue, depth: usize) -> std::result::Result<(), String> {
        match value {
            AttributeValue::N(n) => number(name, n),
            AttributeValue::Ns(ns) if ns.is_empty() => {
                Err(format!("attribute `{name}` is an empty number set"))
            }
            AttributeValue::Ns(ns) => ns.iter().try_for_each(|n| number(name, n)),
            AttributeValue::Ss(ss) if ss.is_empty() => {
                Err(format!("attribute `{name}` is an empty string set"))
            }
            AttributeValue::Bs(bs) if bs.is_empty() => {
                Err(format!("attribute `{name}` is an empty binary set"))
            }
            AttributeValue::L(_) | AttributeValue::M(_) if depth >= MAX_NESTING => Err(format!(
                "attribute `{name}` nests lists or maps deeper than {MAX_NESTING} levels"
            )),
            AttributeValue::L(items) => items.iter().try_for_each(|v| check(name, v, depth + 1)),
            AttributeValue::M(map) => map.values().try_for_each(|v| check(name, v, depth + 1)),
            _ => Ok(()),
        }
    }
    fn number(name: &str, text: &str) -> std::result::Result<(), String> {
        let invalid = || {
            format!("attribute `{name}` holds `{text}`, which DynamoDB cannot store as a number")
        };
        // An integer of at most 38 digits is within every limit: ddb's own
        // conversions of integer fields write nothing else.
        let digits = text.strip_prefix('-').unwrap_or(text);
        if (1..=38).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(());
        }
        let decimal = crate::write::Decimal::parse(text).ok_or_else(invalid)?;
        if decimal.significant == 0 {
            return Ok(()); // zero
        }
        if decimal.significant > 38 {
            return Err(format!(
                "attribute `{name}` has more than 38 significant digits"
            ));
        }
        // The decimal exponent of the first significant digit.
        let magnitude = decimal.magnitude;
        if !(-130..=125).contains(&magnitude) {
            return Err(format!(
                "attribute `{name}` is outside DynamoDB's number range"
            ));
        }
        Ok(())
    }
    check(name, value, 1)
}

/// The names and values of one request's expressions. Every value is
/// checked as it is added ([`check_value`]); the first one DynamoDB would
/// refuse is reported by [`Placeholders::check`] before the request is sent.
#[derive(Debug, Default, Clone)]
pub(crate) struct Placeholders {
    names: HashMap<String, String>,
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
        if !crate::expr_names::needs_placeholder(name) {
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
    /// as [`ExpressionTooLarge`](crate::Error::ExpressionTooLarge) if it
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
    ) -> crate::Result<String> {
        if text.len() <= EXPRESSION_LIMIT {
            return Ok(text);
        }
        let word = crate::expr_names::in_name;
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
            if !crate::expr_names::needs_placeholder(token) {
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
    pub(crate) fn check(&self, entity: &'static str) -> crate::Result<()> {
        match &self.invalid {
            Some(reason) => Err(crate::Error::InvalidValue {
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
fn numbered(sigil: &str, n: usize) -> String {
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

#[derive(Clone, PartialEq)]
enum Node {
    Compare(&'static str, &'static str, AttributeValue),
    Between(&'static str, AttributeValue, AttributeValue),
    BeginsWith(&'static str, AttributeValue),
    Contains(&'static str, AttributeValue),
    Exists(&'static str),
    NotExists(&'static str),
    Type(&'static str, &'static str),
    Size(&'static str, &'static str, u64),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    /// A value that could not be converted; reported when the request is built.
    Invalid(String),
}

/// `ttl` holds epoch seconds at or before `now`, and not more than five
/// years before (DynamoDB never deletes those, so neither does ddb treat
/// them as expired): a missing or NULL attribute (an `Option` that is `None`)
/// never expires.
fn expired(ttl: &'static str, now: i64) -> Node {
    let number = Node::Type(ttl, "N");
    let since = now - crate::timestamp::TTL_HORIZON_SECONDS;
    let passed = Node::Between(
        ttl,
        AttributeValue::N(since.to_string()),
        AttributeValue::N(now.to_string()),
    );
    Node::And(Box::new(number), Box::new(passed))
}

/// An expression whose entity type is erased: the key conditions and filters
/// the query engine sends, built from the same nodes as a [`Condition`] and
/// rendered by the same code.
#[derive(Clone)]
pub(crate) struct Expression(Node);

impl Expression {
    /// `name <op> value`.
    pub(crate) fn compare(name: &'static str, op: &'static str, value: AttributeValue) -> Self {
        Self(Node::Compare(name, op, value))
    }

    /// `begins_with(name, value)`.
    pub(crate) fn begins_with(name: &'static str, value: AttributeValue) -> Self {
        Self(Node::BeginsWith(name, value))
    }

    /// `name BETWEEN low AND high`.
    pub(crate) fn between(name: &'static str, low: AttributeValue, high: AttributeValue) -> Self {
        Self(Node::Between(name, low, high))
    }

    /// Items whose time to live `ttl` (epoch seconds) has not passed at
    /// `now`; a missing or NULL attribute never expires.
    pub(crate) fn not_expired(ttl: &'static str, now: i64) -> Self {
        Self(Node::Not(Box::new(expired(ttl, now))))
    }

    /// Both expressions.
    pub(crate) fn and(self, other: Self) -> Self {
        Self(Node::And(Box::new(self.0), Box::new(other.0)))
    }

    /// The expression text, its names and values registered in `placeholders`.
    pub(crate) fn render(&self, placeholders: &mut Placeholders) -> Result<String, String> {
        render(&self.0, placeholders)
    }

    /// `terms` joined by `AND`, without parentheses: the form a key
    /// condition takes.
    pub(crate) fn render_all(
        terms: &[Expression],
        placeholders: &mut Placeholders,
    ) -> Result<String, String> {
        let mut out = String::with_capacity(48 * terms.len());
        for (i, term) in terms.iter().enumerate() {
            if i > 0 {
                out.push_str(" AND ");
            }
            render_into(&term.0, placeholders, &mut out)?;
        }
        Ok(out)
    }
}

impl<E> From<Condition<E>> for Expression {
    fn from(condition: Condition<E>) -> Self {
        Self(condition.node)
    }
}

/// A condition on the attributes of entity `E`: a filter on a query, or the
/// condition of a write. Combine with `&`, `|` and `!`.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
/// # struct Order { customer_id: String, order_id: String, status: String, total_cents: u64 }
/// let fields = Order::fields();
/// let big_and_open = fields.total_cents.gt(10_000) & fields.status.eq("OPEN");
/// // Debug shows the shape, never the values.
/// assert_eq!(format!("{big_and_open:?}"), "Condition(total_cents > :v0 AND status = :v1)");
/// ```
pub struct Condition<E> {
    node: Node,
    entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Condition<E> {
    fn clone(&self) -> Self {
        Self::new(self.node.clone())
    }
}

impl<E> fmt::Debug for Condition<E> {
    /// Shows the shape of the condition, never the values (which may be
    /// personal data).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut placeholders = Placeholders::default();
        match self.render(&mut placeholders) {
            Ok(text) => {
                let mut text = text;
                // Longest placeholders first: `#n1` is part of `#n10`.
                let mut names: Vec<_> = placeholders.names.iter().collect();
                names.sort_by_key(|(placeholder, _)| std::cmp::Reverse(placeholder.len()));
                for (placeholder, name) in names {
                    text = text.replace(placeholder.as_str(), name);
                }
                write!(f, "Condition({text})")
            }
            Err(error) => write!(f, "Condition(invalid: {error})"),
        }
    }
}

impl<E> Condition<E> {
    fn new(node: Node) -> Self {
        Self {
            node,
            entity: PhantomData,
        }
    }

    pub(crate) fn compare_value(
        name: &'static str,
        op: &'static str,
        value: AttributeValue,
    ) -> Self {
        Self::new(Node::Compare(name, op, value))
    }

    pub(crate) fn attribute_is_number(name: &'static str) -> Self {
        Self::new(Node::Type(name, "N"))
    }

    /// The item's time to live `ttl` (epoch seconds) has passed at `now`.
    pub(crate) fn expired(ttl: &'static str, now: i64) -> Self {
        Self::new(expired(ttl, now))
    }

    pub(crate) fn attribute_exists(name: &'static str) -> Self {
        Self::new(Node::Exists(name))
    }

    pub(crate) fn attribute_not_exists(name: &'static str) -> Self {
        Self::new(Node::NotExists(name))
    }

    /// Both conditions.
    pub fn and(self, other: Self) -> Self {
        Self::new(Node::And(Box::new(self.node), Box::new(other.node)))
    }

    /// Either condition.
    pub fn or(self, other: Self) -> Self {
        Self::new(Node::Or(Box::new(self.node), Box::new(other.node)))
    }

    /// The expression text, registering names and values in `placeholders`.
    /// An error when a value could not be converted to an attribute value.
    pub(crate) fn render(&self, placeholders: &mut Placeholders) -> Result<String, String> {
        render(&self.node, placeholders)
    }
}

/// The text of a whole expression: its outermost `AND`, `OR` or `NOT`
/// without the parentheses it takes inside another (the server would parse
/// them for nothing).
fn render(node: &Node, p: &mut Placeholders) -> Result<String, String> {
    // A write's conditions run to 60-100 bytes (existence, schema version,
    // expected version): room for them at once.
    let mut out = String::with_capacity(96);
    render_bare(node, p, &mut out)?;
    Ok(out)
}

/// The text of `node`, written at the end of `out`: one buffer for the
/// whole expression, its names and values registered in `p` in the order
/// they appear.
fn render_into(node: &Node, p: &mut Placeholders, out: &mut String) -> Result<(), String> {
    match node {
        Node::Compare(name, op, value) => p.write_comparison(name, op, value.clone(), out),
        Node::Between(name, lo, hi) => {
            p.write_name(name, out);
            out.push_str(" BETWEEN ");
            p.write_value(lo.clone(), out);
            out.push_str(" AND ");
            p.write_value(hi.clone(), out);
        }
        Node::BeginsWith(name, value) => {
            p.write_call("begins_with", name, Some(value.clone()), out)
        }
        Node::Contains(name, value) => p.write_call("contains", name, Some(value.clone()), out),
        Node::Exists(name) => p.write_call("attribute_exists", name, None, out),
        Node::NotExists(name) => p.write_call("attribute_not_exists", name, None, out),
        Node::Type(name, ty) => p.write_call(
            "attribute_type",
            name,
            Some(AttributeValue::S((*ty).to_owned())),
            out,
        ),
        Node::Size(name, op, n) => {
            p.write_call("size", name, None, out);
            out.push(' ');
            out.push_str(op);
            out.push(' ');
            p.write_value(AttributeValue::N(n.to_string()), out);
        }
        Node::And(..) | Node::Or(..) | Node::Not(..) => {
            out.push('(');
            render_bare(node, p, out)?;
            out.push(')');
        }
        Node::Invalid(reason) => return Err(reason.clone()),
    }
    Ok(())
}

/// The text of `node` without the parentheses an `AND`, `OR` or `NOT` takes
/// inside another: `a AND b`, `a OR b` or `NOT a`, its operands
/// parenthesized where they are themselves connectives; any other node as
/// [`render_into`] writes it.
///
/// A chain of one connective is written flat (`a AND b AND c`, not
/// `(a AND b) AND c`): `AND` and `OR` are each associative, so the
/// parentheses change nothing but the bytes DynamoDB parses.
fn render_bare(node: &Node, p: &mut Placeholders, out: &mut String) -> Result<(), String> {
    match node {
        Node::And(a, b) | Node::Or(a, b) => {
            let and = matches!(node, Node::And(..));
            // An operand of the same connective continues the chain.
            let operand = |n: &Node, p: &mut Placeholders, out: &mut String| match n {
                Node::And(..) if and => render_bare(n, p, out),
                Node::Or(..) if !and => render_bare(n, p, out),
                _ => render_into(n, p, out),
            };
            operand(a, p, out)?;
            out.push_str(if and { " AND " } else { " OR " });
            operand(b, p, out)
        }
        Node::Not(a) => {
            out.push_str("NOT ");
            render_into(a, p, out)
        }
        _ => render_into(node, p, out),
    }
}

/// A condition written term by term, its terms joined by `AND`: a write's
/// condition (the caller's, then ddb's own terms) without a tree of nodes
/// to build, render and drop. Its text is that of the terms joined with
/// [`Condition::and`] and rendered (but for a lone `OR` or `NOT`, which
/// keeps its parentheses).
#[derive(Default)]
pub(crate) struct Conjunction {
    text: String,
    invalid: Option<String>,
}

impl Conjunction {
    /// Where the next term goes, after `AND` when one came before.
    pub(crate) fn term(&mut self) -> &mut String {
        if self.text.is_empty() {
            // A write's condition runs to 60-100 bytes.
            self.text.reserve(96);
        } else {
            self.text.push_str(" AND ");
        }
        &mut self.text
    }

    /// `condition`'s terms: an `AND` continues this chain, any other
    /// connective is one parenthesized term.
    pub(crate) fn condition<E>(&mut self, condition: &Condition<E>, p: &mut Placeholders) {
        let node = &condition.node;
        let out = self.term();
        let written = match node {
            Node::And(..) => render_bare(node, p, out),
            _ => render_into(node, p, out),
        };
        if let Err(reason) = written {
            self.invalid = self.invalid.take().or(Some(reason));
        }
    }

    /// The condition's text, `None` without terms, or the first value that
    /// could not be converted.
    pub(crate) fn finish(self) -> Result<Option<String>, String> {
        match self.invalid {
            Some(reason) => Err(reason),
            None => Ok((!self.text.is_empty()).then_some(self.text)),
        }
    }
}

impl<E> std::ops::BitAnd for Condition<E> {
    type Output = Self;
    fn bitand(self, other: Self) -> Self {
        self.and(other)
    }
}

impl<E> std::ops::BitOr for Condition<E> {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        self.or(other)
    }
}

impl<E> std::ops::Not for Condition<E> {
    type Output = Self;
    fn not(self) -> Self {
        Self::new(Node::Not(Box::new(self.node)))
    }
}

/// A value for an attribute holding a `T`: a `T`, or a `&str` for a `String`.
///
/// Unlike `Into`, it leaves an integer literal only one type to be, so
/// `fields.total_cents.gt(10_000)` needs no suffix.
pub trait IntoValue<T> {
    /// The value.
    fn into_value(self) -> T;
}

impl<T> IntoValue<T> for T {
    fn into_value(self) -> T {
        self
    }
}

impl IntoValue<String> for &str {
    fn into_value(self) -> String {
        self.to_owned()
    }
}

/// A DynamoDB attribute type, for [`Attr::has_type`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeType {
    /// String.
    S,
    /// Number.
    N,
    /// Binary.
    B,
    /// Boolean.
    Bool,
    /// Null.
    Null,
    /// List.
    L,
    /// Map.
    M,
    /// String set.
    Ss,
    /// Number set.
    Ns,
    /// Binary set.
    Bs,
}

impl AttributeType {
    fn code(self) -> &'static str {
        match self {
            AttributeType::S => "S",
            AttributeType::N => "N",
            AttributeType::B => "B",
            AttributeType::Bool => "BOOL",
            AttributeType::Null => "NULL",
            AttributeType::L => "L",
            AttributeType::M => "M",
            AttributeType::Ss => "SS",
            AttributeType::Ns => "NS",
            AttributeType::Bs => "BS",
        }
    }
}

/// Marks an attribute an update may change.
#[derive(Debug, Clone, Copy)]
pub struct Value;

/// Marks an attribute that holds a field of the primary key: it can be read
/// and compared, never updated (the key would no longer match the item).
#[derive(Debug, Clone, Copy)]
pub struct KeyPart;

/// One attribute of entity `E` holding a `T`: the typed handle conditions and
/// updates are built from. `#[derive(Entity)]` makes one per field, reached
/// through `Entity::fields()`; fields of the primary key are `Attr<E, T, KeyPart>`.
///
/// The handle carries the field's own encoder and decoder, the very code
/// `to_item` and `from_item` use: a value set by an update, compared in a
/// condition or a filter, or read back is in the form the item stores,
/// whatever the field's type and serde attributes (`with`,
/// `serialize_with`, ...).
pub struct Attr<E, T, M = Value> {
    name: &'static str,
    codec: FieldCodec<T>,
    marker: crate::Phantom<(E, M)>,
}

/// How one field is written to and read from its attribute: the code the
/// derive generates for the field, shared by every path that touches it.
pub(crate) struct FieldCodec<T> {
    /// The field's value as its stored attribute.
    pub(crate) encode: fn(&T) -> Result<AttributeValue, crate::Error>,
    /// The field from its stored attribute, or from its absence (serde's
    /// rule: `default`, `None` for an `Option`, else a missing-field error).
    pub(crate) read: fn(Option<AttributeValue>) -> Result<T, crate::Error>,
    /// Whether `to_item` leaves the value out of the item
    /// (`skip_serializing_if`).
    pub(crate) omits: fn(&T) -> bool,
}

impl<T> Clone for FieldCodec<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for FieldCodec<T> {}

impl<E, T, M> Clone for Attr<E, T, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T, M> Copy for Attr<E, T, M> {}

impl<E, T, M> fmt::Debug for Attr<E, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Attr({})", self.name)
    }
}

fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue, String> {
    serde_dynamo::to_attribute_value(value)
        .map_err(|e| format!("cannot convert a condition value: {e}"))
}

impl<E, T, M> Attr<E, T, M> {
    /// The attribute named `name` (its DynamoDB name, serde's `rename`
    /// applied), written and read by `codec`. Only `Entity::fields()` makes
    /// them, so the markers (which attributes may be updated) hold.
    pub(crate) const fn new(name: &'static str, codec: FieldCodec<T>) -> Self {
        Self {
            name,
            codec,
            marker: PhantomData,
        }
    }

    /// The attribute's DynamoDB name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// `value` as the item stores it: the field's own encoder, the one
    /// `to_item` uses.
    ///
    /// ```
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// #[ddb(table = Ecommerce, entity = "Note", pk = "NOTE#{id}")]
    /// struct Note {
    ///     id: String,
    ///     #[serde(with = "time::serde::rfc3339")]
    ///     edited_at: time::OffsetDateTime,
    /// }
    /// let t = time::macros::datetime!(2026-09-10 08:12:44 UTC);
    /// let stored = Note::fields().edited_at.to_attribute_value(&t)?;
    /// assert_eq!(stored.as_s().unwrap(), "2026-09-10T08:12:44Z");
    /// # Ok::<(), ddb_runtime::Error>(())
    /// ```
    pub fn to_attribute_value(&self, value: &T) -> Result<AttributeValue, crate::Error> {
        (self.codec.encode)(value)
    }

    /// The field's value from its stored attribute (`None`: the item does
    /// not have it), by the field's own decoder, the one `from_item` uses.
    pub fn from_attribute_value(&self, value: Option<AttributeValue>) -> Result<T, crate::Error> {
        (self.codec.read)(value)
    }

    /// Whether `to_item` leaves `value` out of the item (the field's
    /// `skip_serializing_if`): an update then removes the attribute.
    pub(crate) fn omits(&self, value: &T) -> bool {
        (self.codec.omits)(value)
    }

    fn value_of(&self, value: &T) -> Result<AttributeValue, String> {
        self.to_attribute_value(value)
            .map_err(|e| format!("cannot convert a value of `{}`: {e}", self.name))
    }

    /// `attribute_exists`.
    pub fn exists(&self) -> Condition<E> {
        Condition::new(Node::Exists(self.name))
    }

    /// `attribute_not_exists`.
    pub fn not_exists(&self) -> Condition<E> {
        Condition::new(Node::NotExists(self.name))
    }

    /// `attribute_type`.
    pub fn has_type(&self, ty: AttributeType) -> Condition<E> {
        Condition::new(Node::Type(self.name, ty.code()))
    }

    /// `size(attribute) <op> n`, with `op` one of `=`, `<>`, `<`, `<=`, `>`, `>=`.
    pub fn size(&self, op: Comparison, n: u64) -> Condition<E> {
        Condition::new(Node::Size(self.name, op.symbol(), n))
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparison {
    fn symbol(self) -> &'static str {
        match self {
            Comparison::Eq => "=",
            Comparison::Ne => "<>",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
        }
    }
}

impl<E, T, M> Attr<E, T, M> {
    fn compare(&self, op: Comparison, value: &T) -> Condition<E> {
        Condition::new(match self.value_of(value) {
            Ok(value) => Node::Compare(self.name, op.symbol(), value),
            Err(reason) => Node::Invalid(reason),
        })
    }

    /// `attribute = value`
    pub fn eq(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Eq, &value.into_value())
    }
    /// `attribute <> value`
    pub fn ne(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Ne, &value.into_value())
    }
    /// `attribute < value`
    pub fn lt(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Lt, &value.into_value())
    }
    /// `attribute <= value`
    pub fn le(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Le, &value.into_value())
    }
    /// `attribute > value`
    pub fn gt(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Gt, &value.into_value())
    }
    /// `attribute >= value`
    pub fn ge(&self, value: impl IntoValue<T>) -> Condition<E> {
        self.compare(Comparison::Ge, &value.into_value())
    }
    /// `attribute BETWEEN low AND high` (inclusive).
    pub fn between(&self, low: impl IntoValue<T>, high: impl IntoValue<T>) -> Condition<E> {
        Condition::new(
            match (
                self.value_of(&low.into_value()),
                self.value_of(&high.into_value()),
            ) {
                (Ok(low), Ok(high)) => Node::Between(self.name, low, high),
                (Err(reason), _) | (_, Err(reason)) => Node::Invalid(reason),
            },
        )
    }
}

impl<E, T, M> Attr<E, T, M> {
    /// `begins_with(attribute, prefix)`: the stored string starts with
    /// `prefix` (false for an attribute that is not a string).
    pub fn begins_with(&self, prefix: &str) -> Condition<E> {
        Condition::new(Node::BeginsWith(
            self.name,
            AttributeValue::S(prefix.to_owned()),
        ))
    }
}

impl<E, T, M> Attr<E, T, M> {
    /// `contains(attribute, value)`: a substring of a string, or an element of
    /// a set or list.
    pub fn contains<V: Serialize + ?Sized>(&self, value: &V) -> Condition<E> {
        Condition::new(match to_value(value) {
            Ok(value) => Node::Contains(self.name, value),
            Err(reason) => Node::Invalid(reason),
        })
    }
}

#[cfg(test)]
impl<E, T: Serialize + serde::de::DeserializeOwned, M> Attr<E, T, M> {
    /// An attribute converted by serde_dynamo, for tests of expressions.
    fn serde(name: &'static str) -> Self {
        Self::new(
            name,
            FieldCodec {
                encode: |value| {
                    serde_dynamo::to_attribute_value(value).map_err(|source| crate::Error::Encode {
                        entity: "test",
                        source,
                    })
                },
                read: |value| {
                    serde_dynamo::from_attribute_value(value.unwrap_or(AttributeValue::Null(true)))
                        .map_err(|source| crate::Error::Decode {
                            entity: "test",
                            key: None,
                            source,
                        })
                },
                omits: |_| false,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Order;

    #[test]
    fn renders_values_through_placeholders_and_names_only_when_needed() {
        let status: Attr<Order, String> = Attr::serde("status");
        let total: Attr<Order, u64> = Attr::serde("total_cents");
        let condition = (status.eq("OPEN") | status.eq("SHIPPED"))
            & !total.between(1u64, 9u64)
            & status.exists();
        let mut p = Placeholders::default();
        let text = condition.render(&mut p).unwrap();
        assert_eq!(
            text,
            "(#n0 = :v0 OR #n0 = :v1) AND (NOT total_cents BETWEEN :v2 AND :v3) AND attribute_exists(#n0)"
        );
        let (names, values) = p.into_maps();
        let names = names.unwrap();
        assert_eq!(names["#n0"], "status");
        assert_eq!(names.len(), 1);
        assert_eq!(values.unwrap()[":v1"], AttributeValue::S("SHIPPED".into()));
        assert!(!format!("{condition:?}").contains("SHIPPED"));
    }

    #[test]
    fn a_chain_of_one_connective_is_flat_and_a_mixed_one_keeps_its_grouping() {
        let a: Attr<Order, u64> = Attr::serde("a");
        let b: Attr<Order, u64> = Attr::serde("b");
        let c: Attr<Order, u64> = Attr::serde("c");
        let text =
            |condition: Condition<Order>| condition.render(&mut Placeholders::default()).unwrap();
        let (x, y, z) = (|| a.exists(), || b.exists(), || c.exists());
        assert_eq!(
            text(x() & (y() & z())),
            "attribute_exists(a) AND attribute_exists(b) AND attribute_exists(c)"
        );
        assert_eq!(
            text((x() | y()) | z()),
            "attribute_exists(a) OR attribute_exists(b) OR attribute_exists(c)"
        );
        assert_eq!(
            text((x() & y()) | z()),
            "(attribute_exists(a) AND attribute_exists(b)) OR attribute_exists(c)"
        );
        assert_eq!(
            text(x() & (y() | z())),
            "attribute_exists(a) AND (attribute_exists(b) OR attribute_exists(c))"
        );
        assert_eq!(
            text(!(x() & y()) & z()),
            "(NOT (attribute_exists(a) AND attribute_exists(b))) AND attribute_exists(c)"
        );
    }

    #[test]
    fn placeholders_are_numbered_in_decimal() {
        for n in [0, 7, 9, 10, 11, 99, 100, 1234, usize::MAX] {
            assert_eq!(numbered("#n", n), format!("#n{n}"));
            assert_eq!(numbered(":v", n), format!(":v{n}"));
        }
    }

    /// A condition written term by term reads as the same terms joined
    /// with `and` and rendered, its placeholders numbered alike: an `AND`
    /// chain continues the conjunction, any other connective is one
    /// parenthesized term.
    #[test]
    fn a_conjunction_reads_as_its_terms_joined_with_and() {
        let a: Attr<Order, u64> = Attr::serde("a");
        let status: Attr<Order, String> = Attr::serde("status");
        let callers = [
            a.gt(1u64),
            a.gt(1u64) & status.eq("OPEN"),
            a.gt(1u64) | status.eq("OPEN"),
            !(a.gt(1u64) & status.exists()),
            (a.gt(1u64) | a.lt(0u64)) & (status.eq("OPEN") & a.exists()),
        ];
        for caller in callers {
            let joined = caller.clone()
                & Condition::attribute_exists("PK")
                & Condition::compare_value("status", "=", AttributeValue::N("2".into()));
            let mut expected = Placeholders::default();
            let expected_text = joined.render(&mut expected).unwrap();

            let mut p = Placeholders::default();
            let mut conjunction = Conjunction::default();
            conjunction.condition(&caller, &mut p);
            p.write_call("attribute_exists", "PK", None, conjunction.term());
            p.write_comparison(
                "status",
                "=",
                AttributeValue::N("2".into()),
                conjunction.term(),
            );
            assert_eq!(conjunction.finish().unwrap().unwrap(), expected_text);
            assert_eq!(p.into_maps(), expected.into_maps());
        }
        assert_eq!(Conjunction::default().finish(), Ok(None));
        let mut invalid = Conjunction::default();
        let mut p = Placeholders::default();
        invalid.condition(&Condition::<Order>::new(Node::Invalid("no".into())), &mut p);
        p.write_call("attribute_exists", "PK", None, invalid.term());
        assert_eq!(invalid.finish(), Err("no".to_string()));
    }

    /// A condition's Debug names each attribute, with ten placeholders or
    /// more (`#n1` is part of `#n10`).
    #[test]
    fn debug_names_attributes_past_ten_placeholders() {
        let names: Vec<&'static str> = (0..12u8)
            .map(|i| &*Box::leak(format!("_field_{}", char::from(b'a' + i)).into_boxed_str()))
            .collect();
        let mut condition = Attr::<Order, u64>::serde(names[0]).exists();
        for name in &names[1..] {
            condition = condition & Attr::<Order, u64>::serde(name).exists();
        }
        let shown = format!("{condition:?}");
        for name in &names {
            assert!(
                shown.contains(&format!("attribute_exists({name})")),
                "{shown}"
            );
        }
        assert!(!shown.contains('#'), "{shown}");
    }

    /// An expression that fits with its names written as they are stays so;
    /// one that does not fit gets placeholders for them instead, functions
    /// and keywords untouched, and is refused only if it still does not fit.
    #[test]
    fn an_expression_too_long_with_names_as_they_are_takes_placeholders() {
        let long: &'static str = Box::leak("long_attribute_name_".repeat(10).into_boxed_str());
        let status: Attr<Order, String> = Attr::serde("status");
        let total: Attr<Order, u64> = Attr::serde(long);
        let mut condition = status.exists() & total.gt(0u64);
        let mut p = Placeholders::default();
        let short = condition.render(&mut p).unwrap();
        assert_eq!(p.fit("Order", "condition", short.clone()).unwrap(), short);

        for n in 1..30u64 {
            condition = condition & (total.between(n, n + 1) | total.exists());
        }
        let mut p = Placeholders::default();
        let text = condition.render(&mut p).unwrap();
        assert!(text.len() > EXPRESSION_LIMIT && text.contains(long));
        let fitted = p.fit("Order", "condition", text.clone()).unwrap();
        assert!(fitted.len() <= EXPRESSION_LIMIT, "{}", fitted.len());
        assert!(!fitted.contains(long));
        assert_eq!(
            fitted,
            text.replace(long, "#n1"),
            "only the long name changes"
        );
        let (names, values) = p.into_maps();
        let names = names.unwrap();
        assert_eq!(
            (names["#n0"].as_str(), names["#n1"].as_str()),
            ("status", long)
        );
        assert_eq!(values.unwrap().len(), 1 + 29 * 2);

        // Over the limit even with placeholders: refused, typed.
        for n in 0..200u64 {
            condition = condition & total.between(n, n + 1);
        }
        let mut p = Placeholders::default();
        let text = condition.render(&mut p).unwrap();
        assert!(matches!(
            p.fit("Order", "condition", text),
            Err(crate::Error::ExpressionTooLarge { .. })
        ));
    }
}
