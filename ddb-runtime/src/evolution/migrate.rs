//! Schema versions: a stored item migrated, one version at a time, to the
//! shape today's code reads.

use crate::entity::Entity;
use crate::error::Error;
use crate::item::stored::{item_key_text, schema_version, SCHEMA_VERSION_ATTRIBUTE};
use crate::item::Item;

/// A migration of a versioned entity's stored item, one version up.
pub type Migration = fn(&mut Item) -> Result<(), String>;

/// `item` brought from its stored schema version (1 when it has none) to
/// `E`'s, through `chain` (`(from, migration)`, in order); the version
/// attribute is taken off.
pub fn migrate<E: Entity>(mut item: Item, chain: &[(u32, Migration)]) -> Result<Item, Error> {
    let schema = &E::SCHEMA;
    let current = schema.schema_version;
    let failed = |item: &Item, from: u32, reason: String| Error::Migration {
        entity: schema.entity_type,
        key: item_key_text(schema.table, item),
        from,
        reason,
    };
    // Taken off and read in one lookup: an item is decoded per call.
    let stored = match schema_version(item.remove(SCHEMA_VERSION_ATTRIBUTE).as_ref()) {
        Ok(stored) => stored,
        Err(reason) => return Err(failed(&item, 0, reason)),
    };
    if stored > current {
        return Err(failed(
            &item,
            stored,
            format!(
                "written by code at schema version {stored}, newer than this code's {current}: \
                 deploy the newer code everywhere before it writes"
            ),
        ));
    }
    for (from, migration) in chain.iter().filter(|(from, _)| *from >= stored) {
        migration(&mut item).map_err(|reason| failed(&item, *from, reason))?;
    }
    Ok(item)
}
