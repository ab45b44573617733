//! Bad design files: each must be refused with an error naming the block, the field, the value
//! and the allowed range, never a panic or silently wrong RTL.

use rtl_gen::config::Design;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn block(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{fields}\n")
}

fn stream(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc_stream\"\nname = \"s\"\n{fields}\n")
}

const GOOD: &str = "width = 32\npoly = 0x04C11DB7\ndata_bits = 72";

/// Parse `text`, expect an error, and check it contains every fragment.
fn refused(text: &str, fragments: &[&str]) {
    let err = Design::parse(text, "bad.toml").expect_err(&format!("accepted a bad design:\n{text}")).to_string();
    for f in fragments {
        assert!(err.contains(f), "error `{err}` does not mention `{f}`\n--- design ---\n{text}");
    }
}

#[test]
fn a_good_design_parses() {
    let d = Design::parse(&block(GOOD), "good.toml").expect("valid");
    assert_eq!(d.info.prefix, "t_");
    assert_eq!(d.blocks.len(), 1);
}

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
fn unknown_kind() {
    refused(&format!("{HEADER}[[blocks]]\nkind = \"crc9000\"\nname = \"x\"\n"), &["block `x`", "`kind`", "crc9000", "crc, crc_stream"]);
}

#[test]
fn duplicate_block_names() {
    let one = format!("[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n");
    refused(&format!("{HEADER}{one}{one}"), &["block `c`", "already used by block #0"]);
}

#[test]
fn module_names_collide_through_suffix() {
    let a = format!("[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n");
    let b = format!("[[blocks]]\nkind = \"crc\"\nname = \"c_check\"\n{GOOD}\n");
    refused(&format!("{HEADER}{a}{b}"), &["t_c_check", "collides"]);
}

#[test]
fn bad_block_name() {
    refused(&format!("{HEADER}[[blocks]]\nkind = \"crc\"\nname = \"My-CRC\"\n{GOOD}\n"), &["block #0", "`name`", "My-CRC", "lower snake case"]);
}

#[test]
fn bad_design_name() {
    refused("[design]\nname = \"9lives\"\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\nwidth = 8\npoly = 7\ndata_bits = 8\n", &["[design]", "`name`", "9lives"]);
}

#[test]
fn bad_reset_style() {
    refused(&format!("[design]\nname = \"t\"\nreset = \"async_high\"\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n"), &["`reset`", "async_high", "sync_high", "async_low"]);
}

#[test]
fn clock_out_of_range() {
    refused(&format!("[design]\nname = \"t\"\nclock_mhz = 0.0\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n"), &["`clock_mhz`", "0", "1..=2000"]);
}

#[test]
fn unknown_design_field() {
    refused(&format!("[design]\nname = \"t\"\nclk = 5\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n"), &["bad.toml", "clk"]);
}

#[test]
fn no_blocks() {
    refused(HEADER, &["no [[blocks]]"]);
}

#[test]
fn toml_syntax_error() {
    refused("[design\nname = 1", &["bad.toml"]);
}

#[test]
fn stream_word_bytes_out_of_range() {
    refused(&stream("width = 32\npoly = 0x04C11DB7\nword_bytes = 129"), &["block `s`", "`word_bytes`", "129", "1..=128"]);
}

#[test]
fn stream_even_polynomial() {
    refused(&stream("width = 8\npoly = 0x06\nword_bytes = 4"), &["block `s`", "`poly`", "0x6", "x^0"]);
}

fn replay(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"replay_buffer\"\nname = \"rb\"\n{fields}\n")
}

#[test]
fn replay_buffer_good() {
    let d = Design::parse(&replay("entry_bits = 64\nseq_bits = 4\ndepth = 15"), "good.toml").expect("valid");
    assert_eq!(d.blocks[0].kind(), "replay_buffer");
}

#[test]
fn replay_depth_exceeds_sequence_space() {
    refused(&replay("entry_bits = 64\nseq_bits = 4\ndepth = 16"), &["block `rb`", "`depth`", "16", "2^seq_bits - 1 = 15", "2..=15"]);
}

#[test]
fn replay_depth_out_of_range() {
    refused(&replay("entry_bits = 64\nseq_bits = 16\ndepth = 5000"), &["block `rb`", "`depth`", "5000", "2..=4096"]);
    refused(&replay("entry_bits = 64\nseq_bits = 4\ndepth = 1"), &["`depth`", "= 1", "2..=4096"]);
}

#[test]
fn replay_seq_bits_out_of_range() {
    refused(&replay("entry_bits = 64\nseq_bits = 1\ndepth = 2"), &["block `rb`", "`seq_bits`", "= 1", "2..=16"]);
}

#[test]
fn replay_entry_bits_missing_or_zero() {
    refused(&replay("seq_bits = 4\ndepth = 8"), &["block `rb`", "`entry_bits`", "required", "1..=16384"]);
    refused(&replay("entry_bits = 0\nseq_bits = 4\ndepth = 8"), &["`entry_bits`", "= 0", "1..=16384"]);
}

#[test]
fn lut6_tree_with_pipeline() {
    refused(&block(&format!("{GOOD}\nxor_style = \"lut6_tree\"\npipeline = 2")), &["block `c`", "`xor_style`", "lut6_tree", "pipeline = 0"]);
}

#[test]
fn unknown_xor_style() {
    refused(&block(&format!("{GOOD}\nxor_style = \"wallace\"")), &["`xor_style`", "wallace", "\"masked\", \"lut6_tree\""]);
}
