//! Every ReCXL field at each end of its legal range (each Boolean both ways), one field at a time
//! from the default design's small blocks: every distinct module is lint-clean in Verilator
//! `-Wall`, Icarus `-g2005` and Yosys. The ends whose modules are large (1,024 rows, 1,024 fetch
//! queries, 256 nodes in a logging unit) are in the opt-in long run (`RTLGEN_LONG=1`).
//! Needs the tools `scripts/setup` installs.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen::tools::{lint, TreeManifest};
use std::collections::BTreeSet;

/// The default design's blocks (rtl-gen/designs/default.toml) without their names.
const LU: &str = "num_nodes = 4\ncores_per_node = 2\nreplicas = 2\naddr_bits = 32\nts_bits = 8\ntag_bits = 4\ncsn_bits = 16\nsram_rows = 16\nhead_reserve = 4\nlog_bytes = 16384\nfetch_queries = 4\ncounter_bits = 16";
const MAP: &str = "num_nodes = 6\nreplicas = 3\naddr_bits = 32";

/// (kind, field overrides, long): each a one-field change of the base block at an end of the
/// field's legal range given the other fields (a second field only where the first needs it).
fn cases() -> Vec<(&'static str, &'static str, bool)> {
    let lu = "recxl_logging_unit";
    let map = "recxl_replica_map";
    vec![
        (lu, "num_nodes = 2", false),
        (lu, "num_nodes = 256", true),
        (lu, "cores_per_node = 1", false),
        (lu, "cores_per_node = 256", false),
        (lu, "replicas = 4", false),
        (lu, "line_bytes = 32", false),
        (lu, "line_bytes = 128", false),
        (lu, "word_bytes = 1", false),
        (lu, "word_bytes = 8", false),
        (lu, "addr_bits = 7", false),
        (lu, "addr_bits = 64", false),
        (lu, "ts_bits = 32", false),
        (lu, "tag_bits = 0", false),
        (lu, "tag_bits = 16", false),
        (lu, "csn_bits = 0", false),
        (lu, "csn_bits = 32", false),
        (lu, "sram_rows = 4", false),
        (lu, "sram_rows = 1024\nts_bits = 12\nlog_bytes = 262144", true),
        (lu, "nack_enable = false", false),
        (lu, "head_reserve = 0", false),
        (lu, "head_reserve = 16", false),
        (lu, "log_bytes = 4096", false),
        (lu, "log_bytes = 1099511627776", false),
        (lu, "log_high_water_pct = 1", false),
        (lu, "log_high_water_pct = 99", false),
        (lu, "free_lag = 0", false),
        (lu, "fetch_queries = 1", false),
        (lu, "fetch_queries = 1024", true),
        (lu, "counter_bits = 64", false),
        (map, "num_nodes = 2\nreplicas = 2", false),
        (map, "num_nodes = 256", false),
        (map, "replicas = 2", false),
        (map, "num_nodes = 8\nreplicas = 8", false),
        (map, "line_bytes = 32\naddr_bits = 6", false),
        (map, "line_bytes = 128", false),
        (map, "addr_bits = 7", false),
        (map, "addr_bits = 64", false),
        (map, "pipeline = 0", false),
        (map, "pipeline = 1", false),
        (map, "num_nodes = 2\nreplicas = 2\npipeline = 1", false),
    ]
}

/// The base block with `overrides` replacing its own lines for the same fields.
fn block_text(kind: &str, overrides: &str) -> String {
    let base = if kind == "recxl_logging_unit" { LU } else { MAP };
    let set: Vec<&str> = overrides.lines().map(|l| l.split('=').next().expect("field").trim()).collect();
    let kept: Vec<&str> = base.lines().filter(|l| !set.contains(&l.split('=').next().expect("field").trim())).collect();
    format!("[design]\nname = \"sweep\"\n[[blocks]]\nkind = \"{kind}\"\nname = \"b\"\n{}\n{overrides}\n", kept.join("\n"))
}

fn sweep(long: bool) {
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    let mut linted = 0;
    for (kind, overrides, is_long) in cases() {
        if is_long != long {
            continue;
        }
        let text = block_text(kind, overrides);
        let design = Design::parse(&text, "sweep.toml").unwrap_or_else(|e| panic!("{kind} {overrides:?} is a legal design: {e}"));
        let dir = tempfile::tempdir().expect("temp dir");
        let layout = Layout::default_design(dir.path());
        let root = layout.root.clone();
        tree::build(&design.elaborate(), layout).write().expect("write tree");
        let manifest = TreeManifest::load(&root).expect("manifest");
        for m in &manifest.modules {
            let body = std::fs::read_to_string(root.join(&m.file)).expect("module file");
            // Distinct modules only (the banner differs by parameters, the body may not).
            let body = body.split("`default_nettype none").nth(1).unwrap_or(&body).to_string();
            if !seen.insert(body) {
                continue;
            }
            linted += 1;
            for r in lint::lint_module(&root, &manifest, &m.name).expect("tools installed (scripts/setup)") {
                if !r.clean {
                    failures.push(format!("{kind} {overrides:?}: {} {}:\n{}", r.tool, r.module, r.output));
                }
            }
        }
    }
    println!("{linted} distinct modules linted");
    assert!(linted > 0);
    assert!(failures.is_empty(), "lint failures:\n{}", failures.join("\n"));
}

#[test]
fn every_recxl_field_end_is_lint_clean() {
    sweep(false);
}

#[test]
#[ignore = "large modules (1,024 rows or queries, 256 nodes); RTLGEN_LONG=1 with --run-ignored"]
fn every_recxl_field_end_is_lint_clean_long() {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        sweep(true);
    }
}
