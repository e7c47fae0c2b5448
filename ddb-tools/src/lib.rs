//! Design and operations tooling for [ddb](https://docs.rs/ddb-runtime)
//! declarations, kept out of the runtime a service links: the
//! CloudFormation, Terraform and NoSQL Workbench exports of a design and
//! the drift of a deployed template, least-privilege IAM policies, the
//! access-pattern report and what each pattern costs, and the
//! hot-partition report of the throttles a service met.
//!
//! Everything starts from the `Table` and `Entity` declarations the derives
//! produce (`Ecommerce::DEF`, `Order::SCHEMA`):
//!
//! ```
//! # #[derive(ddb_runtime::Table)]
//! # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
//! # struct Ecommerce;
//! # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
//! # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
//! # struct Order { customer_id: String, order_id: String }
//! use ddb_runtime::{Entity, Table};
//!
//! let template = ddb_tools::cloudformation(&[&Ecommerce::DEF], &ddb_tools::Deployment::default());
//! let policy = ddb_tools::iam::PolicyBuilder::new("arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce")
//!     .entity(&Order::SCHEMA, ddb_tools::iam::Access::ReadWrite)
//!     .build()?;
//! let report = ddb_tools::access_pattern_report(&[&Order::SCHEMA]);
//! # let _ = (template, policy, report);
//! # Ok::<(), ddb_tools::iam::PolicyError>(())
//! ```

pub mod cost;
mod hot_partitions;
pub mod iam;
mod report;
mod template;

pub use hot_partitions::hot_partition_report;
pub use report::access_pattern_report;
pub use template::{
    cdk, cloudformation, cloudformation_yaml, drift, drift_in, logical_id, terraform, workbench,
    Billing, Deployment, Template,
};
