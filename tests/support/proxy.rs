//! The fault-injecting proxy of the tests: `ddb_local::FaultProxy`, the
//! same one users get from the `ddb-local` crate.

pub use ddb_local::{Delayed, Fault, FaultProxy as Proxy, Held};
