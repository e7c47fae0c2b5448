//! The item a failed condition met, when the server's answer left it out.
//!
//! Every conditioned write asks for the item its condition met
//! (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), alone or in a
//! transaction, and ddb maps the failure from it. DynamoDB always returns
//! it; on a server that does not, the item is read back, as long as
//! `transport::condition_items` says the server's empty answers are not yet
//! to be trusted.

use crate::db::Db;
use crate::item::Item;

/// The item a failed condition met: `returned`, the one the answer held,
/// or, when it held none and the server has not shown what it does, the
/// item at `key()` of the table named `table` read back once, strongly
/// consistent (the key is built only then). A read-back that fails is logged and leaves the answer as
/// it was.
pub(crate) async fn item_met(
    db: &Db,
    (table, entity): (&str, &'static str),
    key: impl FnOnce() -> Item,
    returned: Option<Item>,
) -> Option<Item> {
    let items = db.sdk().condition_items();
    if !items.read_back(returned.is_some()) {
        return returned;
    }
    match db.get_stored_in(table, entity, key(), true, &[]).await {
        Ok(Some(item)) => {
            items.read(true);
            tracing::warn!(
                entity,
                "the server returned no item for a failed condition, though one is stored: \
                 ddb reads it back (DynamoDB returns it; see docs/compatibility.md)"
            );
            Some(item)
        }
        Ok(None) => {
            items.read(false);
            None
        }
        // A read that failed showed nothing of the server.
        Err(error) => {
            // Its type, not its text: DynamoDB's messages can quote values.
            tracing::warn!(
                entity,
                error = %crate::telemetry::error_type(&error),
                "the item a failed condition met could not be read back; \
                 the failure is mapped as the server answered it"
            );
            None
        }
    }
}
