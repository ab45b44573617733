//! The harness's error type. Every user mistake (unknown module or port, wrong width, writing an
//! output, a missing tool, a failing build) is a `SimError` whose message names the thing at
//! fault, so a failing test prints something actionable instead of a panic backtrace.

use std::path::PathBuf;

use crate::port::Dir;
use crate::scoreboard::ScoreboardError;

/// Everything that can go wrong while building or driving a simulated module.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    #[error(
        "verilator not found or not runnable (`{command}`: {reason}); install it with \
         `apt-get install -y verilator` (Debian/Ubuntu), or set VERILATOR to the binary's path"
    )]
    VerilatorMissing { command: String, reason: String },

    #[error(
        "C++ compiler `{command}` not found or not runnable ({reason}); install it with \
         `apt-get install -y g++`, or set CXX to a working compiler"
    )]
    CompilerMissing { command: String, reason: String },

    #[error("cannot parse manifest {path}: {source}")]
    ManifestParse {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    #[error("module `{module}`: {reason}")]
    InvalidModule { module: String, reason: String },

    #[error("no module `{module}` in {manifest}; modules there: {}", .available.join(", "))]
    UnknownModule {
        module: String,
        manifest: PathBuf,
        available: Vec<String>,
    },

    #[error("module `{module}` has no port `{port}`; its ports: {}", .available.join(", "))]
    UnknownPort {
        module: String,
        port: String,
        available: Vec<String>,
    },

    #[error("port `{port}` of `{module}` is an {dir}: only inputs can be set")]
    NotAnInput {
        module: String,
        port: String,
        dir: Dir,
    },

    #[error("port `{port}` of `{module}` is {width} bits wide, but {detail}")]
    WidthMismatch {
        module: String,
        port: String,
        width: u32,
        detail: String,
    },

    #[error("module `{module}` has no reset port in the manifest, so it cannot be reset")]
    NoReset { module: String },

    #[error(
        "a PortId of another Dut was used with `{module}`; look ports up on the Dut that uses them"
    )]
    ForeignPort { module: String },

    #[error(
        "the Verilated ports of `{module}` do not match the manifest: {detail} \
         (the manifest must list every port with its Verilog width and direction)"
    )]
    PortMismatch { module: String, detail: String },

    #[error("building `{module}` failed while {stage}; full log: {}\n--- last lines of the log ---\n{tail}", .log.display())]
    BuildFailed {
        module: String,
        stage: String,
        log: PathBuf,
        tail: String,
    },

    #[error("cannot load the compiled model {}: {source}", .path.display())]
    Load {
        path: PathBuf,
        #[source]
        source: libloading::Error,
    },

    #[error("the compiled model {} is incompatible with this harness: {reason}; delete the cache directory to rebuild it", .path.display())]
    BadModel { path: PathBuf, reason: String },

    #[error("cannot create the Verilated model of `{module}` (the C++ constructor failed)")]
    CreateFailed { module: String },

    #[error("cannot write waveform {}: {reason}", .path.display())]
    Trace { path: PathBuf, reason: String },

    #[error("environment variable {var}={value:?} is invalid: {reason}")]
    BadEnv {
        var: String,
        value: String,
        reason: String,
    },

    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    #[error("design: {message}")]
    Design { message: String },

    #[error("the design has no block `{block}`; its blocks: {known}")]
    UnknownBlock { block: String, known: String },

    #[error("block `{block}` is of kind {kind}, not the {expected} this needs")]
    WrongKind { block: String, kind: String, expected: String },

    #[error("block `{block}` has no module with role `{role}`; its roles: {roles}")]
    NoSuchRole { block: String, role: String, roles: String },

    #[error("no co-simulation driver for module `{module}` (kind {kind}, role {role})")]
    NoDriver { module: String, kind: String, role: String },

    #[error("co-simulation mismatch: {summary}")]
    Cosim { summary: String },

    /// A scoreboard comparison failed (boxed: keeps every `Result<_, SimError>` small).
    #[error(transparent)]
    Scoreboard(Box<ScoreboardError>),
}

impl From<ScoreboardError> for SimError {
    fn from(e: ScoreboardError) -> SimError {
        SimError::Scoreboard(Box::new(e))
    }
}

impl SimError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> SimError {
        SimError::Io {
            context: context.into(),
            source,
        }
    }
}
