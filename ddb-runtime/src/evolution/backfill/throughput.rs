//! A backfill that keeps its cost in hand on an on-demand table: the warm
//! throughput raised before it starts, the on-demand throughput capped
//! while it runs and restored after.

use std::time::Duration;

use aws_sdk_dynamodb::types::BillingMode;
use aws_sdk_dynamodb::Client;

use crate::error::{Error, Result};
use crate::tables::Units;
use crate::transport::table_operation::TableOperation;

/// How long a throughput change may take before the table is ACTIVE again.
const SETTLE: Duration = Duration::from_secs(600);

/// No maximum, in OnDemandThroughput's words.
const NO_MAXIMUM: i64 = -1;

/// What a backfill changes of its table's throughput, and what it restores
/// (see [`Backfill::max_throughput`](super::Backfill::max_throughput)); its
/// `Display` says it in words. A unit of `-1` is no maximum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThroughputPlan {
    /// The table is on demand: only then is anything changed.
    pub on_demand: bool,
    /// The warm throughput to raise to, each unit the higher of the
    /// table's and the one asked (DynamoDB never lowers it, so it is not
    /// restored), and the table's; `None` when already as warm.
    pub raise_warm: Option<(Option<Units>, Units)>,
    /// The table's maximum on-demand throughput before, restored after,
    /// and the cap while the backfill runs: each unit the lower of the
    /// table's and the one asked, so that a tighter maximum stays.
    pub cap: Option<(Units, Units)>,
}

impl std::fmt::Display for ThroughputPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.on_demand {
            return writeln!(
                f,
                "the table is provisioned: its throughput is left as it is"
            );
        }
        if let Some((from, to)) = self.raise_warm {
            let from = from.map_or("none".to_owned(), units);
            writeln!(f, "raise the warm throughput from {from} to {}", units(to))?;
        }
        if let Some((before, cap)) = self.cap {
            writeln!(
                f,
                "cap the on-demand throughput at {} while the backfill runs, then restore {}",
                units(cap),
                units(before)
            )?;
        }
        if self.raise_warm.is_none() && self.cap.is_none() {
            writeln!(f, "the throughput is left as it is")?;
        }
        Ok(())
    }
}

fn units(u: Units) -> String {
    let unit = |n: i64, what: &str| match n {
        NO_MAXIMUM => format!("no maximum of {what}"),
        n => format!("{n} {what}"),
    };
    format!(
        "{} and {} per second",
        unit(u.read, "reads"),
        unit(u.write, "writes")
    )
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
    let positive = |n: Option<i64>| n.filter(|n| *n > 0);
    let found_warm = table.and_then(|t| t.warm_throughput()).and_then(|w| {
        let (read, write) = (
            positive(w.read_units_per_second()),
            positive(w.write_units_per_second()),
        );
        Some(Units {
            read: read?,
            write: write?,
        })
    });
    let found_max = table.and_then(|t| t.on_demand_throughput());
    let before = Units {
        read: positive(found_max.and_then(|t| t.max_read_request_units())).unwrap_or(NO_MAXIMUM),
        write: positive(found_max.and_then(|t| t.max_write_request_units())).unwrap_or(NO_MAXIMUM),
    };
    let raise_warm = warm.filter(|_| on_demand).and_then(|wanted| {
        let to = match found_warm {
            Some(found) => Units {
                read: found.read.max(wanted.read),
                write: found.write.max(wanted.write),
            },
            None => wanted,
        };
        (Some(to) != found_warm).then_some((found_warm, to))
    });
    let lower = |found: i64, asked: i64| {
        if found == NO_MAXIMUM {
            asked
        } else {
            found.min(asked)
        }
    };
    let cap = max.filter(|_| on_demand).map(|asked| {
        let cap = Units {
            read: lower(before.read, asked.read),
            write: lower(before.write, asked.write),
        };
        (before, cap)
    });
    Ok(ThroughputPlan {
        on_demand,
        raise_warm,
        cap: cap.filter(|(before, cap)| before != cap),
    })
}

/// Raises the warm throughput `plan` names, waited for until the table is
/// ACTIVE.
pub(super) async fn warm(client: &Client, name: &str, plan: &ThroughputPlan) -> Result<()> {
    let Some((_, warm)) = plan.raise_warm else {
        return Ok(());
    };
    let warm = crate::tables::warm_throughput(warm);
    let update = client.update_table().table_name(name).warm_throughput(warm);
    update.send_on(client, name).await?;
    crate::tables::wait_until_active(client, name, SETTLE).await
}

/// The cap of `plan` while a backfill runs: set by [`Capped::set`], put
/// back by [`Capped::restore`], or, if dropped before (the backfill's
/// future dropped, a panic), by a task of its own on the caller's tokio
/// runtime.
pub(super) struct Capped {
    client: Client,
    name: String,
    before: Option<Units>,
}

impl Capped {
    /// Caps table `name` as `plan` says (nothing when it says nothing).
    /// From the moment the request is sent, dropping the result restores.
    pub(super) async fn set(client: &Client, name: &str, plan: &ThroughputPlan) -> Result<Self> {
        let mut capped = Self {
            client: client.clone(),
            name: name.to_owned(),
            before: None,
        };
        if let Some((before, cap)) = plan.cap {
            capped.before = Some(before);
            set_max(client, name, cap).await?;
        }
        Ok(capped)
    }

    /// Puts the table's maximum back.
    pub(super) async fn restore(mut self) -> Result<()> {
        match self.before.take() {
            Some(before) => set_max(&self.client, &self.name, before).await,
            None => Ok(()),
        }
    }
}

impl Drop for Capped {
    fn drop(&mut self) {
        let Some(before) = self.before.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (client, name) = (self.client.clone(), std::mem::take(&mut self.name));
            runtime.spawn(async move {
                let _ = set_max(&client, &name, before).await;
            });
        }
    }
}

async fn set_max(client: &Client, name: &str, units: Units) -> Result<()> {
    let max = crate::tables::on_demand_throughput(units);
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
