//! The statements of a policy: for each entity, its items on the table,
//! the indexes its access patterns query, its vector searches and its guard
//! items, each limited to the scope's partitions where IAM can express it;
//! and their statement ids.

use serde_json::{json, Value};

use ddb_runtime::model::{EntitySchema, IndexDef, IndexKind, IndexProjection, TableDef};

use super::scope::{leading_key, push_literal, Access, Scope};

/// The table and the scope of one policy's statements.
pub(super) struct Grants<'a> {
    /// The table's ARN.
    pub(super) table_arn: &'a str,
    /// The caller's scope, when the policy is scoped.
    pub(super) scope: Option<&'a Scope>,
}

impl Grants<'_> {
    /// The statements granting `access` to `entity`: its items on the
    /// table, then each index its access patterns query. What the scope
    /// cannot express goes to `left_out`, with why.
    pub(super) fn grant(
        &self,
        entity: &EntitySchema,
        access: Access,
        statements: &mut Vec<Value>,
        left_out: &mut Vec<String>,
    ) {
        let name = entity.rust_name;
        let leading = match self.scope {
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
            statements.extend(guards_statement(self.table_arn, entity, access));
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
        prefixes.push(ddb_runtime::__private::tools::unique_guard_prefix(
            entity.entity_type,
        ));
    }
    if access == Access::ReadWrite {
        let idempotency =
            ddb_runtime::__private::tools::idempotency_guard_prefix(entity.entity_type);
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
