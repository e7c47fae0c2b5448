//! A scan's segments read concurrently: each page takes what the segments
//! read, lowest segment first, reading again only the segments it has
//! nothing left of; what they read beyond the page is kept for the next
//! page of a stream.

use std::collections::VecDeque;

use crate::db::Db;
use crate::error::Result;
use crate::item::Item;
use crate::reads::cursor;
use crate::reads::cursor::{Cursor, Position};
use crate::reads::fetch::{next_read, Counted};
use crate::reads::scan::plan::ScanPlan;
use crate::reads::scan::request::ScanRequest;
use crate::telemetry::Capacity;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

/// The most segments read at once: the lowest unfinished ones.
pub(super) const CONCURRENT_SEGMENTS: usize = 32;

/// A scan in progress: what each segment has read and not yet returned,
/// where its next request starts, where a cursor resumes it, and how much
/// its last request read.
pub(crate) struct Reading {
    buffers: Vec<VecDeque<Item>>,
    next: Vec<Position>,
    resume: Vec<Position>,
    reads: Vec<Option<usize>>,
}

/// One page's items, before decoding, and the scan's progress.
pub(super) struct RawScanPage {
    pub items: Vec<Item>,
    pub cursor: Option<Cursor>,
    pub has_more: Option<bool>,
    pub scanned: u64,
    pub segments_done: u32,
    pub segments: u32,
    pub consumed_capacity: Capacity,
    pub requests: u32,
}

impl ScanPlan {
    /// Counts the items of every segment (`Select: COUNT`), each read to
    /// its end, up to [`CONCURRENT_SEGMENTS`] at a time, lowest first.
    /// `capacity`: ask DynamoDB for the capacity consumed.
    pub(super) async fn count(&self, db: &Db, capacity: bool) -> Result<Counted> {
        use futures::{StreamExt, TryStreamExt};
        let capacity = capacity.then_some(ReturnConsumedCapacity::Indexes);
        let segments = (0..self.request.segments).map(|segment| {
            let capacity = capacity.clone();
            async move {
                let mut request = self.request.clone();
                request.segment = segment;
                let mut counted = Counted::default();
                loop {
                    let answer = request.send(db, capacity.clone()).await?;
                    counted.requests += 1;
                    counted.count += answer.count.max(0) as u64;
                    counted.scanned += answer.scanned_count.max(0) as u64;
                    counted.capacity.add(&answer.capacity);
                    match answer.last_key {
                        Some(key) => request.start = Some(key),
                        None => return Ok::<_, crate::error::Error>(counted),
                    }
                }
            }
        });
        futures::stream::iter(segments)
            .buffered(CONCURRENT_SEGMENTS)
            .try_fold(Counted::default(), |mut all, segment| async move {
                all.add(&segment);
                Ok(all)
            })
            .await
    }

    /// Where each segment starts: the cursor's positions, checked against
    /// this scan, or the start of every segment.
    pub(super) fn start(&self, cursor: Option<&Cursor>) -> Result<Reading> {
        let segments = self.request.segments as usize;
        let positions = match cursor {
            Some(cursor) => cursor::decode(
                cursor,
                &self.fingerprint,
                segments,
                &self.key_attributes,
                self.cursor_keys.as_deref(),
            )?,
            None => vec![Position::Start; segments],
        };
        Ok(Reading {
            buffers: vec![VecDeque::new(); segments],
            next: positions.clone(),
            resume: positions,
            reads: vec![None; segments],
        })
    }

    /// The table key of `item`, where its segment resumes after it.
    fn key_of(&self, item: &Item) -> Item {
        self.key_attributes
            .iter()
            .filter_map(|name| item.get(*name).map(|v| ((*name).to_owned(), v.clone())))
            .collect()
    }

    /// Moves buffered items into `items`, lowest segment first, until it
    /// holds `limit`; each segment resumes after the last item taken, or
    /// where its reads stopped once everything it read is taken.
    fn take(&self, reading: &mut Reading, items: &mut Vec<Item>, limit: Option<usize>) {
        for (s, buffer) in reading.buffers.iter_mut().enumerate() {
            while limit.is_none_or(|n| items.len() < n) {
                let Some(item) = buffer.pop_front() else {
                    break;
                };
                reading.resume[s] = Position::After(self.key_of(&item));
                items.push(item);
            }
            if buffer.is_empty() {
                reading.resume[s] = reading.next[s].clone();
            }
        }
    }

    /// The requests of the next round of reads: the lowest unfinished
    /// segments (up to [`CONCURRENT_SEGMENTS`]) that have nothing left to
    /// take, each with its segment and how many items it asks for. They
    /// share what the page misses (`missing`), so that a page reads about
    /// what it returns: what a segment reads and the page does not take is
    /// read again by a page resumed from its cursor.
    fn round(
        &self,
        reading: &Reading,
        missing: Option<usize>,
    ) -> Vec<(usize, Option<usize>, ScanRequest)> {
        let unfinished = (0..reading.next.len())
            .filter(|&s| reading.next[s] != Position::Done || !reading.buffers[s].is_empty());
        let to_read: Vec<usize> = unfinished
            .take(CONCURRENT_SEGMENTS)
            .filter(|&s| reading.buffers[s].is_empty())
            .collect();
        let share = missing.map(|m| m.div_ceil(to_read.len().max(1)));
        to_read
            .into_iter()
            .map(|s| {
                let ask = share.map(|m| next_read(m, reading.reads[s]));
                let mut request = self.request.clone();
                request.segment = s as u32;
                request.limit = ask.map(|n| n.min(i32::MAX as usize) as i32);
                request.start = match &reading.next[s] {
                    Position::After(key) => Some(key.clone()),
                    _ => None,
                };
                (s, ask, request)
            })
            .collect()
    }

    /// One page of up to `limit` items (without a limit: one request of
    /// each segment read, up to [`CONCURRENT_SEGMENTS`] of them).
    pub(super) async fn page(
        &self,
        db: &Db,
        reading: &mut Reading,
        limit: Option<usize>,
    ) -> Result<RawScanPage> {
        let mut items = Vec::new();
        let mut capacity = Capacity::default();
        let mut requests = 0;
        let mut scanned = 0u64;
        let mut read_once = false;
        // With `exact_end`, a page reads one item past its limit: the
        // first rounds ask for one more, and a full page whose segments
        // hold nothing more reads the lowest unfinished segment until it
        // finds an item or every segment is done (`probe`: what it last
        // asked for).
        let extra = usize::from(self.exact_end);
        let mut probe = None;
        loop {
            self.take(reading, &mut items, limit);
            let full = limit.is_some_and(|n| items.len() >= n);
            let known = reading.buffers.iter().any(|b| !b.is_empty())
                || reading.next.iter().all(|p| *p == Position::Done);
            let probing = full && self.exact_end && !known;
            if (full && !probing) || (limit.is_none() && read_once) {
                break;
            }
            let missing = limit.map(|n| n.saturating_add(extra).saturating_sub(items.len()).max(1));
            let mut round = self.round(reading, missing);
            if probing {
                round.truncate(1);
                for (_, ask, request) in &mut round {
                    let next = next_read(1, probe);
                    probe = Some(next);
                    *ask = Some(next);
                    request.limit = Some(next.min(i32::MAX as usize) as i32);
                }
            }
            if round.is_empty() {
                break;
            }
            let sent = round.into_iter().map(|(s, ask, request)| async move {
                request.send(db, None).await.map(|answer| (s, ask, answer))
            });
            for (s, ask, answer) in futures::future::try_join_all(sent).await? {
                requests += 1;
                scanned += answer.scanned_count.max(0) as u64;
                capacity.add(&answer.capacity);
                reading.reads[s] = ask;
                reading.buffers[s].extend(answer.items);
                reading.next[s] = match answer.last_key {
                    Some(key) => Position::After(key),
                    None => Position::Done,
                };
            }
            read_once = true;
        }
        let done = |p: &Position| *p == Position::Done;
        let finished = reading.resume.iter().all(done);
        let has_more = if finished {
            Some(false)
        } else if reading.buffers.iter().any(|b| !b.is_empty()) {
            Some(true)
        } else {
            None
        };
        let cursor = (!finished).then(|| {
            cursor::encode(
                &self.fingerprint,
                &reading.resume,
                self.cursor_keys.as_deref(),
            )
        });
        Ok(RawScanPage {
            items,
            cursor,
            has_more,
            scanned,
            segments_done: reading.resume.iter().filter(|p| done(p)).count() as u32,
            segments: reading.resume.len() as u32,
            consumed_capacity: capacity,
            requests,
        })
    }
}
