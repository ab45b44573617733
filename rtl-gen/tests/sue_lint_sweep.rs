//! Every SUE kind lint-clean away from the default design: each field of `sue_packer`,
//! `sue_transport` and `sue_endpoint` moved alone to each end of its range (and to each value
//! of a choice) from a small base block, every distinct module through Verilator
//! `--lint-only -Wall` and Icarus `-g2005` (each top with the modules below it). The default run sweeps a small base geometry (ends
//! that would make a module of thousands of queues or spaces are capped: `num_xpu` 2 and 5,
//! `window` 1 and 64, `queue_depth` 1 and 64); `RTLGEN_LONG=1` also takes `num_xpu`, `window`
//! and `queue_depth` to their largest legal values. Needs the tools `scripts/setup` installs.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen::tools::TreeManifest;
use std::process::Command;

fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

const BASE_COMMON: &str = "data_bytes = 16\ncmd_bytes = 32\nnum_xpu = 3\nnum_vc = 2\nmax_pack_bytes = 64\n";
const BASE_PACKER: &str = "queue_depth = 4\n";
const BASE_TRANSPORT: &str = "window = 2\nrto_cycles = 256\nnack_timeout_cycles = 64\n";

/// One-field changes: (field, values), each value a TOML literal.
fn sweep(kind: &str) -> Vec<(&'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut out = vec![
        ("data_bytes", s(&["16", "32"])),
        ("cmd_bytes", s(&["16", "64"])),
        ("num_xpu", if long() { s(&["2", "5", "64"]) } else { s(&["2", "5"]) }),
        ("num_vc", s(&["1", "3", "4"])),
        ("max_pack_bytes", s(&["32", "4096"])),
        ("counter_bits", s(&["1", "64"])),
    ];
    if kind == "sue_packer" {
        out.push(("data_bytes", s(&["8", "128"])));
        out.push(("cmd_bytes", s(&["8"])));
    }
    if kind != "sue_transport" {
        out.push(("queue_depth", if long() { s(&["1", "2", "3", "8", "1024"]) } else { s(&["1", "2", "3", "8", "64"]) }));
        out.push(("hold_cycles", s(&["1", "65535"])));
    }
    if kind == "sue_endpoint" {
        // The endpoint's own module only wires its parts: the shared fields and the id source
        // change it; every other field is swept on the part's own kind.
        out.push(("xpuid_source", s(&["\"constant\""])));
        return out;
    }
    if kind != "sue_packer" {
        out.extend([
            ("xpuid_source", s(&["\"constant\""])),
            ("window", if long() { s(&["1", "3", "1024"]) } else { s(&["1", "3", "64"]) }),
            ("psn_init", s(&["65535"])),
            ("psn_scope", s(&["\"dest_vc\""])),
            ("rto_cycles", s(&["64", "16777215"])),
            ("max_retries", s(&["1", "255"])),
            ("ack_coalesce", s(&["2"])),
            ("ack_delay_cycles", s(&["1", "255"])),
            ("nack_timeout_cycles", s(&["16", "65535"])),
            ("ack_vc", s(&["0"])),
            ("rcrc", s(&["\"crc32c\""])),
            ("version", s(&["3"])),
            ("partition", s(&["1023"])),
            ("partition_check", s(&["true"])),
            ("rx_buf_bytes_per_vc", s(&["128", "1048576"])),
            ("rx_pause_bytes", s(&["64", "128"])),
        ]);
        out.push(("data_bytes", s(&["128"])));
    }
    out
}

/// The base block of `kind` with `field = value` (replacing the base's line if it has one).
fn block(kind: &str, name: &str, field: &str, value: &str) -> String {
    let mut base = String::from(BASE_COMMON);
    if kind != "sue_transport" {
        base += BASE_PACKER;
    }
    if kind != "sue_packer" {
        base += BASE_TRANSPORT;
    }
    let mut lines: Vec<String> = base.lines().filter(|l| !l.starts_with(&format!("{field} ="))).map(String::from).collect();
    lines.push(format!("{field} = {value}"));
    // Keep the one-field change legal: commands a multiple of the beat, PDUs of whole commands,
    // a receive buffer of two maximum PDUs.
    let get = |lines: &[String], f: &str| lines.iter().find_map(|l| l.strip_prefix(&format!("{f} = ")).and_then(|v| v.parse::<u64>().ok()));
    let db = get(&lines, "data_bytes").unwrap_or(16);
    let cb = get(&lines, "cmd_bytes").unwrap_or(32);
    if cb % db != 0 || cb < db {
        lines.retain(|l| !l.starts_with("cmd_bytes ="));
        lines.push(format!("cmd_bytes = {db}"));
    }
    let cb = get(&lines, "cmd_bytes").unwrap_or(32);
    let mp = get(&lines, "max_pack_bytes").unwrap_or(64);
    if mp % cb != 0 || mp < cb {
        lines.retain(|l| !l.starts_with("max_pack_bytes ="));
        lines.push(format!("max_pack_bytes = {}", 2 * cb));
    }
    if field == "window" {
        lines.retain(|l| !l.starts_with("ack_coalesce ="));
    }
    if field == "ack_delay_cycles" || field == "rto_cycles" {
        lines.retain(|l| !l.starts_with("ack_delay_cycles =") || field == "ack_delay_cycles");
    }
    if field == "max_pack_bytes" && value == "4096" && kind != "sue_packer" {
        lines.push("window = 1".into());
        lines.retain(|l| l != "window = 2");
    }
    format!("[[blocks]]\nkind = \"{kind}\"\nname = \"{name}\"\n{}\n", lines.join("\n"))
}

#[test]
fn every_one_field_sue_change_is_lint_clean() {
    let mut text = String::from("[design]\nname = \"sl\"\n");
    let mut n = 0;
    for (kind, tag) in [("sue_packer", "p"), ("sue_transport", "t"), ("sue_endpoint", "e")] {
        for (field, values) in sweep(kind) {
            for v in values {
                text += &block(kind, &format!("{tag}{n}"), field, &v);
                n += 1;
            }
        }
    }
    let design = Design::parse(&text, "sue_lint_sweep.toml").unwrap_or_else(|e| panic!("every swept design is legal: {e}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let layout = Layout::for_design_file(dir.path(), &design);
    let root = layout.root.clone();
    tree::build(&design.elaborate(), layout).write().expect("write tree");
    let manifest = TreeManifest::load(&root).expect("manifest");
    // Lint each top (a module no other instantiates) with everything below it.
    let inner: std::collections::HashSet<&str> = manifest.modules.iter().flat_map(|m| m.depends.iter().map(String::as_str)).collect();
    let mut failures = Vec::new();
    let mut linted = 0;
    for m in manifest.modules.iter().filter(|m| !inner.contains(m.name.as_str())) {
        let files: Vec<String> = manifest.sources(&root, &m.name).iter().map(|p| p.display().to_string()).collect();
        linted += 1;
        let v = Command::new("verilator").args(["--lint-only", "-Wall", "--top-module", &m.name]).args(&files).output().expect("verilator installed (scripts/setup)");
        let out = format!("{}{}", String::from_utf8_lossy(&v.stdout), String::from_utf8_lossy(&v.stderr));
        if !v.status.success() || !out.trim().is_empty() {
            failures.push(format!("verilator {}:\n{out}", m.name));
        }
        let i = Command::new("iverilog").args(["-g2005", "-Wall", "-o", "/dev/null", "-s", &m.name]).args(&files).output().expect("iverilog installed (scripts/setup)");
        let out = format!("{}{}", String::from_utf8_lossy(&i.stdout), String::from_utf8_lossy(&i.stderr));
        if !i.status.success() || !out.trim().is_empty() {
            failures.push(format!("iverilog {}:\n{out}", m.name));
        }
    }
    println!("{n} SUE blocks, {} modules, {linted} tops linted", manifest.modules.len());
    assert!(failures.is_empty(), "{} lint failures:\n{}", failures.len(), failures.join("\n"));
    assert!(linted > 40, "the sweep linted {linted} modules");
}
