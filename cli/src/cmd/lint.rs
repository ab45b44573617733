//! `rtl-gen lint [DIR]`

use super::CmdResult;
use anyhow::Context;
use rtl_gen::tools::lint;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
}

pub fn run(a: Args) -> CmdResult {
    let results = lint::lint_tree(&a.tree).with_context(|| format!("linting the tree {}", a.tree.display()))?;
    let mut failed = 0;
    for r in &results {
        if r.clean {
            println!("clean  {:<9} {}", r.tool, r.module);
        } else {
            failed += 1;
            println!("FAILED {:<9} {}\n{}", r.tool, r.module, r.output.trim_end());
        }
    }
    let modules = results.len() / 3;
    if failed > 0 {
        eprintln!("lint: {failed} failures over {modules} modules");
        return Ok(ExitCode::from(1));
    }
    println!("lint: {modules} modules clean under verilator -Wall, iverilog -g2005 and yosys check");
    Ok(ExitCode::SUCCESS)
}
