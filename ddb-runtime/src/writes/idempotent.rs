//! Idempotency keys on a create: the one-action case of a transaction under
//! an idempotency key (see `TransactWrite::idempotency_key`). A create whose
//! item key the caller computes afresh on every try (a server timestamp, a
//! new id) is applied once per request, across processes and restarts.

use std::time::Duration;

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::keys::guard::shown_key;
use crate::keys::key::Key;
use crate::transport::dry_run::sensitive_attributes;

pub use super::idempotency::DEFAULT_KEEP;

use super::create::{Create, Created};
use super::transaction::Transacted;

/// A create under an idempotency key; finish with
/// [`send`](IdempotentCreate::send).
#[must_use = "a request does nothing until it is sent"]
pub struct IdempotentCreate<E> {
    create: Create<E>,
    request: String,
    keep: Duration,
}

/// What a create under an idempotency key did, and the key of its item.
pub struct Idempotent<E> {
    /// [`Created::Created`] when this call wrote the item,
    /// [`Created::AlreadyExisted`] when an earlier call under the same
    /// idempotency key did.
    pub created: Created,
    /// The item's key: this call's, or the earlier call's.
    pub key: Key<E>,
}

impl<E: Entity> std::fmt::Debug for Idempotent<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Idempotent")
            .field("created", &self.created)
            .field("key", &self.key)
            .finish()
    }
}

impl<E> Clone for Idempotent<E> {
    fn clone(&self) -> Self {
        Idempotent {
            created: self.created,
            key: self.key.clone(),
        }
    }
}

impl<E> PartialEq for Idempotent<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.created, &self.key) == (other.created, &other.key)
    }
}

impl<E> Eq for Idempotent<E> {}

impl<E: Entity + 'static> Create<E> {
    /// Creates the item at most once for `request` (a request id the client
    /// sends with every try of one operation): a later create under the
    /// same key, even with a new item key (a fresh timestamp), writes
    /// nothing and reports the first item's key. The key is remembered for
    /// [`DEFAULT_KEEP`] unless [`keep_for`](IdempotentCreate::keep_for)
    /// says otherwise. A later create under the same key whose content
    /// differs (beyond the fields of its primary key, which a retry may
    /// compute afresh, the time to live and the stamps ddb writes) is
    /// [`Error::IdempotencyKeyReused`]. The create and its guard go as one
    /// TransactWriteItems: two write units per KB of each.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}")]
    /// # struct Order { customer_id: String, placed_at: u64, total_cents: u64 }
    /// let order = Order { customer_id: "123".into(), placed_at: 1_767_225_600, total_cents: 1999 };
    /// let placed = db.create(&order).idempotency_key("req-8f14e45f").send().await?;
    /// println!("order {:?} ({:?})", placed.key, placed.created);
    /// # Ok(()) }
    /// ```
    pub fn idempotency_key(self, request: impl Into<String>) -> IdempotentCreate<E> {
        IdempotentCreate {
            create: self,
            request: request.into(),
            keep: DEFAULT_KEEP,
        }
    }
}

impl<E: Entity + 'static> IdempotentCreate<E> {
    /// Remembers the idempotency key for `keep` (at least a second).
    pub fn keep_for(mut self, keep: Duration) -> Self {
        self.keep = keep.max(Duration::from_secs(1));
        self
    }

    /// The TransactWriteItems [`send`](Self::send) sends first, not sent:
    /// the create with its idempotency guard (and the guards of its unique
    /// values).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, entity: E) -> ddb_runtime::Result<()> {
    /// let dry = db.create(&entity).idempotency_key("req-42").dry_run()?;
    /// assert_eq!(dry.operation(), Some("TransactWriteItems"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.create.db.dry_run(self.sent(), sensitive, true)
    }

    /// Sends the create with its guard (and the guards of its unique
    /// values), then reports the first call's item when the key was used.
    pub async fn send(self) -> Result<Idempotent<E>> {
        self.sent().await
    }

    async fn sent(&self) -> Result<Idempotent<E>> {
        let (_, written) = self.create.content()?;
        let key = Key::<E>::from_values(written);
        let transaction = self.create.db.transact_write();
        let transaction = transaction
            .idempotency_key(&self.request)
            .keep_for(self.keep);
        let error = match transaction
            .clone()
            .create_built(self.create.clone())
            .send()
            .await
        {
            Ok(done) => return Ok(Idempotent::of(&done, key)),
            Err(error) => error,
        };
        match one_failure(error, &key) {
            // The same item is there (a create without this key made it):
            // the request is recorded alone, so that a retry with another
            // item key finds it.
            Error::AlreadyExists { existing, .. } if self.create.holds(existing.item()) => {
                let done = transaction.recording(&self.create).send().await?;
                Ok(Idempotent {
                    created: Created::AlreadyExisted,
                    ..Idempotent::of(&done, key)
                })
            }
            error => Err(error),
        }
    }
}

impl<E: Entity> Idempotent<E> {
    /// What the transaction that created the item at `key` under an
    /// idempotency key did.
    fn of(done: &Transacted, key: Key<E>) -> Self {
        let created = match done.replayed() {
            true => Created::AlreadyExisted,
            false => Created::Created,
        };
        let key = done.key(&key).unwrap_or(key);
        Idempotent { created, key }
    }
}

/// The failure of a one-action transaction's action at `key`, as the
/// write sent alone reports it (a cancellation for a reason only its code
/// tells stays one).
fn one_failure<E: Entity>(error: Error, key: &Key<E>) -> Error {
    let Error::TransactionCanceled { mut reasons } = error else {
        return error;
    };
    let text = shown_key(key.values().text());
    let at = reasons
        .iter()
        .position(|r| r.entity == E::SCHEMA.entity_type && r.key == text);
    match at.and_then(|at| reasons[at].error.take()) {
        Some(failure) => *failure,
        None => Error::TransactionCanceled { reasons },
    }
}
