//! The LUT-depth gate: a representative set of sequential modules mapped with Yosys to 6-input
//! LUTs (`rtl-gen synth`'s block-RAM flow) must have at most [`MAX_LUT_LEVELS`] LUTs between
//! registers: from any register, RAM read port or input port to any register or output port,
//! submodules included ([`synth::register_depths`] on the flattened netlist). It catches a
//! timing regression without place and route. Needs Yosys (`scripts/setup`).

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen::tools::{parallel_map, synth, TreeManifest};
use std::path::{Path, PathBuf};

/// The project's logic-depth bound between registers, set beside its place-and-route goal of
/// 125 MHz on the LFE5U-85F (which `rtl-gen fpga` measures, not this test).
const MAX_LUT_LEVELS: u64 = 5;

/// The default design's sequential modules the gate maps: the small blocks of every family
/// (replay buffers, RIFL transmitter and scrambler, ReCXL replica map, Gen-Z LLR, SUE packer),
/// the RXL switch port's halves with their pipelined flit FEC (about 70 CPU seconds of the
/// gate's Yosys time between them), the RIFL gearboxes of one and four lanes (about 50 more)
/// the three-stage PCIe 6 flit FEC decoder (about 30 more) and the one-lane RIFL node (about 40
/// more: its glue's skid buffers and status counters) and the four-lane node (about 60 more).
const DEFAULT_MODULES: [&str; 16] = [
    "rtlgen_genz_llr",
    "rtlgen_sue_pk",
    "rtlgen_replay_buf_np",
    "rtlgen_rxl_ep_replay",
    "rtlgen_rifl_tx",
    "rtlgen_rifl_scrambler",
    "rtlgen_recxl_map",
    "rtlgen_rxl_sw_link_rx",
    "rtlgen_rxl_sw_link_tx",
    "rtlgen_rifl_txgear",
    "rtlgen_rifl_rxgear",
    "rtlgen_rifl4_txgear",
    "rtlgen_rifl4_rxgear",
    "rtlgen_cxl_fec_pcie6_dec",
    "rtlgen_rifl",
    "rtlgen_rifl4",
];

/// A streaming RS decoder and encoder at a small P (the default design's KR4/KP4 decoders take
/// minutes each, their encoders one to three): RS(64,60) over GF(2^8), t = 2, 4 symbols per
/// clock.
const RS_DESIGN: &str = r#"[design]
name = "depth_gate"

[[blocks]]
kind = "rs_fec"
name = "rs_p4"
symbol_bits = 8
check_symbols = 4
msg_symbols = 60
symbols_per_cycle = 4
"#;
const RS_MODULES: [&str; 2] = ["depth_gate_rs_p4_dec", "depth_gate_rs_p4_enc"];

/// Modules not yet within the bound, with their measured depth (Yosys 0.23): the gate fails
/// when one grows, and when one meets the bound while still listed, so the list only shrinks.
const KNOWN_DEEPER: [(&str, u64); 0] = [];

fn write_tree(design: Design, layout: Layout) -> PathBuf {
    let root = layout.root.clone();
    tree::build(&design.elaborate(), layout).write().expect("write tree");
    root
}

#[test]
fn sequential_modules_stay_within_five_lut_levels() {
    let dir = tempfile::tempdir().expect("temp dir");
    let default_root = write_tree(Design::builtin_default(), Layout::default_design(dir.path()));
    let rs = Design::parse(RS_DESIGN, "depth gate RS design").expect("RS design");
    let rs_layout = Layout::for_design_file(&dir.path().join("rs"), &rs);
    let rs_root = write_tree(rs, rs_layout);
    let jobs: Vec<(&Path, &str)> = DEFAULT_MODULES.iter().map(|m| (default_root.as_path(), *m)).chain(RS_MODULES.iter().map(|m| (rs_root.as_path(), *m))).collect();
    let rows = parallel_map(&jobs, 2, |&(root, module)| {
        let manifest = TreeManifest::load(root).expect("manifest");
        let flow = synth::Flow::auto(root, &manifest, module);
        synth::synth_module(root, &manifest, module, flow).unwrap_or_else(|e| panic!("{module}: {e}")).0
    });
    let mut failures = Vec::new();
    for row in &rows {
        assert!(row.luts > 0 && row.ffs > 0 && !row.deepest_registers.is_empty(), "not a sequential mapped module: {row:?}");
        let deepest = &row.deepest_registers[0];
        assert_eq!(deepest.depth, row.register_depth, "{row:?}");
        eprintln!("{}: {} LUT levels ({} {}), {} LUT6, {} FFs", row.module, row.register_depth, deepest.register, deepest.depth, row.luts, row.ffs);
        let known = KNOWN_DEEPER.iter().find(|(m, _)| *m == row.module).map(|&(_, d)| d);
        let over: Vec<String> = row.deepest_registers.iter().filter(|r| r.depth > MAX_LUT_LEVELS).map(|r| format!("{} {}", r.register, r.depth)).collect();
        match known {
            None if row.register_depth > MAX_LUT_LEVELS => failures.push(format!("{}: {} LUT levels (> {MAX_LUT_LEVELS}) before {}", row.module, row.register_depth, over.join(", "))),
            Some(limit) if row.register_depth > limit => failures.push(format!("{}: {} LUT levels, more than the {limit} of KNOWN_DEEPER, before {}", row.module, row.register_depth, over.join(", "))),
            Some(_) if row.register_depth <= MAX_LUT_LEVELS => failures.push(format!("{}: now {} LUT levels, within the bound: remove it from KNOWN_DEEPER", row.module, row.register_depth)),
            Some(limit) if row.register_depth < limit => eprintln!("{}: {} LUT levels, below the {limit} of KNOWN_DEEPER: lower the figure", row.module, row.register_depth),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "LUT depth gate:\n{}", failures.join("\n"));
    // Every listed exception is a module the gate maps.
    for (m, _) in KNOWN_DEEPER {
        assert!(rows.iter().any(|r| r.module == m), "KNOWN_DEEPER names {m}, which the gate does not map");
    }
}
