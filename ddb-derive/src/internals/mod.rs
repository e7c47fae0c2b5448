//! The model every derive works from: the `#[ddb(...)]` keywords
//! (`symbol`); the raw attributes as written, of entities and their fields
//! (`attr`) and of tables (`table_attr`), and the parsing pieces every
//! derive reads its keys with (`meta`); the serde attributes ddb reads (`serde_attr`);
//! the error collector (`ctxt`); key templates (`template`); the entity
//! model built from the input (`ast`) and the rules that span several of
//! its attributes (`valid`). Nothing here emits code: the per-derive files
//! and `expand` turn this model into tokens.

pub mod ast;
pub mod attr;
pub mod ctxt;
pub mod meta;
pub mod serde_attr;
pub mod symbol;
pub mod table_attr;
pub mod template;
pub mod valid;
