//! `rtl-gen sim merge FILES… [--csv FILE] [--json FILE] [--svg FILE]`: the JSON results of the
//! shards of one `rxl`, `rifl-sweep`, `genz --figures`, `recxl` or `sue --figures` campaign (`--shard K/N --json FILE`) as one table, and
//! optionally one CSV, JSON and SVG.

use super::Outputs;
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::results::ResultFile;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON files (`--json` or `--out` of `rtl-gen sim rxl` / `rifl-sweep`).
    #[arg(value_name = "FILES", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub outputs: Outputs,
}

pub fn run(a: Args) -> CmdResult {
    for (i, f) in a.files.iter().enumerate() {
        if f.is_dir() {
            anyhow::bail!("{}: is a folder, not a result file (shard result #{} of {}); pass the shards' JSON files, e.g. {}/*.json", f.display(), i + 1, a.files.len(), f.display());
        }
        if !f.is_file() {
            anyhow::bail!("{}: no such file (shard result #{} of {})", f.display(), i + 1, a.files.len());
        }
        if a.files[..i].contains(f) {
            anyhow::bail!("{}: given twice; each shard's result counts once", f.display());
        }
    }
    for (option, path) in [("--csv", &a.outputs.csv), ("--json", &a.outputs.json), ("--svg", &a.outputs.svg)] {
        if let Some(p) = path.as_ref().filter(|p| a.files.contains(p)) {
            anyhow::bail!("{option} {}: is one of the input files", p.display());
        }
    }
    a.outputs.check(None, true)?;
    let merged = ResultFile::merge_files(&a.files).with_context(|| format!("merging {} result files", a.files.len()))?;
    a.outputs.write(&merged, None)?;
    Ok(ExitCode::SUCCESS)
}
