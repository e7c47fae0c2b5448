//! The table from code: its CreateTable input, create-if-missing, and sync
//! of a live table, from the `Table` and `Entity` declarations. The
//! templates, drift, IAM and reports built on them are the `ddb-tools`
//! crate.

mod active;
mod create;
mod key_schema;
pub(crate) mod projection;
pub(crate) mod replicas;
mod settings;
pub(crate) mod sync;
mod sync_plan;
pub(crate) mod sync_settings;
mod vector;

pub(crate) use active::wait_until_active;
pub use create::{
    create_table_if_missing, create_table_if_missing_with, create_table_input,
    create_table_input_with, TableCreated,
};
pub(crate) use create::{on_demand_throughput, warm_throughput};
pub use key_schema::key_attributes;
pub use settings::{TableSettings, Units};
pub use sync::{plan_sync, plan_sync_with, sync_table, sync_table_with};
pub use sync_plan::{SyncChange, SyncPlan};
