//! What one environment decides about a table and the declarations do not:
//! its encryption key, tags, maximum and warm throughput, resource policy,
//! and the Regions it is replicated to.

use crate::error::Error;

/// Read and write units: an on-demand table's maximum request units per
/// second, or its warm throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Units {
    /// Read units per second.
    pub read: i64,
    /// Write units per second.
    pub write: i64,
}

/// The settings of a table that differ between environments (a stage's
/// key, its tags, its limits), given with the declaration to
/// [`create_table_input_with`](crate::schema::create_table_input_with),
/// [`create_table_if_missing_with`](crate::schema::create_table_if_missing_with)
/// and [`sync_table_with`](crate::schema::sync_table_with), and held per
/// table by `ddb_tools::Deployment` for the templates.
///
/// The default asks for nothing: DynamoDB's AWS owned key, no tags, no
/// maximum, no warm throughput, no resource policy.
///
/// ```
/// use ddb_runtime::schema::{TableSettings, Units};
/// let settings = TableSettings::default()
///     .kms_key("alias/orders")
///     .tag("team", "orders")
///     .max_throughput(Units { read: 4000, write: 1000 })
///     .warm_throughput(Units { read: 15000, write: 5000 });
/// assert_eq!(settings.kms_key_id(), Some("alias/orders"));
/// assert!(settings.check().is_ok());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableSettings {
    kms_key: Option<String>,
    tags: Vec<(String, String)>,
    max_throughput: Option<Units>,
    index_max_throughput: Vec<(String, Units)>,
    warm_throughput: Option<Units>,
    index_warm_throughput: Vec<(String, Units)>,
    resource_policy: Option<String>,
    replicas: Vec<String>,
    replica_keys: Vec<(String, String)>,
    witness: Option<String>,
}

/// DynamoDB's limits on tags (TagResource): at most 50 per table, keys of
/// 1 to 128 characters not starting with `aws:`, values of 0 to 256.
const MAX_TAGS: usize = 50;

/// The largest resource-based policy DynamoDB takes, in bytes.
const MAX_POLICY_BYTES: usize = 20 * 1024;

impl TableSettings {
    /// Encrypts the table with the customer managed KMS key `key`: a key
    /// ID, key ARN, alias name (`alias/orders`) or alias ARN
    /// (`SSESpecification` with `SSEType` `KMS`).
    pub fn kms_key(mut self, key: impl Into<String>) -> Self {
        self.kms_key = Some(key.into());
        self
    }

    /// Tags the table with `key` = `value` (a key given twice keeps the
    /// last value).
    pub fn tag(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.tags.retain(|(k, _)| *k != key);
        self.tags.push((key, value.into()));
        self
    }

    /// The most request units per second an on-demand table serves
    /// (`OnDemandThroughput`); more are throttled.
    pub fn max_throughput(mut self, units: Units) -> Self {
        self.max_throughput = Some(units);
        self
    }

    /// The most request units per second the global index `index` serves
    /// on demand.
    pub fn index_max_throughput(mut self, index: impl Into<String>, units: Units) -> Self {
        let index = index.into();
        self.index_max_throughput.retain(|(i, _)| *i != index);
        self.index_max_throughput.push((index, units));
        self
    }

    /// The throughput the table serves at once, without scaling up
    /// (`WarmThroughput`); DynamoDB raises it and never lowers it.
    pub fn warm_throughput(mut self, units: Units) -> Self {
        self.warm_throughput = Some(units);
        self
    }

    /// The warm throughput of the global index `index`.
    pub fn index_warm_throughput(mut self, index: impl Into<String>, units: Units) -> Self {
        let index = index.into();
        self.index_warm_throughput.retain(|(i, _)| *i != index);
        self.index_warm_throughput.push((index, units));
        self
    }

    /// The table's resource-based policy, a JSON policy document
    /// (`ResourcePolicy`).
    pub fn resource_policy(mut self, document: impl Into<String>) -> Self {
        self.resource_policy = Some(document.into());
        self
    }

    /// Replicates the table to `region` (`us-east-2`): another Region
    /// than the one it is created in, which DynamoDB keeps in step as the
    /// table's declared `multi_region_consistency` says.
    ///
    /// ```
    /// use ddb_runtime::schema::TableSettings;
    /// let prod = TableSettings::default()
    ///     .kms_key("arn:aws:kms:us-east-1:111122223333:key/home")
    ///     .replica("us-east-2")
    ///     .replica_kms_key("us-east-2", "arn:aws:kms:us-east-2:111122223333:key/east-2")
    ///     .witness("us-west-2");
    /// assert_eq!(prod.replica_regions(), ["us-east-2"]);
    /// assert!(prod.check().is_ok());
    /// // A replica of a table with a customer managed key needs its own key.
    /// assert!(TableSettings::default().kms_key("k").replica("eu-west-1").check().is_err());
    /// ```
    pub fn replica(mut self, region: impl Into<String>) -> Self {
        let region = region.into();
        if !self.replicas.contains(&region) {
            self.replicas.push(region);
        }
        self
    }

    /// Encrypts the replica in `region` with the customer managed KMS key
    /// `key`, a key of that Region (KMS keys are regional): a table with a
    /// [`kms_key`](Self::kms_key) and replicas gives each replica its own.
    pub fn replica_kms_key(mut self, region: impl Into<String>, key: impl Into<String>) -> Self {
        let region = region.into();
        self.replica_keys.retain(|(r, _)| *r != region);
        self.replica_keys.push((region, key.into()));
        self
    }

    /// The customer managed key of the replica in `region`, if given.
    pub fn replica_kms_key_of(&self, region: &str) -> Option<&str> {
        let found = self.replica_keys.iter().find(|(r, _)| r == region);
        found.map(|(_, key)| key.as_str())
    }

    /// The witness Region of a table with multi-Region strong
    /// consistency and two replicas: it keeps the replicated changes, to
    /// agree on writes, and serves no reads or writes.
    pub fn witness(mut self, region: impl Into<String>) -> Self {
        self.witness = Some(region.into());
        self
    }

    /// The Regions the table is replicated to, in the order given.
    pub fn replica_regions(&self) -> &[String] {
        &self.replicas
    }

    /// The witness Region, if any.
    pub fn witness_region(&self) -> Option<&str> {
        self.witness.as_deref()
    }

    /// The customer managed key, if any.
    pub fn kms_key_id(&self) -> Option<&str> {
        self.kms_key.as_deref()
    }

    /// The tags, in the order given.
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// The table's maximum on-demand throughput, if any.
    pub fn table_max_throughput(&self) -> Option<Units> {
        self.max_throughput
    }

    /// The maximum on-demand throughput of global index `index`, if any.
    pub fn max_throughput_of(&self, index: &str) -> Option<Units> {
        find(&self.index_max_throughput, index)
    }

    /// The table's warm throughput, if any.
    pub fn table_warm_throughput(&self) -> Option<Units> {
        self.warm_throughput
    }

    /// The warm throughput of global index `index`, if any.
    pub fn warm_throughput_of(&self, index: &str) -> Option<Units> {
        find(&self.index_warm_throughput, index)
    }

    /// The resource-based policy, if any.
    pub fn resource_policy_document(&self) -> Option<&str> {
        self.resource_policy.as_deref()
    }

    /// The indexes given a maximum or a warm throughput.
    pub(crate) fn named_indexes(&self) -> impl Iterator<Item = &str> {
        let max = self.index_max_throughput.iter();
        let warm = self.index_warm_throughput.iter();
        max.chain(warm).map(|(index, _)| index.as_str())
    }

    /// Whether DynamoDB would take these settings: tags within its limits,
    /// units positive, a policy that is a JSON object within 20 KB, a key
    /// that is not empty. An error names the setting, never a tag's value.
    ///
    /// ```
    /// use ddb_runtime::schema::TableSettings;
    /// assert!(TableSettings::default().tag("aws:owner", "me").check().is_err());
    /// assert!(TableSettings::default().resource_policy("not json").check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        if self.kms_key.as_deref() == Some("") {
            return Err(invalid("the KMS key is empty".to_owned()));
        }
        if self.tags.len() > MAX_TAGS {
            return Err(invalid(format!(
                "{} tags: DynamoDB allows {MAX_TAGS} per table",
                self.tags.len()
            )));
        }
        for (key, value) in &self.tags {
            let length = key.chars().count();
            if !(1..=128).contains(&length) || key.starts_with("aws:") {
                return Err(invalid(format!(
                    "tag key `{key}`: a tag key is 1 to 128 characters and does not start with `aws:`"
                )));
            }
            if value.chars().count() > 256 {
                return Err(invalid(format!(
                    "the value of tag `{key}` is longer than 256 characters"
                )));
            }
        }
        let units = self
            .max_throughput
            .iter()
            .chain(self.warm_throughput.iter());
        let indexes = self
            .index_max_throughput
            .iter()
            .chain(&self.index_warm_throughput);
        if units
            .chain(indexes.map(|(_, units)| units))
            .any(|u| u.read < 1 || u.write < 1)
        {
            return Err(invalid(
                "a maximum or warm throughput has units below 1".to_owned(),
            ));
        }
        let regions = self.replicas.iter().chain(&self.witness);
        if let Some(bad) = regions.clone().find(|r| !is_region_name(r)) {
            return Err(invalid(format!(
                "`{bad}` is not a Region name (such as `eu-west-1`)"
            )));
        }
        if self.kms_key.is_some() {
            if let Some(bare) = self
                .replicas
                .iter()
                .find(|r| self.replica_kms_key_of(r).is_none())
            {
                return Err(invalid(format!(
                    "the replica in {bare} has no KMS key: a key belongs to one Region, so give each replica its own (replica_kms_key)"
                )));
            }
        }
        if let Some((region, _)) = self
            .replica_keys
            .iter()
            .find(|(r, _)| !self.replicas.contains(r))
        {
            return Err(invalid(format!(
                "a KMS key is given for {region}, which is not a replica"
            )));
        }
        if let Some(witness) = &self.witness {
            if self.replicas.contains(witness) {
                return Err(invalid(format!(
                    "`{witness}` is both a replica and the witness: a witness is a Region of its own"
                )));
            }
        }
        if let Some(policy) = &self.resource_policy {
            if policy.len() > MAX_POLICY_BYTES {
                return Err(invalid(format!(
                    "the resource policy is {} bytes: DynamoDB takes 20 KB at most",
                    policy.len()
                )));
            }
            match serde_json::from_str::<serde_json::Value>(policy) {
                Ok(serde_json::Value::Object(_)) => {}
                _ => {
                    return Err(invalid(
                        "the resource policy is not a JSON policy document (an object)".to_owned(),
                    ))
                }
            }
        }
        Ok(())
    }
}

fn find(listed: &[(String, Units)], index: &str) -> Option<Units> {
    listed.iter().find(|(i, _)| i == index).map(|(_, u)| *u)
}

/// A setting DynamoDB would refuse, as a typed error naming the setting.
pub(super) fn invalid(reason: String) -> Error {
    Error::InvalidRequest {
        entity: "",
        reason: format!("table settings: {reason}"),
    }
}

/// Whether `name` reads as a Region name: lowercase words joined by
/// hyphens, ending in a number (`eu-west-1`, `us-gov-west-1`).
fn is_region_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('-').collect();
    let Some((number, words)) = parts.split_last() else {
        return false;
    };
    words.len() >= 2
        && words
            .iter()
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::is_region_name;

    #[test]
    fn region_names_are_words_and_a_number() {
        for good in ["eu-west-1", "us-gov-west-1", "ap-northeast-3"] {
            assert!(is_region_name(good), "{good}");
        }
        for bad in [
            "",
            "eu",
            "eu-west",
            "EU-WEST-1",
            "eu--1",
            "eu-west-x",
            "west-1",
        ] {
            assert!(!is_region_name(bad), "{bad}");
        }
    }
}
