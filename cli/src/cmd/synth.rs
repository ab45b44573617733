//! `rtl-gen synth [DIR] [--module M]… [--json FILE] [-j N] [--flow auto|full|fast|bram] [--netlist DIR]`

use super::CmdResult;
use anyhow::Context;
use rtl_gen::tools::{default_jobs, parallel_map, synth, TreeManifest};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What to synthesise and how: shared by `synth` and `report`.
#[derive(clap::Args)]
pub struct Selection {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
    /// Only these modules (repeatable); default all.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// Parallel Yosys runs (default: available cores; 1..=256).
    #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// LUT-mapping flow: `full` (ABC's optimising script, memories as flip-flops), `bram` (full
    /// with memories mapped to 7-series block RAM first), `fast` (`synth -noabc; abc -lut 6
    /// -fast`, for multi-megabyte modules) or `auto`: fast for modules with a Verilog file over 1.4 MB
    /// (the whole-codeword KP4 encoder, KR4/KP4 decoders and 400G decoder of the variants
    /// design), bram otherwise (every module of the default design).
    #[arg(long, value_enum, default_value_t = FlowArg::Auto)]
    pub flow: FlowArg,
    /// Also write each LUT-mapped netlist to DIR/<module>.json (Yosys JSON, block RAMs
    /// removed, flattened), the input of scripts/lut-depth-per-register.
    #[arg(long, value_name = "DIR")]
    pub netlist: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub selection: Selection,
    /// Where to write the JSON report (default target/synth/<design>.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FlowArg {
    Auto,
    Full,
    Fast,
    Bram,
}

impl FlowArg {
    fn resolve(self, tree: &Path, manifest: &TreeManifest, module: &str) -> synth::Flow {
        match self {
            FlowArg::Auto => synth::Flow::auto(tree, manifest, module),
            FlowArg::Full => synth::Flow::Full,
            FlowArg::Fast => synth::Flow::Fast,
            FlowArg::Bram => synth::Flow::Bram,
        }
    }
}

/// Synthesise the selected modules; rows in manifest order. Progress goes to stderr.
pub fn synthesise(s: &Selection) -> anyhow::Result<(TreeManifest, Vec<synth::SynthRow>)> {
    let manifest = TreeManifest::load(&s.tree)?;
    let mut names: Vec<String> = manifest.modules.iter().map(|m| m.name.clone()).collect();
    if let Some(bad) = s.modules.iter().find(|m| !names.contains(m)) {
        anyhow::bail!("--module {bad}: no such module in {}; modules: {}", s.tree.display(), names.join(", "));
    }
    if !s.modules.is_empty() {
        names.retain(|n| s.modules.contains(n));
    }
    let jobs = s.jobs.map(usize::from).unwrap_or_else(default_jobs);
    if let Some(dir) = &s.netlist {
        std::fs::create_dir_all(dir).with_context(|| format!("--netlist {}: cannot create the folder", dir.display()))?;
    }
    let indexed: Vec<(usize, &String)> = names.iter().enumerate().collect();
    let mut results = parallel_map(&indexed, jobs, |&(i, name)| {
        let netlist = s.netlist.as_ref().map(|d| d.join(format!("{name}.json")));
        let r = synth::synth_module_to(&s.tree, &manifest, name, s.flow.resolve(&s.tree, &manifest, name), netlist.as_deref()).map(|(row, _)| row);
        if let Ok(row) = &r {
            let fallback = if row.abc_fallback.is_some() { ", ABC without lutpack" } else { "" };
            eprintln!("synthesised {} in {:.1} s ({} flow{fallback})", row.module, row.seconds, row.flow.name());
        }
        (i, r)
    });
    results.sort_by_key(|(i, _)| *i);
    let mut rows = Vec::new();
    for ((_, r), name) in results.into_iter().zip(&names) {
        rows.push(r.with_context(|| format!("synthesising module {name} of {}", s.tree.display()))?);
    }
    Ok((manifest, rows))
}

/// Write `text` to `path`, creating its folder.
pub fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating the folder {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

pub fn run(a: Args) -> CmdResult {
    let (manifest, rows) = synthesise(&a.selection)?;
    print!("{}", synth::table(&rows));
    let json = a.json.unwrap_or_else(|| PathBuf::from(format!("target/synth/{}.json", manifest.design)));
    write_file(&json, &(serde_json::to_string_pretty(&rows)? + "\n"))?;
    println!("JSON report: {}", json.display());
    Ok(ExitCode::SUCCESS)
}
