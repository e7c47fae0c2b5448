//! Idempotency keys: a create whose item key the caller computes afresh on
//! every try (a server timestamp, a new id) applied once per request. The
//! first call writes the item and a guard recording the request's key, the
//! item's key and a fingerprint of its content, which expires after a
//! while; a later call with the same request key finds the guard and
//! reports the first call's item, across processes and restarts (unlike a
//! ClientRequestToken, which lasts ten minutes within one retry loop).

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use sha2::Digest;

use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::Item;
use crate::keys::guard::{guard_item, idempotency_guard_key, owner_of};
use crate::keys::key::{Key, KeyValues};
use crate::transport::attempts::Attempts;
use crate::transport::dry_run::sensitive_attributes;

use super::create::{Create, Created};
use super::item::{maintained_index_attributes, stamp_attributes, version_attribute};
use super::plan::{Action, WritePlan};
use super::unique::{check_guard_size, guard_writes, read_stored, taken, GuardWrite, Guarded};

/// How long an idempotency key is remembered unless
/// [`keep_for`](IdempotentCreate::keep_for) says otherwise: 24 hours.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(24 * 60 * 60);

use crate::keys::guard::FINGERPRINT;

/// The attribute an idempotency guard expires at (epoch seconds) on a table
/// without time to live; on a table with one, its time-to-live attribute,
/// so that DynamoDB deletes the guard.
const EXPIRES: &str = "_ddb_expires";

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
        let (db, request, keep) = (&self.create.db, &self.request, self.keep);
        let mut plan = self.create.plan()?;
        let (guard_key, guards) = guards_of(db, &plan, request, keep)?;
        let Action::Put(item) = &plan.action else {
            return Err(invalid::<E>("a create puts its item".into()));
        };
        let item = item.clone();
        let key = plan.key.clone();
        match plan.send_guarded(db, guards, &Attempts::default()).await? {
            Guarded::Written(_) => Ok(Idempotent {
                created: Created::Created,
                key,
            }),
            Guarded::ItemCondition(existing) => match existing {
                Some(existing) if same_content::<E>(db, &existing, &item)? => {
                    // The same item is there (a create without this key made
                    // it): the request is recorded, so that a retry with
                    // another item key finds it.
                    let mut guard = request_guard::<E>(db, request, key.values(), &item, keep)?;
                    match guard.send(db, None).await {
                        Ok(_) => Ok(Idempotent {
                            created: Created::AlreadyExisted,
                            key,
                        }),
                        Err(Error::ConditionFailed { .. }) => {
                            earlier::<E>(db, guard_key, &item).await
                        }
                        Err(error) => Err(error),
                    }
                }
                existing => Err(plan.failure(existing)),
            },
            Guarded::Taken(unique) => Err(taken::<E>(unique)),
            Guarded::RequestSeen | Guarded::HeldElsewhere(_) => {
                earlier::<E>(db, guard_key, &item).await
            }
        }
    }
}

/// The guards a create of `plan` sends with it: the guard of `request`
/// (its key returned too) and the guards of its unique values.
fn guards_of<E: Entity + 'static>(
    db: &Db,
    plan: &WritePlan<E>,
    request: &str,
    keep: Duration,
) -> Result<(Key<E>, Vec<GuardWrite<E>>)> {
    let Action::Put(item) = &plan.action else {
        return Err(invalid::<E>("a create puts its item".into()));
    };
    let guard = request_guard::<E>(db, request, plan.key.values(), item, keep)?;
    let guard_key = guard.key.clone();
    let mut guards = vec![GuardWrite::idempotency(guard, plan.key.values().clone())];
    guards.extend(guard_writes::<E>(db, plan.key.values(), None, Some(item))?);
    Ok((guard_key, guards))
}

/// The guard of request `request` for the item at `owner`: its fingerprint
/// and expiry, put unless a live guard of the request is there.
fn request_guard<E: Entity + 'static>(
    db: &Db,
    request: &str,
    owner: &KeyValues,
    item: &Item,
    keep: Duration,
) -> Result<WritePlan<E>> {
    if request.is_empty() {
        return Err(invalid::<E>("an idempotency key cannot be empty".into()));
    }
    let table = <E::Table as Table>::DEF;
    let key = idempotency_guard_key(&table, E::SCHEMA.entity_type, request);
    check_guard_size::<E>(&key)?;
    let expires_at = table.ttl.unwrap_or(EXPIRES);
    let now = crate::item::timestamp::now_epoch_seconds();
    let mut stored = guard_item(&table, &key, owner);
    stored.insert(
        FINGERPRINT.to_owned(),
        AttributeValue::S(fingerprint::<E>(db, item)?),
    );
    let until = now.saturating_add(i64::try_from(keep.as_secs()).unwrap_or(i64::MAX / 2));
    stored.insert(expires_at.to_owned(), AttributeValue::N(until.to_string()));
    let free =
        Condition::<E>::attribute_not_exists(table.pk.name) | Condition::expired(expires_at, now);
    WritePlan::new(
        Key::from_values(key),
        Action::Put(stored),
        Some(&free),
        Placeholders::default(),
    )
}

/// A create under a key already used: the earlier call's item, when the
/// content is the same.
async fn earlier<E: Entity + 'static>(
    db: &Db,
    guard: Key<E>,
    item: &Item,
) -> Result<Idempotent<E>> {
    let Some(stored) = read_stored::<E>(db, &guard).await? else {
        // Expired between the write and this read: the request was seen
        // too long ago to be told apart from a new one.
        return Err(invalid::<E>(
            "the idempotency key's guard expired while it was read; send again".into(),
        ));
    };
    let recorded = stored.get(FINGERPRINT).and_then(|f| f.as_s().ok());
    if recorded != Some(&fingerprint::<E>(db, item)?) {
        return Err(Error::IdempotencyKeyReused {
            entity: E::SCHEMA.entity_type,
        });
    }
    let owner = owner_of(&stored)
        .ok_or_else(|| invalid::<E>("an idempotency key's guard names no item".into()))?;
    Ok(Idempotent {
        created: Created::AlreadyExisted,
        key: Key::from_values(owner),
    })
}

/// The attributes a fingerprint leaves out: the key attributes, the fields
/// the sort key's template reads (a retry may compute them afresh: a new
/// timestamp, a new id; the partition's fields must match), the index keys
/// ddb derives, the stamps, the version and the time to live.
fn left_out<E: Entity>() -> Vec<&'static str> {
    let schema = &E::SCHEMA;
    let table = schema.table;
    let sort_fields = schema.primary().sk.iter().flat_map(|t| t.fields());
    let mut out: Vec<&'static str> = std::iter::once(table.pk.name)
        .chain(table.sk.map(|sk| sk.name))
        .chain(sort_fields.map(|f| schema.attribute_of(f)))
        .chain(crate::item::timestamp::ttl_attribute(schema))
        .chain(maintained_index_attributes(schema))
        .chain(stamp_attributes(schema))
        .chain(version_attribute(schema))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The fingerprint of the item's content: every attribute but
/// [`left_out`]'s, by name, each value in one canonical form; hashed with
/// HMAC-SHA256 under the handle's guard hash key when the entity has a
/// `sensitive` field (an unkeyed hash would let anyone who reads the table
/// test a guessed value), else with SHA-256. Hex.
fn fingerprint<E: Entity>(db: &Db, item: &Item) -> Result<String> {
    let left_out = left_out::<E>();
    let mut names: Vec<&String> = item
        .keys()
        .filter(|n| !left_out.contains(&n.as_str()))
        .collect();
    names.sort_unstable();
    let mut content = Vec::new();
    for name in names {
        content.extend_from_slice(name.as_bytes());
        content.push(0);
        canonical(&item[name], &mut content);
        content.push(0);
    }
    if !E::SCHEMA.fields.iter().any(|f| f.role.sensitive) {
        let digest = sha2::Sha256::digest(&content);
        return Ok(digest.iter().map(|b| format!("{b:02x}")).collect());
    }
    db.guard_hash(&content).ok_or_else(|| {
        invalid::<E>(
            "an idempotency key's record fingerprints the item, which holds a sensitive \
             field: give the Db its key with Db::with_guard_hash_key"
                .into(),
        )
    })
}

/// Whether two items have the same content, as fingerprints compare it.
fn same_content<E: Entity>(db: &Db, a: &Item, b: &Item) -> Result<bool> {
    Ok(fingerprint::<E>(db, a)? == fingerprint::<E>(db, b)?)
}

/// A value in one form for all its equal forms (numbers by value, sets and
/// maps in order), appended to `out`.
fn canonical(value: &AttributeValue, out: &mut Vec<u8>) {
    let number = |n: &str| {
        crate::item::number::Decimal::parse(n).map_or_else(|| n.to_owned(), |d| d.canonical())
    };
    let sorted = |mut texts: Vec<String>, out: &mut Vec<u8>| {
        texts.sort_unstable();
        texts.iter().for_each(|t| {
            out.extend_from_slice(t.as_bytes());
            out.push(1);
        });
    };
    match value {
        AttributeValue::S(s) => out.extend_from_slice(&[b"S:".as_slice(), s.as_bytes()].concat()),
        AttributeValue::N(n) => out.extend_from_slice(format!("N:{}", number(n)).as_bytes()),
        AttributeValue::B(b) => out.extend_from_slice(&[b"B:".as_slice(), b.as_ref()].concat()),
        AttributeValue::Bool(b) => out.extend_from_slice(if *b { b"BOOL:1" } else { b"BOOL:0" }),
        AttributeValue::Null(_) => out.extend_from_slice(b"NULL"),
        AttributeValue::Ss(items) => sorted(items.clone(), out),
        AttributeValue::Ns(items) => sorted(items.iter().map(|n| number(n)).collect(), out),
        AttributeValue::Bs(items) => sorted(
            items.iter().map(|b| format!("{:?}", b.as_ref())).collect(),
            out,
        ),
        AttributeValue::L(items) => {
            out.extend_from_slice(b"L[");
            items.iter().for_each(|v| {
                canonical(v, out);
                out.push(2);
            });
            out.extend_from_slice(b"]");
        }
        AttributeValue::M(map) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort_unstable();
            out.extend_from_slice(b"M{");
            for name in names {
                out.extend_from_slice(name.as_bytes());
                out.push(3);
                canonical(&map[name], out);
                out.push(2);
            }
            out.extend_from_slice(b"}");
        }
        _ => out.extend_from_slice(b"?"),
    }
}

fn invalid<E: Entity>(reason: String) -> Error {
    Error::InvalidRequest {
        entity: E::SCHEMA.entity_type,
        reason,
    }
}
