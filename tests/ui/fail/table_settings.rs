use ddb_runtime::Table;

#[derive(Table)]
#[ddb(name = "NoRecovery", pk = "PK", recovery_period_days = 0)]
pub struct NoRecovery;

#[derive(Table)]
#[ddb(name = "TooLong", pk = "PK", recovery_period_days = 36)]
pub struct TooLong;

#[derive(Table)]
#[ddb(name = "Huge", pk = "PK", recovery_period_days = 1000)]
pub struct Huge;

#[derive(Table)]
#[ddb(name = "Glacier", pk = "PK", table_class = "glacier")]
pub struct Glacier;

#[derive(Table)]
#[ddb(name = "Insights", pk = "PK", contributor_insights = "all_keys")]
pub struct Insights;

#[derive(Table)]
#[ddb(name = "Twice", pk = "PK", table_class = "standard", table_class = "standard")]
pub struct Twice;

fn main() {}
