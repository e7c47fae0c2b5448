//! DynamoDB's reserved words and the other words of its expressions, as a
//! hash table built at compile time. Most of this file is the word list,
//! as AWS publishes it.

/// Whether `name` is one of DynamoDB's reserved words or one of the other
/// [`KEYWORDS`] of its expressions, in any case: one probe of a hash table
/// built at compile time, over the name's upper-case bytes.
pub(super) fn is_word(name: &str) -> bool {
    let mut upper = [0u8; LONGEST_WORD];
    let Some(upper) = upper.get_mut(..name.len()) else {
        return false;
    };
    for (u, b) in upper.iter_mut().zip(name.bytes()) {
        *u = b.to_ascii_uppercase();
    }
    let mut slot = slot_of(upper);
    loop {
        match WORD_SLOTS[slot] {
            0 => return false,
            w if word(usize::from(w) - 1).as_bytes() == upper => return true,
            _ => slot = (slot + 1) % SLOTS,
        }
    }
}

/// The longest word that needs a placeholder (`ATTRIBUTE_NOT_EXISTS`).
const LONGEST_WORD: usize = 20;

/// How many slots [`WORD_SLOTS`] has: about four per word, so that most
/// names not in it find a free slot at once.
const SLOTS: usize = 2048;

/// Every word that needs a placeholder by [`word`]'s numbering, plus one,
/// at the slot of its hash or the next free one after it; 0 is free.
static WORD_SLOTS: [u16; SLOTS] = {
    let mut slots = [0u16; SLOTS];
    let mut w = 0;
    while w < RESERVED_WORDS.len() + KEYWORDS.len() {
        let mut slot = slot_of(word(w).as_bytes());
        while slots[slot] != 0 {
            slot = (slot + 1) % SLOTS;
        }
        slots[slot] = w as u16 + 1;
        w += 1;
    }
    slots
};

/// The reserved words, then the [`KEYWORDS`]: all upper-case.
const fn word(w: usize) -> &'static str {
    if w < RESERVED_WORDS.len() {
        RESERVED_WORDS[w]
    } else {
        KEYWORDS[w - RESERVED_WORDS.len()]
    }
}

/// The slot of upper-case `bytes` in [`WORD_SLOTS`]: their 32-bit FNV-1a
/// hash, folded. One function for the table built at compile time and for
/// the lookup.
const fn slot_of(bytes: &[u8]) -> usize {
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    ((hash ^ (hash >> 16)) as usize) % SLOTS
}

/// The words of DynamoDB's expressions that are not reserved words: its
/// functions (`size` is reserved) and the update clause `REMOVE` (`SET`,
/// `ADD` and `DELETE` are reserved). An attribute of one of these names is
/// written through a placeholder too, so no expression reads it as a call or
/// a clause. Upper-case, as the reserved words.
const KEYWORDS: [&str; 8] = [
    "ATTRIBUTE_EXISTS",
    "ATTRIBUTE_NOT_EXISTS",
    "ATTRIBUTE_TYPE",
    "BEGINS_WITH",
    "CONTAINS",
    "IF_NOT_EXISTS",
    "LIST_APPEND",
    "REMOVE",
];

/// DynamoDB's reserved words, sorted: the 573 of its developer guide
/// ("Reserved words in DynamoDB").
const RESERVED_WORDS: [&str; 573] = [
    "ABORT",
    "ABSOLUTE",
    "ACTION",
    "ADD",
    "AFTER",
    "AGENT",
    "AGGREGATE",
    "ALL",
    "ALLOCATE",
    "ALTER",
    "ANALYZE",
    "AND",
    "ANY",
    "ARCHIVE",
    "ARE",
    "ARRAY",
    "AS",
    "ASC",
    "ASCII",
    "ASENSITIVE",
    "ASSERTION",
    "ASYMMETRIC",
    "AT",
    "ATOMIC",
    "ATTACH",
    "ATTRIBUTE",
    "AUTH",
    "AUTHORIZATION",
    "AUTHORIZE",
    "AUTO",
    "AVG",
    "BACK",
    "BACKUP",
    "BASE",
    "BATCH",
    "BEFORE",
    "BEGIN",
    "BETWEEN",
    "BIGINT",
    "BINARY",
    "BIT",
    "BLOB",
    "BLOCK",
    "BOOLEAN",
    "BOTH",
    "BREADTH",
    "BUCKET",
    "BULK",
    "BY",
    "BYTE",
    "CALL",
    "CALLED",
    "CALLING",
    "CAPACITY",
    "CASCADE",
    "CASCADED",
    "CASE",
    "CAST",
    "CATALOG",
    "CHAR",
    "CHARACTER",
    "CHECK",
    "CLASS",
    "CLOB",
    "CLOSE",
    "CLUSTER",
    "CLUSTERED",
    "CLUSTERING",
    "CLUSTERS",
    "COALESCE",
    "COLLATE",
    "COLLATION",
    "COLLECTION",
    "COLUMN",
    "COLUMNS",
    "COMBINE",
    "COMMENT",
    "COMMIT",
    "COMPACT",
    "COMPILE",
    "COMPRESS",
    "CONDITION",
    "CONFLICT",
    "CONNECT",
    "CONNECTION",
    "CONSISTENCY",
    "CONSISTENT",
    "CONSTRAINT",
    "CONSTRAINTS",
    "CONSTRUCTOR",
    "CONSUMED",
    "CONTINUE",
    "CONVERT",
    "COPY",
    "CORRESPONDING",
    "COUNT",
    "COUNTER",
    "CREATE",
    "CROSS",
    "CUBE",
    "CURRENT",
    "CURSOR",
    "CYCLE",
    "DATA",
    "DATABASE",
    "DATE",
    "DATETIME",
    "DAY",
    "DEALLOCATE",
    "DEC",
    "DECIMAL",
    "DECLARE",
    "DEFAULT",
    "DEFERRABLE",
    "DEFERRED",
    "DEFINE",
    "DEFINED",
    "DEFINITION",
    "DELETE",
    "DELIMITED",
    "DEPTH",
    "DEREF",
    "DESC",
    "DESCRIBE",
    "DESCRIPTOR",
    "DETACH",
    "DETERMINISTIC",
    "DIAGNOSTICS",
    "DIRECTORIES",
    "DISABLE",
    "DISCONNECT",
    "DISTINCT",
    "DISTRIBUTE",
    "DO",
    "DOMAIN",
    "DOUBLE",
    "DROP",
    "DUMP",
    "DURATION",
    "DYNAMIC",
    "EACH",
    "ELEMENT",
    "ELSE",
    "ELSEIF",
    "EMPTY",
    "ENABLE",
    "END",
    "EQUAL",
    "EQUALS",
    "ERROR",
    "ESCAPE",
    "ESCAPED",
    "EVAL",
    "EVALUATE",
    "EXCEEDED",
    "EXCEPT",
    "EXCEPTION",
    "EXCEPTIONS",
    "EXCLUSIVE",
    "EXEC",
    "EXECUTE",
    "EXISTS",
    "EXIT",
    "EXPLAIN",
    "EXPLODE",
    "EXPORT",
    "EXPRESSION",
    "EXTENDED",
    "EXTERNAL",
    "EXTRACT",
    "FAIL",
    "FALSE",
    "FAMILY",
    "FETCH",
    "FIELDS",
    "FILE",
    "FILTER",
    "FILTERING",
    "FINAL",
    "FINISH",
    "FIRST",
    "FIXED",
    "FLATTERN",
    "FLOAT",
    "FOR",
    "FORCE",
    "FOREIGN",
    "FORMAT",
    "FORWARD",
    "FOUND",
    "FREE",
    "FROM",
    "FULL",
    "FUNCTION",
    "FUNCTIONS",
    "GENERAL",
    "GENERATE",
    "GET",
    "GLOB",
    "GLOBAL",
    "GO",
    "GOTO",
    "GRANT",
    "GREATER",
    "GROUP",
    "GROUPING",
    "HANDLER",
    "HASH",
    "HAVE",
    "HAVING",
    "HEAP",
    "HIDDEN",
    "HOLD",
    "HOUR",
    "IDENTIFIED",
    "IDENTITY",
    "IF",
    "IGNORE",
    "IMMEDIATE",
    "IMPORT",
    "IN",
    "INCLUDING",
    "INCLUSIVE",
    "INCREMENT",
    "INCREMENTAL",
    "INDEX",
    "INDEXED",
    "INDEXES",
    "INDICATOR",
    "INFINITE",
    "INITIALLY",
    "INLINE",
    "INNER",
    "INNTER",
    "INOUT",
    "INPUT",
    "INSENSITIVE",
    "INSERT",
    "INSTEAD",
    "INT",
    "INTEGER",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "INVALIDATE",
    "IS",
    "ISOLATION",
    "ITEM",
    "ITEMS",
    "ITERATE",
    "JOIN",
    "KEY",
    "KEYS",
    "LAG",
    "LANGUAGE",
    "LARGE",
    "LAST",
    "LATERAL",
    "LEAD",
    "LEADING",
    "LEAVE",
    "LEFT",
    "LENGTH",
    "LESS",
    "LEVEL",
    "LIKE",
    "LIMIT",
    "LIMITED",
    "LINES",
    "LIST",
    "LOAD",
    "LOCAL",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "LOCATION",
    "LOCATOR",
    "LOCK",
    "LOCKS",
    "LOG",
    "LOGED",
    "LONG",
    "LOOP",
    "LOWER",
    "MAP",
    "MATCH",
    "MATERIALIZED",
    "MAX",
    "MAXLEN",
    "MEMBER",
    "MERGE",
    "METHOD",
    "METRICS",
    "MIN",
    "MINUS",
    "MINUTE",
    "MISSING",
    "MOD",
    "MODE",
    "MODIFIES",
    "MODIFY",
    "MODULE",
    "MONTH",
    "MULTI",
    "MULTISET",
    "NAME",
    "NAMES",
    "NATIONAL",
    "NATURAL",
    "NCHAR",
    "NCLOB",
    "NEW",
    "NEXT",
    "NO",
    "NONE",
    "NOT",
    "NULL",
    "NULLIF",
    "NUMBER",
    "NUMERIC",
    "OBJECT",
    "OF",
    "OFFLINE",
    "OFFSET",
    "OLD",
    "ON",
    "ONLINE",
    "ONLY",
    "OPAQUE",
    "OPEN",
    "OPERATOR",
    "OPTION",
    "OR",
    "ORDER",
    "ORDINALITY",
    "OTHER",
    "OTHERS",
    "OUT",
    "OUTER",
    "OUTPUT",
    "OVER",
    "OVERLAPS",
    "OVERRIDE",
    "OWNER",
    "PAD",
    "PARALLEL",
    "PARAMETER",
    "PARAMETERS",
    "PARTIAL",
    "PARTITION",
    "PARTITIONED",
    "PARTITIONS",
    "PATH",
    "PERCENT",
    "PERCENTILE",
    "PERMISSION",
    "PERMISSIONS",
    "PIPE",
    "PIPELINED",
    "PLAN",
    "POOL",
    "POSITION",
    "PRECISION",
    "PREPARE",
    "PRESERVE",
    "PRIMARY",
    "PRIOR",
    "PRIVATE",
    "PRIVILEGES",
    "PROCEDURE",
    "PROCESSED",
    "PROJECT",
    "PROJECTION",
    "PROPERTY",
    "PROVISIONING",
    "PUBLIC",
    "PUT",
    "QUERY",
    "QUIT",
    "QUORUM",
    "RAISE",
    "RANDOM",
    "RANGE",
    "RANK",
    "RAW",
    "READ",
    "READS",
    "REAL",
    "REBUILD",
    "RECORD",
    "RECURSIVE",
    "REDUCE",
    "REF",
    "REFERENCE",
    "REFERENCES",
    "REFERENCING",
    "REGEXP",
    "REGION",
    "REINDEX",
    "RELATIVE",
    "RELEASE",
    "REMAINDER",
    "RENAME",
    "REPEAT",
    "REPLACE",
    "REQUEST",
    "RESET",
    "RESIGNAL",
    "RESOURCE",
    "RESPONSE",
    "RESTORE",
    "RESTRICT",
    "RESULT",
    "RETURN",
    "RETURNING",
    "RETURNS",
    "REVERSE",
    "REVOKE",
    "RIGHT",
    "ROLE",
    "ROLES",
    "ROLLBACK",
    "ROLLUP",
    "ROUTINE",
    "ROW",
    "ROWS",
    "RULE",
    "RULES",
    "SAMPLE",
    "SATISFIES",
    "SAVE",
    "SAVEPOINT",
    "SCAN",
    "SCHEMA",
    "SCOPE",
    "SCROLL",
    "SEARCH",
    "SECOND",
    "SECTION",
    "SEGMENT",
    "SEGMENTS",
    "SELECT",
    "SELF",
    "SEMI",
    "SENSITIVE",
    "SEPARATE",
    "SEQUENCE",
    "SERIALIZABLE",
    "SESSION",
    "SET",
    "SETS",
    "SHARD",
    "SHARE",
    "SHARED",
    "SHORT",
    "SHOW",
    "SIGNAL",
    "SIMILAR",
    "SIZE",
    "SKEWED",
    "SMALLINT",
    "SNAPSHOT",
    "SOME",
    "SOURCE",
    "SPACE",
    "SPACES",
    "SPARSE",
    "SPECIFIC",
    "SPECIFICTYPE",
    "SPLIT",
    "SQL",
    "SQLCODE",
    "SQLERROR",
    "SQLEXCEPTION",
    "SQLSTATE",
    "SQLWARNING",
    "START",
    "STATE",
    "STATIC",
    "STATUS",
    "STORAGE",
    "STORE",
    "STORED",
    "STREAM",
    "STRING",
    "STRUCT",
    "STYLE",
    "SUB",
    "SUBMULTISET",
    "SUBPARTITION",
    "SUBSTRING",
    "SUBTYPE",
    "SUM",
    "SUPER",
    "SYMMETRIC",
    "SYNONYM",
    "SYSTEM",
    "TABLE",
    "TABLESAMPLE",
    "TEMP",
    "TEMPORARY",
    "TERMINATED",
    "TEXT",
    "THAN",
    "THEN",
    "THROUGHPUT",
    "TIME",
    "TIMESTAMP",
    "TIMEZONE",
    "TINYINT",
    "TO",
    "TOKEN",
    "TOTAL",
    "TOUCH",
    "TRAILING",
    "TRANSACTION",
    "TRANSFORM",
    "TRANSLATE",
    "TRANSLATION",
    "TREAT",
    "TRIGGER",
    "TRIM",
    "TRUE",
    "TRUNCATE",
    "TTL",
    "TUPLE",
    "TYPE",
    "UNDER",
    "UNDO",
    "UNION",
    "UNIQUE",
    "UNIT",
    "UNKNOWN",
    "UNLOGGED",
    "UNNEST",
    "UNPROCESSED",
    "UNSIGNED",
    "UNTIL",
    "UPDATE",
    "UPPER",
    "URL",
    "USAGE",
    "USE",
    "USER",
    "USERS",
    "USING",
    "UUID",
    "VACUUM",
    "VALUE",
    "VALUED",
    "VALUES",
    "VARCHAR",
    "VARIABLE",
    "VARIANCE",
    "VARINT",
    "VARYING",
    "VIEW",
    "VIEWS",
    "VIRTUAL",
    "VOID",
    "WAIT",
    "WHEN",
    "WHENEVER",
    "WHERE",
    "WHILE",
    "WINDOW",
    "WITH",
    "WITHIN",
    "WITHOUT",
    "WORK",
    "WRAPPED",
    "WRITE",
    "YEAR",
    "ZONE",
];

#[cfg(test)]
mod tests {
    use super::super::names::needs_placeholder;
    use super::*;

    #[test]
    fn the_reserved_words_are_sorted_upper_case_and_unique() {
        assert!(RESERVED_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(RESERVED_WORDS
            .iter()
            .all(|w| w.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')));
        assert_eq!(RESERVED_WORDS.iter().map(|w| w.len()).max(), Some(14));
        assert!(KEYWORDS
            .iter()
            .all(|w| w.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')));
    }

    #[test]
    fn reserved_words_in_any_case_and_odd_names_need_a_placeholder() {
        for name in [
            "status", "Status", "STATUS", "name", "ttl", "size", "abort", "zone",
        ] {
            assert!(is_word(name), "{name}");
            assert!(needs_placeholder(name), "{name}");
        }
        for name in [
            "",
            "_type",
            "_schema",
            "1st",
            "a.b",
            "a-b",
            "a b",
            "a#b",
            "a:b",
            "é",
            "contains",
            "Begins_With",
            "list_append",
        ] {
            assert!(needs_placeholder(name), "{name:?}");
        }
        for name in [
            "PK",
            "SK",
            "GSI1PK",
            "gsi2_sk",
            "version",
            "customer_id",
            "order_id",
            "x",
        ] {
            assert!(!needs_placeholder(name), "{name}");
        }
        // Longer than any word, a prefix of one, one with a letter more.
        assert!(!is_word("characteristically_long"));
        assert!(!is_word("CHA"));
        assert!(!is_word("statuses"));
        assert!(!is_word("removed"));
        // Every word, in upper, lower and mixed case.
        for word in RESERVED_WORDS.iter().chain(&KEYWORDS) {
            assert!(is_word(word), "{word}");
            assert!(is_word(&word.to_ascii_lowercase()), "{word}");
            let mixed: String = word
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect();
            assert!(is_word(&mixed), "{mixed}");
        }
    }

    /// The table holds each word once, and a name not in it is told apart
    /// from every word (checked against a plain search, for names near
    /// the words: each word with one letter changed, cut short, grown).
    #[test]
    fn the_word_table_agrees_with_a_plain_search() {
        let words: Vec<&str> = RESERVED_WORDS.iter().chain(&KEYWORDS).copied().collect();
        let held = WORD_SLOTS.iter().filter(|&&w| w != 0).count();
        assert_eq!(held, words.len());
        assert_eq!(words.iter().map(|w| w.len()).max(), Some(LONGEST_WORD));
        let plain = |name: &str| words.iter().any(|w| w.eq_ignore_ascii_case(name));
        for word in &words {
            let mut near = vec![word[..word.len() - 1].to_owned(), format!("{word}S")];
            for i in 0..word.len() {
                let mut changed = word.as_bytes().to_vec();
                changed[i] = if changed[i] == b'Q' { b'X' } else { b'Q' };
                near.push(String::from_utf8(changed).unwrap());
            }
            for name in near {
                assert_eq!(is_word(&name), plain(&name), "{name}");
            }
        }
    }
}
