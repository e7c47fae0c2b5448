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

/// The throttles of one DynamoDB answer (an HTTP 400 with this JSON
/// `body`, its error type in the body's `__type` or in `header_type`, the
/// `x-amzn-ErrorType` header): its `ThrottlingReasons` when it is one of
/// the three throttling errors, read under the name each error carries
/// them (`throttlingReasons` for `ThrottlingException`), as the SDK reads
/// them. Empty for any other answer.
pub(crate) fn answered_throttles(body: &[u8], header_type: Option<&str>) -> Vec<Throttle> {
    /// What ddb reads of an error answer; the rest (the item a failed
    /// condition returns) is skipped unread.
    #[derive(serde::Deserialize)]
    struct Answer {
        #[serde(rename = "__type", default)]
        error_type: Option<String>,
        #[serde(rename = "ThrottlingReasons", default)]
        reasons: Vec<Reason>,
        #[serde(rename = "throttlingReasons", default)]
        camel_reasons: Vec<Reason>,
    }
    #[derive(serde::Deserialize)]
    struct Reason {
        #[serde(default)]
        reason: String,
        #[serde(default)]
        resource: String,
    }
    let Ok(answer) = serde_json::from_slice::<Answer>(body) else {
        return Vec::new();
    };
    let error_type = header_type
        .or(answer.error_type.as_deref())
        .unwrap_or_default();
    // As the SDK reads it: `<type>:<more>` from a header, then the name
    // after the namespace (`com.amazonaws.dynamodb.v20120810#`).
    let name = error_type.split(':').next().unwrap_or_default();
    let name = name.rsplit('#').next().unwrap_or_default();
    let reasons = match name {
        "ThrottlingException" => answer.camel_reasons,
        "ProvisionedThroughputExceededException" | "RequestLimitExceeded" => answer.reasons,
        _ => return Vec::new(),
    };
    reasons
        .iter()
        .map(|r| Throttle::parse(&r.reason, &r.resource))
        .collect()
}

impl Error {
    /// Why DynamoDB throttled the request, when it did and said why
    /// (`ProvisionedThroughputExceededException`, `ThrottlingException` and
    /// `RequestLimitExceeded` carry `ThrottlingReasons`), also beneath an
    /// unknown outcome, or beneath unprocessed batch items: each batch
    /// request that failed outright, in chunk order. The SDK retries every
    /// throttle (three attempts in all by default): these are the ones its
    /// retries did not absorb (the request's span counts them all).
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
                let causes = outcome.causes.iter();
                return causes.flat_map(Error::throttling_reasons).collect();
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
    fn an_answer_s_reasons_are_read_under_the_name_its_error_carries_them() {
        let arn = "arn:aws:dynamodb:us-east-1:1:table/T/index/I";
        let answer = |error: &str, member: &str| {
            serde_json::json!({
                "__type": format!("com.amazonaws.dynamodb.v20120810#{error}"),
                member: [{ "reason": "IndexWriteKeyRangeThroughputExceeded", "resource": arn }],
            })
            .to_string()
        };
        for (error, member) in [
            ("ThrottlingException", "throttlingReasons"),
            (
                "ProvisionedThroughputExceededException",
                "ThrottlingReasons",
            ),
            ("RequestLimitExceeded", "ThrottlingReasons"),
        ] {
            let throttles = answered_throttles(answer(error, member).as_bytes(), None);
            assert_eq!(throttles.len(), 1, "{error}");
            assert_eq!(throttles[0].index(), Some("I"));
            // Under the other error's name, as the SDK reads it: none.
            let other = if member == "ThrottlingReasons" {
                "throttlingReasons"
            } else {
                "ThrottlingReasons"
            };
            assert!(answered_throttles(answer(error, other).as_bytes(), None).is_empty());
        }
        let failed = answer("ConditionalCheckFailedException", "ThrottlingReasons");
        assert!(answered_throttles(failed.as_bytes(), None).is_empty());
        let typed_by_header = r#"{"ThrottlingReasons":[{"reason":"TableReadAccountLimitExceeded","resource":"arn:aws:dynamodb:us-east-1:1:table/T"}]}"#;
        let header = Some("ProvisionedThroughputExceededException:http://internal.amazon.com/");
        assert_eq!(
            answered_throttles(typed_by_header.as_bytes(), header).len(),
            1
        );
        assert!(answered_throttles(b"not json", header).is_empty());
    }

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
