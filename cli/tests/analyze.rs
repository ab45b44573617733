//! `rtl-gen analyze` and `rtl-gen plan` as a user runs them: the papers' cases printed with
//! equation numbers and no NaN/inf, `--json`, the plan → generate loop, and refusals.

use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rtl-gen"))
}

fn ok(out: &Output) -> String {
    let s = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s
}

/// Stderr of a run refused with status 2, no panic, naming `option`.
fn refused(out: &Output, option: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        !err.contains("panicked") && err.starts_with("error: "),
        "{err}"
    );
    assert!(err.contains(option), "{err}");
    err
}

fn no_bad_numbers(s: &str) {
    for bad in ["NaN", "inf", "-0 "] {
        assert!(!s.contains(bad), "{bad} printed:\n{s}");
    }
}

#[test]
fn analyze_prints_the_papers_cases() {
    let rxl = ok(&bin().args(["analyze", "rxl"]).output().unwrap());
    no_bad_numbers(&rxl);
    for want in [
        "5.400e15 FIT",
        "[Eq. 8]",
        "0.9853",
        "0.0029 FIT",
        "[Eq. 10]",
        "paper 1.600e-24",
    ] {
        assert!(rxl.contains(want), "{want} missing:\n{rxl}");
    }
    let rifl = ok(&bin().args(["analyze", "rifl"]).output().unwrap());
    no_bad_numbers(&rifl);
    for want in ["[Eq. 13, Table 2]", "1.88e8, the text 1.88e7", "44.1667 kB"] {
        assert!(rifl.contains(want), "{want} missing:\n{rifl}");
    }
    // Overrides, including the extremes of each range, stay finite.
    for args in [
        &["analyze", "rxl", "--ber", "0", "--fer-uc", "code"][..],
        &["analyze", "rifl", "--ber", "0"],
        &["analyze", "rifl", "--ber", "1e-2", "--frame-bits", "2048"],
    ] {
        no_bad_numbers(&ok(&bin().args(args).output().unwrap()));
    }
}

#[test]
fn analyze_json_is_machine_readable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rxl.json");
    ok(&bin()
        .args(["analyze", "rxl", "--json"])
        .arg(&path)
        .output()
        .unwrap());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let fit8 = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source"] == "Eq. 8")
        .unwrap();
    assert!((fit8["value"].as_f64().unwrap() / 5.4e15 - 1.0).abs() < 1e-9);
    assert_eq!(fit8["paper"].as_f64(), Some(5.4e15));
}

#[test]
fn analyze_refuses_bad_options() {
    refused(
        &bin()
            .args(["analyze", "rxl", "--ber", "2"])
            .output()
            .unwrap(),
        "--ber",
    );
    refused(
        &bin()
            .args(["analyze", "rxl", "--fer-uc", "lots"])
            .output()
            .unwrap(),
        "--fer-uc",
    );
    refused(
        &bin()
            .args(["analyze", "rifl", "--frame-bits", "300"])
            .output()
            .unwrap(),
        "--frame-bits",
    );
    refused(
        &bin()
            .args(["analyze", "rifl", "--line-gbps", "-1"])
            .output()
            .unwrap(),
        "--line-gbps",
    );
}

const PLAN: [&str; 12] = [
    "plan",
    "rifl",
    "--line-gbps",
    "100",
    "--cable-m",
    "10",
    "--ber",
    "1e-7",
    "--mtbf-years",
    "1000",
    "--lanes",
    "4",
];

#[test]
fn plan_emit_generates_and_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let design = dir.path().join("design.toml");
    let out = ok(&bin()
        .args(PLAN)
        .arg("--emit")
        .arg(&design)
        .output()
        .unwrap());
    assert!(
        out.contains("frame_bits: 512") && out.contains("frame_id_bits = 6"),
        "{out}"
    );
    let gen = bin()
        .arg("generate")
        .arg(&design)
        .arg("--out")
        .arg(dir.path().join("tree"))
        .output()
        .unwrap();
    ok(&gen);
    let manifest =
        std::fs::read_to_string(dir.path().join("tree/rifl_plan/manifest.json")).unwrap();
    assert!(
        manifest.contains("\"frame_id_bits\": 6"),
        "the generated block has the plan's frame ID width"
    );
    let again = bin()
        .args(PLAN)
        .arg("--emit")
        .arg(&design)
        .output()
        .unwrap();
    refused(&again, "the file exists");
}

#[test]
fn plan_refuses_impossible_requirements() {
    let mut a = PLAN.to_vec();
    a[9] = "1e12";
    let err = refused(&bin().args(&a).output().unwrap(), "--mtbf-years");
    assert!(err.contains("the best MTBF"), "{err}");
    let mut a = PLAN.to_vec();
    a[7] = "1e-4";
    refused(&bin().args(&a).output().unwrap(), "--ber");
}

#[test]
fn analyze_crc_and_rs_print_their_figures() {
    let crc = ok(&bin().args(["analyze", "crc", "--width", "8", "--poly", "0x07", "--data-bits", "64", "--ber", "1e-3"]).output().unwrap());
    no_bad_numbers(&crc);
    // CRC-8 0x07 at 72 bits: HD 4, and the exact weight distribution's A_4.
    assert!(crc.contains("exact weight distribution") && crc.lines().any(|l| l.starts_with("A_4") && l.contains(" 8224 ")), "{crc}");
    let crc32 = ok(&bin().args(["analyze", "crc"]).output().unwrap());
    assert!(crc32.contains("Ethernet frame") && crc32.contains("P_ud upper bound"), "{crc32}");
    let rs = ok(&bin().args(["analyze", "rs"]).output().unwrap());
    no_bad_numbers(&rs);
    assert!(rs.contains("KP4 RS(544,514)") && rs.contains("codeword failure probability") && rs.contains("8.152e-13"), "{rs}");
    let dfe = ok(&bin().args(["analyze", "rs", "--code", "kr4", "--dfe-tap", "0.8", "--ber", "3e-3"]).output().unwrap());
    assert!(dfe.contains("DFE bursts, a = 0.8") && dfe.contains("0.1296"), "{dfe}");
}

#[test]
fn analyze_crc_and_rs_refuse_bad_options() {
    refused(&bin().args(["analyze", "crc", "--poly", "0x04C11DB6"]).output().unwrap(), "--poly");
    refused(&bin().args(["analyze", "crc", "--data-bits", "100000"]).output().unwrap(), "--data-bits");
    refused(&bin().args(["analyze", "crc", "--width", "8", "--poly", "0x107"]).output().unwrap(), "--poly");
    refused(&bin().args(["analyze", "rs", "--code", "custom", "--n", "300"]).output().unwrap(), "--n");
    refused(&bin().args(["analyze", "rs", "--dfe-tap", "1"]).output().unwrap(), "--dfe-tap");
    // The DFE chain's programme is refused, not left running, for a code too long for it.
    refused(&bin().args(["analyze", "rs", "--code", "custom", "--m", "16", "--n", "60000", "--k", "100", "--dfe-tap", "0.5"]).output().unwrap(), "--dfe-tap");
    refused(&bin().args(["analyze", "rs", "--ber", "0.2"]).output().unwrap(), "--ber");
}

#[test]
fn analyze_genz_and_sue_print_their_sizing() {
    let genz = ok(&bin().args(["analyze", "genz"]).output().unwrap());
    no_bad_numbers(&genz);
    // The measured campaign's case: 143 slots for 100 m of 64-byte packets, recovery 2,036
    // cycles (2,034 measured on the RTL), goodput 0.87 at BER 1e-6.
    for want in ["retry slots for full rate", " 143 packets", " 2036 cycles", "0.8695 of line"] {
        assert!(genz.contains(want), "{want} missing:\n{genz}");
    }
    let sue = ok(&bin().args(["analyze", "sue"]).output().unwrap());
    no_bad_numbers(&sue);
    // The seed's budget: 25 PDUs of 2 KiB cover 2 µs at 200 Gb/s; 1,024 XPUs at that window
    // exceed the transport's 16 MiB.
    for want in ["window for full rate", " 25 PDUs", "storage above the block's limit"] {
        assert!(sue.contains(want), "{want} missing:\n{sue}");
    }
    refused(&bin().args(["analyze", "genz", "--data-bytes", "6"]).output().unwrap(), "--data-bytes");
    refused(&bin().args(["analyze", "sue", "--window", "0"]).output().unwrap(), "--window");
}

#[test]
fn plan_genz_and_sue_emit_designs_that_generate() {
    let dir = tempfile::tempdir().unwrap();
    for (family, args, name, want) in [
        ("genz", &["--line-gbps", "64", "--cable-m", "10", "--ber", "1e-7"][..], "genz_plan", "\"retry_packets\": 12"),
        ("sue", &["--port-gbps", "200", "--rtt-ns", "2000", "--num-xpu", "16"][..], "sue_plan", "\"window\": 25"),
    ] {
        let design = dir.path().join(format!("{family}.toml"));
        let out = ok(&bin().args(["plan", family]).args(args).arg("--emit").arg(&design).output().unwrap());
        no_bad_numbers(&out);
        assert!(out.contains("chosen:") && out.contains("predicted:"), "{out}");
        let tree = dir.path().join(format!("tree_{family}"));
        ok(&bin().arg("generate").arg(&design).arg("--out").arg(&tree).output().unwrap());
        let manifest = std::fs::read_to_string(tree.join(name).join("manifest.json")).unwrap();
        assert!(manifest.contains(want), "{want} not in the generated manifest of {family}");
        refused(&bin().args(["plan", family]).args(args).arg("--emit").arg(&design).output().unwrap(), "the file exists");
    }
}

#[test]
fn plan_genz_and_sue_refuse_impossible_requirements() {
    let err = refused(&bin().args(["plan", "genz", "--line-gbps", "64", "--cable-m", "500", "--ber", "1e-7", "--packet-bytes", "64"]).output().unwrap(), "--cable-m");
    assert!(err.contains("at most 183.0 m"), "{err}");
    refused(&bin().args(["plan", "genz", "--line-gbps", "64", "--cable-m", "10", "--ber", "1e-4"]).output().unwrap(), "--ber");
    refused(&bin().args(["plan", "sue", "--port-gbps", "1600", "--rtt-ns", "2000", "--num-xpu", "16"]).output().unwrap(), "--port-gbps");
}

#[test]
fn analyze_rxl_draws_fig8() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("fig8.svg");
    ok(&bin().args(["analyze", "rxl", "--svg"]).arg(&svg).output().unwrap());
    let text = std::fs::read_to_string(&svg).unwrap();
    // Four levels, a CXL and an RXL bar each (plus one legend swatch each), the paper's 5.4e15
    // and 2.9e-3 on them.
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_eq!(text.matches("fill=\"#c0392b\"/><text").count(), 5, "{text}");
    assert_eq!(text.matches("fill=\"#2471a3\"/><text").count(), 5, "{text}");
    assert!(text.contains(">5.4e15<") && text.contains(">2.9e-3<"), "{text}");
}

#[test]
fn plan_crc_and_rs_choose_and_emit() {
    let dir = tempfile::tempdir().unwrap();
    let crc = dir.path().join("crc.toml");
    let out = ok(&bin().args(["plan", "crc", "--data-bits", "2048", "--ber", "1e-6", "--messages-per-s", "5e8", "--mttf-years", "1e8", "--emit"]).arg(&crc).output().unwrap());
    no_bad_numbers(&out);
    assert!(out.contains("chosen: CRC-32/ISO-HDLC") && out.contains("CRC-16/IBM-3740 2.731e0 years"), "{out}");
    let rs = dir.path().join("rs.toml");
    let out = ok(&bin().args(["plan", "rs", "--ber", "2e-4", "--emit"]).arg(&rs).output().unwrap());
    assert!(out.contains("code: KP4 RS(544,514): KR4 misses the target") && out.contains("symbols_per_cycle: 32"), "{out}");
    for (design, name, want) in [(&crc, "crc_plan", "\"width\": 32"), (&rs, "rs_plan", "\"check_symbols\": 30")] {
        let tree = dir.path().join(format!("tree_{name}"));
        ok(&bin().arg("generate").arg(design).arg("--out").arg(&tree).output().unwrap());
        let manifest = std::fs::read_to_string(tree.join(name).join("manifest.json")).unwrap();
        assert!(manifest.contains(want), "{want} not in the manifest of {name}");
    }
    refused(&bin().args(["plan", "crc", "--data-bits", "2048", "--ber", "1e-2", "--messages-per-s", "5e8", "--mttf-years", "1e30"]).output().unwrap(), "--mttf-years");
    refused(&bin().args(["plan", "rs", "--ber", "1e-2"]).output().unwrap(), "--target-ber");
}

#[test]
fn plan_rxl_sizes_the_replay_buffer_for_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let design = dir.path().join("rxl.toml");
    let out = ok(&bin().args(["plan", "rxl", "--cable-m", "2", "--switch-levels", "1", "--emit"]).arg(&design).output().unwrap());
    no_bad_numbers(&out);
    assert!(out.contains("replay_depth: 63: the 52-flit retry loop") && out.contains("FIT, RXL one switch"), "{out}");
    let tree = dir.path().join("tree");
    ok(&bin().arg("generate").arg(&design).arg("--out").arg(&tree).output().unwrap());
    let manifest = std::fs::read_to_string(tree.join("rxl_plan/manifest.json")).unwrap();
    assert!(manifest.contains("\"replay_depth\": 63"), "the generated endpoint has the plan's replay depth");
    let err = refused(&bin().args(["plan", "rxl", "--cable-m", "100", "--switch-levels", "2"]).output().unwrap(), "--cable-m");
    assert!(err.contains("10-bit sequence numbers"), "{err}");
}

#[test]
fn analyze_rifl_draws_fig9_with_the_campaigns_points() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("fig9.svg");
    let sweep = concat!(env!("CARGO_MANIFEST_DIR"), "/../sim/results/rifl_sweep.csv");
    ok(&bin().args(["analyze", "rifl", "--frame-bits", "256", "--lanes", "4", "--n-stall", "640", "--points", sweep, "--svg"]).arg(&svg).output().unwrap());
    let text = std::fs::read_to_string(&svg).unwrap();
    // The sweep's 29 points with BER > 0, the legend's marker, and the curve.
    assert_eq!(text.matches("<circle").count(), 30, "{text}");
    assert!(text.contains("N_stall = 640") && text.contains("<polyline"), "{text}");
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "ber,ratio\n1e-6,0.5\n").unwrap();
    refused(&bin().args(["analyze", "rifl", "--points"]).arg(&bad).arg("--svg").arg(dir.path().join("x.svg")).output().unwrap(), "bandwidth_ratio");
}

#[test]
fn analyze_genz_draws_its_goodput_with_the_campaigns_points() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("genz.svg");
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/../sim/results/genz.csv");
    ok(&bin().args(["analyze", "genz", "--points", csv, "--svg"]).arg(&svg).output().unwrap());
    let text = std::fs::read_to_string(&svg).unwrap();
    // The 64-byte, 100 m goodput rows with BER > 0 (29), and the legend's marker.
    assert_eq!(text.matches("<circle").count(), 30, "{text}");
    assert!(text.contains("64-byte packets, 100 m") && text.contains("<polyline"), "{text}");
}
