//! The commands that read the declarations only: report, IAM, exports,
//! drift.

use std::io::Write;

use serde_json::{json, Value};

use ddb_runtime::model::{EntitySchema, TableDef};
use ddb_runtime::schema::SyncPlan;
use ddb_tools::iam::{
    Access, Policy, PolicyBuilder, PolicyError, MANAGED_POLICY_LIMIT, ROLE_INLINE_POLICY_LIMIT,
};
use ddb_tools::{self as tables, Deployment, Template};

use super::args::{Command, TableArgs};
use super::Cli;

type Outcome = Result<i32, String>;

pub(super) fn run(
    cli: &Cli,
    command: Command,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Outcome {
    let text = match command {
        Command::Report { page } => report(cli, page as usize),
        Command::Iam {
            table_arns,
            read_only,
            scoped_to,
            maintenance,
        } => {
            let arns = arns(cli, &table_arns)?;
            if maintenance {
                return maintenance_iam(&arns, out, err);
            }
            return iam(cli, &arns, &read_only, scoped_to.as_deref(), out, err);
        }
        Command::Cloudformation {
            yaml,
            tables,
            deployment,
        } => {
            let (chosen, names) = chosen(cli, &tables)?;
            let deployment = deployment.deployment(&names);
            if yaml {
                tables::cloudformation_yaml(&chosen, &deployment)
            } else {
                pretty(&tables::cloudformation(&chosen, &deployment))
            }
        }
        Command::Terraform { tables, deployment } => {
            let (chosen, names) = chosen(cli, &tables)?;
            pretty(&tables::terraform(&chosen, &deployment.deployment(&names)))
        }
        Command::Workbench => {
            let entities: Vec<&EntitySchema> = cli.entities.iter().map(|e| e.schema).collect();
            pretty(&tables::workbench(&cli.name, &entities, &cli.samples))
        }
        Command::Drift {
            template,
            tables,
            json,
        } => {
            let (chosen, names) = chosen(cli, &tables)?;
            let text = std::fs::read_to_string(&template)
                .map_err(|e| format!("cannot read {}: {e}", template.display()))?;
            let template = Template::parse(&text).map_err(|e| e.to_string())?;
            let deployment = names
                .iter()
                .fold(Deployment::default(), |d, (declared, physical)| {
                    d.table_name(declared.clone(), physical.clone())
                });
            let mut plans = Vec::new();
            for table in &chosen {
                let name = deployment.name_of(table);
                let plan = tables::drift(&template, table, name).map_err(|e| e.to_string())?;
                plans.push((name.to_owned(), plan));
            }
            return show_plans(&plans, json, out);
        }
        _ => unreachable!("the commands that talk to DynamoDB run in `live`"),
    };
    write_out(out, &text)?;
    Ok(0)
}

/// The physical names of tables, as `--table-name` pairs give them.
type Names = Vec<(String, String)>;

/// The tables `--table` names (every table without it), and the physical
/// names `--table-name` gives, each checked against the design.
fn chosen<'c>(cli: &'c Cli, args: &TableArgs) -> Result<(Vec<&'c TableDef>, Names), String> {
    let declared = |name: &str| cli.tables.iter().any(|t| t.def.name == name);
    let known = || {
        let names: Vec<&str> = cli.tables.iter().map(|t| t.def.name).collect();
        format!("the tables are {}", names.join(", "))
    };
    if let Some(name) = args.only.iter().find(|n| !declared(n)) {
        return Err(format!("--table {name}: no such table; {}", known()));
    }
    let mut names = Vec::new();
    for pair in &args.names {
        let (table, physical) = pair
            .split_once('=')
            .filter(|(t, p)| !t.is_empty() && !p.is_empty())
            .ok_or_else(|| format!("--table-name {pair}: give DECLARED=PHYSICAL"))?;
        if !declared(table) {
            return Err(format!("--table-name {pair}: no such table; {}", known()));
        }
        names.push((table.to_owned(), physical.to_owned()));
    }
    let chosen: Vec<&TableDef> = cli
        .tables
        .iter()
        .map(|t| t.def)
        .filter(|t| args.only.is_empty() || args.only.iter().any(|n| n == t.name))
        .collect();
    if chosen.is_empty() {
        return Err("the design has no table: add its entities with Cli::entity".to_owned());
    }
    Ok((chosen, names))
}

pub(super) fn write_out(out: &mut dyn Write, text: &str) -> Result<(), String> {
    out.write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .map_err(|e| format!("cannot write the output: {e}"))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value serializes")
}

fn report(cli: &Cli, page: usize) -> String {
    let entities: Vec<&EntitySchema> = cli.entities.iter().map(|e| e.schema).collect();
    let mut text = tables::access_pattern_report(&entities);
    if !cli.samples.is_empty() {
        text.push('\n');
        text.push_str(&tables::cost::cost_report(&cli.samples, page));
    }
    text
}

/// Each table of the design and its ARN: as `--table-arn TABLE=ARN` gives
/// it, or `arn:aws:dynamodb:*:*:table/TABLE`.
fn arns(cli: &Cli, table_arns: &[String]) -> Result<Vec<(&'static str, String)>, String> {
    let mut given: Vec<(&str, &str)> = Vec::new();
    for pair in table_arns {
        let (table, arn) = pair
            .split_once('=')
            .ok_or_else(|| format!("--table-arn {pair}: give TABLE=ARN"))?;
        if !cli.tables.iter().any(|t| t.def.name == table) {
            return Err(format!(
                "--table-arn {pair}: no table {table} in the design"
            ));
        }
        given.push((table, arn));
    }
    let arn = |name: &str| {
        given
            .iter()
            .find(|(t, _)| *t == name)
            .map_or(format!("arn:aws:dynamodb:*:*:table/{name}"), |(_, a)| {
                (*a).to_owned()
            })
    };
    Ok(cli
        .tables
        .iter()
        .map(|t| (t.def.name, arn(t.def.name)))
        .collect())
}

/// The maintenance policy of every table.
fn maintenance_iam(arns: &[(&str, String)], out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let arns: Vec<&str> = arns.iter().map(|(_, arn)| arn.as_str()).collect();
    let policy = ddb_tools::iam::maintenance_policy(&arns);
    for note in &policy.left_out {
        let _ = writeln!(err, "left out: {note}");
    }
    write_out(out, &pretty(&policy.document))?;
    Ok(0)
}

/// One policy for every table's entities: each table's statements, on its
/// ARN.
fn iam(
    cli: &Cli,
    arns: &[(&str, String)],
    read_only: &[String],
    scoped_to: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Outcome {
    for name in read_only {
        cli.entity_named(name)
            .map_err(|e| format!("--read-only {name}: {e}"))?;
    }
    let scope = scoped_to.map(|s| scope(cli, s)).transpose()?;
    let mut policies = Vec::new();
    for (name, arn) in arns {
        if let Some(policy) = table_policy(cli, (name, arn), read_only, scope.as_ref(), err)? {
            policies.push(policy);
        }
    }
    let policy = Policy::merged(&policies).map_err(|refused| match refused {
        PolicyError::NoEntity => "iam: the policy grants nothing in any table".to_owned(),
        refused => format!("iam: {refused}"),
    })?;
    for note in &policy.left_out {
        let _ = writeln!(err, "left out: {note}");
    }
    note_size(&policy, err);
    write_out(out, &pretty(&policy.document))?;
    Ok(0)
}

/// Says on `err` when a policy is larger than a managed policy holds.
fn note_size(policy: &Policy, err: &mut dyn Write) {
    let size = policy.size();
    if size > MANAGED_POLICY_LIMIT {
        let _ = writeln!(
            err,
            "note: the policy is {size} characters, more than the {MANAGED_POLICY_LIMIT} a \
             managed policy holds: attach it inline to a role (at most \
             {ROLE_INLINE_POLICY_LIMIT} for all its inline policies), or split it with \
             `ddb_tools::iam::PolicyBuilder`"
        );
    }
}

/// The policy of table `name` (at `arn`) for the design's entities stored
/// in it; `None`, said on `err`, when it grants nothing there: no entity is
/// stored in it, or the scope's field is in none of their partition keys.
fn table_policy(
    cli: &Cli,
    (name, arn): (&str, &str),
    read_only: &[String],
    scope: Option<&(&'static str, String)>,
    err: &mut dyn Write,
) -> Result<Option<Policy>, String> {
    let mut builder = PolicyBuilder::new(arn);
    for entity in cli.entities.iter().filter(|e| e.schema.table.name == name) {
        let named = |n: &String| *n == entity.schema.rust_name || *n == entity.schema.entity_type;
        let access = if read_only.iter().any(named) {
            Access::Read
        } else {
            Access::ReadWrite
        };
        builder = builder.entity(entity.schema, access);
    }
    if let Some((field, value)) = scope {
        builder = builder.scoped_to(field, value.clone());
    }
    match builder.build() {
        Ok(policy) => Ok(Some(policy)),
        Err(PolicyError::NoEntity) => {
            let _ = writeln!(err, "left out: table {name}: no entity is stored in it");
            Ok(None)
        }
        Err(PolicyError::ScopeGrantsNothing { field }) => {
            let _ = writeln!(
                err,
                "left out: table {name}: no entity of it has `{field}` in its table partition \
                 key, so the scope grants nothing there"
            );
            Ok(None)
        }
        Err(refused) => Err(format!("iam: {refused}")),
    }
}

/// `field=value`, the field one of the design's (its `'static` name). An
/// error names the field, never the value.
fn scope(cli: &Cli, text: &str) -> Result<(&'static str, String), String> {
    let (field, value) = text
        .split_once('=')
        .ok_or("--scoped-to: give FIELD=VALUE")?;
    let known = cli
        .entities
        .iter()
        .flat_map(|e| e.schema.fields.iter())
        .find(|f| f.name == field)
        .ok_or_else(|| format!("--scoped-to {field}=...: no entity has a field `{field}`"))?;
    Ok((known.name, value.to_owned()))
}

/// The plans of `plans` (table name, plan), as text or JSON; 1 when any
/// table differs.
pub(super) fn show_plans(plans: &[(String, SyncPlan)], json: bool, out: &mut dyn Write) -> Outcome {
    let differs = plans.iter().any(|(_, plan)| !plan.is_empty());
    let text = if json {
        let tables: Vec<Value> = plans
            .iter()
            .map(|(table, plan)| {
                let changes: Vec<String> = plan.changes.iter().map(ToString::to_string).collect();
                json!({ "table": table, "changes": changes, "differences": plan.differences })
            })
            .collect();
        pretty(&json!({ "in_line": !differs, "tables": tables }))
    } else {
        let mut text = String::new();
        for (table, plan) in plans {
            if plan.is_empty() {
                text.push_str(&format!("{table}: in line with the code\n"));
            } else {
                text.push_str(&format!("{table}:\n{plan}"));
            }
        }
        text
    };
    write_out(out, &text)?;
    Ok(i32::from(differs))
}

impl Cli {
    pub(super) fn entity_names(&self) -> String {
        let names: Vec<&str> = self.entities.iter().map(|e| e.schema.rust_name).collect();
        format!("the entities are {}", names.join(", "))
    }
}
