//! Which of DynamoDB's documented behaviours the engine under test lacks.
//!
//! The suite runs against Dynoxide in-process, or any server through
//! `DDB_ENDPOINT`; `DDB_ENGINE` names that server when it is one whose gaps
//! are known here (`moto`). A test that needs a behaviour the named engine
//! lacks says so on stderr and ends without asserting: each gap is
//! DynamoDB's documented behaviour, cited below, that the engine does not
//! have, and docs/compatibility.md lists what it means for ddb.

/// A behaviour of DynamoDB's that a test relies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// `ClientRequestToken` makes a TransactWriteItems idempotent for ten
    /// minutes: <https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#DDB-TransactWriteItems-request-ClientRequestToken>.
    ClientRequestToken,
    /// Transactions are serializable: two that condition on the same item's
    /// absence never both succeed: <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-isolation>.
    SerializableTransactions,
    /// Vector indexes in CreateTable, and SearchVectors.
    VectorSearch,
    /// `ConsumedCapacity` by item size, per table and index (`INDEXES`), for
    /// transactions too: <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html>.
    CapacityByItemSize,
    /// An item of exactly 400 KB is taken: <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items>.
    FullSizeItems,
    /// `LastEvaluatedKey` comes back whenever a Query stops at `Limit`:
    /// <https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-response-LastEvaluatedKey>.
    LastEvaluatedKeyAtLimit,
    /// A request naming an index the table does not have is a
    /// `ValidationException`: <https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#API_Query_Errors>.
    ValidationOfIndexNames,
    /// A local index query with `Select: ALL_ATTRIBUTES` reads the
    /// attributes the index does not project from the table:
    /// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.Projections>.
    LocalIndexFetches,
    /// A condition is checked and the write applied atomically, also under
    /// many concurrent writers: two puts conditioned on the same version
    /// never both succeed: <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html>.
    AtomicConditionalWrites,
    /// The table settings of 2024 and later in CreateTable, UpdateTable and
    /// DescribeTable (table class, customer managed key, maximum and warm
    /// throughput, resource policy) and tags: <https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html>.
    TableSettings,
}

/// The engine `DDB_ENGINE` names, when the run goes through `DDB_ENDPOINT`.
fn engine() -> Option<String> {
    std::env::var("DDB_ENDPOINT").ok()?;
    std::env::var("DDB_ENGINE").ok()
}

/// The behaviours `engine` is known to lack.
fn gaps(engine: &str) -> &'static [Behaviour] {
    use Behaviour::*;
    match engine {
        // moto 5.2.1, as docs/compatibility.md records its run.
        "moto" => &[
            ClientRequestToken,
            SerializableTransactions,
            VectorSearch,
            CapacityByItemSize,
            FullSizeItems,
            LastEvaluatedKeyAtLimit,
            ValidationOfIndexNames,
            LocalIndexFetches,
            AtomicConditionalWrites,
            TableSettings,
        ],
        _ => &[],
    }
}

/// Whether the engine under test has `behaviour`; when it does not, says
/// so on stderr, for the test to end there.
pub fn has(behaviour: Behaviour) -> bool {
    let Some(engine) = engine() else { return true };
    let lacks = gaps(&engine).contains(&behaviour);
    if lacks {
        eprintln!("skipped: {engine} lacks DynamoDB's {behaviour:?}");
    }
    !lacks
}

/// Ends the test (it passes) when the engine under test lacks a behaviour
/// of DynamoDB's it needs: `ddb_tests::requires!(ClientRequestToken);`.
#[macro_export]
macro_rules! requires {
    ($($behaviour:ident),+ $(,)?) => {
        if !( $($crate::engine::has($crate::engine::Behaviour::$behaviour))&&+ ) {
            return;
        }
    };
}
