//! `rtl-gen sim rxl [DESIGN.toml] [--tree DIR] [--rxl-block B] [--cxl-block B] [--switch-block B]
//! [--topology 0..=4|LIST|all] [--mode rxl|cxl_baseline|both] [--impl rtl|model|lockstep]
//! [--ber P] [--drop P] [--uc P] [--burst P] [--burst-bits N] [--internal P] [--flits N]
//! [--segments N] [--loop N] [--seed S] [--shard K/N] [--out PREFIX] [--json FILE] [--csv FILE] [--svg FILE]`:
//! the options of `sim/examples/rxl.rs`, for any design with `rxl_endpoint` (and `rxl_switch`)
//! blocks, on `rtl_gen_sim::campaign::rxl`.
//!
//! `--flits N` is the number of link cycles with saturating traffic (one flit per cycle per
//! direction); after it the campaign drains with the faults off until everything sent is
//! delivered. `--impl model` runs the Rust reference models (fast), `--impl lockstep` runs the
//! RTL and the models side by side and stops at the first differing output.

use super::{probability, DesignArgs, Outputs};
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::campaign::rxl::{self, ModeSel, RxlOptions};
use rtl_gen_sim::campaign::{Faults, Progress, Shard};
use rtl_gen_sim::results::ResultFile;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum, Debug)]
pub enum Impl {
    Rtl,
    Model,
    Lockstep,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum, Debug)]
pub enum ModeArg {
    Rxl,
    #[value(name = "cxl_baseline")]
    CxlBaseline,
    Both,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: DesignArgs,
    /// The `rxl_endpoint` block (mode rxl) of `--mode rxl` (default: the design's first).
    #[arg(long, value_name = "B")]
    pub rxl_block: Option<String>,
    /// The `rxl_endpoint` block (mode cxl_baseline) of `--mode cxl_baseline` (default: the
    /// design's first).
    #[arg(long, value_name = "B")]
    pub cxl_block: Option<String>,
    /// The `rxl_switch` block of the switch levels (default: the design's first with the
    /// endpoint's FEC layout).
    #[arg(long, value_name = "B")]
    pub switch_block: Option<String>,
    /// Switch levels between the endpoints: a number 0..=4, a list (0,1,4) or `all`.
    #[arg(long, default_value = "0", value_parser = topologies)]
    pub topology: Topologies,
    #[arg(long, value_enum, default_value = "rxl")]
    pub mode: ModeArg,
    #[arg(long = "impl", value_enum, default_value = "rtl")]
    pub implementation: Impl,
    /// Random bit error rate per bit, per link (0..=1).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub ber: f64,
    /// Forced (silent) flit drop probability per link (0..=1).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub drop: f64,
    /// Uncorrectable flit error rate (FER_UC) per link: two corrupted bytes in one FEC group.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub uc: f64,
    /// Burst probability per flit and link (0..=1).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub burst: f64,
    /// Burst length in bits.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub burst_bits: u32,
    /// Probability per flit and switch of a bit flip inside the switch (between link_rx and link_tx).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub internal: f64,
    /// Link cycles of saturating traffic (flits per direction) per topology, 1200..=10^12; each
    /// segment needs at least 1200 (a 200-cycle warm-up, then at least 1000 measured cycles).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1_200..=1_000_000_000_000))]
    pub flits: u64,
    /// Independent segments per topology (the work units --shard deals out), 1..=100000.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub segments: u32,
    /// Go-back-N retry loop in flits, 1..=100000; default 50 (100 ns at 2 ns per flit), or the
    /// shortest loop a topology's switches allow where that is longer (four levels: 84).
    #[arg(long = "loop", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub retry_loop: Option<u32>,
    /// Traffic and fault seed, decimal or 0x….
    #[arg(long, default_value = "1", value_parser = super::seed)]
    pub seed: u64,
    /// Run only part K of N of the campaign (0 <= K < N): the work units (endpoint, topology,
    /// segment) are dealt round-robin; merge the shards' --json files with `rtl-gen sim merge`.
    #[arg(long, value_name = "K/N", default_value = "0/1", value_parser = super::shard)]
    pub shard: Shard,
    /// Write PREFIX.json, PREFIX.csv and PREFIX.md.
    #[arg(long, value_name = "PREFIX")]
    pub out: Option<String>,
    #[command(flatten)]
    pub outputs: Outputs,
}

/// Switch levels, each 0..=4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topologies(pub Vec<usize>);

pub fn topologies(s: &str) -> Result<Topologies, String> {
    if s.trim() == "all" {
        return Ok(Topologies((0..=4).collect()));
    }
    let levels = s
        .split(',')
        .map(|t| match t.trim().parse::<usize>() {
            Ok(n) if n <= 4 => Ok(n),
            Ok(n) => Err(format!("{n} switch levels is out of range; allowed 0..=4, a list like 0,1,4, or all")),
            Err(_) => Err(format!("`{}` is not a number of switch levels; allowed 0..=4, a list like 0,1,4, or all", t.trim())),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Topologies(levels))
}

pub fn run(a: Args) -> CmdResult {
    let bench = a.target.bench()?;
    let sel = match a.mode {
        ModeArg::Rxl => ModeSel::Rxl,
        ModeArg::CxlBaseline => ModeSel::CxlBaseline,
        ModeArg::Both => ModeSel::Both,
    };
    // The design's first endpoint of each mode, unless named (and then of the right mode).
    let mut endpoints = rxl::endpoints_for_mode(&bench, sel).with_context(|| format!("--mode {}: in {}", a.mode.name(), a.target.origin()))?;
    for (option, mode, given) in [("--rxl-block", "rxl", &a.rxl_block), ("--cxl-block", "cxl_baseline", &a.cxl_block)] {
        let Some(name) = given else { continue };
        let block = a.target.block(&bench, option, name, &["rxl_endpoint"])?;
        let actual = block.typed_params().iter().find(|(k, _)| *k == "mode").and_then(|(_, v)| v.as_str().map(str::to_string)).unwrap_or_default();
        if actual != mode {
            anyhow::bail!("{option} {name}: the endpoint's mode is {actual}, not {mode}; pass an rxl_endpoint block with mode = \"{mode}\"");
        }
        match (mode, sel) {
            ("rxl", ModeSel::Rxl | ModeSel::Both) => endpoints[0] = name.clone(),
            ("cxl_baseline", ModeSel::CxlBaseline | ModeSel::Both) => *endpoints.last_mut().expect("one endpoint per mode") = name.clone(),
            _ => anyhow::bail!("{option} {name}: --mode {} does not run {mode} endpoints", a.mode.name()),
        }
    }
    if let Some(sw) = &a.switch_block {
        a.target.block(&bench, "--switch-block", sw, &["rxl_switch"])?;
    }
    a.outputs.check(a.out.as_deref(), true)?;
    let opts = RxlOptions {
        implementation: match a.implementation {
            Impl::Rtl => rxl::Impl::Rtl,
            Impl::Model => rxl::Impl::Model,
            Impl::Lockstep => rxl::Impl::Lockstep,
        },
        endpoints,
        switch: a.switch_block.clone(),
        topologies: a.topology.0.clone(),
        faults: Faults { ber: a.ber, burst: a.burst, burst_bits: a.burst_bits, drop: a.drop, uc: a.uc },
        internal: a.internal,
        flits: a.flits,
        segments: a.segments,
        retry_loop: a.retry_loop,
        seed: a.seed,
    };
    let results = rxl::run(&bench, &opts, a.shard, &mut Progress::auto()).with_context(|| format!("RXL campaign (shard {}) on {}", a.shard, a.target.origin()))?;
    a.outputs.write(&ResultFile::Rxl(results), a.out.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

impl ModeArg {
    fn name(self) -> &'static str {
        match self {
            ModeArg::Rxl => "rxl",
            ModeArg::CxlBaseline => "cxl_baseline",
            ModeArg::Both => "both",
        }
    }
}
