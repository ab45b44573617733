//! `crc_stream` fields: bad ones refused with an error naming the block, the field, the value
//! and what is allowed; the one-byte form's polynomial freedom.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn stream(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc_stream\"\nname = \"s\"\n{fields}\n")
}

#[test]
fn stream_word_bytes_out_of_range() {
    refused(&stream("width = 32\npoly = 0x04C11DB7\nword_bytes = 129"), &["block `s`", "`word_bytes`", "129", "1..=128"]);
}

#[test]
fn stream_even_polynomial() {
    refused(&stream("width = 8\npoly = 0x06\nword_bytes = 4"), &["block `s`", "`poly`", "0x6", "x^0"]);
}

/// A `crc_stream` of one-byte beats has no padding to undo, so any polynomial works, even ones
/// without the x^0 term (which word_bytes > 1 refuses); its 1-bit `in_keep` is a scalar.
#[test]
fn stream_of_single_bytes_takes_an_even_polynomial() {
    let d = Design::parse(&stream("width = 8\npoly = 0x06\nword_bytes = 1"), "s.toml").expect("valid");
    let e = d.elaborate();
    let text = e.modules[0].module.render();
    assert!(!text.contains("in_keep["), "a 1-bit in_keep indexed:\n{text}");
}
