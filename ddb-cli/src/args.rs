//! The command line's arguments (clap).

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand};

use ddb_tools::{Billing, Deployment};

/// The design in the code: report it, export it, compare it with a
/// template or a live table, and bring the tables and their items in line
/// with it.
#[derive(Debug, Parser)]
#[command(name = "ddb", version)]
pub(super) struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// The access patterns the code declares, and (with samples) what each
    /// write and page read costs.
    Report {
        /// Items per page for the read costs (1 to 1000000).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        page: u32,
    },
    /// The least-privilege IAM policy for the entities' reads and writes.
    Iam {
        /// The ARN of each table, as TABLE=ARN (default
        /// arn:aws:dynamodb:*:*:table/TABLE).
        #[arg(long = "table-arn", value_name = "TABLE=ARN")]
        table_arns: Vec<String>,
        /// Grants an entity reads only (by Rust name or entity type).
        #[arg(long = "read-only", value_name = "ENTITY")]
        read_only: Vec<String>,
        /// Scopes every grant to the partitions of one value of a key
        /// field, e.g. customer_id='${aws:PrincipalTag/customer_id}'.
        #[arg(long = "scoped-to", value_name = "FIELD=VALUE")]
        scoped_to: Option<String>,
        /// The policy of create_table, sync_table, the backfill and check
        /// instead, for a migration job or a deployment.
        #[arg(long, conflicts_with_all = ["read_only", "scoped_to"])]
        maintenance: bool,
    },
    /// The CloudFormation (and SAM) template of the tables.
    Cloudformation {
        /// YAML instead of JSON.
        #[arg(long)]
        yaml: bool,
        #[command(flatten)]
        tables: TableArgs,
        #[command(flatten)]
        deployment: DeploymentArgs,
    },
    /// The Terraform configuration of the tables (write it to a .tf.json
    /// file).
    Terraform {
        #[command(flatten)]
        tables: TableArgs,
        #[command(flatten)]
        deployment: DeploymentArgs,
    },
    /// The NoSQL Workbench model of the design, with the samples as data.
    Workbench,
    /// What a template (CloudFormation JSON or YAML, Terraform JSON)
    /// declares differently from the code; exits 1 on drift.
    Drift {
        /// The template file.
        template: PathBuf,
        #[command(flatten)]
        tables: TableArgs,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// What `sync` would change in the tables; exits 1 when they differ
    /// from the code.
    PlanSync {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Creates missing tables, adds missing indexes, turns on time to live
    /// and streams; never deletes or re-keys.
    Sync {
        /// Applies without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Stored items an entity's indexes cannot hold, found without
    /// writing; exits 1 when there are any.
    Check {
        /// The entity (every entity when left out).
        entity: Option<String>,
        /// Scan segments.
        #[arg(long, default_value_t = 1)]
        segments: u32,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Writes the index attributes (and guards) stored items of an entity
    /// lack.
    Backfill {
        /// The entity (Rust name or entity type).
        entity: String,
        /// A file holding where the run got to: resumed from when it
        /// exists, removed when the backfill finishes.
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        /// Scan segments, run in parallel.
        #[arg(long, default_value_t = 1)]
        segments: u32,
        /// At most this many items scanned per second.
        #[arg(long)]
        items_per_second: Option<f64>,
        /// At most this many capacity units per second.
        #[arg(long)]
        capacity_per_second: Option<f64>,
        /// Machine-readable output of the final progress.
        #[arg(long)]
        json: bool,
    },
}

impl Command {
    /// Whether the command talks to DynamoDB.
    pub fn needs_dynamodb(&self) -> bool {
        matches!(
            self,
            Command::PlanSync { .. }
                | Command::Sync { .. }
                | Command::Check { .. }
                | Command::Backfill { .. }
        )
    }
}

/// Which tables a command covers, under which names.
#[derive(Debug, ClapArgs)]
pub(super) struct TableArgs {
    /// Only this table (by its declared name); repeat for several.
    #[arg(long = "table", value_name = "NAME")]
    pub only: Vec<String>,
    /// The physical name of a table, as DECLARED=PHYSICAL (a stage's
    /// `Ecommerce=prod-Ecommerce`).
    #[arg(long = "table-name", value_name = "DECLARED=PHYSICAL")]
    pub names: Vec<String>,
}

/// What the exports' deployment settings are.
#[derive(Debug, ClapArgs)]
pub(super) struct DeploymentArgs {
    /// Provisioned capacity READ,WRITE instead of on-demand billing.
    #[arg(long, value_name = "READ,WRITE", value_parser = parse_capacity)]
    provisioned: Option<(u32, u32)>,
    /// Point-in-time recovery off.
    #[arg(long)]
    no_point_in_time_recovery: bool,
    /// Deletion protection on (and the stack retains the tables).
    #[arg(long)]
    deletion_protection: bool,
}

impl DeploymentArgs {
    /// The deployment, with the physical names `names` gives.
    pub fn deployment(&self, names: &[(String, String)]) -> Deployment {
        let billing = match self.provisioned {
            Some((read, write)) => Billing::Provisioned { read, write },
            None => Billing::OnDemand,
        };
        let deployment = Deployment::default()
            .billing(billing)
            .point_in_time_recovery(!self.no_point_in_time_recovery)
            .deletion_protection(self.deletion_protection);
        names.iter().fold(deployment, |d, (declared, physical)| {
            d.table_name(declared.clone(), physical.clone())
        })
    }
}

fn parse_capacity(text: &str) -> Result<(u32, u32), String> {
    let (read, write) = text
        .split_once(',')
        .ok_or("give read and write capacity as READ,WRITE, e.g. 5,5")?;
    let units = |n: &str| match n.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "`{n}` is not a capacity: a whole number of units, at least 1"
        )),
    };
    Ok((units(read)?, units(write)?))
}
