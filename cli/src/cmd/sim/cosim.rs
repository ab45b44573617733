//! `rtl-gen sim cosim [DESIGN.toml] [--tree DIR] [--block B] [--vectors N] [--seed S]`: every
//! module of the design (or of one block) in Verilator against its reference model
//! (`rtl_gen_sim::cosim`); a table of vectors, cycles and mismatches per module; exit status 1
//! when any module differs from its model, each differing module named with its first
//! mismatch (cycle, port, values, seed) and the VCD waveform of a re-run with the same seed.

use super::DesignArgs;
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::cosim;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: DesignArgs,
    /// Only the modules of this block (default: every block of the design).
    #[arg(long, value_name = "B")]
    pub block: Option<String>,
    /// Random vectors (combinational modules) or cycles (clocked ones) per module, on top of the
    /// corner cases; 1..=1000000000.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub vectors: u64,
    /// Stimulus seed, decimal or 0x… (each module derives its own stream from it and its name).
    #[arg(long, value_name = "S", default_value = "1", value_parser = super::seed)]
    pub seed: u64,
    /// Do not re-run a differing module to write its waveform (by default each differing module
    /// runs once more, same seed, on a model built with VCD tracing, and the file is named).
    #[arg(long)]
    pub no_waves: bool,
}

pub fn run(a: Args) -> CmdResult {
    let bench = a.target.bench()?;
    if let Some(b) = &a.block {
        if bench.design().block(b).is_none() {
            let names: Vec<&str> = bench.design().blocks.iter().map(|b| b.name()).collect();
            anyhow::bail!("--block {b}: no such block in {}; blocks: {}", a.target.origin(), names.join(", "));
        }
    }
    let opts = cosim::Options { vectors: a.vectors, seed: a.seed };
    let outcomes = cosim::run(&bench, a.block.as_deref(), &opts, &mut |m| eprintln!("co-simulating {} ({}, {})", m.name(), m.kind, m.role))
        .with_context(|| format!("co-simulating {}", a.target.origin()))?;
    print!("{}", cosim::table(&outcomes));
    let failed: Vec<&str> = outcomes.iter().filter(|o| !o.passed()).map(|o| o.module.as_str()).collect();
    if !failed.is_empty() {
        eprintln!("cosim: {} of {} modules differ from their models: {}", failed.len(), outcomes.len(), failed.join(", "));
        for o in outcomes.iter().filter(|o| !o.passed()) {
            eprintln!("  {o}");
            if !a.no_waves {
                let waves = cosim::waves_for(&bench, &o.module, &opts).with_context(|| format!("re-running {} for its waveform", o.module))?;
                for w in waves {
                    eprintln!("    waveform: {}", w.display());
                }
            }
        }
        return Ok(ExitCode::from(1));
    }
    println!("cosim: {} modules equal to their models (seed {:#x}, {} vectors each)", outcomes.len(), a.seed, a.vectors);
    Ok(ExitCode::SUCCESS)
}
