//! Shared by the RIFL co-simulation tests: the default design's bench and `rifl` blocks; the
//! Verilated node ([`RtlNode`]) and the lockstep [`Twin`] live in
//! `rtl_gen_sim::campaign::rifl::rtl` and are re-exported here.
#![allow(dead_code)]

use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::config::Design;
use rtl_gen_sim::{Bench, Tree};
use std::path::PathBuf;

pub use rtl_gen_sim::campaign::rifl::rtl::{RtlNode, Twin};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The built-in default design and its committed tree.
pub fn default_design() -> (Design, Tree) {
    let tree = Tree::open(workspace().join("generated")).expect("generated/ exists: run `rtl-gen generate`");
    (Design::builtin_default(), tree)
}

/// The default design's bench (models and RTL from one design).
pub fn bench() -> Bench {
    Bench::default_design().expect("the default design and generated/")
}

/// The default design's `rifl` block called `name`.
pub fn rifl_block<'a>(design: &'a Design, name: &str) -> &'a RiflBlock {
    design
        .blocks
        .iter()
        .filter_map(|b| b.as_any().downcast_ref::<RiflBlock>())
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("the default design has a rifl block `{name}`"))
}

/// `RTLGEN_LONG=1` multiplies the default amounts by ten.
pub fn scaled(n: u64) -> u64 {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        10 * n
    } else {
        n
    }
}
