//! An idempotent create: the item is written unless a live item has its
//! key, and a retry that meets its own item succeeds.

use crate::transport::attempts::Attempts;
use crate::writes::item::has_unique;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{cloned, Error, ExistingItem, Result};
use crate::expression::Placeholders;
use crate::keys::key::{Key, KeyValues};
use crate::telemetry::Capacity;
use crate::transport::dry_run::sensitive_attributes;
use crate::writes::idempotency::{item_content, Content};

use super::item::{absent_or_expired, prepare, same_item, stamp_attributes, Prepared};
use super::plan::{Action, WritePlan};

/// Whether `create` wrote the item or found it already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// The item was written.
    Created,
    /// An identical item was already stored (a retried create): nothing changed.
    AlreadyExisted,
}

/// An idempotent create; finish with [`send`](Create::send).
#[must_use = "a request does nothing until it is sent"]
pub struct Create<E> {
    pub(super) db: Db,
    prepared: Result<Prepared<E>>,
    exactly_once: bool,
}

impl<E> Clone for Create<E> {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            prepared: cloned(&self.prepared),
            exactly_once: self.exactly_once,
        }
    }
}

impl Db {
    /// Writes `entity` if no item has its key (`attribute_not_exists`).
    ///
    /// Idempotent: when the item is already there and holds the same data
    /// (ignoring the `created_at`/`updated_at` ddb sets), the call succeeds
    /// with [`Created::AlreadyExisted`], so a retry after a lost response is
    /// safe. A different item at the key is [`Error::AlreadyExists`], carrying
    /// the stored item. A `#[ddb(version)]` field is written as 1.
    pub fn create<E: Entity + 'static>(&self, entity: &E) -> Create<E> {
        Create {
            db: self.clone(),
            prepared: prepare(entity, true, Some(1)),
            exactly_once: self.exactly_once_writes(),
        }
    }
}

/// The plan of a create of `prepared`.
fn planned<E: Entity + 'static>(prepared: Prepared<E>) -> Result<WritePlan<E>> {
    let Prepared { item, key, size } = prepared;
    let mut plan = put_if_absent(key, item)?;
    plan.item_size = Some(size);
    Ok(plan)
}

/// A create's plan: put `item` unless a live item has its key.
fn put_if_absent<E: Entity + 'static>(
    key: Key<E>,
    item: crate::item::Item,
) -> Result<WritePlan<E>> {
    let absent = absent_or_expired::<E>();
    let mut plan = WritePlan::new(
        key,
        Action::Put(item),
        Some(&absent),
        Placeholders::default(),
    )?;
    plan.creates = true;
    Ok(plan)
}

impl<E: Entity + 'static> Create<E> {
    /// What the create asks, for an idempotency key's fingerprint, and the
    /// key it writes.
    pub(crate) fn content(&self) -> Result<(Content, KeyValues)> {
        let Prepared { item, key, .. } = self.prepared.as_ref().map_err(Error::clone_input)?;
        let content = Content::of::<E>("create").item::<E>(item);
        Ok((content, key.values().clone()))
    }

    /// Whether `stored` holds what this create would write, as an
    /// idempotency key's fingerprint compares it (its sort key's fields,
    /// stamps, version and time to live aside).
    pub(crate) fn holds(&self, stored: &crate::item::Item) -> bool {
        let ours = self.prepared.as_ref().map(|p| item_content::<E>(&p.item));
        ours.is_ok_and(|ours| ours == item_content::<E>(stored))
    }

    /// The create as a put conditioned on no item having the key.
    pub(crate) fn plan(&self) -> Result<WritePlan<E>> {
        planned(cloned(&self.prepared)?)
    }

    /// [`plan`](Self::plan), the item moved rather than copied.
    pub(crate) fn into_plan(self) -> Result<WritePlan<E>> {
        planned(self.prepared?)
    }

    /// Reports [`Created::Created`] exactly when this call wrote the item,
    /// even when its answer was lost and the SDK sent it again: the create
    /// goes as a one-action TransactWriteItems under a ClientRequestToken,
    /// which DynamoDB recognises on the retry (for ten minutes) and does not
    /// apply twice. It costs two write units per KB instead of one. Without
    /// it, a create whose first answer was lost reports
    /// [`Created::AlreadyExisted`] for its own write.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "SignUp", pk = "SIGNUP#{email}")]
    /// # struct SignUp { email: String }
    /// let sign_up = SignUp { email: "ada@example.com".into() };
    /// if db.create(&sign_up).exactly_once(true).send().await? == ddb_runtime::Created::Created {
    ///     // counted once, whatever the network did
    /// }
    /// # Ok(()) }
    /// ```
    pub fn exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// Sends the PutItem (or, [`exactly_once`](Self::exactly_once), the
    /// one-action transaction).
    ///
    /// A plain create whose first attempt lost its answer and whose retry
    /// meets the same data reports [`Created::Created`]: the item is this
    /// call's unless another caller created the very same item at that
    /// moment; [`exactly_once`](Self::exactly_once) is exact. Meeting other
    /// data after such an attempt is [`Error::WriteOutcomeUnknown`].
    pub async fn send(self) -> Result<Created> {
        let (db, exactly_once) = (self.db.clone(), self.exactly_once);
        let plan = self.into_plan()?;
        sent(&db, exactly_once, plan, false)
            .await
            .map(|(created, _)| created)
    }

    /// [`send`](Self::send), with the capacity DynamoDB reported (none when
    /// the item was already there).
    pub async fn send_with_capacity(self) -> Result<(Created, Capacity)> {
        let (db, exactly_once) = (self.db.clone(), self.exactly_once);
        let plan = self.into_plan()?;
        sent(&db, exactly_once, plan, true).await
    }

    /// The request [`send`](Self::send) would send, not sent: the PutItem
    /// conditioned on no item having the key (or, [`exactly_once`](Self::exactly_once),
    /// the one-action TransactWriteItems; for an entity with unique values,
    /// the TransactWriteItems that also takes their guards).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(db: ddb_runtime::Db, entity: E) -> ddb_runtime::Result<()> {
    /// let dry = db.create(&entity).dry_run()?;
    /// assert_eq!(dry.operation(), Some("PutItem"));
    /// println!("{dry}"); // ConditionExpression: attribute_not_exists(PK) OR ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        let sent = async { sent(&self.db, self.exactly_once, self.plan()?, false).await };
        self.db.dry_run(sent, sensitive, true)
    }
}

/// Sends the create `plan`, asking DynamoDB for its capacity when
/// `capacity`.
async fn sent<E: Entity + 'static>(
    db: &Db,
    exactly_once: bool,
    mut plan: WritePlan<E>,
    capacity: bool,
) -> Result<(Created, Capacity)> {
    plan.capacity_asked = capacity;
    // The item moves into the request; the recorder keeps it as sent,
    // for a failed condition to compare with the item it met: the item as
    // stored, after the caller's interceptors, which may rewrite it (sign
    // it, encrypt it). With interceptors, the item before them is kept
    // too: one that also reads items back (decrypts them) returns the
    // item met as it was before.
    let before_interceptors = match &plan.action {
        Action::Put(item) if db.sdk().intercepted() => Some(item.clone()),
        _ => None,
    };
    let attempts = Attempts::keeping_put();
    let sent = if has_unique::<E>() {
        plan.send_taking_guards(db, &attempts).await
    } else if exactly_once {
        plan.send_exactly_once_recorded(db, &attempts).await
    } else {
        plan.send_recorded(db, None, &attempts)
            .await
            .map(|(_, capacity)| capacity)
    };
    let already_there = move |failure: Error| match failure {
        Error::AlreadyExists {
            entity,
            key,
            existing: ExistingItem(existing),
        } => {
            let ours = attempts.put_sent();
            let stamps = stamp_attributes(&E::SCHEMA);
            let same = [ours, before_interceptors]
                .iter()
                .flatten()
                .any(|ours| same_item(&existing, ours, &stamps));
            if same {
                Ok((Created::AlreadyExisted, Capacity::default()))
            } else {
                Err(Error::AlreadyExists {
                    entity,
                    key,
                    existing: ExistingItem(existing),
                })
            }
        }
        error => Err(error),
    };
    match sent {
        Ok(capacity) => Ok((Created::Created, capacity)),
        // An attempt of this call may have written the item.
        Err(Error::WriteOutcomeUnknown {
            entity,
            key,
            failure,
        }) => match already_there(*failure) {
            Ok(_) => Ok((Created::Created, Capacity::default())),
            Err(failure) => Err(Error::WriteOutcomeUnknown {
                entity,
                key,
                failure: Box::new(failure),
            }),
        },
        Err(error) => already_there(error),
    }
}
