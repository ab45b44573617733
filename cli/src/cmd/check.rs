//! `rtl-gen check [DESIGN.toml] [--out DIR]`

use super::CmdResult;
use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Design file (TOML); without it the built-in default design in generated/.
    pub design: Option<PathBuf>,
    /// Output folder the design was generated into (default: generated/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub fn run(a: Args) -> CmdResult {
    let (elab, layout) = super::resolve(a.design.as_deref(), a.out.as_deref())?;
    let set = super::build(&elab, layout)?;
    let stale = set.check().with_context(|| format!("comparing design {} with {}", elab.design.info.name, set.layout.root.display()))?;
    let (stale, foreign): (Vec<_>, Vec<_>) = stale.into_iter().partition(|s| s.is_stale());
    for f in &foreign {
        eprintln!("{f}");
    }
    if stale.is_empty() {
        println!("design {}: {} files up to date", elab.design.info.name, set.files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for s in &stale {
        eprintln!("{s}");
    }
    let regen = if a.design.is_some() { "rtl-gen generate <design file> [--out DIR]" } else { "rtl-gen generate" };
    eprintln!("design {}: {} of {} files differ from the generator; run `{regen}`", elab.design.info.name, stale.len(), set.files.len());
    Ok(ExitCode::from(1))
}
