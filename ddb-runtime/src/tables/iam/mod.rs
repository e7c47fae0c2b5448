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

mod check;

use serde_json::{json, Value};

pub(crate) use check::check_size;
pub use check::{PolicyError, MANAGED_POLICY_LIMIT, ROLE_INLINE_POLICY_LIMIT};

use crate::declaration::model::{
    EntitySchema, IndexDef, IndexKind, IndexProjection, Part, TableDef, Template,
};

/// What an entity's callers may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// GetItem, Query, BatchGetItem (transactions' gets included),
    /// ConditionCheckItem (a transaction's check of the item), and Scan for
    /// an entity declared with `#[ddb(scan)]` (unscoped only).
    Read,
    /// Read, plus PutItem, UpdateItem, DeleteItem and BatchWriteItem.
    ReadWrite,
}

/// A caller allowed only the partitions of one value of a key field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The Rust field name (`"customer_id"`).
    pub field: &'static str,
    /// What stands for the field in the partition key.
    pub value: ScopeValue,
}

/// The value a scope gives its field: a policy variable IAM substitutes
/// per request, or a fixed value.
///
/// From text, a value that is one policy variable (`${aws:PrincipalTag/customer_id}`)
/// is a [`Variable`](ScopeValue::Variable); any other is a
/// [`Literal`](ScopeValue::Literal), which matches only itself:
///
/// ```
/// use ddb_runtime::schema::iam::ScopeValue;
/// assert_eq!(
///     ScopeValue::from("${aws:PrincipalTag/customer_id}"),
///     ScopeValue::Variable("aws:PrincipalTag/customer_id".into())
/// );
/// assert_eq!(ScopeValue::from("12*3"), ScopeValue::Literal("12*3".into()));
/// assert_eq!(ScopeValue::Literal("12*3?".into()).pattern(), "12${*}3${?}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeValue {
    /// A policy variable, without its `${` `}`: `aws:PrincipalTag/customer_id`.
    Variable(String),
    /// The field's value as its key text. A string field's value is
    /// stored escaped inside a template with more than the field
    /// (`CUSTOMER#{customer_id}`), and as it is when the template is the
    /// field alone (`{customer_id}`): the pattern follows the template. For
    /// a field of another key type, give its key text (inside a template, a
    /// `u64` is 20 digits, zero-padded: `00000000000000000012`).
    Literal(String),
}

impl ScopeValue {
    /// The value as a `StringLike` pattern inside a template with more than
    /// the field: a variable as `${...}`, a literal escaped as a key segment
    /// stores text, and IAM's `*`, `?` and `$` written `${*}`, `${?}`,
    /// `${$}`, so that it matches only itself. (A partition key that is the
    /// field alone stores the value unescaped, and its policy writes it so.)
    pub fn pattern(&self) -> String {
        self.pattern_as(true)
    }

    /// The pattern of the value in a key that stores it `escaped` (a
    /// segment of a template) or as it is (a template of the field alone).
    fn pattern_as(&self, escaped: bool) -> String {
        match self {
            ScopeValue::Variable(name) => format!("${{{name}}}"),
            ScopeValue::Literal(value) => {
                let mut key_text = String::new();
                if escaped {
                    crate::keys::segment::escape_into(value, &mut key_text);
                } else {
                    key_text.push_str(value);
                }
                let mut pattern = String::new();
                push_literal(&key_text, &mut pattern);
                pattern
            }
        }
    }
}

impl From<&str> for ScopeValue {
    fn from(value: &str) -> Self {
        let variable = value
            .strip_prefix("${")
            .and_then(|rest| rest.strip_suffix('}'))
            .filter(|name| !name.is_empty() && !name.contains(['$', '{', '}']));
        match variable {
            Some(name) => ScopeValue::Variable(name.to_owned()),
            None => ScopeValue::Literal(value.to_owned()),
        }
    }
}

impl From<String> for ScopeValue {
    fn from(value: String) -> Self {
        ScopeValue::from(value.as_str())
    }
}

/// A generated policy: the IAM document, and what it had to leave out.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// The policy document (`Version`, `Statement`).
    pub document: Value,
    /// Grants the document could not express, each with why.
    pub left_out: Vec<String>,
}

impl Policy {
    /// The document's size as IAM counts it against its quotas: its
    /// characters, white space between tokens not counted. Check it against
    /// where the policy goes: [`MANAGED_POLICY_LIMIT`] for a managed policy,
    /// [`ROLE_INLINE_POLICY_LIMIT`] for a role's inline policies together.
    ///
    /// ```
    /// use ddb_runtime::schema::iam::{maintenance_policy, MANAGED_POLICY_LIMIT};
    /// let policy = maintenance_policy(&["arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce"]);
    /// assert!(policy.size() <= MANAGED_POLICY_LIMIT);
    /// ```
    pub fn size(&self) -> usize {
        document_size(&self.document)
    }
}

/// A document's size as IAM counts it: its characters, white space between
/// tokens not counted (its compact JSON has none).
pub(crate) fn document_size(document: &Value) -> usize {
    document.to_string().chars().count()
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string_pretty(&self.document).map_err(|_| std::fmt::Error)?;
        writeln!(f, "{text}")?;
        for note in &self.left_out {
            writeln!(f, "left out: {note}")?;
        }
        Ok(())
    }
}

/// Builds the policy for the entities of one table.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// use ddb_runtime::schema::iam::{Access, PolicyBuilder};
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
/// # Ok::<(), ddb_runtime::schema::iam::PolicyError>(())
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
        for (entity, access) in &self.entities {
            self.grant(entity, *access, &mut statements, &mut left_out);
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

    /// The statements granting `access` to `entity`: its items on the
    /// table, then each index its access patterns query. What the scope
    /// cannot express goes to `left_out`, with why.
    fn grant(
        &self,
        entity: &EntitySchema,
        access: Access,
        statements: &mut Vec<Value>,
        left_out: &mut Vec<String>,
    ) {
        let name = entity.rust_name;
        let leading = match &self.scope {
            Some(scope) => match leading_key(&entity.keys[0].pk, scope) {
                Some((pattern, others)) => {
                    if !others.is_empty() {
                        left_out.push(format!(
                            "{name}: granted across every value of {} (the `*` of its \
                             partition key `{}`): IAM cannot scope those fields",
                            others.join(", "),
                            entity.keys[0].pk.source
                        ));
                    }
                    Some(pattern)
                }
                None => {
                    left_out.push(format!(
                        "{name}: its table partition key `{}` does not hold `{}`, so \
                         dynamodb:LeadingKeys cannot scope it",
                        entity.keys[0].pk.source, scope.field
                    ));
                    return;
                }
            },
            None => None,
        };
        statements.push(self.items_statement(entity, access, leading.as_deref()));
        if entity.scan && leading.is_some() {
            left_out.push(format!(
                "{name}: Scan (declared with #[ddb(scan)]): a Scan names no partition key, so \
                 dynamodb:LeadingKeys cannot limit it to the caller's partitions; grant it in a \
                 policy of its own if the caller may read every item of the table"
            ));
        }
        if leading.is_some() {
            statements.extend(guards_statement(&self.table_arn, entity, access));
            left_out.extend(guard_note(entity, access));
        }
        for index in indexes_queried(entity) {
            if self.scope.is_some() && index.kind == IndexKind::Global {
                left_out.push(format!(
                    "{name}: Query on global index {}: dynamodb:LeadingKeys applies to the \
                     table's partition key only; grant it in a policy of its own if the \
                     caller may read every partition of the index",
                    index.name
                ));
                continue;
            }
            statements.push(self.index_statement(entity, index, leading.as_deref()));
        }
        for index in entity.searches.iter().map(|s| s.index) {
            if self.scope.is_some() {
                left_out.push(format!(
                    "{name}: SearchVectors on vector index {index}: IAM's fine-grained \
                     conditions do not apply to vector search; grant it in a policy of \
                     its own if the caller may search every item of the index"
                ));
                continue;
            }
            statements.push(json!({
                "Sid": sid(&[name, index, "SearchVectors"]),
                "Effect": "Allow",
                "Action": ["dynamodb:SearchVectors"],
                "Resource": [format!("{}/index/{}", self.table_arn, index)],
            }));
        }
    }

    /// The statement on the table: the item actions `access` allows (Query
    /// too when the table key has a sort key or a declared query, Scan when
    /// the entity declares a scan and the statement is not scoped), limited
    /// to the `leading` partition keys when scoped.
    fn items_statement(
        &self,
        entity: &EntitySchema,
        access: Access,
        leading: Option<&str>,
    ) -> Value {
        // A transaction's condition check reads the item: a writer may
        // check a read-only entity's item.
        let mut actions = vec![
            "dynamodb:GetItem",
            "dynamodb:BatchGetItem",
            "dynamodb:ConditionCheckItem",
        ];
        if entity.keys[0].query.is_some() || entity.keys[0].sk.is_some() {
            actions.push("dynamodb:Query");
        }
        if entity.scan && leading.is_none() {
            actions.push("dynamodb:Scan");
        }
        if access == Access::ReadWrite {
            actions.extend([
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:BatchWriteItem",
            ]);
        }
        let mut statement = json!({
            "Sid": sid(&[entity.rust_name, "Table"]),
            "Effect": "Allow",
            "Action": actions,
            "Resource": [self.table_arn],
        });
        if let Some(pattern) = leading {
            statement["Condition"] = json!({
                "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [pattern] }
            });
        }
        statement
    }

    /// The statement allowing Query on `index`: limited to the `leading`
    /// partition keys when scoped, and to the attributes a global index
    /// projects when it projects only some.
    fn index_statement(
        &self,
        entity: &EntitySchema,
        index: &IndexDef,
        leading: Option<&str>,
    ) -> Value {
        let mut statement = json!({
            "Sid": sid(&[entity.rust_name, index.name, "Query"]),
            "Effect": "Allow",
            "Action": ["dynamodb:Query"],
            "Resource": [format!("{}/index/{}", self.table_arn, index.name)],
        });
        let mut condition = serde_json::Map::new();
        if let Some(pattern) = leading {
            condition.insert(
                "ForAllValues:StringLike".into(),
                json!({ "dynamodb:LeadingKeys": [pattern] }),
            );
        }
        // A local index fetches what it does not project from the
        // table: its reads are not limited to its attributes.
        let limited = index.kind == IndexKind::Global;
        if let Some(attributes) = projected(entity.table, index).filter(|_| limited) {
            condition.insert(
                "ForAllValues:StringEquals".into(),
                json!({ "dynamodb:Attributes": attributes }),
            );
            condition.insert(
                "StringEqualsIfExists".into(),
                json!({ "dynamodb:Select": ["SPECIFIC_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"] }),
            );
        }
        if !condition.is_empty() {
            statement["Condition"] = Value::Object(condition);
        }
        statement
    }
}

/// The policy of what keeps the tables in step with the code, which no
/// application's policy holds: `create_table` and `sync_table` (CreateTable,
/// DescribeTable, UpdateTable, and DescribeTimeToLive/UpdateTimeToLive for
/// time to live), and the backfill and the command line's `check` (Scan,
/// DescribeTable for the estimate, and the writes a backfill makes: its
/// updates and the guards of unique values and idempotency keys). Give it
/// to a migration job or a deployment, never to the service.
///
/// ```
/// let policy = ddb_runtime::schema::iam::maintenance_policy(&[
///     "arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce",
/// ]);
/// let actions = policy.document["Statement"][1]["Action"].as_array().unwrap();
/// assert!(actions.contains(&"dynamodb:Scan".into()));
/// ```
pub fn maintenance_policy(table_arns: &[&str]) -> Policy {
    let tables: Vec<&str> = table_arns.to_vec();
    let statements = vec![
        json!({
            "Sid": "DdbTables",
            "Effect": "Allow",
            "Action": [
                "dynamodb:CreateTable",
                "dynamodb:DescribeTable",
                "dynamodb:UpdateTable",
                "dynamodb:DescribeTimeToLive",
                "dynamodb:UpdateTimeToLive",
            ],
            "Resource": tables,
        }),
        json!({
            "Sid": "DdbBackfill",
            "Effect": "Allow",
            "Action": [
                "dynamodb:Scan",
                "dynamodb:DescribeTable",
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:ConditionCheckItem",
            ],
            "Resource": tables,
        }),
    ];
    Policy {
        document: json!({ "Version": "2012-10-17", "Statement": statements }),
        left_out: vec![
            "reading a table's stream (DescribeStream, GetShardIterator, GetRecords, on the \
             stream's ARN) is the stream handler's, granted with its event source"
                .to_owned(),
        ],
    }
}

/// The statement on `entity`'s guard items, for a scoped policy (an
/// unscoped one grants the whole table): those of its unique values (read
/// by a lookup, written with the item) and, for a writer, those of the
/// idempotency keys of its creates. `None` when it has neither.
fn guards_statement(table_arn: &str, entity: &EntitySchema, access: Access) -> Option<Value> {
    let patterns: Vec<String> = guard_prefixes(entity, access)
        .iter()
        .map(|prefix| {
            let mut pattern = String::new();
            push_literal(prefix, &mut pattern);
            pattern.push('*');
            pattern
        })
        .collect();
    if patterns.is_empty() {
        return None;
    }
    let mut actions = vec!["dynamodb:GetItem"];
    if access == Access::ReadWrite {
        actions.extend(["dynamodb:PutItem", "dynamodb:DeleteItem"]);
    }
    Some(json!({
        "Sid": sid(&[entity.rust_name, "Guards"]),
        "Effect": "Allow",
        "Action": actions,
        "Resource": [table_arn],
        "Condition": { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": patterns } },
    }))
}

/// The key prefixes of `entity`'s guard items a caller with `access` uses:
/// its unique values' (read by a lookup, written with the item) and, for a
/// writer, its creates' idempotency keys'.
fn guard_prefixes(entity: &EntitySchema, access: Access) -> Vec<String> {
    let mut prefixes = Vec::new();
    if !entity.unique.is_empty() {
        prefixes.push(crate::keys::guard::unique_guard_prefix(entity.entity_type));
    }
    if access == Access::ReadWrite {
        let idempotency = crate::keys::guard::idempotency_guard_prefix(entity.entity_type);
        prefixes.push(idempotency);
    }
    prefixes
}

/// What a scoped policy's guards statement grants beyond the caller's
/// partitions: a guard's key holds a unique value or an idempotency key,
/// not the scope's field, so every caller's guards of the entity are
/// granted. `None` when the entity has no guards.
fn guard_note(entity: &EntitySchema, access: Access) -> Option<String> {
    let prefixes = guard_prefixes(entity, access);
    if prefixes.is_empty() {
        return None;
    }
    let named: Vec<String> = prefixes.iter().map(|p| format!("`{p}*`")).collect();
    let verbs = match access {
        Access::ReadWrite => "read, overwrite or delete",
        Access::Read => "read",
    };
    Some(format!(
        "{}: its guard items {} are granted across every caller: a guard's key holds a \
         unique value or an idempotency key, not the scope's field, so a caller can {verbs} \
         another caller's guards (a guard holds its owner's key, and an idempotency guard a \
         SHA-256 of the item it created)",
        entity.rust_name,
        named.join(", ")
    ))
}

/// The `dynamodb:LeadingKeys` pattern of a partition key template for a
/// caller scoped to one field: the template's literal text escaped for
/// IAM (`*`, `?` and `$` as `${*}`, `${?}`, `${$}`), the field replaced by
/// the scope's value (as given: a policy variable, or a value in ddb's key
/// text, escaped as a segment unless the template is the field alone, whose
/// key stores the value as it is), any other field by `*`; `None` when the
/// template does not hold the field. The other fields, matched by `*`, are
/// returned too.
fn leading_key(template: &Template, scope: &Scope) -> Option<(String, Vec<&'static str>)> {
    if let [Part::Field(field)] = template.parts {
        return (*field == scope.field).then(|| (scope.value.pattern_as(false), Vec::new()));
    }
    let mut holds = false;
    let mut others = Vec::new();
    let mut pattern = String::new();
    for part in template.parts {
        match part {
            Part::Literal(text) => push_literal(text, &mut pattern),
            Part::Field(field) if *field == scope.field => {
                holds = true;
                pattern.push_str(&scope.value.pattern());
            }
            Part::Field(field) => {
                others.push(*field);
                pattern.push('*');
            }
        }
    }
    holds.then_some((pattern, others))
}

/// The pattern of a partition key template with every field a wildcard:
/// the keys of every value.
fn any_key(template: &Template) -> String {
    let mut pattern = String::new();
    for part in template.parts {
        match part {
            Part::Literal(text) => push_literal(text, &mut pattern),
            Part::Field(_) => pattern.push('*'),
        }
    }
    pattern
}

/// Appends `text` to a `StringLike` pattern as literal text: IAM's `*`,
/// `?` and `$` as `${*}`, `${?}`, `${$}`.
fn push_literal(text: &str, pattern: &mut String) {
    for c in text.chars() {
        match c {
            '*' | '?' | '$' => {
                pattern.push_str("${");
                pattern.push(c);
                pattern.push('}');
            }
            c => pattern.push(c),
        }
    }
}

/// The secondary indexes an entity's access patterns query, each once.
fn indexes_queried(entity: &EntitySchema) -> Vec<&'static IndexDef> {
    let table: &'static TableDef = entity.table;
    let mut names: Vec<&'static str> = Vec::new();
    let template_keyed = entity.keys.iter().skip(1).filter(|k| k.query.is_some());
    for name in template_keyed.filter_map(|k| k.index) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    for key in entity
        .multi_attribute_keys
        .iter()
        .filter(|k| k.query.is_some())
    {
        if !names.contains(&key.index) {
            names.push(key.index);
        }
    }
    names.into_iter().filter_map(|n| table.index(n)).collect()
}

/// The attributes a query of `index` can read, when it projects only some:
/// those DynamoDB holds in it (`IndexDef::projects`), each once, sorted.
fn projected(table: &TableDef, index: &IndexDef) -> Option<Vec<&'static str>> {
    let listed: &[&'static str] = match index.projection {
        IndexProjection::All => return None,
        IndexProjection::KeysOnly => &[],
        IndexProjection::Include(attributes) => attributes,
    };
    let mut attributes: Vec<&'static str> = std::iter::once(table.pk.name)
        .chain(table.sk.map(|a| a.name))
        .chain(index.key_attributes().map(|a| a.name))
        .chain(listed.iter().copied())
        .chain(table.added_to_include())
        .filter(|name| index.projects(table, name))
        .collect();
    attributes.sort_unstable();
    attributes.dedup();
    Some(attributes)
}

/// Makes every statement's Sid unique: the second `OrderGSI1Query` (of
/// `GSI-1` and `GSI_1`, which the letters-and-digits rule writes alike)
/// becomes `OrderGSI1Query2`.
pub(crate) fn unique_sids(statements: &mut [Value]) {
    let mut seen = std::collections::HashSet::new();
    for statement in statements {
        let sid = statement["Sid"].as_str().unwrap_or_default().to_owned();
        let mut unique = sid.clone();
        let mut n = 1;
        while !seen.insert(unique.clone()) {
            n += 1;
            unique = format!("{sid}{n}");
        }
        statement["Sid"] = Value::from(unique);
    }
}

/// A statement id: letters and digits only, as IAM requires.
fn sid(parts: &[&str]) -> String {
    parts
        .iter()
        .flat_map(|p| p.chars())
        .filter(char::is_ascii_alphanumeric)
        .collect()
}
