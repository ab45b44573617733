//! Subcommands, one file each (`sim` has one per campaign).
pub mod analyze;
pub mod asic;
pub mod check;
pub mod ber_plot;
pub mod fig8;
pub mod formal;
pub mod fpga;
pub mod generate;
pub mod lint;
pub mod list;
pub mod plan;
pub mod report;
pub mod sim;
pub mod synth;

use anyhow::Context;
use rtl_gen::config::Design;
use rtl_gen::elab::Elaborated;
use rtl_gen::output::tree::{self, FileSet, Layout};
use std::path::{Path, PathBuf};

/// Result of a subcommand: an exit code, or an error printed as `error: …` / `caused by: …`
/// with exit code 2.
pub type CmdResult = anyhow::Result<std::process::ExitCode>;

/// A design file, read and validated; its `header_template` is relative to its folder.
pub fn load_design(path: &Path) -> anyhow::Result<Design> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading design file {}", path.display()))?;
    Design::parse_in(&text, &path.display().to_string(), path.parent().unwrap_or(Path::new(""))).with_context(|| format!("invalid design file {}", path.display()))
}

/// The built-in default design without a file, else the file's design.
pub fn design_or_default(path: Option<&Path>) -> anyhow::Result<Design> {
    match path {
        None => Ok(Design::builtin_default()),
        Some(p) => load_design(p),
    }
}

/// The design and where its tree goes, shared by `generate` and `check`: the default design
/// into `generated/` + `constraints/`, a design file (or the default with `--out`) into
/// `<out>/<design name>/`.
pub fn resolve(design_file: Option<&Path>, out: Option<&Path>) -> anyhow::Result<(Elaborated, Layout)> {
    let design = design_or_default(design_file)?;
    let layout = match (design_file, out) {
        (None, None) => Layout::default_design(Path::new(".")),
        (None, Some(o)) => Layout::for_design_file(o, &design),
        (Some(_), o) => Layout::for_design_file(o.unwrap_or(Path::new("generated")), &design),
    };
    Ok((design.elaborate(), layout))
}

/// Every file of the design in memory (a header template that does not render is an error).
pub fn build(elab: &Elaborated, layout: Layout) -> anyhow::Result<FileSet> {
    let name = elab.design.info.name.clone();
    tree::try_build(elab, layout).with_context(|| format!("building the files of design {name}"))
}

/// The folder of a generated tree, which must hold a manifest.json.
pub fn tree_dir(tree: &Path) -> anyhow::Result<PathBuf> {
    if !tree.join("manifest.json").is_file() {
        anyhow::bail!("{}: not a generated tree (no manifest.json); run `rtl-gen generate` first or pass the tree folder", tree.display());
    }
    Ok(tree.to_path_buf())
}
