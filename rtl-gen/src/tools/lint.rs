//! `rtl-gen lint`: every module of a tree through Verilator `--lint-only -Wall`, Icarus
//! `-g2005` and Yosys structural checks; any warning is a failure.

use super::{default_jobs, parallel_map, run, yosys_words, ToolError, TreeManifest, TreeModule};
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
    lint_module_in(tree, manifest, module, &Scope::Hierarchy)
}

/// What a module is linted with.
#[derive(Debug, Clone)]
pub enum Scope {
    /// The module and everything it instantiates, with their real bodies (`rtl-gen lint`).
    Hierarchy,
    /// The module's own file, and for each module it instantiates a port-only stand-in
    /// ([`stand_in`]) written under this folder. Every module of a tree is linted on its own
    /// with its real body, and the stand-ins keep the port connections (names, directions,
    /// widths) checked, so a tree lints each megabyte CRC network once, not once per parent.
    Alone(PathBuf),
}

/// Lint `module` of `tree` in `scope`: Verilator, Icarus and Yosys verdicts.
pub fn lint_module_in(tree: &Path, manifest: &TreeManifest, module: &str, scope: &Scope) -> Result<Vec<LintResult>, ToolError> {
    let sources = files(tree, manifest, module, scope)?;
    // Verilator and Icarus take each file as its own argument (no shell); `--` is not needed:
    // every path starts with the tree folder (or the caller's stand-in folder) and its
    // manifest paths never start with `-`.
    let names: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
    Ok(vec![verilator(&names, module)?, icarus(&names, module)?, yosys(&sources, module)?])
}

/// The files that lint `module` of `tree` in `scope` (stand-ins written as a side effect).
pub fn files(tree: &Path, manifest: &TreeManifest, module: &str, scope: &Scope) -> Result<Vec<PathBuf>, ToolError> {
    let Scope::Alone(scratch) = scope else {
        return Ok(manifest.sources(tree, module));
    };
    let Some(m) = manifest.modules.iter().find(|m| m.name == module) else {
        return Ok(Vec::new());
    };
    let mut out = vec![tree.join(&m.file)];
    let folder = scratch.join(&m.name);
    for dep in m.depends.iter().filter_map(|d| manifest.modules.iter().find(|x| &x.name == d)) {
        std::fs::create_dir_all(&folder)?;
        let path = folder.join(format!("{}.v", dep.name));
        std::fs::write(&path, stand_in(dep))?;
        out.push(path);
    }
    Ok(out)
}

/// A port-only stand-in for `m`: its inputs unread, its outputs tied to zero, so a module that
/// instantiates it lints without the real body. Only the stand-in waives unread inputs; the
/// module linted over it gets every warning.
pub fn stand_in(m: &TreeModule) -> String {
    let ports: Vec<String> = m.ports.iter().map(|p| format!("    {} wire [{}:0] {}", p.dir, p.width - 1, p.name)).collect();
    let ties: String = m.ports.iter().filter(|p| p.dir == "output").map(|p| format!("    assign {} = {}'d0;\n", p.name, p.width)).collect();
    format!("/* verilator lint_off UNUSEDSIGNAL */\nmodule {} (\n{}\n);\n{ties}endmodule\n/* verilator lint_on UNUSEDSIGNAL */\n", m.name, ports.join(",\n"))
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

/// Lint every module of the tree at `tree` over its whole hierarchy ([`Scope::Hierarchy`]).
pub fn lint_tree(tree: &Path) -> Result<Vec<LintResult>, ToolError> {
    lint_tree_in(tree, &Scope::Hierarchy)
}

/// Lint every module of the tree at `tree` in `scope`, modules in parallel on the available
/// cores (largest files first, so the long runs start early); results in manifest order.
pub fn lint_tree_in(tree: &Path, scope: &Scope) -> Result<Vec<LintResult>, ToolError> {
    let manifest = TreeManifest::load(tree)?;
    let size = |i: usize| std::fs::metadata(tree.join(&manifest.modules[i].file)).map(|m| m.len()).unwrap_or(0);
    let mut order: Vec<usize> = (0..manifest.modules.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(size(i)));
    let mut results = parallel_map(&order, default_jobs(), |&i| (i, lint_module_in(tree, &manifest, &manifest.modules[i].name, scope)));
    results.sort_by_key(|(i, _)| *i);
    let mut all = Vec::new();
    for (_, r) in results {
        all.extend(r?);
    }
    Ok(all)
}
