//! A backfill that keeps its cost in hand on an on-demand table: the warm
//! throughput raised before it starts, the on-demand throughput capped
//! while it runs and restored after.

use aws_sdk_dynamodb::types::{BillingMode, OnDemandThroughput, WarmThroughput};
use aws_sdk_dynamodb::Client;

use std::time::Duration;

use crate::error::{Error, Result};
use crate::tables::Units;
use crate::transport::table_operation::TableOperation;

/// How long a throughput change may take before the table is ACTIVE again.
const SETTLE: Duration = Duration::from_secs(600);

/// What a backfill changes of its table's throughput, and what it restores
/// (see [`Backfill::max_throughput`](super::Backfill::max_throughput)); its
/// `Display` says it in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThroughputPlan {
    /// The table is on demand: only then is anything changed.
    pub on_demand: bool,
    /// The warm throughput to raise to, from the table's (DynamoDB never
    /// lowers it, so it is not restored); `None` when already as warm.
    pub raise_warm: Option<(Option<Units>, Units)>,
    /// The maximum on-demand throughput while the backfill runs, and the
    /// table's before (`None`: no maximum), restored after.
    pub cap: Option<(Option<Units>, Units)>,
}

impl std::fmt::Display for ThroughputPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.on_demand {
            return writeln!(
                f,
                "the table is provisioned: its throughput is left as it is"
            );
        }
        let units = |u: Units| format!("{} reads and {} writes per second", u.read, u.write);
        if let Some((from, to)) = self.raise_warm {
            let from = from.map_or("none".to_owned(), units);
            writeln!(f, "raise the warm throughput from {from} to {}", units(to))?;
        }
        if let Some((before, cap)) = self.cap {
            let restore = before.map_or("no maximum".to_owned(), units);
            writeln!(
                f,
                "cap the on-demand throughput at {} while the backfill runs, then restore {restore}",
                units(cap)
            )?;
        }
        if self.raise_warm.is_none() && self.cap.is_none() {
            writeln!(f, "the throughput is left as it is")?;
        }
        Ok(())
    }
}

/// The plan for table `name` from DescribeTable: raise to `warm`, cap at
/// `max`.
pub(super) async fn plan(
    client: &Client,
    name: &str,
    warm: Option<Units>,
    max: Option<Units>,
) -> Result<ThroughputPlan> {
    let described = client
        .describe_table()
        .table_name(name)
        .send_on(client, name)
        .await?;
    let table = described.table();
    let billing = table
        .and_then(|t| t.billing_mode_summary())
        .and_then(|b| b.billing_mode());
    let on_demand = billing == Some(&BillingMode::PayPerRequest);
    let units = |read: Option<i64>, write: Option<i64>| match (read, write) {
        (Some(read), Some(write)) if read > 0 && write > 0 => Some(Units { read, write }),
        _ => None,
    };
    let found_warm = table
        .and_then(|t| t.warm_throughput())
        .and_then(|w| units(w.read_units_per_second(), w.write_units_per_second()));
    let found_max = table
        .and_then(|t| t.on_demand_throughput())
        .and_then(|t| units(t.max_read_request_units(), t.max_write_request_units()));
    let colder =
        |wanted: &Units| found_warm.is_none_or(|f| f.read < wanted.read || f.write < wanted.write);
    Ok(ThroughputPlan {
        on_demand,
        raise_warm: warm
            .filter(|w| on_demand && colder(w))
            .map(|w| (found_warm, w)),
        cap: max.filter(|_| on_demand).map(|m| (found_max, m)),
    })
}

/// Applies `plan` before the backfill: the warm throughput, then the cap,
/// each waited for until the table is ACTIVE.
pub(super) async fn apply(client: &Client, name: &str, plan: &ThroughputPlan) -> Result<()> {
    if let Some((_, warm)) = plan.raise_warm {
        let warm = WarmThroughput::builder()
            .read_units_per_second(warm.read)
            .write_units_per_second(warm.write)
            .build();
        let update = client.update_table().table_name(name).warm_throughput(warm);
        update.send_on(client, name).await?;
        crate::tables::wait_until_active(client, name, SETTLE).await?;
    }
    if let Some((_, cap)) = plan.cap {
        set_max(client, name, cap).await?;
    }
    Ok(())
}

/// Restores the maximum the table had before `plan` capped it.
pub(super) async fn restore(client: &Client, name: &str, plan: &ThroughputPlan) -> Result<()> {
    match plan.cap {
        // -1 removes a maximum (OnDemandThroughput).
        Some((before, _)) => {
            set_max(
                client,
                name,
                before.unwrap_or(Units {
                    read: -1,
                    write: -1,
                }),
            )
            .await
        }
        None => Ok(()),
    }
}

async fn set_max(client: &Client, name: &str, units: Units) -> Result<()> {
    let max = OnDemandThroughput::builder()
        .max_read_request_units(units.read)
        .max_write_request_units(units.write)
        .build();
    let update = client
        .update_table()
        .table_name(name)
        .on_demand_throughput(max);
    update.send_on(client, name).await?;
    crate::tables::wait_until_active(client, name, SETTLE).await
}

/// Units DynamoDB takes for a warm or maximum throughput: at least 1.
pub(super) fn check(units: Option<Units>) -> Result<()> {
    match units {
        Some(u) if u.read < 1 || u.write < 1 => Err(Error::InvalidRequest {
            entity: "",
            reason: "a backfill's warm or maximum throughput has units below 1".into(),
        }),
        _ => Ok(()),
    }
}
