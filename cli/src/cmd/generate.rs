//! `rtl-gen generate [DESIGN.toml] [--out DIR]`

use super::CmdResult;
use anyhow::Context;
use rtl_gen::output::tree;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Design file (TOML). Without it the built-in default design is written to generated/
    /// (and its constraints to constraints/).
    pub design: Option<PathBuf>,
    /// Output folder: the design goes to DIR/<design name>/ (default: generated/). The generator
    /// deletes only files that its previous manifest lists as its own, unedited, and that it no
    /// longer writes; it refuses a folder holding the design file or its header template.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub fn run(a: Args) -> CmdResult {
    let (elab, layout) = super::resolve(a.design.as_deref(), a.out.as_deref())?;
    if let Some(design) = &a.design {
        let template = elab.design.info.header_template.as_ref().map(|t| design.parent().unwrap_or(Path::new("")).join(&t.path));
        for (what, file) in std::iter::once(("design file", design.clone())).chain(template.map(|t| ("header template", t))) {
            let at = tree::resolved(&file);
            for dir in layout.owned_dirs() {
                if at.starts_with(tree::resolved(&dir)) {
                    anyhow::bail!(
                        "the output folder {} holds the {what} {}: the generator owns that folder; keep the {what} outside it or choose another --out",
                        dir.display(),
                        file.display()
                    );
                }
            }
        }
    }
    let set = super::build(&elab, layout)?;
    let report = set.write().with_context(|| format!("writing the tree of design {} into {}", elab.design.info.name, set.layout.root.display()))?;
    for p in &report.written {
        println!("wrote   {}", p.display());
    }
    for p in &report.replaced_links {
        println!("replaced the symbolic link {} by the file (its target is untouched)", p.display());
    }
    for p in &report.removed {
        println!("removed {}", p.display());
    }
    if !report.left.is_empty() {
        eprintln!("warning: {} files in the output folders were not written by the generator (or were edited since); left in place:", report.left.len());
        for p in &report.left {
            eprintln!("  {}", p.display());
        }
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
