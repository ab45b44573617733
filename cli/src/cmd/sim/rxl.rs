//! `rtl-gen sim rxl [DESIGN.toml] [--tree DIR] [--rxl-block B] [--cxl-block B] [--switch-block B]
//! [--topology 0..=4|LIST|all] [--mode rxl|cxl_baseline|both] [--impl rtl|model|lockstep]
//! [--ber P] [--drop P] [--uc P] [--burst P] [--burst-bits N] [--internal P] [--flits N]
//! [--loop N] [--seed S] [--shard K/N] [--json FILE]`: the options of the former
//! `sim/examples/rxl.rs`, for any design with `rxl_endpoint` (and `rxl_switch`) blocks.
//!
//! `--flits N` is the number of link cycles with saturating traffic (one flit per cycle per
//! direction); after it the campaign drains with the faults off until everything sent is
//! delivered. `--impl model` runs the Rust reference models (fast), `--impl lockstep` runs the
//! RTL and the models side by side and stops at the first differing output.

use super::{not_wired, output_file, probability, DesignArgs, Shard};
use crate::cmd::CmdResult;
use std::path::PathBuf;

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
    /// The `rxl_endpoint` block (mode rxl) used for `--mode rxl`.
    #[arg(long, value_name = "B", default_value = "rxl_ep")]
    pub rxl_block: String,
    /// The `rxl_endpoint` block (mode cxl_baseline) used for `--mode cxl_baseline`.
    #[arg(long, value_name = "B", default_value = "cxl_ep")]
    pub cxl_block: String,
    /// The `rxl_switch` block between the endpoints (topologies with switches).
    #[arg(long, value_name = "B", default_value = "rxl_sw")]
    pub switch_block: String,
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
    /// Link cycles of saturating traffic (flits per direction), 1..=10^12.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    pub flits: u64,
    /// Go-back-N retry loop in flits (100 ns at 2 ns per flit = 50), 1..=100000.
    #[arg(long = "loop", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub retry_loop: u32,
    /// Traffic and fault seed, decimal or 0x….
    #[arg(long, default_value = "1", value_parser = super::seed)]
    pub seed: u64,
    /// Run only part K of N of the campaign (0 <= K < N): the (mode, topology) runs are dealt
    /// round-robin to the shards; merge the shards' --json files with `rtl-gen sim merge`.
    #[arg(long, value_name = "K/N", value_parser = super::shard)]
    pub shard: Option<Shard>,
    /// Write the reports as JSON (what `rtl-gen sim merge` reads).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
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
    let chosen = a.target.resolve()?;
    let modes: &[(&str, &str)] = match a.mode {
        ModeArg::Rxl => &[("--rxl-block", "rxl")],
        ModeArg::CxlBaseline => &[("--cxl-block", "cxl_baseline")],
        ModeArg::Both => &[("--rxl-block", "rxl"), ("--cxl-block", "cxl_baseline")],
    };
    for &(option, mode) in modes {
        let name = if mode == "rxl" { &a.rxl_block } else { &a.cxl_block };
        let block = chosen.block(&a.target, option, name, &["rxl_endpoint"])?;
        let actual = block.params().iter().find(|(k, _)| *k == "mode").map(|(_, v)| v.clone()).unwrap_or_default();
        if actual != mode {
            anyhow::bail!("{option} {name}: the endpoint's mode is {actual}, not {mode}; pass an rxl_endpoint block with mode = \"{mode}\"");
        }
    }
    if a.topology.0.iter().any(|&n| n > 0) {
        chosen.block(&a.target, "--switch-block", &a.switch_block, &["rxl_switch"])?;
    }
    if let Some(json) = &a.json {
        output_file("--json", json)?;
    }
    not_wired("rxl", "rtl_gen_sim::campaign", &format!("design {}, tree {}", chosen.design.info.name, chosen.tree.display()))
}
