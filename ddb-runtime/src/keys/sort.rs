//! Sort-key conditions on the leading fields of a sort-key template.
//!
//! A condition is given on a prefix of the template's fields, as a reference
//! or a tuple of references (`&placed_at`, `(&placed_at, &order_id)`), and is
//! turned into a key condition that stays inside the entity:
//!
//! | condition | key condition |
//! |---|---|
//! | none | `begins_with(SK, "ORDER#")` |
//! | `eq(p)`, all fields | `SK = "ORDER#<p>"` |
//! | `eq(p)`, leading fields | `begins_with(SK, "ORDER#<p>#")` (never `ORDER#12` for `ORDER#123`) |
//! | `begins_with(p)` | `begins_with(SK, "ORDER#<p>")`: the last value is a text prefix |
//! | `lt`, `le`, `gt`, `ge`, `between` | `SK BETWEEN lo AND hi`, bounded by the entity's prefix |
//!
//! The bounds rely on the segment encoding: the delimiter `#` sorts below
//! every byte of a segment, and `$` is the byte after it.

use crate::item::number::compare_numbers;

use crate::declaration::model::{Part, ScalarType, Template};
use crate::error::Error;
use crate::keys::key::KeyValue;
use crate::keys::segment::{KeySegment, SegmentCodec};

/// DynamoDB's sort key limit, which bounds every sort key value.
const SORT_KEY_BYTES: usize = crate::keys::key::SORT_KEY_LIMIT;

/// Writes a prefix of a sort-key template's fields, or of the attributes of
/// a multi-attribute sort key.
pub struct SortWriter<'t> {
    template: &'t Template,
    raw: Option<ScalarType>,
    part: usize,
    text: String,
    fields: usize,
    /// A multi-attribute sort key: each field is its own attribute, written
    /// as its own value.
    attributes: Option<&'t [(&'static str, ScalarType)]>,
    values: Vec<KeyValue>,
    error: Option<Error>,
    entity: &'static str,
}

/// The template of a multi-attribute sort key, which has none.
const NO_TEMPLATE: Template = Template {
    source: "",
    parts: &[],
};

impl<'t> SortWriter<'t> {
    fn new(entity: &'static str, template: &'t Template, ty: ScalarType) -> Self {
        Self {
            template,
            raw: template.is_single_field().then_some(ty),
            part: 0,
            text: String::new(),
            fields: 0,
            attributes: None,
            values: Vec::new(),
            error: None,
            entity,
        }
    }

    fn for_attributes(entity: &'static str, attributes: &'t [(&'static str, ScalarType)]) -> Self {
        Self {
            attributes: Some(attributes),
            ..Self::new(entity, &NO_TEMPLATE, ScalarType::S)
        }
    }

    /// A multi-attribute key's next value, as its attribute stores it.
    fn attribute<T: KeySegment>(&mut self, value: &T, attributes: &[(&'static str, ScalarType)]) {
        let Some(&(field, ty)) = attributes.get(self.values.len()) else {
            self.error = Some(self.invalid("more values than the sort key has attributes".into()));
            return;
        };
        let codec = SegmentCodec::<T>::of();
        let key = "sort key condition";
        match crate::keys::key::raw_key(self.entity, key, field, value, codec, ty, SORT_KEY_BYTES) {
            Ok(value) => self.values.push(value),
            Err(error) => self.error = Some(error),
        }
    }

    /// Writes the next field (and the literal text before it).
    pub fn field<T: KeySegment>(&mut self, value: &T) {
        if self.error.is_some() {
            return;
        }
        if let Some(attributes) = self.attributes {
            return self.attribute(value, attributes);
        }
        let codec = SegmentCodec::<T>::of();
        while let Some(Part::Literal(text)) = self.template.parts.get(self.part) {
            self.text.push_str(text);
            self.part += 1;
        }
        let Some(Part::Field(name)) = self.template.parts.get(self.part) else {
            self.error =
                Some(self.invalid("more values than the sort key template has fields".into()));
            return;
        };
        let written = match self.raw {
            Some(ScalarType::N) => (codec.to_number)(value)
                .map(|n| self.text.push_str(&n))
                .ok_or_else(|| {
                    crate::keys::segment::SegmentError::new("this type cannot be a Number")
                }),
            Some(ScalarType::S) => (codec.write)(value, &mut self.text),
            None => codec.write_escaped(value, &mut self.text),
        };
        if let Err(source) = written {
            self.error = Some(Error::InvalidKeySegment {
                entity: self.entity,
                key: "sort key condition",
                field: name,
                source,
            });
        }
        self.part += 1;
        self.fields += 1;
    }

    fn invalid(&self, reason: String) -> Error {
        Error::InvalidSortCondition {
            entity: self.entity,
            reason,
        }
    }

    /// The literal right after the written fields, if any.
    fn next_literal(&self) -> Option<&'static str> {
        match self.template.parts.get(self.part) {
            Some(Part::Literal(text)) => Some(text),
            _ => None,
        }
    }

    fn complete(&self) -> bool {
        !self.template.parts[self.part..]
            .iter()
            .any(|p| matches!(p, Part::Field(_)))
    }
}

/// A prefix of the sort-key fields `S` (a tuple of the field types): `&A`,
/// `(&A,)`, `(&A, &B)`, ...
pub trait SortPrefix<S> {
    /// Writes the values, in template order.
    fn write(&self, writer: &mut SortWriter<'_>);
}

macro_rules! sort_prefixes {
    // One impl per (full tuple, prefix length).
    ($($full:ident),+ ; $($given:ident),+) => {
        impl<$($full: KeySegment),+> SortPrefix<($($full,)+)> for ($(&$given,)+) {
            #[allow(non_snake_case)]
            fn write(&self, writer: &mut SortWriter<'_>) {
                let ($($given,)+) = self;
                $(writer.field(*$given);)+
            }
        }
    };
}

sort_prefixes!(A; A);
sort_prefixes!(A, B; A);
sort_prefixes!(A, B; A, B);
sort_prefixes!(A, B, C; A);
sort_prefixes!(A, B, C; A, B);
sort_prefixes!(A, B, C; A, B, C);
sort_prefixes!(A, B, C, D; A);
sort_prefixes!(A, B, C, D; A, B);
sort_prefixes!(A, B, C, D; A, B, C);
sort_prefixes!(A, B, C, D; A, B, C, D);

macro_rules! single_prefix {
    ($($full:ident),+) => {
        impl<A: KeySegment, $($full),*> SortPrefix<(A, $($full,)*)> for &A {
            fn write(&self, writer: &mut SortWriter<'_>) {
                writer.field(*self);
            }
        }
    };
}

impl<A: KeySegment> SortPrefix<(A,)> for &A {
    fn write(&self, writer: &mut SortWriter<'_>) {
        writer.field(*self);
    }
}
single_prefix!(B);
single_prefix!(B, C);
single_prefix!(B, C, D);

/// A sort-key condition, resolved to DynamoDB terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SortRange {
    /// No condition on the sort key.
    All,
    /// `SK = v`
    Eq(KeyValue),
    /// `begins_with(SK, v)`
    BeginsWith(String),
    /// `SK <op> v`
    Compare(&'static str, KeyValue),
    /// `SK BETWEEN lo AND hi`
    Between(KeyValue, KeyValue),
    /// Nothing can match: no request is needed.
    Empty,
}

impl SortRange {
    /// A stable text of the condition, for cursor fingerprints.
    pub(crate) fn describe(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        match self {
            SortRange::All => out.write_str("all"),
            SortRange::Eq(v) => write!(out, "eq {v:?}"),
            SortRange::BeginsWith(v) => write!(out, "begins {v:?}"),
            SortRange::Compare(op, v) => write!(out, "{op} {v:?}"),
            SortRange::Between(lo, hi) => write!(out, "between {lo:?} {hi:?}"),
            SortRange::Empty => out.write_str("empty"),
        }
    }
}

/// The operators a typed sort condition can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOp {
    Eq,
    BeginsWith,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The greatest valid sort key that starts with `prefix`: `prefix` filled up
/// to 1024 bytes with the largest characters of each width.
pub(crate) fn max_with_prefix(prefix: &str) -> String {
    let mut out = String::with_capacity(SORT_KEY_BYTES);
    out.push_str(prefix);
    while out.len() + 4 <= SORT_KEY_BYTES {
        out.push(char::MAX);
    }
    match SORT_KEY_BYTES.saturating_sub(out.len()) {
        3 => out.push('\u{FFFF}'),
        2 => out.push('\u{7FF}'),
        1 => out.push('\u{7F}'),
        _ => {}
    }
    out
}

/// The smallest sort key above `text` no longer than `text`: its last
/// character raised by one (a character at the top is dropped and the one
/// before it raised); `None` when there is none.
pub(crate) fn just_above(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let last = chars.next_back()?;
    let stem = chars.as_str();
    let mut code = last as u32 + 1;
    if (0xD800..=0xDFFF).contains(&code) {
        code = 0xE000;
    }
    match char::from_u32(code) {
        Some(next) if stem.len() + next.len_utf8() <= SORT_KEY_BYTES => {
            Some(format!("{stem}{next}"))
        }
        _ => just_above(stem),
    }
}

/// The greatest valid sort key below `text`, or `None` when there is none.
pub(crate) fn just_below(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let last = chars.next_back()?;
    let stem = chars.as_str();
    if last == '\0' {
        return Some(stem.to_owned());
    }
    let mut code = last as u32 - 1;
    if (0xD800..=0xDFFF).contains(&code) {
        code = 0xD7FF;
    }
    let previous = char::from_u32(code)?;
    Some(max_with_prefix(&format!("{stem}{previous}")))
}

/// Resolves a typed condition on `template` (of type `ty`) into a range.
/// A condition on a multi-attribute sort key: equality on the leading
/// attributes, then `range` on the next one. A template key has no leading
/// equalities.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SortCondition {
    pub equal: Vec<KeyValue>,
    pub range: SortRange,
}

impl From<SortRange> for SortCondition {
    fn from(range: SortRange) -> Self {
        Self {
            equal: Vec::new(),
            range,
        }
    }
}

impl SortCondition {
    /// A stable text of the condition, for cursor fingerprints.
    pub(crate) fn describe(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        for value in &self.equal {
            write!(out, "eq {value:?}; ")?;
        }
        self.range.describe(out)
    }
}

/// Resolves a condition on the leading attributes of a multi-attribute sort
/// key. DynamoDB takes equality on leading attributes and one comparison on
/// the last one given, so `eq` takes any prefix, `begins_with` a prefix whose
/// last attribute is a String, and a comparison one value (the first
/// attribute): `(a, b) > (x, y)` has no key condition.
pub(crate) fn resolve_attributes<S>(
    entity: &'static str,
    attributes: &[(&'static str, ScalarType)],
    op: SortOp,
    value: &dyn SortPrefix<S>,
) -> Result<SortCondition, Error> {
    let mut writer = SortWriter::for_attributes(entity, attributes);
    value.write(&mut writer);
    if let Some(error) = writer.error.take() {
        return Err(error);
    }
    let mut equal = writer.values;
    let invalid = |reason: &str| Error::InvalidSortCondition {
        entity,
        reason: reason.to_owned(),
    };
    if op == SortOp::Eq {
        return Ok(SortCondition {
            equal,
            range: SortRange::All,
        });
    }
    let last = equal
        .pop()
        .ok_or_else(|| invalid("a sort condition needs a value"))?;
    if op != SortOp::BeginsWith && !equal.is_empty() {
        return Err(invalid(
            "a comparison on a multi-attribute sort key takes one value, for its first attribute: \
             DynamoDB compares one attribute after equal leading ones, and (a, b) > (x, y) has no key condition",
        ));
    }
    let range = match (op, last) {
        (SortOp::BeginsWith, KeyValue::S(text)) => SortRange::BeginsWith(text),
        (SortOp::BeginsWith, KeyValue::N(_)) => {
            return Err(invalid(
                "begins_with does not apply to a Number sort key attribute",
            ))
        }
        (SortOp::Lt, value) => SortRange::Compare("<", value),
        (SortOp::Le, value) => SortRange::Compare("<=", value),
        (SortOp::Gt, value) => SortRange::Compare(">", value),
        (SortOp::Ge | SortOp::Eq, value) => SortRange::Compare(">=", value),
    };
    Ok(SortCondition { equal, range })
}

/// `between` on the first attribute of a multi-attribute sort key.
pub(crate) fn resolve_attributes_between<S>(
    entity: &'static str,
    attributes: &[(&'static str, ScalarType)],
    low: &dyn SortPrefix<S>,
    high: &dyn SortPrefix<S>,
) -> Result<SortCondition, Error> {
    let lo = resolve_attributes(entity, attributes, SortOp::Ge, low)?;
    let hi = resolve_attributes(entity, attributes, SortOp::Le, high)?;
    let (SortRange::Compare(_, lo), SortRange::Compare(_, hi)) = (lo.range, hi.range) else {
        return Err(Error::InvalidSortCondition {
            entity,
            reason: "between takes two values of the sort key's first attribute".into(),
        });
    };
    in_order(entity, &lo, &hi)?;
    Ok(SortRange::Between(lo, hi).into())
}

pub(crate) fn resolve<S>(
    entity: &'static str,
    template: &Template,
    ty: ScalarType,
    op: SortOp,
    value: &dyn SortPrefix<S>,
) -> Result<SortRange, Error> {
    let mut writer = SortWriter::new(entity, template, ty);
    value.write(&mut writer);
    if let Some(error) = writer.error.take() {
        return Err(error);
    }
    // No sort key is longer than DynamoDB's limit, so neither is a condition.
    let size = writer.text.len() + writer.next_literal().map_or(0, str::len);
    if size > SORT_KEY_BYTES {
        return Err(Error::KeyTooLarge {
            entity,
            key: "sort key condition",
            size,
            limit: SORT_KEY_BYTES,
        });
    }
    let wrap = |text: String| match ty {
        ScalarType::N => KeyValue::N(text),
        ScalarType::S => KeyValue::S(text),
    };
    if writer.raw.is_some() {
        let value = wrap(writer.text);
        return match (op, ty) {
            (SortOp::Eq, _) => Ok(SortRange::Eq(value)),
            (SortOp::BeginsWith, ScalarType::S) => {
                Ok(SortRange::BeginsWith(value.as_str().to_owned()))
            }
            (SortOp::BeginsWith, ScalarType::N) => Err(Error::InvalidSortCondition {
                entity,
                reason: "begins_with does not apply to a Number sort key".into(),
            }),
            (SortOp::Lt, _) => Ok(SortRange::Compare("<", value)),
            (SortOp::Le, _) => Ok(SortRange::Compare("<=", value)),
            (SortOp::Gt, _) => Ok(SortRange::Compare(">", value)),
            (SortOp::Ge, _) => Ok(SortRange::Compare(">=", value)),
        };
    }
    let prefix = template.literal_prefix();
    let text = writer.text.clone();
    let complete = writer.complete();
    let next = writer.next_literal();
    // The inclusive end of the items whose leading fields equal the prefix.
    let last_equal = || match next {
        Some(next) => max_with_prefix(&format!("{text}{next}")),
        None => text.clone(),
    };
    // A range inside the entity's prefix; without a prefix (a sort key that
    // starts with a field) one side is open, and DynamoDB takes no empty key value.
    let bounded = |lo: String, hi: Option<String>| match hi {
        _ if lo.is_empty() && hi.is_none() => SortRange::All,
        None => SortRange::Compare(">=", KeyValue::S(lo)),
        Some(hi) if lo.is_empty() => SortRange::Compare("<=", KeyValue::S(hi)),
        Some(hi) if lo > hi => SortRange::Empty,
        Some(hi) => SortRange::Between(KeyValue::S(lo), KeyValue::S(hi)),
    };
    let entity_end = || (!prefix.is_empty()).then(|| max_with_prefix(prefix));
    Ok(match op {
        SortOp::Eq if complete => {
            SortRange::Eq(KeyValue::S(format!("{text}{}", next.unwrap_or(""))))
        }
        SortOp::Eq => SortRange::BeginsWith(format!("{text}{}", next.unwrap_or(""))),
        SortOp::BeginsWith => SortRange::BeginsWith(text),
        SortOp::Lt if prefix.is_empty() => SortRange::Compare("<", KeyValue::S(text)),
        SortOp::Lt => match just_below(&text) {
            Some(hi) => bounded(prefix.to_owned(), Some(hi)),
            None => SortRange::Empty,
        },
        SortOp::Le => bounded(prefix.to_owned(), Some(last_equal())),
        SortOp::Gt => {
            // Items equal on the prefix continue with `#` (or end); `$` is the
            // next byte, and `\0` the smallest continuation of a whole key.
            let lo = match next {
                Some(_) => format!("{text}$"),
                None => format!("{text}\0"),
            };
            // A whole key at the size limit has no longer continuation: the
            // next key up changes its last character.
            match (lo.len() > SORT_KEY_BYTES).then(|| just_above(&text)) {
                None => bounded(lo, entity_end()),
                Some(Some(lo)) => bounded(lo, entity_end()),
                Some(None) => SortRange::Empty,
            }
        }
        SortOp::Ge => bounded(text, entity_end()),
    })
}

/// `BETWEEN low AND high` on leading fields, both inclusive.
pub(crate) fn resolve_between<S>(
    entity: &'static str,
    template: &Template,
    ty: ScalarType,
    low: &dyn SortPrefix<S>,
    high: &dyn SortPrefix<S>,
) -> Result<SortRange, Error> {
    let lo = resolve(entity, template, ty, SortOp::Ge, low)?;
    let hi = resolve(entity, template, ty, SortOp::Le, high)?;
    let lo = match lo {
        SortRange::Between(lo, _) | SortRange::Compare(_, lo) => lo,
        SortRange::Empty => return Ok(SortRange::Empty),
        other => return Err(unexpected(entity, other)),
    };
    let hi = match hi {
        SortRange::Between(_, hi) | SortRange::Compare(_, hi) => hi,
        SortRange::Empty => return Ok(SortRange::Empty),
        other => return Err(unexpected(entity, other)),
    };
    in_order(entity, &lo, &hi)?;
    Ok(SortRange::Between(lo, hi))
}

fn in_order(entity: &'static str, lo: &KeyValue, hi: &KeyValue) -> Result<(), Error> {
    let in_order = match (lo, hi) {
        (KeyValue::N(a), KeyValue::N(b)) => compare_numbers(a, b) != std::cmp::Ordering::Greater,
        (a, b) => a.as_str() <= b.as_str(),
    };
    if !in_order {
        return Err(Error::InvalidSortCondition {
            entity,
            reason: "between: the low bound is above the high bound".into(),
        });
    }
    Ok(())
}

fn unexpected(entity: &'static str, range: SortRange) -> Error {
    Error::InvalidSortCondition {
        entity,
        reason: format!("between cannot use the range {range:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    const ORDER_SK: Template = Template {
        source: "ORDER#{placed_at}#{order_id}",
        parts: &[
            Part::Literal("ORDER#"),
            Part::Field("placed_at"),
            Part::Literal("#"),
            Part::Field("order_id"),
        ],
    };

    fn range(op: SortOp, p: &dyn SortPrefix<(String, String)>) -> SortRange {
        resolve("Order", &ORDER_SK, ScalarType::S, op, p).unwrap()
    }

    #[test]
    fn conditions_stay_inside_the_entity() {
        let a = "2026".to_string();
        let id = "A1".to_string();
        assert_eq!(
            range(SortOp::Eq, &&a),
            SortRange::BeginsWith("ORDER#2026#".into())
        );
        assert_eq!(
            range(SortOp::Eq, &(&a, &id)),
            SortRange::Eq(KeyValue::S("ORDER#2026#A1".into()))
        );
        assert_eq!(
            range(SortOp::BeginsWith, &&a),
            SortRange::BeginsWith("ORDER#2026".into())
        );
        match range(SortOp::Gt, &&a) {
            SortRange::Between(KeyValue::S(lo), KeyValue::S(hi)) => {
                assert_eq!(lo, "ORDER#2026$");
                assert!(hi.starts_with("ORDER#") && hi.len() == 1024);
            }
            other => panic!("{other:?}"),
        }
        match range(SortOp::Lt, &&a) {
            SortRange::Between(KeyValue::S(lo), KeyValue::S(hi)) => {
                assert_eq!(lo, "ORDER#");
                assert!(hi.starts_with("ORDER#2025") && hi.as_str() < "ORDER#2026");
            }
            other => panic!("{other:?}"),
        }
    }

    /// A `gt` on a whole sort key at the 1,024-byte limit must not send a
    /// 1,025-byte bound.
    #[test]
    fn a_greater_than_bound_stays_within_the_limit() {
        let full = "a".repeat(SORT_KEY_BYTES);
        let above = just_above(&full).unwrap();
        assert_eq!(above.len(), SORT_KEY_BYTES);
        assert!(above.as_str() > full.as_str());
        assert_eq!(&above[..SORT_KEY_BYTES - 1], &full[..SORT_KEY_BYTES - 1]);
        assert_eq!(just_above("\u{10FFFF}"), None);
    }

    #[test]
    fn bounds_are_tight() {
        assert!(max_with_prefix("ab").len() <= 1024);
        assert!(max_with_prefix("ab").as_str() > "ab\u{10FFFF}");
        assert!(just_below("b").unwrap().as_str() < "b");
        assert!(just_below("b").unwrap().as_str() > "a\u{10FFFF}\u{10FFFF}");
        assert_eq!(just_below("a\0").unwrap(), "a");
        assert_eq!(just_below(""), None);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(compare_numbers("10", "9"), Ordering::Greater);
        assert_eq!(compare_numbers("-10", "-9"), Ordering::Less);
        assert_eq!(compare_numbers("1.50", "1.5"), Ordering::Equal);
        assert_eq!(compare_numbers("0", "-0"), Ordering::Equal);
        assert_eq!(compare_numbers("0.1", "0.09"), Ordering::Greater);
        assert_eq!(compare_numbers("1e2", "99.5"), Ordering::Greater);
        assert_eq!(compare_numbers("-1e2", "-99.5"), Ordering::Less);
        assert_eq!(compare_numbers("1.5", "1.51"), Ordering::Less);
        assert_eq!(compare_numbers("-1.5", "-1.51"), Ordering::Greater);
        assert_eq!(compare_numbers("0", "0.0001"), Ordering::Less);
        assert_eq!(compare_numbers("-0.0001", "0"), Ordering::Less);
    }
}
