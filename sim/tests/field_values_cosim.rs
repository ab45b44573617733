//! Every kind with every enumerated field (choices and booleans) at each of its values,
//! generated as a tree and co-simulated the way `rtl-gen sim cosim FILE --tree DIR` does: the
//! design is rebuilt from the tree's manifest alone (`Bench::from_tree`), so a parameter whose
//! printed value its field cannot read back fails here, and every module of the tree runs its
//! co-simulation driver against the model. The variants are those of
//! `rtl-gen/tests/support/field_sweep.rs` (small bases, fields from the kind registry);
//! modules identical to one already run (same body and dependencies) run once.
//!
//! The default run covers the kinds whose models Verilate in seconds at the bases' sizes; the
//! 256-byte-flit kinds (`rxl_endpoint`, `rxl_switch`: each variant builds a flit CRC and a
//! PCIe 6.0 FEC decoder) and the system-size ones (`recxl_logging_unit`, `genz_llr`,
//! `sue_endpoint`) run with `RTLGEN_LONG=1`.

#[path = "../../rtl-gen/tests/support/field_sweep.rs"]
mod field_sweep;

use rtl_gen::blocks::Role;
use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen_sim::{cosim, Bench};
use std::collections::BTreeSet;

/// Kinds co-simulated only with `RTLGEN_LONG=1` (see the file's doc).
const LONG_KINDS: &[&str] = &["rxl_endpoint", "rxl_switch", "recxl_logging_unit", "genz_llr", "sue_endpoint"];

fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

/// Co-simulate every accepted enumerated variant of `kinds`; every failure listed at once.
fn cosim_variants(kinds: &dyn Fn(&str) -> bool, vectors: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let opts = cosim::Options { vectors, seed: 7 };
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    let (mut designs, mut modules) = (0, 0);
    for (i, v) in field_sweep::enumerated().iter().enumerate().filter(|(_, v)| kinds(v.kind)) {
        let label = v.label();
        // A refused combination (e.g. `compression = "gzip"`) is the field tests' business.
        let Ok(design) = Design::parse(&v.design, &label) else { continue };
        designs += 1;
        let layout = Layout::for_design_file(&dir.path().join(i.to_string()), &design);
        let root = layout.root.clone();
        tree::build(&design.elaborate(), layout).write().expect("write tree");
        let bench = match Bench::from_tree(&root) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{label}: the tree's manifest does not rebuild the design: {e}"));
                continue;
            }
        };
        for m in &bench.elab().modules {
            // A RAM wrapper runs once per shape class.
            let key: String = if m.role == Role::Ram {
                let param = |k: &str| m.params.iter().find(|(n, _)| *n == k).and_then(|(_, v)| v.as_str()).unwrap_or("");
                let number = |k: &str| m.params.iter().find(|(n, _)| *n == k).and_then(|(_, v)| v.as_u64()).unwrap_or_else(|| panic!("{}: RAM {k} not a number", m.name()));
                let out_reg = m.params.iter().any(|(n, v)| *n == "output_register" && v.as_bool() == Some(true));
                field_sweep::ram_shape_class(param("read"), out_reg, param("style"), number("width"), number("depth"))
            } else {
                let names: BTreeSet<&str> = bench.elab().hierarchy(m).iter().map(|d| d.name()).collect();
                names.iter().map(|d| field_sweep::body(&std::fs::read_to_string(root.join(format!("rtl/{d}.v"))).expect("module")).to_string()).collect()
            };
            if cosim::driver(m.kind, m.role).is_none() || !seen.insert(key) {
                continue;
            }
            modules += 1;
            match cosim::module(&bench, m, &opts) {
                Ok(o) if o.passed() => {}
                Ok(o) => failures.push(format!("{label}: {o}")),
                Err(e) => failures.push(format!("{label}: {}: {e}", m.name())),
            }
        }
    }
    eprintln!("{designs} designs, {modules} distinct modules co-simulated");
    assert!(designs > 0 && modules > 0);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_enumerated_value_cosimulates_from_its_tree() {
    cosim_variants(&|k| !LONG_KINDS.contains(&k), 200);
}

#[test]
#[ignore = "long: the flit-size and system-size kinds; RTLGEN_LONG=1"]
fn every_enumerated_value_of_the_large_kinds_cosimulates_from_its_tree() {
    assert!(long(), "set RTLGEN_LONG=1");
    cosim_variants(&|k| LONG_KINDS.contains(&k), 200);
}

/// The defect the sweep exists for, named: a `crc` block with `xor_window = 0` (the ASIC
/// choice) generated, then co-simulated from the tree alone.
#[test]
fn whole_input_window_cosimulates_from_its_tree() {
    let text = "[design]\nname = \"asic\"\n\n[[blocks]]\nkind = \"crc\"\nname = \"crc32\"\nwidth = 32\npoly = 0x04C11DB7\ndata_bits = 64\nxor_window = 0\n";
    let design = Design::parse(text, "asic").expect("design");
    let dir = tempfile::tempdir().expect("temp dir");
    let layout = Layout::for_design_file(dir.path(), &design);
    let root = layout.root.clone();
    tree::build(&design.elaborate(), layout).write().expect("write tree");
    let manifest = std::fs::read_to_string(root.join("manifest.json")).expect("manifest");
    assert!(manifest.contains("\"xor_window\": 0"), "xor_window not a number in the manifest");
    let banner = std::fs::read_to_string(root.join("rtl/asic_crc32.v")).expect("module");
    assert!(banner.contains("xor_window = 0 (whole input)"), "the banner lost the note");
    let bench = Bench::from_tree(&root).expect("the manifest rebuilds the design");
    let outcomes = cosim::run(&bench, None, &cosim::Options { vectors: 200, seed: 3 }, &mut |_| {}).expect("cosim");
    assert_eq!(outcomes.len(), 2);
    assert!(outcomes.iter().all(|o| o.passed()), "{outcomes:?}");
}

/// `crc_stream` of one-byte beats: with an even polynomial (no padding to undo, so it is legal
/// there) and with an odd one, against the model.
#[test]
fn single_byte_streams_match_the_model_with_even_and_odd_polynomials() {
    let text = "[design]\nname = \"bytes\"\n\n[[blocks]]\nkind = \"crc_stream\"\nname = \"even\"\nwidth = 8\npoly = 0x06\nword_bytes = 1\n\n[[blocks]]\nkind = \"crc_stream\"\nname = \"odd\"\nwidth = 16\npoly = 0x1021\ninit = \"0xFFFF\"\nword_bytes = 1\n";
    let bench = Bench::from_toml(text, "bytes").expect("design");
    let outcomes = cosim::run(&bench, None, &cosim::Options { vectors: 300, seed: 5 }, &mut |_| {}).expect("cosim");
    assert_eq!(outcomes.len(), 2);
    assert!(outcomes.iter().all(|o| o.passed()), "{outcomes:?}");
}
