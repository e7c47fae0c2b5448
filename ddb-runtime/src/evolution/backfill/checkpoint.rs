//! Where a backfill stands, as text a caller keeps and resumes from.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::reads::cursor;
use crate::reads::cursor::Position;

use crate::entity::Entity;
use crate::reads::cursor::Cursor;

use super::*;

/// Where a backfill stands: per scan segment, the key it stopped after (or
/// that it is done). Print it, store it, and give it back to
/// [`Backfill::resume`] to continue an interrupted run.
///
/// ```
/// let checkpoint: ddb_runtime::schema::Checkpoint = "4:1200:eyJ2IjoxfQ".parse().unwrap();
/// assert_eq!(checkpoint.to_string(), "4:1200:eyJ2IjoxfQ"); // checked when resumed
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Checkpoint(String);

impl fmt::Display for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Checkpoint({} bytes)", self.0.len())
    }
}

impl FromStr for Checkpoint {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        Ok(Checkpoint(text.to_owned()))
    }
}

impl Checkpoint {
    pub(super) fn fingerprint<E: Entity>(table: &str, segments: usize) -> String {
        cursor::fingerprint(&[
            "backfill",
            table,
            E::SCHEMA.entity_type,
            &segments.to_string(),
        ])
    }

    /// `segments:scanned:positions`: the segment count and the items
    /// scanned so far (for the estimate) travel with the positions.
    pub(super) fn encode<E: Entity>(table: &str, positions: &[Position], scanned: u64) -> Self {
        let fingerprint = Self::fingerprint::<E>(table, positions.len());
        let text = cursor::encode(&fingerprint, positions, None);
        Checkpoint(format!("{}:{scanned}:{}", positions.len(), text.as_str()))
    }

    /// The positions and the items scanned before, for `E` on `table`.
    pub(super) fn decode<E: Entity>(&self, table: &str) -> Result<(Vec<Position>, u64)> {
        let invalid = || Error::InvalidCursor {
            reason: "not a backfill checkpoint of this entity and table".into(),
        };
        let mut parts = self.0.splitn(3, ':');
        let (Some(segments), Some(scanned), Some(text)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid());
        };
        let segments: usize = segments.parse().map_err(|_| invalid())?;
        let scanned: u64 = scanned.parse().map_err(|_| invalid())?;
        if !(1..=MAX_SEGMENTS as usize).contains(&segments) {
            return Err(invalid());
        }
        let keys: Vec<&str> = std::iter::once(E::SCHEMA.table.pk.name)
            .chain(E::SCHEMA.table.sk.map(|a| a.name))
            .collect();
        let text: Cursor = text.to_owned().into();
        let fingerprint = Self::fingerprint::<E>(table, segments);
        let positions = cursor::decode(&text, &fingerprint, segments, &keys, None)?;
        Ok((positions, scanned))
    }
}
