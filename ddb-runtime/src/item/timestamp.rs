//! Field types the library writes itself: `#[ddb(created_at)]`,
//! `#[ddb(updated_at)]` and `#[ddb(ttl)]`.

use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;

/// The entity's `#[ddb(ttl)]` attribute, if it has one.
pub(crate) fn ttl_attribute(
    schema: &crate::declaration::model::EntitySchema,
) -> Option<&'static str> {
    schema
        .fields
        .iter()
        .find(|f| f.role.ttl)
        .map(|f| f.attribute)
}

/// The current time in epoch seconds.
pub(crate) fn now_epoch_seconds() -> i64 {
    epoch_seconds(SystemTime::now())
}

/// Whether a stored item's time to live has passed.
pub(crate) fn expired(
    schema: &crate::declaration::model::EntitySchema,
    item: &crate::item::Item,
) -> bool {
    expired_at(schema, item, now_epoch_seconds())
}

/// Whether a stored item's time to live had passed at `now` (epoch seconds).
pub(crate) fn expired_at(
    schema: &crate::declaration::model::EntitySchema,
    item: &crate::item::Item,
    now: i64,
) -> bool {
    time_to_live(schema, item).is_some_and(|at| passed(at, now))
}

/// A stored item's time to live (epoch seconds), when it has one.
pub(crate) fn time_to_live(
    schema: &crate::declaration::model::EntitySchema,
    item: &crate::item::Item,
) -> Option<f64> {
    item.get(ttl_attribute(schema)?)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse::<f64>().ok())
}

/// Whether a time to live of `at` had passed at `now` (epoch seconds).
pub(crate) fn passed(at: f64, now: i64) -> bool {
    let now = now as f64;
    at <= now && at >= now - TTL_HORIZON_SECONDS as f64
}

/// DynamoDB does not delete items whose time to live is more than five
/// years in the past (a `0` meant as "never", for instance); ddb does not
/// treat them as expired either.
pub(crate) const TTL_HORIZON_SECONDS: i64 = 5 * 365 * 24 * 3600;

fn epoch_seconds(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    }
}

/// A type ddb can write the current time into, for `#[ddb(created_at)]` and
/// `#[ddb(updated_at)]`: epoch seconds (`u64`, `i64`), `Timestamp`
/// (feature `time`), `chrono::DateTime<Utc>` (feature `chrono`), or an
/// `Option` of one.
///
/// ```
/// use ddb_runtime::TimestampField;
/// let value = <u64 as TimestampField>::attribute_value(std::time::UNIX_EPOCH);
/// assert_eq!(value.as_n().unwrap(), "0");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a time ddb writes",
    label = "#[ddb(created_at)] and #[ddb(updated_at)] need epoch seconds or a timestamp type",
    note = "use u64 or i64 (epoch seconds), ddb_runtime::Timestamp (feature `time`), chrono::DateTime<Utc> (feature `chrono`), or an Option of one"
)]
pub trait TimestampField {
    /// The attribute value of `now`, as the field's serde form writes it.
    fn attribute_value(now: SystemTime) -> AttributeValue;
}

impl TimestampField for u64 {
    fn attribute_value(now: SystemTime) -> AttributeValue {
        AttributeValue::N(epoch_seconds(now).max(0).to_string())
    }
}

impl TimestampField for i64 {
    fn attribute_value(now: SystemTime) -> AttributeValue {
        AttributeValue::N(epoch_seconds(now).to_string())
    }
}

impl<T: TimestampField> TimestampField for Option<T> {
    fn attribute_value(now: SystemTime) -> AttributeValue {
        T::attribute_value(now)
    }
}

/// Stamped in whole seconds, as chrono's serde writes the instant
/// (`2026-09-10T08:12:44Z`): a stamp can then be a key segment.
#[cfg(feature = "chrono")]
impl TimestampField for chrono::DateTime<chrono::Utc> {
    fn attribute_value(now: SystemTime) -> AttributeValue {
        let at = chrono::DateTime::<chrono::Utc>::from(now);
        let whole = chrono::Timelike::with_nanosecond(&at, 0).unwrap_or(at);
        AttributeValue::S(whole.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
    }
}

/// `(&&Stamp::<T>::NEW).stamp(now)` is `T`'s attribute value of `now` when `T`
/// is a [`TimestampField`]; otherwise the derive's check at the field reports
/// it once, and this fallback is never run.
#[doc(hidden)]
pub struct Stamp<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Stamp<T> {
    pub const NEW: Self = Stamp(std::marker::PhantomData);
}

#[doc(hidden)]
pub trait IsStamp {
    fn stamp(&self, now: SystemTime) -> AttributeValue;
}

impl<T: TimestampField> IsStamp for &Stamp<T> {
    fn stamp(&self, now: SystemTime) -> AttributeValue {
        T::attribute_value(now)
    }
}

#[doc(hidden)]
pub trait NotStamp {
    fn stamp(&self, now: SystemTime) -> AttributeValue;
}

impl<T> NotStamp for Stamp<T> {
    fn stamp(&self, _: SystemTime) -> AttributeValue {
        AttributeValue::Null(true)
    }
}

/// A type that can be a `#[ddb(ttl)]` field: epoch **seconds** as a Number,
/// which is what DynamoDB's time to live reads (milliseconds would never
/// expire, a String is ignored).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a time-to-live attribute",
    label = "#[ddb(ttl)] needs epoch seconds stored as a Number",
    note = "use u64 or i64 epoch seconds, or an Option of one"
)]
pub trait TtlField {}
impl TtlField for u64 {}
impl TtlField for i64 {}
impl<T: TtlField> TtlField for Option<T> {}

/// A UTC instant stored as an RFC 3339 string (`2026-09-10T08:12:44.5Z`), and
/// keyed at second precision like `time::OffsetDateTime`.
///
/// ```
/// let at = ddb_runtime::Timestamp::from(time::macros::datetime!(2026-09-10 08:12:44 UTC));
/// let value = serde_dynamo::to_attribute_value::<_, aws_sdk_dynamodb::types::AttributeValue>(&at).unwrap();
/// assert_eq!(value.as_s().unwrap(), "2026-09-10T08:12:44Z");
/// ```
#[cfg(feature = "time")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub time::OffsetDateTime);

#[cfg(feature = "time")]
mod timestamp_impl {
    use super::*;
    use time::format_description::well_known::Rfc3339;
    use time::OffsetDateTime;

    impl Timestamp {
        /// The current time, to the nanosecond. As a key segment it is
        /// refused (a key has second precision and never truncates); use
        /// [`Timestamp::now_in_seconds`] for an instant that goes in a key.
        pub fn now() -> Self {
            Timestamp(OffsetDateTime::now_utc())
        }

        /// The current time in whole seconds: ready to be a key segment.
        ///
        /// ```
        /// use ddb_runtime::KeySegment;
        /// let mut key = String::new();
        /// ddb_runtime::Timestamp::now_in_seconds().write_segment(&mut key).unwrap();
        /// assert_eq!(key.len(), "2026-09-10T08:12:44Z".len());
        /// ```
        pub fn now_in_seconds() -> Self {
            Self::now().to_seconds()
        }

        /// The same instant without its fraction of a second.
        ///
        /// ```
        /// let at = ddb_runtime::Timestamp::from(time::macros::datetime!(2026-09-10 08:12:44.75 UTC));
        /// assert_eq!(at.to_seconds(), time::macros::datetime!(2026-09-10 08:12:44 UTC).into());
        /// ```
        pub fn to_seconds(self) -> Self {
            Timestamp(self.0.replace_nanosecond(0).unwrap_or(self.0))
        }
    }

    impl From<OffsetDateTime> for Timestamp {
        fn from(value: OffsetDateTime) -> Self {
            Timestamp(value)
        }
    }

    impl serde::Serialize for Timestamp {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let text = self
                .0
                .to_offset(time::UtcOffset::UTC)
                .format(&Rfc3339)
                .map_err(serde::ser::Error::custom)?;
            serializer.serialize_str(&text)
        }
    }

    impl<'de> serde::Deserialize<'de> for Timestamp {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = <String as serde::Deserialize>::deserialize(deserializer)?;
            OffsetDateTime::parse(&text, &Rfc3339)
                .map(Timestamp)
                .map_err(serde::de::Error::custom)
        }
    }

    /// Stamped in whole seconds, as epoch-second stamps are: a stamp can then
    /// be a key segment (a key refuses fractions of a second).
    impl TimestampField for Timestamp {
        fn attribute_value(now: SystemTime) -> AttributeValue {
            let at = OffsetDateTime::from(now);
            let text = at
                .replace_nanosecond(0)
                .unwrap_or(at)
                .format(&Rfc3339)
                .unwrap_or_default();
            AttributeValue::S(text)
        }
    }
}

/// Spanned at a `#[ddb(created_at)]` or `#[ddb(updated_at)]` field's type.
pub const fn assert_timestamp_field<T: TimestampField>() {}

/// Spanned at a `#[ddb(ttl)]` field's type.
pub const fn assert_ttl_field<T: TtlField>() {}
