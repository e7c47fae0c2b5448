//! The table from code: its CreateTable input, create-if-missing, and sync
//! of a live table, from the `Table` and `Entity` declarations. The
//! templates, drift, IAM and reports built on them are the `ddb-tools`
//! crate.

mod create;
mod key_schema;
pub(crate) mod projection;
pub(crate) mod sync;
mod sync_plan;
mod vector;

pub use create::{create_table_if_missing, create_table_input, TableCreated};
pub use key_schema::key_attributes;
pub use sync::{plan_sync, sync_table};
pub use sync_plan::{SyncChange, SyncPlan};
