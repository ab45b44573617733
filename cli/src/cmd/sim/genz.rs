//! `rtl-gen sim genz [DESIGN.toml] [--tree DIR] [--block B] [--impl model|lockstep]
//! [--cable-m M] [--cycle-ns T] [--ber P] [--burst P] [--burst-bits N] [--drop P] [--down P]
//! [--cycles N] [--seed S]`: two `genz_llr` interfaces on a link (`rtl_gen_sim::link::genz`)
//! with random EE traffic on every VC and backpressure on every stream; prints the scoreboard
//! (delivered exactly once, in order per VC, bit exact) and both interfaces' counters.
//! `--impl lockstep` runs the Verilated RTL of both ends with the models beside them and counts
//! every differing output.
//!
//! `rtl-gen sim genz --figures [--impl lockstep|model] [--sizes 64,256] [--cables 10,100]
//! [--occupancy-cables 1,2,5,20,50] [--bers LIST] [--figure-cycles N] [--fault-cycles N]
//! [--cycle-ns T] [--seed S] [--out PREFIX] [--json F] [--csv F] [--svg F] [--shard K/N]`: the
//! campaign of `rtl_gen_sim::campaign::genz::campaign` on its own block (`FIGURES_DESIGN`):
//! fault runs per cable, Init time with and without a lost Init ACK, goodput vs BER per packet
//! size and cable with recovery time per error, retry-buffer occupancy vs cable length; sharded
//! and merged (`rtl-gen sim merge`) like `rxl` and `rifl-sweep`.
//!
//! `rtl-gen sim genz --compare [--line-gbps R] [--cable-m M] [--sizes N] [--bers LIST]
//! [--line-us T] [--out PREFIX]`: RIFL, RXL and Gen-Z LLR (models) on one channel
//! (`rtl_gen_sim::campaign::genz::compare`); writes PREFIX_compare.md / .csv / .svg.

use super::{probability, seed, DesignArgs, Outputs};
use anyhow::Context;
use rtl_gen_sim::campaign::genz::campaign::{self as figures, GenzImpl, GenzOptions};
use rtl_gen_sim::campaign::{Progress, Shard};
use rtl_gen_sim::results::ResultFile;
use crate::cmd::CmdResult;
use rtl_gen::blocks::genz_llr::model::{LlrModel, COUNTERS};
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::link::genz::{keep, run_link, LinkOptions};
use rtl_gen_sim::campaign::Faults;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum, Debug)]
pub enum Impl {
    Model,
    Lockstep,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: DesignArgs,
    /// The `genz_llr` block (default: the design's first).
    #[arg(long, value_name = "B")]
    pub block: Option<String>,
    #[arg(long = "impl", value_enum, default_value = "lockstep")]
    pub implementation: Impl,
    /// Cable length in metres (5 ns/m one way), 0..=1000, and short enough that the delay each
    /// way plus 256 cycles fits in the block's LLR timer (768 m at 1 ns for the default block).
    #[arg(long, default_value_t = 10.0, value_parser = cable_m)]
    pub cable_m: f64,
    /// Clock period in ns (sets the channel delay in cycles from the cable length), 0.1..=100.
    #[arg(long, default_value_t = 1.0, value_parser = cycle_ns)]
    pub cycle_ns: f64,
    /// Random bit error rate per bit, per direction (data and link-local marker).
    #[arg(long, default_value_t = 1e-5, value_parser = probability)]
    pub ber: f64,
    /// Burst probability per beat.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub burst: f64,
    /// Burst length in bits, 1..=2048.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub burst_bits: u32,
    /// Dropped-beat probability (reported to the receiver as phy_error).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub drop: f64,
    /// Per-cycle probability of a link-down period.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub down: f64,
    /// Cycles with traffic (then drained with the faults off), 1..=10^9.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub cycles: u64,
    #[arg(long, default_value = "1", value_parser = seed)]
    pub seed: u64,
    /// Run the figures campaign (fault runs, Init time, goodput vs BER, recovery time,
    /// retry-buffer occupancy) on the built-in figures block instead of one link run.
    #[arg(long, conflicts_with = "compare")]
    pub figures: bool,
    /// Compare RIFL, RXL and Gen-Z LLR (models) on one channel: goodput vs BER and line time
    /// lost per error (uses --cable-m, the first of --sizes, --bers, --line-gbps, --line-us).
    #[arg(long)]
    pub compare: bool,
    /// Compare: line rate in Gb/s shared by the three schemes, 0.001..=10000.
    #[arg(long, default_value_t = 64.0, value_parser = line_gbps)]
    pub line_gbps: f64,
    /// Compare: line time per BER point in µs, 1..=1e7.
    #[arg(long, default_value_t = 400.0, value_parser = line_us)]
    pub line_us: f64,
    /// Figures: EE packet sizes in bytes (multiples of 8 in 8..=256).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "64,256", value_parser = packet_size)]
    pub sizes: Vec<u32>,
    /// Figures: cable lengths in metres of the fault, Init and goodput units, each 0..=10000.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "10,100", value_parser = figure_cable_m)]
    pub cables: Vec<f64>,
    /// Figures: further cable lengths measured at BER 0 for the retry-buffer occupancy, each
    /// 0..=10000.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "1,2,5,20,50", value_parser = figure_cable_m)]
    pub occupancy_cables: Vec<f64>,
    /// Figures: only these BERs instead of 1e-12 … 1e-5 in steps of 10^0.25 (BER 0 always runs).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = probability)]
    pub bers: Option<Vec<f64>>,
    /// Figures: traffic cycles per goodput point, 5000..=10^10.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(5_000..=10_000_000_000))]
    pub figure_cycles: u64,
    /// Figures: traffic cycles per fault run, 5000..=10^10.
    #[arg(long, default_value_t = 50_000, value_parser = clap::value_parser!(u64).range(5_000..=10_000_000_000))]
    pub fault_cycles: u64,
    /// Figures: output prefix (PREFIX.json, .csv, .md, .svg).
    #[arg(long, value_name = "PREFIX", default_value = "target/genz")]
    pub out: String,
    #[command(flatten)]
    pub outputs: Outputs,
    /// Figures: run only part K of N of the units; merge the --json files with `rtl-gen sim merge`.
    #[arg(long, value_name = "K/N", default_value = "0/1", value_parser = super::shard)]
    pub shard: Shard,
}

/// Cycles the single-link run keeps free in the LLR timer beyond the delay each way: with the
/// default block's 4096 cycles, fault-free runs were clean up to 4075 cycles each way and not
/// at 4095, runs with bit errors clean at 3950 and not at 4032; 3840 leaves room for both.
const LLRT_MARGIN: u64 = 256;

/// `--cable-m`: 1000 m is 5000 cycles of delay at 1 ns (50,000 at the shortest period).
fn cable_m(s: &str) -> Result<f64, String> {
    super::in_range(s, 0.0, 1000.0)
}

/// `--cables`, `--occupancy-cables`: the figures campaign's own limit.
fn figure_cable_m(s: &str) -> Result<f64, String> {
    super::in_range(s, 0.0, 10_000.0)
}

fn cycle_ns(s: &str) -> Result<f64, String> {
    super::in_range(s, 0.1, 100.0)
}

fn line_gbps(s: &str) -> Result<f64, String> {
    super::in_range(s, 0.001, 10_000.0)
}

fn line_us(s: &str) -> Result<f64, String> {
    super::in_range(s, 1.0, 1e7)
}

/// An EE packet size: a multiple of 8 in 8..=256 bytes.
fn packet_size(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (8..=256).contains(&n) && n % 8 == 0 => Ok(n),
        _ => Err(format!("`{s}` is not a packet size; allowed a multiple of 8 in 8..=256")),
    }
}

fn run_compare(a: &Args) -> CmdResult {
    use rtl_gen_sim::campaign::genz::compare::{compare, csv, svg, table, CompareOptions};
    use rtl_gen_sim::results::write_file;
    if !(a.line_gbps > 0.0 && a.line_gbps <= 10_000.0 && a.line_us >= 1.0 && a.line_us <= 1e7 && a.cable_m >= 0.0 && a.cable_m <= 1000.0) {
        anyhow::bail!("--line-gbps allowed (0, 10000], --line-us [1, 1e7], --cable-m [0, 1000]");
    }
    let size = a.sizes.first().copied().unwrap_or(256);
    if size < 8 || size % 8 != 0 || size > 256 {
        anyhow::bail!("--sizes {size}: allowed a multiple of 8 in 8..=256");
    }
    let mut o = CompareOptions { line_gbps: a.line_gbps, cable_m: a.cable_m, packet_bytes: size, line_us: a.line_us, seed: a.seed, ..CompareOptions::default() };
    if let Some(b) = &a.bers {
        o.bers = b.clone();
    }
    let pts = compare(&o, &mut |p| eprintln!("  {} BER {:.2e}: goodput {:.4}, {} events", p.scheme, p.ber, p.goodput, p.events))?;
    let md = table(&o, &pts);
    println!("{md}");
    for (ext, text) in [("md", md.clone()), ("csv", csv(&pts)), ("svg", svg(&o, &pts))] {
        let path = format!("{}_compare.{ext}", a.out);
        write_file(std::path::Path::new(&path), &text).with_context(|| format!("writing {path}"))?;
        println!("wrote {path}");
    }
    Ok(if pts.iter().all(|p| p.clean) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn run_figures(a: &Args) -> CmdResult {
    let o = GenzOptions {
        implementation: if a.implementation == Impl::Model { GenzImpl::Model } else { GenzImpl::Rtl },
        sizes: a.sizes.clone(),
        cables_m: a.cables.clone(),
        occupancy_cables_m: a.occupancy_cables.clone(),
        bers: a.bers.clone().unwrap_or_else(figures::default_bers),
        cycles: a.figure_cycles,
        fault_cycles: a.fault_cycles,
        cycle_ns: a.cycle_ns,
        seed: a.seed,
    };
    let bench = figures::figures_bench().context("generating the Gen-Z figures design")?;
    let cfg = bench.block::<GenzLlrBlock>(figures::FIGURES_BLOCK)?.cfg.clone();
    figures::check(&o, &cfg).map_err(|e| anyhow::anyhow!("--sizes / --cables / --bers / --cycle-ns: {e}"))?;
    a.outputs.check(Some(&a.out), true)?;
    let r = figures::run(&bench, &o, a.shard, &mut Progress::auto()).with_context(|| format!("Gen-Z LLR campaign (shard {})", a.shard))?;
    let clean = r.clean();
    a.outputs.write(&ResultFile::Genz(r), Some(&a.out))?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

pub fn run(a: Args) -> CmdResult {
    if a.figures {
        return run_figures(&a);
    }
    if a.compare {
        return run_compare(&a);
    }
    let bench = a.target.bench()?;
    let name = match &a.block {
        Some(b) => b.clone(),
        None => bench.blocks_of_kind("genz_llr").first().map(|s| s.to_string()).ok_or_else(|| anyhow::anyhow!("{} has no genz_llr block", a.target.origin()))?,
    };
    a.target.block(&bench, "--block", &name, &["genz_llr"])?;
    let cfg = bench.block::<GenzLlrBlock>(&name)?.cfg.clone();
    if !(a.cable_m >= 0.0 && a.cycle_ns > 0.0) {
        anyhow::bail!("--cable-m must be >= 0 and --cycle-ns > 0");
    }
    let delay = ((a.cable_m * 5.0 / a.cycle_ns).ceil() as usize).max(1);
    // Past the block's LLR timer the link does not serve the run (an exchange is timed out
    // before the far end can answer): keep the delay each way LLRT_MARGIN cycles inside it.
    let max_delay = (cfg.llrt_cycles as u64).saturating_sub(LLRT_MARGIN);
    if delay as u64 > max_delay {
        anyhow::bail!(
            "--cable-m {}: {delay} cycles each way at --cycle-ns {} do not fit in block `{name}`'s LLR timer of {} cycles (llrt_ui): the delay plus {LLRT_MARGIN} cycles must; allowed at most {:.1} m at this period",
            a.cable_m,
            a.cycle_ns,
            cfg.llrt_cycles,
            max_delay as f64 * a.cycle_ns / 5.0
        );
    }
    let o = LinkOptions {
        cycles: a.cycles,
        drain_cycles: 30_000 + 40 * delay as u64,
        delay,
        faults: Faults { ber: a.ber, burst: a.burst, burst_bits: a.burst_bits, drop: a.drop, uc: 0.0 },
        down: a.down,
        m_ready: 0.8,
        link_ready: 0.9,
        seed: a.seed,
        ..LinkOptions::default()
    };
    let (rep, mismatches) = match a.implementation {
        Impl::Model => {
            let (mut x, mut y) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
            (run_link(&mut x, &mut y, &cfg, &o, &mut keep)?, 0)
        }
        Impl::Lockstep => {
            let m = bench.module(&name, Role::Interface)?;
            let (r, t) = rtl_gen_sim::cosim::genz::twin_link(&bench, m, &o, &mut keep)?;
            if let Some(f) = &t.first {
                println!("first RTL/model mismatch at cycle {} on `{}`: expected {}, got {}", f.cycle, f.port, f.expected, f.actual);
            }
            (r, t.mismatches)
        }
    };
    println!("genz_llr `{name}`: {} cycles, delay {delay} cycles ({} m), BER {:e}", rep.cycles, a.cable_m, a.ber);
    println!("sent A {} B {}, delivered A {} B {}, scoreboard errors {}, missing {}, retrains {}, RTL/model mismatches {}", rep.sent[0], rep.sent[1], rep.delivered[0], rep.delivered[1], rep.errors, rep.missing, rep.retrains, mismatches);
    for (k, c) in COUNTERS.iter().enumerate() {
        println!("  {c:<28} {:>10} {:>10}", rep.counters[0][k], rep.counters[1][k]);
    }
    Ok(if rep.clean() && mismatches == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
