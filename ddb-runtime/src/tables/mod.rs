//! The schema from code: CreateTable input, create-if-missing, sync, the
//! access-pattern and hot-partition reports, the IAM policy and the cost estimate, all from the
//! `Table` and `Entity` declarations.

pub mod cost;
mod create;
mod hot_partitions;
pub mod iam;
mod key_schema;
mod projection;
mod report;
mod sync;
mod sync_plan;
mod template;
mod vector;

pub use create::{create_table_if_missing, create_table_input, TableCreated};
pub use hot_partitions::hot_partition_report;
pub use key_schema::key_attributes;
pub use report::access_pattern_report;
pub use sync::{plan_sync, sync_table};
pub use sync_plan::{SyncChange, SyncPlan};
pub use template::{
    cloudformation, cloudformation_yaml, drift, logical_id, terraform, workbench, Billing,
    Deployment, Template,
};
