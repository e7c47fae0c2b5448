//! Why DynamoDB throttled a request: the `ThrottlingReasons` its throttling
//! errors carry, typed.

use super::Error;

/// One reason DynamoDB gave for throttling a request, and the table or
/// index it throttled. DynamoDB writes a reason as
/// `<Table|Index><Read|Write><limit>`: `TableWriteKeyRangeThroughputExceeded`
/// is a hot partition of the table taking writes.
///
/// ```
/// use ddb_runtime::{Throttle, ThrottleLimit, ThrottledResource};
/// let throttle = Throttle::parse(
///     "IndexReadKeyRangeThroughputExceeded",
///     "arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce/index/GSI2",
/// );
/// assert_eq!(throttle.resource_type, Some(ThrottledResource::Index));
/// assert_eq!(throttle.limit, ThrottleLimit::KeyRangeThroughputExceeded);
/// assert!(!throttle.write);
/// assert_eq!(throttle.table(), Some("Ecommerce"));
/// assert_eq!(throttle.index(), Some("GSI2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Throttle {
    /// The reason as DynamoDB sent it.
    pub reason: String,
    /// The ARN of the table or index throttled.
    pub resource: String,
    /// Whether a table or an index was throttled (`None`: a reason of
    /// another form).
    pub resource_type: Option<ThrottledResource>,
    /// Whether writes (rather than reads) were throttled.
    pub write: bool,
    /// Which limit was met.
    pub limit: ThrottleLimit,
}

/// What DynamoDB throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThrottledResource {
    /// The table.
    Table,
    /// A global secondary index.
    Index,
}

/// Which limit a throttled request met.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThrottleLimit {
    /// The provisioned capacity of a provisioned table or index.
    ProvisionedThroughputExceeded,
    /// The per-table account quota of an on-demand table or index.
    AccountLimitExceeded,
    /// One partition's throughput: a hot partition key (write sharding,
    /// `shards = N`, spreads a hot key's writes over several partitions).
    KeyRangeThroughputExceeded,
    /// The maximum throughput configured for an on-demand table or index.
    MaxOnDemandThroughputExceeded,
    /// A limit this version of ddb does not know, as DynamoDB named it.
    Other(String),
}

impl Throttle {
    /// Reads `reason` (`TableWriteKeyRangeThroughputExceeded`) for
    /// `resource` (an ARN).
    pub fn parse(reason: &str, resource: &str) -> Self {
        let (resource_type, rest) =
            match (reason.strip_prefix("Table"), reason.strip_prefix("Index")) {
                (Some(rest), _) => (Some(ThrottledResource::Table), rest),
                (_, Some(rest)) => (Some(ThrottledResource::Index), rest),
                _ => (None, reason),
            };
        let (write, limit) = match (rest.strip_prefix("Read"), rest.strip_prefix("Write")) {
            (Some(limit), _) => (false, limit),
            (_, Some(limit)) => (true, limit),
            _ => (false, rest),
        };
        let limit = match limit {
            "ProvisionedThroughputExceeded" => ThrottleLimit::ProvisionedThroughputExceeded,
            "AccountLimitExceeded" => ThrottleLimit::AccountLimitExceeded,
            "KeyRangeThroughputExceeded" => ThrottleLimit::KeyRangeThroughputExceeded,
            "MaxOnDemandThroughputExceeded" => ThrottleLimit::MaxOnDemandThroughputExceeded,
            other => ThrottleLimit::Other(other.to_owned()),
        };
        Throttle {
            reason: reason.to_owned(),
            resource: resource.to_owned(),
            resource_type,
            write,
            limit,
        }
    }

    /// The table's name, from the resource's ARN.
    pub fn table(&self) -> Option<&str> {
        let after = self.resource.split_once(":table/")?.1;
        Some(after.split('/').next().unwrap_or(after))
    }

    /// The index's name, when an index was throttled.
    pub fn index(&self) -> Option<&str> {
        self.resource.split_once("/index/").map(|(_, index)| index)
    }

    /// A hot partition: one key's traffic met its partition's limit.
    pub fn is_hot_partition(&self) -> bool {
        self.limit == ThrottleLimit::KeyRangeThroughputExceeded
    }
}

impl Error {
    /// Why DynamoDB throttled the request, when it did and said why
    /// (`ProvisionedThroughputExceededException`, `ThrottlingException` and
    /// `RequestLimitExceeded` carry `ThrottlingReasons`), also beneath an
    /// unknown outcome or unprocessed batch items. The SDK retries every
    /// throttle (three attempts in all by default): these are the ones its
    /// retries did not absorb.
    ///
    /// ```
    /// let error = ddb_runtime::Error::NotFound { entity: "Order", key: "ORDER#A1".into() };
    /// assert!(error.throttling_reasons().is_empty());
    /// ```
    pub fn throttling_reasons(&self) -> Vec<Throttle> {
        use aws_sdk_dynamodb::Error as E;
        let reasons = match self {
            Error::Sdk { source, .. } => match &**source {
                E::ProvisionedThroughputExceededException(e) => e.throttling_reasons(),
                E::ThrottlingException(e) => e.throttling_reasons(),
                E::RequestLimitExceeded(e) => e.throttling_reasons(),
                _ => &[],
            },
            Error::WriteOutcomeUnknown { failure, .. } => return failure.throttling_reasons(),
            Error::Unprocessed { outcome, .. } => {
                return outcome
                    .cause
                    .as_ref()
                    .map(|c| c.throttling_reasons())
                    .unwrap_or_default()
            }
            _ => &[],
        };
        reasons
            .iter()
            .map(|r| {
                Throttle::parse(
                    r.reason().unwrap_or_default(),
                    r.resource().unwrap_or_default(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_of_the_sixteen_reasons_reads_as_its_parts() {
        let arn = "arn:aws:dynamodb:us-east-1:1:table/T";
        for (resource, resource_type) in [
            ("Table", ThrottledResource::Table),
            ("Index", ThrottledResource::Index),
        ] {
            for (operation, write) in [("Read", false), ("Write", true)] {
                for (limit, expected) in [
                    (
                        "ProvisionedThroughputExceeded",
                        ThrottleLimit::ProvisionedThroughputExceeded,
                    ),
                    ("AccountLimitExceeded", ThrottleLimit::AccountLimitExceeded),
                    (
                        "KeyRangeThroughputExceeded",
                        ThrottleLimit::KeyRangeThroughputExceeded,
                    ),
                    (
                        "MaxOnDemandThroughputExceeded",
                        ThrottleLimit::MaxOnDemandThroughputExceeded,
                    ),
                ] {
                    let throttle = Throttle::parse(&format!("{resource}{operation}{limit}"), arn);
                    assert_eq!(throttle.resource_type, Some(resource_type));
                    assert_eq!(throttle.write, write);
                    assert_eq!(throttle.limit, expected);
                }
            }
        }
        let unknown = Throttle::parse("TableReadSomethingNew", arn);
        assert_eq!(unknown.limit, ThrottleLimit::Other("SomethingNew".into()));
        assert_eq!(Throttle::parse("Odd", arn).resource_type, None);
        assert_eq!(Throttle::parse("Odd", arn).table(), Some("T"));
        assert_eq!(Throttle::parse("Odd", arn).index(), None);
    }
}
