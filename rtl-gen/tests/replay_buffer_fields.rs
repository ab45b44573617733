//! Bad `replay_buffer` fields: each refused with an error naming the block, the field, the
//! value and the allowed range.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

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
