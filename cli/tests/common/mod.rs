//! Helpers shared by the CLI's integration tests (each test file uses its own subset).
#![allow(dead_code)]

pub mod formal;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root (the CLI crate's parent).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// Whether the long, opt-in runs are asked for (`RTLGEN_LONG=1`).
pub fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

/// `rtl-gen ARGS` run in `dir`.
pub fn rtl_gen(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtl-gen")).args(args).current_dir(dir).output().expect("run rtl-gen")
}
