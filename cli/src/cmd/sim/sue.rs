//! `rtl-gen sim sue [DESIGN.toml] [--tree DIR] [--block B] [--cycles N] [--loads LIST]
//! [--link-ratio R] [--seed S] [--csv FILE]`: packing efficiency of a `sue_packer` vs offered
//! load (contract F1) on the Verilated RTL, checked in lockstep against the model and by the
//! scoreboard while it measures; `rtl_gen_sim::campaign::sue::packing`.

use super::DesignArgs;
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::campaign::sue::packing::{csv, run as packing, table, PackingOptions};
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
    /// Also write the points as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

pub fn run(a: Args) -> CmdResult {
    let bench = a.target.bench()?;
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
    let points =
        packing(&bench, &opts).with_context(|| format!("packing campaign on block {}", a.block))?;
    print!("{}", table(&points));
    if let Some(p) = &a.csv {
        std::fs::write(p, csv(&points)).with_context(|| format!("writing {}", p.display()))?;
    }
    let bad: u64 = points.iter().map(|p| p.mismatches).sum();
    if bad > 0 {
        eprintln!("{bad} mismatches between the RTL, the model and the scoreboard");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
