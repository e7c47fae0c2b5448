//! The model every derive works from: the `#[ddb(...)]` keywords
//! (`symbol`); the raw attributes as written, of entities and their fields
//! (`attr`, which also has the parsing pieces every derive uses) and of
//! tables (`table_attr`); the serde attributes ddb reads (`serde_attr`);
//! the error collector (`ctxt`); key templates (`template`); the entity
//! model built from the input (`ast`) and the rules that span several of
//! its attributes (`valid`). Nothing here emits code: the per-derive files
//! and `expand` turn this model into tokens.

pub mod ast;
pub mod attr;
pub mod ctxt;
pub mod serde_attr;
pub mod symbol;
pub mod table_attr;
pub mod template;
pub mod valid;
