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
//! does): the streaming RS decoders (issue 15) hold two 80-kbit RAMs that the other flows turn
//! into flip-flops and multiplexers. The block-RAM cells are counted, then deleted before
//! `ltp -noff` so that the depth is the longest LUT path between registers, RAM ports being
//! registers (the RAMs are written and read synchronously).

use super::{run, ToolError, TreeManifest};
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

/// Under `--flow auto`, modules whose Verilog (dependencies included) is larger than this go
/// through [`Flow::Fast`]: in the default design those are the three RXL/CXL endpoints
/// (1.26 MB each with their flit CRC generator and checker; ABC's full script takes over ten
/// minutes on each); the next largest module is the KP4 decoder stream at 0.64 MB. The
/// whole-codeword KP4 encoder and KR4/KP4 decoders of `designs/rs_fec_variants.toml`
/// (1.6 / 1.7 / 3.9 MB) are the other modules it was made for.
pub const AUTO_FAST_BYTES: u64 = 1 << 20;

impl Flow {
    /// The flow `--flow auto` picks for `module`: by the size of its sources.
    pub fn auto(tree: &Path, manifest: &TreeManifest, module: &str) -> Flow {
        let bytes: u64 = manifest.sources(tree, module).iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
        if bytes > AUTO_FAST_BYTES {
            Flow::Fast
        } else {
            Flow::Full
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
    pub seconds: f64,
}

const FINAL_MARK: &str = "RTLGEN-FINAL-STAT";

/// Yosys's 7-series block RAMs (RAMB36E1/RAMB18E1 geometry), as `synth_xilinx -family xc7`.
const BRAM_LIBMAP: &str = "memory_libmap -lib +/xilinx/brams_xc4v.txt -D HAS_SIZE_36 -D HAS_CASCADE -D HAS_MIXWIDTH_SDP";
const BRAM_CELL: &str = "$__XILINX_BLOCKRAM";

fn script(files: &[String], top: &str, flow: Flow) -> String {
    let (fine, lut_map) = match flow {
        Flow::Full | Flow::Bram => ("", "abc -lut 6"),
        Flow::Fast => (" -noabc", "abc -lut 6 -fast"),
    };
    let (libmap, cut_rams) = match flow {
        Flow::Bram => (format!("{BRAM_LIBMAP}; "), format!("delete t:{BRAM_CELL}*; ")),
        _ => (String::new(), String::new()),
    };
    format!(
        "read_verilog {}; synth -top {top} -run :fine; stat; {libmap}log {FINAL_MARK}; synth -top {top}{fine} -run fine:; {lut_map}; opt_clean; stat; {cut_rams}ltp -noff",
        files.join(" ")
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
    }
}

pub fn synth_module(tree: &Path, manifest: &TreeManifest, module: &str, flow: Flow) -> Result<(SynthRow, String), ToolError> {
    let files: Vec<String> = manifest.sources(tree, module).iter().map(|p| p.display().to_string()).collect();
    let start = std::time::Instant::now();
    let (ok, log) = run(Command::new("yosys").args(["-p", &script(&files, module, flow)]))?;
    let seconds = start.elapsed().as_secs_f64();
    if !ok {
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        return Err(ToolError::Io(std::io::Error::other(format!("yosys failed on {module}:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n")))));
    }
    Ok((parse_log(module, flow, &log, seconds), log))
}

/// The report as an aligned text table.
pub fn table(rows: &[SynthRow]) -> String {
    let w = rows.iter().map(|r| r.module.len()).max().unwrap_or(6).max(6);
    let mut s = format!("| {:<w$} | {:>7} | {:>6} | {:>4} | {:>9} | {:>4} | {:>9} | {:>4} |\n", "module", "LUT6", "FFs", "mems", "mem bits", "BRAM", "LUT depth", "flow");
    s.push_str(&format!("|{}|{}|{}|{}|{}|{}|{}|{}|\n", "-".repeat(w + 2), "-".repeat(9), "-".repeat(8), "-".repeat(6), "-".repeat(11), "-".repeat(6), "-".repeat(11), "-".repeat(6)));
    for r in rows {
        s.push_str(&format!("| {:<w$} | {:>7} | {:>6} | {:>4} | {:>9} | {:>4} | {:>9} | {:>4} |\n", r.module, r.luts, r.ffs, r.memories, r.memory_bits, r.block_rams, r.lut_depth, r.flow.name()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn synth_ram(flow: Flow) -> SynthRow {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("ramtop.v");
        std::fs::write(&file, RAM).expect("write");
        let (ok, log) = run(Command::new("yosys").args(["-p", &script(&[file.display().to_string()], "ramtop", flow)])).expect("yosys installed");
        assert!(ok, "{log}");
        parse_log("ramtop", flow, &log, 0.0)
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
        assert!(table(&[bram]).contains("| bram |"));
    }
}
