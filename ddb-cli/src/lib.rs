//! A command line compiled with the application's own types: the schema
//! lives in the code, so the tool that reports on it, exports it and
//! applies it is built from the same declarations.
//!
//! A crate adds a tiny binary, `src/bin/ddb.rs`:
//!
//! ```no_run
//! # #[derive(ddb_runtime::Table)]
//! # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
//! # struct Ecommerce;
//! # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
//! # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
//! # struct Customer { customer_id: String }
//! use ddb_cli::Cli;
//!
//! #[tokio::main]
//! async fn main() {
//!     let cli = Cli::new("store")
//!         .entity::<Customer>()
//!         .connect(|| async {
//!             // However the service builds its client (aws-config, an endpoint, ...).
//!             let config = aws_sdk_dynamodb::Config::builder().build();
//!             Ok(ddb_runtime::Db::new(aws_sdk_dynamodb::Client::from_conf(config)))
//!         });
//!     ddb_cli::run_cli(cli).await
//! }
//! ```
//!
//! and runs `cargo run --bin ddb -- <command>`:
//!
//! | Command | What it does | Exit code |
//! |---|---|---|
//! | `report` | the access patterns, and the cost of each write and page read when the CLI has samples | 0 |
//! | `iam` | the least-privilege IAM policy (`--read-only Order`, `--scoped-to customer_id='${aws:PrincipalTag/customer_id}'`) | 0 |
//! | `cloudformation` | the CloudFormation template, JSON or `--yaml` | 0 |
//! | `terraform` | the Terraform configuration (`.tf.json`) | 0 |
//! | `workbench` | the NoSQL Workbench model | 0 |
//! | `drift <template>` | what a template declares that the code does not | 1 on drift |
//! | `plan-sync` | what `sync` would change in the tables | 1 when they differ |
//! | `sync` | creates, adds indexes, turns on time to live and streams, after a confirmation (`--yes` without) | 0; 1 when declined |
//! | `check [entity]` | stored items an index cannot hold, without writing | 1 when found |
//! | `backfill <entity>` | writes the index attributes stored items lack, with a progress bar, a `--checkpoint` file to resume from and a rate limit | 0; 1 when items failed |
//!
//! `--json` gives machine-readable output where a pipeline reads it;
//! errors go to standard error with exit code 2. The exports and `drift`
//! take `--table NAME` (repeated) to cover some tables only, and
//! `--table-name DECLARED=PHYSICAL` for a stage's table names.

mod args;
mod live;
mod offline;

use std::future::Future;
use std::io::{BufRead, Write};
use std::pin::Pin;

use ddb_runtime::model::{EntitySchema, TableDef};
use ddb_runtime::schema::{IndexKeyViolation, Progress};
use ddb_runtime::{Db, Entity, Item, Result, Table};

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
type Connect = Box<dyn Fn() -> Boxed<'static, Result<Db, String>> + Send + Sync>;

/// A table the command line knows: its declaration, and its physical name
/// in a `Db`.
struct KnownTable {
    def: &'static TableDef,
    name: fn(&Db) -> String,
}

/// An entity the command line knows: its schema, and its backfill and
/// check, typed.
struct KnownEntity {
    schema: &'static EntitySchema,
    backfill: fn(Db, live::BackfillSettings) -> Boxed<'static, Result<Progress>>,
    check: fn(Db, u32) -> Boxed<'static, Result<Vec<IndexKeyViolation>>>,
}

/// The application's design, as the command line sees it: its entities and
/// tables, sample items for the cost report and the Workbench model, and
/// how to reach DynamoDB.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// use ddb_cli::Cli;
/// let cli = Cli::new("store")
///     .entity::<Customer>()
///     .sample(&Customer { customer_id: "123".into() })?;
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
pub struct Cli {
    name: String,
    tables: Vec<KnownTable>,
    entities: Vec<KnownEntity>,
    samples: Vec<(&'static EntitySchema, Item)>,
    connect: Option<Connect>,
}

impl Cli {
    /// A command line for the design `name` (the Workbench model's name).
    pub fn new(name: impl Into<String>) -> Self {
        Cli {
            name: name.into(),
            tables: Vec::new(),
            entities: Vec::new(),
            samples: Vec::new(),
            connect: None,
        }
    }

    /// Adds table `T` (an entity's table is added with it).
    pub fn table<T: Table + 'static>(mut self) -> Self {
        if !self.tables.iter().any(|t| t.def.name == T::DEF.name) {
            self.tables.push(KnownTable {
                def: &T::DEF,
                name: |db| db.table_name::<T>().to_owned(),
            });
        }
        self
    }

    /// Adds entity `E`, and its table.
    pub fn entity<E>(mut self) -> Self
    where
        E: Entity + Send + Sync + 'static,
        E::Table: 'static,
    {
        self = self.table::<E::Table>();
        self.entities.push(KnownEntity {
            schema: &E::SCHEMA,
            backfill: |db, settings| Box::pin(live::backfill::<E>(db, settings)),
            check: |db, segments| {
                Box::pin(async move { db.backfill::<E>().segments(segments).check().await })
            },
        });
        self
    }

    /// Adds a sample item of an entity, written by ddb (so its keys are the
    /// keys the code writes): the cost report and the Workbench model read
    /// the samples.
    pub fn sample<E: Entity + 'static>(mut self, entity: &E) -> Result<Self> {
        self.samples.push((&E::SCHEMA, entity.to_item()?));
        Ok(self)
    }

    /// How the commands that talk to DynamoDB (`plan-sync`, `sync`,
    /// `check`, `backfill`) get their `Db`; called once, by those commands
    /// only, so the others run without credentials.
    pub fn connect<F, Fut>(mut self, connect: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<Db, Box<dyn std::error::Error + Send + Sync>>>
            + Send
            + 'static,
    {
        self.connect = Some(Box::new(move || {
            let connecting = connect();
            Box::pin(async move { connecting.await.map_err(|e| e.to_string()) })
        }));
        self
    }

    /// The entity `name` (its Rust name or entity type); an error naming
    /// the entities when none or several answer to it.
    fn entity_named(&self, name: &str) -> std::result::Result<&KnownEntity, String> {
        let mut named = self
            .entities
            .iter()
            .filter(|e| e.schema.rust_name == name || e.schema.entity_type == name);
        match (named.next(), named.next()) {
            (Some(entity), None) => Ok(entity),
            (Some(_), Some(_)) => Err(format!(
                "`{name}` names several entities (of tables {}); give the other's name",
                self.entities
                    .iter()
                    .filter(|e| e.schema.rust_name == name || e.schema.entity_type == name)
                    .map(|e| e.schema.table.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            (None, _) => Err(format!("no entity `{name}`; {}", self.entity_names())),
        }
    }

    async fn db(&self) -> std::result::Result<Db, String> {
        match &self.connect {
            Some(connect) => connect().await,
            None => Err("this command talks to DynamoDB: give the command line a connection with Cli::connect".to_owned()),
        }
    }
}

/// Where a command reads and writes: standard input, output and error in
/// [`run_cli`], buffers in a test.
pub struct Io<'a> {
    /// Answers to confirmations.
    pub input: &'a mut (dyn BufRead + Send),
    /// The command's output.
    pub out: &'a mut (dyn Write + Send),
    /// Errors, notes and progress.
    pub err: &'a mut (dyn Write + Send),
}

/// Runs the command line on the process's arguments, standard input and
/// output, and exits with the command's exit code.
pub async fn run_cli(cli: Cli) -> ! {
    let mut input = std::io::BufReader::new(std::io::stdin());
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    let io = Io {
        input: &mut input,
        out: &mut out,
        err: &mut err,
    };
    let code = run(&cli, std::env::args_os(), io).await;
    std::process::exit(code)
}

/// Runs the command line on `args` (the program name first) and returns
/// its exit code: 0 done, 1 a difference or a violation found (drift,
/// `plan-sync`, `check`, a declined `sync`, a backfill with failed items),
/// 2 an error.
///
/// ```
/// # #[derive(ddb_runtime::Table)]
/// # #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// # struct Ecommerce;
/// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
/// # #[ddb(table = Ecommerce, entity = "Customer", pk = "CUSTOMER#{customer_id}", sk = "PROFILE")]
/// # struct Customer { customer_id: String }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use ddb_cli::{run, Cli, Io};
/// let cli = Cli::new("store").entity::<Customer>();
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let io = Io { input: &mut std::io::empty(), out: &mut out, err: &mut err };
/// assert_eq!(run(&cli, ["ddb", "terraform"], io).await, 0);
/// assert!(String::from_utf8(out).unwrap().contains("aws_dynamodb_table"));
/// # }
/// ```
pub async fn run<I, A>(cli: &Cli, args: I, io: Io<'_>) -> i32
where
    I: IntoIterator<Item = A>,
    A: Into<std::ffi::OsString> + Clone,
{
    use clap::Parser as _;
    let command = match args::Args::try_parse_from(args) {
        Ok(parsed) => parsed.command,
        Err(error) => {
            let shown = error.render().to_string();
            return if error.use_stderr() {
                let _ = write!(io.err, "{shown}");
                2
            } else {
                let _ = write!(io.out, "{shown}");
                0
            };
        }
    };
    let err = &mut *io.err;
    let outcome = if command.needs_dynamodb() {
        live::run(cli, command, io.input, io.out, err).await
    } else {
        offline::run(cli, command, io.out, err)
    };
    match outcome {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            2
        }
    }
}
