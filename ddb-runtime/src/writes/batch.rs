//! BatchWriteItem: puts and deletes in chunks of 25, unprocessed requests
//! sent again.

use crate::telemetry::Capacity;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::WriteRequest;

use crate::db::Db;
use crate::declaration::model::EntitySchema;
use crate::error::Result;
use crate::expression::Placeholders;
use crate::keys::key::{KeyRef, KeyValues};
use crate::writes::plan::{Action, WritePlan};

use crate::transport::batch::*;
use crate::transport::dry_run::{sensitive_attributes, DryRun};

/// Writes `requests` to `table` with BatchWriteItem: chunks of 25, a few
/// chunks at once, unprocessed items retried. A key given twice is
/// `DuplicateKey`, with nothing sent. Every chunk is sent whatever happens
/// to the others; `Unprocessed` then names each key by what happened to it.
pub(crate) async fn write_requests(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    requests: Vec<(KeyValues, WriteRequest)>,
) -> Result<Capacity> {
    let policy = db.retry_policy();
    let (keys, requests): (Vec<KeyValues>, Vec<WriteRequest>) = requests.into_iter().unzip();
    let positions = positions(schema.entity_type, &keys)?;
    let requests = chunks(requests.into_iter().enumerate().collect(), WRITE_CHUNK);
    let outcomes = in_flight(policy, requests, |chunk| {
        write_chunk(db, table, schema, &positions, chunk, policy)
    })
    .await;
    let text = |&position: &usize| keys[position].text();
    let nothing_read = |never: std::convert::Infallible| match never {};
    combine(
        schema.entity_type,
        "BatchWriteItem",
        outcomes,
        text,
        nothing_read,
    )
    .map(|(_, capacity)| capacity)
}

/// The position of a write request's key (the put item's, or the
/// delete's) among the keys sent.
fn request_position(
    schema: &EntitySchema,
    positions: &HashMap<KeyRef<'_>, usize>,
    request: &WriteRequest,
) -> Option<usize> {
    let put = request.put_request().map(|put| put.item());
    let key = put.or_else(|| request.delete_request().map(|delete| delete.key()))?;
    position(schema, positions, key)
}

async fn write_chunk(
    db: &Db,
    table: &str,
    schema: &EntitySchema,
    positions: &HashMap<KeyRef<'_>, usize>,
    chunk: Vec<(usize, WriteRequest)>,
    policy: RetryPolicy,
) -> ChunkOutcome<usize, std::convert::Infallible> {
    let send = |_: &[usize], pending: Vec<WriteRequest>| async move {
        let span = db.span("BatchWriteItem", table, None, schema.entity_type);
        let sent = pending.len();
        span.batch_of(sent);
        let capacity = db.consumed_capacity(&span, false);
        let request = db
            .client()
            .batch_write_item()
            .request_items(table, pending)
            .set_return_consumed_capacity(capacity);
        let output = db.send_in_span(&span, request).await?;
        let left = output
            .unprocessed_items
            .and_then(|mut items| items.remove(table))
            .unwrap_or_default();
        let capacity = Capacity::of_tables(output.consumed_capacity);
        Ok(Answer {
            left,
            items: Vec::new(),
            unplaced: 0,
            capacity,
            span,
        })
    };
    let key_of = |request: &WriteRequest| request_position(schema, positions, request);
    until_processed(policy, chunk, key_of, true, send).await
}

impl Db {
    /// Writes `entities` with BatchWriteItem: chunks of 25, a few at once,
    /// unprocessed items retried with backoff (see [`RetryPolicy`]).
    ///
    /// Checked before anything is sent: no key twice, every item within
    /// 400 KB. BatchWriteItem takes no conditions, so versions are written as
    /// they are, unchecked. Every chunk is sent whatever happens to the
    /// others; when any key is left,
    /// [`Error::Unprocessed`](crate::Error::Unprocessed) names each one by
    /// what happened to it: written (`done`), not written (`keys`, with
    /// `causes`, each request that failed outright), or unknown (`unknown`:
    /// its answer was lost, so it may have been written; writing it again
    /// is safe).
    ///
    /// Returns the capacity DynamoDB reported, summed over the requests.
    pub async fn batch_put<E: crate::entity::Entity + 'static>(
        &self,
        entities: &[E],
    ) -> Result<Capacity> {
        let requests = batch_put_requests(entities)?;
        write_requests(self, self.table_name::<E::Table>(), &E::SCHEMA, requests).await
    }

    /// The BatchWriteItems [`batch_put`](Self::batch_put) sends first, one
    /// per chunk of 25 (as many chunks as its retry policy sends at once),
    /// not sent; checked as `batch_put` checks them.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, entities: Vec<E>) -> ddb_runtime::Result<()> {
    /// let dry = db.batch_put_dry_run(&entities)?;
    /// println!("{dry}"); // BatchWriteItem, PutRequest.Item: { ... }
    /// # Ok(())
    /// # }
    /// ```
    pub fn batch_put_dry_run<E: crate::entity::Entity + 'static>(
        &self,
        entities: &[E],
    ) -> Result<DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.dry_run(self.batch_put(entities), sensitive, false)
    }

    /// The BatchWriteItems [`batch_delete`](Self::batch_delete) sends first,
    /// as [`batch_put_dry_run`](Self::batch_put_dry_run), not sent.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, keys: Vec<ddb_runtime::Key<E>>) -> ddb_runtime::Result<()> {
    /// println!("{}", db.batch_delete_dry_run(keys)?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn batch_delete_dry_run<E: crate::entity::Entity + 'static>(
        &self,
        keys: Vec<crate::keys::key::Key<E>>,
    ) -> Result<DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.dry_run(self.batch_delete(keys), sensitive, false)
    }

    /// The delete requests of `keys`.
    fn batch_delete_requests<E: crate::entity::Entity + 'static>(
        &self,
        keys: Vec<crate::keys::key::Key<E>>,
    ) -> Result<Vec<(KeyValues, WriteRequest)>> {
        crate::writes::unique::refuse_batch::<E>()?;
        keys.into_iter()
            .map(|key| {
                let values = key.values().clone();
                Ok((values, self.delete(key).plan()?.into_write_request()?))
            })
            .collect()
    }

    /// Deletes the items at `keys` with BatchWriteItem (as
    /// [`batch_put`](Self::batch_put)), returning the capacity reported.
    pub async fn batch_delete<E: crate::entity::Entity + 'static>(
        &self,
        keys: Vec<crate::keys::key::Key<E>>,
    ) -> Result<Capacity> {
        let requests = self.batch_delete_requests(keys)?;
        write_requests(self, self.table_name::<E::Table>(), &E::SCHEMA, requests).await
    }
}

/// The put requests of `entities`, checked: every item within 400 KB.
fn batch_put_requests<E: crate::entity::Entity + 'static>(
    entities: &[E],
) -> Result<Vec<(KeyValues, WriteRequest)>> {
    crate::writes::unique::refuse_batch::<E>()?;
    let mut requests = Vec::with_capacity(entities.len());
    for entity in entities {
        // As a put: the created_at an entity carries is kept. BatchWriteItem
        // takes no condition, so the version is written as it is.
        let prepared = crate::writes::item::prepare(entity, false, None)?;
        let plan = WritePlan::new(
            prepared.key,
            Action::Put(prepared.item),
            None,
            Placeholders::default(),
        )?;
        let key = plan.key.values().clone();
        requests.push((key, plan.into_write_request()?));
    }
    Ok(requests)
}
