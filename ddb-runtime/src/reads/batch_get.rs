//! BatchGetItem: entities read by key in chunks of 100, unprocessed keys
//! read again.

use crate::telemetry::Capacity;
use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::KeysAndAttributes;

use crate::db::Db;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::keys::key::KeyRef;
use crate::keys::key::KeyValues;

use crate::transport::batch::*;

/// How a BatchGetItem reads its keys: strongly consistent or not, whole
/// items or only some attributes (a projection expression and its names).
#[derive(Default)]
pub(crate) struct BatchRead {
    pub(crate) consistent: bool,
    pub(crate) projection: Option<(String, crate::expression::NameMap)>,
}

/// What a batch read of keys did: each chunk's outcome, by the keys'
/// positions; an item read is `(position, decoded)`.
pub(crate) type ReadOutcomes<T> = Vec<ChunkOutcome<usize, (usize, Result<T>)>>;

/// Reads the items at `keys` from `table` with BatchGetItem, as `read`
/// says: chunks of 100, a few chunks at once, unprocessed keys retried.
/// Each answer's items are decoded (`decode`; `None` skips an item) as it
/// arrives, while the other chunks are still on their way, and matched to
/// the key asked by their typed values. A key given twice is
/// `DuplicateKey`, with nothing sent.
pub(crate) async fn read_keys<E: crate::entity::Entity, T>(
    db: &Db,
    table: &str,
    values: &[KeyValues],
    read: &BatchRead,
    decode: impl Fn(Item) -> Option<Result<T>> + Copy,
) -> Result<ReadOutcomes<T>> {
    let entity = E::SCHEMA.entity_type;
    let policy = db.retry_policy();
    let requests: Vec<(usize, Item)> = values
        .iter()
        .map(|key| key.to_item(E::SCHEMA.table))
        .enumerate()
        .collect();
    let positions = positions(entity, values)?;
    let chunks = chunks(requests, GET_CHUNK);
    Ok(in_flight(policy, chunks, |chunk| {
        get_chunk::<E, T>(db, table, &positions, chunk, read, decode, policy)
    })
    .await)
}

/// Reads entities by key from `table` ([`read_keys`]). Returns the
/// entities found, in the order of `keys`. When keys stay unread,
/// `Unprocessed` names them and carries what was read (each entity read,
/// encoded again; an item that did not decode is left out). Else an item
/// that does not decode is the error.
pub(crate) async fn get_entities<E: crate::entity::Entity>(
    db: &Db,
    table: &str,
    keys: Vec<crate::keys::key::Key<E>>,
    decode: fn(Item) -> Option<Result<E>>,
) -> Result<Vec<E>> {
    let entity = E::SCHEMA.entity_type;
    let values: Vec<KeyValues> = keys
        .into_iter()
        .map(crate::keys::key::Key::into_values)
        .collect();
    let outcomes = read_keys::<E, E>(db, table, &values, &BatchRead::default(), decode).await?;
    let text = |&position: &usize| values[position].text();
    let as_item = |(_, read): (usize, Result<E>)| read.ok()?.to_item().ok();
    let (read, _) = combine(entity, "BatchGetItem", outcomes, text, as_item)?;
    let mut found: Vec<Option<E>> = std::iter::repeat_with(|| None).take(values.len()).collect();
    for (position, read) in read {
        found[position] = Some(read?);
    }
    Ok(found.into_iter().flatten().collect())
}

/// `keys`, as a BatchGetItem asks for them on a table, read as `read`
/// says. Eventually consistent is the default: `ConsistentRead` is sent
/// only when true.
fn keys_asked(
    entity: &'static str,
    keys: Vec<Item>,
    read: &BatchRead,
) -> Result<KeysAndAttributes> {
    let (projection, names) = read.projection.clone().unzip();
    KeysAndAttributes::builder()
        .set_keys(Some(keys))
        .set_consistent_read(read.consistent.then_some(true))
        .set_projection_expression(projection)
        .set_expression_attribute_names(names.flatten())
        .build()
        .map_err(|e| Error::InvalidRequest {
            entity,
            reason: e.to_string(),
        })
}

/// One chunk of a batch get, each found item decoded as its answer arrives
/// and matched to the position of its key (`positions`): an item at a key
/// its request did not ask, or found twice, cannot be placed.
async fn get_chunk<E: crate::entity::Entity, T>(
    db: &Db,
    table: &str,
    positions: &HashMap<KeyRef<'_>, usize>,
    keys: Vec<(usize, Item)>,
    read: &BatchRead,
    decode: impl Fn(Item) -> Option<Result<T>> + Copy,
    policy: RetryPolicy,
) -> ChunkOutcome<usize, (usize, Result<T>)> {
    let entity = E::SCHEMA.entity_type;
    let position = |item: &Item| position(&E::SCHEMA, positions, item);
    let send = |asked: &[usize], keys: Vec<Item>| {
        let mut asked: HashSet<usize> = asked.iter().copied().collect();
        async move {
            // Built before the span: a request that cannot be built is no
            // request.
            let keys = keys_asked(entity, keys, read)?;
            let span = db.span("BatchGetItem", table, None, entity);
            let capacity = db.consumed_capacity(&span, false);
            let request = db
                .client()
                .batch_get_item()
                .request_items(table, keys)
                .set_return_consumed_capacity(capacity);
            let output = db.send_in_span(&span, request).await?;
            let found = output
                .responses
                .and_then(|mut responses| responses.remove(table))
                .unwrap_or_default();
            let capacity = Capacity::of_tables(output.consumed_capacity);
            let (items, unplaced) = placed(found, &mut asked, position, decode);
            let left = output
                .unprocessed_keys
                .and_then(|mut keys| keys.remove(table))
                .map(|rest| rest.keys)
                .unwrap_or_default();
            Ok(Answer {
                left,
                items,
                unplaced,
                capacity,
                span,
            })
        }
    };
    // A read applies nothing: a failed request leaves its keys unread.
    until_processed(policy, keys, position, false, send).await
}

/// The items a request found, decoded (`decode`; `None` skips an item),
/// each at the position of its key, and how many cannot be placed: each key
/// the request `asked` is found once at most.
fn placed<T>(
    found: Vec<Item>,
    asked: &mut HashSet<usize>,
    position: impl Fn(&Item) -> Option<usize>,
    decode: impl Fn(Item) -> Option<Result<T>>,
) -> (Vec<(usize, Result<T>)>, usize) {
    let mut items = Vec::with_capacity(found.len());
    let mut unplaced = 0;
    for item in found {
        let Some(at) = position(&item).filter(|at| asked.remove(at)) else {
            unplaced += 1;
            continue;
        };
        if let Some(decoded) = decode(item) {
            items.push((at, decoded));
        }
    }
    (items, unplaced)
}

impl Db {
    /// Reads the items at `keys` with BatchGetItem: chunks of 100, a few at
    /// once, unprocessed keys retried. Returns the items found, in the order of
    /// `keys`; a key given twice is an error, with nothing sent. An item whose
    /// `#[ddb(ttl)]` time has passed is not found, as with
    /// [`get`](Self::get). When keys stay unread, [`Error::Unprocessed`]
    /// names them (`keys`) and carries what was read (`read`).
    pub async fn batch_get<E: crate::entity::Entity + 'static>(
        &self,
        keys: Vec<crate::keys::key::Key<E>>,
    ) -> Result<Vec<E>> {
        let decode = |item| {
            (!crate::item::timestamp::expired(&E::SCHEMA, &item)).then(|| E::from_item(item))
        };
        get_entities(self, self.table_name::<E::Table>(), keys, decode).await
    }

    /// The BatchGetItems [`batch_get`](Self::batch_get) sends first, one per
    /// chunk of 100 keys (as many chunks as its retry policy sends at once),
    /// not sent; checked as `batch_get` checks them.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, keys: Vec<ddb_runtime::Key<E>>) -> ddb_runtime::Result<()> {
    /// println!("{}", db.batch_get_dry_run(keys)?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn batch_get_dry_run<E: crate::entity::Entity + 'static>(
        &self,
        keys: Vec<crate::keys::key::Key<E>>,
    ) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = crate::transport::dry_run::sensitive_attributes(&E::SCHEMA);
        self.dry_run(self.batch_get(keys), sensitive.collect(), false)
    }
}
