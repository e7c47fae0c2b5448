//! Typed sort conditions resolved into DynamoDB key conditions: on the
//! leading fields of a sort-key template, or on the leading attributes of a
//! multi-attribute sort key.

use crate::declaration::model::{ScalarType, Template};
use crate::error::Error;
use crate::item::number::compare_numbers;
use crate::keys::key::KeyValue;

use super::bounds::{just_above, just_below, max_with_prefix};
use super::writer::{EqualThen, SortPrefix, SortWriter};
use super::{SortCondition, SortOp, SortRange, SORT_KEY_BYTES};

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
    if op == SortOp::Eq {
        return Ok(SortCondition {
            equal,
            range: SortRange::All,
        });
    }
    let last = equal
        .pop()
        .ok_or_else(|| invalid(entity, "a sort condition needs a value"))?;
    if op != SortOp::BeginsWith && !equal.is_empty() {
        return Err(invalid(
            entity,
            "a comparison on a multi-attribute sort key takes one value, for its first attribute: \
             DynamoDB compares one attribute after equal leading ones, and (a, b) > (x, y) has no key condition; \
             hold leading attributes equal with eq_then_gt and the others",
        ));
    }
    let range = attribute_range(entity, op, last)?;
    Ok(SortCondition { equal, range })
}

/// A range on the attribute of a multi-attribute sort key after `leading`,
/// whose values are held equal: `ts = x AND seq > y`.
pub(crate) fn resolve_attributes_after_equal<S, L: EqualThen<S>>(
    entity: &'static str,
    attributes: &[(&'static str, ScalarType)],
    op: SortOp,
    leading: &L,
    value: &L::Next,
) -> Result<SortCondition, Error> {
    let mut writer = SortWriter::for_attributes(entity, attributes);
    leading.write(&mut writer);
    writer.field(value);
    if let Some(error) = writer.error.take() {
        return Err(error);
    }
    let mut equal = writer.values;
    let last = equal
        .pop()
        .ok_or_else(|| invalid(entity, "a sort condition needs a value"))?;
    let range = attribute_range(entity, op, last)?;
    Ok(SortCondition { equal, range })
}

/// `between` on the attribute of a multi-attribute sort key after `leading`.
pub(crate) fn resolve_attributes_between_after_equal<S, L: EqualThen<S>>(
    entity: &'static str,
    attributes: &[(&'static str, ScalarType)],
    leading: &L,
    low: &L::Next,
    high: &L::Next,
) -> Result<SortCondition, Error> {
    let lo = resolve_attributes_after_equal(entity, attributes, SortOp::Ge, leading, low)?;
    let hi = resolve_attributes_after_equal(entity, attributes, SortOp::Le, leading, high)?;
    let (SortRange::Compare(_, low), SortRange::Compare(_, high)) = (lo.range, hi.range) else {
        return Err(invalid(
            entity,
            "between takes two values of one sort key attribute",
        ));
    };
    in_order(entity, &low, &high)?;
    Ok(SortCondition {
        equal: lo.equal,
        range: SortRange::Between(low, high),
    })
}

/// The range `op value` on one attribute of a multi-attribute sort key.
fn attribute_range(entity: &'static str, op: SortOp, value: KeyValue) -> Result<SortRange, Error> {
    Ok(match (op, value) {
        (SortOp::BeginsWith, KeyValue::S(text)) => SortRange::BeginsWith(text),
        (SortOp::BeginsWith, KeyValue::N(_)) => {
            return Err(invalid(
                entity,
                "begins_with does not apply to a Number sort key attribute",
            ))
        }
        (SortOp::Lt, value) => SortRange::Compare("<", value),
        (SortOp::Le, value) => SortRange::Compare("<=", value),
        (SortOp::Gt, value) => SortRange::Compare(">", value),
        (SortOp::Ge | SortOp::Eq, value) => SortRange::Compare(">=", value),
    })
}

fn invalid(entity: &'static str, reason: &str) -> Error {
    Error::InvalidSortCondition {
        entity,
        reason: reason.to_owned(),
    }
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
        return Err(invalid(
            entity,
            "between takes two values of the sort key's first attribute",
        ));
    };
    in_order(entity, &lo, &hi)?;
    Ok(SortRange::Between(lo, hi).into())
}

/// Resolves a typed condition on `template` (of type `ty`) into a range.
pub(crate) fn resolve<S>(
    entity: &'static str,
    template: &Template,
    ty: ScalarType,
    op: SortOp,
    value: &dyn SortPrefix<S>,
) -> Result<SortRange, Error> {
    let writer = write_condition(entity, template, ty, value)?;
    if writer.raw.is_some() {
        return resolve_whole_key(entity, ty, op, writer.text);
    }
    let complete = writer.complete();
    let next = writer.next_literal();
    Ok(resolve_in_template(
        op,
        template.literal_prefix(),
        writer.text,
        complete,
        next,
    ))
}

/// A range on the template field after `leading`, whose values are held
/// equal: the range is bounded by the text they and the literal after them
/// write (`ORDER#<placed_at>#`), as a range on the first field is bounded
/// by the entity's literal prefix.
pub(crate) fn resolve_after_equal<S, L: EqualThen<S>>(
    entity: &'static str,
    template: &Template,
    ty: ScalarType,
    op: SortOp,
    leading: &L,
    value: &L::Next,
) -> Result<SortRange, Error> {
    let mut writer = SortWriter::new(entity, template, ty);
    leading.write(&mut writer);
    let prefix = format!("{}{}", writer.text, writer.next_literal().unwrap_or(""));
    writer.field(value);
    let writer = checked(entity, writer)?;
    let complete = writer.complete();
    let next = writer.next_literal();
    Ok(resolve_in_template(
        op,
        &prefix,
        writer.text,
        complete,
        next,
    ))
}

/// `between` on the template field after `leading`.
pub(crate) fn resolve_between_after_equal<S, L: EqualThen<S>>(
    entity: &'static str,
    template: &Template,
    ty: ScalarType,
    leading: &L,
    low: &L::Next,
    high: &L::Next,
) -> Result<SortRange, Error> {
    let lo = resolve_after_equal(entity, template, ty, SortOp::Ge, leading, low)?;
    let hi = resolve_after_equal(entity, template, ty, SortOp::Le, leading, high)?;
    between_of(entity, lo, hi)
}

/// The condition's values written into the template's text: an error when
/// one cannot be written, or when the text is over the sort key limit.
fn write_condition<'t, S>(
    entity: &'static str,
    template: &'t Template,
    ty: ScalarType,
    value: &dyn SortPrefix<S>,
) -> Result<SortWriter<'t>, Error> {
    let mut writer = SortWriter::new(entity, template, ty);
    value.write(&mut writer);
    checked(entity, writer)
}

/// The writer, once every value is written: an error when one could not
/// be, or when the text is over the sort key limit.
fn checked<'t>(entity: &'static str, mut writer: SortWriter<'t>) -> Result<SortWriter<'t>, Error> {
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
    Ok(writer)
}

/// A condition on a sort key whose template is one field: the key is the
/// value itself, of the attribute's type, compared as it is.
fn resolve_whole_key(
    entity: &'static str,
    ty: ScalarType,
    op: SortOp,
    text: String,
) -> Result<SortRange, Error> {
    let value = match ty {
        ScalarType::N => KeyValue::N(text),
        ScalarType::S => KeyValue::S(text),
    };
    match (op, ty) {
        (SortOp::Eq, _) => Ok(SortRange::Eq(value)),
        (SortOp::BeginsWith, ScalarType::S) => Ok(SortRange::BeginsWith(value.as_str().to_owned())),
        (SortOp::BeginsWith, ScalarType::N) => Err(Error::InvalidSortCondition {
            entity,
            reason: "begins_with does not apply to a Number sort key".into(),
        }),
        (SortOp::Lt, _) => Ok(SortRange::Compare("<", value)),
        (SortOp::Le, _) => Ok(SortRange::Compare("<=", value)),
        (SortOp::Gt, _) => Ok(SortRange::Compare(">", value)),
        (SortOp::Ge, _) => Ok(SortRange::Compare(">=", value)),
    }
}

/// A condition on the leading fields of a template written as `text`
/// (`complete` when it holds every field; `next` the literal after them),
/// kept inside the entity's literal `prefix`.
fn resolve_in_template(
    op: SortOp,
    prefix: &str,
    text: String,
    complete: bool,
    next: Option<&'static str>,
) -> SortRange {
    match op {
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
        SortOp::Le => bounded(prefix.to_owned(), Some(last_equal(&text, next))),
        SortOp::Gt => greater_than(&text, next, prefix),
        SortOp::Ge => bounded(text, entity_end(prefix)),
    }
}

/// `> text`: from just past every item whose leading fields equal `text`
/// to the end of the entity.
fn greater_than(text: &str, next: Option<&'static str>, prefix: &str) -> SortRange {
    // Items equal on the prefix continue with `#` (or end); `$` is the
    // next byte, and `\0` the smallest continuation of a whole key.
    let lo = match next {
        Some(_) => format!("{text}$"),
        None => format!("{text}\0"),
    };
    // A whole key at the size limit has no longer continuation: the
    // next key up changes its last character.
    match (lo.len() > SORT_KEY_BYTES).then(|| just_above(text)) {
        None => bounded(lo, entity_end(prefix)),
        Some(Some(lo)) => bounded(lo, entity_end(prefix)),
        Some(None) => SortRange::Empty,
    }
}

/// The inclusive end of the items whose leading fields equal `text`.
fn last_equal(text: &str, next: Option<&'static str>) -> String {
    match next {
        Some(next) => max_with_prefix(&format!("{text}{next}")),
        None => text.to_owned(),
    }
}

/// The greatest key of the entity, when it has a literal prefix.
fn entity_end(prefix: &str) -> Option<String> {
    (!prefix.is_empty()).then(|| max_with_prefix(prefix))
}

/// A range inside the entity's prefix; without a prefix (a sort key that
/// starts with a field) one side is open, and DynamoDB takes no empty key value.
fn bounded(lo: String, hi: Option<String>) -> SortRange {
    match hi {
        _ if lo.is_empty() && hi.is_none() => SortRange::All,
        None => SortRange::Compare(">=", KeyValue::S(lo)),
        Some(hi) if lo.is_empty() => SortRange::Compare("<=", KeyValue::S(hi)),
        Some(hi) if lo > hi => SortRange::Empty,
        Some(hi) => SortRange::Between(KeyValue::S(lo), KeyValue::S(hi)),
    }
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
    between_of(entity, lo, hi)
}

/// `BETWEEN` from the lower end of `lo` (a `>=` range) to the upper end of
/// `hi` (a `<=` range).
fn between_of(entity: &'static str, lo: SortRange, hi: SortRange) -> Result<SortRange, Error> {
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
        return Err(invalid(
            entity,
            "between: the low bound is above the high bound",
        ));
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
    use crate::declaration::model::Part;
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
