//! What a put, delete or update left behind, and the rules its return
//! values follow.

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::telemetry::Capacity;

use super::item::{has_unique, version_attribute};

/// What a put, delete or update left behind.
#[derive(Debug, Clone, PartialEq)]
pub struct Written<E> {
    /// The version now stored, for entities with `#[ddb(version)]`, when the
    /// write knows it without asking DynamoDB for more: a put (the entity's
    /// version plus 1), an update that expected a version or read the item
    /// first (the one it replaced plus 1), or an update with
    /// [`return_new`](crate::Update::return_new). `None` on a delete, and on
    /// any other update, which asks DynamoDB to return nothing.
    pub version: Option<u64>,
    /// The item before the write (put and delete with `return_old`) or after
    /// it (update with `return_new`), decoded. `None` when none was asked
    /// for, or when the returned item does not decode as `E`: the write was
    /// applied all the same, and [`raw`](Self::raw) holds what DynamoDB sent.
    pub item: Option<E>,
    /// The attributes DynamoDB returned, undecoded.
    pub raw: Option<crate::item::Item>,
    /// The capacity DynamoDB reported the write consumed, table and indexes:
    /// asked of DynamoDB only on a handle made
    /// [`with_return_consumed_capacity`](crate::Db::with_return_consumed_capacity)
    /// or [`with_capacity_meter`](crate::Db::with_capacity_meter), or when a `tracing` subscriber records the write's span; zero
    /// otherwise.
    pub capacity: Capacity,
}

/// A transaction returns no item: an exactly-once write cannot return one.
pub(crate) fn no_return_values<E: Entity>(asked: bool) -> Result<()> {
    if asked {
        return Err(Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: "an exactly-once write is a transaction, which returns no item; \
                     drop return_old/return_new or read the item afterwards"
                .into(),
        });
    }
    Ok(())
}

/// A put or delete returns the item it replaced (`return_old`) only when
/// sent as a plain PutItem or DeleteItem, not as a transaction: one sent
/// exactly once, or one of an entity with unique values, is a transaction.
pub(crate) fn return_old_allowed<E: Entity>(return_old: bool, exactly_once: bool) -> Result<()> {
    if exactly_once || has_unique::<E>() {
        return no_return_values::<E>(return_old);
    }
    Ok(())
}

/// `expect_version` needs a `#[ddb(version)]` field to compare.
pub(crate) fn require_version<E: Entity>() -> Result<()> {
    match version_attribute(&E::SCHEMA) {
        Some(_) => Ok(()),
        None => Err(Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: format!(
                "expect_version needs a #[ddb(version)] field, and {} has none",
                E::SCHEMA.rust_name
            ),
        }),
    }
}

impl<E: Entity> Written<E> {
    /// The outcome of a write DynamoDB applied: the returned attributes are
    /// decoded when they can be, and never turn the write into an error.
    pub(crate) fn applied(
        version: Option<u64>,
        returned: Option<crate::item::Item>,
        decode: bool,
        capacity: Capacity,
    ) -> Self {
        // Copied only to decode: a put or delete's old item, an update's
        // new one (`return_new`).
        let item = match &returned {
            Some(raw) if decode => E::from_item(raw.clone()).ok(),
            _ => None,
        };
        Written {
            version,
            item,
            raw: returned,
            capacity,
        }
    }
}
