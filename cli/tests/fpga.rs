//! `rtl-gen fpga` on one small clocked module of the committed tree: Yosys `synth_ecp5`, then
//! nextpnr-ecp5 on an LFE5U-85F, inside the generated measurement wrapper. The JSON report must
//! hold real figures (LUTs, flip-flops and an Fmax from the router), not placeholders.

use std::path::Path;
use std::process::Command;

mod common;
use common::workspace;

/// `rtl-gen fpga generated` with `args`, its JSON report at `dir/json` and its work folders in
/// `dir/work`: the report's first row and the command's stdout and stderr. Fails the test when
/// the command does.
fn fpga_run(dir: &Path, args: &[&str], json: &str) -> (serde_json::Value, String) {
    let json = dir.join(json);
    let out = Command::new(env!("CARGO_BIN_EXE_rtl-gen"))
        .args(["fpga", "generated"])
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--work")
        .arg(dir.join("work"))
        .current_dir(workspace())
        .output()
        .expect("run rtl-gen");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "rtl-gen fpga {args:?} failed:\n{text}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON report")).expect("valid JSON");
    (report[0].clone(), text)
}

/// The row of `module` after synthesis only (`--pnr-timeout 1`), with `extra` flags.
fn synthesis_row(dir: &Path, module: &str, extra: &[&str], json: &str) -> serde_json::Value {
    let args: Vec<&str> = ["--module", module, "--pnr-timeout", "1"].into_iter().chain(extra.iter().copied()).collect();
    fpga_run(dir, &args, json).0
}

/// The `used` count of resource `what` (`lut4`, `ff`, `bram`) in a report row.
fn used(row: &serde_json::Value, what: &str) -> u64 {
    row[what]["used"].as_u64().unwrap_or_else(|| panic!("{what} of {row}"))
}

/// `rtl-gen fpga` on `module` for iCE40 with the ECP5-only `flags`: it must fail, and its error
/// must name the flag (`named`) and ecp5.
fn refused_on_ice40(module: &str, flags: &[&str], named: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_rtl-gen"))
        .args(["fpga", "generated", "--module", module, "--family", "ice40"])
        .args(flags)
        .current_dir(workspace())
        .output()
        .expect("run rtl-gen");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains(named) && err.contains("ecp5"), "{err}");
}

#[test]
fn ecp5_place_and_route_reports_real_figures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (row, _) = fpga_run(dir.path(), &["--module", "rtlgen_crc32_pipe", "--freq", "100"], "fpga.json");
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
    assert_eq!(row["router"], "router1", "nextpnr's default router");
    assert_eq!(row["placer"], "heap", "nextpnr's default placer");
    assert_eq!(row["lut_map"], "wide", "Yosys's default ECP5 mapping");
}

/// A module with two clocks (the default design's asynchronous FIFO, `wr_clk` and `rd_clk`) is
/// measured per clock: the wrapper gives each domain its own clock pin, input chain and output
/// signature, and the row names both clocks' Fmax (a wrapper that fed the clocks from its input
/// chain like data would make it a combinational row).
#[test]
fn a_two_clock_module_gets_an_fmax_per_clock() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (row, _) = fpga_run(dir.path(), &["--module", "rtlgen_cdc_fifo", "--freq", "100"], "fpga.json");
    assert_eq!(row["combinational"], false);
    let fmax = row["fmax_mhz"].as_object().expect("fmax per clock");
    assert_eq!(fmax.keys().collect::<Vec<_>>(), ["rd_clk", "wr_clk"], "one Fmax per clock: {fmax:?}");
    for (clock, f) in fmax {
        let f = f.as_f64().expect("MHz");
        assert!(f > 100.0 && f < 1_000.0, "{clock}: {f}");
    }
    // Wrapper: wr side 1 + 64 input bits and 1 + 5 output bits (chain + out_q + sig), rd side
    // 1 input bit and 1 + 5 + 64 output bits.
    assert_eq!(row["wrapper_ffs"], 65 + 2 * 6 + 1 + 2 * 70);
    let wrapper = std::fs::read_to_string(dir.path().join("work/rtlgen_cdc_fifo").join("rtlgen_cdc_fifo_fpga_wrap.v")).expect("the wrapper is kept in the module's work folder");
    for line in ["always @(posedge wr_clk)", "always @(posedge rd_clk)", "wr_in_sr <=", "rd_sig <="] {
        assert!(wrapper.contains(line), "wrapper lacks `{line}`");
    }
    assert!(!wrapper.contains("posedge clk"), "no wrapper register on a clock the module lacks");
}

/// `--pnr-timeout` keeps the row (synthesis utilisation, no Fmax) instead of losing it, and a
/// module larger than the part is reported with its numbers without running the placer.
#[test]
fn stopped_place_and_route_and_oversized_modules_keep_their_rows() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A 72-bit CRC-32 routes in seconds; a one-second limit stops its router.
    let (row, text) = fpga_run(dir.path(), &["--module", "rtlgen_crc32_pipe", "--pnr-timeout", "1"], "stopped.json");
    assert_eq!(row["pnr_stopped"], true);
    assert!(row["fmax_mhz"].as_object().expect("fmax map").is_empty(), "{row}");
    assert!(row["lut4"]["used"].as_u64().expect("lut4") > 100, "{row}");
    assert!(text.contains("not routed") && text.contains("--pnr-timeout"), "{text}");
    let note = row["note"].as_str().expect("note");
    assert!(["before placement", "while placing", "while routing"].iter().any(|stage| note.contains(stage)), "the note names where nextpnr stopped: {note}");
    // The RIFL TX lane (its buffer in iCE40 block RAM once the LUT-RAM hint is cleared) needs more
    // LUT4s and flip-flops than an iCE40 HX1K has.
    let (row, text) = fpga_run(dir.path(), &["--module", "rtlgen_rifl_tx", "--family", "ice40", "--device", "hx1k"], "big.json");
    assert_eq!(row["fits"], false);
    assert_eq!(row["pnr_stopped"], false);
    assert!(row["lut4"]["used"].as_u64().expect("lut4") > 1_280, "{row}");
    assert!(row["bram"]["used"].as_u64().expect("bram") > 0, "the buffer should be in block RAM: {row}");
    assert!(text.contains("does not fit") && text.contains("iCE40HX1K has 1280"), "{text}");
}

/// `--router router2` and `--placer static` reach nextpnr (its log shows both ran) and the row
/// records them (the defaults, router1 and heap, are checked by the first test); iCE40's older
/// nextpnr has no static placer, and the flag is refused there by name.
#[test]
fn router2_and_the_static_placer_reach_nextpnr_and_the_row() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (row, _) = fpga_run(dir.path(), &["--module", "rtlgen_crc32_pipe", "--router", "router2", "--placer", "static"], "router2.json");
    assert_eq!((row["router"].as_str(), row["placer"].as_str()), (Some("router2"), Some("static")));
    assert!(row["fmax_mhz"]["clk"].as_f64().expect("fmax of clk") > 50.0, "{row}");
    let log = std::fs::read_to_string(dir.path().join("work/rtlgen_crc32_pipe/nextpnr.log")).expect("nextpnr log");
    assert!(log.contains("Running router2"), "nextpnr did not run router2");
    assert!(log.contains("Running Static placer"), "nextpnr did not run the static placer");
    refused_on_ice40("rtlgen_crc32_pipe", &["--placer", "static"], "--placer static");
}

/// The RIFL retransmission buffer's `ram_style = "distributed"` hint (a 7-series choice) is
/// cleared by default, so ECP5 maps the 256-entry buffer to block RAM; `--keep-ram-hints` keeps
/// it (16-deep ECP5 LUT RAM, counted as the six LUT4 positions nextpnr gives each) and the row
/// records which; iCE40, which has no LUT RAM, refuses the flag by name.
#[test]
fn ram_hints_are_cleared_unless_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cleared = synthesis_row(dir.path(), "rtlgen_rifl_tx", &[], "cleared.json");
    let kept = synthesis_row(dir.path(), "rtlgen_rifl_tx", &["--keep-ram-hints"], "kept.json");
    assert_eq!((cleared["kept_ram_hints"].as_bool(), kept["kept_ram_hints"].as_bool()), (Some(false), Some(true)));
    // 256 × 242 bits: 7 DP16KD (512 × 36) in block RAM; 976 TRELLIS_DPR16X4 in LUT RAM.
    assert_eq!((used(&cleared, "bram"), used(&kept, "bram")), (7, 0), "{cleared}\n{kept}");
    assert!(used(&kept, "lut4") > used(&cleared, "lut4") + 6 * 976, "LUT RAM counts its LUT4 positions: {cleared}\n{kept}");
    refused_on_ice40("rtlgen_rifl_tx", &["--keep-ram-hints"], "--keep-ram-hints");
}

/// `--lut-map lut4` (`synth_ecp5 -nowidelut`) maps an XOR network to LUT4 trees instead of wide
/// LUTs built from PFU muxes: the 64-bit-data CRC-32 (a combinational GF(2) network) takes about
/// half the LUT4s (300 against 570 when measured, the measurement wrapper included; the CXL
/// flit's RS encoder shows the same, 6,874 against 10,369, in a minute instead of seconds), and
/// the row records the mapping; iCE40, whose logic cells are LUT4s already, refuses the flag by
/// name.
#[test]
fn lut4_mapping_shrinks_an_xor_network_and_is_recorded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let wide = synthesis_row(dir.path(), "rtlgen_crc32", &[], "wide.json");
    let lut4 = synthesis_row(dir.path(), "rtlgen_crc32", &["--lut-map", "lut4"], "lut4.json");
    assert_eq!((wide["lut_map"].as_str(), lut4["lut_map"].as_str()), (Some("wide"), Some("lut4")));
    assert!(5 * used(&lut4, "lut4") < 4 * used(&wide, "lut4"), "lut4 mapping should save over a fifth: {wide}\n{lut4}");
    assert_eq!(used(&lut4, "ff"), used(&wide, "ff"), "the mapping changes logic, not registers");
    refused_on_ice40("rtlgen_crc32", &["--lut-map", "lut4"], "--lut-map lut4");
}

/// A recovered-clock RIFL node in the transceiver-width form (two lanes, 128-bit frames on
/// 32-bit words: R = 4), written from its design file: the TX GT width converter's two clocks
/// of one source are each timed at their own target (`tx_fast_clk` at 4 x the target, given to
/// nextpnr in an LPF) and the row has both Fmax and the longest `clk -> tx_fast_clk` path (the
/// multicycle frame path nextpnr does not time). With `RTLGEN_LONG=1` (its synthesis takes
/// minutes on a loaded machine), the node itself, whose `rx_clk` has a bit per lane: wrapped with
/// a clock pin per lane, every clock with its target, and it synthesises.
#[test]
fn related_and_per_lane_clocks_each_get_their_target_and_fmax() {
    let dir = tempfile::tempdir().expect("temp dir");
    let design = dir.path().join("gt.toml");
    std::fs::write(&design, "[design]\nname = \"gt\"\nclock_mhz = 125.0\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 128\nuser_bits = 64\nlanes = 2\nclocking = \"recovered\"\ngt_bits = 32\n").expect("design file");
    let out = Command::new(env!("CARGO_BIN_EXE_rtl-gen")).arg("generate").arg(&design).arg("--out").arg(dir.path().join("tree")).output().expect("run rtl-gen");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = |module: &str, extra: &[&str]| -> serde_json::Value {
        let json = dir.path().join(format!("{module}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_rtl-gen"))
            .arg("fpga")
            .arg(dir.path().join("tree/gt"))
            .args(["--module", module, "--freq", "50"])
            .args(extra)
            .arg("--json")
            .arg(&json)
            .arg("--work")
            .arg(dir.path().join("work"))
            .output()
            .expect("run rtl-gen");
        assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&json).expect("JSON report")).expect("valid JSON")[0].clone()
    };
    let gtx = run("gt_r_gtx", &[]);
    assert_eq!(gtx["clock_targets_mhz"], serde_json::json!({"clk": 50.0, "tx_fast_clk": 200.0}), "{gtx}");
    let fmax = gtx["fmax_mhz"].as_object().expect("fmax per clock");
    assert_eq!(fmax.keys().collect::<Vec<_>>(), ["clk", "tx_fast_clk"], "{gtx}");
    let lpf = std::fs::read_to_string(dir.path().join("work/gt_r_gtx/clocks.lpf")).expect("the clocks' LPF");
    assert!(lpf.contains("FREQUENCY PORT \"tx_fast_clk\" 200 MHZ;"), "{lpf}");
    assert!(gtx["cross_clock_ns"]["clk -> tx_fast_clk"].as_f64().is_some_and(|ns| ns > 0.0 && ns < 20.0), "{gtx}");
    if !common::long() {
        return;
    }
    let node = run("gt_r", &["--pnr-timeout", "1"]);
    let targets = node["clock_targets_mhz"].as_object().expect("targets per clock");
    assert_eq!(targets.keys().collect::<Vec<_>>(), ["clk", "free_clk", "rx_clk_0", "rx_clk_1", "tx_fast_clk"], "{node}");
    assert_eq!((targets["rx_clk_1"].as_f64(), targets["tx_fast_clk"].as_f64()), (Some(200.0), Some(200.0)), "the recovered clock is the far end's fast clock: {node}");
    let wrapper = std::fs::read_to_string(dir.path().join("work/gt_r/gt_r_fpga_wrap.v")).expect("the node's wrapper");
    for line in ["always @(posedge rx_clk_1)", "{rx_clk_1, rx_clk_0}", "rx_1_in_sr <="] {
        assert!(wrapper.contains(line), "wrapper lacks `{line}`");
    }
}
