//! Sharded reads: every shard of a sharded index read concurrently, only as
//! far as a page needs, and merged in sort-key order; what the shards read
//! beyond a page is kept for the next page of a stream.

use std::cmp::Ordering;
use std::collections::VecDeque;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::db::Db;
use crate::error::Result;
use crate::item::number::compare_numbers;
use crate::item::Item;
use crate::reads::cursor::{Cursor, Position, Reading};
use crate::reads::fetch::{next_read, Plan, RawPage};
use crate::telemetry::Capacity;

/// A sharded read in progress: what each shard has read and not yet
/// returned, where its next request starts, where a cursor resumes it, and
/// how much its last request read. A stream of pages keeps it from page to
/// page, so it reads each item once; a page resumed from a cursor reads again
/// at most what the shards had buffered: for each shard, less than a page
/// plus its last read (one DynamoDB page, at most 1 MB).
pub(crate) struct Fanout {
    buffers: Vec<VecDeque<Item>>,
    next: Vec<Position>,
    resume: Vec<Position>,
    reads: Vec<Option<usize>>,
    /// Each shard is read a whole DynamoDB page (up to 1 MB) at a time, as
    /// hand-written code reads it: a stream that the caller gave no page
    /// size, of at most [`WHOLE_PAGE_SHARDS`] shards. Otherwise each request
    /// reads what the page misses, growing fourfold (see [`next_read`]).
    whole_pages: bool,
}

impl Fanout {
    pub(super) fn new(positions: Vec<Position>, whole_pages: bool) -> Self {
        let shards = positions.len();
        Self {
            buffers: vec![VecDeque::new(); shards],
            next: positions.clone(),
            resume: positions,
            reads: vec![None; shards],
            whole_pages,
        }
    }
}

/// How many items each of `live` shards is asked for when a page misses
/// `remaining`: its even share `λ = remaining / live`, plus two standard
/// deviations of the number of the page's items a shard holds (items
/// spread over shards by a hash of their key: about Poisson, `√λ`), plus
/// one; at most the whole. A shard rarely runs dry before the page is
/// full, so the page takes one round trip, and it reads far less than
/// asking each shard for the whole page (8 shards, top 10 of 1.5 KB items:
/// 8 read units instead of 16; see docs/performance.md). A shard that
/// still runs dry is read again, growing fourfold.
fn shard_share(remaining: usize, live: usize) -> usize {
    let even = remaining as f64 / live.max(1) as f64;
    let share = (even + 2.0 * even.sqrt()).ceil() as usize + 1;
    share.min(remaining)
}

/// How many items a sharded page takes when the caller sets no limit.
pub(super) const DEFAULT_SHARDED_PAGE: usize = 100;

/// The most shards a stream reads a whole DynamoDB page (up to 1 MB) of at
/// a time: what it reads ahead stays within 16 MB. More shards read in
/// growing steps from the page size, as a single page does.
pub(super) const WHOLE_PAGE_SHARDS: usize = 16;

impl Plan {
    fn sort_value<'a>(&self, item: &'a Item) -> Option<&'a AttributeValue> {
        self.sk_attributes.first().and_then(|name| item.get(*name))
    }

    fn compare(&self, a: &Item, b: &Item) -> Ordering {
        let order = match (self.sort_value(a), self.sort_value(b)) {
            (Some(AttributeValue::N(x)), Some(AttributeValue::N(y))) => compare_numbers(x, y),
            (Some(AttributeValue::S(x)), Some(AttributeValue::S(y))) => {
                x.as_bytes().cmp(y.as_bytes())
            }
            _ => Ordering::Equal,
        };
        if self.forward {
            order
        } else {
            order.reverse()
        }
    }

    /// A k-way merge of the shards: every shard is read concurrently, only as
    /// far as the page needs, and each shard's cursor position is the last
    /// item taken from it, so the next page resumes exactly there. What a
    /// shard read beyond the page stays in `fanout` for the next page of a
    /// stream.
    pub(super) async fn merged_page(
        &self,
        db: &Db,
        fanout: &mut Fanout,
        limit: usize,
    ) -> Result<RawPage> {
        let shards = fanout.buffers.len();
        // Room for the page; a large limit may be far more than the shards
        // hold, so no more than a default page is reserved up front.
        let mut items = Vec::with_capacity(limit.min(DEFAULT_SHARDED_PAGE));
        let mut capacity = Capacity::default();
        let mut requests = 0;
        // Where each shard's cursor position moves to: the last item the
        // page took from it.
        let mut last_taken: Vec<Option<usize>> = vec![None; shards];
        while items.len() < limit {
            let remaining = limit - items.len();
            self.read_dry_shards(db, fanout, remaining, &mut capacity, &mut requests)
                .await?;
            let Some(shard) = self.head_shard(fanout) else {
                if (0..shards).all(|s| fanout.next[s] == Position::Done) {
                    break;
                }
                continue;
            };
            // Only take a head once every shard that could hold a smaller item
            // has something buffered.
            if (0..shards).any(|s| fanout.buffers[s].is_empty() && fanout.next[s] != Position::Done)
            {
                continue;
            }
            if let Some(item) = fanout.buffers[shard].pop_front() {
                last_taken[shard] = Some(items.len());
                items.push(item);
            }
        }
        // A full page whose shards hold nothing more, some not done: with
        // `exact_end`, the shards that ran dry are read again until one
        // holds an item or all are done, so the page knows whether more
        // follow.
        let dry = |fanout: &Fanout| {
            fanout.buffers.iter().all(|b| b.is_empty())
                && fanout.next.iter().any(|p| *p != Position::Done)
        };
        if self.exact_end && items.len() >= limit && dry(fanout) && !fanout.whole_pages {
            // One item first, four times more on each further request.
            fanout.reads.iter_mut().for_each(|read| *read = None);
        }
        while self.exact_end && items.len() >= limit && dry(fanout) {
            self.read_dry_shards(db, fanout, 1, &mut capacity, &mut requests)
                .await?;
        }
        self.move_resume_positions(fanout, last_taken, &items);
        let (cursor, has_more) = self.fanout_cursor(fanout);
        // A merged page has no previous page: each shard would have to be
        // read back from a position of its own before the page.
        Ok(RawPage {
            items,
            cursor,
            previous: None,
            has_more,
            consumed_capacity: capacity,
            requests,
        })
    }

    /// When a shard runs dry, every shard that could run dry before the page
    /// is full (`remaining` items away) is read again in the same round trip,
    /// each from where it stopped; their capacity and requests are counted.
    async fn read_dry_shards(
        &self,
        db: &Db,
        fanout: &mut Fanout,
        remaining: usize,
        capacity: &mut Capacity,
        requests: &mut u32,
    ) -> Result<()> {
        let shards = fanout.buffers.len();
        let live = |s: usize| fanout.next[s] != Position::Done;
        let dry = (0..shards).any(|s| fanout.buffers[s].is_empty() && live(s));
        let needed: Vec<usize> = (0..shards)
            .filter(|&s| dry && live(s) && fanout.buffers[s].len() < remaining)
            .collect();
        if needed.is_empty() {
            return Ok(());
        }
        if !fanout.whole_pages {
            let share = shard_share(remaining, (0..shards).filter(|&s| live(s)).count());
            for &s in &needed {
                fanout.reads[s] = Some(next_read(share, fanout.reads[s]));
            }
        }
        let fetches = needed.iter().map(|&s| {
            let start = match &fanout.next[s] {
                Position::After(key) => Some(key),
                _ => None,
            };
            self.request(db, s, start, fanout.reads[s], Reading::Forward)
        });
        let responses = futures::future::try_join_all(fetches).await?;
        for (&s, response) in needed.iter().zip(responses) {
            *requests += 1;
            capacity.add(&response.capacity);
            fanout.buffers[s].reserve(response.items.len());
            fanout.buffers[s].extend(self.kept(response.items));
            fanout.next[s] = match response.last_key {
                Some(key) => Position::After(key),
                None => Position::Done,
            };
        }
        Ok(())
    }

    /// The shard whose first buffered item comes first in the query's order
    /// (the lowest-numbered among equals), if any shard holds an item.
    fn head_shard(&self, fanout: &Fanout) -> Option<usize> {
        (0..fanout.buffers.len())
            .filter(|&s| !fanout.buffers[s].is_empty())
            .min_by(|&a, &b| {
                self.compare(&fanout.buffers[a][0], &fanout.buffers[b][0])
                    .then(a.cmp(&b))
            })
    }

    /// Where a cursor resumes each shard after the page: after the last item
    /// the page took from it (`last_taken`, a position in `items`), or done
    /// once it has nothing buffered and nothing more to read.
    fn move_resume_positions(
        &self,
        fanout: &mut Fanout,
        last_taken: Vec<Option<usize>>,
        items: &[Item],
    ) {
        for (s, last) in last_taken.into_iter().enumerate() {
            if let Some(last) = last {
                fanout.resume[s] = Position::After(self.key_of(&items[last]));
            }
            if fanout.buffers[s].is_empty() && fanout.next[s] == Position::Done {
                fanout.resume[s] = Position::Done;
            }
        }
    }

    /// The page's cursor, none once every shard is done, and whether more
    /// items are known to follow.
    fn fanout_cursor(&self, fanout: &Fanout) -> (Option<Cursor>, Option<bool>) {
        let cursor = fanout
            .resume
            .iter()
            .any(|p| *p != Position::Done)
            .then(|| self.encode_cursor(&fanout.resume, Reading::Forward));
        // A shard holding items the page did not take has more.
        let has_more = match cursor {
            None => Some(false),
            Some(_) if fanout.buffers.iter().any(|b| !b.is_empty()) => Some(true),
            Some(_) => None,
        };
        (cursor, has_more)
    }
}
