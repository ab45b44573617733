//! `rtl-gen report [DIR] [--module M]… [-j N] [--flow auto|full|fast] [--out DIR]`: the synthesis
//! report (DESIGN.md, "Performance is measured"): Yosys LUT6 / FF / memory / LUT-depth rows for
//! every module of a generated tree, as a Markdown table in `<out>/report.md` and JSON in
//! `<out>/report.json` (`<out>` = target/synth), the table also printed.
//!
//! Flows as `rtl-gen synth --flow auto`: ABC's full LUT-mapping script with memories mapped to
//! block RAM, except for modules with a Verilog file over 1.4 MB (the whole-codeword KP4 encoder, KR4/KP4
//! decoders and 400G decoder of the variants design), which take `synth -noabc; abc -lut 6
//! -fast`; each row names its flow and Yosys's CPU time and peak memory. Every module of the
//! default design takes the block-RAM flow, the largest (the KP4 decoder, the endpoints) within
//! 8 CPU minutes and 1.6 GB each. Needs yosys (scripts/setup).

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
