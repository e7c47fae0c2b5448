//! The declarations the derives produce (`TableDef`, `EntitySchema`) and the
//! checks run on them at compile time. Everything else reads them.

pub mod check;
pub mod model;
