//! TransactGetItems: consistent reads of up to 100 items of any entities.

use aws_sdk_dynamodb::types::{Get, TransactGetItem};

use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::item::Item;
use crate::keys::key::Key;

/// DynamoDB's limit on items in one TransactGetItems.
const MAX_ITEMS: usize = 100;

impl Db {
    /// A new read transaction.
    pub fn transact_get(&self) -> TransactGet {
        TransactGet {
            db: self.clone(),
            gets: Vec::new(),
            refused: None,
        }
    }
}

/// A TransactGetItems: consistent reads of up to 100 items of any entities.
#[must_use = "a transaction does nothing until it is sent"]
pub struct TransactGet {
    db: Db,
    gets: Vec<(&'static str, String, Item)>,
    /// A get of a table where DynamoDB runs no transaction: its entity and
    /// why.
    refused: Option<(&'static str, String)>,
}

/// The items a [`TransactGet`] read, in the order asked.
#[derive(Debug, Clone)]
pub struct TransactGetOutput {
    items: Vec<Option<Item>>,
    /// When the items were read (epoch seconds), for their time to live.
    read_at: i64,
}

impl TransactGetOutput {
    /// The item at position `index`, decoded as `E` (`None` when missing,
    /// or when its `#[ddb(ttl)]` time had passed when it was read, as with
    /// [`Db::get`]).
    pub fn get<E: Entity>(&self, index: usize) -> Result<Option<E>> {
        match self.items.get(index) {
            Some(Some(item))
                if !crate::item::timestamp::expired_at(&E::SCHEMA, item, self.read_at) =>
            {
                E::from_item(item.clone()).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// How many items were asked for.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing was asked for.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl TransactGet {
    /// Reads the item at `key`.
    pub fn get<E: Entity + 'static>(mut self, key: Key<E>) -> Self {
        let table = self.db.table_name::<E::Table>().to_owned();
        self.gets
            .push((E::SCHEMA.entity_type, table, key.to_item()));
        if let Some(reason) = E::SCHEMA.table.transactions_refused() {
            self.refused.get_or_insert((E::SCHEMA.entity_type, reason));
        }
        self
    }

    /// The actions of the request, checked: 1 to 100 gets.
    fn items(&self) -> Result<Vec<TransactGetItem>> {
        if let Some((entity, reason)) = &self.refused {
            return Err(invalid(entity, reason.clone()));
        }
        if self.gets.is_empty() || self.gets.len() > MAX_ITEMS {
            return Err(invalid(
                "transaction",
                format!(
                    "{} gets; a read transaction holds 1 to {MAX_ITEMS}",
                    self.gets.len()
                ),
            ));
        }
        self.gets
            .iter()
            .map(|(entity, table, key)| {
                Get::builder()
                    .table_name(table)
                    .set_key(Some(key.clone()))
                    .build()
                    .map(|get| TransactGetItem::builder().get(get).build())
                    .map_err(|e| invalid(entity, e.to_string()))
            })
            .collect::<Result<Vec<_>>>()
    }

    /// The TransactGetItems [`send`](Self::send) would send, not sent;
    /// checked as `send` checks it.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, a: ddb_runtime::Key<E>) -> ddb_runtime::Result<()> {
    /// println!("{}", db.transact_get().get(a).dry_run()?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        // A get names a key only, and no key holds a sensitive field.
        self.db.dry_run(self.sent(), Vec::new(), false)
    }

    /// Sends the TransactGetItems.
    pub async fn send(self) -> Result<TransactGetOutput> {
        self.sent().await
    }

    async fn sent(&self) -> Result<TransactGetOutput> {
        let items = self.items()?;
        let names = self
            .gets
            .iter()
            .map(|(entity, table, _)| (*entity, table.as_str()));
        let (tables, entity) = crate::telemetry::span_names(names);
        let span = self
            .db
            .span_of_tables("TransactGetItems", &tables, None, entity);
        span.batch_of(self.gets.len());
        let read_at = crate::item::timestamp::now_epoch_seconds();
        let request = self
            .db
            .client()
            .transact_get_items()
            .set_transact_items(Some(items))
            .set_return_consumed_capacity(self.db.consumed_capacity(&span, false));
        let output = self.db.send_in_span(&span, request).await?;
        let mut items: Vec<Option<Item>> = output
            .responses
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.item)
            .collect();
        items.resize(self.gets.len(), None);
        Ok(TransactGetOutput { items, read_at })
    }
}

fn invalid(entity: &'static str, reason: String) -> crate::error::Error {
    crate::error::Error::InvalidRequest { entity, reason }
}
