//! An entity's keys as `#[derive(Entity)]` declares them: the key templates
//! and their parts, the keys of the table and its indexes, sparse indexes'
//! membership rules, and multi-attribute keys.

use super::attribute::str_eq;

/// One piece of a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Literal text, e.g. `"ORDER#"`.
    Literal(&'static str),
    /// A `{field}`: the Rust field name.
    Field(&'static str),
}

/// A parsed key template such as `ORDER#{placed_at}#{order_id}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// The template as written.
    pub source: &'static str,
    /// Its literal and field parts, in order.
    pub parts: &'static [Part],
}

impl Template {
    /// The fields the template reads, in order (a field read twice comes
    /// twice).
    pub(crate) fn fields(&self) -> impl Iterator<Item = &'static str> + 'static {
        let parts: &'static [Part] = self.parts;
        parts.iter().filter_map(|part| match part {
            Part::Field(field) => Some(*field),
            Part::Literal(_) => None,
        })
    }

    /// The literal text before the first field (`"ORDER#"`), or the whole
    /// template when it has no field (`"PROFILE"`).
    ///
    /// ```
    /// use ddb_runtime::model::{Part, Template};
    /// const T: Template = Template {
    ///     source: "ORDER#{placed_at}",
    ///     parts: &[Part::Literal("ORDER#"), Part::Field("placed_at")],
    /// };
    /// assert_eq!(T.literal_prefix(), "ORDER#");
    /// ```
    pub const fn literal_prefix(&self) -> &'static str {
        match self.parts.first() {
            Some(Part::Literal(text)) => text,
            _ => "",
        }
    }

    /// Whether the template has no field at all (a constant key such as `PROFILE`).
    pub const fn is_constant(&self) -> bool {
        let mut i = 0;
        while i < self.parts.len() {
            if let Part::Field(_) = self.parts[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether the template is exactly one field (`"{customer_id}"`): a raw key.
    pub const fn is_single_field(&self) -> bool {
        matches!(self.parts, [Part::Field(_)])
    }
}

/// One key of an entity: the primary key or an index's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyDef {
    /// `None` for the table's primary key, else the index name.
    pub index: Option<&'static str>,
    /// The partition key template.
    pub pk: Template,
    /// The sort key template, if any.
    pub sk: Option<Template>,
    /// The name of the typed query entry point, if declared.
    pub query: Option<&'static str>,
    /// Write shards of the partition key (1 means not sharded).
    pub shards: u16,
    /// For a sparse index, the rule that decides which items it holds.
    pub membership: Option<Membership>,
}

impl KeyDef {
    /// Whether the key is built from (or its membership rule reads) the
    /// Rust field `field`.
    pub const fn reads(&self, field: &str) -> bool {
        const fn in_template(template: &Template, field: &str) -> bool {
            let mut p = 0;
            while p < template.parts.len() {
                if let Part::Field(name) = template.parts[p] {
                    if str_eq(name, field) {
                        return true;
                    }
                }
                p += 1;
            }
            false
        }
        if in_template(&self.pk, field) {
            return true;
        }
        if let Some(sk) = &self.sk {
            if in_template(sk, field) {
                return true;
            }
        }
        if let Some(membership) = &self.membership {
            let mut r = 0;
            while r < membership.reads.len() {
                if str_eq(membership.reads[r], field) {
                    return true;
                }
                r += 1;
            }
        }
        false
    }

    /// The Rust fields the key is built from: its templates' fields, then
    /// those its membership rule reads, each once.
    ///
    /// ```
    /// use ddb_runtime::model::{KeyDef, Membership, Part, Template};
    /// let open_orders = KeyDef {
    ///     index: Some("GSI2"),
    ///     pk: Template {
    ///         source: "STATUS#{status}",
    ///         parts: &[Part::Literal("STATUS#"), Part::Field("status")],
    ///     },
    ///     sk: Some(Template {
    ///         source: "{placed_at}#{order_id}",
    ///         parts: &[Part::Field("placed_at"), Part::Literal("#"), Part::Field("order_id")],
    ///     }),
    ///     query: None,
    ///     shards: 1,
    ///     membership: Some(Membership { reads: &["status", "total"], evaluable: true }),
    /// };
    /// assert_eq!(open_orders.input_fields(), ["status", "placed_at", "order_id", "total"]);
    /// ```
    pub fn input_fields(&self) -> Vec<&'static str> {
        let mut fields: Vec<&'static str> = Vec::new();
        for field in self.inputs() {
            if !fields.contains(&field) {
                fields.push(field);
            }
        }
        fields
    }

    /// [`input_fields`](Self::input_fields) without collecting them: a
    /// field read twice comes twice.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = &'static str> + '_ {
        let templates = std::iter::once(&self.pk).chain(self.sk.iter());
        let from_templates = templates.flat_map(Template::fields);
        let reads = self.membership.iter().flat_map(|m| m.reads.iter().copied());
        from_templates.chain(reads)
    }
}

/// Which items a sparse index holds: declared with
/// `index(..., when(status = OrderStatus::Open))` (also `!=` and `in [..]`),
/// or `when(Order::is_open, reads(status))` for a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Membership {
    /// The Rust fields the rule reads.
    pub reads: &'static [&'static str],
    /// Whether ddb can evaluate the rule from those fields alone (a
    /// comparison); a function needs the whole item, so an update that
    /// changes what it reads reads the item first.
    pub evaluable: bool,
}

/// A global index keyed by the entity's own attributes, declared with
/// `index(name = "...", pk(customer_id, status), sk(placed_at, order_id))`:
/// DynamoDB's multi-attribute keys (up to four attributes a side). ddb writes
/// no key attribute for it; DynamoDB indexes the item from the fields
/// themselves, and leaves out an item that lacks one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiAttributeKey {
    /// The index name, declared on the table.
    pub index: &'static str,
    /// The Rust fields of the partition key, in the index's order.
    pub pk: &'static [&'static str],
    /// The Rust fields of the sort key, in the index's order.
    pub sk: &'static [&'static str],
    /// The generated query entry point, if any.
    pub query: Option<&'static str>,
}
