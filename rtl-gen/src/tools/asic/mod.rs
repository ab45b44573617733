//! `rtl-gen asic`: a module of a generated tree through standard-cell synthesis (Yosys with a
//! Liberty library, [`mapping`]) and static timing against the SDC the generator emitted
//! (OpenSTA, [`sta`]); the figures an ASIC team asks first (cells, area in µm², flip-flops,
//! worst slack and the critical path, power) and the files a hand-off package holds
//! ([`package`]). The flow installs nothing: a missing tool or library names its Debian package
//! (`yosys`; `qflow` for `sta` and the OSU libraries).

pub mod gates;
pub mod library;
pub mod macros;
pub mod mapping;
pub mod package;
pub mod pnr;
pub mod sta;

use super::{run, yosys_word, yosys_words, ToolError, TreeManifest};
pub use library::{Library, LibraryChoice};
pub use macros::RamMode;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One module's figures.
#[derive(Debug, Clone, Serialize)]
pub struct AsicRow {
    pub module: String,
    pub library: String,
    /// The clock the netlist was mapped and timed at.
    pub clock_mhz: f64,
    pub cells: u64,
    /// Sum of the cells' Liberty areas (µm² for the OSU libraries), before placement.
    pub area_um2: f64,
    pub flip_flops: u64,
    /// How the RAM wrappers were synthesized.
    pub ram: RamMode,
    /// The RAM wrappers kept as macros (`--ram macro`): shape, instances, bits; their area is
    /// not in `area_um2`.
    pub macros: Vec<macros::RamMacro>,
    /// Macro input pins the netlist ties to a constant (`pin = 0|1`, e.g. a read enable held
    /// high): no path reaches them, so they are not counted in `unconstrained`.
    pub macro_pins_tied: Vec<String>,
    /// The assumed timing of the macro pins (`None` without macros).
    pub macro_timing: Option<macros::MacroTiming>,
    pub cell_counts: BTreeMap<String, u64>,
    /// Yosys's `Warning:` lines (none expected).
    pub yosys_warnings: Vec<String>,
    /// Worst setup slack in ns; `None` when the module has no timed path.
    pub worst_slack_ns: Option<f64>,
    pub critical_path: Option<sta::CriticalPath>,
    /// What `check_setup -verbose` reported (unconstrained endpoints, ports without delay,
    /// loops); empty when every path is constrained.
    pub unconstrained: Vec<String>,
    /// OpenSTA's total power estimate in mW at its default switching activity.
    pub power_mw: Option<f64>,
    pub yosys_seconds: f64,
    pub sta_seconds: f64,
    /// The placed and routed layout's figures (`--pnr`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pnr: Option<pnr::PnrFigures>,
}

/// The files of one run, in its work folder.
#[derive(Debug, Clone)]
pub struct AsicRun {
    pub row: AsicRow,
    /// The mapped netlist (structural Verilog of library cells).
    pub netlist: PathBuf,
    /// The SDC read by OpenSTA.
    pub sdc: PathBuf,
    pub yosys_log: PathBuf,
    pub sta_log: PathBuf,
    /// The macros' Liberty timing models (`None` without macros).
    pub macro_liberty: Option<PathBuf>,
    /// The RTL of the wrappers kept as macros (their behavioural models in a gate-level tree).
    pub macro_sources: Vec<PathBuf>,
}

/// The SDC the generator wrote for the tree's design: `<tree>/constraints/<design>.sdc` (a
/// design file's tree) or `<tree>/../constraints/<design>.sdc` (the default design, whose tree
/// is `generated/` beside the workspace's `constraints/`).
pub fn find_sdc(tree: &Path, manifest: &TreeManifest) -> Result<PathBuf, ToolError> {
    let name = format!("{}.sdc", manifest.design);
    let candidates = [tree.join("constraints").join(&name), tree.join("..").join("constraints").join(&name)];
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        ToolError::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no SDC of design {} at {} or {}; regenerate the tree with `rtl-gen generate`", manifest.design, candidates[0].display(), candidates[1].display()),
        ))
    })
}

/// The SDC `module` is timed against: its own (`<module>.sdc`, written for a module with several
/// clocks) where the generator wrote one, else the design's ([`find_sdc`]).
pub fn find_module_sdc(tree: &Path, manifest: &TreeManifest, module: &str) -> Result<PathBuf, ToolError> {
    let design = find_sdc(tree, manifest)?;
    let own = design.with_file_name(format!("{module}.sdc"));
    Ok(if own.is_file() { own } else { design })
}

/// A tool missing from PATH, as an error naming its Debian package.
fn missing(e: ToolError, tool: &str, package: &str) -> ToolError {
    match e {
        ToolError::Missing { reason, .. } => ToolError::MissingPackage { what: format!("`{tool}`"), package: package.into(), reason },
        other => other,
    }
}

/// The last lines of a failed tool's log, for its error.
fn tail(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The clock a module is mapped and timed at: `clock_mhz` when given, else the design's.
pub fn clock_of(manifest: &TreeManifest, clock_mhz: Option<f64>) -> Result<f64, ToolError> {
    clock_mhz.or(manifest.clock_mhz).ok_or_else(|| ToolError::Io(std::io::Error::other(format!("the manifest of design {} has no clock_mhz; pass --clock-mhz", manifest.design))))
}

/// `module` of `tree` mapped to `library` and timed, its files under `work/<module>/`.
/// `clock_mhz` overrides the design's clock (ABC's target and the SDC's clock period); `ram`
/// says whether the synchronous-read RAM wrappers under it stay macros ([`macros`]).
pub fn map_module(tree: &Path, manifest: &TreeManifest, module: &str, library: &Library, clock_mhz: Option<f64>, ram: RamMode, work: &Path) -> Result<AsicRun, ToolError> {
    if !manifest.modules.iter().any(|m| m.name == module) {
        return Err(ToolError::Io(std::io::Error::other(format!("no module {module} in design {}", manifest.design))));
    }
    let mhz = clock_of(manifest, clock_mhz)?;
    let sdc = find_module_sdc(tree, manifest, module)?;
    let dir = work.join(module);
    std::fs::create_dir_all(&dir)?;
    let netlist = dir.join(format!("{module}.v"));
    let liberty = yosys_word(&library.liberty)?;
    let period_ns = 1000.0 / mhz;
    let wrappers = if ram == RamMode::Macro { macros::wrappers(manifest, module) } else { Vec::new() };
    if let Some(bad) = wrappers.iter().find(|w| !super::is_identifier(&w.module)) {
        return Err(ToolError::Io(std::io::Error::other(format!("RAM wrapper {:?} is not a plain identifier", bad.module))));
    }
    let macro_names: Vec<String> = wrappers.iter().map(|w| w.module.clone()).collect();

    let script = mapping::script(&yosys_words(&manifest.sources(tree, module))?, module, &liberty, (period_ns * 1000.0).round() as u64, &yosys_word(&netlist)?, &macro_names);
    let start = Instant::now();
    let (ok, log) = run(Command::new("yosys").args(["-p", &script])).map_err(|e| missing(e, "yosys", "yosys"))?;
    let yosys_seconds = start.elapsed().as_secs_f64();
    let yosys_log = dir.join("yosys.log");
    std::fs::write(&yosys_log, &log)?;
    let stat = match (ok, mapping::parse_stat(&log)) {
        (true, Some(stat)) => stat,
        _ => return Err(ToolError::Io(std::io::Error::other(format!("yosys failed to map {module} to {}:\n{}", library.name, tail(&log, 15))))),
    };
    // A generic cell (`$_AND_`) or a submodule left in the netlist is not a library cell.
    let foreign: Vec<&str> = stat.cell_counts.keys().filter(|c| !library.cells.contains(c) && !macro_names.contains(c)).map(String::as_str).collect();
    if !foreign.is_empty() {
        return Err(ToolError::Io(std::io::Error::other(format!("{module}: cells left unmapped to {} ({}); see {}", library.name, foreign.join(", "), yosys_log.display()))));
    }

    let override_ns = clock_mhz.map(|_| period_ns);
    let used = macros::used(&wrappers, &stat.cell_counts);
    let macro_liberty = if used.is_empty() {
        None
    } else {
        let lib = dir.join("ram_macros.lib");
        let kept: Vec<macros::Wrapper> = wrappers.iter().filter(|w| used.iter().any(|u| u.module == w.module)).cloned().collect();
        std::fs::write(&lib, macros::liberty(&kept, &macros::DEFAULT_TIMING))?;
        Some(lib)
    };
    let mut tcl = sta::script(&liberty, &yosys_word(&netlist)?, module, &yosys_word(&sdc)?, override_ns);
    if let Some(lib) = &macro_liberty {
        tcl = sta::with_tied_macro_pins(&sta::with_library(&tcl, &yosys_word(lib)?), &used.iter().map(|u| u.module.clone()).collect::<Vec<_>>());
    }
    let tcl_path = dir.join("sta.tcl");
    std::fs::write(&tcl_path, &tcl)?;
    let start = Instant::now();
    let (_, sta_text) = run(Command::new("sta").arg("-no_splash").arg("-exit").arg(&tcl_path)).map_err(|e| missing(e, "sta", "qflow"))?;
    let sta_seconds = start.elapsed().as_secs_f64();
    let sta_log = dir.join("sta.log");
    std::fs::write(&sta_log, &sta_text)?;
    let report = sta::parse(&sta_text);
    if !report.errors.is_empty() || !sta_text.contains(sta::END_MARK) {
        return Err(ToolError::Io(std::io::Error::other(format!(
            "OpenSTA rejected the netlist or the SDC of {module} ({}):\n{}",
            sdc.display(),
            if report.errors.is_empty() { tail(&sta_text, 15) } else { report.errors.join("\n") }
        ))));
    }
    if !report.sdc_warnings.is_empty() {
        return Err(ToolError::Io(std::io::Error::other(format!(
            "OpenSTA ignored part of the SDC of {module} ({}): the module would not be timed as it says:\n{}",
            sdc.display(),
            report.sdc_warnings.join("\n")
        ))));
    }
    let tied = sta::tied_pins(&sta_text);
    let row = AsicRow {
        module: module.to_string(),
        library: library.name.clone(),
        clock_mhz: mhz,
        cells: stat.cells,
        area_um2: stat.area,
        flip_flops: mapping::flip_flops(&stat, &library.sequential),
        ram,
        macro_timing: macro_liberty.as_ref().map(|_| macros::DEFAULT_TIMING),
        macros: used.clone(),
        cell_counts: stat.cell_counts,
        yosys_warnings: log.lines().map(str::trim).filter(|l| l.starts_with("Warning:")).map(String::from).collect(),
        worst_slack_ns: report.worst.as_ref().map(|p| p.slack_ns),
        critical_path: report.worst,
        unconstrained: sta::without_tied(&report.setup_problems, &tied),
        macro_pins_tied: tied,
        power_mw: report.power_mw,
        yosys_seconds,
        sta_seconds,
        pnr: None,
    };
    let macro_sources = used.iter().filter_map(|u| manifest.modules.iter().find(|m| m.name == u.module)).map(|m| tree.join(&m.file)).collect();
    Ok(AsicRun { row, netlist, sdc, yosys_log, sta_log, macro_liberty, macro_sources })
}

/// The rows as an aligned text table.
pub fn table(rows: &[AsicRow]) -> String {
    let w = rows.iter().map(|r| r.module.len()).max().unwrap_or(6).max(6);
    let mut s = String::new();
    s.push_str(&format!(
        "| {:<w$} | {:>7} | {:>6} | {:>11} | {:>7} | {:>6} | {:>8} | {:>5} | {:>8} | {:>7} | {:>5} |\n",
        "module", "library", "MHz", "area µm²", "cells", "FFs", "slack ns", "depth", "power mW", "Yosys s", "STA s"
    ));
    let rule = [w + 2, 9, 8, 13, 9, 8, 10, 7, 10, 9, 7].map(|n| "-".repeat(n));
    s.push_str(&format!("|{}|\n", rule.join("|")));
    let opt = |v: Option<f64>, digits: usize| v.map(|v| format!("{v:.digits$}")).unwrap_or_else(|| "-".into());
    for r in rows {
        s.push_str(&format!(
            "| {:<w$} | {:>7} | {:>6.1} | {:>11.0} | {:>7} | {:>6} | {:>8} | {:>5} | {:>8} | {:>7.1} | {:>5.1} |\n",
            r.module,
            r.library,
            r.clock_mhz,
            r.area_um2,
            r.cells,
            r.flip_flops,
            opt(r.worst_slack_ns, 3),
            r.critical_path.as_ref().map(|p| p.depth.to_string()).unwrap_or_else(|| "-".into()),
            opt(r.power_mw, 2),
            r.yosys_seconds,
            r.sta_seconds
        ));
    }
    for r in rows {
        if let Some(p) = &r.critical_path {
            s.push_str(&format!("{}: critical path {} -> {} ({} cells, {:.3} ns)\n", r.module, p.start, p.end, p.depth, p.arrival_ns));
        }
        for m in &r.macros {
            s.push_str(&format!("{}: RAM macro {} × {} ({} × {} bits, {} bits)\n", r.module, m.count, m.module, m.width, m.depth, m.bits));
        }
        if !r.unconstrained.is_empty() {
            s.push_str(&format!("{}: OpenSTA check_setup: {}\n", r.module, r.unconstrained.join("; ")));
        }
    }
    s
}
