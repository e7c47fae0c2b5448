//! Least-privilege IAM policies from the declarations: for each entity, the
//! DynamoDB actions its reads and writes need, on the table and on the
//! indexes its access patterns query, and, for a caller scoped to one value
//! of a key field (a customer acting on their own data), the
//! `dynamodb:LeadingKeys` condition its key template implies.
//!
//! What IAM can express, and so what this generates:
//!
//! - `dynamodb:LeadingKeys` constrains the partition key of the **table**
//!   only. A scoped policy grants an entity only when the scoped field is in
//!   its table partition key; queries of global indexes cannot be scoped and
//!   are left out of a scoped policy (listed in [`Policy::left_out`]).
//! - The condition matches the stored text: ddb escapes the characters
//!   from `0x00` to `$` in a key's field text (controls, space, `!`, `"`,
//!   `#`, `$`), so a tag value holding one of them never matches a key. A
//!   fixed value ([`ScopeValue::Literal`]) is escaped as ddb's keys store it,
//!   and its `*` and `?` as IAM's literal `${*}` and `${?}`.
//! - IAM cannot tell entities apart inside one partition: a statement that
//!   lets one entity write lets every entity stored in the same partitions
//!   (the whole table, unscoped) be written. A read-only entity sharing
//!   them with a writer is named in [`Policy::left_out`]; separate tables,
//!   or partition keys of their own, keep it read-only.
//! - `dynamodb:Scan` is granted on the table to an entity declared with
//!   `#[ddb(scan)]`, and never in a scoped policy: a Scan names no
//!   partition key, so `dynamodb:LeadingKeys` cannot limit it (a
//!   `ForAllValues` condition over no keys holds, and would let the caller
//!   read every partition). It is listed in [`Policy::left_out`] instead.
//! - An application's policy holds its reads and writes only: the
//!   backfill's Scan, and `create_table`, `sync_table` and time to live,
//!   are in [`maintenance_policy`].
//! - `dynamodb:Attributes`/`dynamodb:Select` limit the reads of a global
//!   index that projects some attributes to those attributes (and the
//!   keys): a request names some of them (`SPECIFIC_ATTRIBUTES`), or reads
//!   the index's projection (`ALL_PROJECTED_ATTRIBUTES`, DynamoDB's
//!   default on an index), as ddb's projected queries of an index that
//!   holds all they read do.
//! - A policy that cannot grant what was asked is refused
//!   ([`PolicyError`]): no entity, entities of two tables, a scope that
//!   grants nothing, a character IAM does not take.
//! - Transactions need no action of their own: TransactWriteItems is
//!   authorized by each item's PutItem/UpdateItem/DeleteItem and
//!   ConditionCheckItem, TransactGetItems by GetItem.

mod builder;
mod check;
mod maintenance;
mod policy;
mod scope;
mod statement;

pub use builder::PolicyBuilder;
pub use check::{PolicyError, MANAGED_POLICY_LIMIT, ROLE_INLINE_POLICY_LIMIT};
pub use maintenance::maintenance_policy;
pub use policy::Policy;
pub use scope::{Access, Scope, ScopeValue};
