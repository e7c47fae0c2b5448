//! The commands that talk to DynamoDB: plan-sync, sync, check, backfill.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use ddb_runtime::schema::{self as tables, SyncPlan};
use ddb_runtime::schema::{Checkpoint, Progress};
use ddb_runtime::Db;
use ddb_runtime::Entity;
use ddb_runtime::Result;

use super::args::Command;
use super::offline::{show_plans, write_out};
use super::Cli;

type Outcome = std::result::Result<i32, String>;
type Report = Arc<dyn Fn(&Progress) + Send + Sync>;

/// How long `sync` waits for a table or an index to become ACTIVE.
const SYNC_TIMEOUT: Duration = Duration::from_secs(1800);

/// A backfill's settings from the command line.
pub(super) struct BackfillSettings {
    checkpoint: Option<Checkpoint>,
    segments: u32,
    items_per_second: Option<f64>,
    capacity_per_second: Option<f64>,
    report: Report,
}

pub(super) async fn backfill<E: Entity + Send + Sync + 'static>(
    db: Db,
    settings: BackfillSettings,
) -> Result<Progress> {
    // The operator reads what the run cost: every write asks for its
    // capacity, paced or not.
    let db = db.with_return_consumed_capacity();
    let mut backfill = db.backfill::<E>().segments(settings.segments);
    if let Some(checkpoint) = settings.checkpoint {
        backfill = backfill.resume(checkpoint);
    }
    if let Some(rate) = settings.items_per_second {
        backfill = backfill.items_per_second(rate);
    }
    if let Some(rate) = settings.capacity_per_second {
        backfill = backfill.capacity_per_second(rate);
    }
    let report = settings.report;
    backfill.on_progress(move |p| report(p)).send().await
}

pub(super) async fn run(
    cli: &Cli,
    command: Command,
    input: &mut (dyn BufRead + Send),
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> Outcome {
    // An entity named wrong is said before connecting.
    let named = match &command {
        Command::Backfill { entity, .. } => Some(cli.entity_named(entity)?),
        Command::Check {
            entity: Some(entity),
            ..
        } => Some(cli.entity_named(entity)?),
        _ => None,
    };
    let db = cli.db().await?;
    match command {
        Command::PlanSync { json } => show_plans(&plans(cli, &db).await?, json, out),
        Command::Sync { yes } => sync(cli, &db, yes, input, out, err).await,
        Command::Check { segments, json, .. } => check(cli, &db, named, segments, json, out).await,
        Command::Backfill {
            checkpoint,
            segments,
            items_per_second,
            capacity_per_second,
            json,
            ..
        } => {
            let known = named.expect("a backfill names its entity");
            let settings = Settings {
                checkpoint,
                segments,
                items_per_second,
                capacity_per_second,
            };
            run_backfill(known.backfill, db, settings, json, out).await
        }
        _ => unreachable!("the commands without DynamoDB run in `offline`"),
    }
}

async fn plans(cli: &Cli, db: &Db) -> std::result::Result<Vec<(String, SyncPlan)>, String> {
    let mut plans = Vec::new();
    for table in &cli.tables {
        let name = (table.name)(db);
        let plan = tables::plan_sync(db.client(), table.def, &name)
            .await
            .map_err(|e| e.to_string())?;
        plans.push((name, plan));
    }
    Ok(plans)
}

async fn sync(
    cli: &Cli,
    db: &Db,
    yes: bool,
    input: &mut (dyn BufRead + Send),
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> Outcome {
    let plans = plans(cli, db).await?;
    let pending = plans.iter().any(|(_, plan)| !plan.changes.is_empty());
    show_plans(&plans, false, out)?;
    if !pending {
        return Ok(0);
    }
    if !yes {
        let _ = write!(err, "apply the changes marked + ? [y/N] ");
        let _ = err.flush();
        let mut answer = String::new();
        input
            .read_line(&mut answer)
            .map_err(|e| format!("cannot read the answer: {e}"))?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            write_out(out, "nothing changed")?;
            return Ok(1);
        }
    }
    for table in &cli.tables {
        let name = (table.name)(db);
        tables::sync_table(db.client(), table.def, &name, SYNC_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
    }
    write_out(out, "applied")?;
    Ok(0)
}

async fn check(
    cli: &Cli,
    db: &Db,
    entity: Option<&super::KnownEntity>,
    segments: u32,
    json: bool,
    out: &mut (dyn Write + Send),
) -> Outcome {
    let checked: Vec<_> = match entity {
        Some(known) => vec![known],
        None => cli.entities.iter().collect(),
    };
    let mut found = Vec::new();
    for known in checked {
        let violations = (known.check)(db.clone(), segments)
            .await
            .map_err(|e| e.to_string())?;
        found.push((known.schema.rust_name, violations));
    }
    let any = found.iter().any(|(_, v)| !v.is_empty());
    let text = if json {
        let entities: Vec<_> = found
            .iter()
            .map(|(entity, violations)| {
                let violations: Vec<_> = violations
                    .iter()
                    .map(|v| json!({ "key": v.key, "attribute": v.attribute, "reason": v.reason }))
                    .collect();
                json!({ "entity": entity, "violations": violations })
            })
            .collect();
        serde_json::to_string_pretty(&json!({ "entities": entities })).expect("JSON serializes")
    } else {
        let mut text = String::new();
        for (entity, violations) in &found {
            text.push_str(&format!(
                "{entity}: {} item(s) no index can hold\n",
                violations.len()
            ));
            for violation in violations {
                text.push_str(&format!("  {violation}\n"));
            }
        }
        text
    };
    write_out(out, &text)?;
    Ok(i32::from(any))
}

struct Settings {
    checkpoint: Option<PathBuf>,
    segments: u32,
    items_per_second: Option<f64>,
    capacity_per_second: Option<f64>,
}

async fn run_backfill(
    backfill: fn(Db, BackfillSettings) -> super::Boxed<'static, Result<Progress>>,
    db: Db,
    settings: Settings,
    json: bool,
    out: &mut (dyn Write + Send),
) -> Outcome {
    let resumed = match &settings.checkpoint {
        Some(path) if path.exists() => Some(read_checkpoint(path)?),
        _ => None,
    };
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {bar:30} {pos}/{len} scanned, {msg} [{elapsed_precise}]",
        )
        .expect("the template is valid"),
    );
    let saving = Arc::new(Mutex::new(None::<String>));
    let report: Report = {
        let (bar, path, saving) = (bar.clone(), settings.checkpoint.clone(), saving.clone());
        Arc::new(move |progress: &Progress| {
            let total = progress
                .table_items
                .unwrap_or(progress.scanned)
                .max(progress.scanned);
            bar.set_length(total);
            bar.set_position(progress.scanned);
            bar.set_message(format!("{} written", progress.updated));
            if let Some(path) = &path {
                if let Err(e) = save_checkpoint(path, &progress.checkpoint) {
                    saving.lock().expect("not poisoned").get_or_insert(e);
                }
            }
        })
    };
    let settings_for_run = BackfillSettings {
        checkpoint: resumed,
        segments: settings.segments,
        items_per_second: settings.items_per_second,
        capacity_per_second: settings.capacity_per_second,
        report,
    };
    let outcome = backfill(db, settings_for_run).await;
    bar.finish_and_clear();
    let progress = outcome.map_err(|e| match (&settings.checkpoint, &e) {
        (Some(path), ddb_runtime::Error::InvalidCursor { .. }) => {
            format!(
                "the checkpoint {} cannot be resumed from: {e}",
                path.display()
            )
        }
        _ => e.to_string(),
    })?;
    let unsaved = saving.lock().expect("not poisoned").take();
    if let (Some(path), true) = (&settings.checkpoint, progress.is_done()) {
        let _ = std::fs::remove_file(path);
    }
    let text = if json {
        serde_json::to_string_pretty(&json!({
            "scanned": progress.scanned,
            "matched": progress.matched,
            "updated": progress.updated,
            "skipped": progress.skipped,
            "guards_written": progress.guards_written,
            "retried": progress.retried,
            "failed": progress.failed,
            "capacity_units": progress.consumed_capacity.total,
            "done": progress.is_done(),
        }))
        .expect("JSON serializes")
    } else {
        format!(
            "scanned {}, {} of the entity: {} written, {} already right, {} guard(s) put, {} failed; {:.1} capacity units",
            progress.scanned,
            progress.matched,
            progress.updated,
            progress.skipped,
            progress.guards_written,
            progress.failed,
            progress.consumed_capacity.total
        )
    };
    write_out(out, &text)?;
    match unsaved {
        // The progress is shown; where to resume from is not saved.
        Some(error) if !progress.is_done() => Err(error),
        _ => Ok(i32::from(progress.failed > 0)),
    }
}

fn read_checkpoint(path: &Path) -> std::result::Result<Checkpoint, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the checkpoint {}: {e}", path.display()))?;
    // A checkpoint is checked when the backfill resumes from it.
    let parsed: std::result::Result<Checkpoint, std::convert::Infallible> = text.trim().parse();
    Ok(parsed.unwrap_or_else(|never| match never {}))
}

/// Writes the checkpoint beside `path`, then renames it over `path`: a run
/// stopped mid-write leaves the previous checkpoint whole.
fn save_checkpoint(path: &Path, checkpoint: &Checkpoint) -> std::result::Result<(), String> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, checkpoint.to_string())
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| format!("cannot save the checkpoint {}: {e}", path.display()))
}
