//! A table brought in line with the code: the dry run and the changes it
//! applies.

use crate::entity::Table;
use crate::transport::table_operation::TableOperation;

use std::time::Duration;

use aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, KeySchemaElement, Projection as SdkProjection, ProjectionType,
    TableDescription,
};
use aws_sdk_dynamodb::Client;

use crate::declaration::model::{IndexDef, IndexKind, StreamView, TableDef};
use crate::error::Error;

use super::active::wait_until_active;
use super::create::{
    create_table_if_missing_with, create_table_input, enable_time_to_live, stream_specification,
    time_to_live,
};
use super::key_schema::{index_key_schema, key_attributes, key_schema, scalar};
use super::projection::projection;
use super::settings::TableSettings;
use super::sync_plan::{SyncChange, SyncPlan};
use super::sync_settings::{apply, compare_settings, observe};
use super::vector::{add_vector_index, plan_vector_indexes};

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
    plan_sync_with(client, table, name, &TableSettings::default()).await
}

/// [`plan_sync`] with one environment's [`TableSettings`]: also the table
/// class, the customer managed key, the maximum and warm throughput, the
/// recovery period, Contributor Insights, the tags and the resource policy
/// (each read only when declared: DescribeContinuousBackups,
/// DescribeContributorInsights, ListTagsOfResource, GetResourcePolicy).
pub async fn plan_sync_with(
    client: &Client,
    table: &TableDef,
    name: &str,
    settings: &TableSettings,
) -> Result<SyncPlan, Error> {
    settings.check()?;
    let home = client.config().region().map(|region| region.as_ref());
    super::replicas::check(table, settings, home)?;
    let Some(described) = describe_table(client, name).await? else {
        return Ok(SyncPlan {
            changes: vec![SyncChange::CreateTable],
            differences: Vec::new(),
        });
    };
    let Some(current) = described.table() else {
        return Ok(SyncPlan::default());
    };
    let time_to_live = match table.ttl {
        Some(_) => time_to_live(client, name).await?,
        None => (false, None),
    };
    let mut plan = compare(table, current, time_to_live);
    let observed = observe(client, table, settings, name, current.table_arn()).await?;
    compare_settings(&mut plan, table, settings, current, &observed);
    Ok(plan)
}

/// What differs between `current` (a table as DescribeTable describes it,
/// or as a template declares it) and the code's `table`, with its time to
/// live (on, and the attribute): the one comparison behind [`plan_sync`]
/// and a template's drift.
pub fn compare(
    table: &TableDef,
    current: &TableDescription,
    time_to_live: (bool, Option<String>),
) -> SyncPlan {
    let mut plan = SyncPlan::default();
    let declared = create_table_input(table, table.name);
    if described_keys(current.key_schema()) != described_keys(declared.key_schema()) {
        plan.differences
            .push("the table's primary key differs from the code's".to_owned());
    }
    plan.differences
        .extend(attribute_type_differences(table, current));
    let existing: Vec<DescribedIndex<'_>> = current
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
        match index.kind {
            IndexKind::Global => plan_global_index(&mut plan, index, table, &existing),
            IndexKind::Local => plan
                .differences
                .extend(local_index_difference(index, table, current)),
        }
    }
    plan_undeclared_indexes(&mut plan, table, current, &existing);
    plan_vector_indexes(&mut plan, table, current);
    let described_view = current
        .stream_specification()
        .filter(|s| s.stream_enabled())
        .map(|s| s.stream_view_type().map_or("", |v| v.as_str()));
    plan_stream(&mut plan, table, described_view);
    if let Some(attribute) = table.ttl {
        plan_time_to_live(&mut plan, attribute, time_to_live);
    }
    plan
}

/// The throughput a new global index of table `name` needs: none for an
/// on-demand table, the table's own for a provisioned one (DynamoDB refuses
/// a global index without throughput on a provisioned table); change it
/// afterwards with UpdateTable if the index needs other units.
async fn provisioned_throughput(
    client: &Client,
    name: &str,
) -> Result<Option<aws_sdk_dynamodb::types::ProvisionedThroughput>, Error> {
    use aws_sdk_dynamodb::types::BillingMode;
    let described = describe_table(client, name).await?;
    let Some(table) = described.as_ref().and_then(|d| d.table()) else {
        return Ok(None);
    };
    let billing = table.billing_mode_summary().and_then(|b| b.billing_mode());
    if billing == Some(&BillingMode::PayPerRequest) {
        return Ok(None);
    }
    let units = table.provisioned_throughput().map(|t| {
        (
            t.read_capacity_units.unwrap_or(0),
            t.write_capacity_units.unwrap_or(0),
        )
    });
    match units {
        Some((read, write)) if read > 0 && write > 0 => Ok(Some(
            aws_sdk_dynamodb::types::ProvisionedThroughput::builder()
                .read_capacity_units(read)
                .write_capacity_units(write)
                .build()
                .map_err(|e| Error::InvalidRequest {
                    entity: "",
                    reason: e.to_string(),
                })?,
        )),
        // A provisioned table whose units DescribeTable did not give: an
        // index without throughput would be refused by DynamoDB.
        _ if billing == Some(&BillingMode::Provisioned) => Err(Error::InvalidRequest {
            entity: "",
            reason: format!(
                "table {name} is PROVISIONED but DescribeTable gave no provisioned units: add \
                 the global index with UpdateTable and its ProvisionedThroughput"
            ),
        }),
        _ => Ok(None),
    }
}

/// A global index of the described table: its name, its key schema (as
/// [`described_keys`]) and its projection.
type DescribedIndex<'a> = (&'a str, Vec<String>, Option<&'a SdkProjection>);

/// DescribeTable of table `name`; `None` when there is no such table.
async fn describe_table(client: &Client, name: &str) -> Result<Option<DescribeTableOutput>, Error> {
    match client
        .describe_table()
        .table_name(name)
        .send_on_for(client, (name, ""), no_table)
        .await
    {
        Ok(described) => Ok(Some(described)),
        Err(error) if no_table(&error) => Ok(None),
        Err(error) => Err(error),
    }
}

/// DescribeTable's answer for a table that does not exist.
fn no_table(error: &Error) -> bool {
    let service = error.sdk_error();
    matches!(
        service,
        Some(aws_sdk_dynamodb::Error::ResourceNotFoundException(_))
    )
}

/// The global index `index` against the table's: added when missing, else
/// a difference when its key or its projection is not the code's.
fn plan_global_index(
    plan: &mut SyncPlan,
    index: &IndexDef,
    table: &TableDef,
    existing: &[DescribedIndex<'_>],
) {
    let wanted = described_keys(&index_key_schema(index));
    match existing.iter().find(|(n, ..)| *n == index.name) {
        None => plan.changes.push(SyncChange::AddIndex(index.name)),
        Some((_, keys, _)) if *keys != wanted => plan.differences.push(format!(
            "global index {} has another key in the table",
            index.name
        )),
        Some((.., described)) => {
            let difference = projection_difference("global", index, table, *described);
            plan.differences.extend(difference);
        }
    }
}

/// The local index `index` against the table's: DynamoDB creates local
/// indexes with the table only, so a missing one, another key or another
/// projection is a difference.
fn local_index_difference(
    index: &IndexDef,
    table: &TableDef,
    current: &TableDescription,
) -> Option<String> {
    let present = current
        .local_secondary_indexes()
        .iter()
        .find(|i| i.index_name() == Some(index.name));
    let keys = described_keys(&key_schema(table.pk, index.sk));
    match present {
        Some(local) if described_keys(local.key_schema()) != keys => Some(format!(
            "local index {} has another key in the table",
            index.name
        )),
        Some(local) => {
            let described = local.projection();
            projection_difference("local", index, table, described)
        }
        None => Some(format!(
            "local index {} is missing: DynamoDB creates local indexes with the table only",
            index.name
        )),
    }
}

/// The indexes in the table that the code does not declare: differences,
/// never deleted.
fn plan_undeclared_indexes(
    plan: &mut SyncPlan,
    table: &TableDef,
    current: &TableDescription,
    existing: &[DescribedIndex<'_>],
) {
    for (existing_name, ..) in existing {
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
}

/// The key attributes the table types otherwise than the code (a key
/// attribute the table does not define is reported with its index).
fn attribute_type_differences(table: &TableDef, current: &TableDescription) -> Vec<String> {
    let defined = current.attribute_definitions();
    key_attributes(table)
        .into_iter()
        .filter_map(|declared| {
            let found = defined
                .iter()
                .find(|d| d.attribute_name() == declared.name)?;
            let found = found.attribute_type().as_str();
            (found != declared.ty.as_str()).then(|| {
                format!(
                    "attribute {} is {found} in the table, and the code declares {}",
                    declared.name,
                    declared.ty.as_str()
                )
            })
        })
        .collect()
}

/// The declared stream against the one a table has (`found`: its view
/// type, `None` when it has no stream): turned on when missing, a
/// difference when its records do not carry what the code reads (DynamoDB
/// changes a stream's view only by turning it off and on, which a person
/// decides).
pub(super) fn plan_stream(plan: &mut SyncPlan, table: &TableDef, found: Option<&str>) {
    let Some(declared) = table.stream else {
        return;
    };
    match found {
        None => plan.changes.push(SyncChange::EnableStream(declared)),
        Some(found) if StreamView::from_name(found).is_some_and(|v| v.carries(declared)) => {}
        Some("") => plan.differences.push(format!(
            "the stream names no view type, and the code reads {}",
            declared.as_str()
        )),
        Some(found) => plan.differences.push(format!(
            "the stream carries {found}, and the code reads {}",
            declared.as_str()
        )),
    }
}

/// Time to live on `attribute` against the table's (`found`: on, and the
/// attribute): turned on when off, a difference when on another attribute.
fn plan_time_to_live(plan: &mut SyncPlan, attribute: &'static str, found: (bool, Option<String>)) {
    match found {
        (true, Some(other)) if other != attribute => plan.differences.push(format!(
            "time to live is on {other}, and the code declares {attribute}"
        )),
        (true, Some(_)) => {}
        (true, None) => plan.differences.push(format!(
            "time to live is on an attribute not named as text, and the code declares {attribute}"
        )),
        (false, _) => plan.changes.push(SyncChange::EnableTimeToLive(attribute)),
    }
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
    sync_table_with(client, table, name, &TableSettings::default(), timeout).await
}

/// [`sync_table`] with one environment's [`TableSettings`]; the changes of
/// [`plan_sync_with`] are applied one call at a time (UpdateTable,
/// UpdateContinuousBackups, UpdateContributorInsights, TagResource,
/// PutResourcePolicy), waiting for the table to be ACTIVE after each
/// UpdateTable. A warm throughput above the declared one is left, as a
/// difference.
///
/// ```no_run
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> Result<(), ddb_runtime::Error> {
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK", table_class = "standard_infrequent_access")]
/// # struct Ecommerce;
/// use ddb_runtime::schema::{sync_table_with, TableSettings};
/// use ddb_runtime::Table;
/// use std::time::Duration;
/// let settings = TableSettings::default().tag("team", "orders");
/// let plan = sync_table_with(&client, &Ecommerce::DEF, "Ecommerce", &settings, Duration::from_secs(600)).await?;
/// print!("{plan}");
/// # Ok(()) }
/// ```
pub async fn sync_table_with(
    client: &Client,
    table: &TableDef,
    name: &str,
    settings: &TableSettings,
    timeout: Duration,
) -> Result<SyncPlan, Error> {
    let plan = plan_sync_with(client, table, name, settings).await?;
    let mut arn = None;
    for change in &plan.changes {
        match change {
            SyncChange::CreateTable => {
                create_table_if_missing_with(client, table, name, settings, timeout).await?;
            }
            SyncChange::AddIndex(index_name) => {
                let Some(index) = table.index(index_name) else {
                    continue;
                };
                let create = aws_sdk_dynamodb::types::CreateGlobalSecondaryIndexAction::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(index_key_schema(index)))
                    .projection(projection(index, table))
                    .set_provisioned_throughput(provisioned_throughput(client, name).await?)
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
                    .send_on(client, name)
                    .await?;
                wait_until_active(client, name, timeout).await?;
            }
            SyncChange::AddVectorIndex(index_name) => {
                let Some(index) = table.vector_index(index_name) else {
                    continue;
                };
                add_vector_index(client, table, index, name).await?;
                wait_until_active(client, name, timeout).await?;
            }
            SyncChange::EnableTimeToLive(_) => enable_time_to_live(client, table, name).await?,
            SyncChange::EnableStream(view) => {
                client
                    .update_table()
                    .table_name(name)
                    .stream_specification(stream_specification(*view))
                    .send_on(client, name)
                    .await?;
                wait_until_active(client, name, timeout).await?;
            }
            SyncChange::AddReplica(region) => {
                let added = std::slice::from_ref(region);
                super::replicas::add(client, name, settings, added, None, false).await?;
                wait_until_active(client, name, timeout).await?;
            }
            other => {
                if arn.is_none() {
                    let described = describe_table(client, name).await?;
                    arn = described
                        .as_ref()
                        .and_then(|d| d.table())
                        .and_then(|t| t.table_arn())
                        .map(str::to_owned);
                }
                apply(client, settings, name, arn.as_deref(), other).await?;
                wait_until_active(client, name, timeout).await?;
            }
        }
    }
    Ok(plan)
}

impl crate::db::Db {
    /// Brings table `T` in line with its declaration (see
    /// [`schema::sync_table`](crate::schema::sync_table)): creates it if missing, adds the global indexes
    /// it lacks, turns on time to live; never deletes, re-keys or changes a
    /// projection. Returns what it did and what it left.
    pub async fn sync_table<T: Table + 'static>(&self) -> Result<SyncPlan, Error> {
        sync_table(
            self.client(),
            &T::DEF,
            self.table_name::<T>(),
            Duration::from_secs(600),
        )
        .await
    }

    /// What [`sync_table`](Self::sync_table) would do, without doing it.
    pub async fn plan_sync<T: Table + 'static>(&self) -> Result<SyncPlan, Error> {
        plan_sync(self.client(), &T::DEF, self.table_name::<T>()).await
    }
}
