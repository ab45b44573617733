//! Subcommands, one file each.
pub mod check;
pub mod generate;
pub mod lint;
pub mod list;
pub mod synth;

use rtl_gen::config::Design;
use rtl_gen::elab::Elaborated;
use rtl_gen::output::tree::Layout;
use std::path::{Path, PathBuf};

/// Error of a subcommand: printed as `error: …` with exit code 2.
pub type CmdResult = Result<std::process::ExitCode, Box<dyn std::error::Error>>;

/// The design and where its tree goes, shared by `generate` and `check`: the default design
/// into `generated/` + `constraints/`, a design file (or the default with `--out`) into
/// `<out>/<design name>/`.
pub fn resolve(design_file: Option<&Path>, out: Option<&Path>) -> Result<(Elaborated, Layout), Box<dyn std::error::Error>> {
    match design_file {
        None => {
            let design = Design::builtin_default();
            let layout = match out {
                None => Layout::default_design(Path::new(".")),
                Some(o) => Layout::for_design_file(o, &design),
            };
            Ok((design.elaborate(), layout))
        }
        Some(f) => {
            let design = Design::from_file(f)?;
            let out = out.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("generated"));
            let layout = Layout::for_design_file(&out, &design);
            Ok((design.elaborate(), layout))
        }
    }
}
