//! `rtl-gen sim sue [DESIGN.toml] [--tree DIR] [--block B] [--cycles N] [--loads LIST]
//! [--link-ratio R] [--seed S] [--csv FILE] [--svg FILE]`: packing efficiency of a `sue_packer` vs offered
//! load (figure F1) on the Verilated RTL, checked in lockstep against the model and by the
//! scoreboard while it measures; `rtl_gen_sim::campaign::sue::packing`.
//!
//! `--figures [--endpoint B] [--fabric-cycles N] [--models] [--shard K/N] [--out FILE.md]
//! [--json FILE] [--csv FILE]`: the
//! the F1–F7 figures of docs/results/sue.md on an N-XPU fabric of `sue_endpoint`s (Verilated RTL in lockstep with
//! their models unless `--models`) through the switch model
//! (`rtl_gen_sim::campaign::sue::figures`), plus packing vs `hold_cycles` on the packer; exits 1
//! when any scoreboard or lockstep comparison failed. The seven figures are the units of a
//! campaign (`rtl_gen_sim::campaign::sue::campaign`): `--shard K/N --json F` runs part of them
//! and `rtl-gen sim merge` of every part prints (and writes) the single run's report.

use super::DesignArgs;
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::campaign::sue::packing::{csv, full_pdu_efficiency, run as packing, svg, table, PackingOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: DesignArgs,
    /// A sue_packer block of the design (default design: sue_pk).
    #[arg(long, value_name = "B", default_value = "sue_pk")]
    pub block: String,
    /// Cycles per load point.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(100..=100_000_000))]
    pub cycles: u64,
    /// Offered loads as fractions of the link rate (comma-separated, each in 0..=1).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::probability)]
    pub loads: Option<Vec<f64>>,
    /// Link rate as a fraction of the command bus rate (the XPU side is faster, SUE §4.4).
    #[arg(long, default_value = "0.5", value_parser = super::probability)]
    pub link_ratio: f64,
    /// Traffic seed, decimal or 0x….
    #[arg(long, default_value = "1", value_parser = super::seed)]
    pub seed: u64,
    /// Also write the points as CSV (with --figures: every fabric point of the figures).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also plot the packing sweep as SVG: wire efficiency and packing latency against offered
    /// load (not with --figures).
    #[arg(long, value_name = "FILE", conflicts_with = "figures")]
    pub svg: Option<PathBuf>,
    /// Run the figures (F5 cross-VC PSN, F3 goodput vs drop, F4 incast, F1/F2 load sweep,
    /// packing vs hold_cycles, F7 stalled consumer, F6 ACK overhead) instead of one packing sweep.
    #[arg(long)]
    pub figures: bool,
    /// The sue_endpoint block the fabrics are made of (default design: sue_ep).
    #[arg(long, value_name = "B", default_value = "sue_ep")]
    pub endpoint: String,
    /// Cycles of traffic per fabric point (each point is then drained).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1_000..=100_000_000))]
    pub fabric_cycles: u64,
    /// Run the fabric endpoints as models only (no Verilator builds).
    #[arg(long)]
    pub models: bool,
    /// Run the figures whose index i (0..7: F5, F3, F4, F1/F2, F1 hold, F7, F6) has i % N == K.
    #[arg(long, default_value = "0/1", value_parser = super::shard)]
    pub shard: rtl_gen_sim::campaign::Shard,
    /// F3: also run the drop sweep with these `window:rto_cycles` variants (e.g. 8:2048,4:8192);
    /// each is a further fabric design (Verilator builds).
    #[arg(long, value_name = "W:RTO,…", value_delimiter = ',', value_parser = window_rto)]
    pub f3_variants: Vec<(u32, u32)>,
    /// Write the figures as Markdown.
    #[arg(long, value_name = "FILE.md")]
    pub out: Option<PathBuf>,
    /// Write the figures' records (every fabric point: counters, latencies, per-source
    /// deliveries) as JSON, what `rtl-gen sim merge` reads.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// `W:RTO` of `--f3-variants` (the block checks the ranges when the fabric is built).
fn window_rto(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{s}`: expected WINDOW:RTO_CYCLES, e.g. 8:2048");
    let (w, r) = s.split_once(':').ok_or_else(bad)?;
    Ok((w.trim().parse().map_err(|_| bad())?, r.trim().parse().map_err(|_| bad())?))
}

/// The figures: a campaign of seven units (`rtl_gen_sim::campaign::sue::campaign`) on the shared
/// result files, so `--shard K/N --json F` parts merge with `rtl-gen sim merge`.
fn figures(a: &Args, bench: &rtl_gen_sim::Bench) -> anyhow::Result<ExitCode> {
    use rtl_gen_sim::campaign::sue::campaign::{run, SueOptions};
    use rtl_gen_sim::campaign::Progress;
    use rtl_gen_sim::results::ResultFile;
    a.target.block(bench, "--endpoint", &a.endpoint, &["sue_endpoint"])?;
    a.target.block(bench, "--block", &a.block, &["sue_packer"])?;
    anyhow::ensure!(a.link_ratio > 0.0, "--link-ratio must be above 0");
    let outputs = super::Outputs { json: a.json.clone(), csv: a.csv.clone(), svg: None };
    outputs.check(None, false)?;
    if let Some(p) = &a.out {
        super::output_file("--out", p)?;
    }
    let o = SueOptions {
        endpoint: a.endpoint.clone(),
        packer: a.block.clone(),
        fabric_cycles: a.fabric_cycles,
        packer_cycles: a.cycles,
        link_ratio: a.link_ratio,
        seed: a.seed,
        rtl: !a.models,
        drop_variants: a.f3_variants.clone(),
        ..SueOptions::default()
    };
    let r = run(bench, &o, a.shard, &mut Progress::auto()).with_context(|| format!("SUE figures (shard {})", a.shard))?;
    let bad = r.violations();
    let results = ResultFile::Sue(r);
    outputs.write(&results, None)?;
    if let Some(p) = &a.out {
        std::fs::write(p, results.report()).with_context(|| format!("writing {}", p.display()))?;
        println!("wrote {}", p.display());
    }
    if bad > 0 {
        eprintln!("{bad} scoreboard / lockstep violations");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(a: Args) -> CmdResult {
    let bench = a.target.bench()?;
    if a.figures {
        return figures(&a, &bench);
    }
    a.target
        .block(&bench, "--block", &a.block, &["sue_packer"])?;
    let mut opts = PackingOptions {
        block: a.block.clone(),
        cycles: a.cycles,
        link_ratio: a.link_ratio,
        seed: a.seed,
        ..Default::default()
    };
    if let Some(l) = a.loads {
        opts.loads = l;
    }
    anyhow::ensure!(a.link_ratio > 0.0, "--link-ratio must be above 0");
    for (option, path) in [("--csv", &a.csv), ("--svg", &a.svg)] {
        if let Some(p) = path {
            super::output_file(option, p)?;
        }
    }
    let points =
        packing(&bench, &opts).with_context(|| format!("packing campaign on block {}", a.block))?;
    print!("{}", table(&points));
    if let Some(p) = &a.csv {
        std::fs::write(p, csv(&points)).with_context(|| format!("writing {}", p.display()))?;
    }
    if let Some(p) = &a.svg {
        let title = format!("SUE packing vs offered load (RTL, block {}, link {} of the bus, {} cycles per point, seed {})", a.block, a.link_ratio, a.cycles, a.seed);
        let full = full_pdu_efficiency(&bench, &a.block)?;
        std::fs::write(p, svg(&points, Some(full), &title)).with_context(|| format!("writing {}", p.display()))?;
    }
    let bad: u64 = points.iter().map(|p| p.mismatches).sum();
    if bad > 0 {
        eprintln!("{bad} mismatches between the RTL, the model and the scoreboard");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
