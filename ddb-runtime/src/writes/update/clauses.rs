//! The clauses of an update expression (`SET`, `REMOVE`, `ADD`, `DELETE`):
//! each action as DynamoDB reads it, and the expression they make.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expression::Placeholders;
use crate::keys::key::KeyValue;

use super::Op;

/// The actions of one clause of an update expression (`SET`, `REMOVE`,
/// `ADD`, `DELETE`), comma-separated, each placeholder written straight
/// into it.
#[derive(Default)]
pub(crate) struct ClauseActions(String);

impl ClauseActions {
    /// Whether the clause has no action.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Where the next action goes, after a separator when one came before.
    fn next(&mut self) -> &mut String {
        if self.0.is_empty() {
            // Room for a few actions: the string does not grow a step at a
            // time from nothing.
            self.0.reserve(64);
        } else {
            self.0.push_str(", ");
        }
        &mut self.0
    }

    /// `#name` (REMOVE).
    pub(crate) fn name(&mut self, p: &mut Placeholders, attribute: &str) {
        p.write_name(attribute, self.next());
    }

    /// `#name = :value` (SET).
    pub(crate) fn assign(&mut self, p: &mut Placeholders, attribute: &str, value: AttributeValue) {
        let out = self.next();
        p.write_name(attribute, out);
        out.push_str(" = ");
        p.write_value(value, out);
    }

    /// `#name :value` (ADD, DELETE).
    fn pair(&mut self, p: &mut Placeholders, attribute: &str, value: AttributeValue) {
        let out = self.next();
        p.write_name(attribute, out);
        out.push(' ');
        p.write_value(value, out);
    }

    /// `KEYWORD` and the actions at the end of `expression`, when there are
    /// any.
    pub(crate) fn close(self, keyword: &str, expression: &mut String) {
        if !self.0.is_empty() {
            Self::keyword(keyword, expression);
            expression.push_str(&self.0);
        }
    }

    /// `KEYWORD ` at the end of `expression`, after a space when a clause
    /// came before.
    fn keyword(keyword: &str, expression: &mut String) {
        if !expression.is_empty() {
            expression.push(' ');
        }
        expression.push_str(keyword);
        expression.push(' ');
    }
}

/// An update expression as its plan writes it: the SET, ADD and DELETE
/// lists written as they grow, each placeholder straight into its list;
/// REMOVE keeps its names apart, to drop those another index SETs.
#[derive(Default)]
pub(super) struct UpdateClauses {
    sets: ClauseActions,
    removes: Vec<(&'static str, String)>,
    adds: ClauseActions,
    deletes: ClauseActions,
    /// The index attributes SET.
    index_set: Vec<&'static str>,
}

impl UpdateClauses {
    /// The clauses of the caller's changes.
    pub(super) fn of_changes(ops: &[Op], p: &mut Placeholders) -> Self {
        let mut clauses = Self::default();
        for op in ops {
            match op {
                Op::Set(a, v) => clauses.sets.assign(p, a, v.clone()),
                Op::Remove(a) => clauses.remove(p, a),
                Op::Add(a, v) => clauses.adds.pair(p, a, v.clone()),
                Op::Append(a, v) => clauses.append(p, a, v.clone()),
                Op::DeleteFromSet(a, v) => clauses.deletes.pair(p, a, v.clone()),
            }
        }
        clauses
    }

    /// `SET #name = :value`.
    pub(super) fn set(&mut self, p: &mut Placeholders, attribute: &str, value: AttributeValue) {
        self.sets.assign(p, attribute, value);
    }

    /// `SET #name = if_not_exists(#name, :value)`.
    pub(super) fn set_if_not_exists(
        &mut self,
        p: &mut Placeholders,
        attribute: &str,
        value: AttributeValue,
    ) {
        let name = p.name(attribute);
        let out = self.sets.next();
        let _ = write!(out, "{name} = if_not_exists({name}, ");
        p.write_value(value, out);
        out.push(')');
    }

    /// `SET #name = list_append(if_not_exists(#name, :empty), :items)`.
    fn append(&mut self, p: &mut Placeholders, attribute: &str, items: AttributeValue) {
        let name = p.name(attribute);
        let empty = p.value(AttributeValue::L(Vec::new()));
        let out = self.sets.next();
        let _ = write!(out, "{name} = list_append(if_not_exists({name}, {empty}), ");
        p.write_value(items, out);
        out.push(')');
    }

    /// `REMOVE #name`.
    pub(super) fn remove(&mut self, p: &mut Placeholders, attribute: &'static str) {
        self.removes.push((attribute, p.name(attribute)));
    }

    /// `SET #name = :value` of an index attribute, unless an index SETs it
    /// already.
    pub(super) fn set_index_attribute(
        &mut self,
        p: &mut Placeholders,
        attribute: &'static str,
        value: &KeyValue,
    ) {
        if !self.index_set.contains(&attribute) {
            self.index_set.push(attribute);
            self.sets.assign(p, attribute, value.to_attribute_value());
        }
    }

    /// `SET #version = :value`.
    pub(super) fn set_version(
        &mut self,
        p: &mut Placeholders,
        version: &str,
        value: AttributeValue,
    ) {
        let name = p.name(version);
        let out = self.sets.next();
        out.push_str(&name);
        out.push_str(" = ");
        p.write_value(value, out);
    }

    /// `ADD #version :1`.
    pub(super) fn add_one(&mut self, p: &mut Placeholders, version: &str) {
        let name = p.name(version);
        let out = self.adds.next();
        out.push_str(&name);
        out.push(' ');
        p.write_value(AttributeValue::N("1".into()), out);
    }

    /// The update expression, each clause after its keyword. An attribute
    /// one index SETs is not REMOVEd for another, nor REMOVEd twice.
    pub(super) fn into_expression(mut self) -> String {
        let mut i = 0;
        while i < self.removes.len() {
            let (attribute, _) = self.removes[i];
            if self.index_set.contains(&attribute)
                || self.removes[..i].iter().any(|(a, _)| *a == attribute)
            {
                self.removes.remove(i);
            } else {
                i += 1;
            }
        }
        let clauses = [&self.sets, &self.adds, &self.deletes]
            .map(|c| c.0.len())
            .iter()
            .sum::<usize>();
        let removing = self.removes.iter().map(|(_, r)| r.len() + 2).sum::<usize>();
        let mut expression = String::with_capacity(clauses + removing + 28);
        self.sets.close("SET", &mut expression);
        for (i, (_, name)) in self.removes.iter().enumerate() {
            match i {
                0 => ClauseActions::keyword("REMOVE", &mut expression),
                _ => expression.push_str(", "),
            }
            expression.push_str(name);
        }
        self.adds.close("ADD", &mut expression);
        self.deletes.close("DELETE", &mut expression);
        expression
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clauses of an update expression, as an update and a backfill
    /// write them: each keyword once, before its actions, a space between
    /// clauses, and a placeholder for a name DynamoDB reserves.
    #[test]
    fn clauses_are_written_keyword_first_and_space_separated() {
        let text = |set: &[&str], remove: &[&str]| {
            let mut p = Placeholders::default();
            let (mut sets, mut removes) = (ClauseActions::default(), ClauseActions::default());
            for a in set {
                sets.assign(&mut p, a, AttributeValue::S("x".into()));
            }
            for a in remove {
                removes.name(&mut p, a);
            }
            let mut expression = String::new();
            sets.close("SET", &mut expression);
            removes.close("REMOVE", &mut expression);
            expression
        };
        assert_eq!(text(&["a", "b"], &[]), "SET a = :v0, b = :v1");
        assert_eq!(text(&[], &["c", "status"]), "REMOVE c, #n0");
        assert_eq!(
            text(&["a", "b"], &["c", "d"]),
            "SET a = :v0, b = :v1 REMOVE c, d"
        );
        assert_eq!(text(&[], &[]), "");
    }
}
