//! The output tree: determinism, the committed generated/ being fresh, and `generate`/`check`
//! round trips through the real binary (stale, missing and extra files).

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rtl-gen"))
}

const SMALL: &str = r#"
[design]
name = "small"
reset = "async_low"
clock_mhz = 312.5

[[blocks]]
kind = "crc"
name = "crc16"
width = 16
poly = 0x1021
data_bits = 32
seq_bits = 4
pipeline = 1
"#;

#[test]
fn same_design_same_bytes() {
    let a = tree::build(&Design::builtin_default().elaborate(), Layout::default_design(Path::new("x")));
    let b = tree::build(&Design::builtin_default().elaborate(), Layout::default_design(Path::new("x")));
    assert_eq!(a.files, b.files);
    assert!(a.files.len() >= 20);
    // No timestamps or absolute paths can sneak in.
    for (p, bytes) in &a.files {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(env!("CARGO_MANIFEST_DIR")), "{} holds an absolute path", p.display());
    }
}

#[test]
fn design_hash_ignores_formatting_and_key_order() {
    let reordered = SMALL.replace("width = 16\npoly = 0x1021", "poly = 0x1021 # comment\nwidth = 16");
    let a = Design::parse(SMALL, "a").expect("valid");
    let b = Design::parse(&reordered, "b").expect("valid");
    assert_eq!(a.hash, b.hash);
    let c = Design::parse(&SMALL.replace("data_bits = 32", "data_bits = 40"), "c").expect("valid");
    assert_ne!(a.hash, c.hash);
}

#[test]
fn committed_default_tree_is_fresh() {
    let out = bin().arg("check").current_dir(workspace()).output().expect("run rtl-gen");
    assert!(out.status.success(), "generated/ is stale; run `cargo run -p rtl-gen -- generate`:\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn generate_then_check_round_trip() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("small.toml"), SMALL).expect("write design");
    let run = |args: &[&str]| bin().args(args).current_dir(dir.path()).output().expect("run rtl-gen");

    let gen = run(&["generate", "small.toml", "--out", "out"]);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let root = dir.path().join("out/small");
    for f in ["rtl/small_crc16.v", "rtl/small_crc16_check.v", "small.f", "small.core", "constraints/small.xdc", "constraints/small.sdc", "docs/small_crc16.md", "manifest.json"] {
        assert!(root.join(f).is_file(), "missing {f}");
    }
    let v = std::fs::read_to_string(root.join("rtl/small_crc16.v")).expect("module");
    assert!(v.contains("input  wire rst_n") && v.contains("negedge rst_n"), "async_low reset not applied");
    assert!(std::fs::read_to_string(root.join("constraints/small.xdc")).expect("xdc").contains("-period 3.200"));
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).expect("manifest")).expect("json");
    let ports = &manifest["modules"][0]["ports"];
    assert_eq!(ports.as_array().expect("ports").iter().map(|p| p["name"].as_str().expect("name")).collect::<Vec<_>>(), ["clk", "rst_n", "in_valid", "data", "seq", "crc", "out_valid"]);
    assert_eq!(manifest["modules"][0]["latency"], 1);

    let ok = run(&["check", "small.toml", "--out", "out"]);
    assert!(ok.status.success(), "fresh tree reported stale: {}", String::from_utf8_lossy(&ok.stderr));

    // Second generate rewrites nothing.
    let again = run(&["generate", "small.toml", "--out", "out"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 written"), "{}", String::from_utf8_lossy(&again.stdout));

    // A hand edit, a deleted file and a stray file are all named.
    let v_path = root.join("rtl/small_crc16.v");
    std::fs::write(&v_path, v.replacen("reg [15:0] crc_q;", "reg [15:0] crc_qq;", 1)).expect("edit");
    std::fs::remove_file(root.join("docs/small_crc16_check.md")).expect("remove");
    std::fs::write(root.join("rtl/stray.v"), "module stray; endmodule\n").expect("stray");
    let stale = run(&["check", "small.toml", "--out", "out"]);
    assert_eq!(stale.status.code(), Some(1));
    let err = String::from_utf8_lossy(&stale.stderr);
    assert!(err.contains("stale: ") && err.contains("small_crc16.v") && err.contains("+    reg [15:0] crc_q;"), "{err}");
    assert!(err.contains("missing: ") && err.contains("small_crc16_check.md"), "{err}");
    assert!(err.contains("extra") && err.contains("stray.v"), "{err}");

    // generate repairs all three.
    assert!(run(&["generate", "small.toml", "--out", "out"]).status.success());
    assert!(run(&["check", "small.toml", "--out", "out"]).status.success());
    assert!(!root.join("rtl/stray.v").exists());
}

#[test]
fn cli_errors_are_reported_not_panicked() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bad.toml"), SMALL.replace("width = 16", "width = 99")).expect("write");
    let out = bin().args(["generate", "bad.toml"]).current_dir(dir.path()).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: block `crc16` (kind crc): field `width` = 99 is out of range; allowed 1..=64"), "{err}");
    let missing = bin().args(["generate", "nope.toml"]).current_dir(dir.path()).output().expect("run");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope.toml"));
    let bad_flag = bin().args(["generate", "--bogus"]).output().expect("run");
    assert_eq!(bad_flag.status.code(), Some(2));
}

#[test]
fn list_names_every_kind_and_field() {
    let out = bin().arg("list").output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for kind in rtl_gen::blocks::KINDS {
        assert!(text.contains(kind.kind()), "list lacks {}", kind.kind());
        for f in kind.fields() {
            assert!(text.contains(f.name), "list lacks {}.{}", kind.kind(), f.name);
        }
    }
    assert!(text.contains("1..=64") && text.contains("8..=16384"));
}
