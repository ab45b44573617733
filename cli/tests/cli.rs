//! The `rtl-gen` binary: the committed generated/ being fresh, `generate`/`check` round trips
//! (stale, missing and foreign files), `list`, and every error path printing `error: …` /
//! `caused by: …` with exit status 2 instead of panicking.

use std::process::{Command, Output};

mod common;
use common::workspace;

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

/// Stderr of a run that must fail with status 2 and no panic.
fn fails(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "status {:?}, stderr:\n{err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    err
}

#[test]
fn committed_default_tree_is_fresh() {
    let out = bin().arg("check").current_dir(workspace()).output().expect("run rtl-gen");
    assert!(out.status.success(), "generated/ is stale; run `cargo run -p rtl-gen-cli -- generate`:\n{}", String::from_utf8_lossy(&out.stderr));
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
    assert!(v.lines().any(|l| l.trim_start().starts_with("input") && l.contains(" rst_n")) && v.contains("negedge rst_n"), "async_low reset not applied");
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

    // A hand edit, a deleted file and a stray file are all named (the stray one as a note).
    let v_path = root.join("rtl/small_crc16.v");
    std::fs::write(&v_path, v.replacen("reg [15:0] crc_q;", "reg [15:0] crc_qq;", 1)).expect("edit");
    std::fs::remove_file(root.join("docs/small_crc16_check.md")).expect("remove");
    std::fs::write(root.join("rtl/stray.v"), "module stray; endmodule\n").expect("stray");
    let stale = run(&["check", "small.toml", "--out", "out"]);
    assert_eq!(stale.status.code(), Some(1));
    let err = String::from_utf8_lossy(&stale.stderr);
    assert!(err.contains("stale: ") && err.contains("small_crc16.v") && err.contains("+    reg [15:0] crc_q;"), "{err}");
    assert!(err.contains("missing: ") && err.contains("small_crc16_check.md"), "{err}");
    assert!(err.contains("note: not written by the generator (generate leaves it)") && err.contains("stray.v"), "{err}");

    // generate repairs the first two and leaves the stray file, which check only notes.
    assert!(run(&["generate", "small.toml", "--out", "out"]).status.success());
    assert!(run(&["check", "small.toml", "--out", "out"]).status.success());
    assert!(root.join("rtl/stray.v").is_file());
}

#[test]
fn cli_errors_are_reported_not_panicked() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bad.toml"), SMALL.replace("width = 16", "width = 99")).expect("write");
    std::fs::write(dir.path().join("small.toml"), SMALL).expect("write");
    let run = |args: &[&str]| bin().args(args).current_dir(dir.path()).output().expect("run rtl-gen");

    let err = fails(&run(&["generate", "bad.toml"]));
    assert!(err.contains("error: invalid design file bad.toml\ncaused by: block `crc16` (kind crc): field `width` = 99 is out of range; allowed 1..=64"), "{err}");
    let err = fails(&run(&["generate", "nope.toml"]));
    assert!(err.contains("error: reading design file nope.toml\ncaused by: "), "{err}");
    let err = fails(&run(&["check", "nope.toml"]));
    assert!(err.contains("nope.toml"), "{err}");
    // clap's usage errors: unknown flag, a number out of range, a bad shard, a missing value.
    for args in [
        &["generate", "--bogus"][..],
        &["synth", "-j", "0"],
        &["sim", "rxl", "--ber", "2"],
        &["sim", "rxl", "--topology", "5"],
        &["sim", "rxl", "--shard", "4/4"],
        &["sim", "rifl-sweep", "--packets", "0"],
        &["sim", "cosim", "--seed", "-3"],
        &["sim", "merge"],
        &["sim", "sue", "--figures", "--fabric-cycles", "10"],
        &["sim", "sue", "--figures", "--shard", "5/5"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("error"), "{args:?}");
    }
    // A missing subcommand prints the subcommands' help, with status 2 as well.
    assert_eq!(run(&["sim"]).status.code(), Some(2));
    // Errors found after parsing: missing trees, unknown modules and blocks, missing files.
    let err = fails(&run(&["lint", "no_tree"]));
    assert!(err.contains("no_tree/manifest.json") && err.contains("rtl-gen generate"), "{err}");
    let err = fails(&run(&["synth", "no_tree"]));
    assert!(err.contains("no_tree/manifest.json"), "{err}");
    let err = fails(&run(&["report", "no_tree"]));
    assert!(err.contains("no_tree/manifest.json"), "{err}");
    let err = fails(&run(&["synth", &workspace().join("generated").display().to_string(), "--module", "nope"]));
    assert!(err.contains("--module nope: no such module") && err.contains("rtlgen_crc32"), "{err}");
    let err = fails(&run(&["sim", "cosim", "--block", "nope"]));
    assert!(err.contains("--block nope: no such block in the built-in default design; blocks: crc32"), "{err}");
    let err = fails(&run(&["sim", "cosim", "small.toml", "--tree", "no_tree"]));
    assert!(err.contains("no_tree: not a generated tree"), "{err}");
    let err = fails(&run(&["sim", "rifl-sweep", "--block", "crc32"]));
    assert!(err.contains("--block crc32: block `crc32` is of kind crc in the built-in default design; allowed blocks of kind rifl: rifl, rifl4"), "{err}");
    let err = fails(&run(&["sim", "rifl-sweep", "small.toml"]));
    assert!(err.contains("no block `rifl` in design file small.toml; allowed blocks of kind rifl: none"), "{err}");
    let err = fails(&run(&["sim", "rifl-sweep", "--frame-id-bits", "5", "--delay", "100"]));
    assert!(err.contains("--frame-id-bits") && err.contains("round trip"), "{err}");
    let err = fails(&run(&["sim", "rxl", "--rxl-block", "cxl_ep"]));
    assert!(err.contains("--rxl-block cxl_ep: the endpoint's mode is cxl_baseline, not rxl"), "{err}");
    let err = fails(&run(&["sim", "rxl", "--topology", "1", "--switch-block", "rxl_ep"]));
    assert!(err.contains("--switch-block rxl_ep: block `rxl_ep` is of kind rxl_endpoint"), "{err}");
    let err = fails(&run(&["sim", "sue", "--figures", "--endpoint", "sue_pk"]));
    assert!(err.contains("--endpoint sue_pk: block `sue_pk` is of kind sue_packer in the built-in default design; allowed blocks of kind sue_endpoint: sue_ep"), "{err}");
    let err = fails(&run(&["sim", "merge", "small.toml", "missing.json"]));
    assert!(err.contains("missing.json: no such file (shard result #2 of 2)"), "{err}");
    let err = fails(&run(&["sim", "merge", "small.toml", "small.toml"]));
    assert!(err.contains("given twice"), "{err}");
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

/// `rtl-gen sim cosim` on a tree with one XOR changed in the CRC: exit status 1, the module, the
/// port, the cycle and the seed named, and the waveform of a re-run with the same seed written.
/// The untouched tree passes with status 0.
#[test]
fn cosim_mismatch_names_module_port_seed_and_waveform() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("small.toml"), SMALL).expect("write design");
    let run = |args: &[&str]| bin().args(args).current_dir(dir.path()).env("CARGO_TARGET_DIR", workspace().join("target")).output().expect("run rtl-gen");
    let gen = run(&["generate", "small.toml", "--out", "out"]);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let tree = dir.path().join("out/small");

    let ok = run(&["sim", "cosim", "small.toml", "--tree", tree.to_str().expect("utf-8"), "--vectors", "300"]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));

    let file = tree.join("rtl/small_crc16.v");
    let text = std::fs::read_to_string(&file).expect("crc file");
    let at = text.find("& 36'h").expect("a masked parity reduction") + "& 36'h".len();
    let digit = text[at..].chars().next().expect("hex digit").to_digit(16).expect("hex");
    let flipped = std::char::from_digit(digit ^ 1, 16).expect("hex");
    std::fs::write(&file, format!("{}{flipped}{}", &text[..at], &text[at + 1..])).expect("write");

    let bad = run(&["sim", "cosim", "small.toml", "--tree", tree.to_str().expect("utf-8"), "--block", "crc16", "--vectors", "300", "--seed", "0x5"]);
    let err = String::from_utf8_lossy(&bad.stderr).into_owned();
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("small_crc16 (block crc16") && err.contains("on port `crc`") && err.contains("seed 0x") && err.contains("file differs"), "{err}");
    let wave = err.lines().find_map(|l| l.trim().strip_prefix("waveform: ")).unwrap_or_else(|| panic!("a waveform is named:\n{err}"));
    let vcd = std::fs::read_to_string(wave).expect("the waveform exists");
    assert!(vcd.contains("$enddefinitions") && vcd.contains(" crc "), "a VCD with the crc port: {wave}");
}

/// Fields the kind computes when they are not given are listed as derived, with what from, and
/// a field listed as required is required.
#[test]
fn list_shows_derived_defaults_as_derived() {
    let out = bin().arg("list").output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |field: &str| text.lines().find(|l| l.trim_start().starts_with(&format!("{field} "))).unwrap_or_else(|| panic!("no line for {field}")).to_string();
    assert!(line("enc_pipeline").contains("derived from pipeline"), "{}", line("enc_pipeline"));
    for field in ["symbols_per_cycle", "ser_threshold", "head_reserve"] {
        assert!(line(field).contains("derived from") && !line(field).contains("required"), "{}", line(field));
    }
}

/// The help text and the package description name every family of blocks.
#[test]
fn about_and_description_name_every_family() {
    let out = bin().arg("--help").output().expect("run");
    let help = String::from_utf8_lossy(&out.stdout);
    let cargo = std::fs::read_to_string(workspace().join("rtl-gen/Cargo.toml")).expect("Cargo.toml");
    let description = cargo.lines().find(|l| l.starts_with("description")).expect("description");
    for family in ["CRC", "RS FEC", "replay", "RIFL", "RXL", "Gen-Z", "SUE", "ReCXL"] {
        assert!(help.contains(family), "--help lacks {family}:\n{help}");
        assert!(description.contains(family), "the description lacks {family}: {description}");
    }
}
