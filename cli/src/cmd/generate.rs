//! `rtl-gen generate [DESIGN.toml] [--out DIR]`

use super::CmdResult;
use anyhow::Context;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Design file (TOML). Without it the built-in default design is written to generated/
    /// (and its constraints to constraints/).
    pub design: Option<PathBuf>,
    /// Output folder: the design goes to DIR/<design name>/ (default: generated/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub fn run(a: Args) -> CmdResult {
    let (elab, layout) = super::resolve(a.design.as_deref(), a.out.as_deref())?;
    let set = super::build(&elab, layout)?;
    let report = set.write().with_context(|| format!("writing the tree of design {} into {}", elab.design.info.name, set.layout.root.display()))?;
    for p in &report.written {
        println!("wrote   {}", p.display());
    }
    for p in &report.removed {
        println!("removed {}", p.display());
    }
    println!(
        "design {}: {} files ({} written, {} unchanged, {} removed) in {}",
        elab.design.info.name,
        set.files.len(),
        report.written.len(),
        report.unchanged,
        report.removed.len(),
        set.layout.root.display()
    );
    Ok(std::process::ExitCode::SUCCESS)
}
