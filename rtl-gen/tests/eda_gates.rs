//! The EDA gates of the default design: every module lint-clean in Verilator -Wall, Icarus and
//! Yosys, a lint failure actually detected, the Icarus self-checking bench, and the synthesis
//! report parser on a real Yosys run. Needs the tools `scripts/setup` installs.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen::tools::{lint, synth, TreeManifest};
use std::path::{Path, PathBuf};
use std::process::Command;

fn default_tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let layout = Layout::default_design(dir.path());
    let root = layout.root.clone();
    tree::build(&Design::builtin_default().elaborate(), layout).write().expect("write tree");
    (dir, root)
}

#[test]
fn every_default_module_is_lint_clean() {
    // Each module on its own file over port-only stand-ins of what it instantiates: every
    // module is linted once with its real body (`rtl-gen lint` lints whole hierarchies).
    let (dir, root) = default_tree();
    let scope = lint::Scope::Alone(dir.path().join("stand_ins"));
    let results = lint::lint_tree_in(&root, &scope).expect("tools installed (scripts/setup)");
    let failures: Vec<String> = results.iter().filter(|r| !r.clean).map(|r| format!("{} {}:\n{}", r.tool, r.module, r.output)).collect();
    assert!(failures.is_empty(), "lint failures:\n{}", failures.join("\n"));
    let modules = TreeManifest::load(&root).expect("manifest").modules.len();
    assert_eq!(results.len(), 3 * modules);
}

#[test]
fn lint_detects_a_broken_module() {
    let (_dir, root) = default_tree();
    let path = root.join("rtl/rtlgen_crc32.v");
    let text = std::fs::read_to_string(&path).expect("module");
    // An unused wire and a dangling output bit: Verilator -Wall and Yosys must both object.
    let broken = text.replace("    assign crc[0] =", "    wire unused_net;\n    wire crc0_unused =");
    std::fs::write(&path, broken).expect("write");
    let manifest = TreeManifest::load(&root).expect("manifest");
    let results = lint::lint_module(&root, &manifest, "rtlgen_crc32").expect("tools");
    let verdict = |tool: &str| results.iter().find(|r| r.tool == tool).map(|r| r.clean).expect("ran");
    assert!(!verdict("verilator"), "verilator missed an unused signal");
    assert!(!verdict("yosys"), "yosys missed an undriven output bit");
}

/// Linted alone, a module still has its connections checked: a stand-in whose port is one bit
/// wider than the instance connects (here from a manifest that disagrees with the module)
/// fails Verilator's width check on the parent.
#[test]
fn a_module_linted_over_stand_ins_has_its_connections_checked() {
    let (dir, root) = default_tree();
    let scope = lint::Scope::Alone(dir.path().join("stand_ins"));
    let manifest = TreeManifest::load(&root).expect("manifest");
    let clean = lint::lint_module_in(&root, &manifest, "rtlgen_rifl_rx", &scope).expect("tools");
    assert!(clean.iter().all(|r| r.clean), "{clean:?}");

    let path = root.join("manifest.json");
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("manifest")).expect("json");
    let child = json["modules"].as_array_mut().expect("modules").iter_mut().find(|m| m["name"] == "rtlgen_rifl_crc").expect("the frame CRC the receiver instantiates");
    let port = child["ports"].as_array_mut().expect("ports").iter_mut().find(|p| p["dir"] == "output").expect("an output");
    port["width"] = serde_json::json!(port["width"].as_u64().expect("width") + 1);
    std::fs::write(&path, json.to_string()).expect("write manifest");
    let manifest = TreeManifest::load(&root).expect("manifest");
    let wrong = lint::lint_module_in(&root, &manifest, "rtlgen_rifl_rx", &scope).expect("tools");
    let verilator = wrong.iter().find(|r| r.tool == "verilator").expect("ran");
    assert!(!verilator.clean && verilator.output.contains("WIDTH"), "a wider stand-in port went unnoticed: {verilator:?}");
}

#[test]
fn icarus_bench_reproduces_the_crc32_check_value() {
    let (dir, root) = default_tree();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/icarus/crc32_check_value_tb.v");
    let exe = dir.path().join("tb.vvp");
    let mut cmd = Command::new("iverilog");
    cmd.args(["-g2005", "-Wall", "-o"]).arg(&exe).arg(&bench);
    for m in ["rtlgen_crc32", "rtlgen_crc32_check", "rtlgen_crc32_pipe"] {
        cmd.arg(root.join(format!("rtl/{m}.v")));
    }
    let build = cmd.output().expect("iverilog installed (scripts/setup)");
    assert!(build.status.success(), "iverilog: {}", String::from_utf8_lossy(&build.stderr));
    let run = Command::new("vvp").arg("-n").arg(&exe).output().expect("vvp");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains("PASS: CRC-32/ISO-HDLC check value 0xcbf43926") && !out.contains("FAIL"), "bench output:\n{out}");
}

/// Both flows on one module: the full flow's figures are sane, and the fast flow (for the
/// KR4/KP4 decoders) maps the same module to a comparable netlist and says so in the report.
#[test]
fn synth_report_counts_luts_ffs_and_depth_in_both_flows() {
    let (_dir, root) = default_tree();
    let manifest = TreeManifest::load(&root).expect("manifest");
    let (full, log) = synth::synth_module(&root, &manifest, "rtlgen_crc32_pipe", synth::Flow::Full).expect("yosys installed");
    // 32 outputs over 72 inputs: some tens of LUTs; 2 stages of registers plus the valid pipe.
    assert!(full.luts > 20 && full.luts < 400, "{full:?}\n{log}");
    // At most 32 rows × 8 registered partials + 32 output bits + 2 valid flags (Yosys merges
    // identical partials); a double-counted stat would exceed it.
    assert!(full.ffs > 200 && full.ffs <= 32 * 8 + 32 + 2, "{full:?}");
    assert!(full.lut_depth >= 1 && full.lut_depth <= 3, "{full:?}");
    let table = synth::table(std::slice::from_ref(&full));
    assert!(table.contains("rtlgen_crc32_pipe"));

    let (fast, log) = synth::synth_module(&root, &manifest, "rtlgen_crc32_pipe", synth::Flow::Fast).expect("yosys installed");
    assert!(log.contains("abc -lut 6 -fast") && log.contains("-noabc"), "the fast flow did not run its script:\n{log}");
    assert_eq!(fast.flow, synth::Flow::Fast);
    // Registers are not ABC's business: both flows keep the same ones.
    assert_eq!(fast.ffs, full.ffs, "{fast:?} vs {full:?}");
    assert!(fast.luts >= full.luts / 2 && fast.luts <= full.luts * 2, "{fast:?} vs {full:?}");
    assert!(fast.lut_depth >= 1 && fast.lut_depth <= 4, "{fast:?}");
    let table = synth::table(&[full, fast]);
    assert!(table.contains("| full |") && table.contains("| fast |"), "{table}");
}

/// `--flow auto` maps every default module through the block-RAM flow (the fast flow is for the
/// multi-megabyte whole-codeword variants), and the variants' multi-megabyte modules through the
/// fast one.
#[test]
fn auto_flow_is_fast_only_for_the_multi_megabyte_modules() {
    let (_dir, root) = default_tree();
    let manifest = TreeManifest::load(&root).expect("manifest");
    let fast: Vec<&str> = manifest.modules.iter().map(|m| m.name.as_str()).filter(|m| synth::Flow::auto(&root, &manifest, m) != synth::Flow::Bram).collect();
    // The three endpoints are the largest (about 2.1 MB each, no file over 1.05 MB: flit CRC
    // generator and checker, FEC decoder, replay buffer) and go through the full script in 3 CPU
    // minutes once their replay buffer is block RAM.
    assert!(fast.is_empty(), "{fast:?}");

    let dir = tempfile::tempdir().expect("temp dir");
    let variants = Design::from_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("designs/rs_fec_variants.toml")).expect("variants design");
    let layout = Layout::for_design_file(dir.path(), &variants);
    let root = layout.root.clone();
    tree::build(&variants.elaborate(), layout).write().expect("write tree");
    let manifest = TreeManifest::load(&root).expect("manifest");
    let mut fast: Vec<&str> = manifest.modules.iter().map(|m| m.name.as_str()).filter(|m| synth::Flow::auto(&root, &manifest, m) == synth::Flow::Fast).collect();
    fast.sort_unstable();
    assert_eq!(fast, ["rsvar_kp4_400g_dec", "rsvar_kp4_whole_dec", "rsvar_kp4_whole_enc", "rsvar_kr4_whole_dec"]);
}

/// Full-size synthesis of the ISN CRC-64 beside the plain CRC-64 (≈3 minutes on 2 cores, so
/// opt-in: `cargo test -p rtl-gen --test eda_gates -- --ignored`). Measured with Yosys 0.23:
/// 13,394 vs 13,411 LUT6, both at depth 5.
#[test]
#[ignore]
fn isn_crc64_costs_no_more_than_the_plain_crc64() {
    let (_dir, root) = default_tree();
    let manifest = TreeManifest::load(&root).expect("manifest");
    let (isn, _) = synth::synth_module(&root, &manifest, "rtlgen_isn_crc64", synth::Flow::Full).expect("yosys");
    let (plain, _) = synth::synth_module(&root, &manifest, "rtlgen_flit_crc64", synth::Flow::Full).expect("yosys");
    println!("{}", synth::table(&[isn.clone(), plain.clone()]));
    assert!(isn.luts as f64 <= plain.luts as f64 * 1.02, "the ISN adds more than 2 % LUTs: {isn:?} vs {plain:?}");
    assert!(isn.lut_depth <= plain.lut_depth, "the ISN adds a LUT level: {isn:?} vs {plain:?}");
    assert!(isn.luts > 10_000 && isn.lut_depth <= 5, "{isn:?}");
}
