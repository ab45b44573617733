//! Gate-level co-simulation: modules of the default design mapped to the OSU 0.18 µm library
//! (`rtl_gen::tools::asic`, as `rtl-gen asic` maps them), the netlist flattened into the cells'
//! Liberty functions (`tools::asic::gates`: Verilator cannot read the cells' UDP models), run
//! through the module's co-simulation driver against its reference model. A combinational CRC,
//! a replay buffer and the RIFL receiver's state machine; a netlist with one gate changed must
//! differ.

mod common;

use common::{scaled, workspace};
use rtl_gen::tools::asic::{self, gates, LibraryChoice, RamMode};
use rtl_gen::tools::TreeManifest;
use rtl_gen_sim::{cosim, Bench};
use std::path::Path;

/// `module` mapped, its netlist passed through `edit`, flattened, and co-simulated for
/// `vectors` random vectors or cycles (plus the driver's corner cases); RAM wrappers mapped as
/// `ram` says (as macros, the wrapper's RTL is the macro's model in the gate-level tree).
fn gate_level(module: &str, vectors: u64, ram: RamMode, edit: impl Fn(&str) -> String) -> cosim::Outcome {
    let tree = workspace().join("generated");
    let manifest = TreeManifest::load(&tree).expect("manifest");
    let library = LibraryChoice::Osu018.resolve().expect("qflow installed (scripts/setup)");
    let dir = tempfile::tempdir().expect("temp dir");
    let run = asic::map_module(&tree, &manifest, module, &library, None, ram, &dir.path().join("work")).expect("mapped");
    let mapped = std::fs::read_to_string(&run.netlist).expect("netlist");
    let edited = dir.path().join("edited.v");
    std::fs::write(&edited, edit(&mapped)).expect("write");
    let gate = dir.path().join("gate.v");
    gates::simulation_netlist(&library, &edited, module, &run.macro_sources, &gate).expect("flattened");
    let gate_tree = gates::gate_tree(&tree, &manifest, module, &gate, &dir.path().join("tree")).expect("gate tree");
    let bench = Bench::from_tree(&gate_tree).expect("bench");
    let m = bench.elab().modules.iter().find(|m| m.name() == module).expect("module in the design");
    let outcome = cosim::module(&bench, m, &cosim::Options { vectors, seed: 1 }).expect("co-simulated");
    assert!(outcome.differs_from_design, "the tree holds the netlist, not the RTL");
    assert!(outcome.vectors > 0, "{outcome:?}");
    outcome
}

fn unchanged(text: &str) -> String {
    text.to_string()
}

#[test]
fn crc32_gate_netlist_equals_the_model_and_a_changed_gate_does_not() {
    let o = gate_level("rtlgen_crc32", scaled(2_000) as u64, RamMode::Flops, unchanged);
    o.check().expect("gate-level CRC-32 equals the model");
    // One XOR of the network turned into an XNOR (same pins): the netlist is wrong and the
    // co-simulation must say so.
    let o = gate_level("rtlgen_crc32", scaled(2_000) as u64, RamMode::Flops, |t| t.replacen("XOR2X1 ", "XNOR2X1 ", 1));
    assert!(o.mismatches > 0 && o.first.is_some(), "a changed gate went unnoticed: {o:?}");
}

#[test]
fn replay_buffer_gate_netlist_equals_the_model() {
    gate_level("rtlgen_replay_buf", scaled(3_000) as u64, RamMode::Flops, unchanged).check().expect("gate-level replay buffer equals the model");
}

/// The replay buffer with its RAM kept as a macro (`rtl-gen asic`'s default): the netlist
/// around the macro instance, the wrapper's RTL standing in for the SRAM.
#[test]
fn replay_buffer_gate_netlist_around_its_ram_macro_equals_the_model() {
    let o = gate_level("rtlgen_replay_buf", scaled(3_000) as u64, RamMode::Macro, |t| {
        assert!(t.contains("rtlgen_ram_1r1w_outreg_64x16 u_ram ("), "the RAM is a macro instance");
        t.to_string()
    });
    o.check().expect("gate-level replay buffer with its RAM macro equals the model");
}

#[test]
fn rifl_receiver_gate_netlist_equals_the_model() {
    gate_level("rtlgen_rifl_rx", scaled(3_000) as u64, RamMode::Flops, unchanged).check().expect("gate-level RIFL receiver equals the model");
}

#[test]
fn the_gate_tree_replaces_only_the_module_file() {
    let tree = workspace().join("generated");
    let manifest = TreeManifest::load(&tree).expect("manifest");
    let dir = tempfile::tempdir().expect("temp dir");
    let netlist = dir.path().join("n.v");
    std::fs::write(&netlist, "module rtlgen_rifl_rx; endmodule\n").expect("write");
    let out = gates::gate_tree(&tree, &manifest, "rtlgen_rifl_rx", &netlist, &dir.path().join("t")).expect("tree");
    let read = |p: &Path| std::fs::read_to_string(p).expect("read");
    assert_eq!(read(&out.join("rtl/rtlgen_rifl_rx.v")), "module rtlgen_rifl_rx; endmodule\n");
    let deps = &manifest.modules.iter().find(|m| m.name == "rtlgen_rifl_rx").expect("module").depends;
    assert!(!deps.is_empty());
    for d in deps {
        let f = format!("rtl/{d}.v");
        assert_eq!(read(&out.join(&f)), read(&tree.join(&f)), "{f} copied as it is");
    }
}
