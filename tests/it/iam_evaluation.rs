//! Generated policies judged by what they allow and deny: the requests ddb
//! sends (recorded at the proxy) are evaluated under the policy by IAM's
//! documented rules for the condition keys ddb's policies use
//! (`dynamodb:LeadingKeys`, `dynamodb:Attributes`, `dynamodb:Select`, with
//! the `ForAllValues:` and `...IfExists` operators and `${...}` policy
//! variables). Another customer's partition, a read-only entity's write and
//! an index read of an attribute the index does not project are denied;
//! batch and transaction reads, idempotent creates and the guards of unique
//! values are allowed their caller under a scope, and denied every other
//! caller where they name the caller's partition.

use std::collections::HashMap;

use ddb_examples::single_table::{Customer, Ecommerce, OpenOrder, Order, OrderItem};
use ddb_examples::{CustomerId, OrderId, OrderStatus, ProductId};
use ddb_runtime::{Entity, Projection, Table};
use ddb_tools::iam::{maintenance_policy, Access, PolicyBuilder};
use serde_json::Value;

const ARN: &str = "arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce";

/// One authorization IAM makes: an action on a resource, with the values
/// of the condition keys the request carries.
#[derive(Debug, Clone)]
struct Authorization {
    action: String,
    resource: String,
    leading_keys: Vec<String>,
    attributes: Vec<String>,
    select: Option<String>,
}

/// IAM's `StringLike`: `*` any run of characters, `?` any one; `${*}`,
/// `${?}` and `${$}` the characters themselves; `${name}` the principal's
/// value of a policy variable (a request whose principal lacks it matches
/// nothing).
fn string_like(pattern: &str, text: &str, variables: &HashMap<&str, &str>) -> bool {
    #[derive(Debug)]
    enum Token {
        Char(char),
        Any,
        One,
    }
    let mut tokens = Vec::new();
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("${") {
            let Some(end) = after.find('}') else {
                return false;
            };
            let name = &after[..end];
            match name {
                "*" | "?" | "$" => tokens.push(Token::Char(name.chars().next().unwrap())),
                variable => match variables.get(variable) {
                    Some(value) => tokens.extend(value.chars().map(Token::Char)),
                    None => return false,
                },
            }
            rest = &after[end + 1..];
            continue;
        }
        tokens.push(match c {
            '*' => Token::Any,
            '?' => Token::One,
            c => Token::Char(c),
        });
        rest = &rest[c.len_utf8()..];
    }
    let text: Vec<char> = text.chars().collect();
    // matches[i][j]: tokens[i..] match text[j..].
    let mut matches = vec![vec![false; text.len() + 1]; tokens.len() + 1];
    matches[tokens.len()][text.len()] = true;
    for i in (0..tokens.len()).rev() {
        for j in (0..=text.len()).rev() {
            matches[i][j] = match tokens[i] {
                Token::Any => matches[i + 1][j] || (j < text.len() && matches[i][j + 1]),
                Token::One => j < text.len() && matches[i + 1][j + 1],
                Token::Char(c) => j < text.len() && text[j] == c && matches[i + 1][j + 1],
            };
        }
    }
    matches[0][0]
}

fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether one condition block holds for `request`.
fn condition_holds(
    operator: &str,
    keys: &Value,
    request: &Authorization,
    vars: &HashMap<&str, &str>,
) -> bool {
    keys.as_object().unwrap().iter().all(|(key, expected)| {
        let expected = strings(expected);
        let values: Vec<&str> = match key.as_str() {
            "dynamodb:LeadingKeys" => request.leading_keys.iter().map(String::as_str).collect(),
            "dynamodb:Attributes" => request.attributes.iter().map(String::as_str).collect(),
            "dynamodb:Select" => request.select.iter().map(String::as_str).collect(),
            other => panic!("a condition key the evaluator does not know: {other}"),
        };
        match operator {
            // True when every value matches one of the patterns (and so
            // when the request carries none).
            "ForAllValues:StringLike" => values
                .iter()
                .all(|v| expected.iter().any(|p| string_like(p, v, vars))),
            "ForAllValues:StringEquals" => values.iter().all(|v| expected.contains(v)),
            // True when the key is absent; otherwise like StringEquals.
            "StringEqualsIfExists" => values.iter().all(|v| expected.contains(v)),
            other => panic!("an operator the evaluator does not know: {other}"),
        }
    })
}

/// IAM's decision: allowed when an Allow statement matches the action, the
/// resource and all its conditions (ddb's policies have no Deny).
fn allowed(policy: &Value, request: &Authorization, vars: &HashMap<&str, &str>) -> bool {
    policy["Statement"]
        .as_array()
        .unwrap()
        .iter()
        .any(|statement| {
            assert_eq!(statement["Effect"], "Allow");
            let action = strings(&statement["Action"]).contains(&request.action.as_str());
            let resource = strings(&statement["Resource"])
                .iter()
                .any(|r| string_like(r, &request.resource, vars));
            let conditions = statement["Condition"].as_object().is_none_or(|conditions| {
                conditions
                    .iter()
                    .all(|(operator, keys)| condition_holds(operator, keys, request, vars))
            });
            action && resource && conditions
        })
}

/// A key's partition value (`PK`), as DynamoDB's JSON carries it.
fn pk_of(item: &Value) -> String {
    item["PK"]["S"].as_str().expect("a string PK").to_owned()
}

/// The partition value of a Query: the value the key condition compares
/// the index's (or table's) partition key attribute with.
fn queried_partition(body: &Value, partition_attribute: &str) -> String {
    let condition = body["KeyConditionExpression"].as_str().unwrap();
    let names = &body["ExpressionAttributeNames"];
    for term in condition.split(" AND ") {
        let term = term.trim().trim_start_matches('(').trim_end_matches(')');
        if let Some((name, value)) = term.split_once(" = ") {
            let name = names[name.trim()].as_str().unwrap_or(name.trim());
            if name == partition_attribute {
                return body["ExpressionAttributeValues"][value.trim()]["S"]
                    .as_str()
                    .unwrap()
                    .to_owned();
            }
        }
    }
    panic!("no partition value in {condition}")
}

/// The partition key attribute a Query's key condition compares: its
/// index's, or its table's, as the declaration of the table it is sent to
/// (each test's copy is named after it) names it.
fn partition_attribute(body: &Value) -> &'static str {
    let sent_to = body["TableName"].as_str().unwrap();
    let tables = [&Ecommerce::DEF, &crate::unique::Accounts::DEF];
    let table = tables
        .into_iter()
        .find(|t| sent_to.starts_with(&format!("{}-", t.name)))
        .unwrap_or_else(|| panic!("a table the evaluator does not know: {sent_to}"));
    match body["IndexName"].as_str() {
        Some(index) => table.index(index).expect("a declared index").pk.name,
        None => table.pk.name,
    }
}

/// The authorizations a request needs: one, or one per item of a
/// transaction (each authorized by its own action).
fn authorizations(target: &str, body: &Value) -> Vec<Authorization> {
    let one = |action: &str, resource: String, keys: Vec<String>| Authorization {
        action: format!("dynamodb:{action}"),
        resource,
        leading_keys: keys,
        attributes: ddb_tests::projected_attributes(body),
        select: body["Select"].as_str().map(str::to_owned),
    };
    match target {
        "GetItem" | "UpdateItem" | "DeleteItem" => {
            vec![one(target, ARN.into(), vec![pk_of(&body["Key"])])]
        }
        "PutItem" => vec![one(target, ARN.into(), vec![pk_of(&body["Item"])])],
        "Query" => {
            let index = body["IndexName"].as_str();
            let resource = match index {
                Some(index) => format!("{ARN}/index/{index}"),
                None => ARN.to_owned(),
            };
            let partition = queried_partition(body, partition_attribute(body));
            vec![one("Query", resource, vec![partition])]
        }
        "BatchWriteItem" => {
            let requests = body["RequestItems"]
                .as_object()
                .unwrap()
                .values()
                .flat_map(|v| v.as_array().unwrap());
            let keys = requests
                .map(|r| match r.get("PutRequest") {
                    Some(put) => pk_of(&put["Item"]),
                    None => pk_of(&r["DeleteRequest"]["Key"]),
                })
                .collect();
            vec![one("BatchWriteItem", ARN.into(), keys)]
        }
        "BatchGetItem" => {
            let tables = body["RequestItems"].as_object().unwrap().values();
            let keys = tables.flat_map(|table| table["Keys"].as_array().unwrap());
            vec![one("BatchGetItem", ARN.into(), keys.map(pk_of).collect())]
        }
        "TransactGetItems" => body["TransactItems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|get| one("GetItem", ARN.into(), vec![pk_of(&get["Get"]["Key"])]))
            .collect(),
        "TransactWriteItems" => body["TransactItems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|action| {
                let (name, detail) = action.as_object().unwrap().iter().next().unwrap();
                let (action, key) = match name.as_str() {
                    "Put" => ("PutItem", pk_of(&detail["Item"])),
                    "Update" => ("UpdateItem", pk_of(&detail["Key"])),
                    "Delete" => ("DeleteItem", pk_of(&detail["Key"])),
                    _ => ("ConditionCheckItem", pk_of(&detail["Key"])),
                };
                one(action, ARN.into(), vec![key])
            })
            .collect(),
        "Scan" => vec![one("Scan", ARN.into(), Vec::new())],
        "DescribeTable" => vec![one("DescribeTable", ARN.into(), Vec::new())],
        other => panic!("a request the evaluator does not read: {other}"),
    }
}

/// The requests of an application's reads and writes.
const ITEM_REQUESTS: &[&str] = &[
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "BatchWriteItem",
    "BatchGetItem",
    "TransactWriteItems",
    "TransactGetItems",
];

/// What `act` sends of `targets` to the store's table, as the
/// authorizations it needs.
async fn sent<F: std::future::Future<Output = ()>>(
    targets: &[&str],
    act: impl FnOnce(ddb_runtime::Db) -> F,
) -> Vec<Authorization> {
    let requests = sent_to::<Ecommerce, F>(targets, act).await;
    requests.into_iter().flat_map(|(_, needs)| needs).collect()
}

/// What `act` sends of `targets` to table `T`: each request's target and
/// the authorizations it needs, all of which IAM must allow for the request
/// to run.
async fn sent_to<T: ddb_runtime::Table + 'static, F: std::future::Future<Output = ()>>(
    targets: &[&str],
    act: impl FnOnce(ddb_runtime::Db) -> F,
) -> Vec<(String, Vec<Authorization>)> {
    let db = ddb_tests::db_with_table::<T>().await;
    let (proxy, through) = ddb_tests::through_proxy::<T>(&db).await;
    for target in targets {
        proxy.record(target);
    }
    act(through).await;
    let mut all = Vec::new();
    for &target in targets {
        for body in ddb_tests::recorded_json(&proxy, target) {
            all.push((target.to_owned(), authorizations(target, &body)));
        }
    }
    assert!(!all.is_empty(), "nothing was sent");
    all
}

fn order(customer: &str, id: &str) -> Order {
    Order {
        customer_id: CustomerId(customer.into()),
        order_id: OrderId(id.into()),
        placed_at: time::macros::datetime!(2026-10-02 14:31:07 UTC),
        status: OrderStatus::Open,
        total_cents: 1200,
        version: 0,
    }
}

fn customer(id: &str) -> Customer {
    Customer {
        customer_id: CustomerId(id.into()),
        name: "A customer".into(),
        email: format!("{id}@example.com"),
        order_count: 0,
    }
}

/// What a customer does with their own data: create their profile and an
/// order in one transaction, read and update them, list their orders.
async fn a_customers_session(db: ddb_runtime::Db, id: &'static str) {
    db.transact_write()
        .create(&customer(id))
        .create(&order(id, "A1"))
        .send()
        .await
        .unwrap();
    db.create(&order(id, "A2")).send().await.unwrap();
    let key = order(id, "A1").primary_key().unwrap();
    db.get(key.clone()).send().await.unwrap();
    db.update(key)
        .set(Order::fields().status, OrderStatus::Shipped)
        .send()
        .await
        .unwrap();
    db.query(Order::by_customer(&CustomerId(id.into())))
        .collect()
        .await
        .unwrap();
    db.batch_put(&[order(id, "A3")]).await.unwrap();
    let keys = ["A1", "A3"].map(|o| order(id, o).primary_key().unwrap());
    db.batch_get(keys.to_vec()).await.unwrap();
    let profile = customer(id).primary_key().unwrap();
    db.transact_get()
        .get(profile)
        .get(keys[0].clone())
        .send()
        .await
        .unwrap();
    db.delete(order(id, "A3").primary_key().unwrap())
        .send()
        .await
        .unwrap();
}

fn customer_policy() -> Value {
    PolicyBuilder::new(ARN)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .entity(&OrderItem::SCHEMA, Access::Read)
        .scoped_to("customer_id", "${aws:PrincipalTag/customer_id}")
        .build()
        .unwrap()
        .document
}

#[tokio::test]
async fn a_customer_is_allowed_their_own_partition_and_denied_anothers() {
    let policy = customer_policy();
    let requests = sent(ITEM_REQUESTS, |db| a_customers_session(db, "123")).await;
    let as_123 = HashMap::from([("aws:PrincipalTag/customer_id", "123")]);
    let as_456 = HashMap::from([("aws:PrincipalTag/customer_id", "456")]);
    let untagged = HashMap::new();
    for request in &requests {
        assert!(
            allowed(&policy, request, &as_123),
            "denied its own: {request:?}"
        );
        assert!(
            !allowed(&policy, request, &as_456),
            "allowed another's: {request:?}"
        );
        assert!(
            !allowed(&policy, request, &untagged),
            "allowed without a tag: {request:?}"
        );
    }
}

#[tokio::test]
async fn a_read_only_entity_outside_every_writers_scope_cannot_be_written() {
    let policy = customer_policy();
    let line = OrderItem {
        order_id: OrderId("A1".into()),
        product_id: ProductId("P1".into()),
        quantity: 1,
        price_cents: 100,
    };
    let writes = sent(ITEM_REQUESTS, |db| async move {
        db.create(&line).send().await.unwrap();
    })
    .await;
    let as_123 = HashMap::from([("aws:PrincipalTag/customer_id", "123")]);
    for request in &writes {
        assert!(
            !allowed(&policy, request, &as_123),
            "a read-only entity written: {request:?}"
        );
    }
}

#[tokio::test]
async fn an_index_read_is_allowed_its_projected_attributes_only() {
    let policy = PolicyBuilder::new(ARN)
        .entity(&Order::SCHEMA, Access::Read)
        .build()
        .unwrap()
        .document;
    let reads = sent(ITEM_REQUESTS, |db| async move {
        db.query(Order::open_orders(&OrderStatus::Open))
            .project::<OpenOrder>()
            .send()
            .await
            .unwrap();
    })
    .await;
    let none = HashMap::new();
    let queries: Vec<_> = reads
        .iter()
        .filter(|r| r.resource.ends_with("/index/GSI2"))
        .collect();
    assert!(!queries.is_empty());
    for query in &queries {
        assert!(
            allowed(&policy, query, &none),
            "ddb's own projected query denied: {query:?}"
        );
        // A query naming no attribute, as IAM may read it: what DynamoDB
        // returns for it, the index's projection.
        let mut as_run = (*query).clone();
        as_run.select = Some("ALL_PROJECTED_ATTRIBUTES".into());
        as_run.attributes = OpenOrder::ATTRIBUTES
            .iter()
            .map(|a| a.to_string())
            .collect();
        as_run
            .attributes
            .extend(["status", "_type", "_schema", "GSI2PK"].map(String::from));
        assert!(
            allowed(&policy, &as_run, &none),
            "the index's projection denied: {as_run:?}"
        );
        let mut unprojected = (*query).clone();
        unprojected.attributes.push("email".into());
        assert!(
            !allowed(&policy, &unprojected, &none),
            "an unprojected attribute read"
        );
        let mut everything = (*query).clone();
        everything.attributes.clear();
        everything.select = Some("ALL_ATTRIBUTES".into());
        assert!(
            !allowed(&policy, &everything, &none),
            "Select ALL_ATTRIBUTES on GSI2"
        );
    }
}

#[test]
fn a_fixed_scope_value_matches_its_own_partition_only() {
    let policy = PolicyBuilder::new(ARN)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .scoped_to("customer_id", "12*3?")
        .build()
        .unwrap();
    let key = |customer: &str| {
        order(customer, "A1")
            .primary_key()
            .unwrap()
            .pk()
            .as_str()
            .to_owned()
    };
    let get = |customer: &str| Authorization {
        action: "dynamodb:GetItem".into(),
        resource: ARN.into(),
        leading_keys: vec![key(customer)],
        attributes: Vec::new(),
        select: None,
    };
    let none = HashMap::new();
    assert!(allowed(&policy.document, &get("12*3?"), &none), "{policy}");
    for other in ["12x3y", "123", "12 and 3!", "12*3?4"] {
        assert!(
            !allowed(&policy.document, &get(other), &none),
            "{other}: {policy}"
        );
    }
}

/// A partition key that is the scoped field alone stores its value as it
/// is, unescaped: a fixed value's pattern matches the caller's own key as
/// stored and no other caller's.
#[test]
fn a_fixed_value_of_a_partition_key_that_is_the_field_alone_matches_its_key_as_stored() {
    #[derive(ddb_runtime::Table)]
    #[ddb(name = "Wallets", pk = "PK", sk = "SK")]
    struct Wallets;
    #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    #[ddb(table = Wallets, entity = "Wallet", pk = "{owner}", sk = "WALLET")]
    struct Wallet {
        owner: String,
    }
    let get = |owner: &str| {
        let wallet = Wallet {
            owner: owner.into(),
        };
        Authorization {
            action: "dynamodb:GetItem".into(),
            resource: ARN.into(),
            leading_keys: vec![wallet.primary_key().unwrap().pk().as_str().to_owned()],
            attributes: Vec::new(),
            select: None,
        }
    };
    let none = HashMap::new();
    for (owner, others) in [
        ("a#b", &["a$cb", "a%23b", "a"][..]),
        ("a b", &["a%20b", "a"][..]),
        ("12*3?$", &["12x3y$", "12*3?"][..]),
    ] {
        let policy = PolicyBuilder::new(ARN)
            .entity(&Wallet::SCHEMA, Access::ReadWrite)
            .scoped_to("owner", owner)
            .build()
            .unwrap();
        assert!(
            allowed(&policy.document, &get(owner), &none),
            "{owner}: {policy}"
        );
        for other in others {
            assert!(
                !allowed(&policy.document, &get(other), &none),
                "{other}: {policy}"
            );
        }
    }
}

#[tokio::test]
async fn the_maintenance_policy_allows_what_sync_and_backfill_send() {
    let policy = maintenance_policy(&[ARN]).document;
    let mut targets = ITEM_REQUESTS.to_vec();
    targets.extend(["Scan", "DescribeTable"]);
    let requests = sent(&targets, |db| async move {
        db.create(&order("123", "A1")).send().await.unwrap();
        db.backfill::<Order>().send().await.unwrap();
    })
    .await;
    let none = HashMap::new();
    for request in &requests {
        assert!(allowed(&policy, request, &none), "{request:?}");
    }
    let actions = strings(&policy["Statement"][0]["Action"]);
    for action in [
        "CreateTable",
        "DescribeTable",
        "UpdateTable",
        "DescribeTimeToLive",
        "UpdateTimeToLive",
    ] {
        assert!(
            actions.contains(&format!("dynamodb:{action}").as_str()),
            "{action}"
        );
    }
    assert!(strings(&policy["Statement"][1]["Action"]).contains(&"dynamodb:Scan"));
}

/// A Scan names no partition key: the statement of an entity declared with
/// `#[ddb(scan)]` allows it, an entity without the declaration does not,
/// and no scoped policy does (a `ForAllValues` condition over no leading
/// keys holds, so a scoped statement granting Scan would allow the whole
/// table).
#[tokio::test]
async fn a_scan_is_allowed_only_where_declared_and_never_under_a_scope() {
    use crate::scan::{Member, Members};
    let db = ddb_tests::db_with_table::<Members>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Members>(&db).await;
    proxy.record("Scan");
    through.scan::<Member>().collect().await.unwrap();
    let requests: Vec<Authorization> = ddb_tests::recorded_json(&proxy, "Scan")
        .iter()
        .flat_map(|body| authorizations("Scan", body))
        .collect();
    assert!(!requests.is_empty(), "nothing was sent");
    let member = HashMap::from([("aws:PrincipalTag/member", "1")]);
    let declared = PolicyBuilder::new(ARN)
        .entity(&Member::SCHEMA, Access::Read)
        .build()
        .unwrap()
        .document;
    let scoped = PolicyBuilder::new(ARN)
        .entity(&Member::SCHEMA, Access::ReadWrite)
        .scoped_to("id", "${aws:PrincipalTag/member}")
        .build()
        .unwrap()
        .document;
    let undeclared = PolicyBuilder::new(ARN)
        .entity(&Customer::SCHEMA, Access::ReadWrite)
        .entity(&Order::SCHEMA, Access::ReadWrite)
        .build()
        .unwrap()
        .document;
    for request in &requests {
        assert!(allowed(&declared, request, &member), "{request:?}");
        assert!(!allowed(&scoped, request, &member), "{request:?}");
        assert!(!allowed(&undeclared, request, &member), "{request:?}");
    }
}

/// What a user does with an entity of unique values: create it (with its
/// guards, once with an idempotency key), change a unique value, look it up
/// by value, read it in a batch and a transaction, delete it.
async fn a_users_session(db: ddb_runtime::Db, id: &'static str) {
    use crate::unique::User;
    let user = |email: &str| User {
        id: id.into(),
        email: email.into(),
        tenant: "acme".into(),
        handle: format!("handle-{id}"),
        name: "A user".into(),
    };
    let request = format!("signup-{id}");
    db.create(&user("first@x.io"))
        .idempotency_key(request.clone())
        .send()
        .await
        .unwrap();
    db.create(&user("first@x.io"))
        .idempotency_key(request)
        .send()
        .await
        .unwrap();
    let key = user("first@x.io").primary_key().unwrap();
    db.update(key.clone())
        .set(User::fields().email, "second@x.io")
        .send()
        .await
        .unwrap();
    db.get_unique(User::by_email(&"second@x.io".to_string()))
        .send()
        .await
        .unwrap()
        .expect("found by its new email");
    db.batch_get(vec![key.clone()]).await.unwrap();
    db.transact_get().get(key.clone()).send().await.unwrap();
    db.delete(key).send().await.unwrap();
}

/// Under a scope, every request of an entity with unique values and
/// idempotent creates is allowed its caller: the item in their partition,
/// and the guards, which the policy grants across callers (its `left_out`
/// says so). A request that names the caller's partition is denied to
/// every other caller; one of guards alone is not.
#[tokio::test]
async fn a_scoped_caller_is_allowed_their_guarded_writes_and_denied_anothers_item() {
    use crate::unique::{Accounts, User};
    let policy = PolicyBuilder::new(ARN)
        .entity(&User::SCHEMA, Access::ReadWrite)
        .scoped_to("id", "${aws:PrincipalTag/user_id}")
        .build()
        .unwrap();
    let targets = ["GetItem", "PutItem", "UpdateItem", "DeleteItem"];
    let mut targets = targets.to_vec();
    targets.extend(["BatchGetItem", "TransactWriteItems", "TransactGetItems"]);
    let requests = sent_to::<Accounts, _>(&targets, |db| a_users_session(db, "1")).await;
    let as_1 = HashMap::from([("aws:PrincipalTag/user_id", "1")]);
    let as_2 = HashMap::from([("aws:PrincipalTag/user_id", "2")]);
    let runs =
        |needs: &[Authorization], vars| needs.iter().all(|n| allowed(&policy.document, n, vars));
    let mut names_the_partition = 0;
    for (target, needs) in &requests {
        assert!(runs(needs, &as_1), "{target} denied its own: {needs:?}");
        let own_item = needs
            .iter()
            .any(|n| n.leading_keys.iter().any(|k| k.starts_with("USER#")));
        names_the_partition += usize::from(own_item);
        assert_eq!(
            runs(needs, &as_2),
            !own_item,
            "{target} as another caller: {needs:?}"
        );
    }
    // Writes of an entity with unique values go in transactions; a lookup
    // by value reads the guard, then the item.
    let sent: Vec<&str> = requests.iter().map(|(t, _)| t.as_str()).collect();
    for target in [
        "GetItem",
        "BatchGetItem",
        "TransactWriteItems",
        "TransactGetItems",
    ] {
        assert!(sent.contains(&target), "{target} never sent: {sent:?}");
    }
    assert!(names_the_partition >= 6, "{sent:?}");
    assert!(
        policy
            .left_out
            .iter()
            .any(|n| n.contains("granted across every caller")),
        "{:?}",
        policy.left_out
    );
}
