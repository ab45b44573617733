//! The `rtl-gen` command line: one module per subcommand under `cmd/`.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "rtl-gen", version, about = "Generate, check, lint and synthesise parameterized link-reliability RTL (CRC, ISN CRC, RS FEC, replay, RIFL)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the block kinds with their fields, defaults and allowed ranges.
    List(cmd::list::Args),
    /// Generate a design's output tree (the built-in default design without a file).
    Generate(cmd::generate::Args),
    /// Fail, naming every stale, missing or extra file, when the tree on disk differs from what
    /// `generate` would write.
    Check(cmd::check::Args),
    /// Lint every module of a generated tree with Verilator -Wall, Icarus -g2005 and Yosys checks.
    Lint(cmd::lint::Args),
    /// Synthesise every module of a generated tree with Yosys: LUT6, FFs, memories, LUT depth.
    Synth(cmd::synth::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List(a) => cmd::list::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Lint(a) => cmd::lint::run(a),
        Command::Synth(a) => cmd::synth::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
