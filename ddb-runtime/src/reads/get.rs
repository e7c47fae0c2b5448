//! GetItem: one item by its primary key, whole or projected.

use crate::db::Db;
use crate::telemetry::Capacity;

use crate::entity::Entity;
use crate::error::Result;
use crate::keys::key::Key;
use crate::reads::projection::Projection;
use crate::transport::dry_run::sensitive_attributes;

impl Db {
    /// A GetItem of one item by its primary key.
    pub fn get<E: Entity + 'static>(&self, key: Key<E>) -> GetItem<E> {
        GetItem {
            db: self.clone(),
            key,
            consistent: false,
            projection: None,
            include_expired: false,
        }
    }
}

/// A typed GetItem; finish with [`send`](GetItem::send).
#[must_use = "a request does nothing until it is sent"]
pub struct GetItem<E> {
    db: Db,
    key: Key<E>,
    consistent: bool,
    projection: Option<&'static [&'static str]>,
    include_expired: bool,
}

impl<E: Entity + 'static> GetItem<E> {
    /// A strongly consistent read (twice the read cost of an eventually
    /// consistent one).
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// Also returns an item whose `#[ddb(ttl)]` time has passed but that
    /// DynamoDB has not deleted yet (it can take days), when `true`. By
    /// default such an item reads as `None`.
    pub fn include_expired(mut self, include_expired: bool) -> Self {
        self.include_expired = include_expired;
        self
    }

    /// Reads only the attributes of projection type `P`.
    pub fn project<P: Projection<E>>(self) -> GetProjection<E, P> {
        GetProjection {
            get: GetItem {
                projection: Some(P::ATTRIBUTES),
                ..self
            },
            marker: std::marker::PhantomData,
        }
    }

    /// The projection expression and its names, when projecting.
    fn projection_parts(&self) -> Result<(Option<String>, crate::expression::NameMap)> {
        let projection = self
            .projection
            .map(|attributes| crate::reads::projection::expression::<E>(attributes, &[]));
        let (projection, names) = projection.transpose()?.unzip();
        Ok((projection, names.flatten()))
    }

    /// The GetItem [`send`](Self::send) would send, not sent.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, key: ddb_runtime::Key<E>) -> ddb_runtime::Result<()> {
    /// let dry = db.get(key).consistent_read(true).dry_run()?;
    /// println!("{dry}"); // GetItem, TableName, Key, ConsistentRead: true
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.fetch(), sensitive, false)
    }

    async fn fetch(&self) -> Result<Option<crate::item::Item>> {
        self.fetch_with_capacity(false).await.map(|(item, _)| item)
    }

    /// The stored item, and its capacity, asked of DynamoDB when `asked`.
    async fn fetch_with_capacity(
        &self,
        asked: bool,
    ) -> Result<(Option<crate::item::Item>, Capacity)> {
        let table = self.db.table_name::<E::Table>();
        let (projection, names) = self.projection_parts()?;
        let span = self.db.span("GetItem", table, None, E::SCHEMA.entity_type);
        let read = crate::telemetry::Read {
            consistent: self.consistent,
            projection: projection.as_deref(),
            ..Default::default()
        };
        span.reading(&read, names.as_ref());
        let request = self
            .db
            .client()
            .get_item()
            .table_name(table)
            .set_key(Some(self.key.to_item()))
            // Eventually consistent is the default: sent only when true.
            .set_consistent_read(self.consistent.then_some(true))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .set_return_consumed_capacity(self.db.consumed_capacity(&span, asked));
        let output = self.db.send_in_span(&span, request).await?;
        let capacity = crate::telemetry::Capacity::of(output.consumed_capacity);
        let item = output.item.filter(|item| {
            self.include_expired || !crate::item::timestamp::expired(&E::SCHEMA, item)
        });
        Ok((item, capacity))
    }

    /// Sends the GetItem and reports the read capacity it consumed, in all
    /// and by table and index.
    pub async fn send_with_capacity(self) -> Result<(Option<E>, Capacity)> {
        let (item, capacity) = self.fetch_with_capacity(true).await?;
        let entity = match item {
            Some(item) => Some(E::from_item(item).map_err(|e| e.with_key(&self.key))?),
            None => None,
        };
        Ok((entity, capacity))
    }

    /// The stored item, undecoded.
    pub(crate) async fn raw(self) -> Result<Option<crate::item::Item>> {
        self.fetch().await
    }

    /// Sends the GetItem: `None` when there is no such item.
    pub async fn send(self) -> Result<Option<E>> {
        match self.fetch().await? {
            Some(item) => E::from_item(item)
                .map(Some)
                .map_err(|e| e.with_key(&self.key)),
            None => Ok(None),
        }
    }
}

/// A GetItem decoding into projection type `P`.
#[must_use = "a request does nothing until it is sent"]
pub struct GetProjection<E, P> {
    get: GetItem<E>,
    marker: std::marker::PhantomData<fn() -> P>,
}

impl<E: Entity + 'static, P: Projection<E>> GetProjection<E, P> {
    /// A strongly consistent read.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.get.consistent = consistent;
        self
    }

    /// The GetItem [`send`](Self::send) would send, not sent.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static, P: ddb_runtime::Projection<E>>(get: ddb_runtime::GetProjection<E, P>) -> ddb_runtime::Result<()> {
    /// println!("{}", get.dry_run()?); // ProjectionExpression: ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        self.get.dry_run()
    }

    /// Sends the GetItem: `None` when there is no such item.
    pub async fn send(self) -> Result<Option<P>> {
        match self.get.fetch().await? {
            Some(item) => crate::reads::projection::decode::<E, P>(item)
                .map(Some)
                .map_err(|e| e.with_key(&self.get.key)),
            None => Ok(None),
        }
    }
}
