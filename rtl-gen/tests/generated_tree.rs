//! The output tree in memory: determinism and the design hash. The tests that run the binary
//! (committed generated/ fresh, `generate`/`check` round trips) are in cli/tests/.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use std::path::Path;

const SMALL: &str = r#"
[design]
name = "small"
reset = "async_low"
clock_mhz = 312.5

[[blocks]]
kind = "crc"
name = "crc16"
width = 16
poly = 0x1021
data_bits = 32
seq_bits = 4
pipeline = 1
"#;

#[test]
fn same_design_same_bytes() {
    let a = tree::build(&Design::builtin_default().elaborate(), Layout::default_design(Path::new("x")));
    let b = tree::build(&Design::builtin_default().elaborate(), Layout::default_design(Path::new("x")));
    assert_eq!(a.files, b.files);
    assert!(a.files.len() >= 20);
    // No timestamps or absolute paths can sneak in.
    for (p, bytes) in &a.files {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(env!("CARGO_MANIFEST_DIR")), "{} holds an absolute path", p.display());
    }
}

#[test]
fn design_hash_ignores_formatting_and_key_order() {
    let reordered = SMALL.replace("width = 16\npoly = 0x1021", "poly = 0x1021 # comment\nwidth = 16");
    let a = Design::parse(SMALL, "a").expect("valid");
    let b = Design::parse(&reordered, "b").expect("valid");
    assert_eq!(a.hash, b.hash);
    let c = Design::parse(&SMALL.replace("data_bits = 32", "data_bits = 40"), "c").expect("valid");
    assert_ne!(a.hash, c.hash);
}
