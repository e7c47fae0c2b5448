//! The expression tree and its text: conditions, filters and key conditions
//! rendered into one buffer, values and names registered as they appear.

use aws_sdk_dynamodb::types::AttributeValue;

use super::placeholders::Placeholders;
use super::Condition;

#[derive(Clone, PartialEq)]
pub(super) enum Node {
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
pub(super) fn expired(ttl: &'static str, now: i64) -> Node {
    let number = Node::Type(ttl, "N");
    let since = now - crate::item::timestamp::TTL_HORIZON_SECONDS;
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

    /// Either expression.
    pub(crate) fn or(self, other: Self) -> Self {
        Self(Node::Or(Box::new(self.0), Box::new(other.0)))
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

/// The text of a whole expression: its outermost `AND`, `OR` or `NOT`
/// without the parentheses it takes inside another (the server would parse
/// them for nothing).
pub(super) fn render(node: &Node, p: &mut Placeholders) -> Result<String, String> {
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
