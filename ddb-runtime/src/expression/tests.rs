use super::placeholders::numbered;
use super::*;

struct Order;

#[test]
fn renders_values_through_placeholders_and_names_only_when_needed() {
    let status: Attr<Order, String> = Attr::serde("status");
    let total: Attr<Order, u64> = Attr::serde("total_cents");
    let condition =
        (status.eq("OPEN") | status.eq("SHIPPED")) & !total.between(1u64, 9u64) & status.exists();
    let mut p = Placeholders::default();
    let text = condition.render(&mut p).unwrap();
    assert_eq!(
        text,
        "(#n0 = :v0 OR #n0 = :v1) AND (NOT total_cents BETWEEN :v2 AND :v3) AND attribute_exists(#n0)"
    );
    let (names, values) = p.into_maps();
    let names = names.unwrap();
    assert_eq!(names["#n0"], "status");
    assert_eq!(names.len(), 1);
    assert_eq!(values.unwrap()[":v1"], AttributeValue::S("SHIPPED".into()));
    assert!(!format!("{condition:?}").contains("SHIPPED"));
}

#[test]
fn a_chain_of_one_connective_is_flat_and_a_mixed_one_keeps_its_grouping() {
    let a: Attr<Order, u64> = Attr::serde("a");
    let b: Attr<Order, u64> = Attr::serde("b");
    let c: Attr<Order, u64> = Attr::serde("c");
    let text =
        |condition: Condition<Order>| condition.render(&mut Placeholders::default()).unwrap();
    let (x, y, z) = (|| a.exists(), || b.exists(), || c.exists());
    assert_eq!(
        text(x() & (y() & z())),
        "attribute_exists(a) AND attribute_exists(b) AND attribute_exists(c)"
    );
    assert_eq!(
        text((x() | y()) | z()),
        "attribute_exists(a) OR attribute_exists(b) OR attribute_exists(c)"
    );
    assert_eq!(
        text((x() & y()) | z()),
        "(attribute_exists(a) AND attribute_exists(b)) OR attribute_exists(c)"
    );
    assert_eq!(
        text(x() & (y() | z())),
        "attribute_exists(a) AND (attribute_exists(b) OR attribute_exists(c))"
    );
    assert_eq!(
        text(!(x() & y()) & z()),
        "(NOT (attribute_exists(a) AND attribute_exists(b))) AND attribute_exists(c)"
    );
}

#[test]
fn placeholders_are_numbered_in_decimal() {
    for n in [0, 7, 9, 10, 11, 99, 100, 1234, usize::MAX] {
        assert_eq!(numbered("#n", n), format!("#n{n}"));
        assert_eq!(numbered(":v", n), format!(":v{n}"));
    }
}

/// A condition written term by term reads as the same terms joined
/// with `and` and rendered, its placeholders numbered alike: an `AND`
/// chain continues the conjunction, any other connective is one
/// parenthesized term.
#[test]
fn a_conjunction_reads_as_its_terms_joined_with_and() {
    let a: Attr<Order, u64> = Attr::serde("a");
    let status: Attr<Order, String> = Attr::serde("status");
    let callers = [
        a.gt(1u64),
        a.gt(1u64) & status.eq("OPEN"),
        a.gt(1u64) | status.eq("OPEN"),
        !(a.gt(1u64) & status.exists()),
        (a.gt(1u64) | a.lt(0u64)) & (status.eq("OPEN") & a.exists()),
    ];
    for caller in callers {
        let joined = caller.clone()
            & Condition::attribute_exists("PK")
            & Condition::compare_value("status", "=", AttributeValue::N("2".into()));
        let mut expected = Placeholders::default();
        let expected_text = joined.render(&mut expected).unwrap();

        let mut p = Placeholders::default();
        let mut conjunction = Conjunction::default();
        conjunction.condition(&caller, &mut p);
        p.write_call("attribute_exists", "PK", None, conjunction.term());
        p.write_comparison(
            "status",
            "=",
            AttributeValue::N("2".into()),
            conjunction.term(),
        );
        assert_eq!(conjunction.finish().unwrap().unwrap(), expected_text);
        assert_eq!(p.into_maps(), expected.into_maps());
    }
    assert_eq!(Conjunction::default().finish(), Ok(None));
    let mut invalid = Conjunction::default();
    let mut p = Placeholders::default();
    invalid.condition(&Condition::<Order>::new(Node::Invalid("no".into())), &mut p);
    p.write_call("attribute_exists", "PK", None, invalid.term());
    assert_eq!(invalid.finish(), Err("no".to_string()));
}

/// A condition's Debug names each attribute, with ten placeholders or
/// more (`#n1` is part of `#n10`).
#[test]
fn debug_names_attributes_past_ten_placeholders() {
    let names: Vec<&'static str> = (0..12u8)
        .map(|i| &*Box::leak(format!("_field_{}", char::from(b'a' + i)).into_boxed_str()))
        .collect();
    let mut condition = Attr::<Order, u64>::serde(names[0]).exists();
    for name in &names[1..] {
        condition = condition & Attr::<Order, u64>::serde(name).exists();
    }
    let shown = format!("{condition:?}");
    for name in &names {
        assert!(
            shown.contains(&format!("attribute_exists({name})")),
            "{shown}"
        );
    }
    assert!(!shown.contains('#'), "{shown}");
}

/// An expression that fits with its names written as they are stays so;
/// one that does not fit gets placeholders for them instead, functions
/// and keywords untouched, and is refused only if it still does not fit.
#[test]
fn an_expression_too_long_with_names_as_they_are_takes_placeholders() {
    let long: &'static str = Box::leak("long_attribute_name_".repeat(10).into_boxed_str());
    let status: Attr<Order, String> = Attr::serde("status");
    let total: Attr<Order, u64> = Attr::serde(long);
    let mut condition = status.exists() & total.gt(0u64);
    let mut p = Placeholders::default();
    let short = condition.render(&mut p).unwrap();
    assert_eq!(p.fit("Order", "condition", short.clone()).unwrap(), short);

    for n in 1..30u64 {
        condition = condition & (total.between(n, n + 1) | total.exists());
    }
    let mut p = Placeholders::default();
    let text = condition.render(&mut p).unwrap();
    assert!(text.len() > EXPRESSION_LIMIT && text.contains(long));
    let fitted = p.fit("Order", "condition", text.clone()).unwrap();
    assert!(fitted.len() <= EXPRESSION_LIMIT, "{}", fitted.len());
    assert!(!fitted.contains(long));
    assert_eq!(
        fitted,
        text.replace(long, "#n1"),
        "only the long name changes"
    );
    let (names, values) = p.into_maps();
    let names = names.unwrap();
    assert_eq!(
        (names["#n0"].as_str(), names["#n1"].as_str()),
        ("status", long)
    );
    assert_eq!(values.unwrap().len(), 1 + 29 * 2);

    // Over the limit even with placeholders: refused, typed.
    for n in 0..200u64 {
        condition = condition & total.between(n, n + 1);
    }
    let mut p = Placeholders::default();
    let text = condition.render(&mut p).unwrap();
    assert!(matches!(
        p.fit("Order", "condition", text),
        Err(crate::error::Error::ExpressionTooLarge { .. })
    ));
}
