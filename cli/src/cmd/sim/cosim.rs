//! `rtl-gen sim cosim [DESIGN.toml] [--tree DIR] [--block B] [--vectors N] [--seed S]`

use super::{not_wired, DesignArgs};
use crate::cmd::CmdResult;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: DesignArgs,
    /// Only the modules of this block (default: every block of the design).
    #[arg(long, value_name = "B")]
    pub block: Option<String>,
    /// Random vectors per module (directed corner cases come on top), 1..=1000000000.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub vectors: u64,
    /// Stimulus seed, decimal or 0x… (default: a fresh one, printed so the run can be replayed).
    #[arg(long, value_name = "S", value_parser = super::seed)]
    pub seed: Option<u64>,
}

pub fn run(a: Args) -> CmdResult {
    let chosen = a.target.resolve()?;
    if let Some(b) = &a.block {
        if chosen.design.block(b).is_none() {
            let names: Vec<&str> = chosen.design.blocks.iter().map(|b| b.name()).collect();
            anyhow::bail!("--block {b}: no such block in {}; blocks: {}", chosen.origin(&a.target), names.join(", "));
        }
    }
    not_wired("cosim", "rtl_gen_sim::cosim", &format!("design {}, tree {}", chosen.design.info.name, chosen.tree.display()))
}
