//! Errors a user can cause: each names where the problem is (file, block, field), the value,
//! and what would be accepted.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ConfigError {
    #[error("design file {path}: {message}")]
    Syntax { path: String, message: String },
    #[error("[design]: field `{field}` {problem}")]
    Design { field: &'static str, problem: String },
    #[error("block #{index}: field `{field}` {problem}")]
    BlockHeader { index: usize, field: &'static str, problem: String },
    #[error("block `{block}` (kind {kind}): field `{field}` {problem}")]
    Field { block: String, kind: &'static str, field: String, problem: String },
    #[error("block `{block}`: name already used by block #{first}")]
    DuplicateName { block: String, first: usize },
    #[error("module name `{module}` of block `{block}` collides with a module of block `{other}`")]
    ModuleCollision { module: String, block: String, other: String },
    #[error("module name `{module}` of block `{block}` collides with {what}; rename the block")]
    ModuleReserved { module: String, block: String, what: String },
    #[error("module name `{module}` of block `{block}` is a {standard} keyword, which no tool parses as a module name; rename the block or set [design] prefix (e.g. \"top_\")")]
    ReservedName { module: String, block: String, standard: &'static str },
    #[error("the design has no [[blocks]]; add at least one (see `rtl-gen list` for the kinds)")]
    NoBlocks,
}

pub type ConfigResult<T> = Result<T, ConfigError>;
