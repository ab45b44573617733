//! `rtl-gen report [DIR] [--module M]… [-j N] [--flow auto|full|fast] [--out DIR]`: the synthesis
//! report (DESIGN.md, "Performance is measured"): Yosys LUT6 / FF / memory / LUT-depth rows for
//! every module of a generated tree, as a Markdown table in `<out>/report.md` and JSON in
//! `<out>/report.json` (`<out>` = target/synth), the table also printed.
//!
//! Flows as `rtl-gen synth --flow auto`: ABC's full LUT-mapping script, except for modules over
//! 1 MiB of Verilog (the default RXL/CXL endpoints; the whole-codeword KP4 encoder and KR4/KP4
//! decoders), which take `synth -noabc; abc -lut 6
//! -fast`; each row names its flow. The KP4 decoder alone needs ≈14 GB and tens of minutes: on a
//! 24 GB machine pass `-j 1`. Memories are mapped to flip-flops here; scripts/rifl-synth-xilinx
//! reports block RAM. Needs yosys (scripts/setup).

use super::synth::{synthesise, write_file, Selection};
use super::CmdResult;
use rtl_gen::tools::synth;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub selection: Selection,
    /// Folder of report.md and report.json.
    #[arg(long, value_name = "DIR", default_value = "target/synth")]
    pub out: PathBuf,
}

pub fn run(a: Args) -> CmdResult {
    let (_, rows) = synthesise(&a.selection)?;
    let table = synth::table(&rows);
    let (md, json) = (a.out.join("report.md"), a.out.join("report.json"));
    write_file(&md, &table)?;
    write_file(&json, &(serde_json::to_string_pretty(&rows)? + "\n"))?;
    print!("{table}");
    println!("report: {}, {}", md.display(), json.display());
    Ok(ExitCode::SUCCESS)
}
