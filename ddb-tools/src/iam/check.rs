//! What makes a policy one IAM takes and one that grants what was asked:
//! the builder's input, checked before the document is written, and the
//! document's characters, checked after.

use serde_json::Value;

use ddb_runtime::model::EntitySchema;

use super::scope::{Access, Scope};

/// Why a policy was not built: what was asked cannot be granted right, or
/// the document would not be one IAM takes. Each says what to change.
///
/// ```
/// use ddb_tools::iam::{PolicyBuilder, PolicyError};
/// let refused = PolicyBuilder::new("arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce")
///     .build()
///     .unwrap_err();
/// assert_eq!(refused, PolicyError::NoEntity);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// No entity was granted: the policy would grant nothing.
    #[error("the policy grants no entity: add one with `PolicyBuilder::entity`")]
    NoEntity,
    /// An entity is stored in another table than the first entity's, and
    /// the policy's statements name one table ARN.
    #[error(
        "{entity} is stored in table {table}, the policy's first entity in {policy_table}: \
         build one policy per table, each with its table's ARN"
    )]
    OtherTable {
        /// The entity (its Rust name).
        entity: &'static str,
        /// Its table's declared name.
        table: &'static str,
        /// The declared name of the first entity's table.
        policy_table: &'static str,
    },
    /// No granted entity's table partition key holds the scope's field
    /// (or no entity has a field of that name): the policy would grant
    /// nothing.
    #[error(
        "the scope on `{field}` grants nothing: no entity of the policy has it in its table \
         partition key, the only key dynamodb:LeadingKeys constrains; scope to a field of one, \
         named as the Rust field is"
    )]
    ScopeGrantsNothing {
        /// The field the scope names.
        field: &'static str,
    },
    /// The document would hold a character IAM does not take (IAM takes
    /// tab, line feed, carriage return and U+0020 to U+00FF).
    #[error(
        "statement {statement} would hold U+{code:04X}, which IAM policies cannot hold \
         (they take tab, line feed, carriage return and U+0020 to U+00FF): use a scope \
         value, and names, within those",
        code = u32::from(*character)
    )]
    Character {
        /// The character.
        character: char,
        /// The statement's Sid.
        statement: String,
    },
    /// The document would be larger than any IAM identity takes: `limit`
    /// ([`ROLE_INLINE_POLICY_LIMIT`]) characters, white space between
    /// tokens not counted.
    #[error(
        "the policy would be {size} characters, more than the {limit} IAM takes in any policy \
         (a role's inline policies; a managed policy takes {MANAGED_POLICY_LIMIT}): build one \
         policy per group of entities"
    )]
    TooLarge {
        /// The document's size, as IAM counts it ([`Policy::size`](super::Policy::size)).
        size: usize,
        /// The most IAM takes.
        limit: usize,
    },
}

/// The most characters a managed policy holds, white space between tokens
/// not counted (IAM's quotas). A policy larger than this can only be attached
/// inline to a role.
///
/// ```
/// assert_eq!(ddb_tools::iam::MANAGED_POLICY_LIMIT, 6_144);
/// ```
pub const MANAGED_POLICY_LIMIT: usize = 6_144;

/// The most characters a role's inline policies hold together, white space
/// between tokens not counted (IAM's quotas): the largest policy any IAM
/// identity takes, and the most [`PolicyBuilder::build`](super::PolicyBuilder::build)
/// builds. A user's inline policies hold 2,048, a group's 5,120.
///
/// ```
/// assert_eq!(ddb_tools::iam::ROLE_INLINE_POLICY_LIMIT, 10_240);
/// ```
pub const ROLE_INLINE_POLICY_LIMIT: usize = 10_240;

/// Refuses a document larger than any IAM identity takes.
pub(crate) fn check_size(size: usize) -> Result<(), PolicyError> {
    if size > ROLE_INLINE_POLICY_LIMIT {
        return Err(PolicyError::TooLarge {
            size,
            limit: ROLE_INLINE_POLICY_LIMIT,
        });
    }
    Ok(())
}

/// Refuses what the builder cannot grant right: no entity, entities of two
/// tables.
pub(super) fn check_input(entities: &[(&'static EntitySchema, Access)]) -> Result<(), PolicyError> {
    let Some((first, _)) = entities.first() else {
        return Err(PolicyError::NoEntity);
    };
    let policy_table = first.table.name;
    if let Some((other, _)) = entities.iter().find(|(e, _)| e.table.name != policy_table) {
        return Err(PolicyError::OtherTable {
            entity: other.rust_name,
            table: other.table.name,
            policy_table,
        });
    }
    Ok(())
}

/// Refuses a scoped policy of no statement: its scope's field is in no
/// entity's table partition key. (An unscoped policy grants every entity.)
pub(super) fn check_granted(
    statements: &[Value],
    scope: Option<&Scope>,
) -> Result<(), PolicyError> {
    match scope {
        Some(scope) if statements.is_empty() => {
            Err(PolicyError::ScopeGrantsNothing { field: scope.field })
        }
        _ => Ok(()),
    }
}

/// Refuses a statement holding a character IAM does not take, naming the
/// statement and the character, never the text around it (a fixed scope
/// value may be a customer's id).
pub(super) fn check_characters(statements: &[Value]) -> Result<(), PolicyError> {
    for statement in statements {
        if let Some(character) = refused_character(statement) {
            let sid = statement["Sid"].as_str().unwrap_or_default();
            return Err(PolicyError::Character {
                character,
                statement: sid.to_owned(),
            });
        }
    }
    Ok(())
}

/// The first character of `value`'s text (keys and strings) IAM's policy
/// grammar refuses.
fn refused_character(value: &Value) -> Option<char> {
    let refused = |text: &str| text.chars().find(|c| !accepted(*c));
    match value {
        Value::String(text) => refused(text),
        Value::Array(items) => items.iter().find_map(refused_character),
        Value::Object(map) => map
            .iter()
            .find_map(|(key, value)| refused(key).or_else(|| refused_character(value))),
        _ => None,
    }
}

/// Whether IAM takes `c` in a policy document: tab, line feed, carriage
/// return, and U+0020 to U+00FF.
fn accepted(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FF}')
}
