//! `rtl-gen sim rifl-sweep [DESIGN.toml] [--tree DIR] [--block B] [--packets N] [--delay N]
//! [--lane-gbps R] [--threads N] [--out PREFIX] [--csv FILE] [--svg FILE] [--json FILE]
//! [--seed S] [--max-cycles N] [--frame-id-bits N] [--shard K/N]`: the options of the former
//! `sim/examples/rifl_sweep.rs`, for any design with `rifl` blocks.
//!
//! Two nodes linked through channels with independent random bit errors, saturating random
//! traffic (packets of 1..8192 bytes) both ways, at BERs from 1e-12 to 1e-5 in steps of 10^0.25:
//! bandwidth ratio and average / p99 / p99.9 packet latency per BER, as a Markdown table, a CSV
//! and an SVG plot. `--delay` is the cable plus transceiver delay per direction in cycles (8
//! cycles = 73 ns at 28 Gb/s: 10 m of fibre and two transceivers); `--lane-gbps` only converts
//! cycles to nanoseconds (a cycle is frame_bits / lane rate).

use super::{not_wired, output_file, DesignArgs, Shard};
use crate::cmd::CmdResult;
use rtl_gen::blocks::rifl::RiflBlock;
use std::path::PathBuf;

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
    /// Output prefix: PREFIX.csv, PREFIX.svg, PREFIX.md (--csv / --svg override the first two).
    #[arg(long, value_name = "PREFIX", default_value = "target/rifl_sweep", value_parser = out_prefix)]
    pub out: String,
    /// Where to write the CSV (default PREFIX.csv).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Where to write the SVG plot (default PREFIX.svg).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write the points as JSON (what `rtl-gen sim merge` reads).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Traffic and bit-error seed, decimal or 0x….
    #[arg(long, default_value = "6", value_parser = super::seed)]
    pub seed: u64,
    /// Cycle cap per point (a point stopped by it reports what was delivered).
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000_000_000))]
    pub max_cycles: u64,
    /// Override of the block's frame ID width, with 2^N >= 2 x retrans_threshold and 2^N >= 32 +
    /// the round trip of 2 x (delay + 9) frames.
    #[arg(long, value_parser = clap::value_parser!(u32).range(5..=12))]
    pub frame_id_bits: Option<u32>,
    /// Run only part K of N of the BER points (0 <= K < N, dealt round-robin); merge the
    /// shards' --json files with `rtl-gen sim merge`.
    #[arg(long, value_name = "K/N", value_parser = super::shard)]
    pub shard: Option<Shard>,
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

/// Cycles from a frame entering a node's receive side to the node's transmit side answering it
/// over a zero-delay cable (sim/RIFL.md).
pub const NODE_PASS_CYCLES: u32 = 9;

pub fn run(a: Args) -> CmdResult {
    let chosen = a.target.resolve()?;
    let block = chosen.block(&a.target, "--block", &a.block, &["rifl"])?;
    let rifl = block.as_any().downcast_ref::<RiflBlock>().ok_or_else(|| anyhow::anyhow!("--block {}: not a rifl block", a.block))?;
    let mut p = rifl.params;
    if let Some(n) = a.frame_id_bits {
        if (1u32 << n) < 2 * p.retrans_threshold {
            anyhow::bail!(
                "--frame-id-bits {n}: {} frame IDs are fewer than 2 x retrans_threshold = {} of block {}; allowed {}..=12",
                1u32 << n,
                2 * p.retrans_threshold,
                a.block,
                32 - (2 * p.retrans_threshold - 1).leading_zeros()
            );
        }
        p.frame_id_bits = n;
    }
    // Frame IDs must outnumber the frames in flight around the retransmission loop plus the
    // rollback and request margins, or a retransmitted frame aliases a newer one (sim/RIFL.md).
    let rtt = 2 * (a.delay + NODE_PASS_CYCLES);
    let need = 32 + rtt;
    if (1u64 << p.frame_id_bits) < u64::from(need) {
        let min_bits = 32 - (need - 1).leading_zeros();
        anyhow::bail!(
            "--frame-id-bits: 2^{} frame IDs cannot cover a {rtt}-frame round trip (--delay {} per direction) + 32; allowed {min_bits}..=12 (or a shorter --delay)",
            p.frame_id_bits,
            a.delay
        );
    }
    output_file("--out", &PathBuf::from(format!("{}.md", a.out)))?;
    for (option, path) in [("--csv", &a.csv), ("--svg", &a.svg), ("--json", &a.json)] {
        if let Some(p) = path {
            output_file(option, p)?;
        }
    }
    not_wired("rifl-sweep", "rtl_gen_sim::campaign", &format!("design {}, tree {}", chosen.design.info.name, chosen.tree.display()))
}
