//! Shared by the co-simulation tests: the committed default tree (kept identical to the
//! generator's output by `rtl-gen check`) and the design it came from, for the models.
#![allow(dead_code)]

use rtl_gen::config::Design;
use rtl_gen_sim::Tree;
use std::path::PathBuf;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The built-in default design (the models) and its generated tree (the RTL).
pub fn default_design() -> (Design, Tree) {
    let tree = Tree::open(workspace().join("generated")).expect("generated/ exists: run `rtl-gen generate`");
    (Design::builtin_default(), tree)
}

/// Every block of `design` of the concrete type `B`.
pub fn blocks_of<B: 'static>(design: &Design) -> Vec<&B> {
    design.blocks.iter().filter_map(|b| b.as_any().downcast_ref::<B>()).collect()
}

/// How many random vectors a test drives: the default run, or ten times that with
/// `RTLGEN_LONG=1`.
pub fn scaled(n: usize) -> usize {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        10 * n
    } else {
        n
    }
}
