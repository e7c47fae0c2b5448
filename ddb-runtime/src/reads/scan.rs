//! Typed scans: every item of one entity, read from the whole table in
//! parallel segments, for the jobs that need them all (exports, admin
//! jobs, one-off repairs). An entity declares it is scanned with
//! `#[ddb(scan)]`; [`Db::scan`] needs the declaration.
//!
//! Here: the declaration's marker, the [`Scan`] builder and its page. Next
//! to it: the plan (filter, projection, fingerprint), the segments read
//! concurrently, and the one Scan request the backfill sends too.

mod page;
mod plan;
pub(crate) mod request;
mod segments;

pub use page::ScanPage;

use std::marker::PhantomData;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::TryStreamExt;

use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::expression::Condition;
use crate::reads::cursor::Cursor;
use crate::reads::options::ReadOptions;
use crate::reads::projection::Projection;
use crate::reads::query::{Decode, Project, Whole};

/// The most segments a scan reads in parallel: DynamoDB's `TotalSegments`
/// limit.
pub const MAX_SEGMENTS: u32 = 1_000_000;

/// An entity declared as scanned with `#[ddb(scan)]`: what [`Db::scan`]
/// needs. A Scan reads and bills every item of the table, of every entity
/// and ddb's guard items included, so it is declared where the access
/// patterns are: the access-pattern report lists
/// it, and the IAM policy grants `dynamodb:Scan` only to such entities.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE", scan)]
/// struct Customer { customer_id: String }
///
/// use ddb_runtime::Entity;
/// assert!(Customer::SCHEMA.scan);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not declare a scan",
    label = "`Db::scan` reads only entities declared with `#[ddb(scan)]`",
    note = "add `scan` to the entity's attribute, e.g. `#[ddb(table = ..., pk = \"...\", scan)]`: a Scan reads the whole table, so it is declared, reported and granted like every other access pattern"
)]
pub trait Scannable: Entity {}

impl Db {
    /// A Scan of every item of entity `E` (declared with `#[ddb(scan)]`),
    /// one segment unless [`segments`](Scan::segments) says more.
    ///
    /// A Scan reads, and DynamoDB bills, every item of the table, not only
    /// `E`'s: the items of every other entity stored in it, ddb's guard
    /// items (of unique values and idempotency keys) and every item a
    /// [`filter`](Scan::filter) then drops. ddb leaves them out of what it
    /// returns, by a filter on the entity type, but they are read all the
    /// same: an export of 200 orders from a table of 900 items reads and
    /// bills 900 ([`ScanPage::scanned`] counts them, `page.items` holds
    /// the 200). Its cost grows with the table, not with what it returns.
    /// Use it for jobs that need every item (exports, repairs), never to
    /// answer a request: a query of a key or index reads only what it
    /// returns.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", scan)]
    /// # struct Order { customer_id: String, order_id: String, total_cents: u64 }
    /// use futures::TryStreamExt;
    ///
    /// let mut orders = db
    ///     .scan::<Order>()
    ///     .segments(4)
    ///     .filter(Order::fields().total_cents.gt(10_000u64))
    ///     .items();
    /// while let Some(order) = orders.try_next().await? {
    ///     println!("{} {}", order.order_id, order.total_cents);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn scan<E: Scannable>(&self) -> Scan<E, Whole> {
        // A hand-written `Scannable` would scan what the report and the IAM
        // policy, both read from the schema, do not grant.
        const {
            assert!(
                E::SCHEMA.scan,
                "the entity does not declare a scan: add `scan` to its #[ddb(...)]"
            )
        }
        Scan {
            db: self.clone(),
            segments: 1,
            consistent: false,
            options: ReadOptions::default(),
            decode: Whole,
            marker: PhantomData,
        }
    }
}

/// A typed Scan of entity `E`; built by [`Db::scan`], finished with
/// [`send`](Scan::send), [`pages`](Scan::pages), [`items`](Scan::items) or
/// [`collect`](Scan::collect). `D` is how items decode: [`Whole`] entities,
/// or a [`Project`]ion.
///
/// Every request filters on the table's entity-type attribute, so items of
/// the other entities of the table and ddb's guard items (of unique values
/// and idempotency keys) are never returned, but they are read: DynamoDB
/// bills a Scan for every item of the table it reads, before any filter
/// ([`ScanPage::scanned`] against `items.len()`).
#[must_use = "a scan does nothing until it is sent"]
pub struct Scan<E, D> {
    db: Db,
    segments: u32,
    consistent: bool,
    options: ReadOptions<E>,
    decode: D,
    marker: crate::entity::Phantom<E>,
}

impl<E, D: Clone> Clone for Scan<E, D> {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            segments: self.segments,
            consistent: self.consistent,
            options: self.options.clone(),
            decode: self.decode.clone(),
            marker: PhantomData,
        }
    }
}

impl<E: Entity, D> Scan<E, D> {
    /// Splits the table into `n` segments (DynamoDB's parallel scan, 1 to
    /// [`MAX_SEGMENTS`]) read concurrently, up to 32 at a time, lowest
    /// segments first. Another number is an [`Error::InvalidRequest`]
    /// when sent, before any request. A cursor resumes only a scan of the
    /// same number of segments, and holds a position for each: keep to
    /// hundreds of segments where cursors are handed out.
    ///
    /// [`Error::InvalidRequest`]: crate::Error::InvalidRequest
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = n;
        self
    }

    /// At most `n` items per page: exactly `n` when that many match, however
    /// many requests the entity-type filter, the [`filter`](Self::filter)
    /// or DynamoDB's 1 MB pages make that take. Without it, a page is one
    /// DynamoDB page (up to 1 MB read) of each segment read.
    pub fn limit(mut self, n: usize) -> Self {
        self.options.limit = Some(n);
        self
    }

    /// Whether a limited page reads one item past its end (the default,
    /// `true`), so that [`ScanPage::has_more`] is known and a page that
    /// ends exactly at the scan's last item has no cursor: no cursor leads
    /// to an empty page. It costs one more item read per page (more with
    /// a filter or items of other entities): the
    /// page's requests ask for one more item in all, and when the page
    /// took the last item its segments had read, the lowest unfinished
    /// segment is read again (one item, more with a filter) until an item
    /// is found or every segment is done. `exact_end(false)` reads only
    /// the page. Without a [`limit`](Self::limit) it changes nothing.
    pub fn exact_end(mut self, exact_end: bool) -> Self {
        self.options.exact_end = exact_end;
        self
    }

    /// A strongly consistent read (twice the read units).
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// Keeps only items matching `condition`, the same typed condition a
    /// query's filter takes.
    ///
    /// A filter is applied after the items are read: it saves bandwidth,
    /// not read capacity. Every item of the table is read all the same.
    pub fn filter(mut self, condition: Condition<E>) -> Self {
        self.options.add_filter(condition);
        self
    }

    /// Resumes after the page that returned `cursor`: a cursor of this
    /// scan (same entity, segments, filter's shape and projection), else an
    /// [`Error::InvalidCursor`](crate::Error::InvalidCursor) before any
    /// request.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.options.cursor = Some(cursor);
        self
    }

    /// Also returns items whose `#[ddb(ttl)]` time has passed but that
    /// DynamoDB has not deleted yet (it can take days), when `true`. Left
    /// out by default.
    pub fn include_expired(mut self, include_expired: bool) -> Self {
        self.options.include_expired = include_expired;
        self
    }

    /// Decodes projection type `X`, reading only its attributes (and the
    /// keys). A Scan is billed by the items it reads, whole: a projection
    /// saves bandwidth, not read capacity.
    pub fn project<X: Projection<E>>(self) -> Scan<E, Project<X>> {
        Scan {
            db: self.db,
            segments: self.segments,
            consistent: self.consistent,
            options: self.options,
            decode: Project(PhantomData),
            marker: PhantomData,
        }
    }
}

impl<E, D> Scan<E, D>
where
    E: Entity + Send + 'static,
    D: Decode<E>,
{
    /// The Scan requests the first page would send first, not sent: one
    /// per segment read at once (up to 32, the lowest unfinished ones),
    /// printed with every placeholder resolved and `#[ddb(sensitive)]`
    /// values as `<sensitive>` (see [`DryRun`](crate::transport::dry_run::DryRun)). Bad input is
    /// the error [`send`](Self::send) would return.
    ///
    /// ```no_run
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", scan)]
    /// # struct Order { customer_id: String, order_id: String }
    /// # fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// let dry = db.scan::<Order>().segments(4).limit(100).dry_run()?;
    /// assert_eq!(dry.requests().len(), 4);
    /// println!("{dry}");
    /// # Ok(()) }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = crate::transport::dry_run::sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(self.page(), sensitive, false)
    }

    /// Sends the scan and returns one page (see [`limit`](Self::limit)).
    pub fn send(self) -> BoxFuture<'static, Result<ScanPage<D::Output>>> {
        Box::pin(async move { self.page().await })
    }

    /// One page from the cursor.
    async fn page(&self) -> Result<ScanPage<D::Output>> {
        let plan = self.plan()?;
        let mut reading = plan.start(self.options.cursor.as_ref())?;
        let raw = plan
            .page(&self.db, &mut reading, self.options.limit)
            .await?;
        self.decode_page(raw).await
    }

    /// Every page, from the cursor (if any) to the end. What a page's
    /// segments read beyond it is kept for the next page, so a stream reads
    /// every item once; a stream resumed from a cursor reads again at most
    /// what the segments had read ahead.
    pub fn pages(self) -> BoxStream<'static, Result<ScanPage<D::Output>>> {
        let start = (self, None, false);
        Box::pin(futures::stream::try_unfold(
            start,
            |(scan, reading, done)| async move {
                if done {
                    return Ok(None);
                }
                // The plan again for each page: the time-to-live filter
                // compares with the time the page is read.
                let plan = scan.plan()?;
                let mut reading = match reading {
                    Some(reading) => reading,
                    None => plan.start(scan.options.cursor.as_ref())?,
                };
                let raw = plan
                    .page(&scan.db, &mut reading, scan.options.limit)
                    .await?;
                let page = scan.decode_page(raw).await?;
                let done = page.cursor.is_none();
                Ok(Some((page, (scan, Some(reading), done))))
            },
        ))
    }

    /// Every item, page after page.
    pub fn items(self) -> BoxStream<'static, Result<D::Output>> {
        Box::pin(
            self.pages()
                .map_ok(|page| futures::stream::iter(page.items.into_iter().map(Ok)))
                .try_flatten(),
        )
    }

    /// Every item, collected.
    pub fn collect(self) -> BoxFuture<'static, Result<Vec<D::Output>>> {
        Box::pin(self.items().try_collect())
    }

    /// How many of the entity's items the table holds that pass the
    /// [`filter`](Self::filter): a Scan with `Select: COUNT` of every
    /// segment to its end (concurrently, up to 32 segments at a time), the
    /// counts summed. It reads, and DynamoDB bills, every item of the table,
    /// of every entity: the filters (the entity type, the time to live, the
    /// caller's) apply after the read, lowering the count, not the read
    /// capacity. It ignores the [`limit`](Self::limit) and the
    /// [`after`](Self::after) cursor.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", scan)]
    /// # struct Order { customer_id: String, order_id: String }
    /// let orders = db.scan::<Order>().segments(4).count_with_capacity().await?;
    /// println!("{} orders; {} items read", orders.count, orders.scanned);
    /// # Ok(()) }
    /// ```
    pub fn count(self) -> BoxFuture<'static, Result<u64>> {
        Box::pin(async move {
            let plan = self.count_plan()?;
            Ok(plan.count(&self.db, false).await?.count)
        })
    }

    /// [`count`](Self::count), with what DynamoDB read (`scanned`: every
    /// item of the table), the capacity it consumed (asked of DynamoDB for
    /// every request) and the requests.
    pub fn count_with_capacity(self) -> BoxFuture<'static, Result<crate::reads::count::Count>> {
        Box::pin(async move {
            let plan = self.count_plan()?;
            Ok(plan.count(&self.db, true).await?.into())
        })
    }

    /// The Scan requests [`count`](Self::count) would send first, not sent:
    /// one per segment read at once (up to 32), `Select: COUNT`, no
    /// projection.
    pub fn dry_run_count(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = crate::transport::dry_run::sensitive_attributes(&E::SCHEMA).collect();
        let count = async { self.count_plan()?.count(&self.db, false).await };
        self.db.dry_run(count, sensitive, false)
    }

    async fn decode_page(&self, raw: segments::RawScanPage) -> Result<ScanPage<D::Output>> {
        Ok(ScanPage {
            items: self.decode.decode(&self.db, raw.items).await?,
            cursor: raw.cursor,
            has_more: raw.has_more,
            scanned: raw.scanned,
            segments_done: raw.segments_done,
            segments: raw.segments,
            consumed_capacity: raw.consumed_capacity,
            requests: raw.requests,
        })
    }
}
