//! Infrastructure as code from the declarations: the CloudFormation (and
//! SAM) resource and the Terraform resource of each table, the NoSQL
//! Workbench model of a design, and the drift between a template and the
//! code.
//!
//! Every export starts from [`create_table_input`](super::create_table_input),
//! the CreateTable request ddb itself sends, so a template and a table ddb
//! creates never disagree; and a template is compared with the code by the
//! comparison [`plan_sync`](super::plan_sync) runs against a live table.

use ddb_runtime::model::TableDef;
use ddb_runtime::schema::TableSettings;
use ddb_runtime::Error;

mod cdk;
mod cloudformation;
mod described;
mod drift;
mod global_table;
mod terraform;
mod workbench;
mod yaml;

pub use cdk::cdk;
pub use cloudformation::{cloudformation, cloudformation_yaml, logical_id};
pub use drift::{drift, drift_in, Template};
pub use terraform::terraform;
pub use workbench::workbench;

/// How a table is billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Billing {
    /// On-demand (`PAY_PER_REQUEST`): paid per request, no capacity to plan.
    OnDemand,
    /// Provisioned capacity (`PROVISIONED`), the same for the table and each
    /// global index.
    Provisioned {
        /// Read capacity units.
        read: u32,
        /// Write capacity units.
        write: u32,
    },
}

/// What a deployment decides and the declarations do not: billing,
/// point-in-time recovery, deletion protection, the physical table names
/// (a stage's `prod-Ecommerce`; each table's declared name otherwise), and
/// each table's [`TableSettings`] (customer managed key, tags, maximum and
/// warm throughput, resource policy), the same for every table
/// ([`settings`](Self::settings)) or per table
/// ([`table_settings`](Self::table_settings)).
///
/// The default is what a production table commonly has: on-demand billing,
/// point-in-time recovery on, deletion protection off (turn it on for a
/// table a stack must never delete; the CloudFormation resource then also
/// has `DeletionPolicy` and `UpdateReplacePolicy` `Retain`).
///
/// ```
/// use ddb_tools::{Billing, Deployment};
/// let deployment = Deployment::default()
///     .billing(Billing::Provisioned { read: 5, write: 5 })
///     .deletion_protection(true)
///     .table_name("Ecommerce", "prod-Ecommerce");
/// assert!(deployment.point_in_time_recovery_enabled());
/// ```
///
/// With a customer managed key and tags for every table:
///
/// ```
/// use ddb_runtime::schema::TableSettings;
/// use ddb_tools::Deployment;
/// let key = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";
/// let deployment = Deployment::default()
///     .settings(TableSettings::default().kms_key(key).tag("stage", "prod"));
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// use ddb_runtime::Table;
/// assert_eq!(deployment.settings_of(&Ecommerce::DEF).kms_key_id(), Some(key));
/// deployment.check(&[&Ecommerce::DEF])?;
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployment {
    billing: Billing,
    point_in_time_recovery: bool,
    deletion_protection: bool,
    names: Vec<(String, String)>,
    settings: TableSettings,
    table_settings: Vec<(String, TableSettings)>,
}

impl Default for Deployment {
    fn default() -> Self {
        Deployment {
            billing: Billing::OnDemand,
            point_in_time_recovery: true,
            deletion_protection: false,
            names: Vec::new(),
            settings: TableSettings::default(),
            table_settings: Vec::new(),
        }
    }
}

impl Deployment {
    /// The billing mode.
    pub fn billing(mut self, billing: Billing) -> Self {
        self.billing = billing;
        self
    }

    /// Point-in-time recovery on (the default) or off.
    pub fn point_in_time_recovery(mut self, enabled: bool) -> Self {
        self.point_in_time_recovery = enabled;
        self
    }

    /// Deletion protection on or off (the default).
    pub fn deletion_protection(mut self, enabled: bool) -> Self {
        self.deletion_protection = enabled;
        self
    }

    /// Deploys the table declared as `declared` under the name `physical`
    /// (the name a `Db` is given with `with_table_name`).
    pub fn table_name(mut self, declared: impl Into<String>, physical: impl Into<String>) -> Self {
        let declared = declared.into();
        self.names.retain(|(d, _)| *d != declared);
        self.names.push((declared, physical.into()));
        self
    }

    /// The settings of every table this deployment does not give settings
    /// of its own with [`table_settings`](Self::table_settings).
    pub fn settings(mut self, settings: TableSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The settings of the table declared as `declared`, in place of
    /// [`settings`](Self::settings)'.
    pub fn table_settings(mut self, declared: impl Into<String>, settings: TableSettings) -> Self {
        let declared = declared.into();
        self.table_settings.retain(|(d, _)| *d != declared);
        self.table_settings.push((declared, settings));
        self
    }

    /// The settings of `table` in this deployment.
    pub fn settings_of(&self, table: &TableDef) -> &TableSettings {
        self.table_settings
            .iter()
            .find(|(declared, _)| declared == table.name)
            .map_or(&self.settings, |(_, settings)| settings)
    }

    /// Whether DynamoDB would take each table's settings (see
    /// [`TableSettings::check`]; an index they name must be a global index
    /// of the table). The exports write the settings as they are: check
    /// them first.
    pub fn check(&self, tables: &[&TableDef]) -> Result<(), Error> {
        for table in tables {
            ddb_runtime::schema::create_table_input_with(
                table,
                self.name_of(table),
                self.settings_of(table),
            )?;
        }
        Ok(())
    }

    /// The physical name of `table` in this deployment.
    pub fn name_of<'a>(&'a self, table: &'a TableDef) -> &'a str {
        self.names
            .iter()
            .find(|(declared, _)| declared == table.name)
            .map_or(table.name, |(_, physical)| physical)
    }

    /// The billing mode it sets.
    pub fn billing_mode(&self) -> Billing {
        self.billing
    }

    /// Whether point-in-time recovery is on.
    pub fn point_in_time_recovery_enabled(&self) -> bool {
        self.point_in_time_recovery
    }

    /// Whether deletion protection is on.
    pub fn deletion_protection_enabled(&self) -> bool {
        self.deletion_protection
    }
}

impl Billing {
    /// Its name in DynamoDB's API.
    fn as_str(self) -> &'static str {
        match self {
            Billing::OnDemand => "PAY_PER_REQUEST",
            Billing::Provisioned { .. } => "PROVISIONED",
        }
    }
}
