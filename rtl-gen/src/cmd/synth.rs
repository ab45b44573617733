//! `rtl-gen synth [DIR]`

use super::CmdResult;
use rtl_gen::tools::{default_jobs, parallel_map, synth, TreeManifest};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
    /// Only these modules (repeatable); default all.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// Where to write the JSON report (default target/synth/<design>.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Parallel Yosys runs (default: available cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// LUT-mapping flow: `full` (ABC's optimising script), `fast` (`synth -noabc; abc -lut 6
    /// -fast`, for multi-megabyte modules) or `auto`: fast for modules over 1 MiB of Verilog
    /// (the KP4 encoder, the KR4/KP4 decoders of the default design), full otherwise.
    #[arg(long, value_enum, default_value_t = FlowArg::Auto)]
    pub flow: FlowArg,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FlowArg {
    Auto,
    Full,
    Fast,
}

impl FlowArg {
    fn resolve(self, tree: &Path, manifest: &TreeManifest, module: &str) -> synth::Flow {
        match self {
            FlowArg::Auto => synth::Flow::auto(tree, manifest, module),
            FlowArg::Full => synth::Flow::Full,
            FlowArg::Fast => synth::Flow::Fast,
        }
    }
}

pub fn run(a: Args) -> CmdResult {
    let manifest = TreeManifest::load(&a.tree)?;
    let mut names: Vec<String> = manifest.modules.iter().map(|m| m.name.clone()).collect();
    if !a.modules.is_empty() {
        if let Some(bad) = a.modules.iter().find(|m| !names.contains(m)) {
            return Err(format!("--module {bad}: no such module in {}; modules: {}", a.tree.display(), names.join(", ")).into());
        }
        names.retain(|n| a.modules.contains(n));
    }
    let jobs = a.jobs.unwrap_or_else(default_jobs);
    let indexed: Vec<(usize, &String)> = names.iter().enumerate().collect();
    let mut results = parallel_map(&indexed, jobs, |&(i, name)| {
        let r = synth::synth_module(&a.tree, &manifest, name, a.flow.resolve(&a.tree, &manifest, name)).map(|(row, _)| row);
        if let Ok(row) = &r {
            eprintln!("synthesised {} in {:.1} s ({} flow)", row.module, row.seconds, row.flow.name());
        }
        (i, r)
    });
    results.sort_by_key(|(i, _)| *i);
    let mut rows = Vec::new();
    for (_, r) in results {
        rows.push(r?);
    }
    print!("{}", synth::table(&rows));
    let json = a.json.unwrap_or_else(|| PathBuf::from(format!("target/synth/{}.json", manifest.design)));
    if let Some(parent) = json.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&json, serde_json::to_string_pretty(&rows)? + "\n")?;
    println!("JSON report: {}", json.display());
    Ok(ExitCode::SUCCESS)
}
