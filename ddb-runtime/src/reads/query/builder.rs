//! Building a typed query: [`Db::query`] from a query key, sort-key
//! conditions on the key's leading fields, order, page size and the other
//! options of the request.

use std::marker::PhantomData;

use crate::db::Db;
use crate::declaration::model::{IndexDef, ScalarType};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::Condition;
use crate::keys::key::KeyValue;
use crate::keys::sort;
use crate::keys::sort::{EqualThen, SortOp, SortPrefix, SortRange};
use crate::reads::cursor::Cursor;
use crate::reads::options::ReadOptions;
use crate::reads::query::{IndexTarget, Query, QueryKey, TableIndex, Whole};

impl Db {
    /// Runs a query built by a generated entry point.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> Result<(), ddb_runtime::Error> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}", query = "by_customer")]
    /// # struct Order { customer_id: String, placed_at: u64, order_id: String }
    /// let latest = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .newest_first(true)
    ///     .limit(20)
    ///     .send()
    ///     .await?;
    /// let since: Vec<Order> = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .ge(&1_700_000_000u64)
    ///     .collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn query<E: Entity, S, I: IndexTarget, P, const K: usize>(
        &self,
        key: QueryKey<E, S, I, P, K>,
    ) -> Query<E, S, I, P, Whole, K> {
        let sort = if I::MULTI_ATTRIBUTE {
            SortRange::All
        } else {
            default_sort::<E>(K)
        };
        Query {
            db: self.clone(),
            partition: key.partition,
            sort: Ok(sort.into()),
            forward: true,
            consistent: false,
            options: ReadOptions::default(),
            decode: Whole,
            marker: PhantomData,
        }
    }
}

/// Without a condition: the entity's literal sort-key prefix, or its constant.
fn default_sort<E: Entity>(k: usize) -> SortRange {
    match E::SCHEMA.keys[k].sk {
        Some(sk) if sk.is_constant() => SortRange::Eq(KeyValue::S(sk.source.to_owned())),
        Some(sk) if !sk.literal_prefix().is_empty() => {
            SortRange::BeginsWith(sk.literal_prefix().to_owned())
        }
        _ => SortRange::All,
    }
}

fn sort_type<E: Entity>(k: usize) -> ScalarType {
    crate::declaration::model::key_types(E::SCHEMA.table, E::SCHEMA.keys[k].index).1
}

/// The index of multi-attribute key `k` of `E`; the derive checked it exists.
fn multi_attribute_index<E: Entity>(k: usize) -> Result<&'static IndexDef> {
    let name = E::SCHEMA.multi_attribute_keys[k].index;
    E::SCHEMA
        .table
        .index(name)
        .ok_or_else(|| Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason: format!("index `{name}` is not declared on the table"),
        })
}

/// The sort key attributes of multi-attribute key `k`, with the fields that
/// fill them.
fn sort_attributes<E: Entity>(k: usize) -> Result<Vec<(&'static str, ScalarType)>> {
    let index = multi_attribute_index::<E>(k)?;
    let fields = E::SCHEMA.multi_attribute_keys[k].sk;
    Ok(fields
        .iter()
        .zip(index.sk_attributes())
        .map(|(field, attribute)| (*field, attribute.ty))
        .collect())
}

impl<E: Entity, S, I: IndexTarget, P, D, const K: usize> Query<E, S, I, P, D, K> {
    fn condition(mut self, op: SortOp, value: &dyn SortPrefix<S>) -> Self {
        let entity = E::SCHEMA.entity_type;
        self.sort = if I::MULTI_ATTRIBUTE {
            sort_attributes::<E>(K)
                .and_then(|attributes| sort::resolve_attributes(entity, &attributes, op, value))
        } else {
            match E::SCHEMA.keys[K].sk {
                Some(template) => {
                    sort::resolve(entity, &template, sort_type::<E>(K), op, value).map(Into::into)
                }
                None => Err(self.no_sort_key()),
            }
        };
        self
    }

    fn no_sort_key(&self) -> Error {
        Error::InvalidSortCondition {
            entity: E::SCHEMA.entity_type,
            reason: "this key has no sort key to put a condition on".into(),
        }
    }

    /// Items whose leading sort-key fields equal `prefix` (all fields: one item).
    pub fn eq(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Eq, &prefix)
    }
    /// Items whose last given field starts with the given text (`begins_with`).
    pub fn begins_with(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::BeginsWith, &prefix)
    }
    /// Leading fields `<` `prefix`.
    pub fn lt(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Lt, &prefix)
    }
    /// Leading fields `<=` `prefix`.
    pub fn le(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Le, &prefix)
    }
    /// Leading fields `>` `prefix`.
    pub fn gt(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Gt, &prefix)
    }
    /// Leading fields `>=` `prefix`.
    pub fn ge(self, prefix: impl SortPrefix<S>) -> Self {
        self.condition(SortOp::Ge, &prefix)
    }
    /// Leading fields between `low` and `high`, both inclusive.
    pub fn between(mut self, low: impl SortPrefix<S>, high: impl SortPrefix<S>) -> Self {
        let entity = E::SCHEMA.entity_type;
        self.sort = if I::MULTI_ATTRIBUTE {
            sort_attributes::<E>(K).and_then(|attributes| {
                sort::resolve_attributes_between(entity, &attributes, &low, &high)
            })
        } else {
            match E::SCHEMA.keys[K].sk {
                Some(template) => {
                    sort::resolve_between(entity, &template, sort_type::<E>(K), &low, &high)
                        .map(Into::into)
                }
                None => Err(self.no_sort_key()),
            }
        };
        self
    }

    fn range_after_equal<L: EqualThen<S>>(
        mut self,
        op: SortOp,
        leading: &L,
        value: &L::Next,
    ) -> Self {
        let entity = E::SCHEMA.entity_type;
        self.sort = if I::MULTI_ATTRIBUTE {
            sort_attributes::<E>(K).and_then(|attributes| {
                sort::resolve_attributes_after_equal(entity, &attributes, op, leading, value)
            })
        } else {
            match E::SCHEMA.keys[K].sk {
                Some(template) => {
                    let ty = sort_type::<E>(K);
                    sort::resolve_after_equal(entity, &template, ty, op, leading, value)
                        .map(Into::into)
                }
                None => Err(self.no_sort_key()),
            }
        };
        self
    }

    /// Items whose leading sort-key fields equal `leading` and whose next
    /// field is `>` `value`: `placed_at = x AND order_id > y`, one key
    /// condition (on a multi-attribute sort key, equality on the leading
    /// attributes and a comparison on the next, as DynamoDB takes them).
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> Result<(), ddb_runtime::Error> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{placed_at}#{order_id}", query = "by_customer")]
    /// # struct Order { customer_id: String, placed_at: u64, order_id: String }
    /// // The orders placed at one time after order A102, in order.
    /// let rest: Vec<Order> = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .eq_then_gt(&1_700_000_000u64, &"A102".to_string())
    ///     .collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn eq_then_gt<L: EqualThen<S>>(self, leading: L, value: &L::Next) -> Self {
        self.range_after_equal(SortOp::Gt, &leading, value)
    }
    /// Leading fields equal to `leading`, the next one `>=` `value`.
    pub fn eq_then_ge<L: EqualThen<S>>(self, leading: L, value: &L::Next) -> Self {
        self.range_after_equal(SortOp::Ge, &leading, value)
    }
    /// Leading fields equal to `leading`, the next one `<` `value`.
    pub fn eq_then_lt<L: EqualThen<S>>(self, leading: L, value: &L::Next) -> Self {
        self.range_after_equal(SortOp::Lt, &leading, value)
    }
    /// Leading fields equal to `leading`, the next one `<=` `value`.
    pub fn eq_then_le<L: EqualThen<S>>(self, leading: L, value: &L::Next) -> Self {
        self.range_after_equal(SortOp::Le, &leading, value)
    }
    /// Leading fields equal to `leading`, the next one starting with the
    /// text of `value` (a String field or attribute).
    pub fn eq_then_begins_with<L: EqualThen<S>>(self, leading: L, value: &L::Next) -> Self {
        self.range_after_equal(SortOp::BeginsWith, &leading, value)
    }
    /// Leading fields equal to `leading`, the next one between `low` and
    /// `high`, both inclusive.
    pub fn eq_then_between<L: EqualThen<S>>(
        mut self,
        leading: L,
        low: &L::Next,
        high: &L::Next,
    ) -> Self {
        let entity = E::SCHEMA.entity_type;
        self.sort = if I::MULTI_ATTRIBUTE {
            sort_attributes::<E>(K).and_then(|attributes| {
                sort::resolve_attributes_between_after_equal(
                    entity,
                    &attributes,
                    &leading,
                    low,
                    high,
                )
            })
        } else {
            match E::SCHEMA.keys[K].sk {
                Some(template) => {
                    let ty = sort_type::<E>(K);
                    sort::resolve_between_after_equal(entity, &template, ty, &leading, low, high)
                        .map(Into::into)
                }
                None => Err(self.no_sort_key()),
            }
        };
        self
    }

    /// Descending sort-key order when `true` (`ScanIndexForward = false`):
    /// newest first when the sort key starts with a timestamp.
    pub fn newest_first(mut self, newest_first: bool) -> Self {
        self.forward = !newest_first;
        self
    }

    /// At most `n` items per page: exactly `n` when that many match, however
    /// many requests the filter or DynamoDB's 1 MB pages make that take.
    pub fn limit(mut self, n: usize) -> Self {
        self.options.limit = Some(n);
        self
    }

    /// Whether a limited page reads one item past its end (the default,
    /// `true`), so that [`Page::has_more`] is always known on a query and
    /// a page that ends exactly at the last item has no cursor: no cursor
    /// ever leads to an empty page. It costs at most one more item read
    /// per page, in the same request (`Limit` is the page's size plus one;
    /// DynamoDB rounds a query's reads up to 4 KB, so often nothing; with a
    /// filter, reading goes on until one more item matches or the range
    /// ends). On a sharded index, when the page took the last item every
    /// shard had read, the shards are read again until one has an item.
    /// `exact_end(false)` reads only the page: a page that ends exactly at
    /// the limit then has `has_more == None` and a cursor whose next page
    /// may be empty. Without a [`limit`](Self::limit) it changes nothing.
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
    /// # struct Ecommerce;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Ecommerce, entity = "Order", pk = "CUSTOMER#{customer_id}", sk = "ORDER#{order_id}", query = "by_customer")]
    /// # struct Order { customer_id: String, order_id: String }
    /// let page = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .limit(20)
    ///     .send()
    ///     .await?;
    /// let show_next_button = page.has_more == Some(true);
    /// assert_eq!(show_next_button, page.cursor.is_some());
    ///
    /// // Only the 20 items (Limit: 20), a cursor even after the last one.
    /// let cheaper = db
    ///     .query(Order::by_customer(&"123".to_string()))
    ///     .limit(20)
    ///     .exact_end(false)
    ///     .send()
    ///     .await?;
    /// # let _ = cheaper;
    /// # Ok(()) }
    /// ```
    ///
    /// [`Page::has_more`]: crate::reads::query::Page::has_more
    pub fn exact_end(mut self, exact_end: bool) -> Self {
        self.options.exact_end = exact_end;
        self
    }

    /// Keeps only items matching `condition` on non-key attributes.
    ///
    /// A filter is applied after the items are read: it saves bandwidth, not
    /// read capacity. Prefer a sort-key condition or an index when a filter
    /// would discard most items.
    pub fn filter(mut self, condition: Condition<E>) -> Self {
        self.options.add_filter(condition);
        self
    }

    /// Reads the page `cursor` points to: the page after the one that
    /// returned it as its `cursor`, or before the one that returned it as
    /// its [`previous`](crate::reads::query::Page::previous).
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
}

impl<E: Entity, S, P, D, const K: usize> Query<E, S, TableIndex, P, D, K> {
    /// A strongly consistent read; only on the table and local indexes.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }
}
