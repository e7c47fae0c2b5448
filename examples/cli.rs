//! The store's command line: the single-table design with its seed as
//! samples, as `examples/store_cli` runs it and the tests drive it.

use ddb_cli::Cli;
use ddb_runtime::Db;

use crate::single_table as store;

/// The store's design for the command line, without a connection: its
/// entities and a seed item of each as samples.
pub fn design() -> Cli {
    let (customers, orders, lines) = store::seed_entities();
    let samples = || -> ddb_runtime::Result<Cli> {
        Cli::new("Online store")
            .entity::<store::Customer>()
            .entity::<store::Order>()
            .entity::<store::OrderItem>()
            .sample(&customers[0])?
            .sample(&orders[0])?
            .sample(&lines[0])
    };
    samples().expect("the seed items encode")
}

/// [`design`], connected where the examples run (`DDB_ENDPOINT`, real AWS
/// with `DDB_REAL_AWS=1`, else an embedded local DynamoDB kept for the
/// life of the process).
pub fn store() -> Cli {
    design().connect(|| async {
        let (client, _target, local) = crate::connect::client().await.map_err(|e| e.to_string())?;
        // The embedded server lives as long as the command.
        std::mem::forget(local);
        Ok(Db::new(client))
    })
}
