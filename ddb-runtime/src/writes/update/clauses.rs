//! The clauses of an update expression (`SET`, `REMOVE`, `ADD`, `DELETE`).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expression::Placeholders;

/// The actions of one clause of an update expression (`SET`, `REMOVE`,
/// `ADD`, `DELETE`), comma-separated, each placeholder written straight
/// into it.
#[derive(Default)]
pub(crate) struct ClauseActions(pub(super) String);

impl ClauseActions {
    /// Whether the clause has no action.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Where the next action goes, after a separator when one came before.
    pub(super) fn next(&mut self) -> &mut String {
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
    pub(super) fn pair(&mut self, p: &mut Placeholders, attribute: &str, value: AttributeValue) {
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
    pub(super) fn keyword(keyword: &str, expression: &mut String) {
        if !expression.is_empty() {
            expression.push(' ');
        }
        expression.push_str(keyword);
        expression.push(' ');
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
