//! RIFL reliability sweep (§6.C, Fig. 9) from the command line: a thin wrapper over
//! `rtl_gen_sim::campaign::rifl::sweep` (the same as `rtl-gen sim rifl-sweep`).
//!
//! ```text
//! cargo run --release -p rtl-gen-sim --example rifl_sweep -- [--block rifl] [--packets 2000]
//!     [--delay 8] [--lane-gbps 28] [--threads 2] [--out target/rifl_sweep] [--max-cycles N]
//!     [--frame-id-bits N] [--seed 6] [--design FILE | --tree DIR] [--shard K/N]
//! ```
//! Writes PREFIX.csv, .svg, .md and .json (`--out`). A bad block or frame ID width is an
//! `error: …` with exit status 2 before anything runs.

use clap::Parser;
use rtl_gen_sim::campaign::rifl::sweep::{self, SweepOptions};
use rtl_gen_sim::campaign::{CampaignError, Progress, ResultFile, Shard};
use rtl_gen_sim::Bench;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(about = "RIFL BER sweep (§6.C, Fig. 9): bandwidth ratio and average/p99/p99.9 latency per BER from 1e-12 to 1e-5 in steps of 10^0.25, written as CSV, SVG, JSON and a Markdown table")]
struct Opts {
    /// A rifl block of the design.
    #[arg(long, default_value = "rifl")]
    block: String,
    /// Packets per direction per BER point.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    packets: u64,
    /// Cable + transceiver delay per direction in cycles.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    delay: u32,
    /// Line rate per lane in Gb/s, for the nanosecond columns.
    #[arg(long, default_value_t = 28.0)]
    lane_gbps: f64,
    /// BER points simulated in parallel.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Output prefix: PATH.csv, PATH.svg, PATH.md, PATH.json.
    #[arg(long, default_value = "target/rifl_sweep")]
    out: String,
    #[arg(long, default_value_t = 6)]
    seed: u64,
    /// Cycle cap per point.
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000_000_000))]
    max_cycles: u64,
    /// Override of the block's frame ID width.
    #[arg(long, value_parser = clap::value_parser!(u32).range(5..=12))]
    frame_id_bits: Option<u32>,
    #[arg(long, conflicts_with = "tree")]
    design: Option<PathBuf>,
    #[arg(long)]
    tree: Option<PathBuf>,
    /// Only these BERs (comma-separated), instead of 1e-12 … 1e-5 in steps of 10^0.25.
    #[arg(long, value_delimiter = ',')]
    bers: Option<Vec<f64>>,
    /// Run shard K of N (0-based).
    #[arg(long, default_value = "0/1")]
    shard: Shard,
}

fn main() {
    let o = Opts::parse();
    let run = || -> Result<(), CampaignError> {
        let bench = match (&o.design, &o.tree) {
            (Some(d), _) => Bench::from_design_file(d)?,
            (None, Some(t)) => Bench::from_tree(t)?,
            (None, None) => Bench::default_design()?,
        };
        let opts = SweepOptions { block: o.block.clone(), packets: o.packets, delay: o.delay, lane_gbps: o.lane_gbps, threads: o.threads, seed: o.seed, max_cycles: o.max_cycles, frame_id_bits: o.frame_id_bits, bers: o.bers.clone().unwrap_or_else(sweep::default_bers), ..SweepOptions::default() };
        if let Err(e) = sweep::sweep_params(&bench, &opts) {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
        let results = ResultFile::RiflSweep(sweep::sweep(&bench, &opts, o.shard, &mut Progress::auto())?);
        print!("{}", results.report());
        println!("wrote {}", results.write_all(&o.out)?.join(", "));
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
