//! Bad `crc` fields: each refused with an error naming the block, the field, the value and
//! the allowed range, never a panic.

#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn block(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{fields}\n")
}

const GOOD: &str = "width = 32\npoly = 0x04C11DB7\ndata_bits = 72";

#[test]
fn width_out_of_range() {
    refused(&block("width = 65\npoly = 1\ndata_bits = 8"), &["block `c`", "`width`", "65", "1..=64"]);
}

#[test]
fn width_zero() {
    refused(&block("width = 0\npoly = 1\ndata_bits = 8"), &["`width`", "= 0", "1..=64"]);
}

#[test]
fn poly_wider_than_width() {
    refused(&block("width = 8\npoly = 0x1D5\ndata_bits = 8"), &["block `c`", "`poly`", "0x1D5", "0..=0xFF (8 bits)"]);
}

#[test]
fn poly_not_a_number() {
    refused(&block("width = 8\npoly = \"0xG7\"\ndata_bits = 8"), &["`poly`", "\"0xG7\"", "not a number"]);
}

#[test]
fn poly_zero() {
    refused(&block("width = 8\npoly = 0\ndata_bits = 8"), &["`poly`", "0x0", "0x1..=0xFF"]);
}

#[test]
fn data_bits_not_byte_multiple() {
    refused(&block("width = 32\npoly = 0x04C11DB7\ndata_bits = 70"), &["`data_bits`", "70", "multiple of 8"]);
}

#[test]
fn data_bits_too_large() {
    refused(&block("width = 32\npoly = 0x04C11DB7\ndata_bits = 16392"), &["`data_bits`", "16392", "8..=16384"]);
}

#[test]
fn seq_bits_out_of_range() {
    refused(&block(&format!("{GOOD}\nseq_bits = 33")), &["`seq_bits`", "33", "0..=32"]);
}

#[test]
fn seq_bits_wider_than_message() {
    refused(&block("width = 8\npoly = 7\ndata_bits = 8\nseq_bits = 10"), &["`seq_bits`", "10", "data_bits = 8", "0..=8"]);
}

#[test]
fn unknown_field() {
    refused(&block(&format!("{GOOD}\npolynomial = 5")), &["block `c`", "`polynomial`", "not a field of kind crc", "poly"]);
}

#[test]
fn missing_required_field() {
    refused(&block("width = 32\npoly = 0x04C11DB7"), &["block `c`", "`data_bits`", "required", "8..=16384"]);
}

#[test]
fn wrong_type_for_bool() {
    refused(&block(&format!("{GOOD}\nrefin = \"yes\"")), &["`refin`", "\"yes\"", "true or false"]);
}

#[test]
fn negative_init() {
    refused(&block(&format!("{GOOD}\ninit = -1")), &["`init`", "-1", "negative"]);
}

#[test]
fn pipeline_too_deep() {
    refused(&block(&format!("{GOOD}\npipeline = 9")), &["`pipeline`", "9", "0..=8"]);
}

#[test]
fn lut6_tree_with_pipeline() {
    refused(&block(&format!("{GOOD}\nxor_style = \"lut6_tree\"\npipeline = 2")), &["block `c`", "`xor_style`", "lut6_tree", "pipeline = 0"]);
}

#[test]
fn xor_window_narrower_than_a_lut() {
    refused(&block(&format!("{GOOD}\nxor_window = 5")), &["block `c`", "`xor_window`", "= 5", "0 (whole input) or 6..=16384"]);
}

#[test]
fn xor_window_too_wide() {
    refused(&block(&format!("{GOOD}\nxor_window = 16385")), &["`xor_window`", "16385", "0..=16384"]);
}

#[test]
fn xor_window_without_a_shared_network() {
    refused(&block(&format!("{GOOD}\nxor_style = \"masked\"\nxor_window = 0")), &["`xor_window`", "lut6_shared", "\"masked\""]);
    refused(&block(&format!("{GOOD}\npipeline = 1\nxor_window = 128")), &["`xor_window`", "pipeline = 0", "got 1"]);
}

#[test]
fn unknown_xor_style() {
    refused(&block(&format!("{GOOD}\nxor_style = \"wallace\"")), &["`xor_style`", "wallace", "\"masked\", \"lut6_tree\""]);
}
