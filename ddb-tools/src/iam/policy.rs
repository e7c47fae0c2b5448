//! A generated policy: its IAM document, what it had to leave out, and its
//! size as IAM counts it against its quotas.

use serde_json::Value;

/// A generated policy: the IAM document, and what it had to leave out.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// The policy document (`Version`, `Statement`).
    pub document: Value,
    /// Grants the document could not express, each with why.
    pub left_out: Vec<String>,
}

impl Policy {
    /// The document's size as IAM counts it against its quotas: its
    /// characters, white space between tokens not counted. Check it against
    /// where the policy goes:
    /// [`MANAGED_POLICY_LIMIT`](super::MANAGED_POLICY_LIMIT) for a managed
    /// policy, [`ROLE_INLINE_POLICY_LIMIT`](super::ROLE_INLINE_POLICY_LIMIT)
    /// for a role's inline policies together.
    ///
    /// ```
    /// use ddb_tools::iam::{maintenance_policy, MANAGED_POLICY_LIMIT};
    /// let policy = maintenance_policy(&["arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce"]);
    /// assert!(policy.size() <= MANAGED_POLICY_LIMIT);
    /// ```
    pub fn size(&self) -> usize {
        document_size(&self.document)
    }

    /// One policy of several (each table's, for a service on several
    /// tables): their statements in order, each `Sid` made unique, and
    /// what each left out. Refused when it grants nothing, or when it is
    /// larger than any IAM identity takes
    /// ([`ROLE_INLINE_POLICY_LIMIT`](super::ROLE_INLINE_POLICY_LIMIT)).
    ///
    /// ```
    /// use ddb_tools::iam::{maintenance_policy, Policy};
    /// let orders = maintenance_policy(&["arn:aws:dynamodb:eu-west-1:123456789012:table/Orders"]);
    /// let users = maintenance_policy(&["arn:aws:dynamodb:eu-west-1:123456789012:table/Users"]);
    /// let both = Policy::merged(&[orders, users])?;
    /// let sids: Vec<&str> = both.document["Statement"].as_array().unwrap().iter()
    ///     .map(|s| s["Sid"].as_str().unwrap()).collect();
    /// assert!(sids.iter().enumerate().all(|(i, sid)| !sids[..i].contains(sid)));
    /// # Ok::<(), ddb_tools::iam::PolicyError>(())
    /// ```
    pub fn merged(policies: &[Policy]) -> Result<Policy, super::PolicyError> {
        let mut statements: Vec<Value> = policies
            .iter()
            .flat_map(|p| {
                p.document["Statement"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        if statements.is_empty() {
            return Err(super::PolicyError::NoEntity);
        }
        super::statement::unique_sids(&mut statements);
        let document = serde_json::json!({ "Version": "2012-10-17", "Statement": statements });
        super::check::check_size(document_size(&document))?;
        let left_out = policies.iter().flat_map(|p| p.left_out.clone()).collect();
        Ok(Policy { document, left_out })
    }
}

/// A document's size as IAM counts it: its characters, white space between
/// tokens not counted (its compact JSON has none).
pub(crate) fn document_size(document: &Value) -> usize {
    document.to_string().chars().count()
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string_pretty(&self.document).map_err(|_| std::fmt::Error)?;
        writeln!(f, "{text}")?;
        for note in &self.left_out {
            writeln!(f, "left out: {note}")?;
        }
        Ok(())
    }
}
