//! `rtl-gen asic` on small modules of the committed tree with the OSU 0.18 µm library (Debian
//! package `qflow`): OpenSTA must accept the emitted SDC and find every path constrained, the
//! figures must be real (area, a slack, the flip-flops the RTL has), the hand-off package must
//! hold its files and never touch a folder it does not own, and bad options are refused.

use rtl_gen::tools::asic::{self, LibraryChoice, RamMode};
use rtl_gen::tools::{yosys_words, TreeManifest};
use std::path::Path;
use std::process::Command;

mod common;
use common::workspace;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rtl-gen"));
    c.current_dir(workspace());
    c
}

/// Flip-flops of `module` after Yosys's generic `synth -flatten` (no library): the registers
/// the RTL describes, whatever the cell library.
fn generic_flip_flops(module: &str) -> u64 {
    let tree = workspace().join("generated");
    let manifest = TreeManifest::load(&tree).expect("manifest");
    let files = yosys_words(&manifest.sources(&tree, module)).expect("plain paths");
    let out = Command::new("yosys").args(["-p", &format!("read_verilog {files}; synth -flatten -top {module}; log RTLGEN-GENERIC; stat")]).output().expect("yosys installed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    let stat = log.rsplit("\nRTLGEN-GENERIC").next().expect("mark");
    stat.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            match (w.next(), w.next()) {
                (Some(cell), Some(n)) if cell.starts_with("$_") && (cell.contains("DFF") || cell.contains("DLATCH")) => n.parse::<u64>().ok(),
                _ => None,
            }
        })
        .sum()
}

/// A combinational CRC (timed against a virtual clock), a replay buffer and the RIFL receiver's
/// state machine (with its two submodules, flattened) at the design's 500 MHz.
#[test]
fn small_modules_map_and_time_with_the_emitted_sdc_and_package() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("asic.json");
    let pkg = dir.path().join("pkg");
    let modules = ["rtlgen_crc32", "rtlgen_replay_buf", "rtlgen_rifl_rx"];
    let out = bin()
        .args(["asic", "generated", "--lib", "osu018", "--ram", "flops"])
        .args(modules.iter().flat_map(|m| ["--module", m]))
        .arg("--json")
        .arg(&json)
        .arg("--work")
        .arg(dir.path().join("work"))
        .arg("--package")
        .arg(&pkg)
        .arg("--gate-tree")
        .arg(dir.path().join("gates"))
        .output()
        .expect("run rtl-gen");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rtl-gen asic failed:\n{err}");
    let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON report")).expect("valid JSON");
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), modules.len());
    for (row, module) in rows.iter().zip(modules) {
        assert_eq!(row["module"], module);
        assert_eq!(row["clock_mhz"].as_f64(), Some(500.0), "the design's clock: {row}");
        assert!(row["area_um2"].as_f64().expect("area") > 0.0, "{row}");
        assert!(row["cells"].as_u64().expect("cells") > 100, "{row}");
        let slack = row["worst_slack_ns"].as_f64().expect("a timed path and its slack");
        assert!(slack.is_finite() && slack > -10.0 && slack < 2.0, "{row}");
        assert_eq!(row["unconstrained"], serde_json::json!([]), "OpenSTA found unconstrained paths in {module}: {row}");
        assert_eq!(row["yosys_warnings"], serde_json::json!([]), "{row}");
        let path = &row["critical_path"];
        assert!(path["depth"].as_u64().expect("depth") >= 1 && path["start"].is_string() && path["end"].is_string(), "{row}");
        assert!(row["power_mw"].as_f64().expect("power") > 0.0, "{row}");
        assert_eq!(row["flip_flops"].as_u64(), Some(generic_flip_flops(module)), "library flip-flops against Yosys's generic count: {row}");
    }
    assert_eq!(rows[0]["flip_flops"].as_u64(), Some(0), "rtlgen_crc32 is combinational");
    assert!(rows[1]["flip_flops"].as_u64() > Some(15 * 64), "the replay buffer's 15 × 64-bit entries: {}", rows[1]);

    let mut files: Vec<String> = std::fs::read_dir(&pkg).expect("package").map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    for m in modules {
        for f in [format!("{m}.v"), format!("{m}_synth.txt"), format!("{m}_timing.txt")] {
            assert!(files.contains(&f), "{f} missing from {files:?}");
        }
    }
    for f in ["README.md", "asic.json", "manifest.json", "rtlgen.sdc", asic::package::OWNED_LIST] {
        assert!(files.contains(&f.to_string()), "{f} missing from {files:?}");
    }
    let netlist = std::fs::read_to_string(pkg.join("rtlgen_replay_buf.v")).expect("netlist");
    assert!(netlist.contains("module rtlgen_replay_buf") && netlist.contains("DFFPOSX1 "), "a netlist of library cells");
    let sdc = std::fs::read_to_string(pkg.join("rtlgen.sdc")).expect("sdc");
    assert_eq!(sdc, std::fs::read_to_string(workspace().join("constraints/rtlgen.sdc")).expect("emitted sdc"), "the SDC as emitted");
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(pkg.join("manifest.json")).expect("manifest")).expect("json");
    let names: Vec<&str> = manifest["modules"].as_array().expect("modules").iter().map(|m| m["name"].as_str().expect("name")).collect();
    assert_eq!(names, modules, "only the packaged modules");
    let readme = std::fs::read_to_string(pkg.join("README.md")).expect("readme");
    assert!(readme.contains("clean for every module") && readme.contains("| rtlgen_rifl_rx | 500.0 |"), "{readme}");

    // The gate-level tree: the manifest, every module file, the mapped ones as flattened
    // netlists (no library cell left: the cells are modelled from their Liberty functions).
    let gates = dir.path().join("gates");
    assert!(gates.join("manifest.json").is_file());
    for m in modules {
        let text = std::fs::read_to_string(gates.join(format!("rtl/{m}.v"))).expect("gate netlist");
        assert!(text.contains(&format!("module {m}(")) && !text.contains("DFFPOSX1") && !text.contains("XOR2X1"), "{m}");
        assert_ne!(text, std::fs::read_to_string(workspace().join(format!("generated/rtl/{m}.v"))).expect("rtl"));
    }
    assert_eq!(
        std::fs::read_to_string(gates.join("rtl/rtlgen_crc32_check.v")).expect("copied"),
        std::fs::read_to_string(workspace().join("generated/rtl/rtlgen_crc32_check.v")).expect("rtl"),
        "an unmapped module stays RTL"
    );

    // A folder holding a file of someone else's is refused and left as it was.
    let foreign = dir.path().join("foreign");
    std::fs::create_dir_all(&foreign).expect("mkdir");
    std::fs::write(foreign.join("notes.txt"), "mine").expect("write");
    let out = bin().args(["asic", "generated", "--module", "rtlgen_crc32", "--json"]).arg(dir.path().join("b.json")).arg("--work").arg(dir.path().join("work")).arg("--package").arg(&foreign).output().expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("notes.txt") && err.contains("did not write"), "{err}");
    assert_eq!(std::fs::read_dir(&foreign).expect("ls").count(), 1);
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).expect("kept"), "mine");
}

/// The replay buffers with their RAM wrappers kept as SRAM macros (the default): one macro
/// instance of each shape, no RAM bit left as a flip-flop, no macro pin tied (the buffers drive
/// the read enable), every path to and from the macro pins timed, and
/// the macro timing model in the package; with `--ram flops` the same modules hold the RAM bits
/// as flip-flops and no macro.
#[test]
fn ram_wrappers_stay_macros_timed_at_their_pins() {
    let dir = tempfile::tempdir().expect("temp dir");
    let modules = ["rtlgen_replay_buf", "rtlgen_replay_buf_np"];
    let shapes = [("rtlgen_ram_1r1w_outreg_64x16", 64, 16), ("rtlgen_ram_1r1w_outreg_33x32", 33, 32)];
    let run = |ram: &str, json: &str, pkg: Option<&str>| -> Vec<serde_json::Value> {
        let mut c = bin();
        c.args(["asic", "generated", "--ram", ram]).args(modules.iter().flat_map(|m| ["--module", m])).arg("--json").arg(dir.path().join(json)).arg("--work").arg(dir.path().join(ram));
        if let Some(p) = pkg {
            c.arg("--package").arg(dir.path().join(p));
        }
        let out = c.output().expect("run rtl-gen");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "rtl-gen asic --ram {ram} failed:\n{text}");
        for (m, (shape, w, d)) in modules.iter().zip(shapes) {
            if ram == "macro" {
                assert!(text.contains(&format!("{m}: RAM macro 1 × {shape} ({w} × {d} bits, {} bits)", w * d)), "{text}");
            }
        }
        let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join(json)).expect("JSON")).expect("valid JSON");
        rows.as_array().expect("rows").clone()
    };
    let macro_rows = run("macro", "m.json", Some("pkg"));
    let flop_rows = run("flops", "f.json", None);
    for ((m, (shape, w, d)), (mr, fr)) in modules.iter().zip(shapes).zip(macro_rows.iter().zip(&flop_rows)) {
        assert_eq!(mr["ram"], "macro");
        assert_eq!(mr["macros"], serde_json::json!([{ "module": shape, "width": w, "depth": d, "count": 1, "bits": w * d }]), "{m}: {mr}");
        assert_eq!(mr["unconstrained"], serde_json::json!([]), "OpenSTA found unconstrained paths in {m}: {mr}");
        assert_eq!(mr["macro_pins_tied"], serde_json::json!([]), "{m}: the buffer drives the read enable (it holds its output while out_ready is low): {mr}");
        assert_eq!(mr["macro_timing"]["clk_to_out_ns"].as_f64(), Some(0.3), "{mr}");
        assert!(mr["worst_slack_ns"].as_f64().is_some() && mr["cells"].as_u64() > Some(100), "{mr}");
        let (ff_macro, ff_flops) = (mr["flip_flops"].as_u64().expect("FFs"), fr["flip_flops"].as_u64().expect("FFs"));
        assert_eq!(fr["ram"], "flops");
        assert_eq!(fr["macros"], serde_json::json!([]), "{fr}");
        assert_eq!(ff_flops, generic_flip_flops(m), "{m}: flip-flops mode keeps every register");
        // The output-register shape: the words, the read register and the output register.
        assert_eq!(ff_flops - ff_macro, u64::try_from(w * d + 2 * w).expect("bits"), "{m}: the words, the read and the output register are the macro's");
        assert!(mr["area_um2"].as_f64() < fr["area_um2"].as_f64(), "{m}: standard-cell area without the array");
    }
    // Paths through the macro pins are timed with the model (launch at rd_data, capture at wr_data).
    let work = dir.path().join("macro/rtlgen_replay_buf");
    let lib = std::fs::read_to_string(work.join("ram_macros.lib")).expect("macro model");
    assert!(lib.contains("cell (rtlgen_ram_1r1w_outreg_64x16)") && lib.contains("timing_type : setup_rising") && lib.contains("timing_type : rising_edge"), "{lib}");
    let netlist = std::fs::read_to_string(work.join("rtlgen_replay_buf.v")).expect("netlist");
    assert!(netlist.contains("rtlgen_ram_1r1w_outreg_64x16 u_ram (") && !netlist.contains("module rtlgen_ram_1r1w_outreg_64x16"), "the wrapper is an instance, not a module of the netlist");
    let tcl = std::fs::read_to_string(work.join("sta.tcl")).expect("script");
    let probe = work.join("probe.tcl");
    let through = tcl.replace("puts RTLGEN-WORST-PATH\n", "puts PROBE-FROM\nreport_checks -through [get_pins u_ram/rd_data*] -format full\nputs PROBE-TO\nreport_checks -to [get_pins u_ram/wr_data*] -format full\nputs RTLGEN-WORST-PATH\n");
    std::fs::write(&probe, through).expect("write");
    let out = Command::new("sta").args(["-no_splash", "-exit"]).arg(&probe).current_dir(workspace()).output().expect("sta installed");
    let log = String::from_utf8_lossy(&out.stdout);
    let (from, to) = log.split_once("PROBE-TO").expect("both reports");
    assert!(from.contains("Startpoint: u_ram (rising edge-triggered flip-flop clocked by clk)") && from.contains("u_ram/rd_data[") && from.contains("slack ("), "{from}");
    assert!(to.contains("Endpoint: u_ram (rising edge-triggered flip-flop clocked by clk)") && to.contains("library setup time") && to.contains("slack ("), "{to}");
    let pkg = dir.path().join("pkg");
    for m in modules {
        let lib = std::fs::read_to_string(pkg.join(format!("{m}_ram_macros.lib"))).expect("macro model in the package");
        assert!(lib.contains("library (rtlgen_ram_macros)"));
    }
    let readme = std::fs::read_to_string(pkg.join("README.md")).expect("readme");
    assert!(readme.contains("| rtlgen_replay_buf | rtlgen_ram_1r1w_outreg_64x16 | 64 × 16 | 1 | 1024 |") && readme.contains("clean for every module"), "{readme}");
}

/// The SDC before it set input and output delays (a clock only) leaves every port path
/// unconstrained: the check the test above relies on does fail.
#[test]
fn an_sdc_with_only_a_clock_leaves_ports_unconstrained() {
    let generated = workspace().join("generated");
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("rtl")).expect("mkdir");
    std::fs::create_dir_all(tree.join("constraints")).expect("mkdir");
    std::fs::copy(generated.join("manifest.json"), tree.join("manifest.json")).expect("copy");
    std::fs::copy(generated.join("rtl/rtlgen_crc32_pipe.v"), tree.join("rtl/rtlgen_crc32_pipe.v")).expect("copy");
    std::fs::write(tree.join("constraints/rtlgen.sdc"), "create_clock -name clk -period 2.000 [get_ports clk]\n").expect("write");
    let manifest = TreeManifest::load(&tree).expect("manifest");
    let library = LibraryChoice::Osu018.resolve().expect("qflow installed");
    let run = asic::map_module(&tree, &manifest, "rtlgen_crc32_pipe", &library, None, RamMode::Flops, &dir.path().join("work")).expect("mapped and timed");
    let problems = run.row.unconstrained.join("\n");
    assert!(problems.contains("input ports missing set_input_delay") && problems.contains("output ports missing set_output_delay"), "{problems}");

    // The same module at 100 MHz with the emitted SDC: more slack than at the design's clock.
    let tree = generated;
    let manifest = TreeManifest::load(&tree).expect("manifest");
    let fast = asic::map_module(&tree, &manifest, "rtlgen_crc32_pipe", &library, None, RamMode::Flops, &dir.path().join("w500")).expect("500 MHz");
    let slow = asic::map_module(&tree, &manifest, "rtlgen_crc32_pipe", &library, Some(100.0), RamMode::Flops, &dir.path().join("w100")).expect("100 MHz");
    assert_eq!(slow.row.clock_mhz, 100.0);
    assert!(slow.row.unconstrained.is_empty() && fast.row.unconstrained.is_empty(), "{:?} {:?}", slow.row.unconstrained, fast.row.unconstrained);
    let (s100, s500) = (slow.row.worst_slack_ns.expect("slack"), fast.row.worst_slack_ns.expect("slack"));
    assert!(s100 > s500 + 5.0, "8 ns more period: {s100} vs {s500}");
}

#[test]
fn bad_options_are_refused_with_the_allowed_values() {
    let cases: [(&[&str], &[&str]); 4] = [
        (&["--lib", "sky130"], &["--lib", "osu018, osu035, osu050", ".lib"]),
        (&["--clock-mhz", "0"], &["--clock-mhz", "1..=5000"]),
        (&["--module", "rtlgen_nope"], &["--module rtlgen_nope", "rtlgen_crc32"]),
        (&["--lib", "/no/such/cells.lib", "--module", "rtlgen_crc32"], &["/no/such/cells.lib"]),
    ];
    for (args, needles) in cases {
        let out = bin().args(["asic", "generated"]).args(args).output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && !err.contains("panicked"), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: `{n}` not in {err}");
        }
    }
}

/// A missing tool names its Debian package: `yosys`, then (Yosys found) `qflow` for `sta`.
#[test]
fn a_missing_tool_names_its_debian_package() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bin");
    std::fs::create_dir_all(&path).expect("mkdir");
    let run = || bin().args(["asic", "generated", "--module", "rtlgen_crc32", "--json"]).arg(dir.path().join("a.json")).arg("--work").arg(dir.path().join("work")).env("PATH", &path).output().expect("run");
    let out = run();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`yosys` is not installed") && err.contains("apt-get install -y yosys"), "{err}");
    // Yosys and what it runs (Debian's Yosys starts ABC through `sh` as `berkeley-abc`).
    for tool in ["yosys", "yosys-abc", "berkeley-abc", "sh"] {
        if let Some(found) = ["/usr/bin", "/usr/local/bin", "/bin"].iter().map(|d| Path::new(d).join(tool)).find(|p| p.is_file()) {
            std::os::unix::fs::symlink(found, path.join(tool)).expect("symlink");
        }
    }
    let out = run();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`sta` is not installed") && err.contains("apt-get install -y qflow"), "{err}");
}

/// A transceiver-width RIFL node (128-bit frames as four 32-bit words on tx_fast_clk, small
/// enough to map in seconds): OpenSTA takes every line of the SDC of its GT width converter and
/// of the node (the multicycle path finds the frame registers: the mapped flip-flops keep the
/// registers' names), and times the frame path into the converter as the multicycle path it is,
/// captured four tx_fast_clk cycles (one clk cycle) after launch rather than one. The
/// converter alone by default; the node too with `RTLGEN_LONG=1`.
#[test]
fn a_gt_node_sdc_is_read_whole_and_its_multicycle_path_timed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let design = dir.path().join("g.toml");
    std::fs::write(&design, "[design]\nname = \"g\"\nclock_mhz = 100.0\n\n[[blocks]]\nkind = \"rifl\"\nname = \"n\"\nframe_bits = 128\nuser_bits = 128\nclocking = \"recovered\"\ngt_bits = 32\nframe_id_bits = 5\n").expect("write");
    let out = common::rtl_gen(&["generate", "g.toml", "--out", "out"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tree = dir.path().join("out/g");
    let manifest = TreeManifest::load(&tree).expect("manifest");
    let library = LibraryChoice::Osu018.resolve().expect("qflow installed");
    // The whole node (about a minute) with RTLGEN_LONG=1.
    let modules: &[&str] = if common::long() { &["g_n_gtx", "g_n"] } else { &["g_n_gtx"] };
    for &module in modules {
        let run = asic::map_module(&tree, &manifest, module, &library, None, RamMode::Macro, &dir.path().join("work")).unwrap_or_else(|e| panic!("{module}: every SDC line taken: {e}"));
        assert!(run.sdc.ends_with(format!("{module}.sdc")), "{module}: its own SDC, {}", run.sdc.display());
        assert!(std::fs::read_to_string(&run.sdc).expect("sdc").contains("set_multicycle_path 4 -setup -end -from [get_clocks clk]"));
        assert!(run.row.worst_slack_ns.is_some(), "{module}: {:?}", run.row);
        // The frame path alone: required at four fast periods (10 ns) after its clk launch, not at the next fast edge (2.5 ns).
        let tcl = std::fs::read_to_string(run.sta_log.with_file_name("sta.tcl")).expect("script");
        let probe = run.sta_log.with_file_name("probe.tcl");
        std::fs::write(&probe, tcl.replace("puts RTLGEN-WORST-PATH\n", "puts PROBE\nreport_checks -from [get_clocks clk] -to [get_cells -hierarchical *gt_word_q*] -format full -digits 3\nputs RTLGEN-WORST-PATH\n")).expect("write");
        let out = Command::new("sta").args(["-no_splash", "-exit"]).arg(&probe).output().expect("sta installed");
        let log = String::from_utf8_lossy(&out.stdout).into_owned();
        let report = log.split("PROBE\n").nth(1).and_then(|r| r.split("RTLGEN-WORST-PATH").next()).expect("the probe's report");
        let path = asic::sta::parse_path(report).unwrap_or_else(|| panic!("{module}: a timed path into gt_word_q:\n{report}"));
        assert!(path.end.contains("gt_word_q"), "{module}: {path:?}");
        let required: f64 = report.lines().find(|l| l.contains("data required time")).and_then(|l| l.split_whitespace().next()).and_then(|v| v.parse().ok()).expect("required time");
        assert!(required > 9.0 && required < 10.0, "{module}: the multicycle path is captured at 10 ns less uncertainty and setup, not {required}:\n{report}");
        eprintln!("{module}: multicycle path {} -> {}: slack {:.3} ns", path.start, path.end, path.slack_ns);
    }
}
