//! Helpers of the `rtl-gen formal` tests (`formal.rs`, `formal_protocols.rs`): generating a
//! test design, planting a mutation, reading the printed table and its counterexample files.

use std::path::{Path, PathBuf};
use std::process::Output;

/// stdout and stderr of a run, for assertion messages and table rows.
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `toml` written as `file` in `dir` and generated into `dir/out`; returns the tree of the
/// design `design` (its `[design] name`).
pub fn generate(dir: &Path, file: &str, toml: &str, out: &str, design: &str) -> PathBuf {
    std::fs::write(dir.join(file), toml).expect("write design");
    let o = super::rtl_gen(&["generate", file, "--out", out], dir);
    assert!(o.status.success(), "{}", text(&o));
    dir.join(out).join(design)
}


/// A copy of the tree with `from` replaced by `to` in `module`'s file (exactly once).
pub fn mutate(tree: &Path, dir: &Path, module: &str, from: &str, to: &str) -> PathBuf {
    let copy = dir.join(format!("mutant_{module}"));
    std::fs::create_dir_all(copy.join("rtl")).expect("mkdir");
    std::fs::copy(tree.join("manifest.json"), copy.join("manifest.json")).expect("copy manifest");
    for f in std::fs::read_dir(tree.join("rtl")).expect("rtl folder") {
        let f = f.expect("entry").path();
        std::fs::copy(&f, copy.join("rtl").join(f.file_name().expect("name"))).expect("copy");
    }
    let file = copy.join(format!("rtl/{module}.v"));
    let src = std::fs::read_to_string(&file).expect("read module");
    assert_eq!(src.matches(from).count(), 1, "the mutation site `{from}` must occur once in {module}");
    std::fs::write(&file, src.replace(from, to)).expect("write mutant");
    copy
}

/// The result column of `module`'s row in the printed table.
pub fn row<'a>(out: &'a str, module: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(&format!("| {module} |"))).unwrap_or_else(|| panic!("no row for {module}:\n{out}"))
}

/// The counterexample paths a FAILED row names: both files must exist.
pub fn assert_counterexample(out: &str, module: &str, base: &Path) {
    let r = row(out, module);
    assert!(r.contains("FAILED"), "{module} must fail:\n{out}");
    let vcd = r.split("counterexample ").nth(1).and_then(|t| t.split_whitespace().next()).expect("VCD path");
    let tb = r.split("testbench ").nth(1).and_then(|t| t.split_whitespace().next()).expect("testbench path");
    for p in [vcd, tb] {
        let p = base.join(p);
        assert!(p.is_file() && std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false), "{} missing or empty:\n{out}", p.display());
    }
}

/// A run that must fail on `module`: exit status 1, and the counterexample files its FAILED row
/// names on disk (relative to `base`). Returns the printed text.
pub fn assert_failed(out: &Output, module: &str, base: &Path) -> String {
    let t = text(out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_counterexample(&t, module, base);
    t
}

/// `rtl-gen formal` on a copy of `tree` with `from` replaced by `to` in `module` ([`mutate`]),
/// run in `dir` with `flags` and work folder `work`: it must fail with its counterexample files
/// on disk ([`assert_failed`]). Returns the printed text.
pub fn mutant_fails(tree: &Path, dir: &Path, module: &str, from: &str, to: &str, flags: &[&str], work: &str) -> String {
    let mutant = mutate(tree, dir, module, from, to);
    let mut args = vec!["formal", mutant.to_str().expect("utf-8"), "--module", module];
    args.extend_from_slice(flags);
    args.extend(["--work", work]);
    assert_failed(&super::rtl_gen(&args, dir), module, dir)
}
