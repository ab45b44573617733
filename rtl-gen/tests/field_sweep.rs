//! Every legal design is lint-clean, not only the default one: each kind's fields, one at a time,
//! to each end of their range and to every enumerated value (the variants of
//! `support/field_sweep.rs`, from the kind registry). Each variant is either refused with a
//! field error (never a panic) or elaborated, written as a tree whose manifest rebuilds the same
//! blocks, and every distinct module (identical bodies once) passes Verilator `--lint-only
//! -Wall` and Icarus `-g2005`. Every failure is listed at once. Needs the tools `scripts/setup`
//! installs.
//!
//! A module is linted on its own file with a port-only stand-in for each module it instantiates
//! (written from the manifest's port list): every instantiated module is itself a distinct
//! module of the sweep and linted with its real body, and the stand-ins keep the port
//! connections (names, directions, widths) checked. That way a variant that changes only an
//! endpoint's timers re-lints the endpoint, not the megabyte flit CRC under it, and every kind
//! fits the default run (but the kinds with a sweep of their own, [`OWN_SWEEP`], which
//! run there). A module that instantiates nothing and is the same text as one of the default
//! design's is left to `eda_gates.rs`, which lints that one. The default run caps a few range
//! tops (`CAPS` in the support file); `RTLGEN_LONG=1` sweeps the full ranges and lints each
//! module over its real hierarchy.

#[path = "support/field_sweep.rs"]
mod field_sweep;

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen::tools::{default_jobs, lint, parallel_map, TreeManifest};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// One distinct module to lint: the tree it was written to, its name, the variant it came from.
struct Job {
    tree: PathBuf,
    module: String,
    label: String,
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// The blocks' parameters a manifest rebuilds must be the ones the design printed: a value
/// `typed_params()` lists that its kind cannot read back breaks `rtl-gen sim cosim` on that tree.
fn manifest_round_trip(design: &Design, root: &std::path::Path) -> Result<(), String> {
    let json = std::fs::read_to_string(root.join("manifest.json")).map_err(|e| e.to_string())?;
    let back = Design::from_manifest(&json, "manifest.json").map_err(|e| format!("the manifest does not read back: {e}"))?;
    for (a, b) in design.blocks.iter().zip(&back.blocks) {
        if a.typed_params() != b.typed_params() {
            return Err(format!("block {} reads back with other parameters: {:?} vs {:?}", a.name(), a.typed_params(), b.typed_params()));
        }
    }
    Ok(())
}

/// The RAM wrappers of a written tree (manifest role `ram`), each with its shape class
/// ([`field_sweep::ram_shape_class`]).
fn ram_shape_classes(root: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).expect("manifest")).expect("manifest JSON");
    let modules = json["modules"].as_array().expect("manifest modules");
    modules
        .iter()
        .filter(|m| m["role"] == "ram")
        .map(|m| {
            let p = &m["params"];
            let (width, depth) = (p["width"].as_u64().expect("RAM width"), p["depth"].as_u64().expect("RAM depth"));
            let class = field_sweep::ram_shape_class(p["read"].as_str().expect("RAM read"), p["output_register"].as_bool().expect("RAM output_register"), p["style"].as_str().expect("RAM style"), width, depth);
            (m["name"].as_str().expect("module name").to_string(), class)
        })
        .collect()
}

/// The bodies of the default design's modules that instantiate nothing, each with its own name
/// replaced by `M` ([`leaf_key`]): `eda_gates.rs` lints every one of them, so a sweep variant
/// whose module is the same text (the RXL endpoint base's 256-byte flit CRC and its checker,
/// half a minute of Verilator each) is not linted a second time.
fn default_leaf_bodies() -> BTreeSet<String> {
    let layout = Layout::default_design(std::path::Path::new("/nonexistent"));
    let elab = Design::builtin_default().elaborate();
    let leaves: BTreeSet<String> = elab.modules.iter().filter(|m| m.depends.is_empty()).map(|m| format!("{}.v", m.name())).collect();
    tree::build(&elab, layout)
        .files
        .into_iter()
        .filter_map(|(p, bytes)| {
            let file = p.file_name()?.to_string_lossy().into_owned();
            let name = file.strip_suffix(".v").filter(|_| leaves.contains(&file))?.to_string();
            Some(leaf_key(&String::from_utf8(bytes).expect("utf-8"), &name))
        })
        .collect()
}

/// A leaf module's body with its name replaced by `M`, so equal modules of two designs compare equal.
fn leaf_key(text: &str, name: &str) -> String {
    field_sweep::body(text).replacen(&format!("module {name} "), "module M ", 1)
}

/// Kinds whose one-field changes the default run lints in their own sweep
/// (`sue_lint_sweep.rs`, `genz_llr_lint.rs`, `recxl_lint_sweep.rs`, each a few seconds to a
/// minute); this sweep covers them with `RTLGEN_LONG=1`.
const OWN_SWEEP: &[&str] = &["sue_transport", "sue_endpoint", "genz_llr", "recxl_logging_unit"];

#[test]
fn every_one_field_variant_is_refused_clearly_or_lint_clean() {
    sweep(&|k| !OWN_SWEEP.contains(&k), false, 80, 100);
}

#[test]
#[ignore = "long: full ranges, each module over its whole hierarchy; RTLGEN_LONG=1"]
fn every_one_field_variant_at_full_range_is_refused_clearly_or_lint_clean_over_its_hierarchy() {
    assert!(std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1"), "set RTLGEN_LONG=1");
    sweep(&|_| true, true, 150, 180);
}

/// Every kind with an asynchronous active-low reset: one design of every kind's base block with
/// `reset = "async_low"`, every module with a reset (each kind has at least one) has the port
/// `rst_n` and no `rst`, and is clean in Verilator `-Wall`, Icarus `-g2005` and Yosys (over
/// stand-ins). Modules without a reset are the same text in either style and linted by the
/// other sweeps.
#[test]
fn every_kind_with_an_async_low_reset_is_clean_in_verilator_icarus_and_yosys() {
    let design = Design::parse(&field_sweep::every_kind_design("async_low"), "kinds.toml").expect("valid");
    assert_eq!(design.blocks.len(), rtl_gen::blocks::KINDS.len(), "one block per kind");
    let dir = tempfile::tempdir().expect("temp dir");
    let layout = Layout::for_design_file(dir.path(), &design);
    let root = layout.root.clone();
    tree::build(&design.elaborate(), layout).write().expect("write tree");
    let manifest = TreeManifest::load(&root).expect("manifest");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).expect("manifest")).expect("manifest JSON");
    let mut kinds_with_reset = BTreeSet::new();
    let mut jobs = Vec::new();
    for m in json["modules"].as_array().expect("modules") {
        let name = m["name"].as_str().expect("name").to_string();
        let text = std::fs::read_to_string(root.join(m["file"].as_str().expect("file"))).expect("module file");
        let ports: Vec<&str> = m["ports"].as_array().expect("ports").iter().map(|p| p["name"].as_str().expect("port name")).collect();
        assert!(!ports.contains(&"rst") && !ports.iter().any(|p| p.ends_with("_rst")), "{name} has an active-high reset port: {ports:?}");
        let resets: Vec<&&str> = ports.iter().filter(|p| p.ends_with("rst_n")).collect();
        if resets.is_empty() {
            continue;
        }
        if m["reset"]["name"] == "rst_n" {
            assert!(text.contains("// Reset  : rst_n, asynchronous, active low\n"), "{name}: the banner names the reset");
        }
        // Its own registers (a top that only wires sub-modules has none) reset asynchronously.
        assert!(!text.contains("if (rst)") && (!text.contains("always @(posedge") || text.contains("negedge")), "{name}: reset not asynchronous active-low");
        kinds_with_reset.insert(m["block"].as_str().expect("block").to_string());
        jobs.push(name);
    }
    let kinds: BTreeSet<String> = field_sweep::BASES.iter().map(|(k, _)| k.to_string()).collect();
    assert_eq!(kinds_with_reset, kinds, "every kind has a module with rst_n");
    let stand_ins = lint::Scope::Alone(dir.path().join("stand_ins"));
    let results = parallel_map(&jobs, default_jobs(), |m| lint::lint_module_in(&root, &manifest, m, &stand_ins).expect("tools installed (scripts/setup)"));
    let results: Vec<_> = results.into_iter().flatten().collect();
    assert_eq!(results.len(), 3 * jobs.len(), "Verilator, Icarus and Yosys per module");
    let failures: Vec<String> = results.iter().filter(|r| !r.clean).map(|r| format!("{} {}:\n{}", r.tool, r.module, r.output)).collect();
    assert!(failures.is_empty(), "async_low lint failures:\n{}", failures.join("\n"));
    println!("{} modules with rst_n, {} kinds: clean in Verilator, Icarus and Yosys", jobs.len(), kinds.len());
}

/// The range `rtl-gen list` prints for a field is its real one: from the small base block, a
/// number field accepts at least one end of its listed range (a listed `0..=65536` whose every
/// legal value lies in `2..=8` would fail here) — unless the base itself pins the field, which
/// the exceptions name.
#[test]
fn every_number_field_accepts_an_end_of_its_listed_range() {
    // (kind, field) whose ends are legal only beside other values than the small base's.
    const PINNED: &[(&str, &str)] = &[
        // Polynomials: legal values are the primitive (or high-distance) ones, not a range end.
        ("rifl", "crc_poly"),
        ("rs_crc", "field_poly"),
        ("rs_fec", "field_poly"),
        // The base gives msg_bytes, which fixes 8-bit symbols and excludes msg_symbols.
        ("rs_crc", "symbol_bits"),
        ("rs_fec", "symbol_bits"),
        ("rs_fec", "msg_symbols"),
        // Fields of the streaming decoder; the base is the whole-codeword form.
        ("rs_fec", "counter_bits"),
        ("rs_fec", "ser_threshold"),
        ("rs_fec", "ser_window"),
        // Bounded by the base's beat (8 bytes) and retry buffer (512 bytes), and by ui_per_cycle.
        ("genz_llr", "max_packet_bytes"),
        ("genz_llr", "llrt_ui"),
        // A multiple of data_bytes up to max_pack_bytes (16 and 64 in the base).
        ("sue_transport", "cmd_bytes"),
        ("sue_endpoint", "cmd_bytes"),
        // Only with xpuid_source = "constant"; the base takes the id from its port.
        ("sue_transport", "local_xpuid"),
        ("sue_endpoint", "local_xpuid"),
    ];
    let mut refused = Vec::new();
    for v in field_sweep::all() {
        let number = !v.value.is_empty() && !v.value.starts_with('"') && v.value != "true" && v.value != "false";
        if number && !PINNED.contains(&(v.kind, v.field)) && Design::parse(&v.design, &v.label()).is_err() {
            refused.push((v.kind, v.field));
        }
    }
    // A field refused at both swept ends lists a range it does not have.
    refused.sort();
    let both: Vec<String> = refused.windows(2).filter(|w| w[0] == w[1]).map(|w| format!("{}.{}", w[0].0, w[0].1)).collect();
    assert!(both.is_empty(), "fields refused at both ends of the range `rtl-gen list` shows: {both:?}");
}

/// Sweep the kinds `kinds` accepts; at least `min_accepted` variants must generate and
/// `min_modules` distinct modules be linted (the sweep reaches far). `whole`: lint each module
/// over its real hierarchy instead of over stand-ins.
fn sweep(kinds: &dyn Fn(&str) -> bool, whole: bool, min_accepted: usize, min_modules: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    let default_leaves = if whole { BTreeSet::new() } else { default_leaf_bodies() };
    let mut linted_with_the_default_design = 0usize;
    let mut jobs = Vec::new();
    let (mut accepted, mut refused) = (0usize, 0usize);
    for (i, v) in field_sweep::all().iter().enumerate().filter(|(_, v)| kinds(v.kind)) {
        let label = v.label();
        let design = match catch_unwind(|| Design::parse(&v.design, &label)) {
            Err(p) => {
                failures.push(format!("{label}: parsing panicked: {}", panic_text(p.as_ref())));
                continue;
            }
            Ok(Err(e)) => {
                refused += 1;
                let text = e.to_string();
                if !text.contains("field `") {
                    failures.push(format!("{label}: refused without naming a field: {text}"));
                }
                continue;
            }
            Ok(Ok(d)) => d,
        };
        accepted += 1;
        let built = catch_unwind(AssertUnwindSafe(|| {
            let layout = Layout::for_design_file(&dir.path().join(i.to_string()), &design);
            let root = layout.root.clone();
            tree::build(&Design::parse(&v.design, &label).expect("parsed once").elaborate(), layout).write().map(|_| root)
        }));
        let root = match built {
            Err(p) => {
                failures.push(format!("{label}: generating panicked: {}", panic_text(p.as_ref())));
                continue;
            }
            Ok(Err(e)) => panic!("{label}: writing the tree: {e}"),
            Ok(Ok(root)) => root,
        };
        if let Err(e) = manifest_round_trip(&design, &root) {
            failures.push(format!("{label}: {e}"));
        }
        let manifest = TreeManifest::load(&root).expect("manifest");
        let ram_shapes = ram_shape_classes(&root);
        for m in &manifest.modules {
            // A module counts once per body and, over stand-ins, per port list of what it
            // instantiates; over its whole hierarchy, per body of everything under it. A RAM
            // wrapper counts once per shape class.
            let key: String = if let Some(class) = ram_shapes.get(&m.name).filter(|_| !whole) {
                class.clone()
            } else if whole {
                manifest.sources(&root, &m.name).iter().map(|p| field_sweep::body(&std::fs::read_to_string(p).expect("module")).to_string()).collect()
            } else {
                let own = field_sweep::body(&std::fs::read_to_string(root.join(&m.file)).expect("module")).to_string();
                let deps: Vec<String> = m.depends.iter().filter_map(|d| manifest.modules.iter().find(|x| &x.name == d)).map(lint::stand_in).collect();
                own + &deps.concat()
            };
            if !whole && m.depends.is_empty() && default_leaves.contains(&leaf_key(&std::fs::read_to_string(root.join(&m.file)).expect("module"), &m.name)) {
                linted_with_the_default_design += 1;
                continue;
            }
            if seen.insert(key) {
                jobs.push(Job { tree: root.clone(), module: m.name.clone(), label: label.clone() });
            }
        }
    }
    let start = std::time::Instant::now();
    let results = parallel_map(&jobs, default_jobs(), |j| {
        let manifest = TreeManifest::load(&j.tree).expect("manifest");
        let scope = if whole { lint::Scope::Hierarchy } else { lint::Scope::Alone(j.tree.join("stand_ins")) };
        let files: Vec<String> = lint::files(&j.tree, &manifest, &j.module, &scope).expect("stand-ins written").iter().map(|p| p.display().to_string()).collect();
        let runs = [lint::verilator(&files, &j.module), lint::icarus(&files, &j.module)];
        runs.into_iter()
            .map(|r| r.expect("verilator and iverilog installed (scripts/setup)"))
            .filter(|r| !r.clean)
            .map(|r| format!("{} ({}) {}:\n{}", j.module, j.label, r.tool, r.output.trim_end()))
            .collect::<Vec<_>>()
    });
    failures.extend(results.into_iter().flatten());
    eprintln!(
        "{accepted} variants generated, {refused} refused with a field error, {} distinct modules linted in {:.0?}, {linted_with_the_default_design} equal to a default-design module (linted by eda_gates)",
        jobs.len(),
        start.elapsed()
    );
    failures.sort();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(accepted >= min_accepted && jobs.len() >= min_modules, "{accepted} variants accepted, {} modules", jobs.len());
}
