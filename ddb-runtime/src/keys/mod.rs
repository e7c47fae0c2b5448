//! Keys: how typed fields become key attributes and back, sort conditions,
//! and write sharding.

pub mod guard;
pub mod key;
pub mod segment;
pub mod shard;
pub mod sort;
