//! The policy builder: the entities and accesses asked, the scope, and what
//! the statements let callers do beyond them, which the policy names.

use serde_json::json;

use ddb_runtime::model::EntitySchema;

use super::check::{self, check_size, PolicyError};
use super::policy::{document_size, Policy};
use super::scope::{any_key, leading_key, Access, Scope, ScopeValue};
use super::statement::{unique_sids, Grants};

/// Builds the policy for the entities of one table.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// use ddb_tools::iam::{Access, PolicyBuilder};
/// use ddb_runtime::Entity;
/// let policy = PolicyBuilder::new("arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce")
///     .entity(&Customer::SCHEMA, Access::ReadWrite)
///     .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
///     .build()?;
/// let statement = &policy.document["Statement"][0];
/// assert_eq!(
///     statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0],
///     "CUSTOMER#${aws:PrincipalTag/customer_id}"
/// );
/// # Ok::<(), ddb_tools::iam::PolicyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PolicyBuilder {
    table_arn: String,
    entities: Vec<(&'static EntitySchema, Access)>,
    scope: Option<Scope>,
}

impl PolicyBuilder {
    /// A policy on the table `table_arn`
    /// (`arn:aws:dynamodb:<region>:<account>:table/<name>`).
    pub fn new(table_arn: impl Into<String>) -> Self {
        PolicyBuilder {
            table_arn: table_arn.into(),
            entities: Vec::new(),
            scope: None,
        }
    }

    /// Grants `access` to `entity`'s items and access patterns.
    pub fn entity(mut self, entity: &'static EntitySchema, access: Access) -> Self {
        self.entities.push((entity, access));
        self
    }

    /// Scopes every grant to the partitions whose key holds `value` for
    /// `field`: a policy variable (`"${aws:PrincipalTag/customer_id}"`) or
    /// a fixed value (see [`ScopeValue`]).
    pub fn scoped_to(mut self, field: &'static str, value: impl Into<ScopeValue>) -> Self {
        self.scope = Some(Scope {
            field,
            value: value.into(),
        });
        self
    }

    /// The policy document, one statement per entity and access, and one
    /// per index an access pattern queries.
    ///
    /// Refused ([`PolicyError`]) when it cannot grant what was asked: no
    /// entity, entities of two tables, a scope that grants nothing (its
    /// field in no entity's table partition key), or a document with a
    /// character IAM does not take.
    pub fn build(&self) -> Result<Policy, PolicyError> {
        check::check_input(&self.entities)?;
        let mut statements = Vec::new();
        let mut left_out = Vec::new();
        let grants = Grants {
            table_arn: &self.table_arn,
            scope: self.scope.as_ref(),
        };
        for (entity, access) in &self.entities {
            grants.grant(entity, *access, &mut statements, &mut left_out);
        }
        check::check_granted(&statements, self.scope.as_ref())?;
        left_out.extend(self.writable_read_only());
        left_out.extend(self.readable_beyond());
        unique_sids(&mut statements);
        check::check_characters(&statements)?;
        let document = json!({ "Version": "2012-10-17", "Statement": statements });
        check_size(document_size(&document))?;
        Ok(Policy { document, left_out })
    }

    /// The read-only entities a writer's statement lets be written all the
    /// same: those in the writer's partitions (every partition of the
    /// table when unscoped), which IAM cannot tell apart.
    fn writable_read_only(&self) -> Vec<String> {
        let writers = self
            .entities
            .iter()
            .filter(|(_, a)| *a == Access::ReadWrite);
        let readers = self.entities.iter().filter(|(_, a)| *a == Access::Read);
        let mut notes = Vec::new();
        for (reader, _) in readers {
            let sharing = writers
                .clone()
                .filter(|(writer, _)| self.share_partitions(reader, writer))
                .map(|(writer, _)| writer.rust_name)
                .collect::<Vec<_>>();
            if sharing.is_empty() {
                continue;
            }
            // Unscoped, a write statement covers every key: only a table
            // of its own keeps the entity read-only.
            let (space, remedy) = match &self.scope {
                Some(_) => (
                    "partitions",
                    "a table of its own, or a partition-key prefix no writer's scope matches",
                ),
                None => ("table", "a table of its own"),
            };
            notes.push(format!(
                "{}: declared read-only, but the write statements of {} cover its {space}, \
                 and IAM cannot tell entities apart inside a partition: it can be written. \
                 Keep it read-only with {remedy}",
                reader.rust_name,
                sharing.join(", ")
            ));
        }
        notes
    }

    /// What the statements let be read beyond the entities they name:
    /// every item of the caller's partitions when scoped, whichever entity
    /// stored it; every item of the table when unscoped, naming the table's
    /// other declared entities (scoped, a declaration names no entity's
    /// partitions, so none is named).
    fn readable_beyond(&self) -> Option<String> {
        let (first, _) = self.entities.first()?;
        let granted: Vec<&str> = self.entities.iter().map(|(e, _)| e.rust_name).collect();
        let (space, declared) = match &self.scope {
            Some(_) => ("the caller's partitions", &[][..]),
            None => ("the table", first.table.entities.unwrap_or_default()),
        };
        let others: Vec<&str> = declared
            .iter()
            .copied()
            .filter(|name| !granted.contains(name))
            .collect();
        let including = match others.as_slice() {
            [] => String::new(),
            names => format!(
                ", including those of {}, which this policy does not name",
                names.join(", ")
            ),
        };
        Some(format!(
            "the read statements cover every item in {space}{including}: IAM cannot tell \
             entities apart inside a partition. Store what a caller must not read in a table \
             of its own"
        ))
    }

    /// Whether a statement of `writer` can match an item of `reader`:
    /// always when unscoped (both cover the whole table); scoped, when one's
    /// pattern can match a key of the other's (compared up to the first
    /// wildcard, which errs toward saying they share).
    fn share_partitions(&self, reader: &EntitySchema, writer: &EntitySchema) -> bool {
        let Some(scope) = &self.scope else {
            return true;
        };
        // The literal text before the first wildcard of a pattern: two
        // patterns can match one key only if one's is a prefix of the
        // other's. A reader the scope cannot grant is matched by its
        // template with every field a wildcard: a writer's scoped statement
        // reaches it when its key text can match.
        let prefix = |pattern: String| {
            let wildcard = ["*", "?", "${"]
                .iter()
                .filter_map(|w| pattern.find(w))
                .min();
            pattern[..wildcard.unwrap_or(pattern.len())].to_owned()
        };
        let template = &reader.keys[0].pk;
        let reader_pattern = leading_key(template, scope)
            .map(|(pattern, _)| pattern)
            .unwrap_or_else(|| any_key(template));
        match leading_key(&writer.keys[0].pk, scope) {
            Some((writer_pattern, _)) => {
                let (r, w) = (prefix(reader_pattern), prefix(writer_pattern));
                r.starts_with(&w) || w.starts_with(&r)
            }
            // A writer the scope cannot grant has no statement.
            None => false,
        }
    }
}
