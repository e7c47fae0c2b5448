//! Least-privilege IAM policies generated from the store's
//! declarations, their JSON shape, and the LeadingKeys pattern checked
//! against the keys ddb actually writes.

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, Ecommerce, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus};
use ddb_runtime::Entity;
use ddb_tools::iam::{Access, PolicyBuilder, PolicyError};
use serde_json::Value;

const TABLE: &str = "arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce";
const ACTIONS: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:ConditionCheckItem",
];

/// The shape IAM accepts: a version, statements with a unique alphanumeric
/// Sid, Allow, known DynamoDB actions, and resources on this table.
fn check_shape(document: &Value) -> Vec<&Value> {
    assert_eq!(document["Version"], "2012-10-17");
    let statements: Vec<&Value> = document["Statement"].as_array().unwrap().iter().collect();
    let mut sids = std::collections::HashSet::new();
    for statement in &statements {
        let sid = statement["Sid"].as_str().unwrap();
        assert!(!sid.is_empty() && sid.chars().all(|c| c.is_ascii_alphanumeric()));
        assert!(sids.insert(sid), "Sid {sid} twice");
        assert_eq!(statement["Effect"], "Allow");
        for action in statement["Action"].as_array().unwrap() {
            assert!(ACTIONS.contains(&action.as_str().unwrap()), "{action}");
        }
        for resource in statement["Resource"].as_array().unwrap() {
            let resource = resource.as_str().unwrap();
            assert!(
                resource == TABLE || resource.starts_with(&format!("{TABLE}/index/")),
                "{resource}"
            );
        }
    }
    // It is JSON that parses back to itself.
    let text = serde_json::to_string(document).unwrap();
    assert_eq!(&serde_json::from_str::<Value>(&text).unwrap(), document);
    statements
}

/// IAM's StringLike: `*` matches any run of characters.
fn string_like(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            text.starts_with(head)
                && (0..=text.len() - head.len()).any(|i| string_like(rest, &text[head.len() + i..]))
        }
    }
}

#[test]
fn the_store_gets_a_statement_per_entity_and_queried_index() {
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .entity(&OrderItem::SCHEMA, Access::Read)
        .build()
        .unwrap();
    // OrderItem is read-only, but shares the table with the writers; every
    // read statement covers the whole table.
    assert_eq!(policy.left_out.len(), 2, "{:?}", policy.left_out);
    assert!(
        policy.left_out[0].starts_with("OrderItem: declared read-only")
            && policy.left_out[0].contains("Customer, Order")
            && policy.left_out[0].ends_with("Keep it read-only with a table of its own"),
        "{:?}",
        policy.left_out
    );
    assert!(
        policy.left_out[1].starts_with("the read statements cover every item in the table:"),
        "{:?}",
        policy.left_out
    );
    let statements = check_shape(&policy.document);
    let sids: Vec<&str> = statements
        .iter()
        .map(|s| s["Sid"].as_str().unwrap())
        .collect();
    assert_eq!(
        sids,
        [
            "CustomerTable",
            "OrderTable",
            "OrderGSI1Query",
            "OrderGSI2Query",
            "OrderItemTable",
            "OrderItemGSI1Query"
        ]
    );
    // Read-only: no write action.
    let order_items = statements[4]["Action"].as_array().unwrap();
    assert!(order_items
        .iter()
        .all(|a| !a.as_str().unwrap().contains("Put")));
    // GSI2 projects some attributes: reads of it are limited to them.
    let gsi2 = statements[3];
    assert_eq!(gsi2["Resource"][0], format!("{TABLE}/index/GSI2"));
    let attributes = &gsi2["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"];
    assert!(attributes
        .as_array()
        .unwrap()
        .contains(&Value::from("total_cents")));
    assert!(!attributes
        .as_array()
        .unwrap()
        .contains(&Value::from("version")));
    // Named attributes, or the index's own projection (what a query that
    // names none returns): never ALL_ATTRIBUTES or COUNT.
    assert_eq!(
        gsi2["Condition"]["StringEqualsIfExists"]["dynamodb:Select"],
        serde_json::json!(["SPECIFIC_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"])
    );
}

#[test]
fn a_customer_scoped_policy_matches_exactly_their_partitions() {
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .entity(&OrderItem::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap();
    let statements = check_shape(&policy.document);
    // Each writer's items, and the guards of its creates' idempotency keys.
    assert_eq!(statements.len(), 4, "{}", policy);
    // What IAM cannot express is said, not silently granted: OrderItem and
    // the GSIs it cannot scope, every caller's idempotency guards of each
    // writer, and what the reads reach.
    assert_eq!(policy.left_out.len(), 6, "{:?}", policy.left_out);
    assert!(policy.left_out.iter().any(|n| n.starts_with("OrderItem:")));
    assert!(policy.left_out.iter().any(|n| n.contains("GSI2")));
    for writer in ["Customer", "Order"] {
        let guards = format!("{writer}: its guard items `_DDB#IDEMPOTENCY#{writer}#*`");
        assert!(
            policy.left_out.iter().any(|n| n.starts_with(&guards)
                && n.contains("read, overwrite or delete another caller's guards")),
            "{:?}",
            policy.left_out
        );
    }

    let order_items = statements
        .iter()
        .find(|s| s["Sid"] == "OrderTable")
        .unwrap();
    let pattern = order_items["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0]
        .as_str()
        .unwrap();
    assert_eq!(pattern, "CUSTOMER#${aws:PrincipalTag/customer_id}");
    // IAM substitutes the caller's tag: it matches the keys ddb writes for
    // that customer, and no other customer's.
    let granted = pattern.replace("${aws:PrincipalTag/customer_id}", "123");
    let key = |customer: &str| {
        let order = Order {
            customer_id: CustomerId(customer.into()),
            order_id: OrderId("A1".into()),
            placed_at: time::macros::datetime!(2026-10-02 14:31:07 UTC),
            status: OrderStatus::Open,
            total_cents: 1,
            version: 0,
        };
        order.primary_key().unwrap().pk().as_str().to_owned()
    };
    assert!(string_like(&granted, &key("123")));
    assert!(!string_like(&granted, &key("1234")));
    assert!(!string_like(&granted, &key("12")));
}

#[test]
fn literals_are_escaped_and_other_fields_become_wildcards() {
    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Tenants", pk = "PK", sk = "SK")]
    struct Tenants;
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Tenants, entity = "Doc", pk = "T*N?$#{tenant}#REGION#{region}", sk = "DOC#{id}")]
    struct Doc {
        tenant: String,
        region: String,
        id: String,
    }
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Doc::SCHEMA, Access::Read)
        .scoped_to("tenant", "acme")
        .build()
        .unwrap();
    let statements = check_shape(&policy.document);
    // IAM's wildcards in the literal text are escaped; another field of the
    // key is a wildcard, and the policy says so.
    assert_eq!(
        statements[0]["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0],
        "T${*}N${?}${$}#acme#REGION#*"
    );
    assert!(
        policy
            .left_out
            .iter()
            .any(|n| n.contains("every value of region")),
        "{:?}",
        policy.left_out
    );
}

/// The attributes a policy lets a caller read from an index are those ddb's
/// own projected queries of it read: GSI2 (INCLUDE) holds every attribute
/// `OpenOrder` reads, so its query names none and gets what GSI2 projects.
/// Every attribute of an open order GSI2 returns, read raw by such a query,
/// is in the statement's `dynamodb:Attributes`, and so is every name a
/// query of it sends; else IAM would deny the query or what it returns.
#[tokio::test]
async fn a_projected_index_query_reads_only_attributes_its_policy_allows() {
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Order::SCHEMA, Access::Read)
        .build()
        .unwrap();
    let statements = check_shape(&policy.document);
    let gsi2 = statements
        .iter()
        .find(|s| s["Resource"][0] == format!("{TABLE}/index/GSI2"))
        .expect("a statement for GSI2");
    let allowed: Vec<&str> = gsi2["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();

    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let open = crate::fixtures::order(
        "123",
        "A1",
        time::macros::datetime!(2026-10-02 14:31:07 UTC),
        OrderStatus::Open,
        1200,
    );
    db.create(&open).send().await.unwrap();
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.record("Query");
    let read = through
        .query(Order::open_orders(&OrderStatus::Open))
        .project::<ddb_examples::single_table::OpenOrder>()
        .collect()
        .await
        .unwrap();
    assert_eq!(read.len(), 1);
    let sent = ddb_tests::recorded_json(&proxy, "Query");
    assert!(!sent.is_empty());
    for body in &sent {
        for name in ddb_tests::projected_attributes(body) {
            assert!(
                allowed.contains(&name.as_str()),
                "{name} is read but not allowed: {allowed:?}"
            );
        }
    }
    // What GSI2 returns to a query that names no attribute, in each shard
    // the query read.
    let mut returned = Vec::new();
    for body in &sent {
        let values = body["ExpressionAttributeValues"].as_object().unwrap();
        let [(_, pk)] = values.iter().collect::<Vec<_>>()[..] else {
            panic!("one value, the shard's partition key: {body}")
        };
        let page = db
            .client()
            .query()
            .table_name(db.table_name::<Ecommerce>())
            .index_name("GSI2")
            .key_condition_expression("GSI2PK = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(pk["S"].as_str().unwrap().into()))
            .send()
            .await
            .unwrap();
        returned.extend(page.items.unwrap_or_default());
    }
    assert_eq!(returned.len(), 1, "the open order, in its shard");
    for name in returned.iter().flat_map(|item| item.keys()) {
        assert!(
            allowed.contains(&name.as_str()),
            "{name} is returned but not allowed: {allowed:?}"
        );
    }
    assert!(
        !allowed.contains(&"version"),
        "GSI2 does not project the version"
    );
}

#[test]
fn a_scoped_policy_grants_the_guards_of_unique_values() {
    let policy = PolicyBuilder::new(TABLE)
        .entity(&crate::unique::User::SCHEMA, Access::ReadWrite)
        .scoped_to("id", "${aws:PrincipalTag/user_id}")
        .build()
        .unwrap();
    let statements = check_shape(&policy.document);
    let guards = statements
        .iter()
        .find(|s| s["Sid"] == "UserGuards")
        .expect("a statement on the guards");
    let actions: Vec<&str> = guards["Action"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "dynamodb:GetItem",
            "dynamodb:PutItem",
            "dynamodb:DeleteItem"
        ]
    );
    let pattern = guards["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0]
        .as_str()
        .unwrap();
    // The key of the guard ddb writes for an email (tests/it/unique/mod.rs pins it).
    assert!(string_like(
        pattern,
        "_DDB#UNIQUE#User#email#S:ada@example.com"
    ));
    assert!(!string_like(pattern, "_DDB#UNIQUE#Patient#national_id#00"));
    assert!(!string_like(pattern, "USER#1"));
    assert!(
        policy.left_out.iter().any(|n| n.starts_with(
            "User: its guard items `_DDB#UNIQUE#User#*`, `_DDB#IDEMPOTENCY#User#*` are \
             granted across every caller"
        )),
        "{:?}",
        policy.left_out
    );
}

#[test]
fn statement_ids_stay_unique_when_entity_and_index_names_run_together() {
    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Runs", pk = "PK", sk = "SK")]
    #[ddb(index(name = "BCDE", pk = "BCDEPK", sk = "BCDESK"))]
    #[ddb(index(name = "CDE", pk = "CDEPK", sk = "CDESK"))]
    struct Runs;
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Runs, entity = "A", pk = "A#{id}", sk = "A")]
    #[ddb(index(name = "BCDE", pk = "X#{x}", sk = "A", query = "by_x"))]
    struct A {
        id: String,
        x: String,
    }
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Runs, entity = "AB", pk = "AB#{id}", sk = "AB")]
    #[ddb(index(name = "CDE", pk = "Y#{y}", sk = "AB", query = "by_y"))]
    struct AB {
        id: String,
        y: String,
    }
    let policy = PolicyBuilder::new(TABLE)
        .entity(&A::SCHEMA, Access::Read)
        .entity(&AB::SCHEMA, Access::Read)
        .build()
        .unwrap();
    let sids: Vec<&str> = check_shape(&policy.document)
        .iter()
        .map(|s| s["Sid"].as_str().unwrap())
        .collect();
    // A's index BCDE and AB's index CDE both write ABCDEQuery.
    assert_eq!(sids, ["ATable", "ABCDEQuery", "ABTable", "ABCDEQuery2"]);
}

#[test]
fn a_read_only_entity_in_another_partition_than_every_writer_is_not_named() {
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .entity(&OrderItem::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap();
    assert!(
        !policy
            .left_out
            .iter()
            .any(|n| n.contains("declared read-only")),
        "{:?}",
        policy.left_out
    );
    // A reader in the writer's partitions is named.
    let sharing = PolicyBuilder::new(TABLE)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .entity(&Customer::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap();
    assert!(
        sharing
            .left_out
            .iter()
            .any(|n| n.starts_with("Customer: declared read-only")),
        "{:?}",
        sharing.left_out
    );
}

#[test]
fn a_read_only_entity_the_scope_cannot_grant_is_named_when_a_writer_reaches_its_keys() {
    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Accounts", pk = "PK", sk = "SK")]
    struct Accounts;
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Accounts, entity = "Person", pk = "CUSTOMER#{customer_id}", sk = "PERSON")]
    struct Person {
        customer_id: String,
    }
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Accounts, entity = "Ledger", pk = "CUSTOMER#{account_id}", sk = "LEDGER")]
    struct Ledger {
        account_id: String,
    }
    // A caller tagged 12 may write CUSTOMER#12, which is also ledger 12's
    // partition.
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Person::SCHEMA, Access::ReadWrite)
        .entity(&Ledger::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap();
    assert!(
        policy
            .left_out
            .iter()
            .any(|n| n.starts_with("Ledger: declared read-only")),
        "{:?}",
        policy.left_out
    );
}

/// A transaction of a writer may check an item of a read-only entity: its
/// reads include ConditionCheckItem, and never a write.
#[test]
fn a_read_only_entity_may_be_condition_checked_not_written() {
    let policy = PolicyBuilder::new(TABLE)
        .entity(&OrderItem::SCHEMA, Access::Read)
        .build()
        .unwrap();
    let statements = check_shape(&policy.document);
    let actions: Vec<&str> = statements[0]["Action"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        actions.contains(&"dynamodb:ConditionCheckItem"),
        "{actions:?}"
    );
    for write in ["Put", "Update", "Delete", "BatchWrite"] {
        assert!(!actions.iter().any(|a| a.contains(write)), "{actions:?}");
    }
}

/// Read statements cover every item of the table (or of the caller's
/// partitions): unscoped, the policy names the table's declared entities it
/// did not grant, which the caller can read all the same; scoped, it names
/// none, since no declaration says which share the caller's partitions.
#[test]
fn the_entities_a_policy_can_read_without_naming_them_are_said() {
    let unscoped = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::Read)
        .build()
        .unwrap();
    let note = unscoped
        .left_out
        .iter()
        .find(|n| n.starts_with("the read statements cover every item in the table"))
        .unwrap_or_else(|| panic!("{:?}", unscoped.left_out));
    assert!(
        note.contains("including those of Order, OrderItem"),
        "{note}"
    );

    let scoped = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap();
    let note = scoped
        .left_out
        .iter()
        .find(|n| n.starts_with("the read statements cover every item in the caller's partitions:"))
        .unwrap_or_else(|| panic!("{:?}", scoped.left_out));
    assert!(!note.contains("including"), "{note}");
}

/// The guard patterns escape IAM's wildcards in the entity type, as they
/// do in templates: `Doc*` grants its own guards, not those of `DocX`.
#[test]
fn guard_patterns_escape_wildcards_in_the_entity_type() {
    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Docs", pk = "PK", sk = "SK")]
    struct Docs;
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Docs, entity = "Doc*", pk = "TENANT#{tenant}", sk = "DOC#{id}")]
    struct Doc {
        tenant: String,
        id: String,
    }
    let policy = PolicyBuilder::new(TABLE)
        .entity(&Doc::SCHEMA, Access::ReadWrite)
        .scoped_to("tenant", "${aws:PrincipalTag/tenant}")
        .build()
        .unwrap();
    let statements = check_shape(&policy.document);
    let guards = statements
        .iter()
        .find(|s| s["Sid"] == "DocGuards")
        .expect("a statement on the guards");
    assert_eq!(
        guards["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"],
        serde_json::json!(["_DDB#IDEMPOTENCY#Doc${*}#*"])
    );
}

/// A policy the builder cannot make right is refused, saying what to fix,
/// rather than built wrong: one of no entity, one over entities of two
/// tables (the one table ARN would grant the other's entities on the wrong
/// table), and one whose scope grants nothing: a misspelt field, or one
/// outside every entity's table partition key.
#[test]
fn a_policy_that_cannot_grant_what_is_asked_is_refused() {
    assert_eq!(
        PolicyBuilder::new(TABLE).build().unwrap_err(),
        PolicyError::NoEntity
    );
    let two_tables = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .entity(
            &ddb_examples::separate_tables::OrderItem::SCHEMA,
            Access::Read,
        )
        .build()
        .unwrap_err();
    assert_eq!(
        two_tables,
        PolicyError::OtherTable {
            entity: "OrderItem",
            table: "OrderItems",
            policy_table: "Ecommerce",
        }
    );
    assert!(
        two_tables.to_string().contains("one policy per table"),
        "{two_tables}"
    );
    let misspelt = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .scoped_to("customerid", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap_err();
    assert_eq!(
        misspelt,
        PolicyError::ScopeGrantsNothing {
            field: "customerid"
        }
    );
    // A scope in no entity's partition key grants nothing: refused, not
    // built with no statement.
    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Receipts", pk = "PK", sk = "SK")]
    struct Receipts;
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Receipts, entity = "Receipt", pk = "RECEIPT#{receipt_id}", sk = "RECEIPT")]
    struct Receipt {
        receipt_id: String,
        customer_id: String,
    }
    let none = PolicyBuilder::new(TABLE)
        .entity(&Receipt::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build();
    assert_eq!(
        none.unwrap_err(),
        PolicyError::ScopeGrantsNothing {
            field: "customer_id"
        }
    );
}

/// IAM takes a policy of tab, line feed, carriage return and U+0020 to
/// U+00FF only. A character beyond them (here in a scope's fixed value or
/// policy variable) is refused with the statement that would hold it, and
/// never with the value; Latin-1 is kept.
#[test]
fn a_policy_holds_only_the_characters_iam_accepts() {
    let scoped = |value: &str| {
        PolicyBuilder::new(TABLE)
            .entity(&Customer::SCHEMA, Access::ReadWrite)
            .scoped_to("customer_id", value.to_owned())
            .build()
    };
    for value in [
        "\u{9867}\u{5BA2}7",
        "${aws:PrincipalTag/\u{9867}\u{5BA2}}",
        "a\u{1F600}",
    ] {
        let refused = scoped(value).unwrap_err();
        let PolicyError::Character { statement, .. } = &refused else {
            panic!("{refused:?}");
        };
        assert_eq!(statement, "CustomerTable");
        assert!(!refused.to_string().contains(value), "{refused}");
    }
    assert_eq!(
        scoped("\u{9867}").unwrap_err(),
        PolicyError::Character {
            character: '\u{9867}',
            statement: "CustomerTable".into()
        }
    );
    let latin = scoped("Jos\u{E9}").unwrap();
    let statements = check_shape(&latin.document);
    assert_eq!(
        statements[0]["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0],
        "CUSTOMER#Jos\u{E9}"
    );
}

/// IAM counts a policy's characters without the white space between its
/// tokens, and takes at most 10,240 of them (a role's inline policies; a
/// managed policy 6,144). A policy beyond what any identity takes is refused
/// with its size, never its text; one within says its size, to be checked
/// against where it goes.
#[test]
fn a_policy_larger_than_iam_takes_is_refused() {
    use ddb_tools::iam::{MANAGED_POLICY_LIMIT, ROLE_INLINE_POLICY_LIMIT};
    assert_eq!(
        (MANAGED_POLICY_LIMIT, ROLE_INLINE_POLICY_LIMIT),
        (6_144, 10_240)
    );
    let scoped = |value: String| {
        PolicyBuilder::new(TABLE)
            .entity(&Customer::SCHEMA, Access::ReadWrite)
            .scoped_to("customer_id", value)
            .build()
    };
    let store = PolicyBuilder::new(TABLE)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .entity(&OrderItem::SCHEMA, Access::Read)
        .build()
        .unwrap();
    let counted: usize = serde_json::to_string_pretty(&store.document)
        .unwrap()
        .chars()
        .filter(|c| !c.is_whitespace())
        .count();
    assert_eq!(store.size(), counted);
    assert!(store.size() < MANAGED_POLICY_LIMIT, "{}", store.size());
    let refused = scoped("7".repeat(10_240)).unwrap_err();
    let PolicyError::TooLarge { size, limit } = refused else {
        panic!("{refused:?}");
    };
    assert!(size > 10_240, "{size}");
    assert_eq!(limit, ROLE_INLINE_POLICY_LIMIT);
    assert!(!refused.to_string().contains("7777"), "{refused}");
}
