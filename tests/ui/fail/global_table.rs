use ddb_runtime::Table;

#[derive(Table)]
#[ddb(name = "Unknown", pk = "PK", multi_region_consistency = "quorum")]
pub struct Unknown;

#[derive(Table)]
#[ddb(name = "NoStream", pk = "PK", multi_region_consistency = "eventual")]
pub struct NoStream;

#[derive(Table)]
#[ddb(
    name = "KeysOnly",
    pk = "PK",
    stream = "keys_only",
    multi_region_consistency = "eventual"
)]
pub struct KeysOnly;

#[derive(Table)]
#[ddb(name = "NotGlobal", pk = "PK", single_region_writes)]
pub struct NotGlobal;

#[derive(Table)]
#[ddb(
    name = "Valued",
    pk = "PK",
    multi_region_consistency = "strong",
    single_region_writes = true
)]
pub struct Valued;

#[derive(Table)]
#[ddb(
    name = "Expiring",
    pk = "PK",
    sk = "SK",
    ttl = "expiresAt",
    multi_region_consistency = "strong"
)]
#[ddb(local_index(name = "LSI1", sk = "LSI1SK"))]
pub struct Expiring;

fn main() {}
