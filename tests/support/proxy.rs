//! The fault-injecting proxy of the tests: ddb's own `local::FaultProxy`,
//! the same one users get with the `local` feature.

pub use ddb_local::{Fault, FaultProxy as Proxy, Held};
