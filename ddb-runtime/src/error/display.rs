//! The pieces of the errors' messages: a transaction's failing actions, a
//! decoded item's key, and an SDK error as the service reported it.

use super::ActionFailure;

pub(super) fn describe_reasons(reasons: &[ActionFailure]) -> String {
    let failed: Vec<String> = reasons
        .iter()
        .filter(|r| r.code != "None")
        .map(|r| format!("action {} ({} {}): {}", r.index, r.entity, r.key, r.code))
        .collect();
    if failed.is_empty() {
        "no reason given".into()
    } else {
        failed.join("; ")
    }
}

pub(super) fn key_suffix(key: &Option<String>) -> String {
    key.as_ref().map(|k| format!(" at {k}")).unwrap_or_default()
}

/// An SDK error as the service reported it: its error code and message
/// (`ValidationException: The table does not have the specified index:
/// GSI3`), or the SDK's own text for a failure without one (a timeout, a
/// request that could not be sent).
pub(super) struct ServiceText<'a>(pub(super) &'a aws_sdk_dynamodb::Error);

impl std::fmt::Display for ServiceText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
        match (self.0.code(), self.0.message()) {
            (Some(code), Some(message)) => write!(f, "{code}: {message}"),
            (Some(code), None) => f.write_str(code),
            _ => write!(f, "{}", self.0),
        }
    }
}
