//! The store's command line, driven as its binary runs it: every
//! subcommand against the in-process server, each read-only one checked
//! against the library call it prints, exit codes CI can act on.

use ddb_cli::{run, Cli, Io};
use ddb_examples::single_table::{self as store, Ecommerce};
use ddb_runtime::{Db, Table};
use ddb_tools::Deployment;
use serde_json::Value;

/// What a run printed and returned.
struct Ran {
    code: i32,
    out: String,
    err: String,
}

async fn ran_with_input(cli: &Cli, args: &[&str], input: &str) -> Ran {
    let mut input = std::io::Cursor::new(input.as_bytes().to_vec());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let io = Io {
        input: &mut input,
        out: &mut out,
        err: &mut err,
    };
    let argv = std::iter::once("store_cli").chain(args.iter().copied());
    let code = run(cli, argv, io).await;
    Ran {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
    }
}

async fn ran(cli: &Cli, args: &[&str]) -> Ran {
    ran_with_input(cli, args, "").await
}

/// The store's command line on a table of this test's own, not yet
/// created.
fn connected() -> (Cli, Db) {
    let name = ddb_local::unique_table_name("Ecommerce");
    let db = Db::new(ddb_tests::client()).with_table_name::<Ecommerce>(name);
    let handed = db.clone();
    let cli = ddb_examples::cli::design().connect(move || {
        let db = handed.clone();
        async move { Ok(db) }
    });
    (cli, db)
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn help_lists_every_command() {
    let help = ran(&ddb_examples::cli::design(), &["--help"]).await;
    assert_eq!(help.code, 0, "{}", help.err);
    for command in [
        "report",
        "iam",
        "cloudformation",
        "terraform",
        "workbench",
        "drift",
        "plan-sync",
        "sync",
        "check",
        "backfill",
    ] {
        assert!(
            help.out.contains(&format!("  {command} ")),
            "{command} in\n{}",
            help.out
        );
    }
    let backfill = ran(&ddb_examples::cli::design(), &["backfill", "--help"]).await;
    assert!(backfill.out.contains("--checkpoint"), "{}", backfill.out);
    assert!(
        backfill.out.contains("--items-per-second"),
        "{}",
        backfill.out
    );
}

#[tokio::test]
async fn a_wrong_command_line_exits_2_with_what_is_wrong() {
    let cli = ddb_examples::cli::design();
    let unknown = ran(&cli, &["deploy"]).await;
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.err.contains("unrecognized subcommand 'deploy'"),
        "{}",
        unknown.err
    );
    let no_entity = ran(&cli, &["iam", "--read-only", "Invoice"]).await;
    assert_eq!(no_entity.code, 2);
    assert!(
        no_entity.err.contains("no entity `Invoice`"),
        "{}",
        no_entity.err
    );
    let capacity = ran(&cli, &["terraform", "--provisioned", "5"]).await;
    assert_eq!(capacity.code, 2);
    assert!(capacity.err.contains("READ,WRITE"), "{}", capacity.err);
}

#[tokio::test]
async fn report_prints_the_access_patterns_and_their_cost() {
    let report = ran(&ddb_examples::cli::design(), &["report"]).await;
    assert_eq!(report.code, 0, "{}", report.err);
    assert!(report
        .out
        .starts_with(&ddb_tools::access_pattern_report(&store::ENTITIES)));
    assert!(
        report.out.contains("| Entity | Item size | Write (WCU)"),
        "{}",
        report.out
    );
}

#[tokio::test]
async fn iam_prints_the_policy_with_read_only_entities_and_a_scope() {
    let cli = ddb_examples::cli::design();
    let full = ran(
        &cli,
        &[
            "iam",
            "--table-arn",
            "Ecommerce=arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce",
        ],
    )
    .await;
    assert_eq!(full.code, 0, "{}", full.err);
    let document = json(&full.out);
    assert_eq!(document["Version"], "2012-10-17");
    let actions = document.to_string();
    assert!(actions.contains("dynamodb:PutItem"));
    assert!(actions.contains("arn:aws:dynamodb:eu-west-1:123456789012:table/Ecommerce"));

    let scoped = ran(
        &cli,
        &[
            "iam",
            "--read-only",
            "Customer",
            "--scoped-to",
            "customer_id=${aws:PrincipalTag/customer_id}",
        ],
    )
    .await;
    assert_eq!(scoped.code, 0, "{}", scoped.err);
    let statements = json(&scoped.out)["Statement"].clone();
    let customer = &statements[0];
    assert!(
        !customer["Action"].to_string().contains("PutItem"),
        "{customer}"
    );
    assert!(customer
        .to_string()
        .contains("CUSTOMER#${aws:PrincipalTag/customer_id}"));
    assert!(scoped.err.contains("left out:"), "{}", scoped.err);
}

/// Over several tables, a scope grants in each table whose entities hold
/// its field in their partition key and says it grants nothing in the
/// others; a scope that grants nothing anywhere is an error. No message
/// quotes the scope's value.
#[tokio::test]
async fn iam_scopes_each_table_where_the_field_is_a_partition_key() {
    use ddb_examples::separate_tables as tables;
    let cli = Cli::new("Separate tables")
        .entity::<tables::Customer>()
        .entity::<tables::Order>()
        .entity::<tables::OrderItem>();
    let scoped = ran(
        &cli,
        &[
            "iam",
            "--scoped-to",
            "customer_id=${aws:PrincipalTag/customer_id}",
        ],
    )
    .await;
    assert_eq!(scoped.code, 0, "{}", scoped.err);
    let statements = json(&scoped.out)["Statement"].clone();
    let resources = statements.to_string();
    assert!(resources.contains("table/Customers"), "{resources}");
    assert!(!resources.contains("table/OrderItems"), "{resources}");
    assert!(
        scoped.err.contains(
            "left out: table OrderItems: no entity of it has `customer_id` in its table partition key"
        ),
        "{}",
        scoped.err
    );

    let nowhere = ran(&cli, &["iam", "--scoped-to", "product_id=P-secret-1"]).await;
    assert_ne!(nowhere.code, 0, "{}", nowhere.out);
    assert!(
        nowhere
            .err
            .contains("the policy grants nothing in any table"),
        "{}",
        nowhere.err
    );
    let misspelt = ran(&cli, &["iam", "--scoped-to", "customerid=C-secret-2"]).await;
    assert_ne!(misspelt.code, 0);
    assert!(
        misspelt.err.contains("no entity has a field `customerid`"),
        "{}",
        misspelt.err
    );
    for ran in [&scoped, &nowhere, &misspelt] {
        assert!(!ran.err.contains("secret"), "{}", ran.err);
    }
}

/// The command's policy covers every table, so it may outgrow what IAM
/// takes: above a managed policy's 6,144 characters it says so, above the
/// 10,240 of a role's inline policies it is refused, its value unquoted.
#[tokio::test]
async fn iam_says_when_the_policy_outgrows_what_iam_takes() {
    use ddb_examples::separate_tables as tables;
    let cli = Cli::new("Separate tables")
        .entity::<tables::Customer>()
        .entity::<tables::Order>();
    let scoped = |length: usize| {
        let scope = format!("customer_id={}", "7".repeat(length));
        let cli = &cli;
        async move { ran(cli, &["iam", "--scoped-to", &scope]).await }
    };
    let size = |ran: &Ran| json(&ran.out).to_string().chars().count();
    // Each character of the value is written once per scoped pattern.
    let (one, two) = (scoped(1).await, scoped(2).await);
    let (base, per_character) = (size(&one), size(&two) - size(&one));
    // The shortest value that makes the policy at least `target` long.
    let length_for = |target: usize| (target - base).div_ceil(per_character) + 1;

    let managed_too_small = scoped(length_for(8_000)).await;
    assert_eq!(managed_too_small.code, 0, "{}", managed_too_small.err);
    let size = size(&managed_too_small);
    assert!((6_145..=10_240).contains(&size), "{size}");
    assert!(
        managed_too_small.err.contains(&format!(
            "the policy is {size} characters, more than the 6144 a managed policy holds"
        )),
        "{}",
        managed_too_small.err
    );
    assert!(!one.err.contains("managed policy"), "{}", one.err);

    let too_large = scoped(length_for(10_241)).await;
    assert_ne!(too_large.code, 0, "{}", too_large.out);
    assert!(
        too_large.err.contains("more than the 10240 IAM takes"),
        "{}",
        too_large.err
    );
    assert!(!too_large.err.contains("7777"), "{}", too_large.err);
}

#[tokio::test]
async fn the_exports_print_what_the_library_generates() {
    let cli = ddb_examples::cli::design();
    let tables = [&Ecommerce::DEF];
    let cfn = ran(&cli, &["cloudformation"]).await;
    assert_eq!(
        json(&cfn.out),
        ddb_tools::cloudformation(&tables, &Deployment::default())
    );
    let yaml = ran(&cli, &["cloudformation", "--yaml", "--deletion-protection"]).await;
    let protected = Deployment::default().deletion_protection(true);
    assert_eq!(
        yaml.out,
        ddb_tools::cloudformation_yaml(&tables, &protected)
    );
    let tf = ran(
        &cli,
        &[
            "terraform",
            "--provisioned",
            "5,2",
            "--no-point-in-time-recovery",
        ],
    )
    .await;
    let provisioned = Deployment::default()
        .billing(ddb_tools::Billing::Provisioned { read: 5, write: 2 })
        .point_in_time_recovery(false);
    assert_eq!(json(&tf.out), ddb_tools::terraform(&tables, &provisioned));
    let workbench = ran(&cli, &["workbench"]).await;
    let model = json(&workbench.out);
    assert_eq!(model["ModelName"], "Online store");
    assert_eq!(
        model["DataModel"][0]["TableFacets"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn drift_exits_1_on_drift_and_0_on_a_template_in_line() {
    let cli = ddb_examples::cli::design();
    let dir = std::env::temp_dir().join(format!("ddb-cli-drift-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let generated = ddb_tools::cloudformation_yaml(&[&Ecommerce::DEF], &Deployment::default());
    let in_line = dir.join("in_line.yaml");
    std::fs::write(&in_line, &generated).unwrap();
    let same = ran(&cli, &["drift", in_line.to_str().unwrap()]).await;
    assert_eq!(same.code, 0, "{}{}", same.out, same.err);
    assert_eq!(same.out, "Ecommerce: in line with the code\n");

    let mut edited = ddb_tools::terraform(&[&Ecommerce::DEF], &Deployment::default());
    let table = &mut edited["resource"]["aws_dynamodb_table"]["Ecommerce"];
    table["global_secondary_index"]
        .as_array_mut()
        .unwrap()
        .remove(1);
    let drifted = dir.join("drifted.tf.json");
    std::fs::write(&drifted, edited.to_string()).unwrap();
    let found = ran(&cli, &["drift", drifted.to_str().unwrap()]).await;
    assert_eq!(found.code, 1);
    assert_eq!(found.out, "Ecommerce:\n+ add global index GSI2\n");
    let as_json = ran(&cli, &["drift", "--json", drifted.to_str().unwrap()]).await;
    let report = json(&as_json.out);
    assert_eq!(report["in_line"], false);
    assert_eq!(report["tables"][0]["changes"][0], "add global index GSI2");

    let missing = ran(&cli, &["drift", dir.join("none.json").to_str().unwrap()]).await;
    assert_eq!(missing.code, 2);
    assert!(missing.err.contains("cannot read"), "{}", missing.err);
}

#[tokio::test]
async fn plan_sync_and_sync_bring_the_table_in_line_after_a_confirmation() {
    let (cli, db) = connected();
    let plan = ran(&cli, &["plan-sync", "--json"]).await;
    assert_eq!(plan.code, 1, "{}", plan.err);
    assert_eq!(
        json(&plan.out)["tables"][0]["changes"][0],
        "create the table"
    );

    let declined = ran_with_input(&cli, &["sync"], "n\n").await;
    assert_eq!(declined.code, 1);
    assert!(
        declined.out.ends_with("nothing changed\n"),
        "{}",
        declined.out
    );
    assert!(declined.err.contains("[y/N]"), "{}", declined.err);
    assert!(ran(&cli, &["plan-sync"])
        .await
        .out
        .contains("+ create the table"));

    let applied = ran_with_input(&cli, &["sync"], "y\n").await;
    assert_eq!(applied.code, 0, "{}", applied.err);
    let described = db
        .client()
        .describe_table()
        .table_name(db.table_name::<Ecommerce>())
        .send()
        .await
        .unwrap();
    assert_eq!(
        described.table().unwrap().global_secondary_indexes().len(),
        2
    );
    let after = ran(&cli, &["plan-sync"]).await;
    assert_eq!(after.code, 0, "{}", after.out);
    assert!(after.out.ends_with("in line with the code\n"));
    let again = ran(&cli, &["sync", "--yes"]).await;
    assert_eq!(again.code, 0);
}

#[tokio::test]
async fn check_finds_items_an_index_cannot_hold_and_backfill_writes_what_items_lack() {
    let (cli, db) = connected();
    assert_eq!(ran(&cli, &["sync", "--yes"]).await.code, 0);
    store::load(&db).await.unwrap();
    let clean = ran(&cli, &["check", "Order", "--json"]).await;
    assert_eq!(clean.code, 0, "{}{}", clean.out, clean.err);
    assert_eq!(
        json(&clean.out)["entities"][0]["violations"],
        serde_json::json!([])
    );

    // Orders stored before the open-orders index: its attributes removed.
    let open = store::open_orders(&db).await.unwrap().items;
    assert!(!open.is_empty());
    for order in &open {
        let key = store::Order::key(&order.customer_id, &order.placed_at, &order.order_id).unwrap();
        db.client()
            .update_item()
            .table_name(db.table_name::<Ecommerce>())
            .set_key(Some(key.to_item()))
            .update_expression("REMOVE GSI2PK, GSI2SK")
            .send()
            .await
            .unwrap();
    }
    assert!(store::open_orders(&db).await.unwrap().items.is_empty());
    let dir = std::env::temp_dir().join(format!("ddb-cli-backfill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("orders.checkpoint");
    let done = ran(
        &cli,
        &[
            "backfill",
            "Order",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--segments",
            "2",
            "--items-per-second",
            "10000",
            "--json",
        ],
    )
    .await;
    assert_eq!(done.code, 0, "{}{}", done.out, done.err);
    let progress = json(&done.out);
    assert_eq!(progress["updated"], open.len());
    assert_eq!(progress["done"], true);
    // The run reports what it cost, its writes included: one unit or more
    // each over what its scans cost alone (a run with nothing to write),
    // where the engine reports capacity by item size.
    if ddb_tests::engine::has(ddb_tests::engine::Behaviour::CapacityByItemSize) {
        let again = ran(&cli, &["backfill", "Order", "--segments", "2", "--json"]).await;
        let scans = json(&again.out)["capacity_units"].as_f64().unwrap();
        let units = progress["capacity_units"].as_f64().unwrap();
        assert!(units >= scans + open.len() as f64, "{units} {scans}");
    }
    assert!(
        !checkpoint.exists(),
        "a finished backfill leaves no checkpoint"
    );
    assert_eq!(
        store::open_orders(&db).await.unwrap().items.len(),
        open.len()
    );

    // An empty order id cannot be a key segment: no index can hold the item.
    let key =
        store::Order::key(&open[0].customer_id, &open[0].placed_at, &open[0].order_id).unwrap();
    db.client()
        .update_item()
        .table_name(db.table_name::<Ecommerce>())
        .set_key(Some(key.to_item()))
        .update_expression("SET order_id = :empty")
        .expression_attribute_values(
            ":empty",
            aws_sdk_dynamodb::types::AttributeValue::S(String::new()),
        )
        .send()
        .await
        .unwrap();
    let found = ran(&cli, &["check"]).await;
    assert_eq!(found.code, 1, "{}{}", found.out, found.err);
    assert!(
        found.out.contains("Order: 1 item(s) no index can hold"),
        "{}",
        found.out
    );
    assert!(found.out.contains("order_id"), "{}", found.out);
}

#[tokio::test]
async fn backfill_resumes_from_its_checkpoint_file() {
    let (cli, db) = connected();
    assert_eq!(ran(&cli, &["sync", "--yes"]).await.code, 0);
    store::load(&db).await.unwrap();
    let dir = std::env::temp_dir().join(format!("ddb-cli-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("orders.checkpoint");
    std::fs::write(&checkpoint, "not a checkpoint").unwrap();
    let refused = ran(
        &cli,
        &[
            "backfill",
            "Order",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(refused.code, 2, "{}", refused.out);
    assert!(
        checkpoint.exists(),
        "a refused checkpoint is kept for a person to look at"
    );

    // A finished run's checkpoint resumes to nothing left to do.
    let finished = db.backfill::<store::Order>().send().await.unwrap();
    std::fs::write(&checkpoint, finished.checkpoint.to_string()).unwrap();
    let resumed = ran(
        &cli,
        &[
            "backfill",
            "Order",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--json",
        ],
    )
    .await;
    assert_eq!(resumed.code, 0, "{}{}", resumed.out, resumed.err);
    let progress = json(&resumed.out);
    assert_eq!(progress["updated"], 0);
    assert_eq!(progress["scanned"], finished.scanned);
}

#[tokio::test]
async fn commands_without_a_connection_say_how_to_give_one() {
    let plan = ran(&ddb_examples::cli::design(), &["plan-sync"]).await;
    assert_eq!(plan.code, 2);
    assert!(plan.err.contains("Cli::connect"), "{}", plan.err);
}
