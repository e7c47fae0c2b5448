//! DynamoDB Streams, typed (feature `lambda`): the records of a stream
//! event, as AWS Lambda delivers them through `aws_lambda_events` 1.2
//! (re-exported as [`events`]), decoded into a [`Collection`] enum by each
//! item's entity type.
//!
//! One stream carries every entity of a single-table design. Each record
//! becomes a [`Change`]: what happened, the item's keys, and its old and new
//! images as far as the stream's view type carries them (none for
//! `KEYS_ONLY`, the new one for `NEW_IMAGE`, both for `NEW_AND_OLD_IMAGES`).
//! An image of an entity type the collection does not list is kept raw
//! ([`Image::Unknown`]), never dropped; an image that does not decode is an
//! [`Error::StreamRecord`] naming the record's sequence number.
//!
//! ```
//! # #[derive(ddb_runtime::Table)]
//! # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
//! # struct Ecommerce;
//! # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
//! # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
//! # struct Customer { customer_id: String }
//! # #[derive(ddb_runtime::Collection, Debug, Clone, PartialEq)]
//! # enum CustomerItem { Profile(Customer) }
//! use ddb_runtime::stream::{self, events::Event, Image, StreamEvent};
//! # fn handle(event: Event) -> ddb_runtime::Result<()> {
//! for change in stream::decode::<CustomerItem>(&event)? {
//!     if let (StreamEvent::Insert, Some(Image::Known(CustomerItem::Profile(c)))) = (change.event, &change.new) {
//!         println!("welcome {}", c.customer_id);
//!     }
//! }
//! # Ok(()) }
//! ```

pub use aws_lambda_events::event::dynamodb as events;

use crate::entity::Table;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::reads::collection::Collection;

/// What happened to the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEvent {
    /// A new item (`INSERT`).
    Insert,
    /// An existing item changed (`MODIFY`).
    Modify,
    /// The item was deleted (`REMOVE`), by a caller or by time to live.
    Remove,
}

/// One image of the item.
#[derive(Debug, Clone, PartialEq)]
pub enum Image<C> {
    /// An entity the collection lists, decoded.
    Known(C),
    /// An item of another entity type, as it was stored.
    Unknown {
        /// Its entity type (empty when the item has none).
        entity_type: String,
        /// The item's attributes.
        item: Item,
    },
}

/// One stream record, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Change<C> {
    /// What happened.
    pub event: StreamEvent,
    /// The item's key attributes.
    pub keys: Item,
    /// The item before the change, when the stream carries old images.
    pub old: Option<Image<C>>,
    /// The item after the change, when the stream carries new images.
    pub new: Option<Image<C>>,
    /// The record's sequence number in its shard.
    pub sequence_number: String,
    /// The record's unique id (`eventID`).
    pub event_id: String,
    /// Whether DynamoDB's time to live deleted the item (a `REMOVE` whose
    /// `userIdentity` is the DynamoDB service).
    pub expired: bool,
}

/// Every record of `event`, in order; the first that does not decode is
/// an error naming its sequence number.
pub fn decode<C: Collection>(event: &events::Event) -> Result<Vec<Change<C>>> {
    crate::error::try_map_all(event.records.iter(), decode_record::<C>)
}

/// One record of a stream event.
pub fn decode_record<C: Collection>(record: &events::EventRecord) -> Result<Change<C>> {
    let sequence_number = record.change.sequence_number.clone().unwrap_or_default();
    let failed = |source: Error| Error::StreamRecord {
        sequence_number: sequence_number.clone(),
        source: Box::new(source),
    };
    let event = match record.event_name.as_str() {
        "INSERT" => StreamEvent::Insert,
        "MODIFY" => StreamEvent::Modify,
        "REMOVE" => StreamEvent::Remove,
        other => {
            return Err(failed(Error::InvalidRequest {
                entity: "stream",
                reason: format!("unknown event name `{other}`"),
            }))
        }
    };
    let expired = event == StreamEvent::Remove
        && record.user_identity.as_ref().is_some_and(|who| {
            who.type_ == "Service" && who.principal_id == "dynamodb.amazonaws.com"
        });
    Ok(Change {
        event,
        keys: Item::from(record.change.keys.clone()),
        old: image::<C>(&record.change.old_image).map_err(failed)?,
        new: image::<C>(&record.change.new_image).map_err(failed)?,
        sequence_number: sequence_number.clone(),
        event_id: record.event_id.clone(),
        expired,
    })
}

/// An image decoded by its entity type; `None` when the record has none.
fn image<C: Collection>(image: &serde_dynamo::Item) -> Result<Option<Image<C>>> {
    let item = Item::from(image.clone());
    if item.is_empty() {
        return Ok(None);
    }
    let entity_type = item
        .get(<C::Table as Table>::DEF.entity_attribute)
        .and_then(|t| t.as_s().ok())
        .cloned()
        .unwrap_or_default();
    match C::from_item(&entity_type, item.clone()) {
        Some(decoded) => decoded.map(|c| Some(Image::Known(c))),
        None => Ok(Some(Image::Unknown { entity_type, item })),
    }
}

#[cfg(feature = "cache")]
impl<E: crate::entity::Entity + Clone + Send + Sync + 'static> crate::reads::cache::Cache<E> {
    /// Lets go of the item a stream record changed (any event: an insert,
    /// a change, a delete, an expiry).
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + Clone + Send + Sync + 'static, C>(cache: ddb_runtime::cache::Cache<E>, change: ddb_runtime::stream::Change<C>) {
    /// cache.apply(&change); // in the stream handler, for each record
    /// # }
    /// ```
    pub fn apply<C>(&self, change: &Change<C>) {
        self.invalidate_keys(&change.keys);
    }

    /// Lets go of the item of every record of a stream event.
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + Clone + Send + Sync + 'static>(cache: ddb_runtime::cache::Cache<E>, event: ddb_runtime::stream::events::Event) {
    /// cache.apply_event(&event); // the whole batch Lambda delivered
    /// # }
    /// ```
    pub fn apply_event(&self, event: &events::Event) {
        for record in &event.records {
            self.invalidate_keys(&Item::from(record.change.keys.clone()));
        }
    }
}
