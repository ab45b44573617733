//! Bad `recxl_replica_map` fields (contract recxl.md §6): each refused with an error naming the
//! block, the field, the value and the allowed range.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

fn map(fields: &str) -> String {
    format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"recxl_replica_map\"\nname = \"m\"\n{fields}\n")
}

#[test]
fn defaults_parse() {
    Design::parse(&map(""), "ok.toml").expect("valid");
}

#[test]
fn replicas_exceed_num_nodes() {
    refused(&map("replicas = 4\nnum_nodes = 3"), &["block `m`", "`replicas`", "= 4 exceeds num_nodes = 3"]);
}

#[test]
fn num_nodes_out_of_range() {
    refused(&map("num_nodes = 0"), &["`num_nodes`", "= 0 is out of range; allowed 2..=256"]);
}

#[test]
fn addr_bits_leave_no_line_address() {
    refused(&map("addr_bits = 5\nline_bytes = 32"), &["`addr_bits`", "allowed 6..=64 for line_bytes = 32"]);
}

/// `rtl-gen list` prints a field's doc and its allowed range: `num_nodes` shows one range, the
/// real one (the doc states no second range), and both of its ends are designs.
#[test]
fn num_nodes_lists_one_range() {
    use rtl_gen::blocks::recxl_replica_map::RecxlReplicaMapKind;
    use rtl_gen::blocks::BlockKind;
    let f = RecxlReplicaMapKind.fields().iter().find(|f| f.name == "num_nodes").expect("num_nodes");
    assert_eq!(f.allowed(), "2..=256");
    assert!(!f.doc.contains("..="), "the doc states a second range: {}", f.doc);
    Design::parse(&map("num_nodes = 2\nreplicas = 2"), "ok.toml").expect("2 nodes");
    Design::parse(&map("num_nodes = 256\nreplicas = 8\naddr_bits = 20"), "ok.toml").expect("256 nodes");
}
