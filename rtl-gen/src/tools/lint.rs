//! `rtl-gen lint`: every module of a tree through Verilator `--lint-only -Wall`, Icarus
//! `-g2005` and Yosys structural checks; any warning is a failure.

use super::{default_jobs, parallel_map, run, yosys_words, ToolError, TreeManifest};
use std::path::Path;
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
    let script = yosys_script(&yosys_words(&sources)?, module);
    // Verilator and Icarus take each file as its own argument (no shell); `--` is not needed:
    // every path starts with the tree folder and its manifest paths never start with `-`.
    let files: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
    let mut results = Vec::new();

    let (ok, out) = run(Command::new("verilator").args(["--lint-only", "-Wall", "--top-module", module]).args(&files))?;
    results.push(LintResult { module: module.into(), tool: "verilator", clean: ok && out.trim().is_empty(), output: out });

    let (ok, out) = run(Command::new("iverilog").args(["-g2005", "-Wall", "-o", "/dev/null", "-s", module]).args(&files))?;
    results.push(LintResult { module: module.into(), tool: "iverilog", clean: ok && out.trim().is_empty(), output: out });

    let (ok, out) = run(Command::new("yosys").args(["-q", "-p", &script]))?;
    let warned = out.lines().any(|l| l.contains("Warning") || l.contains("ERROR"));
    results.push(LintResult { module: module.into(), tool: "yosys", clean: ok && !warned, output: out });
    Ok(results)
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
