//! `rtl-gen lint`: every module of a tree through Verilator `--lint-only -Wall`, Icarus
//! `-g2005` and Yosys structural checks; any warning is a failure.

use super::{default_jobs, parallel_map, run, yosys_words, ToolError, TreeManifest};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The verdict of one tool on one module.
#[derive(Debug, Clone)]
pub struct LintResult {
    pub module: String,
    pub tool: &'static str,
    pub clean: bool,
    /// What the tool printed (empty when clean).
    pub output: String,
}

/// Yosys: hierarchy must resolve, `proc` must not infer latches, and `check -assert` fails on
/// undriven nets, multiple drivers and combinational loops.
/// `files` are already quoted script words ([`yosys_words`]); `top` is a checked identifier.
fn yosys_script(files: &str, top: &str) -> String {
    format!("read_verilog {files}; hierarchy -check -top {top}; proc; select -assert-none t:$dlatch t:$adlatch t:$dlatchsr; check -assert")
}

pub fn lint_module(tree: &Path, manifest: &TreeManifest, module: &str) -> Result<Vec<LintResult>, ToolError> {
    let sources = manifest.sources(tree, module);
    // Verilator and Icarus take each file as its own argument (no shell); `--` is not needed:
    // every path starts with the tree folder and its manifest paths never start with `-`.
    let files: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
    Ok(vec![verilator(&files, module)?, icarus(&files, module)?, yosys(&sources, module)?])
}

/// Verilator `--lint-only -Wall` on `module` read from `files` (it and everything it instantiates).
pub fn verilator(files: &[String], module: &str) -> Result<LintResult, ToolError> {
    let (ok, out) = run(Command::new("verilator").args(["--lint-only", "-Wall", "--top-module", module]).args(files))?;
    Ok(LintResult { module: module.into(), tool: "verilator", clean: ok && out.trim().is_empty(), output: out })
}

/// Icarus `-g2005 -Wall`: parses and elaborates `module`.
pub fn icarus(files: &[String], module: &str) -> Result<LintResult, ToolError> {
    let (ok, out) = run(Command::new("iverilog").args(["-g2005", "-Wall", "-o", "/dev/null", "-s", module]).args(files))?;
    Ok(LintResult { module: module.into(), tool: "iverilog", clean: ok && out.trim().is_empty(), output: out })
}

/// Yosys structural checks ([`yosys_script`]) on `module` read from `files`, each passed as a
/// quoted script word ([`yosys_words`]): a path a script cannot quote is refused.
pub fn yosys(files: &[PathBuf], module: &str) -> Result<LintResult, ToolError> {
    let (ok, out) = run(Command::new("yosys").args(["-q", "-p", &yosys_script(&yosys_words(files)?, module)]))?;
    let warned = out.lines().any(|l| l.contains("Warning") || l.contains("ERROR"));
    Ok(LintResult { module: module.into(), tool: "yosys", clean: ok && !warned, output: out })
}

/// Lint every module of the tree at `tree`, modules in parallel on the available cores (largest
/// files first, so the long runs start early); results in manifest order.
pub fn lint_tree(tree: &Path) -> Result<Vec<LintResult>, ToolError> {
    let manifest = TreeManifest::load(tree)?;
    let size = |i: usize| std::fs::metadata(tree.join(&manifest.modules[i].file)).map(|m| m.len()).unwrap_or(0);
    let mut order: Vec<usize> = (0..manifest.modules.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(size(i)));
    let mut results = parallel_map(&order, default_jobs(), |&i| (i, lint_module(tree, &manifest, &manifest.modules[i].name)));
    results.sort_by_key(|(i, _)| *i);
    let mut all = Vec::new();
    for (_, r) in results {
        all.extend(r?);
    }
    Ok(all)
}
