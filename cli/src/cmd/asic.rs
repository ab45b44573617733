//! `rtl-gen asic [DIR] [--module M]… [--lib osu018|osu035|osu050|PATH.lib] [--clock-mhz F]
//! [--ram macro|flops] [--json FILE] [--work DIR] [--package DIR] [--gate-tree DIR] [-j N]
//! [--pnr [--pnr-dir DIR] [--pnr-picture FILE]]`: each module mapped to a standard-cell
//! library with Yosys (RAM wrappers kept as SRAM macros unless `--ram flops`) and timed by
//! OpenSTA against the SDC the generator emitted (`rtl_gen::tools::asic`): cells, area,
//! flip-flops, macros, worst slack and critical path, power; with `--pnr`, placed, routed, checked
//! (DRC, LVS) and timed again on the routed netlist by qflow's tools (`asic::pnr`).

use super::synth::write_file;
use super::CmdResult;
use anyhow::Context;
use rtl_gen::tools::asic::{self, gates, package, pnr, LibraryChoice, RamMode};
use rtl_gen::tools::{parallel_map, TreeManifest};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
    /// Only these modules (repeatable); default all (the large RS decoders take long: name the
    /// modules you need).
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// Standard-cell library: osu018, osu035, osu050 (Debian package qflow) or the path of a
    /// Liberty file ending in .lib.
    #[arg(long, value_name = "LIB", default_value = "osu018", value_parser = LibraryChoice::parse)]
    pub lib: LibraryChoice,
    /// Clock in MHz (1..=5000) for ABC's delay target and the timing, replacing the SDC's
    /// clock period (its input/output delays stay as emitted); default: the design's clock.
    #[arg(long, value_name = "F", value_parser = |s: &str| super::sim::in_range(s, 1.0, 5000.0))]
    pub clock_mhz: Option<f64>,
    /// RAM wrappers: `macro` keeps each synchronous-read wrapper as a black box (an SRAM macro,
    /// timed as a register boundary: setup and clock-to-output of the library's flip-flop) and
    /// flattens the rest; `flops` flattens them into flip-flops too. --pnr needs `flops` for a
    /// module with RAM wrappers (qflow synthesizes the RTL itself).
    #[arg(long, value_name = "MODE", default_value = "macro", value_parser = RamMode::parse)]
    pub ram: RamMode,
    /// Where to write the JSON report (default target/asic/<design>.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where the per-module work folders go (netlist, Yosys and OpenSTA logs; default
    /// target/asic/<design>/).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Also write the hand-off package there: netlists, SDC, reports, manifest excerpt, README.
    /// The folder must be new, empty or an earlier package.
    #[arg(long, value_name = "DIR")]
    pub package: Option<PathBuf>,
    /// Also write a gate-level tree there (a new or empty folder): the tree's manifest and
    /// sources with each module's file replaced by its mapped netlist, flattened into the cells'
    /// Liberty functions, for `rtl-gen sim cosim --tree DIR`.
    #[arg(long, value_name = "DIR")]
    pub gate_tree: Option<PathBuf>,
    /// Also place and route each module with qflow (graywolf, qrouter, magic, netgen; Debian
    /// package qflow; an OSU library): die area, utilisation, wire length, post-route slack
    /// with the extracted wire parasitics, DRC errors, LVS verdict, a GDS and a PNG of the
    /// layout. For small modules: a thousand cells take about a minute.
    #[arg(long)]
    pub pnr: bool,
    /// The folder of the qflow projects, one per module (default target/asic/<design>-pnr/);
    /// new, empty or written by an earlier --pnr run.
    #[arg(long, value_name = "DIR", requires = "pnr")]
    pub pnr_dir: Option<PathBuf>,
    /// Also copy the layout's PNG there (one --module only).
    #[arg(long, value_name = "FILE", requires = "pnr")]
    pub pnr_picture: Option<PathBuf>,
    /// Parallel module runs (default 1; 1..=64).
    #[arg(long, short, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
}

pub fn run(a: Args) -> CmdResult {
    let manifest = TreeManifest::load(&a.tree)?;
    let mut names: Vec<String> = manifest.modules.iter().map(|m| m.name.clone()).collect();
    if let Some(bad) = a.modules.iter().find(|m| !names.contains(m)) {
        anyhow::bail!("--module {bad}: no such module in {}; modules: {}", a.tree.display(), names.join(", "));
    }
    if !a.modules.is_empty() {
        names.retain(|n| a.modules.contains(n));
    }
    let library = a.lib.resolve().context("--lib")?;
    if let Some(dir) = &a.gate_tree {
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
            anyhow::bail!("--gate-tree {}: the folder is not empty; choose a new or empty folder", dir.display());
        }
    }
    let pnr_dir = a.pnr_dir.clone().unwrap_or_else(|| PathBuf::from(format!("target/asic/{}-pnr", manifest.design)));
    if a.pnr {
        pnr::check_tools().context("--pnr")?;
        pnr::technology(&library)?;
        if a.pnr_picture.is_some() && names.len() != 1 {
            anyhow::bail!("--pnr-picture needs exactly one --module (the layout of {} modules was asked)", names.len());
        }
        if a.ram == RamMode::Macro {
            if let Some(m) = names.iter().find(|m| !asic::macros::wrappers(&manifest, m).is_empty()) {
                anyhow::bail!("--pnr places qflow's own synthesis of the RTL, RAMs as flip-flops: pass --ram flops for {m}, which has RAM wrappers");
            }
        }
        pnr::own_dir(&pnr_dir)?;
    }
    let work = a.work.clone().unwrap_or_else(|| PathBuf::from(format!("target/asic/{}", manifest.design)));
    let indexed: Vec<(usize, &String)> = names.iter().enumerate().collect();
    let mut results = parallel_map(&indexed, a.jobs as usize, |&(i, name)| {
        let r = asic::map_module(&a.tree, &manifest, name, &library, a.clock_mhz, a.ram, &work);
        if let Ok(run) = &r {
            eprintln!("mapped and timed {} in {:.1} s", name, run.row.yosys_seconds + run.row.sta_seconds);
        }
        (i, r)
    });
    results.sort_by_key(|(i, _)| *i);
    let mut runs = Vec::new();
    for ((_, r), name) in results.into_iter().zip(&names) {
        runs.push(r.with_context(|| format!("module {name} of {} on {}", a.tree.display(), library.name))?);
    }
    if a.pnr {
        for r in runs.iter_mut() {
            let m = r.row.module.clone();
            eprintln!("placing and routing {m} with qflow in {}", pnr_dir.join(&m).display());
            let fig = pnr::place_and_route(&a.tree, &manifest, &m, &library, &r.sdc, a.clock_mhz, &pnr_dir).with_context(|| format!("--pnr of module {m}"))?;
            r.row.pnr = Some(fig);
        }
    }
    let rows: Vec<asic::AsicRow> = runs.iter().map(|r| r.row.clone()).collect();
    print!("{}", asic::table(&rows));
    let placed: Vec<(String, pnr::PnrFigures)> = rows.iter().filter_map(|r| r.pnr.clone().map(|p| (r.module.clone(), p))).collect();
    if !placed.is_empty() {
        print!("{}", pnr::table(&placed));
    }
    if let (Some(file), Some((_, p))) = (&a.pnr_picture, placed.first()) {
        if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).with_context(|| format!("--pnr-picture {}", file.display()))?;
        }
        std::fs::copy(&p.picture, file).with_context(|| format!("--pnr-picture {}", file.display()))?;
        println!("layout picture: {}", file.display());
    }
    let json = a.json.unwrap_or_else(|| PathBuf::from(format!("target/asic/{}.json", manifest.design)));
    write_file(&json, &(serde_json::to_string_pretty(&rows)? + "\n"))?;
    println!("JSON report: {}", json.display());
    if let Some(dir) = &a.package {
        let text = std::fs::read_to_string(a.tree.join("manifest.json")).context("reading the manifest")?;
        let files = package::files(&a.tree, &text, &manifest, &library, &runs).context("collecting the package's files")?;
        package::write(dir, &files)?;
        println!("hand-off package: {}", dir.display());
    }
    if let Some(dir) = &a.gate_tree {
        write_gate_tree(&a.tree, &manifest, &library, &runs, dir)?;
        println!("gate-level tree: {} (rtl-gen sim cosim --tree {})", dir.display(), dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Every mapped module's simulation netlist in a copy of the tree (`gates::gate_tree` keeps a
/// file already written; the netlists are written again last all the same).
fn write_gate_tree(tree: &std::path::Path, manifest: &TreeManifest, library: &asic::Library, runs: &[asic::AsicRun], dir: &std::path::Path) -> anyhow::Result<()> {
    let mut netlists = Vec::new();
    for r in runs {
        let m = &r.row.module;
        let gate = r.netlist.with_file_name(format!("{m}_gates.v"));
        gates::simulation_netlist(library, &r.netlist, m, &r.macro_sources, &gate).with_context(|| format!("the gate-level netlist of {m}"))?;
        gates::gate_tree(tree, manifest, m, &gate, dir).with_context(|| format!("--gate-tree {}", dir.display()))?;
        netlists.push((m, gate));
    }
    for (m, gate) in netlists {
        let file = &manifest.modules.iter().find(|x| &x.name == m).expect("a mapped module is in the manifest").file;
        std::fs::copy(&gate, dir.join(file)).with_context(|| format!("writing {}", dir.join(file).display()))?;
    }
    Ok(())
}
