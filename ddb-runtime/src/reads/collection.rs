//! Item collections: one Query on a shared partition key returning several
//! entity types, decoded into a user enum.

use futures::stream::BoxStream;
use futures::TryStreamExt;

use crate::db::Db;
use crate::declaration::model::EntitySchema;
use crate::entity::Table;
use crate::error::{Error, Result};
use crate::expression::Expression;
use crate::item::Item;
use crate::keys::key::KeyValue;
use crate::keys::sort::SortRange;
use crate::reads::cursor;
use crate::reads::cursor::Cursor;
use crate::reads::fetch::Plan;
use crate::reads::options::ReadOptions;
use crate::reads::query::{flatten, paginate, Page};
use aws_sdk_dynamodb::types::AttributeValue;

/// An enum with one variant per entity stored under a shared partition key.
/// Derive it:
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # pub struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # pub struct Customer { customer_id: String }
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}")]
/// # pub struct Order { customer_id: String, order_id: String }
/// #[derive(ddb_runtime::Collection)]
/// pub enum CustomerItem {
///     Profile(Customer),
///     Order(Order),
/// }
/// // db.collection::<CustomerItem>(Customer::pk(&id)?).send().await? reads both
/// // in one Query.
/// ```
///
/// Every member must share the table and the partition-key template, and be
/// told apart by sort-key prefix; the derive checks both at compile time.
pub trait Collection: Sized + Send + 'static {
    /// The table the members share.
    type Table: Table + 'static;
    /// The members' declarations.
    const MEMBERS: &'static [&'static EntitySchema];
    /// Decodes an item of entity type `entity_type`; `None` for a type that
    /// is not a member.
    fn from_item(entity_type: &str, item: Item) -> Option<Result<Self>>;
}

/// What to do with an item whose entity type is not a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownItems {
    /// Leave it out (the default).
    #[default]
    Skip,
    /// Fail with [`Error::UnknownEntityType`].
    Error,
}

/// Checks that the members share a table and partition-key template and can
/// be told apart.
pub const fn check_collection(
    members: &[&EntitySchema],
) -> Option<crate::declaration::check::Message> {
    let mut i = 1;
    while i < members.len() {
        let (a, b) = (members[0], members[i]);
        if !crate::declaration::model::str_eq(a.table.name, b.table.name)
            || !crate::declaration::model::str_eq(a.primary().pk.source, b.primary().pk.source)
        {
            return crate::declaration::check::Message::new()
                .push("entities `")
                .push(a.rust_name)
                .push("` and `")
                .push(b.rust_name)
                .push("` do not share a partition: a collection's members need one table and one partition-key template, here \"")
                .push(a.primary().pk.source)
                .push("\" and \"")
                .push(b.primary().pk.source)
                .push("\"")
                .into_error();
        }
        i += 1;
    }
    crate::declaration::check::check_distinct_keys(members)
}

/// Whether `item` is of a member of `C`, by its entity-type attribute.
fn is_member<C: Collection>(item: &Item) -> bool {
    let attribute = <C::Table as Table>::DEF.entity_attribute;
    let found = item.get(attribute).and_then(|v| v.as_s().ok());
    found.is_some_and(|found| C::MEMBERS.iter().any(|m| m.entity_type == found))
}

/// A Query of an item collection; finish with [`send`](Self::send),
/// [`pages`](Self::pages), [`items`](Self::items) or [`collect`](Self::collect).
#[must_use = "a query does nothing until it is sent"]
pub struct CollectionQuery<C> {
    db: Db,
    partition: KeyValue,
    forward: bool,
    consistent: bool,
    unknown: UnknownItems,
    options: ReadOptions<C>,
    marker: std::marker::PhantomData<fn() -> C>,
}

impl<C> Clone for CollectionQuery<C> {
    fn clone(&self) -> Self {
        Self {
            db: self.db.clone(),
            partition: self.partition.clone(),
            forward: self.forward,
            consistent: self.consistent,
            unknown: self.unknown,
            options: self.options.clone(),
            marker: std::marker::PhantomData,
        }
    }
}

impl Db {
    /// One Query on the partition `partition` (e.g. `Customer::pk(&id)?`),
    /// decoding every member of collection `C`.
    pub fn collection<C: Collection>(&self, partition: KeyValue) -> CollectionQuery<C> {
        CollectionQuery {
            db: self.clone(),
            partition,
            forward: true,
            consistent: false,
            unknown: UnknownItems::Skip,
            options: ReadOptions::default(),
            marker: std::marker::PhantomData,
        }
    }
}

impl<C: Collection> CollectionQuery<C> {
    /// Descending sort-key order when `true`.
    pub fn newest_first(mut self, newest_first: bool) -> Self {
        self.forward = !newest_first;
        self
    }
    /// At most `n` members per page: exactly `n` when the partition holds
    /// that many, however many requests the items of other entities
    /// (skipped, see [`unknown_items`](Self::unknown_items)) or DynamoDB's
    /// 1 MB pages make that take.
    pub fn limit(mut self, n: usize) -> Self {
        self.options.limit = Some(n);
        self
    }
    /// A strongly consistent read.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }
    /// What to do with items of other entity types (default: skip them).
    pub fn unknown_items(mut self, unknown: UnknownItems) -> Self {
        self.unknown = unknown;
        self
    }
    /// Also returns items whose time to live (the table's `ttl` attribute)
    /// has passed and that DynamoDB has not deleted yet; they are left out
    /// by default, as [`Query::include_expired`](crate::Query::include_expired)
    /// describes.
    pub fn include_expired(mut self, include_expired: bool) -> Self {
        self.options.include_expired = include_expired;
        self
    }
    /// Whether a limited page reads one item past its end (the default,
    /// `true`), so that [`Page::has_more`] is known and a page that ends
    /// exactly at the collection's last item has no cursor: no cursor leads
    /// to an empty page. It costs one more item read per page in the same
    /// request (`Limit` is the page's size plus one), and more when items
    /// of other entities or expired ones are skipped (the guide's
    /// [`counting`](crate::guide::counting) page has the cost).
    /// `exact_end(false)` reads only the page, as
    /// [`Query::exact_end`](crate::Query::exact_end) describes.
    pub fn exact_end(mut self, exact_end: bool) -> Self {
        self.options.exact_end = exact_end;
        self
    }
    /// Resumes after the page that returned `cursor`.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.options.cursor = Some(cursor);
        self
    }

    fn plan(&self) -> Result<Plan> {
        let table = <C::Table as Table>::DEF;
        self.options.check_limit("collection")?;
        let mut parts: Vec<&str> = vec!["collection"];
        parts.extend(C::MEMBERS.iter().map(|m| m.entity_type));
        parts.push(self.partition.as_str());
        parts.push(if self.forward { "asc" } else { "desc" });
        Ok(Plan {
            entity: "collection",
            table_name: self.db.table_name::<C::Table>().to_owned(),
            index: None,
            pk_attributes: vec![table.pk.name],
            sk_attributes: table.sk.map(|a| a.name).into_iter().collect(),
            partitions: vec![vec![self.partition.clone()]],
            sort: SortRange::All.into(),
            // Every member expires by the table's attribute.
            filter: self.options.filters(table.ttl).reduce(Expression::and),
            projection: None,
            all_attributes: false,
            key_attributes: std::iter::once(table.pk.name)
                .chain(table.sk.map(|a| a.name))
                .collect(),
            forward: self.forward,
            consistent: self.consistent,
            fingerprint: cursor::fingerprint(&parts),
            cursor_keys: self.db.cursor_keys(),
            // Skipped items are left out as they are read, so that a page
            // holds `limit` members when the partition has them; an error
            // for them needs to see them.
            keep: match self.unknown {
                UnknownItems::Skip => Some(is_member::<C>),
                UnknownItems::Error => None,
            },
            exact_end: self.options.exact_end,
            // A count returns no item to decode: only the members' items
            // are counted, by their entity type.
            count_filter: C::MEMBERS
                .iter()
                .map(|member| {
                    Expression::compare(
                        table.entity_attribute,
                        "=",
                        AttributeValue::S(member.entity_type.to_owned()),
                    )
                })
                .reduce(Expression::or),
        })
    }

    fn decode(&self, items: Vec<Item>) -> Result<Vec<C>> {
        let attribute = <C::Table as Table>::DEF.entity_attribute;
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let found = item
                .get(attribute)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default();
            match C::from_item(&found, item) {
                Some(decoded) => out.push(decoded?),
                None if self.unknown == UnknownItems::Skip => {}
                None => return Err(Error::UnknownEntityType { found }),
            }
        }
        Ok(out)
    }

    async fn page_at(&self, plan: &Plan, cursor: Option<&Cursor>) -> Result<Page<C>> {
        let raw = plan.page(&self.db, cursor, self.options.limit).await?;
        Ok(Page {
            items: self.decode(raw.items)?,
            cursor: raw.cursor,
            previous: raw.previous,
            has_more: raw.has_more,
            consumed_capacity: raw.consumed_capacity,
            requests: raw.requests,
        })
    }

    /// The Query request [`send`](Self::send) would send, not sent. Values
    /// of every member's `#[ddb(sensitive)]` attributes are redacted in its
    /// reading.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<C: ddb_runtime::Collection>(query: ddb_runtime::CollectionQuery<C>) -> ddb_runtime::Result<()> {
    /// // let query = db.collection::<CustomerOrders>(KeyValue::from("CUSTOMER#123"));
    /// println!("{}", query.dry_run()?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = C::MEMBERS
            .iter()
            .flat_map(|m| crate::transport::dry_run::sensitive_attributes(m))
            .collect();
        self.db.dry_run(self.page(), sensitive, false)
    }

    /// Sends the query and returns one page.
    pub async fn send(self) -> Result<Page<C>> {
        self.page().await
    }

    /// One page from the cursor.
    async fn page(&self) -> Result<Page<C>> {
        let plan = self.plan()?;
        self.page_at(&plan, self.options.cursor.as_ref()).await
    }

    /// Every page.
    pub fn pages(self) -> BoxStream<'static, Result<Page<C>>> {
        let start = self.options.cursor.clone();
        Box::pin(paginate(self, start, |query, cursor| async move {
            let plan = query.plan()?;
            let page = query.page_at(&plan, cursor.as_ref()).await?;
            Ok((query, page))
        }))
    }

    /// Every item.
    pub fn items(self) -> BoxStream<'static, Result<C>> {
        Box::pin(flatten(self.pages()))
    }

    /// Every item, collected.
    pub async fn collect(self) -> Result<Vec<C>> {
        self.items().try_collect().await
    }

    /// How many items of the collection's members the partition holds
    /// (`Select: COUNT`, every DynamoDB page to the end): items of other
    /// entity types are not counted (ddb sends a filter on the members'
    /// entity types), and neither are expired ones unless
    /// [`include_expired`](Self::include_expired). A count reads, and
    /// DynamoDB bills, every item of the partition, as
    /// [`Query::count`](crate::Query::count) describes; it ignores the
    /// [`limit`](Self::limit) and the [`after`](Self::after) cursor.
    ///
    /// ```no_run
    /// # async fn demo<C: ddb_runtime::Collection>(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// // C: a #[derive(Collection)] enum of a customer's profile and orders.
    /// let items = db
    ///     .collection::<C>(ddb_runtime::KeyValue::S("CUSTOMER#123".into()))
    ///     .count()
    ///     .await?;
    /// # let _ = items;
    /// # Ok(()) }
    /// ```
    pub async fn count(self) -> Result<u64> {
        Ok(self.plan()?.count(&self.db, false).await?.count)
    }

    /// [`count`](Self::count), with what DynamoDB read, the capacity it
    /// consumed (asked of DynamoDB for every request) and the requests.
    pub async fn count_with_capacity(self) -> Result<crate::reads::count::Count> {
        Ok(self.plan()?.count(&self.db, true).await?.into())
    }

    /// The Query request [`count`](Self::count) would send first, not
    /// sent: `Select: COUNT`, no projection, the members' entity types as
    /// its filter.
    pub fn dry_run_count(&self) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = C::MEMBERS
            .iter()
            .flat_map(|m| crate::transport::dry_run::sensitive_attributes(m))
            .collect();
        let count = async { self.plan()?.count(&self.db, false).await };
        self.db.dry_run(count, sensitive, false)
    }
}
