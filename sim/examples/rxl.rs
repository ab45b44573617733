//! RXL / CXL link campaigns from the command line: a thin wrapper over
//! `rtl_gen_sim::campaign::rxl` (the same as `rtl-gen sim rxl`).
//!
//! ```text
//! cargo run --release -p rtl-gen-sim --example rxl -- --topology all --drop 1e-3 --ber 1e-6 --flits 1000000
//! cargo run --release -p rtl-gen-sim --example rxl -- --mode cxl_baseline --topology 1 --drop 1e-3 --flits 1000000
//! cargo run --release -p rtl-gen-sim --example rxl -- --mode both --topology 0,1 --uc 3e-5 --flits 2000000
//! ```
//!
//! Models and RTL come from one design: the built-in default (`generated/`), `--design FILE`
//! (generated into `target/bench/`) or `--tree DIR` (the design rebuilt from DIR's manifest).
//! `--shard K/N` runs a slice and `--out PREFIX` writes PREFIX.json/.csv/.md; merge the JSONs
//! with `rtl-gen sim merge`.

use clap::{Parser, ValueEnum};
use rtl_gen_sim::campaign::rxl::{self, Impl, ModeSel, RxlOptions};
use rtl_gen_sim::campaign::{Faults, Progress, ResultFile, Shard};
use rtl_gen_sim::Bench;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
enum ImplArg {
    Rtl,
    Model,
    Lockstep,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
enum ModeArg {
    Rxl,
    #[value(name = "cxl_baseline")]
    CxlBaseline,
    Both,
}

#[derive(Parser, Debug)]
#[command(about = "RXL / CXL 3.0 link campaigns on the generated RTL: scoreboards, ordering failures (Eq. 7) and bandwidth loss (Eq. 11-14)")]
struct Args {
    /// Switch levels between the endpoints: a number 0..=4, a list (0,1,4) or `all`.
    #[arg(long, default_value = "0")]
    topology: String,
    #[arg(long, value_enum, default_value = "rxl")]
    mode: ModeArg,
    #[arg(long = "impl", value_enum, default_value = "rtl")]
    implementation: ImplArg,
    /// Random bit error rate per bit, per link.
    #[arg(long, default_value_t = 0.0)]
    ber: f64,
    /// Forced (silent) flit drop probability per link.
    #[arg(long, default_value_t = 0.0)]
    drop: f64,
    /// Uncorrectable flit error rate (FER_UC) per link: two corrupted bytes in one FEC group.
    #[arg(long, default_value_t = 0.0)]
    uc: f64,
    /// Burst probability per flit and link.
    #[arg(long, default_value_t = 0.0)]
    burst: f64,
    /// Burst length in bits.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=2048))]
    burst_bits: u32,
    /// Probability per flit and switch of a bit flip inside the switch.
    #[arg(long, default_value_t = 0.0)]
    internal: f64,
    /// Link cycles of saturating traffic (flits per direction) per topology.
    #[arg(long, default_value_t = 100_000)]
    flits: u64,
    /// Independent segments per topology (work units for --shard).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    segments: u32,
    /// Go-back-N retry loop in flits (100 ns at 2 ns per flit = 50).
    #[arg(long = "loop", default_value_t = 50)]
    retry_loop: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A design file (models and RTL from it).
    #[arg(long, conflicts_with = "tree")]
    design: Option<PathBuf>,
    /// A generated tree (the design from its manifest).
    #[arg(long)]
    tree: Option<PathBuf>,
    /// Endpoint blocks (default: the design's first of each mode).
    #[arg(long)]
    rxl_block: Option<String>,
    #[arg(long)]
    cxl_block: Option<String>,
    #[arg(long)]
    switch_block: Option<String>,
    /// Run shard K of N (0-based).
    #[arg(long, default_value = "0/1")]
    shard: Shard,
    /// Write PREFIX.json, PREFIX.csv, PREFIX.md.
    #[arg(long)]
    out: Option<String>,
}

fn topologies(s: &str) -> Result<Vec<usize>, String> {
    if s == "all" {
        return Ok((0..=4).collect());
    }
    s.split(',').map(|t| t.trim().parse::<usize>().map_err(|e| format!("--topology {t}: {e}"))).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = Args::parse();
    let bench = match (&a.design, &a.tree) {
        (Some(d), _) => Bench::from_design_file(d)?,
        (None, Some(t)) => Bench::from_tree(t)?,
        (None, None) => Bench::default_design()?,
    };
    let sel = match a.mode {
        ModeArg::Rxl => ModeSel::Rxl,
        ModeArg::CxlBaseline => ModeSel::CxlBaseline,
        ModeArg::Both => ModeSel::Both,
    };
    // The design's first endpoint of each mode, unless named.
    let mut endpoints = rxl::endpoints_for_mode(&bench, sel)?;
    if let (Some(b), ModeSel::Rxl | ModeSel::Both) = (&a.rxl_block, sel) {
        endpoints[0] = b.clone();
    }
    if let (Some(b), ModeSel::CxlBaseline | ModeSel::Both) = (&a.cxl_block, sel) {
        *endpoints.last_mut().expect("one endpoint per mode") = b.clone();
    }
    let opts = RxlOptions {
        implementation: match a.implementation {
            ImplArg::Rtl => Impl::Rtl,
            ImplArg::Model => Impl::Model,
            ImplArg::Lockstep => Impl::Lockstep,
        },
        endpoints,
        switch: a.switch_block.clone(),
        topologies: topologies(&a.topology)?,
        faults: Faults { ber: a.ber, burst: a.burst, burst_bits: a.burst_bits, drop: a.drop, uc: a.uc },
        internal: a.internal,
        flits: a.flits,
        segments: a.segments,
        retry_loop: a.retry_loop,
        seed: a.seed,
    };
    let results = ResultFile::Rxl(rxl::run(&bench, &opts, a.shard, &mut Progress::auto())?);
    println!("{}", results.report());
    if let Some(prefix) = &a.out {
        println!("wrote {}", results.write_all(prefix)?.join(", "));
    }
    Ok(())
}
