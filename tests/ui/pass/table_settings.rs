use ddb_runtime::model::{ContributorInsights, TableClass};
use ddb_runtime::Table;

#[derive(Table)]
#[ddb(
    name = "Vault",
    pk = "PK",
    table_class = "standard_infrequent_access",
    recovery_period_days = 35,
    contributor_insights = "accessed_and_throttled_keys"
)]
pub struct Vault;

#[derive(Table)]
#[ddb(name = "Plain", pk = "PK", table_class = "standard", recovery_period_days = 1)]
pub struct Plain;

const _: () = assert!(matches!(Vault::DEF.table_class, TableClass::StandardInfrequentAccess));
const _: () = assert!(matches!(Vault::DEF.recovery_period_days, Some(35)));
const _: () = assert!(matches!(
    Vault::DEF.contributor_insights,
    Some(ContributorInsights::AccessedAndThrottledKeys)
));
const _: () = assert!(matches!(Plain::DEF.table_class, TableClass::Standard));
const _: () = assert!(Plain::DEF.contributor_insights.is_none());

fn main() {}
