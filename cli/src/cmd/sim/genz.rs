//! `rtl-gen sim genz [DESIGN.toml] [--tree DIR] [--block B] [--impl model|lockstep]
//! [--cable-m M] [--cycle-ns T] [--ber P] [--burst P] [--burst-bits N] [--drop P] [--down P]
//! [--cycles N] [--seed S]`: two `genz_llr` interfaces on a link (`rtl_gen_sim::campaign::genz`)
//! with random EE traffic on every VC and backpressure on every stream; prints the scoreboard
//! (delivered exactly once, in order per VC, bit exact) and both interfaces' counters.
//! `--impl lockstep` runs the Verilated RTL of both ends with the models beside them and counts
//! every differing output.

use super::{probability, seed, DesignArgs};
use crate::cmd::CmdResult;
use rtl_gen::blocks::genz_llr::model::{LlrModel, COUNTERS};
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::campaign::genz::{run_link, Beat, LinkOptions};
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
    /// Cable length in metres (5 ns/m one way).
    #[arg(long, default_value_t = 10.0)]
    pub cable_m: f64,
    /// Clock period in ns (sets the channel delay in cycles from the cable length).
    #[arg(long, default_value_t = 1.0)]
    pub cycle_ns: f64,
    /// Random bit error rate per bit, per direction (data and link-local marker).
    #[arg(long, default_value_t = 1e-5, value_parser = probability)]
    pub ber: f64,
    /// Burst probability per beat.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub burst: f64,
    #[arg(long, default_value_t = 12)]
    pub burst_bits: u32,
    /// Dropped-beat probability (reported to the receiver as phy_error).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub drop: f64,
    /// Per-cycle probability of a link-down period.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub down: f64,
    /// Cycles with traffic (then drained with the faults off).
    #[arg(long, default_value_t = 20_000)]
    pub cycles: u64,
    #[arg(long, default_value = "1", value_parser = seed)]
    pub seed: u64,
}

pub fn run(a: Args) -> CmdResult {
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
    let mut keep = |_: u64, _: usize, _: &mut Beat| true;
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
