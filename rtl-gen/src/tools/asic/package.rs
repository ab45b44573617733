//! The hand-off package of `rtl-gen asic --package DIR`: per module the mapped netlist, the
//! synthesis statistics and the timing report; the SDC, the manifest entries of the packaged
//! modules, the figures as JSON and a README of what was checked — what an IP vendor delivers
//! with a hard-macro candidate. A module kept with RAM macros adds their timing models
//! (`<module>_ram_macros.lib`); a module placed and routed (`--pnr`) adds the layout: GDS,
//! routed DEF, a PNG of it, the routed netlist and its parasitics, and the post-route reports
//! (DRC, LVS, timing).
//!
//! The folder is the package's own: it must be absent, empty, or a package written before
//! (it then holds [`OWNED_LIST`], the files this tool wrote). A file the tool did not write is
//! never overwritten or deleted; files of an earlier package that the new one does not hold
//! are removed.

use super::{mapping, AsicRun, Library};
use crate::tools::TreeManifest;
use std::path::{Path, PathBuf};

/// The list of the files a package holds, one name a line, itself included.
pub const OWNED_LIST: &str = "PACKAGE_FILES";

#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("--package {dir}: the folder holds files this tool did not write ({example}); choose an empty or new folder")]
    Foreign { dir: String, example: String },
    #[error("--package {dir}: {what}: {source}")]
    Io { dir: String, what: String, source: std::io::Error },
}

/// The files of the package, name → content.
pub fn files(tree: &Path, manifest_text: &str, manifest: &TreeManifest, library: &Library, runs: &[AsicRun]) -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let sdc = runs.first().map(|r| r.sdc.clone());
    for r in runs {
        let m = &r.row.module;
        out.push((format!("{m}.v"), std::fs::read(&r.netlist)?));
        let log = std::fs::read_to_string(&r.yosys_log)?;
        // `stat -liberty`'s section: from the mark to Yosys's next numbered step (the writer).
        let stat = log.split_once(&format!("\n{}", mapping::STAT_MARK)).map(|(_, s)| s).unwrap_or(&log);
        let stat = stat.split_once("Executing Verilog backend").map(|(s, _)| s.rsplit_once('\n').map(|(s, _)| s).unwrap_or(s)).unwrap_or(stat);
        let stat = stat.trim().to_string() + "\n";
        out.push((format!("{m}_synth.txt"), stat.into_bytes()));
        out.push((format!("{m}_timing.txt"), std::fs::read(&r.sta_log)?));
        if let Some(lib) = &r.macro_liberty {
            out.push((format!("{m}_ram_macros.lib"), std::fs::read(lib)?));
        }
        if let Some(p) = &r.row.pnr {
            out.extend(layout_files(m, p)?);
        }
    }
    if let Some(sdc) = &sdc {
        out.push((format!("{}.sdc", manifest.design), std::fs::read(sdc)?));
    }
    out.push(("manifest.json".into(), (manifest_excerpt(manifest_text, runs)? + "\n").into_bytes()));
    let rows: Vec<&super::AsicRow> = runs.iter().map(|r| &r.row).collect();
    out.push(("asic.json".into(), (serde_json::to_string_pretty(&rows).map_err(std::io::Error::other)? + "\n").into_bytes()));
    out.push(("README.md".into(), readme(tree, manifest, library, runs).into_bytes()));
    let mut names: Vec<String> = out.iter().map(|(n, _)| n.clone()).collect();
    names.push(OWNED_LIST.into());
    out.push((OWNED_LIST.into(), (names.join("\n") + "\n").into_bytes()));
    Ok(out)
}

/// The layout files of a placed and routed module, named for the package, from its qflow
/// project folder (the folder of the routed DEF).
fn layout_files(m: &str, p: &super::pnr::PnrFigures) -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    let dir = p.def.parent().unwrap_or(Path::new("."));
    let mut out = vec![(format!("{m}.def"), std::fs::read(&p.def)?), (format!("{m}_layout.png"), std::fs::read(&p.picture)?)];
    if let Some(gds) = &p.gds {
        out.push((format!("{m}.gds"), std::fs::read(gds)?));
    }
    // netgen's comparison report (`comp.out`) where it wrote one, else qflow's LVS log.
    let lvs = [dir.join("comp.out"), dir.join("log/lvs.log")].into_iter().find(|f| f.is_file());
    let reports = [
        (format!("{m}_routed.v"), Some(dir.join(format!("{m}.rtlnopwr.v")))),
        (format!("{m}_routed.spef"), Some(dir.join(format!("{m}_opensta.spef")))),
        (format!("{m}_drc.txt"), Some(dir.join("log/drc.log"))),
        (format!("{m}_lvs.txt"), lvs),
        (format!("{m}_post_route_timing.txt"), Some(dir.join("post_route_sta.log"))),
    ];
    for (name, file) in reports {
        let file = file.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, format!("{name}: no LVS report in {}", dir.display())))?;
        out.push((name, std::fs::read(&file).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", file.display())))?));
    }
    Ok(out)
}

/// The manifest with only the packaged modules (every design-level field kept).
fn manifest_excerpt(text: &str, runs: &[AsicRun]) -> Result<String, std::io::Error> {
    let mut v: serde_json::Value = serde_json::from_str(text).map_err(std::io::Error::other)?;
    if let Some(mods) = v.get_mut("modules").and_then(|m| m.as_array_mut()) {
        mods.retain(|m| runs.iter().any(|r| m.get("name").and_then(|n| n.as_str()) == Some(r.row.module.as_str())));
    }
    // Per-file hashes describe the whole tree, not the package.
    if let Some(obj) = v.as_object_mut() {
        obj.remove("files");
    }
    serde_json::to_string_pretty(&v).map_err(std::io::Error::other)
}

fn readme(tree: &Path, manifest: &TreeManifest, library: &Library, runs: &[AsicRun]) -> String {
    let mut s = format!(
        "# ASIC hand-off package: design {}\n\nWritten by `rtl-gen asic --package` from the tree `{}` with the standard-cell library `{}` ({}).\n\n",
        manifest.design,
        tree.display(),
        library.name,
        library.liberty.display()
    );
    s.push_str("| module | clock MHz | cells | area µm² | flip-flops | worst slack ns | critical path |\n|---|---|---|---|---|---|---|\n");
    for r in runs {
        let r = &r.row;
        let path = r.critical_path.as_ref().map(|p| format!("{} → {} ({} cells)", p.start, p.end, p.depth)).unwrap_or_else(|| "none".into());
        let slack = r.worst_slack_ns.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into());
        s.push_str(&format!("| {} | {:.1} | {} | {:.0} | {} | {} | {} |\n", r.module, r.clock_mhz, r.cells, r.area_um2, r.flip_flops, slack, path));
    }
    let with_macros: Vec<&AsicRun> = runs.iter().filter(|r| !r.row.macros.is_empty()).collect();
    if !with_macros.is_empty() {
        s.push_str("\nRAM macros (the RAM wrappers kept as black boxes, one SRAM macro each; their area is not in the table):\n\n| module | macro | width × depth | instances | bits |\n|---|---|---|---|---|\n");
        for r in &with_macros {
            for m in &r.row.macros {
                s.push_str(&format!("| {} | {} | {} × {} | {} | {} |\n", r.row.module, m.module, m.width, m.depth, m.count, m.bits));
            }
        }
    }
    let placed: Vec<(&str, &super::pnr::PnrFigures)> = runs.iter().filter_map(|r| r.row.pnr.as_ref().map(|p| (r.row.module.as_str(), p))).collect();
    if !placed.is_empty() {
        s.push_str("\nPlaced and routed (qflow: graywolf, qrouter, magic, netgen; OpenSTA on the routed netlist with the extracted parasitics):\n\n| module | die µm² | utilisation | cells | post-route slack ns | unrouted nets | DRC errors | LVS |\n|---|---|---|---|---|---|---|---|\n");
        let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
        for (m, p) in &placed {
            let slack = p.worst_slack_ns.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into());
            s.push_str(&format!("| {m} | {:.0} | {:.1} % | {} | {slack} | {} | {} | {} |\n", p.die_area_um2, 100.0 * p.utilisation, p.cells, opt(p.failed_routes), opt(p.drc_errors), p.lvs));
        }
    }
    s.push_str(&format!(
        "\n## Files\n\n- `<module>.v`: the netlist mapped to `{lib}` cells (Yosys `synth`, `dfflibmap`, `abc -liberty` with the clock period as delay target, buffering and sizing).\n\
         - `<module>_synth.txt`: Yosys's cell statistics and area of that netlist.\n\
         - `<module>_timing.txt`: OpenSTA's log: `check_setup -verbose`, the worst setup path, `report_power`.\n\
         - `{design}.sdc`: the constraints the generator emitted for the design, read unchanged by OpenSTA.\n\
         - `manifest.json`: the generator's manifest of the packaged modules (ports, clock, reset, latency, parameters).\n\
         - `asic.json`: the figures above, per module.\n{macro_files}{layout_files}\n\
         ## What was checked\n\n\
         - Every cell of each netlist is a `{lib}` cell (no generic cell left by Yosys) or one of the RAM macros listed above; Yosys warnings: {yw}.\n\
         - OpenSTA read the library, the netlist and the SDC without an error; `check_setup -verbose` (unconstrained endpoints, ports without input or output delay, unclocked registers, combinational loops): {cs}.\n\
         - Slack is setup slack on ideal clocks (no placement, no wires); power is OpenSTA's estimate at its default switching activity, for comparing modules.\n\
         - Not checked here: the gate-level simulation of these netlists against the reference models (the project's test suite runs it for a CRC, a replay buffer and a state machine: `cargo test -p rtl-gen-sim --test asic_gate_cosim`), hold timing, scan insertion{pnr_note}.\n",
        macro_files = if with_macros.is_empty() { "" } else { "- `<module>_ram_macros.lib`: the Liberty timing model OpenSTA used for the module's RAM macros: the wrapper's ports as a register boundary (setup and hold on every input, clock-to-output on `rd_data`, against `clk`); replace it with the SRAM compiler's.\n" },
        layout_files = if placed.is_empty() { "" } else { "- `<module>.gds`, `<module>.def`, `<module>_layout.png`: the placed and routed layout (GDS with the library's LEF views of the cells), its routed DEF and a picture of it.\n\
         - `<module>_routed.v`, `<module>_routed.spef`: the routed netlist (qflow's synthesis and fan-out buffering) and the parasitics extracted from its wires.\n\
         - `<module>_drc.txt`, `<module>_lvs.txt`, `<module>_post_route_timing.txt`: magic's DRC log, netgen's LVS comparison, OpenSTA's post-route timing log.\n" },
        pnr_note = if placed.is_empty() { ", placement and routing" } else { "; placement and routing only for the modules of the second table" },
        lib = library.name,
        design = manifest.design,
        yw = if runs.iter().all(|r| r.row.yosys_warnings.is_empty()) { "none".to_string() } else { runs.iter().filter(|r| !r.row.yosys_warnings.is_empty()).map(|r| format!("{} in {}", r.row.yosys_warnings.len(), r.row.module)).collect::<Vec<_>>().join(", ") },
        cs = if runs.iter().all(|r| r.row.unconstrained.is_empty()) { "clean for every module".to_string() } else { runs.iter().filter(|r| !r.row.unconstrained.is_empty()).map(|r| format!("{}: {}", r.row.module, r.row.unconstrained.join("; "))).collect::<Vec<_>>().join("; ") },
    ));
    s
}

/// Writes `files` into `dir` under the ownership rule of the module doc.
pub fn write(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), PackageError> {
    let err = |what: String, source: std::io::Error| PackageError::Io { dir: dir.display().to_string(), what, source };
    let owned: Vec<String> = match std::fs::read_to_string(dir.join(OWNED_LIST)) {
        Ok(text) => text.lines().map(String::from).filter(|l| !l.is_empty()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(err(format!("reading {OWNED_LIST}"), e)),
    };
    if dir.exists() {
        let entries = std::fs::read_dir(dir).map_err(|e| err("listing the folder".into(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| err("listing the folder".into(), e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
            if !is_file || !owned.contains(&name) {
                return Err(PackageError::Foreign { dir: dir.display().to_string(), example: name });
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| err("creating the folder".into(), e))?;
    for stale in owned.iter().filter(|o| !files.iter().any(|(n, _)| n == *o)) {
        let path: PathBuf = dir.join(stale);
        if path.is_file() {
            std::fs::remove_file(&path).map_err(|e| err(format!("removing the earlier package's {stale}"), e))?;
        }
    }
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).map_err(|e| err(format!("writing {name}"), e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir).expect("list").map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_package_folder_is_written_only_when_it_is_the_packages_own() {
        let tmp = std::env::temp_dir().join(format!("rtlgen-asic-package-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let files = |list: &[&str]| -> Vec<(String, Vec<u8>)> {
            let mut v: Vec<(String, Vec<u8>)> = list.iter().map(|n| (n.to_string(), n.as_bytes().to_vec())).collect();
            let mut all: Vec<&str> = list.to_vec();
            all.push(OWNED_LIST);
            v.push((OWNED_LIST.into(), (all.join("\n") + "\n").into_bytes()));
            v
        };
        // A new folder, then the same package again, then a smaller one: its stale file goes.
        write(&tmp, &files(&["a.v", "b.v"])).expect("new folder");
        write(&tmp, &files(&["a.v", "b.v"])).expect("own folder");
        write(&tmp, &files(&["a.v"])).expect("own folder, fewer files");
        assert_eq!(names(&tmp), ["PACKAGE_FILES", "a.v"]);
        // A file of someone else's: refused, nothing touched.
        std::fs::write(tmp.join("notes.txt"), "mine").expect("write");
        let e = write(&tmp, &files(&["a.v"])).expect_err("a foreign file").to_string();
        assert!(e.contains("notes.txt") && e.contains("did not write"), "{e}");
        assert_eq!(std::fs::read_to_string(tmp.join("notes.txt")).expect("kept"), "mine");
        // A non-empty folder without the list: refused.
        std::fs::remove_file(tmp.join(OWNED_LIST)).expect("rm");
        std::fs::remove_file(tmp.join("notes.txt")).expect("rm");
        assert!(write(&tmp, &files(&["a.v"])).is_err(), "a.v is not known to be ours");
        assert_eq!(names(&tmp), ["a.v"]);
        std::fs::remove_dir_all(&tmp).expect("clean up");
    }
}
