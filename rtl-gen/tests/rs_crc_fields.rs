//! Bad `rs_crc` fields: each refused with an error naming the block, the field, the value and
//! the allowed range.

#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn rs_crc(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rs_crc\"\nname = \"rc\"\n{fields}\n")
}

#[test]
fn rs_crc_non_primitive_field_poly() {
    refused(&rs_crc("field_poly = 0x11B\ndata_bytes = 242"), &["block `rc`", "`field_poly`", "0x11B", "not primitive"]);
}

#[test]
fn rs_crc_data_too_long_for_the_field() {
    refused(&rs_crc("data_bytes = 248"), &["block `rc`", "`data_bytes`", "248", "255", "1..=247"]);
    refused(&rs_crc("data_bytes = 242\nfirst_root = 255"), &["`first_root`", "255", "0..=254"]);
}

#[test]
fn rs_crc_orientation_and_seq_bits() {
    refused(&rs_crc("data_bytes = 242\norientation = \"middle\""), &["`orientation`", "middle", "\"msb_first\", \"lsb_first\""]);
    refused(&rs_crc("data_bytes = 1\nseq_bits = 10"), &["`seq_bits`", "10", "0..=8"]);
    refused(&rs_crc("seq_bits = 10"), &["`data_bytes`", "required"]);
    refused(&rs_crc("symbol_bits = 10\nfield_poly = 0x409\ndata_bytes = 100\nbit_order = \"burst_optimal\""), &["`bit_order`", "burst_optimal", "symbol_bits = 8", "\"lsb0\", \"msb0\""]);
}
