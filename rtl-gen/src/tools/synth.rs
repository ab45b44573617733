//! `rtl-gen synth`: Yosys area and logic depth of every module of a tree, mapped to 6-input
//! LUTs. The flow `synth; abc -lut 6; opt_clean; stat; ltp -noff` works with Debian's Yosys
//! 0.23 (the yowasp build's ABC exits 0 with no output and must not be used for figures).
//!
//! [`Flow::Fast`] exists for the whole-codeword Ethernet RS decoders (1–4 MB of Verilog, over a
//! million gates): there the full flow's ABC passes (`map` inside `synth`, then `&fraig`,
//! `scorr`, `dc2`, `dch`, `mfs2` before `if`) ran for over an hour and one was killed for memory.
//! The fast flow skips the generic-gate mapping and maps straight to LUTs with ABC's
//! `strash; dretime; if`. Measured against the full flow on the seven RS/flit-CRC modules both
//! finish (CXL encoders/decoders, flit CRC and checker, KR4 encoder): LUTs −3.5 % … +12 %, the
//! same flip-flops and LUT depth, 4–27× less Yosys time. Every row says which flow produced it.
//!
//! [`Flow::Bram`] is the full flow with the inferred memories mapped to Xilinx 7-series block
//! RAM first (Yosys's `memory_libmap` with its `brams_xc4v.txt` library, as `synth_xilinx`
//! does): the streaming RS decoders hold two 80-kbit RAMs that the other flows turn
//! into flip-flops and multiplexers. The block-RAM cells are counted, then deleted before
//! `ltp -noff` so that the depth is the longest LUT path between registers, RAM ports being
//! registers (the RAMs are written and read synchronously).
//!
//! ABC fallback: ABC 1.01 (Yosys 0.23) can abort inside `lutpack`, the last command of Yosys's
//! default `abc -lut 6` script (`lpkCut.c:200: Lpk_CutTruth: Assertion … failed`, return code
//! 134; seen once on a streaming RS decoder). That assertion is a sanity check on a pointer,
//! not on the logic: it requires bits 16–31 of a truth table's address to be non-zero, so it
//! fails when the allocator happens to place a table in the first 64 KiB above a 4 GiB
//! boundary; the same ABC input and script then ran to completion twice (and `lutpack` alone on
//! the mapped netlist three times). No RTL construct triggers it, and any design can hit it.
//! When ABC fails in the full or block-RAM flow, the module is synthesised again with Yosys's
//! script minus `lutpack` ([`NO_LUTPACK_SCRIPT`]; `lutpack` only re-packs an already mapped
//! netlist: the LUT count rises, ≈10 % on that decoder, the depth stays), and the row says so
//! ([`SynthRow::abc_fallback`], a note under the table). The fast flow has no `lutpack`.

use super::{run_measured, ToolError, ToolUsage, TreeManifest};
use serde::Serialize;
use std::path::Path;
use std::process::Command;

/// Which Yosys/ABC script maps a module to LUTs.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Flow {
    /// `synth` (with its ABC gate mapping), then `abc -lut 6` with ABC's full optimisation script.
    Full,
    /// `synth -noabc`, then `abc -lut 6 -fast` (`strash; dretime; if`): for modules too large
    /// for the full flow on a workstation.
    Fast,
    /// [`Flow::Full`] with memories mapped to block RAM (`memory_libmap`) before `memory_map`.
    Bram,
}

/// Under `--flow auto`, modules with a Verilog source (their own or a dependency's) larger than
/// this go through [`Flow::Fast`], the rest through [`Flow::Bram`]. Only multi-megabyte single
/// networks need the fast flow: the whole-codeword KP4 encoder and KR4/KP4 decoders and the 400G
/// decoder of `designs/rs_fec_variants.toml` (1.58 / 1.84 / 4.12 / 3.90 MB; the whole-codeword
/// decoders ran over an hour or out of memory in the full script). The largest file counts, not
/// the sum: the RXL/CXL endpoints total about 2.1 MB (windowed flit CRC generator and checker,
/// 0.76 + 1.05 MB of cheap kept-wire XOR nodes, FEC decoder, replay buffer) yet take 3 CPU
/// minutes and 1.1 GB through the block-RAM flow (measured: 182–185 CPU s) — over ten minutes
/// when their 256-flit replay buffer is flattened into flip-flops by [`Flow::Full`].
pub const AUTO_FAST_BYTES: u64 = 1_400_000;

/// The bytes of a source that synthesis reads: all before its `` `ifdef FORMAL `` block (the
/// properties, which no synthesis run defines), so a module's proofs never change its flow.
fn synthesizable_bytes(path: &Path) -> Option<u64> {
    const FORMAL: &[u8] = b"\n`ifdef FORMAL\n";
    let text = std::fs::read(path).ok()?;
    let end = text.windows(FORMAL.len()).position(|w| w == FORMAL).unwrap_or(text.len());
    Some(end as u64)
}

impl Flow {
    /// The flow `--flow auto` picks for `module`, by the size of its largest source: memories go to
    /// block RAM as an FPGA flow maps them (a replay buffer or a FIFO as flip-flops says little
    /// about its cost), and only the multi-megabyte modules take the fast LUT mapping.
    pub fn auto(tree: &Path, manifest: &TreeManifest, module: &str) -> Flow {
        let bytes: u64 = manifest.sources(tree, module).iter().filter_map(|p| synthesizable_bytes(p)).max().unwrap_or(0);
        if bytes > AUTO_FAST_BYTES {
            Flow::Fast
        } else {
            Flow::Bram
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Flow::Full => "full",
            Flow::Fast => "fast",
            Flow::Bram => "bram",
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SynthRow {
    pub module: String,
    /// The flow that produced the figures.
    pub flow: Flow,
    /// 6-input LUTs after `abc -lut 6`.
    pub luts: u64,
    /// Flip-flops of any kind.
    pub ffs: u64,
    /// Memories Yosys inferred (`$mem_v2` cells before mapping) and their bits.
    pub memories: u64,
    pub memory_bits: u64,
    /// Block-RAM cells (`$__XILINX_BLOCKRAM_*`: RAMB36/RAMB18) of [`Flow::Bram`]; 0 otherwise.
    pub block_rams: u64,
    /// Longest combinational path in LUTs (`ltp -noff`, flip-flops cut the paths).
    pub lut_depth: u64,
    /// Seconds of Yosys, both runs when the ABC fallback was taken.
    pub seconds: f64,
    /// CPU seconds (user + system) of Yosys and its ABC runs, both runs when the fallback was
    /// taken: the figure that does not grow with other jobs on the machine.
    pub cpu_seconds: f64,
    /// Peak resident memory in MB of Yosys or any ABC run it started.
    pub peak_mb: f64,
    /// `None` when Yosys's own LUT script mapped the module; otherwise why ABC failed on it
    /// (its last message and return code), the figures then coming from [`NO_LUTPACK_SCRIPT`].
    pub abc_fallback: Option<String>,
    /// The deepest per-register LUT depth of the flattened netlist ([`register_depths`]): the
    /// longest chain of LUTs from a register, RAM read port or input port to a register or an
    /// output port, submodules included. `lut_depth` is Yosys's `ltp` over the top module alone.
    pub register_depth: u64,
    /// The deepest registers and output ports ([`DEEPEST_LISTED`] at most), deepest first.
    pub deepest_registers: Vec<RegisterDepth>,
}

/// How many registers a [`SynthRow`] lists in `deepest_registers`.
pub const DEEPEST_LISTED: usize = 8;

/// The LUT depth in front of one register (all its bits, every input but the clock: data,
/// enable, reset) or one output port (`(output) name`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RegisterDepth {
    pub register: String,
    pub depth: u64,
}

const FINAL_MARK: &str = "RTLGEN-FINAL-STAT";
/// Instances of the registered-read RAM wrappers (`hw::ram`: `<prefix>ram_1r1w_<W>x<D>`,
/// `<prefix>lutram_1r1w_<W>x<D>`), cut from the top before `ltp` as their RAMs are: a wrapper's
/// read data leaves a register, so the top's paths start there. Asynchronous-read wrappers
/// (`…_async_…`) stay, their read is part of the path.
const RAM_WRAPPER_CELLS: &str = "*ram_1r1w_*";
const ASYNC_RAM_WRAPPER_CELLS: &str = "*ram_1r1w_async_*";

/// Yosys's 7-series block RAMs (RAMB36E1/RAMB18E1 geometry), as `synth_xilinx -family xc7`.
/// A memory hinted `ram_style = "distributed"` (the RIFL TX lanes' retransmission buffers, LUT
/// RAM for ECP5 timing) goes to block RAM as well: the library has no LUT RAM, and the hint would
/// otherwise make `memory_libmap` fail ("no valid mapping"). As LUT RAM, the 256 × 242 buffer
/// would be 968 LUT6 (242 × RAM256X1S) instead of the 7 block RAMs this flow maps it to.
const BRAM_LIBMAP: &str = "setattr -unset ram_style t:$mem_v2 a:ram_style=distributed %i; memory_libmap -lib +/xilinx/brams_xc4v.txt -D HAS_SIZE_36 -D HAS_CASCADE -D HAS_MIXWIDTH_SDP";
const BRAM_CELL: &str = "$__XILINX_BLOCKRAM";

/// Yosys 0.23's default `abc -lut 6` script (`yosys -h abc`, "for -lut/-luts (only one LUT
/// size)") without its final `lutpack -S 1`, in `abc -script +…` form (commas for blanks).
pub const NO_LUTPACK_SCRIPT: &str = "+strash;&get,-n;&fraig,-x;&put;scorr;dc2;dretime;strash;dch,-f;if;mfs2";

/// Which ABC script the LUT mapping of [`Flow::Full`] and [`Flow::Bram`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LutScript {
    /// Yosys's default (ends with `lutpack`).
    Default,
    /// [`NO_LUTPACK_SCRIPT`]: the fallback when ABC failed on the default.
    NoLutpack,
}

/// The Yosys script; with `netlist`, the LUT-mapped netlist (block RAMs deleted, as `ltp` sees
/// it, then flattened: each module was mapped on its own, so a path through a submodule's
/// ports counts the LUTs on both sides) is also written there as Yosys JSON, for
/// [`register_depths`] and `scripts/lut-depth-per-register`.
/// `files` and `netlist` are quoted script words ([`super::yosys_words`]).
fn script_to(files: &str, top: &str, flow: Flow, lut_script: LutScript, netlist: Option<&str>) -> String {
    let (fine, lut_map) = match (flow, lut_script) {
        (Flow::Full | Flow::Bram, LutScript::Default) => ("", "abc -lut 6".to_string()),
        (Flow::Full | Flow::Bram, LutScript::NoLutpack) => ("", format!("abc -lut 6 -script {NO_LUTPACK_SCRIPT}")),
        (Flow::Fast, _) => (" -noabc", "abc -lut 6 -fast".to_string()),
    };
    let (libmap, cut_rams) = match flow {
        Flow::Bram => (format!("{BRAM_LIBMAP}; "), format!("delete t:{BRAM_CELL}*; ")),
        _ => (String::new(), String::new()),
    };
    format!(
        "read_verilog {}; synth -top {top} -run :fine; stat; {libmap}log {FINAL_MARK}; synth -top {top}{fine} -run fine:; {lut_map}; opt_clean; stat; {cut_rams}{}delete {top}/t:{RAM_WRAPPER_CELLS} {top}/t:{ASYNC_RAM_WRAPPER_CELLS} %d; ltp -noff {top}",
        files,
        netlist.map(|p| format!("design -save mapped; flatten; write_json {p}; design -load mapped; ")).unwrap_or_default()
    )
}

/// `(cell type, count)` pairs of the last `Number of cells` section of `log`: `synth` prints
/// its own `stat` before ours, and only the final one describes the LUT-mapped netlist.
fn cell_counts(log: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut in_cells = false;
    for line in log.lines() {
        let t = line.trim();
        if t.starts_with("Number of cells:") {
            out.clear();
            in_cells = true;
            continue;
        }
        if in_cells {
            let mut parts = t.split_whitespace();
            match (parts.next(), parts.next()) {
                (Some(cell), Some(n)) if cell.starts_with('$') => out.push((cell.to_string(), n.parse().unwrap_or(0))),
                _ if t.is_empty() => in_cells = false,
                _ => {}
            }
        }
    }
    out
}

fn field(log: &str, key: &str) -> u64 {
    log.lines().filter_map(|l| l.trim().strip_prefix(key)).filter_map(|v| v.trim().parse().ok()).next_back().unwrap_or(0)
}

/// Why ABC failed inside Yosys, from the log of a failed run: `ABC: execution of command …
/// failed: return code N` (Yosys's error when ABC exits non-zero, e.g. 134 on an assertion)
/// and ABC's last message before it; `None` when the run failed for another reason.
pub fn abc_failure(log: &str) -> Option<String> {
    let lines: Vec<&str> = log.lines().map(str::trim).collect();
    let at = lines.iter().position(|l| l.contains("ABC: execution of command") && l.contains("failed"))?;
    let code = lines[at].rsplit_once("failed:").map(|(_, c)| c.trim().trim_end_matches('.')).unwrap_or("failed");
    let last = lines[..at].iter().rev().filter_map(|l| l.strip_prefix("ABC:")).map(str::trim).find(|l| !l.is_empty() && !l.starts_with('+'));
    Some(match last {
        Some(msg) => format!("{code}: {msg}"),
        None => code.to_string(),
    })
}

pub fn parse_log(module: &str, flow: Flow, log: &str, seconds: f64) -> SynthRow {
    let (coarse, fine) = log.split_once(FINAL_MARK).unwrap_or(("", log));
    let coarse_cells = cell_counts(coarse);
    let fine_cells = cell_counts(fine);
    let count = |cells: &[(String, u64)], f: &dyn Fn(&str) -> bool| cells.iter().filter(|(c, _)| f(c)).map(|(_, n)| n).sum::<u64>();
    let lut_depth = fine
        .lines()
        .filter_map(|l| l.split_once("(length=").and_then(|(_, r)| r.split(')').next()).and_then(|n| n.parse().ok()))
        .next_back()
        .unwrap_or(0);
    SynthRow {
        module: module.to_string(),
        flow,
        luts: count(&fine_cells, &|c| c == "$lut"),
        ffs: count(&fine_cells, &|c| c.contains("DFF")),
        memories: count(&coarse_cells, &|c| c.starts_with("$mem")),
        memory_bits: field(coarse, "Number of memory bits:"),
        block_rams: count(&fine_cells, &|c| c.starts_with(BRAM_CELL)),
        lut_depth,
        seconds,
        cpu_seconds: 0.0,
        peak_mb: 0.0,
        abc_fallback: None,
        register_depth: 0,
        deepest_registers: Vec::new(),
    }
}

/// Per-register LUT depth of a LUT-mapped, flattened Yosys JSON netlist (`write_json` after
/// `abc -lut 6`; the top module is the one with the `top` attribute, else the first): for every
/// flip-flop, grouped by the name of the register its Q drives, the longest chain of `$lut`
/// cells from a flip-flop, an undriven net (a RAM read port once the RAMs are cut out, an input
/// port) to any of its inputs but the clock; for every output port the same to its bits.
/// Deepest first, then by name. `scripts/lut-depth-per-register` computes the same in Python.
pub fn register_depths(netlist_json: &str) -> Result<Vec<RegisterDepth>, String> {
    use serde_json::Value;
    use std::collections::{BTreeMap, HashMap};
    let net: Value = serde_json::from_str(netlist_json).map_err(|e| format!("not a Yosys JSON netlist: {e}"))?;
    let modules = net.get("modules").and_then(Value::as_object).ok_or("the netlist has no `modules` object")?;
    let is_top = |m: &Value| m.pointer("/attributes/top").and_then(Value::as_str).is_some_and(|v| v.trim_start_matches('0') == "1");
    let top = modules.values().find(|m| is_top(m)).or_else(|| modules.values().next()).ok_or("the netlist has no module")?;
    let empty = serde_json::Map::new();
    let cells = top.get("cells").and_then(Value::as_object).unwrap_or(&empty);
    let bits = |v: Option<&Value>| -> Vec<u64> { v.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default() };
    // LUT output bit → its input bits; flip-flops are the other endpoints.
    let mut lut_inputs: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut flops: Vec<(u64, Vec<u64>)> = Vec::new();
    for cell in cells.values() {
        let ty = cell.get("type").and_then(Value::as_str).unwrap_or("");
        let conn = cell.get("connections").and_then(Value::as_object).unwrap_or(&empty);
        if ty == "$lut" {
            let ins = bits(conn.get("A"));
            for y in bits(conn.get("Y")) {
                lut_inputs.insert(y, ins.clone());
            }
        } else if ty.contains("DFF") || ty.contains("DLATCH") {
            let q = bits(conn.get("Q")).first().copied();
            let ins = conn.iter().filter(|(p, _)| *p != "Q" && *p != "C").flat_map(|(_, b)| bits(Some(b))).collect();
            if let Some(q) = q {
                flops.push((q, ins));
            }
        }
    }
    // A bit's name: a public (no `$`) net name before a generated one, then the shortest, then
    // the first in order.
    let mut names: HashMap<u64, &str> = HashMap::new();
    let better = |new: &str, old: &str| (new.starts_with('$'), new.len(), new) < (old.starts_with('$'), old.len(), old);
    if let Some(nets) = top.get("netnames").and_then(Value::as_object) {
        for (name, net) in nets {
            for b in bits(net.get("bits")) {
                match names.get(&b) {
                    Some(old) if !better(name, old) => {}
                    _ => {
                        names.insert(b, name);
                    }
                }
            }
        }
    }
    let mut memo: HashMap<u64, u64> = HashMap::new();
    let mut depths: BTreeMap<String, u64> = BTreeMap::new();
    for (q, ins) in &flops {
        let reg = names.get(q).map_or_else(|| format!("(bit {q})"), |n| n.to_string());
        let d = ins.iter().map(|&b| lut_depth(b, &lut_inputs, &mut memo)).max().unwrap_or(0);
        let e = depths.entry(reg).or_insert(0);
        *e = (*e).max(d);
    }
    if let Some(ports) = top.get("ports").and_then(Value::as_object) {
        for (name, port) in ports.iter().filter(|(_, p)| p.get("direction").and_then(Value::as_str) == Some("output")) {
            let d = bits(port.get("bits")).into_iter().map(|b| lut_depth(b, &lut_inputs, &mut memo)).max().unwrap_or(0);
            depths.insert(format!("(output) {name}"), d);
        }
    }
    let mut out: Vec<RegisterDepth> = depths.into_iter().map(|(register, depth)| RegisterDepth { register, depth }).collect();
    out.sort_by(|a, b| b.depth.cmp(&a.depth).then_with(|| a.register.cmp(&b.register)));
    Ok(out)
}

/// LUTs on the longest chain ending at `bit` (0 for a register output, an input or a constant),
/// iteratively so that a long chain cannot overflow the stack; a combinational loop counts once.
fn lut_depth(bit: u64, lut_inputs: &std::collections::HashMap<u64, Vec<u64>>, memo: &mut std::collections::HashMap<u64, u64>) -> u64 {
    let mut stack = vec![(bit, false)];
    while let Some((b, expanded)) = stack.pop() {
        if memo.contains_key(&b) && !expanded {
            continue;
        }
        let Some(ins) = lut_inputs.get(&b) else {
            memo.insert(b, 0);
            continue;
        };
        if expanded {
            let d = 1 + ins.iter().map(|i| memo.get(i).copied().unwrap_or(0)).max().unwrap_or(0);
            memo.insert(b, d);
        } else {
            // Provisional 0 breaks loops; the final value is written when the inputs are done.
            memo.insert(b, 0);
            stack.push((b, true));
            stack.extend(ins.iter().filter(|i| !memo.contains_key(i)).map(|&i| (i, false)));
        }
    }
    memo[&bit]
}

pub fn synth_module(tree: &Path, manifest: &TreeManifest, module: &str, flow: Flow) -> Result<(SynthRow, String), ToolError> {
    synth_module_to(tree, manifest, module, flow, None)
}

/// [`synth_module`], also writing the LUT-mapped netlist as Yosys JSON to `netlist`.
/// The netlist is always written (to a temporary file without `netlist`) and read back for
/// the per-register depth ([`SynthRow::register_depth`], [`SynthRow::deepest_registers`]).
pub fn synth_module_to(tree: &Path, manifest: &TreeManifest, module: &str, flow: Flow, netlist: Option<&Path>) -> Result<(SynthRow, String), ToolError> {
    let files = super::yosys_words(&manifest.sources(tree, module))?;
    let scratch;
    let netlist = match netlist {
        Some(p) => p.to_path_buf(),
        None => {
            scratch = tempfile::Builder::new().prefix("rtlgen-synth-").tempdir()?;
            scratch.path().join(format!("{module}.json"))
        }
    };
    let word = super::yosys_word(&netlist)?;
    let (mut row, log) = synth_with(module, flow, &|lut_script| run_measured(Command::new("yosys").args(["-p", &script_to(&files, module, flow, lut_script, Some(&word))])))?;
    let text = std::fs::read_to_string(&netlist)?;
    let depths = register_depths(&text).map_err(|e| ToolError::Io(std::io::Error::other(format!("{}: {e}", netlist.display()))))?;
    row.register_depth = depths.first().map_or(0, |d| d.depth);
    row.deepest_registers = depths.into_iter().take(DEEPEST_LISTED).collect();
    Ok((row, log))
}

/// One module through `flow`, Yosys being `yosys(script)` → (success, log): Yosys's own LUT
/// script first, and when ABC fails on it in the full or block-RAM flow, a second run with
/// [`NO_LUTPACK_SCRIPT`] whose row records the first failure in `abc_fallback`. The log is the
/// last run's. Any other failure (or ABC failing again) is an error naming the module.
fn synth_with(module: &str, flow: Flow, yosys: &dyn Fn(LutScript) -> Result<(bool, String, ToolUsage), ToolError>) -> Result<(SynthRow, String), ToolError> {
    let start = std::time::Instant::now();
    let (mut ok, mut log, mut usage) = yosys(LutScript::Default)?;
    let mut fallback = None;
    if !ok && flow != Flow::Fast {
        if let Some(why) = abc_failure(&log) {
            eprintln!("ABC failed on {module} with Yosys's LUT script ({why}); mapping it again without lutpack");
            let again;
            (ok, log, again) = yosys(LutScript::NoLutpack)?;
            usage = usage.then(again);
            fallback = Some(why);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    if !ok {
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        let retried = fallback.as_deref().map(|why| format!(" (also without lutpack, after ABC failed with Yosys's script: {why})")).unwrap_or_default();
        return Err(ToolError::Io(std::io::Error::other(format!("yosys failed on {module}{retried}:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n")))));
    }
    let mut row = parse_log(module, flow, &log, seconds);
    row.abc_fallback = fallback;
    (row.cpu_seconds, row.peak_mb) = (usage.cpu_seconds, usage.peak_mb);
    Ok((row, log))
}

/// The report as an aligned text table.
pub fn table(rows: &[SynthRow]) -> String {
    let w = rows.iter().map(|r| r.module.len()).max().unwrap_or(6).max(6);
    let mut s = format!(
        "| {:<w$} | {:>7} | {:>6} | {:>4} | {:>9} | {:>4} | {:>9} | {:>9} | {:>4} | {:>7} | {:>7} |\n",
        "module", "LUT6", "FFs", "mems", "mem bits", "BRAM", "LUT depth", "reg depth", "flow", "CPU s", "peak MB"
    );
    let rule = [w + 2, 9, 8, 6, 11, 6, 11, 11, 6, 9, 9].map(|n| "-".repeat(n));
    s.push_str(&format!("|{}|\n", rule.join("|")));
    for r in rows {
        s.push_str(&format!(
            "| {:<w$} | {:>7} | {:>6} | {:>4} | {:>9} | {:>4} | {:>9} | {:>9} | {:>4} | {:>7.1} | {:>7.0} |\n",
            r.module,
            r.luts,
            r.ffs,
            r.memories,
            r.memory_bits,
            r.block_rams,
            r.lut_depth,
            r.register_depth,
            r.flow.name(),
            r.cpu_seconds,
            r.peak_mb
        ));
    }
    for r in rows {
        if let Some(why) = &r.abc_fallback {
            s.push_str(&format!("{}: ABC failed with Yosys's LUT script ({why}); mapped with it minus lutpack\n", r.module));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::run;

    /// A 64 × 36 RAM (one write port, registered read) behind a 36-bit XOR-reduced output:
    /// the block-RAM flow keeps the RAM out of the LUT and flip-flop counts and measures the
    /// depth from its read port; the full flow turns it into 2,304 flip-flops and a 64-way
    /// read multiplexer (a deeper stage before the read register).
    const RAM: &str = "module ramtop(input wire clk, input wire we, input wire [5:0] wa, input wire [5:0] ra, input wire [35:0] d, output reg q);
    reg [35:0] mem [0:63];
    reg [35:0] rd;
    always @(posedge clk) begin
        if (we) mem[wa] <= d;
        rd <= mem[ra];
        q <= ^rd;
    end
endmodule
";

    fn synth_ram_with(flow: Flow, lut_script: LutScript) -> (SynthRow, String) {
        synth_text(RAM, flow, lut_script)
    }

    fn synth_text(text: &str, flow: Flow, lut_script: LutScript) -> (SynthRow, String) {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("ramtop.v");
        std::fs::write(&file, text).expect("write");
        let (ok, log) = run(Command::new("yosys").args(["-p", &script_to(&super::super::yosys_word(&file).expect("a plain temp path"), "ramtop", flow, lut_script, None)])).expect("yosys installed");
        assert!(ok, "{log}");
        (parse_log("ramtop", flow, &log, 0.0), log)
    }

    fn synth_ram(flow: Flow) -> SynthRow {
        synth_ram_with(flow, LutScript::Default).0
    }

    #[test]
    fn bram_flow_maps_the_memory_to_block_ram_and_cuts_the_depth_there() {
        let bram = synth_ram(Flow::Bram);
        assert_eq!(bram.block_rams, 1, "{bram:?}");
        // The XOR of 36 bits from the RAM's read port to q: ⌈log6 36⌉ = 2 levels, 3 as ABC
        // maps it (Yosys 0.23).
        assert!((2..=3).contains(&bram.lut_depth), "{bram:?}");
        assert!(bram.ffs <= 40, "{bram:?}");
        let full = synth_ram(Flow::Full);
        assert_eq!(full.block_rams, 0);
        assert!(full.ffs >= 64 * 36, "the full flow flattens the RAM: {full:?}");
        assert!(full.lut_depth > bram.lut_depth, "the read multiplexer: {full:?}");
        // A LUT-RAM hint (as the RIFL TX buffer's) still maps: to block RAM, the only RAM the
        // library has, instead of `memory_libmap` failing with "no valid mapping".
        let hinted = RAM.replace("    reg [35:0] mem", "    (* ram_style = \"distributed\" *) reg [35:0] mem");
        assert!(hinted.contains("distributed"));
        let (row, _) = synth_text(&hinted, Flow::Bram, LutScript::Default);
        assert_eq!((row.block_rams, row.lut_depth), (bram.block_rams, bram.lut_depth), "{row:?}");
        assert!(table(&[bram]).contains("| bram |"));
    }

    /// The fallback script is accepted by Yosys's `abc -script +…` and is Yosys's LUT script
    /// minus `lutpack`: ABC echoes every command it runs (`ABC: + cmd`).
    #[test]
    fn the_no_lutpack_script_runs_yosys_lut_script_without_lutpack() {
        let abc_commands = |log: &str| -> Vec<String> { log.lines().filter_map(|l| l.trim().strip_prefix("ABC: + ")).map(|c| c.split_whitespace().next().unwrap_or("").to_string()).collect() };
        let (default, log) = synth_ram_with(Flow::Bram, LutScript::Default);
        let with_lutpack = abc_commands(&log);
        assert_eq!(with_lutpack.last().map(String::as_str), Some("write_blif"), "{with_lutpack:?}");
        assert!(with_lutpack.iter().any(|c| c == "lutpack"), "{with_lutpack:?}");
        let (fallback, log) = synth_ram_with(Flow::Bram, LutScript::NoLutpack);
        let without = abc_commands(&log);
        let expected: Vec<String> = with_lutpack.iter().filter(|c| *c != "lutpack").cloned().collect();
        // The gate-level `abc -fast` of `synth` runs first in both; the LUT scripts then differ
        // only by lutpack.
        assert_eq!(without, expected, "ABC commands with the fallback script");
        assert_eq!(fallback.block_rams, 1, "{fallback:?}");
        assert_eq!(fallback.ffs, default.ffs, "{fallback:?} vs {default:?}");
        assert!((2..=3).contains(&fallback.lut_depth), "{fallback:?}");
        assert!(fallback.luts >= default.luts && fallback.luts > 0, "lutpack only merges LUTs: {fallback:?} vs {default:?}");
    }

    /// A hand-made mapped netlist: input `a` (bits 2, 3) → LUT → LUT → register `r` (Q bit 6,
    /// its enable from a third LUT on `a`); `r` → LUT → output `y`; a second module without the
    /// `top` attribute is ignored; a generated name loses to a public one.
    const NETLIST: &str = r#"{"modules": {
      "sub": {"attributes": {}, "ports": {}, "cells": {}, "netnames": {}},
      "top": {"attributes": {"top": "00000000000000000000000000000001"},
        "ports": {"a": {"direction": "input", "bits": [2, 3]}, "y": {"direction": "output", "bits": [8, "0"]}},
        "cells": {
          "l1": {"type": "$lut", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [2, 3], "Y": [4]}},
          "l2": {"type": "$lut", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [4, 2, "1"], "Y": [5]}},
          "le": {"type": "$lut", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [3], "Y": [7]}},
          "ff": {"type": "$_DFFE_PP_", "port_directions": {"C": "input", "D": "input", "E": "input", "Q": "output"}, "connections": {"C": [9], "D": [5], "E": [7], "Q": [6]}},
          "lo": {"type": "$lut", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [6], "Y": [8]}}
        },
        "netnames": {"$auto$q": {"bits": [6]}, "r": {"bits": [6]}, "a": {"bits": [2, 3]}, "y": {"bits": [8, "0"]}}}}}"#;

    #[test]
    fn register_depths_count_luts_from_registers_and_inputs_to_registers_and_outputs() {
        let d = register_depths(NETLIST).expect("parses");
        let pairs: Vec<(&str, u64)> = d.iter().map(|r| (r.register.as_str(), r.depth)).collect();
        assert_eq!(pairs, [("r", 2), ("(output) y", 1)]);
        assert!(register_depths("{").is_err());
        assert!(register_depths("{\"modules\": {}}").is_err());
    }

    /// The real flow: the block-RAM test module through `synth_module_to` reports the depth
    /// from the RAM's read port to `q` per register, as `ltp` sees it.
    #[test]
    fn synth_rows_carry_the_per_register_depth() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("rtl")).expect("rtl dir");
        std::fs::write(dir.path().join("rtl/ramtop.v"), RAM).expect("write");
        let manifest: TreeManifest = serde_json::from_str(r#"{"design": "t", "modules": [{"name": "ramtop", "file": "rtl/ramtop.v"}]}"#).expect("manifest");
        let (row, _) = synth_module_to(dir.path(), &manifest, "ramtop", Flow::Bram, None).expect("yosys installed");
        assert_eq!(row.register_depth, row.lut_depth, "{row:?}");
        assert_eq!(row.deepest_registers.first().map(|r| r.register.as_str()), Some("q"), "{row:?}");
        assert!(table(&[row]).contains("reg depth"));
    }

    /// The tail of Yosys 0.23's log when ABC 1.01 aborts in `lutpack`: Yosys's error line
    /// (abc.cc) after ABC's glibc assertion message (the assertion of `lpkCut.c`; temp path
    /// shortened).
    const ABC_ABORT_LOG: &str = "ABC: + mfs2
ABC: + lutpack -S 1
ABC: yosys-abc: src/opt/lpk/lpkCut.c:200: Lpk_CutTruth: Assertion `((unsigned)(ABC_PTRUINT_T)pFanin->pCopy) & 0xffff0000' failed.
ERROR: ABC: execution of command \"/usr/bin/yosys-abc -s -f /tmp/yosys-abc-x/abc.script 2>&1\" failed: return code 134.
";

    /// The end of a successful run, as `parse_log` reads it.
    const MAPPED_LOG: &str = "RTLGEN-FINAL-STAT
   Number of cells:                 12
     $_DFF_P_                        4
     $lut                            8

Longest topological path in top (length=3):
";

    #[test]
    fn abc_failure_names_the_return_code_and_abc_last_message() {
        let why = abc_failure(ABC_ABORT_LOG).expect("an ABC failure");
        assert_eq!(why, "return code 134: yosys-abc: src/opt/lpk/lpkCut.c:200: Lpk_CutTruth: Assertion `((unsigned)(ABC_PTRUINT_T)pFanin->pCopy) & 0xffff0000' failed.");
        assert_eq!(abc_failure("ERROR: Module `top' not found!\n"), None, "not an ABC failure");
        assert_eq!(abc_failure(MAPPED_LOG), None);
    }

    /// `synth_with` against a scripted Yosys: which scripts it runs, in which order, and what
    /// the row says.
    fn fake_synth(flow: Flow, answers: Vec<(bool, &'static str)>) -> (Result<(SynthRow, String), ToolError>, Vec<LutScript>) {
        let calls = std::cell::RefCell::new(Vec::new());
        let answers = std::cell::RefCell::new(answers.into_iter());
        let result = synth_with("top", flow, &|lut| {
            calls.borrow_mut().push(lut);
            let (ok, log) = answers.borrow_mut().next().expect("Yosys called more often than scripted");
            Ok((ok, log.to_string(), ToolUsage { cpu_seconds: 1.5, peak_mb: 100.0 * calls.borrow().len() as f64 }))
        });
        (result, calls.into_inner())
    }

    #[test]
    fn abc_abort_is_retried_without_lutpack_and_reported() {
        let (r, calls) = fake_synth(Flow::Bram, vec![(false, ABC_ABORT_LOG), (true, MAPPED_LOG)]);
        assert_eq!(calls, [LutScript::Default, LutScript::NoLutpack]);
        let (row, _) = r.expect("the fallback maps the module");
        assert_eq!((row.luts, row.ffs, row.lut_depth), (8, 4, 3), "{row:?}");
        let why = row.abc_fallback.clone().expect("the row records the fallback");
        assert!(why.contains("return code 134") && why.contains("Lpk_CutTruth"), "{why}");
        let json = serde_json::to_value(&row).expect("json");
        assert_eq!(json["abc_fallback"].as_str(), Some(why.as_str()), "{json}");
        // Both runs' CPU add up; the peak is the larger run's.
        assert_eq!((row.cpu_seconds, row.peak_mb), (3.0, 200.0), "{row:?}");
        assert_eq!((json["cpu_seconds"].as_f64(), json["peak_mb"].as_f64()), (Some(3.0), Some(200.0)), "{json}");
        let t = table(std::slice::from_ref(&row));
        assert!(t.contains("top: ABC failed with Yosys's LUT script (return code 134") && t.contains("minus lutpack"), "{t}");

        // Without a failure: one run, no note.
        let (r, calls) = fake_synth(Flow::Full, vec![(true, MAPPED_LOG)]);
        assert_eq!(calls, [LutScript::Default]);
        let row = r.expect("mapped").0;
        assert_eq!(row.abc_fallback, None);
        assert_eq!(serde_json::to_value(&row).expect("json")["abc_fallback"], serde_json::Value::Null);
        assert!(!table(&[row]).contains("lutpack"));
    }

    #[test]
    fn other_failures_are_not_retried_and_a_second_abc_failure_is_an_error() {
        // Not ABC: one run, the error names the module.
        let (r, calls) = fake_synth(Flow::Full, vec![(false, "ERROR: syntax error\n")]);
        assert_eq!(calls, [LutScript::Default]);
        let e = r.expect_err("a failed run is an error").to_string();
        assert!(e.contains("yosys failed on top") && e.contains("syntax error"), "{e}");
        // The fast flow has no lutpack to drop.
        let (r, calls) = fake_synth(Flow::Fast, vec![(false, ABC_ABORT_LOG)]);
        assert_eq!(calls, [LutScript::Default]);
        assert!(r.is_err());
        // ABC failing again: an error that says both runs failed.
        let (r, calls) = fake_synth(Flow::Bram, vec![(false, ABC_ABORT_LOG), (false, ABC_ABORT_LOG)]);
        assert_eq!(calls, [LutScript::Default, LutScript::NoLutpack]);
        let e = r.expect_err("both runs failed").to_string();
        assert!(e.contains("also without lutpack") && e.contains("return code 134"), "{e}");
    }
}
