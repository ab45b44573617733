//! `rtl-gen formal`: the generated properties are proven, and mutated RTL fails with a
//! counterexample on disk. The default run proves the CRC networks (GF(2) evaluation, seconds);
//! the SymbiYosys proofs of the replay buffer take minutes of solver time and run with
//! `RTLGEN_LONG=1 cargo test -p rtl-gen-cli --test formal -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

fn rtl_gen(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtl-gen")).args(args).current_dir(dir).output().expect("run rtl-gen")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Small CRC configurations (one with an implicit sequence number) and a small replay buffer.
const SMALL: &str = r#"
[design]
name = "fsmall"
reset = "sync_high"

[[blocks]]
kind = "crc"
name = "crc16"
width = 16
poly = 0x1021
init = "0xFFFF"
refin = false
refout = false
xorout = "0x0000"
data_bits = 24
seq_bits = 4

[[blocks]]
kind = "crc"
name = "crc8"
width = 8
poly = 0x07
init = "0x00"
refin = true
refout = false
xorout = "0x55"
data_bits = 40
xor_style = "masked"

[[blocks]]
kind = "crc"
name = "crc5"
width = 5
poly = 0x05
init = "0x1F"
refin = true
refout = true
xorout = "0x1F"
data_bits = 16
xor_window = 8

[[blocks]]
kind = "replay_buffer"
name = "rb"
entry_bits = 4
seq_bits = 3
depth = 5
"#;

/// The small design generated into `dir`; returns its tree.
fn small_tree(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("small.toml"), SMALL).expect("write design");
    let out = rtl_gen(&["generate", "small.toml", "--out", "out"], dir);
    assert!(out.status.success(), "{}", text(&out));
    dir.join("out/fsmall")
}

/// The default design generated into `dir` (not the committed `generated/`, so the test sees
/// the properties the current generators emit); returns its tree.
fn default_tree(dir: &Path) -> PathBuf {
    let out = rtl_gen(&["generate", "--out", "default"], dir);
    assert!(out.status.success(), "{}", text(&out));
    dir.join("default/rtlgen")
}

/// A copy of the tree with `from` replaced by `to` in `module`'s file (exactly once).
fn mutate(tree: &Path, dir: &Path, module: &str, from: &str, to: &str) -> PathBuf {
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
fn row<'a>(out: &'a str, module: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(&format!("| {module} |"))).unwrap_or_else(|| panic!("no row for {module}:\n{out}"))
}

/// The counterexample paths a FAILED row names: both files must exist.
fn assert_counterexample(out: &str, module: &str, base: &Path) {
    let r = row(out, module);
    assert!(r.contains("FAILED"), "{module} must fail:\n{out}");
    let vcd = r.split("counterexample ").nth(1).and_then(|t| t.split_whitespace().next()).expect("VCD path");
    let tb = r.split("testbench ").nth(1).and_then(|t| t.split_whitespace().next()).expect("testbench path");
    for p in [vcd, tb] {
        let p = base.join(p);
        assert!(p.is_file() && std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false), "{} missing or empty:\n{out}", p.display());
    }
}

#[test]
fn crc_networks_equal_their_model_reference() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path().join("work");
    let w = work.to_str().expect("utf-8");
    let default = default_tree(dir.path());
    let out = rtl_gen(&["formal", default.to_str().expect("utf-8"), "--module", "rtlgen_crc32", "--work", w], dir.path());
    let t = text(&out);
    assert!(out.status.success() && row(&t, "rtlgen_crc32").contains("| 1 | gf2 | proven |"), "{t}");
    let tree = small_tree(dir.path());
    let out = rtl_gen(&["formal", tree.to_str().expect("utf-8"), "--module", "fsmall_crc16", "--module", "fsmall_crc8", "--module", "fsmall_crc5", "--work", w], dir.path());
    let t = text(&out);
    for m in ["fsmall_crc16", "fsmall_crc8", "fsmall_crc5"] {
        assert!(row(&t, m).contains("| 1 | gf2 | proven |"), "{t}");
    }
}

#[test]
fn a_miswired_crc_column_fails_with_a_counterexample() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mutant = mutate(&default_tree(dir.path()), dir.path(), "rtlgen_crc32", "assign crc_x5 = data[5];", "assign crc_x5 = data[6];");
    let out = rtl_gen(&["formal", mutant.to_str().expect("utf-8"), "--module", "rtlgen_crc32", "--work", "work"], dir.path());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_counterexample(&t, "rtlgen_crc32", dir.path());
    assert!(t.contains("0 proven, 0 bounded or unknown, 1 failed"), "{t}");
}

#[test]
fn formal_refuses_unknown_modules_and_engines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let default = default_tree(dir.path());
    let out = rtl_gen(&["formal", default.to_str().expect("utf-8"), "--module", "rtlgen_crc32_check"], dir.path());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("carries no properties") && t.contains("rtlgen_crc32"), "{t}");
    let out = rtl_gen(&["formal", "generated", "--engine", "abc; rm"], &workspace());
    assert!(!out.status.success() && text(&out).contains("allowed: smtbmc-z3"), "{}", text(&out));
}

#[test]
#[ignore = "SymbiYosys proofs take minutes; run with RTLGEN_LONG=1 and --ignored"]
fn replay_buffer_properties_are_proven_and_an_off_by_one_ack_window_fails() {
    if !long() {
        eprintln!("skipped: set RTLGEN_LONG=1");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = small_tree(dir.path());
    let out = rtl_gen(&["formal", tree.to_str().expect("utf-8"), "--module", "fsmall_rb", "--depth", "1", "--work", "work"], dir.path());
    let t = text(&out);
    assert!(out.status.success() && row(&t, "fsmall_rb").contains("| 13 | smtbmc-z3 | proven |"), "{t}");
    // An ack naming the next sequence number to be pushed (one past the window) is taken.
    let mutant = mutate(&tree, dir.path(), "fsmall_rb", "assign ack_ok = ack_valid & (ack_off < count_q);", "assign ack_ok = ack_valid & (ack_off <= count_q);");
    let out = rtl_gen(&["formal", mutant.to_str().expect("utf-8"), "--module", "fsmall_rb", "--work", "work_mutant"], dir.path());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_counterexample(&t, "fsmall_rb", dir.path());
}

#[test]
#[ignore = "the default design's proofs take tens of minutes; run with RTLGEN_LONG=1 and --ignored"]
fn every_property_of_the_default_design_is_proven() {
    if !long() {
        eprintln!("skipped: set RTLGEN_LONG=1");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let default = default_tree(dir.path());
    let out = rtl_gen(&["formal", default.to_str().expect("utf-8"), "--work", "work"], dir.path());
    let t = text(&out);
    assert!(out.status.success() && t.contains("0 bounded or unknown, 0 failed"), "{t}");
}
