//! `rtl-gen sim rifl-sweep [DESIGN.toml] [--tree DIR] [--block B] [--packets N] [--delay N]
//! [--lane-gbps R] [--threads N] [--out PREFIX] [--json FILE] [--csv FILE] [--svg FILE]
//! [--seed S] [--max-cycles N] [--frame-id-bits N] [--bers LIST] [--shard K/N]`: the options of
//! `sim/examples/rifl_sweep.rs`, for any design with `rifl` blocks, on
//! `rtl_gen_sim::campaign::rifl::sweep`.
//!
//! Two nodes linked through channels with independent random bit errors, saturating random
//! traffic (packets of 1..8192 bytes) both ways, at BERs from 1e-12 to 1e-5 in steps of 10^0.25:
//! bandwidth ratio and average / p99 / p99.9 packet latency per BER, as a Markdown table, a CSV
//! and an SVG plot. `--delay` is the cable plus transceiver delay per direction in cycles (8
//! cycles = 73 ns at 28 Gb/s: 10 m of fibre and two transceivers); `--lane-gbps` only converts
//! cycles to nanoseconds (a cycle is frame_bits / lane rate).

use super::{DesignArgs, Outputs};
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::campaign::rifl::sweep::{default_bers, sweep, sweep_params, SweepOptions};
use rtl_gen_sim::campaign::{Progress, Shard};
use rtl_gen_sim::results::ResultFile;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: DesignArgs,
    /// A rifl block of the design (default design: rifl, rifl4).
    #[arg(long, value_name = "B", default_value = "rifl")]
    pub block: String,
    /// Packets per direction per BER point.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub packets: u64,
    /// Cable + transceiver delay per direction in cycles.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub delay: u32,
    /// Line rate per lane in Gb/s, for the nanosecond columns (> 0, <= 10000).
    #[arg(long, default_value_t = 28.0, value_parser = lane_rate)]
    pub lane_gbps: f64,
    /// BER points simulated in parallel.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Output prefix: PREFIX.json, PREFIX.csv, PREFIX.md and (with the BER-0 point) PREFIX.svg.
    #[arg(long, value_name = "PREFIX", default_value = "target/rifl_sweep", value_parser = out_prefix)]
    pub out: String,
    #[command(flatten)]
    pub outputs: Outputs,
    /// Traffic and bit-error seed, decimal or 0x….
    #[arg(long, default_value = "6", value_parser = super::seed)]
    pub seed: u64,
    /// Cycle cap per point (a point stopped by it reports what was delivered).
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000_000_000))]
    pub max_cycles: u64,
    /// Override of the block's frame ID width, with 2^N >= 2 x retrans_threshold and 2^N >= 32 +
    /// the round trip of 2 x (delay + the node's pass-through) frames (the pass-through is 12
    /// cycles with one lane, 14 with more).
    #[arg(long, value_parser = clap::value_parser!(u32).range(5..=12))]
    pub frame_id_bits: Option<u32>,
    /// Only these BERs (comma-separated, each in 0..=1), instead of 1e-12 … 1e-5 in steps of
    /// 10^0.25; the error-free reference point always runs.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::probability)]
    pub bers: Option<Vec<f64>>,
    /// Run only part K of N of the BER points (0 <= K < N, dealt round-robin); merge the
    /// shards' --json files with `rtl-gen sim merge`.
    #[arg(long, value_name = "K/N", default_value = "0/1", value_parser = super::shard)]
    pub shard: Shard,
}

fn lane_rate(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 && r <= 10_000.0 => Ok(r),
        Ok(r) if !r.is_nan() => Err(format!("{r} is out of range; allowed a rate in Gb/s > 0 and <= 10000")),
        _ => Err(format!("{v:?} is not a number (Gb/s, e.g. 28 or 25.78)")),
    }
}

fn out_prefix(v: &str) -> Result<String, String> {
    if v.is_empty() || v.ends_with('/') {
        return Err(format!("{v:?} is not a file prefix; allowed e.g. target/rifl_sweep (writes .csv, .svg, .md)"));
    }
    Ok(v.to_string())
}

pub fn run(a: Args) -> CmdResult {
    let bench = a.target.bench()?;
    a.target.block(&bench, "--block", &a.block, &["rifl"])?;
    let opts = SweepOptions {
        block: a.block.clone(),
        packets: a.packets,
        delay: a.delay,
        lane_gbps: a.lane_gbps,
        threads: a.threads,
        seed: a.seed,
        max_cycles: a.max_cycles,
        frame_id_bits: a.frame_id_bits,
        bers: a.bers.clone().unwrap_or_else(default_bers),
    };
    // The frame ID width against the block and the cable, before the (long) sweep.
    sweep_params(&bench, &opts).map_err(|e| anyhow::anyhow!("--frame-id-bits / --delay: {e}"))?;
    a.outputs.check(Some(&a.out), true)?;
    let results = sweep(&bench, &opts, a.shard, &mut Progress::auto()).with_context(|| format!("RIFL sweep of block {} (shard {}) on {}", a.block, a.shard, a.target.origin()))?;
    a.outputs.write(&ResultFile::RiflSweep(results), Some(&a.out))?;
    Ok(ExitCode::SUCCESS)
}
