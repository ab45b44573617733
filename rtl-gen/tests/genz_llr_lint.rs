//! `genz_llr` at non-default settings: every field at each end of its range (and the
//! combinations those ends need) emits a module that is lint-clean in Verilator `-Wall`,
//! Icarus and Yosys. Needs the tools `scripts/setup` installs.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen::tools::lint;

/// One block per setting: (name, fields).
const SETTINGS: [(&str, &str); 18] = [
    ("g_beat4_min_packet", "data_bytes = 4\nmax_packet_bytes = 4\nretry_bytes = 4\nretry_packets = 1\necrc_check = false"),
    ("g_max_packet", "max_packet_bytes = 4096\nretry_bytes = 8192\nretry_packets = 2"),
    ("g_vcs1", "vcs = 1"),
    ("g_vcs3", "vcs = 3"),
    ("g_vcs4", "vcs = 4\nrx_credits = 255\nack_every = 255"),
    ("g_credits1", "rx_credits = 1\nack_every = 1"),
    ("g_slots1", "retry_packets = 1"),
    ("g_slots3", "retry_packets = 3"),
    ("g_slots65535", "max_packet_bytes = 8\nretry_bytes = 524280\nretry_packets = 65535"),
    ("g_retry_bytes_max", "retry_bytes = 16777216"),
    ("g_upc1", "ui_per_cycle = 1\ninit_interval_ui = 1\ndiscard_interval_ui = 1\nllrt_ui = 1"),
    ("g_upc_max", "ui_per_cycle = 65536\ninit_interval_ui = 4294967296\ndiscard_interval_ui = 65536\nllrt_ui = 1099511627776"),
    ("g_discard_limit1", "discard_limit = 1"),
    ("g_discard_limit_max", "discard_limit = 65535"),
    ("g_counter1", "counter_bits = 1"),
    ("g_counter64", "counter_bits = 64"),
    ("g_no_ecrc", "ecrc_check = false"),
    ("g_one_beat_packets", "max_packet_bytes = 8\nretry_bytes = 8\nretry_packets = 1\nvcs = 1\nrx_credits = 1\nack_every = 1"),
];

#[test]
fn every_edge_setting_is_lint_clean() {
    let mut text = String::from("[design]\nname = \"genz_edges\"\n");
    for (name, fields) in SETTINGS {
        text.push_str(&format!("[[blocks]]\nkind = \"genz_llr\"\nname = \"{name}\"\n{fields}\n"));
    }
    let design = Design::parse(&text, "genz_edges.toml").expect("every setting is legal");
    let dir = tempfile::tempdir().expect("temp dir");
    let layout = Layout::for_design_file(dir.path(), &design);
    let root = layout.root.clone();
    tree::build(&design.elaborate(), layout).write().expect("write tree");
    let results = lint::lint_tree(&root).expect("tools installed (scripts/setup)");
    let failures: Vec<String> = results.iter().filter(|r| !r.clean).map(|r| format!("{} {}:\n{}", r.tool, r.module, r.output)).collect();
    assert!(failures.is_empty(), "lint failures:\n{}", failures.join("\n"));
    let linted: std::collections::BTreeSet<&str> = results.iter().map(|r| r.module.as_str()).collect();
    for (name, _) in SETTINGS {
        assert!(linted.iter().any(|m| m.ends_with(name)), "{name} not linted");
    }
}
