//! What a sync does: the changes it applies to bring a table in line with
//! the code, and the differences it leaves for a person to decide, as a
//! readable diff.

use crate::declaration::model::{ContributorInsights, StreamView, TableClass};

use super::settings::Units;

/// One change [`sync_table`](super::sync_table) makes to bring a table in
/// line with the code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyncChange {
    /// The table does not exist: create it with every declared index and its
    /// time to live.
    CreateTable,
    /// A global index the code declares and the table lacks: created with
    /// UpdateTable (DynamoDB fills it from the existing items; synthetic key
    /// attributes that existing items lack still need a backfill).
    AddIndex(&'static str),
    /// A vector index the code declares and the table lacks: created with
    /// UpdateTable (DynamoDB fills it from the existing items, and it can be
    /// searched once ACTIVE).
    AddVectorIndex(&'static str),
    /// Time to live is off: turn it on for this attribute.
    EnableTimeToLive(&'static str),
    /// The table has no stream and the code reads one: turn it on with
    /// this view.
    EnableStream(StreamView),
    /// The table is of another class: UpdateTable to the declared one.
    SetTableClass(TableClass),
    /// The table is not encrypted with this customer managed key:
    /// UpdateTable's `SSESpecification`.
    SetEncryptionKey(String),
    /// The table's (or a global index's) maximum on-demand throughput is
    /// not the settings': UpdateTable.
    SetMaxThroughput {
        /// The global index, or `None` for the table.
        index: Option<String>,
        /// The maximum read and write request units.
        units: Units,
    },
    /// The table's (or a global index's) warm throughput is below the
    /// settings': raised with UpdateTable (a higher one is a difference:
    /// DynamoDB does not lower it).
    SetWarmThroughput {
        /// The global index, or `None` for the table.
        index: Option<String>,
        /// The read and write units per second.
        units: Units,
    },
    /// Point-in-time recovery is off or keeps another period:
    /// UpdateContinuousBackups.
    SetRecoveryPeriod(u8),
    /// Contributor Insights is off or in another mode:
    /// UpdateContributorInsights.
    EnableContributorInsights(ContributorInsights),
    /// Tags the table lacks or holds with another value: TagResource (tags
    /// the settings do not name are left).
    Tag(Vec<(String, String)>),
    /// The table has no resource-based policy or another one:
    /// PutResourcePolicy.
    PutResourcePolicy,
    /// A Region the settings replicate a table with multi-Region eventual
    /// consistency to, and the table has no replica in: UpdateTable's
    /// `ReplicaUpdates`. (A strong global table gains its Regions only
    /// while empty, in one request: a sync reports them as a difference.)
    AddReplica(String),
}

/// What [`sync_table`](super::sync_table) does (or, as a dry run, would
/// do): the changes it applies, and the differences it never applies (it
/// neither deletes nor re-keys anything, nor changes what an index
/// projects) for a person to decide. Its `Display` is a readable diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncPlan {
    /// The changes, in the order they are applied.
    pub changes: Vec<SyncChange>,
    /// Differences left as they are.
    pub differences: Vec<String>,
}

impl SyncPlan {
    /// Whether the table already matches the code.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.differences.is_empty()
    }
}

impl std::fmt::Display for SyncChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SyncChange::CreateTable => write!(f, "create the table"),
            SyncChange::AddIndex(name) => write!(f, "add global index {name}"),
            SyncChange::AddVectorIndex(name) => write!(f, "add vector index {name}"),
            SyncChange::EnableTimeToLive(attribute) => {
                write!(f, "turn on time to live on {attribute}")
            }
            SyncChange::EnableStream(view) => {
                write!(f, "turn on the stream with {}", view.as_str())
            }
            SyncChange::SetTableClass(class) => {
                write!(f, "set the table class to {}", class.as_str())
            }
            SyncChange::SetEncryptionKey(key) => {
                write!(f, "encrypt with the customer managed key {key}")
            }
            SyncChange::SetMaxThroughput { index, units } => {
                write!(
                f,
                "set the maximum on-demand throughput of {} to {} reads and {} writes per second",
                index.as_deref().map_or("the table".to_owned(), |i| format!("global index {i}")),
                units.read,
                units.write
            )
            }
            SyncChange::SetWarmThroughput { index, units } => write!(
                f,
                "raise the warm throughput of {} to {} reads and {} writes per second",
                index
                    .as_deref()
                    .map_or("the table".to_owned(), |i| format!("global index {i}")),
                units.read,
                units.write
            ),
            SyncChange::SetRecoveryPeriod(days) => {
                write!(f, "turn on point-in-time recovery for {days} days")
            }
            SyncChange::EnableContributorInsights(mode) => {
                write!(f, "turn on Contributor Insights ({})", mode.as_str())
            }
            SyncChange::Tag(tags) => {
                let keys: Vec<&str> = tags.iter().map(|(k, _)| k.as_str()).collect();
                write!(f, "tag the table ({})", keys.join(", "))
            }
            SyncChange::PutResourcePolicy => write!(f, "put the resource-based policy"),
            SyncChange::AddReplica(region) => write!(f, "add a replica in {region}"),
        }
    }
}

impl std::fmt::Display for SyncPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for change in &self.changes {
            writeln!(f, "+ {change}")?;
        }
        for difference in &self.differences {
            writeln!(f, "! {difference} (left as it is)")?;
        }
        Ok(())
    }
}
