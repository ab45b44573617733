//! `rtl-gen fpga` on one small clocked module of the committed tree: Yosys `synth_ecp5`, then
//! nextpnr-ecp5 on an LFE5U-85F, inside the generated measurement wrapper. The JSON report must
//! hold real figures (LUTs, flip-flops and an Fmax from the router), not placeholders.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

#[test]
fn ecp5_place_and_route_reports_real_figures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("fpga.json");
    let out = Command::new(env!("CARGO_BIN_EXE_rtl-gen"))
        .args(["fpga", "generated", "--module", "rtlgen_crc32_pipe", "--freq", "100", "--json"])
        .arg(&json)
        .current_dir(workspace())
        .output()
        .expect("run rtl-gen");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rtl-gen fpga failed:\n{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON report")).expect("valid JSON");
    let row = &report[0];
    assert_eq!(row["module"], "rtlgen_crc32_pipe");
    assert_eq!(row["part"], "LFE5U-85F");
    let lut4 = row["lut4"]["used"].as_u64().expect("lut4.used");
    let ff = row["ff"]["used"].as_u64().expect("ff.used");
    let fmax = row["fmax_mhz"]["clk"].as_f64().expect("fmax of clk");
    // A 72-bit CRC-32 with two register stages: hundreds of LUT4s and flip-flops (wrapper
    // included), and an Fmax well above the 100 MHz asked for.
    assert!((100..20_000).contains(&lut4), "lut4 {lut4}");
    assert!(ff >= 72 + 32, "ff {ff}");
    assert!(fmax > 100.0 && fmax < 1_000.0, "fmax {fmax}");
    assert_eq!(row["target_met"], true);
    assert_eq!(row["fits"], true);
}
