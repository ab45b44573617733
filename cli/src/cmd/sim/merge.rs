//! `rtl-gen sim merge FILES… [--csv FILE] [--json FILE] [--svg FILE]`: the JSON results of the
//! shards of one `rxl` or `rifl-sweep` campaign (`--shard K/N --json FILE`) as one table, and
//! optionally one CSV, JSON and SVG.

use super::{not_wired, output_file};
use crate::cmd::CmdResult;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON files (`--json` of `rtl-gen sim rxl` / `rifl-sweep`).
    #[arg(value_name = "FILES", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Write the merged table as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the merged results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the merged plot as SVG (RIFL sweeps).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

pub fn run(a: Args) -> CmdResult {
    for (i, f) in a.files.iter().enumerate() {
        if !f.is_file() {
            anyhow::bail!("{}: no such file (shard result #{} of {})", f.display(), i + 1, a.files.len());
        }
        if a.files[..i].contains(f) {
            anyhow::bail!("{}: given twice; each shard's result counts once", f.display());
        }
    }
    for (option, path) in [("--csv", &a.csv), ("--json", &a.json), ("--svg", &a.svg)] {
        if let Some(p) = path {
            if a.files.contains(p) {
                anyhow::bail!("{option} {}: is one of the input files", p.display());
            }
            output_file(option, p)?;
        }
    }
    not_wired("merge", "rtl_gen_sim::campaign", &format!("{} shard files", a.files.len()))
}
