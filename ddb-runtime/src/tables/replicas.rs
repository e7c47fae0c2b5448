//! Global tables: the Regions a deployment replicates a table to, checked
//! against its declared consistency mode, and the UpdateTable requests that
//! add them once the table is ACTIVE.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    CreateGlobalTableWitnessGroupMemberAction, CreateReplicationGroupMemberAction,
    GlobalTableWitnessGroupUpdate, MultiRegionConsistency as SdkConsistency,
    ReplicationGroupUpdate,
};
use aws_sdk_dynamodb::Client;

use crate::declaration::model::{MultiRegionConsistency, TableDef};
use crate::error::Error;
use crate::transport::table_operation::TableOperation;

use super::active::wait_until_active;
use super::settings::{invalid, TableSettings};

/// The Region sets of multi-Region strong consistency: a table's replicas
/// and witness all lie in one.
const STRONG_REGION_SETS: [&[&str]; 3] = [
    &["us-east-1", "us-east-2", "us-west-2"],
    &["eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"],
    &["ap-northeast-1", "ap-northeast-2", "ap-northeast-3"],
];

/// Whether the replicas and witness of `settings` can replicate `table`
/// from `home`, the Region it is created in (unknown to a template): a
/// consistency mode is declared for them; under strong consistency there
/// are three Regions, or two and a witness, in one Region set; a witness
/// only under strong consistency; the home Region is not its own replica.
pub(crate) fn check(
    table: &TableDef,
    settings: &TableSettings,
    home: Option<&str>,
) -> Result<(), Error> {
    let replicas = settings.replica_regions();
    let witness = settings.witness_region();
    if replicas.is_empty() && witness.is_none() {
        return Ok(());
    }
    let Some(mode) = table.multi_region_consistency else {
        return Err(invalid(format!(
            "replicas are given for table {}, which declares no multi_region_consistency: declare \"eventual\" or \"strong\" on it",
            table.name
        )));
    };
    if let Some(home) = home.filter(|home| replicas.iter().any(|r| r == home)) {
        return Err(invalid(format!(
            "`{home}` is the Region the table is created in, not a replica of it"
        )));
    }
    if let Some(home) = home.filter(|home| witness == Some(*home)) {
        return Err(invalid(format!(
            "`{home}` is the Region the table is created in: the witness is a Region of its own"
        )));
    }
    match mode {
        MultiRegionConsistency::Eventual if witness.is_some() => Err(invalid(
            "a witness serves multi-Region strong consistency only".to_owned(),
        )),
        MultiRegionConsistency::Eventual => Ok(()),
        MultiRegionConsistency::Strong => check_strong(replicas, witness, home),
    }
}

fn check_strong(
    replicas: &[String],
    witness: Option<&str>,
    home: Option<&str>,
) -> Result<(), Error> {
    let regions = replicas.len() + 1;
    if !matches!((regions, witness), (3, None) | (2, Some(_))) {
        return Err(invalid(format!(
            "multi-Region strong consistency takes three Regions, or two and a witness: this table has {regions} (its own and {} replicas){}",
            replicas.len(),
            if witness.is_some() { " and a witness" } else { "" }
        )));
    }
    let all: Vec<&str> = replicas
        .iter()
        .map(String::as_str)
        .chain(witness)
        .chain(home)
        .collect();
    let one_set = STRONG_REGION_SETS
        .iter()
        .any(|set| all.iter().all(|region| set.contains(region)));
    if !one_set {
        return Err(invalid(format!(
            "multi-Region strong consistency keeps its Regions in one set (us-east-1, us-east-2, us-west-2; eu-west-1, eu-west-2, eu-west-3, eu-central-1; ap-northeast-1, ap-northeast-2, ap-northeast-3): {} are not",
            all.join(", ")
        )));
    }
    Ok(())
}

/// Adds the replicas and witness of `settings` to table `name`, just
/// created: under strong consistency in one UpdateTable (the table must be
/// empty), under eventual consistency one replica an UpdateTable, each
/// waited for until the table is ACTIVE again.
pub(super) async fn add_replicas(
    client: &Client,
    table: &TableDef,
    name: &str,
    settings: &TableSettings,
    timeout: Duration,
) -> Result<(), Error> {
    let replicas = settings.replica_regions();
    if replicas.is_empty() {
        return Ok(());
    }
    if table.multi_region_consistency == Some(MultiRegionConsistency::Strong) {
        add(
            client,
            name,
            settings,
            replicas,
            settings.witness_region(),
            true,
        )
        .await?;
        return wait_until_active(client, name, timeout).await;
    }
    for replica in replicas {
        add(
            client,
            name,
            settings,
            std::slice::from_ref(replica),
            None,
            false,
        )
        .await?;
        wait_until_active(client, name, timeout).await?;
    }
    Ok(())
}

/// One UpdateTable adding `replicas` (each with its key in `settings`)
/// and `witness` to table `name`.
pub(super) async fn add(
    client: &Client,
    name: &str,
    settings: &TableSettings,
    replicas: &[String],
    witness: Option<&str>,
    strong: bool,
) -> Result<(), Error> {
    let updates = replicas
        .iter()
        .map(|region| {
            let create = CreateReplicationGroupMemberAction::builder()
                .region_name(region)
                .set_kms_master_key_id(settings.replica_kms_key_of(region).map(str::to_owned))
                .build()
                .map_err(|e| invalid(e.to_string()))?;
            Ok(ReplicationGroupUpdate::builder().create(create).build())
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let witness = witness
        .map(|region| {
            let create = CreateGlobalTableWitnessGroupMemberAction::builder()
                .region_name(region)
                .build()
                .map_err(|e| invalid(e.to_string()))?;
            Ok::<_, Error>(
                GlobalTableWitnessGroupUpdate::builder()
                    .create(create)
                    .build(),
            )
        })
        .transpose()?;
    client
        .update_table()
        .table_name(name)
        .set_replica_updates((!updates.is_empty()).then_some(updates))
        .set_global_table_witness_updates(witness.map(|w| vec![w]))
        .set_multi_region_consistency(strong.then_some(SdkConsistency::Strong))
        .send_on(client, name)
        .await?;
    Ok(())
}
