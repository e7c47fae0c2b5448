//! CreateTable input from the declarations, create-if-missing, and time to
//! live turned on.

use crate::entity::Table;
use crate::transport::table_operation::TableOperation;

use std::time::Duration;

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ContributorInsightsAction, ContributorInsightsMode,
    GlobalSecondaryIndex, LocalSecondaryIndex, OnDemandThroughput,
    PointInTimeRecoverySpecification, SseSpecification, SseType, StreamSpecification,
    StreamViewType, TableClass as SdkTableClass, Tag, TimeToLiveSpecification, TimeToLiveStatus,
    WarmThroughput,
};
use aws_sdk_dynamodb::Client;

use crate::declaration::model::{ContributorInsights, IndexKind, StreamView, TableClass, TableDef};
use crate::error::Error;

use super::active::wait_until_active;
use super::key_schema::{index_key_schema, key_attributes, key_schema, scalar};
use super::projection::projection;
use super::settings::{TableSettings, Units};
use super::vector::vector_index;

/// The CreateTable input for `table` under the physical name `name`:
/// attribute definitions for every key attribute, key schema, GSIs, LSIs
/// and vector indexes with their projections, the declared stream,
/// on-demand billing (PAY_PER_REQUEST).
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
    create_table_input_with(table, name, &TableSettings::default())
        .expect("the default settings are valid")
}

/// [`create_table_input`] with one environment's [`TableSettings`]: the
/// declared table class, and the settings' customer managed key
/// (`SSESpecification`), tags, maximum on-demand and warm throughput (of
/// the table and each global index) and resource policy. Settings DynamoDB
/// would refuse, or naming an index the table does not declare, are an
/// error.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK", table_class = "standard_infrequent_access")]
/// struct Ecommerce;
///
/// use ddb_runtime::schema::{create_table_input_with, TableSettings};
/// use ddb_runtime::Table;
/// let settings = TableSettings::default().kms_key("alias/orders").tag("team", "orders");
/// let input = create_table_input_with(&Ecommerce::DEF, "Ecommerce", &settings)?;
/// assert_eq!(input.sse_specification().and_then(|s| s.kms_master_key_id()), Some("alias/orders"));
/// assert_eq!(input.table_class().map(|c| c.as_str()), Some("STANDARD_INFREQUENT_ACCESS"));
/// assert_eq!(input.tags().len(), 1);
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
pub fn create_table_input_with(
    table: &TableDef,
    name: &str,
    settings: &TableSettings,
) -> Result<CreateTableInput, Error> {
    settings.check()?;
    super::replicas::check(table, settings, None)?;
    if let Some(unknown) = settings.named_indexes().find(|index| {
        !table
            .indexes
            .iter()
            .any(|i| i.name == *index && i.kind == IndexKind::Global)
    }) {
        return Err(Error::InvalidRequest {
            entity: "",
            reason: format!(
                "table settings name index `{unknown}`, which is not a global index of table {}",
                table.name
            ),
        });
    }
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
                    .set_on_demand_throughput(
                        settings
                            .max_throughput_of(index.name)
                            .map(on_demand_throughput),
                    )
                    .set_warm_throughput(
                        settings.warm_throughput_of(index.name).map(warm_throughput),
                    )
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
    let vectors: Vec<_> = table
        .vector_indexes
        .iter()
        .map(|index| vector_index(index, table))
        .collect();
    let tags: Vec<Tag> = settings
        .tags()
        .iter()
        .map(|(key, value)| {
            Tag::builder()
                .key(key)
                .value(value)
                .build()
                .expect("key and value are set")
        })
        .collect();
    Ok(CreateTableInput::builder()
        .table_name(name)
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema(table.pk, table.sk)))
        .set_global_secondary_indexes((!globals.is_empty()).then_some(globals))
        .set_local_secondary_indexes((!locals.is_empty()).then_some(locals))
        .set_vector_indexes((!vectors.is_empty()).then_some(vectors))
        .set_stream_specification(table.stream.map(stream_specification))
        .billing_mode(BillingMode::PayPerRequest)
        .set_table_class(table_class(table))
        .set_sse_specification(settings.kms_key_id().map(sse_specification))
        .set_tags((!tags.is_empty()).then_some(tags))
        .set_on_demand_throughput(settings.table_max_throughput().map(on_demand_throughput))
        .set_warm_throughput(settings.table_warm_throughput().map(warm_throughput))
        .set_resource_policy(settings.resource_policy_document().map(str::to_owned))
        .build()
        .expect("table name is set"))
}

/// The declared table class, when it is not DynamoDB's default.
pub(super) fn table_class(table: &TableDef) -> Option<SdkTableClass> {
    (table.table_class != TableClass::Standard)
        .then(|| SdkTableClass::from(table.table_class.as_str()))
}

/// Encryption with the customer managed key `key`.
pub(super) fn sse_specification(key: &str) -> SseSpecification {
    SseSpecification::builder()
        .enabled(true)
        .sse_type(SseType::Kms)
        .kms_master_key_id(key)
        .build()
}

/// `OnDemandThroughput` of `units`.
pub(crate) fn on_demand_throughput(units: Units) -> OnDemandThroughput {
    OnDemandThroughput::builder()
        .max_read_request_units(units.read)
        .max_write_request_units(units.write)
        .build()
}

/// `WarmThroughput` of `units`.
pub(crate) fn warm_throughput(units: Units) -> WarmThroughput {
    WarmThroughput::builder()
        .read_units_per_second(units.read)
        .write_units_per_second(units.write)
        .build()
}

/// The stream of `view`, turned on.
pub(super) fn stream_specification(view: StreamView) -> StreamSpecification {
    StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::from(view.as_str()))
        .build()
        .expect("stream_enabled is set")
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
    create_table_if_missing_with(client, table, name, &TableSettings::default(), timeout).await
}

/// [`create_table_if_missing`] with one environment's [`TableSettings`]
/// (see [`create_table_input_with`]; bad settings are an error and nothing
/// is sent). Once a table it created is ACTIVE, it turns on what CreateTable
/// cannot: point-in-time recovery with the declared period
/// (UpdateContinuousBackups) and Contributor Insights in the declared mode
/// (UpdateContributorInsights). A table that existed already is left as it
/// is: [`sync_table_with`](crate::schema::sync_table_with) brings it in line.
///
/// ```no_run
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> Result<(), ddb_runtime::Error> {
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK", recovery_period_days = 35)]
/// struct Ecommerce;
/// use ddb_runtime::schema::{create_table_if_missing_with, TableSettings};
/// use ddb_runtime::Table;
/// use std::time::Duration;
/// let settings = TableSettings::default().kms_key("alias/orders");
/// create_table_if_missing_with(&client, &Ecommerce::DEF, "Ecommerce", &settings, Duration::from_secs(60)).await?;
/// # Ok(()) }
/// ```
pub async fn create_table_if_missing_with(
    client: &Client,
    table: &TableDef,
    name: &str,
    settings: &TableSettings,
    timeout: Duration,
) -> Result<TableCreated, Error> {
    let input = create_table_input_with(table, name, settings)?;
    let home = client.config().region().map(|region| region.as_ref());
    super::replicas::check(table, settings, home)?;
    let created = client
        .create_table()
        .table_name(name)
        .set_attribute_definitions(Some(input.attribute_definitions().to_vec()))
        .set_key_schema(Some(input.key_schema().to_vec()))
        .set_global_secondary_indexes(input.global_secondary_indexes.clone())
        .set_local_secondary_indexes(input.local_secondary_indexes.clone())
        .set_vector_indexes(input.vector_indexes.clone())
        .set_stream_specification(input.stream_specification.clone())
        .set_billing_mode(input.billing_mode().cloned())
        .set_table_class(input.table_class.clone())
        .set_sse_specification(input.sse_specification.clone())
        .set_tags(input.tags.clone())
        .set_on_demand_throughput(input.on_demand_throughput.clone())
        .set_warm_throughput(input.warm_throughput.clone())
        .set_resource_policy(input.resource_policy.clone())
        .send_on_for(client, (name, ""), table_exists)
        .await;
    let outcome = match created {
        Ok(_) => TableCreated::Created,
        Err(error) if table_exists(&error) => TableCreated::AlreadyExisted,
        Err(error) => return Err(error),
    };
    wait_until_active(client, name, timeout).await?;
    enable_time_to_live(client, table, name).await?;
    if outcome == TableCreated::Created {
        if let Some(days) = table.recovery_period_days {
            enable_point_in_time_recovery(client, name, days).await?;
        }
        if let Some(mode) = table.contributor_insights {
            enable_contributor_insights(client, name, mode).await?;
        }
        super::replicas::add_replicas(client, table, name, settings, timeout).await?;
    }
    Ok(outcome)
}

/// Point-in-time recovery on for table `name`, keeping `days` days
/// (UpdateContinuousBackups).
pub(super) async fn enable_point_in_time_recovery(
    client: &Client,
    name: &str,
    days: u8,
) -> Result<(), Error> {
    let specification = PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(true)
        .recovery_period_in_days(i32::from(days))
        .build()
        .map_err(|e| Error::InvalidRequest {
            entity: "",
            reason: e.to_string(),
        })?;
    client
        .update_continuous_backups()
        .table_name(name)
        .point_in_time_recovery_specification(specification)
        .send_on(client, name)
        .await?;
    Ok(())
}

/// Contributor Insights on for table `name` in `mode`
/// (UpdateContributorInsights).
pub(super) async fn enable_contributor_insights(
    client: &Client,
    name: &str,
    mode: ContributorInsights,
) -> Result<(), Error> {
    client
        .update_contributor_insights()
        .table_name(name)
        .contributor_insights_action(ContributorInsightsAction::Enable)
        .contributor_insights_mode(ContributorInsightsMode::from(mode.as_str()))
        .send_on(client, name)
        .await?;
    Ok(())
}

/// CreateTable's answer for a table that exists already.
fn table_exists(error: &Error) -> bool {
    let service = error.sdk_error();
    matches!(
        service,
        Some(aws_sdk_dynamodb::Error::ResourceInUseException(_))
    )
}

/// Whether time to live is on (or turning on) for table `name`, and the
/// attribute DynamoDB names for it.
pub(super) async fn time_to_live(
    client: &Client,
    name: &str,
) -> Result<(bool, Option<String>), Error> {
    let described = client
        .describe_time_to_live()
        .table_name(name)
        .send_on(client, name)
        .await?;
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
pub(super) async fn enable_time_to_live(
    client: &Client,
    table: &TableDef,
    name: &str,
) -> Result<(), Error> {
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
        .send_on(client, name)
        .await?;
    Ok(())
}

impl crate::db::Db {
    /// Creates table `T` under its physical name if it is missing, and waits
    /// until it is ACTIVE (at most a minute). For tests and local development.
    pub async fn create_table<T: Table + 'static>(&self) -> Result<TableCreated, Error> {
        create_table_if_missing(
            self.client(),
            &T::DEF,
            self.table_name::<T>(),
            Duration::from_secs(60),
        )
        .await
    }
}
