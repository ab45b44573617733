//! Every legal design is lint-clean, not only the default one: each kind's fields, one at a time,
//! to each end of their range and to every enumerated value (the variants of
//! `support/field_sweep.rs`, from the kind registry). Each variant is either refused with a
//! field error (never a panic) or elaborated, written as a tree whose manifest rebuilds the same
//! blocks, and every distinct module (identical bodies once) passes Verilator `--lint-only
//! -Wall` and Icarus `-g2005`. Every failure is listed at once. Needs the tools `scripts/setup`
//! installs.
//!
//! The default run sweeps the kinds whose variants lint in seconds; the flit-size and
//! system-size kinds ([`LONG_KINDS`]: each variant re-lints a 256-byte-flit FEC decoder or a
//! whole endpoint) run with `RTLGEN_LONG=1`.

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
/// `params()` prints that its field cannot read back breaks `rtl-gen sim cosim` on that tree.
fn manifest_round_trip(design: &Design, root: &std::path::Path) -> Result<(), String> {
    let json = std::fs::read_to_string(root.join("manifest.json")).map_err(|e| e.to_string())?;
    let back = Design::from_manifest(&json, "manifest.json").map_err(|e| format!("the manifest does not read back: {e}"))?;
    for (a, b) in design.blocks.iter().zip(&back.blocks) {
        if a.params() != b.params() {
            return Err(format!("block {} reads back with other parameters: {:?} vs {:?}", a.name(), a.params(), b.params()));
        }
    }
    Ok(())
}

/// Kinds swept only with `RTLGEN_LONG=1`.
const LONG_KINDS: &[&str] = &["rs_fec", "rxl_endpoint", "rxl_switch", "sue_endpoint", "sue_transport", "recxl_logging_unit", "genz_llr"];

#[test]
fn every_one_field_variant_is_refused_clearly_or_lint_clean() {
    sweep(&|k| !LONG_KINDS.contains(&k), 80, 100);
}

#[test]
#[ignore = "long: the flit-size and system-size kinds; RTLGEN_LONG=1"]
fn every_one_field_variant_of_the_large_kinds_is_refused_clearly_or_lint_clean() {
    assert!(std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1"), "set RTLGEN_LONG=1");
    sweep(&|k| LONG_KINDS.contains(&k), 50, 50);
}

/// Sweep the kinds `kinds` accepts; at least `min_accepted` variants must generate and
/// `min_modules` distinct modules be linted (the sweep reaches far).
fn sweep(kinds: &dyn Fn(&str) -> bool, min_accepted: usize, min_modules: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
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
        for m in &manifest.modules {
            let key: String = manifest.sources(&root, &m.name).iter().map(|p| field_sweep::body(&std::fs::read_to_string(p).expect("module")).to_string()).collect();
            if seen.insert(key) {
                jobs.push(Job { tree: root.clone(), module: m.name.clone(), label: label.clone() });
            }
        }
    }
    let start = std::time::Instant::now();
    let results = parallel_map(&jobs, default_jobs(), |j| {
        let manifest = TreeManifest::load(&j.tree).expect("manifest");
        let files: Vec<String> = manifest.sources(&j.tree, &j.module).iter().map(|p| p.display().to_string()).collect();
        let runs = [lint::verilator(&files, &j.module), lint::icarus(&files, &j.module)];
        runs.into_iter()
            .map(|r| r.expect("verilator and iverilog installed (scripts/setup)"))
            .filter(|r| !r.clean)
            .map(|r| format!("{} ({}) {}:\n{}", j.module, j.label, r.tool, r.output.trim_end()))
            .collect::<Vec<_>>()
    });
    failures.extend(results.into_iter().flatten());
    eprintln!("{accepted} variants generated, {refused} refused with a field error, {} distinct modules linted in {:.0?}", jobs.len(), start.elapsed());
    failures.sort();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(accepted >= min_accepted && jobs.len() >= min_modules, "{accepted} variants accepted, {} modules", jobs.len());
}
