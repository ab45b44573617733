//! Bad `recxl_logging_unit` fields (contract recxl.md §6): each refused with an error naming the
//! block, the field, the value and the allowed range.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

fn lu(fields: &str) -> String {
    format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"recxl_logging_unit\"\nname = \"lu\"\n{fields}\n")
}

#[test]
fn defaults_parse() {
    Design::parse(&lu(""), "ok.toml").expect("the contract defaults are valid");
}

#[test]
fn replicas_exceed_num_nodes() {
    refused(&lu("replicas = 4\nnum_nodes = 3"), &["block `lu`", "recxl_logging_unit", "`replicas`", "= 4 exceeds num_nodes = 3", "a replica group is replicas distinct CNs", "2..=min(8, num_nodes) = 2..=3"]);
}

#[test]
fn one_replica_tolerates_nothing() {
    refused(&lu("replicas = 1"), &["`replicas`", "= 1 tolerates no CN failure", "paper §IV-B", "allowed 2..=min(8, num_nodes)"]);
}

#[test]
fn num_nodes_out_of_range() {
    refused(&lu("num_nodes = 1"), &["`num_nodes`", "= 1 is out of range; allowed 2..=256", "ReCXL needs at least 2 compute nodes"]);
    refused(&lu("num_nodes = 300"), &["`num_nodes`", "= 300", "allowed 2..=256"]);
}

#[test]
fn word_bytes_must_divide_the_line() {
    refused(&lu("word_bytes = 3"), &["`word_bytes`", "= 3 must be one of 1, 2, 4, 8 and divide line_bytes = 64"]);
    refused(&lu("word_bytes = 16"), &["`word_bytes`", "= 16 must be one of 1, 2, 4, 8"]);
}

#[test]
fn ts_bits_too_narrow_for_the_rows() {
    refused(&lu("ts_bits = 8\nsram_rows = 128"), &["`ts_bits`", "= 8 is too narrow for sram_rows = 128", "2^(ts_bits−1) > sram_rows", "ts_bits >= 9"]);
    refused(&lu("ts_bits = 7\nsram_rows = 128"), &["`ts_bits`", "= 7", "8..=32"]);
}

#[test]
fn addr_bits_leave_no_line_address() {
    refused(&lu("addr_bits = 6"), &["`addr_bits`", "= 6 leaves no line-address bits (allowed 7..=64 for line_bytes = 64)"]);
}

#[test]
fn sram_rows_power_of_two() {
    refused(&lu("sram_rows = 48"), &["`sram_rows`", "= 48 must be a power of two in 4..=1024"]);
}

#[test]
fn log_bytes_multiple_and_capacity() {
    refused(&lu("log_bytes = 10000"), &["`log_bytes`", "= 10000 must be a multiple of 64 and hold at least sram_rows × words per line = 2048 records (32768 bytes with 16-byte records)"]);
}

#[test]
fn gzip_is_not_in_rtl() {
    refused(&lu("compression = \"gzip\""), &["`compression`", "\"gzip\" is not implemented in RTL", "§IV-E", "allowed: \"none\""]);
}

#[test]
fn csn_and_head_reserve_ranges() {
    refused(&lu("csn_bits = 8"), &["`csn_bits`", "= 8", "0 (paper-exact, H2) or 16..=32"]);
    refused(&lu("head_reserve = 200"), &["`head_reserve`", "= 200 exceeds sram_rows = 128"]);
}

/// `rtl-gen list` prints a field's doc and its allowed range: `num_nodes` shows one range, the
/// real one (the doc states no second range).
#[test]
fn num_nodes_lists_one_range() {
    use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitKind;
    use rtl_gen::blocks::BlockKind;
    let f = RecxlLoggingUnitKind.fields().iter().find(|f| f.name == "num_nodes").expect("num_nodes");
    assert_eq!(f.allowed(), "2..=256");
    assert!(!f.doc.contains("..="), "the doc states a second range: {}", f.doc);
}
