//! Attributes as the declarations name them: a key attribute with its
//! DynamoDB scalar type, the schema-version attribute ddb writes, and the
//! name comparison `const` code needs.

/// A DynamoDB scalar type a key attribute can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// String (`S`).
    S,
    /// Number (`N`).
    N,
}

impl ScalarType {
    /// The type's name in DynamoDB's `AttributeDefinitions` (`"S"`, `"N"`).
    ///
    /// ```
    /// assert_eq!(ddb_runtime::model::ScalarType::N.as_str(), "N");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
        }
    }
}

/// A key attribute of a table or index: its name and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyAttribute {
    /// The attribute name, e.g. `"PK"` or `"customerId"`.
    pub name: &'static str,
    /// Its scalar type.
    pub ty: ScalarType,
}

/// `a == b`, usable in `const` code.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The attribute a versioned entity's items carry their schema version in
/// (`#[ddb(schema_version = N)]`); items without it are version 1.
pub const SCHEMA_VERSION_ATTRIBUTE: &str = "_schema";
