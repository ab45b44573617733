//! `rtl-gen asic --pnr`: a module placed, routed and checked with Debian's `qflow` (graywolf
//! placement, qrouter routing, magic DRC and GDS, netgen LVS), then timed again by OpenSTA on
//! the routed netlist with the SDC the generator emitted and the wire parasitics qrouter
//! extracted ([`spef`]); the routed DEF read back for the figures ([`layout`]) and drawn
//! ([`picture`]).
//!
//! qflow runs in a project folder of its own, `<pnr dir>/<module>/`, holding the module's
//! sources concatenated into `source/<module>.v` and a `project_vars.sh` this module writes
//! with fixed text only. The tools are started as programs with argument lists (no shell
//! line): the only values passed are the technology name (one of the OSU libraries qflow
//! ships) and the module name (a checked identifier). The pnr folder is the tool's own: new,
//! empty, or marked by [`OWNER_MARK`] from an earlier run; anything else is refused.
//!
//! qflow synthesizes the module itself (its Yosys script, `DFFSR` for asynchronous resets,
//! fan-out buffering) so that the placed netlist, the layout and the LVS reference are one
//! flow's; the cell count here is thus qflow's, next to the pre-placement figures of
//! [`super::map_module`].

pub mod layout;
pub mod picture;
pub mod spef;

use super::{sta, tail, Library, ToolError, TreeManifest};
use crate::tools::{run, yosys_word};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The file marking a folder as this tool's place-and-route folder.
pub const OWNER_MARK: &str = ".rtlgen-pnr";
/// Where Debian's qflow keeps the programs it drives.
pub const QFLOW_BIN: &str = "/usr/lib/qflow/bin";
/// The OSU libraries' spacer cell.
pub const SPACER_CELL: &str = "FILL";
/// The picture's longer side in pixels.
pub const PICTURE_PX: u32 = 1000;

/// What the routed layout and its checks give.
#[derive(Debug, Clone, Serialize)]
pub struct PnrFigures {
    /// The die (DEF `DIEAREA`), µm².
    pub die_area_um2: f64,
    /// The standard-cell rows (the box of every placed cell), µm².
    pub core_area_um2: f64,
    /// Logic cells' area (spacer cells not counted), µm².
    pub cell_area_um2: f64,
    /// `cell_area_um2 / core_area_um2`.
    pub utilisation: f64,
    /// Logic cells placed (qflow's synthesis, fan-out buffers included).
    pub cells: u64,
    /// Spacer (fill) cells placed to complete the rows.
    pub spacer_cells: u64,
    /// Routed signal wire, µm, and per metal layer.
    pub wire_length_um: f64,
    pub wire_length_per_layer_um: BTreeMap<String, f64>,
    /// Nets qrouter left unrouted (`None` when its log says neither).
    pub failed_routes: Option<u64>,
    /// Worst setup slack on the routed netlist, ns (`None`: no timed path).
    pub worst_slack_ns: Option<f64>,
    pub critical_path: Option<sta::CriticalPath>,
    /// Where the wire delays come from.
    pub parasitics: String,
    /// Warnings of OpenSTA's SPEF reader (a net or node of the SPEF not found in the netlist,
    /// its wires then unannotated); 0 when every routed net is annotated.
    pub unannotated_nets: u64,
    /// magic's DRC error count (`None` when the DRC did not report one).
    pub drc_errors: Option<u64>,
    /// netgen's verdict: `match` or `mismatch`.
    pub lvs: String,
    pub lvs_errors: Option<u64>,
    /// Files of the run.
    pub def: PathBuf,
    pub gds: Option<PathBuf>,
    pub picture: PathBuf,
    pub picture_size: (u32, u32),
    pub seconds: f64,
}

fn err(msg: String) -> ToolError {
    ToolError::Io(std::io::Error::other(msg))
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// qflow, the programs it drives (links in [`QFLOW_BIN`] to Debian packages of their own,
/// which `qflow` depends on) and OpenSTA; a missing one names its Debian package.
pub fn check_tools() -> Result<(), ToolError> {
    let missing = |what: String, package: &str, reason: &str| ToolError::MissingPackage { what, package: package.into(), reason: reason.into() };
    if !on_path("qflow") {
        return Err(missing("`qflow` (placement, routing, DRC, LVS)".into(), "qflow", "not found on PATH"));
    }
    for (tool, package) in [("graywolf", "graywolf"), ("qrouter", "qrouter"), ("magic", "magic"), ("netgen", "netgen-lvs")] {
        if !Path::new(QFLOW_BIN).join(tool).is_file() {
            return Err(missing(format!("`{tool}` ({QFLOW_BIN}/{tool})"), package, "file or link target not found"));
        }
    }
    if !on_path("sta") {
        return Err(missing("`sta` (OpenSTA)".into(), "qflow", "not found on PATH"));
    }
    Ok(())
}

/// Makes `dir` the tool's place-and-route folder: absent, empty or marked before.
pub fn own_dir(dir: &Path) -> Result<(), ToolError> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        let names: Vec<String> = entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        if !names.is_empty() && !names.iter().any(|n| n == OWNER_MARK) {
            return Err(err(format!(
                "--pnr-dir {}: the folder holds files this tool did not write ({}); choose an empty or new folder",
                dir.display(),
                names.iter().min().expect("non-empty")
            )));
        }
    }
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(OWNER_MARK), "rtl-gen asic --pnr writes and replaces the folders here.\n")?;
    Ok(())
}

/// The qflow technology of `library`: only the OSU libraries qflow ships have the LEF, the
/// magic technology and the netgen setup a layout needs.
pub fn technology(library: &Library) -> Result<&'static str, ToolError> {
    let tech = ["osu018", "osu035", "osu050"].into_iter().find(|t| *t == library.name && library.liberty.starts_with(Path::new(super::library::QFLOW_TECH).join(t)));
    tech.ok_or_else(|| err(format!("--pnr needs one of qflow's technologies (--lib osu018, osu035 or osu050), not {}", library.liberty.display())))
}

/// qflow's tcsh scripts paste the project folder's absolute path into their command lines
/// unquoted: only letters, digits and `/._+-` pass.
fn project_path(dir: &Path) -> Result<(), ToolError> {
    let abs = std::env::current_dir()?.join(dir);
    let text = abs.to_str().unwrap_or("\u{fffd}");
    match text.chars().find(|c| !(c.is_ascii_alphanumeric() || "/._+-".contains(*c))) {
        Some(c) => Err(ToolError::UnsafePath { path: text.escape_debug().to_string(), reason: format!("it holds {c:?}, which qflow's scripts would not quote (letters, digits and /._+- only)") }),
        None => Ok(()),
    }
}

fn identifier(name: &str) -> bool {
    let mut b = name.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_') && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The project settings qflow reads; fixed text (the flow's defaults, written out so that the
/// folder documents what ran).
const PROJECT_VARS: &str = "#!/usr/bin/tcsh -f\n# Written by rtl-gen asic --pnr: qflow's defaults for every stage.\n\
# Placement: graywolf at its default density, spacer cells and power stripes by addspacers.\n\
# Routing: qrouter with the technology's layers; parasitics through rc2dly (backanno).\n";

/// qflow run in `dir` on `module` for `stages`; its log written to `dir/<log>`.
fn qflow(dir: &Path, tech: &str, stages: &[&str], module: &str, log: &str) -> Result<String, ToolError> {
    let (_, text) = run(Command::new("qflow").arg("-T").arg(tech).args(stages).arg(module).current_dir(dir)).map_err(|e| match e {
        ToolError::Missing { reason, .. } => ToolError::MissingPackage { what: "`qflow`".into(), package: "qflow".into(), reason },
        other => other,
    })?;
    std::fs::write(dir.join(log), &text)?;
    Ok(text)
}

/// The number after `prefix` on the last line starting with it.
fn last_count(text: &str, prefix: &str) -> Option<u64> {
    text.lines().rev().find_map(|l| l.trim().strip_prefix(prefix).and_then(|r| r.split_whitespace().next()).and_then(|w| w.parse().ok()))
}

/// `module` of `tree` placed, routed, checked and timed in `pnr_dir/<module>/` (`pnr_dir`
/// owned through [`own_dir`]); `sdc` the constraints [`super::map_module`] timed it with,
/// `clock_mhz` the same override.
pub fn place_and_route(tree: &Path, manifest: &TreeManifest, module: &str, library: &Library, sdc: &Path, clock_mhz: Option<f64>, pnr_dir: &Path) -> Result<PnrFigures, ToolError> {
    let start = Instant::now();
    let tech = technology(library)?;
    if !identifier(module) || !manifest.modules.iter().any(|m| m.name == module) {
        return Err(err(format!("--pnr: {module} is not a module of design {}", manifest.design)));
    }
    let dir = pnr_dir.join(module);
    project_path(&dir)?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(dir.join("source"))?;
    let mut source = String::new();
    for file in manifest.sources(tree, module) {
        source.push_str(&std::fs::read_to_string(&file).map_err(|e| err(format!("reading {}: {e}", file.display())))?);
        source.push('\n');
    }
    std::fs::write(dir.join("source").join(format!("{module}.v")), source)?;
    std::fs::write(dir.join("project_vars.sh"), PROJECT_VARS)?;

    let build = qflow(&dir, tech, &["synthesize", "place", "route", "backanno", "migrate"], module, "qflow_build.log")?;
    let def = dir.join(format!("{module}.def"));
    let netlist = dir.join(format!("{module}.rtlnopwr.v"));
    let route_log = std::fs::read_to_string(dir.join("log/route.log")).unwrap_or_default();
    if !def.is_file() || !netlist.is_file() || !route_log.contains("Final:") {
        return Err(err(format!("qflow did not place and route {module} (see {}):\n{}", dir.join("log").display(), tail(&build, 15))));
    }
    let failed_routes = if route_log.contains("Final: No failed routes") { Some(0) } else { last_count(&route_log, "Final: Failed to route") };

    let drc = qflow(&dir, tech, &["drc"], module, "qflow_drc.log")?;
    let drc_errors = last_count(&drc, "drc =");
    let lvs = qflow(&dir, tech, &["lvs"], module, "qflow_lvs.log")?;
    let lvs_errors = last_count(&lvs, "Total errors =");
    let lvs_log = std::fs::read_to_string(dir.join("log/lvs.log")).unwrap_or_default();
    let matched = lvs_log.contains("Circuits match uniquely") && !lvs_log.contains("do not match") && lvs_errors == Some(0);
    qflow(&dir, tech, &["gdsii"], module, "qflow_gdsii.log")?;
    let gds = Some(dir.join(format!("{module}.gds"))).filter(|g| g.is_file());

    // Post-route timing: the routed netlist, the repaired SPEF, the emitted SDC.
    let raw_spef = std::fs::read_to_string(dir.join(format!("{module}.spef"))).map_err(|e| err(format!("qflow's backanno wrote no SPEF for {module}: {e}")))?;
    let nets = spef::netlist_nets(&std::fs::read_to_string(&netlist)?);
    let spef_path = dir.join(format!("{module}_opensta.spef"));
    std::fs::write(&spef_path, spef::repair(&raw_spef, &nets))?;
    let period = clock_mhz.map(|f| 1000.0 / f);
    let tcl = sta::post_route_script(&yosys_word(&library.liberty)?, &yosys_word(&netlist)?, module, &yosys_word(sdc)?, &yosys_word(&spef_path)?, period);
    let tcl_path = dir.join("post_route_sta.tcl");
    std::fs::write(&tcl_path, &tcl)?;
    let (_, sta_text) = run(Command::new("sta").arg("-no_splash").arg("-exit").arg(&tcl_path)).map_err(|e| match e {
        ToolError::Missing { reason, .. } => ToolError::MissingPackage { what: "`sta` (OpenSTA)".into(), package: "qflow".into(), reason },
        other => other,
    })?;
    std::fs::write(dir.join("post_route_sta.log"), &sta_text)?;
    let report = sta::parse(&sta_text);
    if !report.errors.is_empty() || !sta_text.contains(sta::END_MARK) {
        return Err(err(format!("OpenSTA rejected the routed netlist of {module}:\n{}", if report.errors.is_empty() { tail(&sta_text, 15) } else { report.errors.join("\n") })));
    }
    let unannotated_nets = report.warnings.iter().filter(|w| w.contains(".spef") && w.contains("not found")).count() as u64;

    let lef_path = library.liberty.with_extension("lef");
    let sizes = layout::lef_sizes(&std::fs::read_to_string(&lef_path).map_err(|e| err(format!("reading {}: {e}", lef_path.display())))?);
    let routed = layout::parse_def(&std::fs::read_to_string(&def)?, &sizes, SPACER_CELL).map_err(|e| err(format!("{}: {e}", def.display())))?;
    if !routed.unknown_macros.is_empty() {
        return Err(err(format!("{}: cells not in {}: {}", def.display(), lef_path.display(), routed.unknown_macros.join(", "))));
    }
    let die = routed.die.ok_or_else(|| err(format!("{}: no DIEAREA", def.display())))?;
    let core = routed.core().ok_or_else(|| err(format!("{}: no placed cell", def.display())))?;
    let per_layer = routed.wire_length();
    let (png, w, h) = picture::render(&routed, PICTURE_PX).map_err(|e| err(format!("drawing {}: {e}", def.display())))?;
    let picture = dir.join(format!("{module}.png"));
    std::fs::write(&picture, png)?;
    Ok(PnrFigures {
        die_area_um2: die.area(),
        core_area_um2: core.area(),
        cell_area_um2: routed.logic_area(),
        utilisation: routed.logic_area() / core.area(),
        cells: routed.logic_cells() as u64,
        spacer_cells: (routed.cells.len() - routed.logic_cells()) as u64,
        wire_length_um: per_layer.values().sum(),
        wire_length_per_layer_um: per_layer,
        failed_routes,
        worst_slack_ns: report.worst.as_ref().map(|p| p.slack_ns),
        critical_path: report.worst,
        parasitics: "qrouter's extracted RC trees (rc2dly SPEF, units and node names repaired), propagated clock".into(),
        unannotated_nets,
        drc_errors,
        lvs: if matched { "match" } else { "mismatch" }.into(),
        lvs_errors,
        def,
        gds,
        picture,
        picture_size: (w, h),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The place-and-route figures as a text table.
pub fn table(rows: &[(String, PnrFigures)]) -> String {
    let w = rows.iter().map(|(m, _)| m.len()).max().unwrap_or(6).max(6);
    let mut s = format!(
        "| {:<w$} | {:>9} | {:>6} | {:>6} | {:>10} | {:>8} | {:>9} | {:>5} | {:>8} | {:>6} |\n",
        "module", "die µm²", "util %", "cells", "wire µm", "slack ns", "unrouted", "DRC", "LVS", "time s"
    );
    s.push_str(&format!("|{}|\n", [w + 2, 11, 8, 8, 12, 10, 11, 7, 10, 8].map(|n| "-".repeat(n)).join("|")));
    let opt_u = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
    for (m, p) in rows {
        s.push_str(&format!(
            "| {:<w$} | {:>9.0} | {:>6.1} | {:>6} | {:>10.0} | {:>8} | {:>9} | {:>5} | {:>8} | {:>6.1} |\n",
            m,
            p.die_area_um2,
            100.0 * p.utilisation,
            p.cells,
            p.wire_length_um,
            p.worst_slack_ns.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into()),
            opt_u(p.failed_routes),
            opt_u(p.drc_errors),
            p.lvs,
            p.seconds
        ));
    }
    for (m, p) in rows {
        if let Some(c) = &p.critical_path {
            s.push_str(&format!("{m}: post-route critical path {} -> {} ({} cells, {:.3} ns)\n", c.start, c.end, c.depth, c.arrival_ns));
        }
        s.push_str(&format!("{m}: layout {} ({}x{} px), DEF {}{}\n", p.picture.display(), p.picture_size.0, p.picture_size.1, p.def.display(), p.gds.as_ref().map(|g| format!(", GDS {}", g.display())).unwrap_or_default()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pnr_folder_is_written_only_when_it_is_the_tools_own() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("pnr");
        own_dir(&dir).expect("a new folder");
        own_dir(&dir).expect("its own folder again");
        let foreign = tmp.path().join("foreign");
        std::fs::create_dir_all(&foreign).expect("mkdir");
        std::fs::write(foreign.join("notes.txt"), "mine").expect("write");
        let e = own_dir(&foreign).expect_err("a foreign folder").to_string();
        assert!(e.contains("notes.txt") && e.contains("did not write"), "{e}");
        assert!(!foreign.join(OWNER_MARK).exists());
    }

    #[test]
    fn only_identifiers_and_qflow_technologies_pass() {
        assert!(identifier("rtlgen_crc32_pipe") && !identifier("a;rm") && !identifier("1x") && !identifier(""));
        assert!(project_path(Path::new("/tmp/rtl-gen_pnr.1/m")).is_ok());
        for bad in ["/tmp/a b/m", "/tmp/a;rm/m", "/tmp/$HOME/m", "/tmp/`x`/m"] {
            assert!(project_path(Path::new(bad)).expect_err(bad).to_string().contains("qflow"), "{bad}");
        }
        let lib = Library { name: "mine".into(), liberty: "/x/mine.lib".into(), cell_verilog: None, cells: vec![], sequential: vec![] };
        assert!(technology(&lib).expect_err("not qflow's").to_string().contains("osu018"));
        assert_eq!(last_count("x\ndrc = 3\nThere are 3 DRC errors\n", "drc ="), Some(3));
        assert_eq!(last_count("Total errors = 0\n", "Total errors ="), Some(0));
    }
}
