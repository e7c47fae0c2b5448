//! The schema from code: CreateTable input, create-if-missing, and the
//! access-pattern report, all from the `Table` and `Entity` declarations.

use std::fmt::Write;

use tracing::Instrument;

pub use super::backfill::{Backfill, Checkpoint, IndexKeyViolation, Progress, MAX_SEGMENTS};
pub use super::{cost, iam};

/// The attribute a versioned entity's items carry their schema version in
/// (`#[ddb(schema_version = N)]`); items without it are version 1.
pub const SCHEMA_VERSION_ATTRIBUTE: &str = "_schema";

/// The schema version `item` is stored at: 1 when it has none.
pub(crate) fn stored_schema_version(
    item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
) -> std::result::Result<u32, String> {
    schema_version(item.get(SCHEMA_VERSION_ATTRIBUTE))
}

/// The schema version an item's [`SCHEMA_VERSION_ATTRIBUTE`] holds: 1 when
/// it has none.
pub(crate) fn schema_version(
    attribute: Option<&aws_sdk_dynamodb::types::AttributeValue>,
) -> std::result::Result<u32, String> {
    match attribute {
        None => Ok(1),
        Some(aws_sdk_dynamodb::types::AttributeValue::N(n)) => {
            n.parse::<u32>().ok().filter(|v| *v >= 1).ok_or_else(|| {
                format!("`{SCHEMA_VERSION_ATTRIBUTE}` = {n} is not a schema version")
            })
        }
        Some(_) => Err(format!("`{SCHEMA_VERSION_ATTRIBUTE}` is not a number")),
    }
}

/// `PK / SK` of a stored item of `table`, for messages.
pub(crate) fn item_key_text(
    table: &TableDef,
    item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
) -> String {
    let text = |name: &str| match item.get(name) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.as_str(),
        Some(aws_sdk_dynamodb::types::AttributeValue::N(n)) => n.as_str(),
        _ => "?",
    };
    match table.sk {
        Some(sk) => format!("{} / {}", text(table.pk.name), text(sk.name)),
        None => text(table.pk.name).to_owned(),
    }
}
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection as SdkProjection, ProjectionType, ScalarAttributeType,
    TableStatus, TimeToLiveSpecification, TimeToLiveStatus,
};
use aws_sdk_dynamodb::Client;

use crate::error::Error;
use crate::model::{
    EntitySchema, IndexDef, IndexKind, IndexProjection, KeyAttribute, KeyDef, MultiAttributeKey,
    Part, ScalarType, TableDef, Template,
};

fn key_element(attribute: KeyAttribute, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(attribute.name)
        .key_type(key_type)
        .build()
        .expect("attribute name and key type are set")
}

fn key_schema(pk: KeyAttribute, sk: Option<KeyAttribute>) -> Vec<KeySchemaElement> {
    let mut schema = vec![key_element(pk, KeyType::Hash)];
    if let Some(sk) = sk {
        schema.push(key_element(sk, KeyType::Range));
    }
    schema
}

/// A global index's key schema: every partition attribute (HASH), then every
/// sort attribute (RANGE), in order; DynamoDB reads a multi-attribute key
/// from this order.
fn index_key_schema(index: &IndexDef) -> Vec<KeySchemaElement> {
    let partition = index.pk_attributes().map(|a| key_element(a, KeyType::Hash));
    let sort = index
        .sk_attributes()
        .map(|a| key_element(a, KeyType::Range));
    partition.chain(sort).collect()
}

/// `index`'s projection. An INCLUDE list names what the index holds
/// (`IndexDef::projects`: the declared list, and the entity type and
/// schema version ddb adds to it) but not the table's and the index's own
/// key attributes, which DynamoDB projects into every index and does not
/// take as `NonKeyAttributes`; a list left empty (every name a key) is
/// KEYS_ONLY, which holds the same.
fn projection(index: &IndexDef, table: &TableDef) -> SdkProjection {
    let of_kind = |kind| SdkProjection::builder().projection_type(kind);
    let listed = match index.projection {
        IndexProjection::All => return of_kind(ProjectionType::All).build(),
        IndexProjection::KeysOnly => return of_kind(ProjectionType::KeysOnly).build(),
        IndexProjection::Include(listed) => listed,
    };
    let mut non_key: Vec<String> = Vec::new();
    for name in listed.iter().copied().chain(table.added_to_include()) {
        if !index.is_key(table, name) && !non_key.iter().any(|n| n == name) {
            non_key.push(name.to_owned());
        }
    }
    if non_key.is_empty() {
        return of_kind(ProjectionType::KeysOnly).build();
    }
    of_kind(ProjectionType::Include)
        .set_non_key_attributes(Some(non_key))
        .build()
}

fn scalar(ty: ScalarType) -> ScalarAttributeType {
    match ty {
        ScalarType::S => ScalarAttributeType::S,
        ScalarType::N => ScalarAttributeType::N,
    }
}

/// Every key attribute of the table and its indexes, each once, in order of
/// first use: exactly DynamoDB's `AttributeDefinitions`.
pub fn key_attributes(table: &TableDef) -> Vec<KeyAttribute> {
    let mut attributes: Vec<KeyAttribute> = Vec::new();
    let mut add = |attribute: KeyAttribute| {
        if !attributes.iter().any(|a| a.name == attribute.name) {
            attributes.push(attribute);
        }
    };
    add(table.pk);
    if let Some(sk) = table.sk {
        add(sk);
    }
    for index in table.indexes {
        index.key_attributes().for_each(&mut add);
    }
    attributes
}

/// The CreateTable input for `table` under the physical name `name`:
/// attribute definitions for every key attribute, key schema, GSIs and LSIs
/// with their projections, on-demand billing (PAY_PER_REQUEST).
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
/// struct Ecommerce;
///
/// use ddb_runtime::Table;
/// let input = ddb_runtime::schema::create_table_input(&Ecommerce::DEF, "Ecommerce");
/// assert_eq!(input.attribute_definitions().len(), 4);
/// assert_eq!(input.global_secondary_indexes().len(), 1);
/// ```
pub fn create_table_input(table: &TableDef, name: &str) -> CreateTableInput {
    let definitions = key_attributes(table)
        .into_iter()
        .map(|a| {
            AttributeDefinition::builder()
                .attribute_name(a.name)
                .attribute_type(scalar(a.ty))
                .build()
                .expect("name and type are set")
        })
        .collect::<Vec<_>>();
    let mut globals = Vec::new();
    let mut locals = Vec::new();
    for index in table.indexes {
        match index.kind {
            IndexKind::Global => globals.push(
                GlobalSecondaryIndex::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(index_key_schema(index)))
                    .projection(projection(index, table))
                    .build()
                    .expect("name, key schema and projection are set"),
            ),
            IndexKind::Local => locals.push(
                LocalSecondaryIndex::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(key_schema(table.pk, index.sk)))
                    .projection(projection(index, table))
                    .build()
                    .expect("name, key schema and projection are set"),
            ),
        }
    }
    CreateTableInput::builder()
        .table_name(name)
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema(table.pk, table.sk)))
        .set_global_secondary_indexes((!globals.is_empty()).then_some(globals))
        .set_local_secondary_indexes((!locals.is_empty()).then_some(locals))
        .billing_mode(BillingMode::PayPerRequest)
        .build()
        .expect("table name is set")
}

/// Whether creating the table found it already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableCreated {
    /// The table was created and is ACTIVE.
    Created,
    /// A table of that name already existed (its schema is not compared).
    AlreadyExisted,
}

/// Creates the table `name` from `table` if it does not exist, and waits until
/// it is ACTIVE (at most `timeout`).
///
/// For tests and local development; production tables belong in
/// infrastructure code, which [`create_table_input`] can feed.
///
/// ```no_run
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> Result<(), ddb_runtime::Error> {
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// struct Ecommerce;
/// use ddb_runtime::Table;
/// use std::time::Duration;
/// ddb_runtime::schema::create_table_if_missing(&client, &Ecommerce::DEF, "Ecommerce", Duration::from_secs(60)).await?;
/// # Ok(()) }
/// ```
pub async fn create_table_if_missing(
    client: &Client,
    table: &TableDef,
    name: &str,
    timeout: Duration,
) -> Result<TableCreated, Error> {
    let input = create_table_input(table, name);
    let created = client
        .create_table()
        .table_name(name)
        .set_attribute_definitions(Some(input.attribute_definitions().to_vec()))
        .set_key_schema(Some(input.key_schema().to_vec()))
        .set_global_secondary_indexes(input.global_secondary_indexes.clone())
        .set_local_secondary_indexes(input.local_secondary_indexes.clone())
        .set_billing_mode(input.billing_mode().cloned())
        .send()
        .instrument(crate::telemetry::span("CreateTable", name, None, ""))
        .await;
    let outcome = match created {
        Ok(_) => TableCreated::Created,
        Err(error)
            if error
                .as_service_error()
                .is_some_and(|e| e.is_resource_in_use_exception()) =>
        {
            TableCreated::AlreadyExisted
        }
        Err(error) => return Err(Error::sdk("CreateTable", error)),
    };
    wait_until_active(client, name, timeout).await?;
    enable_time_to_live(client, table, name).await?;
    Ok(outcome)
}

/// Waits until the table and every global index are ACTIVE (at most
/// `timeout`).
async fn wait_until_active(client: &Client, name: &str, timeout: Duration) -> Result<(), Error> {
    let started = Instant::now();
    let mut delay = Duration::from_millis(20);
    loop {
        let described = client
            .describe_table()
            .table_name(name)
            .send()
            .instrument(crate::telemetry::span("DescribeTable", name, None, ""))
            .await
            .map_err(|e| Error::sdk("DescribeTable", e))?;
        let status = described.table().and_then(|t| t.table_status().cloned());
        let indexes_active = described
            .table()
            .map(|t| {
                t.global_secondary_indexes().iter().all(|i| {
                    i.index_status()
                        .is_none_or(|s| *s == aws_sdk_dynamodb::types::IndexStatus::Active)
                })
            })
            .unwrap_or(true);
        if status == Some(TableStatus::Active) && indexes_active {
            return Ok(());
        }
        if started.elapsed() >= timeout {
            return Err(Error::TableNotActive {
                table: name.to_owned(),
                status: status.map(|s| s.as_str().to_owned()).unwrap_or_default(),
                waited_ms: started.elapsed().as_millis(),
            });
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

/// Whether time to live is on (or turning on) for table `name`, and the
/// attribute DynamoDB names for it.
async fn time_to_live(client: &Client, name: &str) -> Result<(bool, Option<String>), Error> {
    let described = client
        .describe_time_to_live()
        .table_name(name)
        .send()
        .instrument(crate::telemetry::span("DescribeTimeToLive", name, None, ""))
        .await
        .map_err(|e| Error::sdk("DescribeTimeToLive", e))?;
    let description = described.time_to_live_description();
    let on = matches!(
        description.and_then(|d| d.time_to_live_status()),
        Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
    );
    Ok((
        on,
        description
            .and_then(|d| d.attribute_name())
            .map(str::to_owned),
    ))
}

/// Turns on the table's time to live (`TableDef::ttl`) unless it is on
/// already; a table whose time to live is on another attribute is an error
/// (DynamoDB allows one, and changing it takes an hour).
async fn enable_time_to_live(client: &Client, table: &TableDef, name: &str) -> Result<(), Error> {
    let Some(attribute) = table.ttl else {
        return Ok(());
    };
    let (on, current) = time_to_live(client, name).await?;
    match current.as_deref() {
        Some(current) if on && current == attribute => return Ok(()),
        Some(current) if on => {
            return Err(Error::InvalidRequest {
                entity: "",
                reason: format!(
                "table `{name}` has time to live on `{current}`, not on `{attribute}` as declared"
            ),
            })
        }
        _ => {}
    }
    let specification = TimeToLiveSpecification::builder()
        .enabled(true)
        .attribute_name(attribute)
        .build()
        .map_err(|e| Error::InvalidRequest {
            entity: "",
            reason: e.to_string(),
        })?;
    client
        .update_time_to_live()
        .table_name(name)
        .time_to_live_specification(specification)
        .send()
        .instrument(crate::telemetry::span("UpdateTimeToLive", name, None, ""))
        .await
        .map_err(|e| Error::sdk("UpdateTimeToLive", e))?;
    Ok(())
}

/// One change [`sync_table`] makes to bring a table in line with the code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyncChange {
    /// The table does not exist: create it with every declared index and its
    /// time to live.
    CreateTable,
    /// A global index the code declares and the table lacks: created with
    /// UpdateTable (DynamoDB fills it from the existing items; synthetic key
    /// attributes that existing items lack still need a backfill).
    AddIndex(&'static str),
    /// Time to live is off: turn it on for this attribute.
    EnableTimeToLive(&'static str),
}

/// What [`sync_table`] does (or, as a dry run, would do): the changes it
/// applies, and the differences it never applies (it neither deletes nor
/// re-keys anything, nor changes what an index projects) for a person to
/// decide. Its `Display` is a readable diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncPlan {
    /// The changes, in the order they are applied.
    pub changes: Vec<SyncChange>,
    /// Differences left as they are.
    pub differences: Vec<String>,
}

impl SyncPlan {
    /// Whether the table already matches the code.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.differences.is_empty()
    }
}

impl std::fmt::Display for SyncPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for change in &self.changes {
            match change {
                SyncChange::CreateTable => writeln!(f, "+ create the table")?,
                SyncChange::AddIndex(name) => writeln!(f, "+ add global index {name}")?,
                SyncChange::EnableTimeToLive(attribute) => {
                    writeln!(f, "+ turn on time to live on {attribute}")?
                }
            }
        }
        for difference in &self.differences {
            writeln!(f, "! {difference} (left as it is)")?;
        }
        Ok(())
    }
}

/// The key schema of a described index or table, as `name:HASH` pairs.
fn described_keys(schema: &[KeySchemaElement]) -> Vec<String> {
    schema
        .iter()
        .map(|k| format!("{}:{}", k.attribute_name(), k.key_type().as_str()))
        .collect()
}

/// What an index holds besides its keys, from its projection: `None` for
/// every attribute (ALL), else the other attributes it projects, sorted
/// (none for KEYS_ONLY). Compared so, a list that also names keys, or an
/// INCLUDE of keys alone sent as KEYS_ONLY, is no difference.
fn held_besides_keys(
    projection: &SdkProjection,
    index: &IndexDef,
    table: &TableDef,
) -> Option<Vec<String>> {
    if projection.projection_type() == Some(&ProjectionType::All) {
        return None;
    }
    let mut names: Vec<String> = projection
        .non_key_attributes()
        .iter()
        .filter(|name| !index.is_key(table, name))
        .cloned()
        .collect();
    names.sort_unstable();
    names.dedup();
    Some(names)
}

/// [`held_besides_keys`], in words.
fn describe_held(held: &Option<Vec<String>>) -> String {
    match held {
        None => "every attribute (ALL)".to_owned(),
        Some(names) if names.is_empty() => "its keys only (KEYS_ONLY)".to_owned(),
        Some(names) => format!("its keys and {}", names.join(", ")),
    }
}

/// The difference between the projection of `index` in the table
/// (`described`) and the code's, if any: DynamoDB cannot change an index's
/// projection in place, and a query of ddb reads what the code declares
/// (the entity type and schema version of an INCLUDE list among it).
fn projection_difference(
    kind: &str,
    index: &IndexDef,
    table: &TableDef,
    described: Option<&SdkProjection>,
) -> Option<String> {
    let found = held_besides_keys(described?, index, table);
    let declared = held_besides_keys(&projection(index, table), index, table);
    (found != declared).then(|| {
        format!(
            "{kind} index {} holds {} in the table, and the code declares {}",
            index.name,
            describe_held(&found),
            describe_held(&declared)
        )
    })
}

/// What [`sync_table`] would change in table `name` to match `table`,
/// without changing anything (a dry run).
pub async fn plan_sync(client: &Client, table: &TableDef, name: &str) -> Result<SyncPlan, Error> {
    let described = match client
        .describe_table()
        .table_name(name)
        .send()
        .instrument(crate::telemetry::span("DescribeTable", name, None, ""))
        .await
    {
        Ok(described) => described,
        Err(error)
            if error
                .as_service_error()
                .is_some_and(|e| e.is_resource_not_found_exception()) =>
        {
            return Ok(SyncPlan {
                changes: vec![SyncChange::CreateTable],
                differences: Vec::new(),
            });
        }
        Err(error) => return Err(Error::sdk("DescribeTable", error)),
    };
    let mut plan = SyncPlan::default();
    let Some(current) = described.table() else {
        return Ok(plan);
    };
    let declared = create_table_input(table, name);
    if described_keys(current.key_schema()) != described_keys(declared.key_schema()) {
        plan.differences
            .push("the table's primary key differs from the code's".to_owned());
    }
    let existing: Vec<(&str, Vec<String>, Option<&SdkProjection>)> = current
        .global_secondary_indexes()
        .iter()
        .map(|i| {
            (
                i.index_name().unwrap_or_default(),
                described_keys(i.key_schema()),
                i.projection(),
            )
        })
        .collect();
    for index in table.indexes {
        let wanted = described_keys(&index_key_schema(index));
        match (index.kind, existing.iter().find(|(n, ..)| *n == index.name)) {
            (IndexKind::Global, None) => plan.changes.push(SyncChange::AddIndex(index.name)),
            (IndexKind::Global, Some((_, keys, _))) if *keys != wanted => plan.differences.push(
                format!("global index {} has another key in the table", index.name),
            ),
            (IndexKind::Global, Some((.., described))) => {
                let difference = projection_difference("global", index, table, *described);
                plan.differences.extend(difference);
            }
            (IndexKind::Local, _) => {
                let present = current
                    .local_secondary_indexes()
                    .iter()
                    .find(|i| i.index_name() == Some(index.name));
                let keys = described_keys(&key_schema(table.pk, index.sk));
                match present {
                    Some(local) if described_keys(local.key_schema()) != keys => {
                        plan.differences.push(format!(
                            "local index {} has another key in the table",
                            index.name
                        ));
                    }
                    Some(local) => {
                        let described = local.projection();
                        let difference = projection_difference("local", index, table, described);
                        plan.differences.extend(difference);
                    }
                    None => plan.differences.push(format!(
                        "local index {} is missing: DynamoDB creates local indexes with the table only",
                        index.name
                    )),
                }
            }
        }
    }
    for (existing_name, ..) in &existing {
        if !table.indexes.iter().any(|i| i.name == *existing_name) {
            plan.differences.push(format!(
                "global index {existing_name} is in the table and not in the code"
            ));
        }
    }
    for local in current.local_secondary_indexes() {
        let name = local.index_name().unwrap_or_default();
        if !table.indexes.iter().any(|i| i.name == name) {
            plan.differences.push(format!(
                "local index {name} is in the table and not in the code"
            ));
        }
    }
    if let Some(attribute) = table.ttl {
        let (on, current) = time_to_live(client, name).await?;
        match current.as_deref() {
            Some(other) if on && other != attribute => plan.differences.push(format!(
                "time to live is on {other}, and the code declares {attribute}"
            )),
            _ if on => {}
            _ => plan.changes.push(SyncChange::EnableTimeToLive(attribute)),
        }
    }
    Ok(plan)
}

/// Brings table `name` in line with `table`: creates it if missing, adds the
/// global indexes it lacks (one UpdateTable at a time, waiting for each to be
/// ACTIVE, as DynamoDB requires), and turns on time to live. It never deletes
/// an index, changes a key schema or an index's projection (which DynamoDB
/// cannot change in place): those differences come back in the plan, with
/// the changes it applied. [`plan_sync`] is the dry run.
///
/// ```no_run
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> Result<(), ddb_runtime::Error> {
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// use ddb_runtime::Table;
/// use std::time::Duration;
/// let plan = ddb_runtime::schema::plan_sync(&client, &Ecommerce::DEF, "Ecommerce").await?;
/// print!("{plan}");
/// ddb_runtime::schema::sync_table(&client, &Ecommerce::DEF, "Ecommerce", Duration::from_secs(600)).await?;
/// # Ok(()) }
/// ```
pub async fn sync_table(
    client: &Client,
    table: &TableDef,
    name: &str,
    timeout: Duration,
) -> Result<SyncPlan, Error> {
    let plan = plan_sync(client, table, name).await?;
    for change in &plan.changes {
        match change {
            SyncChange::CreateTable => {
                create_table_if_missing(client, table, name, timeout).await?;
            }
            SyncChange::AddIndex(index_name) => {
                let Some(index) = table.index(index_name) else {
                    continue;
                };
                let create = aws_sdk_dynamodb::types::CreateGlobalSecondaryIndexAction::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(index_key_schema(index)))
                    .projection(projection(index, table))
                    .build()
                    .map_err(|e| Error::InvalidRequest {
                        entity: "",
                        reason: e.to_string(),
                    })?;
                let definitions = key_attributes(table)
                    .into_iter()
                    .filter(|a| index.key_attributes().any(|k| k.name == a.name))
                    .map(|a| {
                        AttributeDefinition::builder()
                            .attribute_name(a.name)
                            .attribute_type(scalar(a.ty))
                            .build()
                            .map_err(|e| Error::InvalidRequest {
                                entity: "",
                                reason: e.to_string(),
                            })
                    })
                    .collect::<Result<Vec<_>, Error>>()?;
                client
                    .update_table()
                    .table_name(name)
                    .set_attribute_definitions(Some(definitions))
                    .global_secondary_index_updates(
                        aws_sdk_dynamodb::types::GlobalSecondaryIndexUpdate::builder()
                            .create(create)
                            .build(),
                    )
                    .send()
                    .instrument(crate::telemetry::span("UpdateTable", name, None, ""))
                    .await
                    .map_err(|e| Error::sdk("UpdateTable", e))?;
                wait_until_active(client, name, timeout).await?;
            }
            SyncChange::EnableTimeToLive(_) => enable_time_to_live(client, table, name).await?,
        }
    }
    Ok(plan)
}

fn index_name(key: &KeyDef) -> &'static str {
    key.index.unwrap_or("table")
}

fn attribute_names(table: &TableDef, key: &KeyDef) -> (&'static str, Option<&'static str>) {
    match key.index.and_then(|name| table.index(name)) {
        Some(index) => (index.pk.name, index.sk.map(|a| a.name)),
        None => (table.pk.name, table.sk.map(|a| a.name)),
    }
}

fn template_text(template: &Template) -> String {
    let mut text = String::new();
    for part in template.parts {
        match part {
            Part::Literal(literal) => text.push_str(literal),
            Part::Field(field) => {
                let _ = write!(text, "{{{field}}}");
            }
        }
    }
    text
}

/// The key condition of the key's query: the partition key equal to its
/// template, the sort key narrowed to the entity by its literal prefix.
fn key_condition(table: &TableDef, key: &KeyDef) -> String {
    let (pk_name, sk_name) = attribute_names(table, key);
    let mut condition = format!("{pk_name} = {}", template_text(&key.pk));
    if key.shards > 1 {
        let _ = write!(condition, "#<shard 0..{}>", key.shards - 1);
    }
    if let (Some(sk), Some(sk_name)) = (key.sk, sk_name) {
        if sk.is_constant() {
            let _ = write!(condition, ", {sk_name} = {}", sk.source);
        } else if !sk.literal_prefix().is_empty() {
            let _ = write!(condition, ", {sk_name} begins_with {}", sk.literal_prefix());
        }
    }
    condition
}

/// `customerId = {customer_id}, status = {status}, sorted by placedAt, orderId`.
fn multi_attribute_condition(entity: &EntitySchema, key: &MultiAttributeKey) -> String {
    let equal: Vec<String> = key
        .pk
        .iter()
        .map(|field| format!("{} = {{{field}}}", entity.attribute_of(field)))
        .collect();
    let mut condition = equal.join(", ");
    if !key.sk.is_empty() {
        let sorted: Vec<&str> = key.sk.iter().map(|f| entity.attribute_of(f)).collect();
        let _ = write!(condition, ", sorted by {}", sorted.join(", "));
    }
    condition
}

fn consistency(table: &TableDef, key: &KeyDef) -> &'static str {
    match key.index.and_then(|name| table.index(name)) {
        Some(index) if index.kind == IndexKind::Global => "eventual",
        _ => "strong or eventual",
    }
}

/// The access-pattern report of a table's entities, as Markdown: one row per
/// GetItem and per declared query (entity, pattern, operation, index, key
/// condition, consistency), then each entity's write amplification.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// use ddb_runtime::Entity;
/// let report = ddb_runtime::schema::access_pattern_report(&[&Customer::SCHEMA]);
/// assert!(report.contains("| Customer | get | GetItem | table | PK = CUSTOMER#{customer_id}, SK = PROFILE | strong or eventual |"));
/// ```
pub fn access_pattern_report(entities: &[&EntitySchema]) -> String {
    let mut out = String::new();
    out.push_str("| Entity | Pattern | Operation | Index | Key condition | Consistency |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for entity in entities {
        let table = entity.table;
        let primary = entity.primary();
        let (pk_name, sk_name) = attribute_names(table, primary);
        let mut get = format!("{pk_name} = {}", template_text(&primary.pk));
        if let (Some(sk), Some(sk_name)) = (primary.sk, sk_name) {
            let _ = write!(get, ", {sk_name} = {}", template_text(&sk));
        }
        let _ = writeln!(
            out,
            "| {} | get | GetItem | table | {get} | strong or eventual |",
            entity.entity_type
        );
        for key in entity.keys {
            let Some(query) = key.query else { continue };
            let operation = if key.shards > 1 {
                format!("Query ×{} (sharded)", key.shards)
            } else {
                "Query".to_owned()
            };
            let _ = writeln!(
                out,
                "| {} | {query} | {operation} | {} | {} | {} |",
                entity.entity_type,
                index_name(key),
                key_condition(table, key),
                consistency(table, key)
            );
        }
        for key in entity.multi_attribute_keys {
            let Some(query) = key.query else { continue };
            let _ = writeln!(
                out,
                "| {} | {query} | Query | {} | {} | eventual |",
                entity.entity_type,
                key.index,
                multi_attribute_condition(entity, key)
            );
        }
    }
    out.push_str("\nWrite amplification (indexes one write of the entity updates):\n\n");
    for entity in entities {
        let indexes: Vec<String> = entity
            .keys
            .iter()
            .filter_map(|key| {
                let name = key.index?;
                let mut notes = Vec::new();
                if let Some(membership) = &key.membership {
                    notes.push(format!("sparse on {}", membership.reads.join(", ")));
                }
                if key.shards > 1 {
                    notes.push(format!("{} shards", key.shards));
                }
                Some(if notes.is_empty() {
                    name.to_owned()
                } else {
                    format!("{name} ({})", notes.join(", "))
                })
            })
            .chain(
                entity
                    .multi_attribute_keys
                    .iter()
                    .map(|key| format!("{} (multi-attribute key, kept by DynamoDB)", key.index)),
            )
            .collect();
        let ttl = entity
            .table
            .ttl
            .filter(|ttl| {
                entity
                    .fields
                    .iter()
                    .any(|f| f.role.ttl && f.attribute == *ttl)
            })
            .map(|ttl| format!("; time to live `{ttl}` (DynamoDB deletes expired items)"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- {} (table `{}`): {} {}{}{ttl}",
            entity.entity_type,
            entity.table.name,
            indexes.len(),
            if indexes.len() == 1 {
                "index"
            } else {
                "indexes"
            },
            if indexes.is_empty() {
                String::new()
            } else {
                format!(": {}", indexes.join(", "))
            }
        );
    }
    out
}
