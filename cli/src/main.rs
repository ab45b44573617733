//! The `rtl-gen` command line: one module per subcommand under `cmd/`. Every error is printed as
//! `error: …` followed by one `caused by: …` line per underlying cause, with exit status 2 (as
//! clap's own usage errors); `check` and `lint` exit 1 when they find something.

mod cmd;
#[cfg(test)]
mod docs_check;
#[cfg(test)]
mod docs_pages;
#[cfg(test)]
mod headline;
#[cfg(test)]
mod reference;

use clap::{CommandFactory, FromArgMatches, Subcommand};
use std::process::ExitCode;

#[derive(clap::Parser)]
#[command(name = "rtl-gen", version, about = "Generate, check, lint, synthesise and co-simulate parameterized link-reliability RTL (CRC, ISN CRC, RS FEC, replay, RIFL, RXL, Gen-Z LLR, SUE, ReCXL)")]
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
    /// The synthesis report: `synth` over a whole tree into target/synth/report.md and .json.
    Report(cmd::report::Args),
    /// Verilator co-simulation and link campaigns on the generated RTL.
    #[command(subcommand)]
    Sim(cmd::sim::Command),
    /// Synthesis, place and route (and bitstream) per module for ECP5/iCE40: utilisation and Fmax.
    Fpga(cmd::fpga::Args),
    /// Prove the properties the generated modules carry (SymbiYosys k-induction; GF(2)
    /// evaluation of combinational XOR networks): proven / bounded to depth N / failed.
    Formal(cmd::formal::Args),
    /// Standard-cell synthesis and static timing with the emitted SDC: area, slack, critical path.
    Asic(cmd::asic::Args),
    /// The seeds' reliability arithmetic (FER, FIT, MTBF, buffer and bandwidth) with equation
    /// numbers; no options print the paper's own case.
    #[command(subcommand)]
    Analyze(cmd::analyze::Command),
    /// Choose parameters for a link's requirements, with reasons and predicted figures, and
    /// optionally write a design file for `generate`.
    #[command(subcommand)]
    Plan(cmd::plan::Command),
}

/// Every option that takes a value accepts a negative number as that value, so `--ber -1` is
/// refused by the option's own range check ("-1 is out of range; allowed 0..=1") instead of
/// being read as an unknown flag `-1`.
fn negative_values(c: clap::Command) -> clap::Command {
    c.mut_args(|a| if a.get_action().takes_values() && !a.is_positional() { a.allow_negative_numbers(true) } else { a }).mut_subcommands(negative_values)
}

fn main() -> ExitCode {
    // clap prints usage errors itself and exits with status 2.
    let matches = negative_values(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::List(a) => cmd::list::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Lint(a) => cmd::lint::run(a),
        Command::Synth(a) => cmd::synth::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Sim(c) => cmd::sim::run(c),
        Command::Fpga(a) => cmd::fpga::run(a),
        Command::Formal(a) => cmd::formal::run(a),
        Command::Asic(a) => cmd::asic::run(a),
        Command::Analyze(c) => cmd::analyze::run(c),
        Command::Plan(c) => cmd::plan::run(c),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}
