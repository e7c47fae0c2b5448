//! The query engine under the typed builders: one DynamoDB Query request at a
//! time, pages of exactly `limit` items across filtered and 1 MB pages, and
//! sharded indexes read concurrently and merged in sort-key order.

mod fanout;

pub(crate) use fanout::Fanout;
use fanout::{DEFAULT_SHARDED_PAGE, WHOLE_PAGE_SHARDS};

use crate::telemetry;
use crate::telemetry::Capacity;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, Select};

use crate::db::Db;
use crate::error::{Error, Result};
use crate::expression::{Expression, Placeholders};
use crate::item::number::compare_numbers;
use crate::item::Item;
use crate::keys::key::KeyValue;
use crate::keys::sort::{SortCondition, SortRange};
use crate::reads::cursor;
use crate::reads::cursor::{Cursor, Position, Reading};

/// Items read by one page request, before decoding.
pub(crate) struct RawPage {
    pub items: Vec<Item>,
    pub cursor: Option<Cursor>,
    /// Where the page before this one is read from, when one may exist.
    pub previous: Option<Cursor>,
    /// Whether more items follow the page, when DynamoDB's answers tell.
    pub has_more: Option<bool>,
    pub consumed_capacity: Capacity,
    pub requests: u32,
}

/// Everything one query needs, resolved from the typed builder.
#[derive(Clone)]
pub(crate) struct Plan {
    pub entity: &'static str,
    pub table_name: String,
    pub index: Option<&'static str>,
    /// The partition key's attributes: one, or several for a
    /// multi-attribute key.
    pub pk_attributes: Vec<&'static str>,
    /// The sort key's attributes: none, one, or several.
    pub sk_attributes: Vec<&'static str>,
    /// One partition per shard (one for an unsharded key), each a value per
    /// partition key attribute.
    pub partitions: Vec<Vec<KeyValue>>,
    pub sort: SortCondition,
    /// The filter: time to live and the caller's condition.
    pub filter: Option<Expression>,
    /// Only these attributes (plus the keys), when projecting.
    pub projection: Option<Vec<&'static str>>,
    /// Every attribute of the item, fetched from the table: a local index
    /// that projects only some attributes, read for whole entities (DynamoDB
    /// returns only the projected ones by default).
    pub all_attributes: bool,
    /// Attributes of an item's key in this query: the table's, plus the index's.
    pub key_attributes: Vec<&'static str>,
    pub forward: bool,
    pub consistent: bool,
    pub fingerprint: String,
    /// The keys cursors are signed with, when the `Db` has them.
    pub cursor_keys: Option<std::sync::Arc<crate::db::CursorKeys>>,
    /// Which items read to keep, when not all are: a query of one entity
    /// keeps its items, by their entity type or, on an index that does not
    /// carry it, by their table key.
    pub keep: Option<fn(&Item) -> bool>,
    /// Read one item past a limited page, so that the page knows whether
    /// more follow.
    pub exact_end: bool,
    /// Which items a count counts, as a filter DynamoDB applies: a count
    /// returns no item to [`keep`](Self::keep). `None` with a `keep`: the
    /// index does not carry the entity type, and a count reads the keys
    /// and keeps them instead.
    pub count_filter: Option<Expression>,
}

/// What a count read: the items counted, the items DynamoDB read for them,
/// the capacity and the requests.
#[derive(Default)]
pub(crate) struct Counted {
    pub count: u64,
    pub scanned: u64,
    pub capacity: Capacity,
    pub requests: u32,
}

impl Counted {
    pub(crate) fn add(&mut self, other: &Counted) {
        self.count += other.count;
        self.scanned += other.scanned;
        self.capacity.add(&other.capacity);
        self.requests += other.requests;
    }
}

/// What one Query request asks DynamoDB for. A count asks for the
/// capacity it consumed when `capacity`, whatever its span.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// The items (or their projection), up to `limit` read.
    Items { limit: Option<usize> },
    /// Their number only (`Select: COUNT`), with the count filter.
    Count { capacity: bool },
    /// Their keys only, to be kept and counted here: a count where DynamoDB
    /// cannot tell the entity's items apart.
    Keys { capacity: bool },
}

/// The most items one request asks DynamoDB to read (it stops at 1 MB too).
const MAX_READ: usize = 1000;

/// How many items the next request of a page reads: DynamoDB's `Limit`
/// counts items read, not items a filter keeps, so asking for only the
/// missing count would take a request per item read when a filter is
/// selective. Each request of one page reads four times the previous one
/// (at least what is missing), so a page takes a few requests and reads at
/// most about four times what it needed.
pub(crate) fn next_read(missing: usize, previous: Option<usize>) -> usize {
    let grown = previous.map_or(0, |read| read.saturating_mul(4));
    missing.max(grown).min(MAX_READ.max(missing))
}

impl Plan {
    fn invalid(&self, reason: String) -> Error {
        Error::InvalidRequest {
            entity: self.entity,
            reason,
        }
    }

    /// Decodes and checks a cursor against this plan.
    pub(crate) fn positions(&self, cursor: Option<&Cursor>) -> Result<(Vec<Position>, Reading)> {
        let Some(cursor) = cursor else {
            let start = vec![Position::Start; self.partitions.len()];
            return Ok((start, Reading::Forward));
        };
        let (positions, reading) = cursor::decode_reading(
            cursor,
            &self.fingerprint,
            self.partitions.len(),
            &self.key_attributes,
            self.cursor_keys.as_deref(),
        )?;
        for (position, partition) in positions.iter().zip(&self.partitions) {
            if let Position::After(key) = position {
                let in_partition = self
                    .pk_attributes
                    .iter()
                    .zip(partition)
                    .all(|(name, value)| {
                        key.get(*name)
                            .and_then(KeyValue::from_attribute_value)
                            .as_ref()
                            == Some(value)
                    });
                if !in_partition {
                    return Err(Error::InvalidCursor {
                        reason: "the cursor's key is in another partition".into(),
                    });
                }
                // The last item DynamoDB read may be another entity's (one
                // the query did not keep): any full key of the partition is
                // a position.
                let complete = self.key_attributes.iter().all(|name| {
                    key.get(*name)
                        .and_then(KeyValue::from_attribute_value)
                        .is_some()
                });
                if !complete {
                    return Err(Error::InvalidCursor {
                        reason: "the cursor's key lacks a key attribute of this query".into(),
                    });
                }
                if !self.in_sort_range(key) {
                    return Err(Error::InvalidCursor {
                        reason: "the cursor's key is outside this query's sort key range".into(),
                    });
                }
            }
        }
        Ok((positions, reading))
    }

    /// Whether `key` satisfies the query's sort-key condition (DynamoDB
    /// refuses a start key outside it).
    fn in_sort_range(&self, key: &Item) -> bool {
        let value = |i: usize| {
            self.sk_attributes
                .get(i)
                .and_then(|name| key.get(*name))
                .and_then(KeyValue::from_attribute_value)
        };
        let order = |a: &KeyValue, b: &KeyValue| match (a, b) {
            (KeyValue::N(x), KeyValue::N(y)) => compare_numbers(x, y),
            (x, y) => x.as_str().as_bytes().cmp(y.as_str().as_bytes()),
        };
        let leading = self.sort.equal.iter().enumerate();
        if !leading
            .into_iter()
            .all(|(i, v)| value(i).as_ref() == Some(v))
        {
            return false;
        }
        let Some(ranged) = value(self.sort.equal.len()) else {
            return self.sort.range == SortRange::All;
        };
        match &self.sort.range {
            SortRange::All => true,
            SortRange::Empty => false,
            SortRange::Eq(v) => order(&ranged, v).is_eq(),
            SortRange::BeginsWith(prefix) => ranged.as_str().starts_with(prefix.as_str()),
            SortRange::Compare(op, v) => {
                let o = order(&ranged, v);
                match *op {
                    "<" => o.is_lt(),
                    "<=" => o.is_le(),
                    ">" => o.is_gt(),
                    ">=" => o.is_ge(),
                    _ => o.is_eq(),
                }
            }
            SortRange::Between(lo, hi) => order(&ranged, lo).is_ge() && order(&ranged, hi).is_le(),
        }
    }

    /// The key condition of `shard`: every partition attribute equal, the
    /// leading sort attributes equal, then the range on the next one.
    fn key_condition(&self, shard: usize) -> Result<Vec<Expression>> {
        let equal_values = self.partitions[shard].iter().chain(&self.sort.equal);
        let equal_attributes = self.pk_attributes.iter().chain(&self.sk_attributes);
        // The equalities and, after them, the range.
        let mut terms = Vec::with_capacity(self.pk_attributes.len() + self.sort.equal.len() + 1);
        terms.extend(
            equal_attributes
                .zip(equal_values)
                .map(|(name, value)| Expression::compare(name, "=", value.to_attribute_value())),
        );
        if let Some(&sk) = self.sk_attributes.get(self.sort.equal.len()) {
            match &self.sort.range {
                SortRange::All => {}
                SortRange::Eq(v) => {
                    terms.push(Expression::compare(sk, "=", v.to_attribute_value()))
                }
                SortRange::BeginsWith(v) => {
                    terms.push(Expression::begins_with(sk, AttributeValue::S(v.clone())))
                }
                SortRange::Compare(op, v) => {
                    terms.push(Expression::compare(sk, op, v.to_attribute_value()))
                }
                SortRange::Between(lo, hi) => terms.push(Expression::between(
                    sk,
                    lo.to_attribute_value(),
                    hi.to_attribute_value(),
                )),
                SortRange::Empty => {
                    return Err(self.invalid("an empty sort range is never sent".into()))
                }
            }
        }
        Ok(terms)
    }

    /// The parts of one Query request: the key condition of `shard`, the
    /// filter and projection, rendered with their placeholders.
    fn rendered(&self, shard: usize, reading: Reading, ask: Ask) -> Result<Rendered> {
        let forward = (reading == Reading::Forward) == self.forward;
        let mut p = Placeholders::default();
        let condition = Expression::render_all(&self.key_condition(shard)?, &mut p)
            .map_err(|reason| self.invalid(reason))?;
        let filter = match ask {
            Ask::Count { .. } => [self.filter.clone(), self.count_filter.clone()]
                .into_iter()
                .flatten()
                .reduce(Expression::and),
            Ask::Items { .. } | Ask::Keys { .. } => self.filter.clone(),
        };
        let filter = match filter {
            Some(filter) => Some(
                filter
                    .render(&mut p)
                    .map_err(|reason| self.invalid(reason))?,
            ),
            None => None,
        };
        let projection = match ask {
            Ask::Items { .. } => self.projection.as_ref().map(|attributes| {
                let attributes = attributes.iter().chain(&self.key_attributes);
                p.projection(attributes.copied())
            }),
            Ask::Count { .. } => None,
            Ask::Keys { .. } => Some(p.projection(self.key_attributes.iter().copied())),
        };
        p.check(self.entity)?;
        let condition = p.fit(self.entity, "key condition", condition)?;
        let filter = filter
            .map(|f| p.fit(self.entity, "filter", f))
            .transpose()?;
        let projection = projection
            .map(|f| p.fit(self.entity, "projection", f))
            .transpose()?;
        let (names, values) = p.into_maps();
        // A projection expression selects its attributes without `Select`.
        let select = match ask {
            Ask::Count { .. } => Some(Select::Count),
            Ask::Keys { .. } => None,
            Ask::Items { .. } => {
                (projection.is_none() && self.all_attributes).then_some(Select::AllAttributes)
            }
        };
        Ok(Rendered {
            forward,
            condition,
            filter,
            projection,
            select,
            names,
            values,
        })
    }

    /// One DynamoDB Query request, read in the query's order or against it.
    async fn request(
        &self,
        db: &Db,
        shard: usize,
        start: Option<&Item>,
        limit: Option<usize>,
        reading: Reading,
    ) -> Result<Response> {
        self.request_of(db, shard, start, reading, Ask::Items { limit })
            .await
    }

    /// One DynamoDB Query request asking for `ask`.
    async fn request_of(
        &self,
        db: &Db,
        shard: usize,
        start: Option<&Item>,
        reading: Reading,
        ask: Ask,
    ) -> Result<Response> {
        let (limit, capacity) = match ask {
            Ask::Items { limit } => (limit, false),
            Ask::Count { capacity } | Ask::Keys { capacity } => (None, capacity),
        };
        let parts = self.rendered(shard, reading, ask)?;
        // The query's shape only: key values and items may be personal data.
        let span = db.span("Query", &self.table_name, self.index, self.entity);
        let read = telemetry::Read {
            consistent: self.consistent,
            limit: limit.map(clamped),
            projection: parts.projection.as_deref(),
            // As sent: only when it is not DynamoDB's default.
            forward: (!parts.forward).then_some(false),
            select: parts.select.as_ref().map(Select::as_str),
            segment: None,
        };
        span.reading(&read, parts.names.as_ref());
        let request = db
            .client()
            .query()
            .table_name(&self.table_name)
            .set_index_name(self.index.map(str::to_owned))
            .key_condition_expression(parts.condition)
            .set_filter_expression(parts.filter)
            .set_projection_expression(parts.projection)
            .set_select(parts.select)
            .set_expression_attribute_names(parts.names)
            .set_expression_attribute_values(parts.values)
            // Forward is DynamoDB's default.
            .set_scan_index_forward((!parts.forward).then_some(false))
            .set_consistent_read(self.consistent.then_some(true))
            .set_exclusive_start_key(start.cloned())
            .set_limit(limit.map(clamped))
            .set_return_consumed_capacity(db.consumed_capacity(&span, capacity));
        let output = db.send_in_span(&span, request).await?;
        let items = output.items.unwrap_or_default();
        let capacity = Capacity::of(output.consumed_capacity);
        Ok(Response {
            capacity,
            items,
            count: output.count.max(0) as u64,
            scanned: output.scanned_count.max(0) as u64,
            last_key: output.last_evaluated_key,
        })
    }

    /// Counts the items of every shard, each read to its end (concurrently
    /// on a sharded index), following DynamoDB's pages. With a count
    /// filter, DynamoDB counts (`Select: COUNT`); without one, where items
    /// must be kept by their key, it returns their keys, kept and counted
    /// here. `capacity`: ask DynamoDB for the capacity consumed.
    pub(crate) async fn count(&self, db: &Db, capacity: bool) -> Result<Counted> {
        let mut counted = Counted::default();
        if self.sort.range == SortRange::Empty {
            return Ok(counted);
        }
        let ask = match (self.keep, &self.count_filter) {
            (Some(_), None) => Ask::Keys { capacity },
            _ => Ask::Count { capacity },
        };
        let shards = (0..self.partitions.len()).map(|shard| self.count_shard(db, shard, ask));
        for shard in futures::future::try_join_all(shards).await? {
            counted.add(&shard);
        }
        Ok(counted)
    }

    /// Counts the items of one shard, page after page.
    async fn count_shard(&self, db: &Db, shard: usize, ask: Ask) -> Result<Counted> {
        let mut counted = Counted::default();
        let mut start = None;
        loop {
            let response = self
                .request_of(db, shard, start.as_ref(), Reading::Forward, ask)
                .await?;
            counted.requests += 1;
            counted.scanned += response.scanned;
            counted.capacity.add(&response.capacity);
            counted.count += match ask {
                Ask::Keys { .. } => self.kept(response.items).count() as u64,
                _ => response.count,
            };
            match response.last_key {
                Some(key) => start = Some(key),
                None => return Ok(counted),
            }
        }
    }

    fn encode_cursor(&self, positions: &[Position], reading: Reading) -> Cursor {
        let keys = self.cursor_keys.as_deref();
        cursor::encode_reading(&self.fingerprint, positions, reading, keys)
    }

    /// The items a response brings that the query keeps (the caller
    /// reserves room for all of them: a filter's size hint is none).
    fn kept(&self, items: Vec<Item>) -> impl Iterator<Item = Item> + '_ {
        items
            .into_iter()
            .filter(|item| self.keep.is_none_or(|keep| keep(item)))
    }

    /// The key of `item` in this query (table key plus index key), for cursors.
    fn key_of(&self, item: &Item) -> Item {
        self.key_attributes
            .iter()
            .filter_map(|name| item.get(*name).map(|v| ((*name).to_owned(), v.clone())))
            .collect()
    }

    /// One page of up to `limit` items (for an unsharded query without a
    /// limit: one DynamoDB page).
    pub(crate) async fn page(
        &self,
        db: &Db,
        cursor: Option<&Cursor>,
        limit: Option<usize>,
    ) -> Result<RawPage> {
        let (page, _) = self.page_continuing(db, cursor, None, limit, false).await?;
        Ok(page)
    }

    /// One page. A sharded read continues from `fanout`, what the previous
    /// page of the same stream read and did not return, rather than reading
    /// the shards again from the cursor; the fan-out to keep for the next
    /// page comes back with the page. A `stream` without a `limit` reads its
    /// shards a whole DynamoDB page at a time.
    pub(crate) async fn page_continuing(
        &self,
        db: &Db,
        cursor: Option<&Cursor>,
        fanout: Option<Fanout>,
        limit: Option<usize>,
        stream: bool,
    ) -> Result<(RawPage, Option<Fanout>)> {
        let empty = RawPage {
            items: Vec::new(),
            cursor: None,
            previous: None,
            has_more: Some(false),
            consumed_capacity: Capacity::default(),
            requests: 0,
        };
        if self.sort.range == SortRange::Empty {
            return Ok((empty, None));
        }
        if self.partitions.len() > 1 {
            let mut fanout = match fanout {
                Some(fanout) => fanout,
                None => {
                    let (positions, reading) = self.positions(cursor)?;
                    if reading == Reading::Backward {
                        return Err(Error::InvalidCursor {
                            reason: "a sharded query has no previous-page cursors".into(),
                        });
                    }
                    let whole = stream && limit.is_none() && positions.len() <= WHOLE_PAGE_SHARDS;
                    Fanout::new(positions, whole)
                }
            };
            let limit = limit.unwrap_or(DEFAULT_SHARDED_PAGE);
            let page = self.merged_page(db, &mut fanout, limit).await?;
            return Ok((page, Some(fanout)));
        }
        let (positions, reading) = self.positions(cursor)?;
        let position = positions.into_iter().next().unwrap_or(Position::Start);
        let page = match (position, reading) {
            (Position::Done, _) => empty,
            (position, Reading::Forward) => self.next_page(db, position, limit).await?,
            (position, Reading::Backward) => self.previous_page(db, position, limit).await?,
        };
        Ok((page, None))
    }

    /// Reads from `position`, in the query's order or against it, until
    /// `target` items are kept (one DynamoDB page without a target) or the
    /// range ends.
    async fn read_run(
        &self,
        db: &Db,
        position: Position,
        target: Option<usize>,
        reading: Reading,
    ) -> Result<Run> {
        let mut run = Run {
            items: Vec::new(),
            position,
            capacity: Capacity::default(),
            requests: 0,
        };
        let mut read = None;
        loop {
            let start = match &run.position {
                Position::After(key) => Some(key),
                _ => None,
            };
            let ask = target.map(|n| next_read(n - run.items.len(), read));
            read = ask;
            let response = self.request(db, 0, start, ask, reading).await?;
            run.requests += 1;
            run.capacity.add(&response.capacity);
            run.items.reserve(response.items.len());
            run.items.extend(self.kept(response.items));
            run.position = match response.last_key {
                Some(key) => Position::After(key),
                None => Position::Done,
            };
            let full = target.is_some_and(|n| run.items.len() >= n);
            if run.position == Position::Done || full || target.is_none() {
                return Ok(run);
            }
        }
    }

    /// How many items an unsharded page of `limit` reads: one more than it
    /// returns with `exact_end` (if it is there, more follow) and always
    /// backward (if it is there, another page precedes).
    fn items_to_read(&self, limit: Option<usize>, reading: Reading) -> Option<usize> {
        let extra = match reading {
            Reading::Forward => self.exact_end,
            Reading::Backward => true,
        };
        limit.map(|n| n.saturating_add(usize::from(extra)))
    }

    /// The page after `position` (the first page from [`Position::Start`]).
    async fn next_page(
        &self,
        db: &Db,
        position: Position,
        limit: Option<usize>,
    ) -> Result<RawPage> {
        let from_start = position == Position::Start;
        let target = self.items_to_read(limit, Reading::Forward);
        let mut run = self
            .read_run(db, position, target, Reading::Forward)
            .await?;
        // Read more than the page takes: it ends at its last item, the next
        // page starts right after it, and more items are known to follow.
        let more_read = limit.is_some_and(|n| run.items.len() > n);
        if let Some(n) = limit.filter(|_| more_read) {
            run.items.truncate(n);
            if let Some(last) = run.items.last() {
                run.position = Position::After(self.key_of(last));
            }
        }
        let has_more = match run.position {
            Position::Done => Some(false),
            _ if more_read => Some(true),
            _ => None,
        };
        let cursor = (run.position != Position::Done)
            .then(|| self.encode_cursor(&[run.position], Reading::Forward));
        // Before a limited page that did not start the range: the items
        // before its first one or, when it found none (only the last page
        // can be empty), the last ones of the range. An unlimited page is
        // one DynamoDB page of up to 1 MB, and 1 MB read back from a page
        // need not end where the page before it began: no previous page.
        let previous = (!from_start && limit.is_some()).then(|| {
            let before = run
                .items
                .first()
                .map_or(Position::Start, |first| Position::After(self.key_of(first)));
            self.encode_cursor(&[before], Reading::Backward)
        });
        Ok(RawPage {
            items: run.items,
            cursor,
            previous,
            has_more,
            consumed_capacity: run.capacity,
            requests: run.requests,
        })
    }

    /// The page before `position` (the last page of the range from
    /// [`Position::Start`]), read against the query's order and returned in
    /// it. It reads one item more than it returns: if that one is there,
    /// another page precedes this one.
    async fn previous_page(
        &self,
        db: &Db,
        position: Position,
        limit: Option<usize>,
    ) -> Result<RawPage> {
        let target = self.items_to_read(limit, Reading::Backward);
        let mut run = self
            .read_run(db, position, target, Reading::Backward)
            .await?;
        let more_read = limit.is_some_and(|n| run.items.len() > n);
        if let Some(n) = limit {
            run.items.truncate(n);
        }
        // Without a limit (a cursor reused on a query without one), one
        // DynamoDB page is read back, and no previous page is offered.
        let previous = more_read.then(|| {
            let before = match run.items.last() {
                Some(first) => Position::After(self.key_of(first)),
                None => run.position.clone(),
            };
            self.encode_cursor(&[before], Reading::Backward)
        });
        // The next page starts after the page's last item; after where the
        // read stopped when a filter kept none; from the start when nothing
        // precedes the page this one was read from.
        let next = match (run.items.first(), run.position) {
            (Some(last), _) => Position::After(self.key_of(last)),
            (None, Position::After(key)) => Position::After(key),
            (None, _) => Position::Start,
        };
        run.items.reverse();
        Ok(RawPage {
            items: run.items,
            cursor: Some(self.encode_cursor(&[next], Reading::Forward)),
            previous,
            // Whether the page this one was read from still holds items is
            // not read again.
            has_more: None,
            consumed_capacity: run.capacity,
            requests: run.requests,
        })
    }
}

/// The items one run of requests read, where it stopped, and what it cost.
struct Run {
    items: Vec<Item>,
    position: Position,
    capacity: Capacity,
    requests: u32,
}

/// The rendered parts of one Query request.
struct Rendered {
    forward: bool,
    condition: String,
    filter: Option<String>,
    projection: Option<String>,
    select: Option<Select>,
    names: crate::expression::NameMap,
    values: crate::expression::ValueMap,
}

struct Response {
    items: Vec<Item>,
    /// Items returned, or counted with `Select: COUNT` (`Count`).
    count: u64,
    /// Items read, before the filter (`ScannedCount`).
    scanned: u64,
    last_key: Option<HashMap<String, AttributeValue>>,
    capacity: Capacity,
}

/// A page size as DynamoDB's `Limit` (an i32).
fn clamped(limit: usize) -> i32 {
    limit.min(i32::MAX as usize) as i32
}
