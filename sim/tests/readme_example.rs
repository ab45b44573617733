//! The own-design example at the top of sim/README.md, compiled and run: the README's first
//! ```rust block must be this test's body, line for line.

const README: &str = include_str!("../README.md");
const THIS: &str = include_str!("readme_example.rs");

/// The lines between the first ```rust fence of `text` and its closing fence.
fn first_rust_block(text: &str) -> Vec<&str> {
    text.lines().skip_while(|l| l.trim() != "```rust").skip(1).take_while(|l| l.trim() != "```").collect()
}

#[test]
fn readme_example_is_this_test() {
    let readme = first_rust_block(README);
    assert!(readme.len() <= 20, "the README example is at most 20 lines ({})", readme.len());
    let body: Vec<&str> = THIS.lines().skip_while(|l| l.trim() != "// BEGIN README EXAMPLE").skip(1).take_while(|l| l.trim() != "// END README EXAMPLE").map(|l| l.strip_prefix("    ").unwrap_or(l)).collect();
    assert_eq!(readme, body, "sim/README.md's example and this test drifted apart");
}

#[test]
fn readme_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    // BEGIN README EXAMPLE
    use rtl_gen::hw::module::Role;
    use rtl_gen_sim::{cosim, Bench};

    let toml = r#"
[design]
name = "mine"
[[blocks]]
kind = "crc"
name = "crc16"
width = 16
poly = "0x1021"
data_bits = 32
"#;
    let bench = Bench::from_toml(toml, "mine.toml")?; // writes target/bench/mine/, cached build
    let crc = bench.module("crc16", Role::Crc)?; // modules by block and typed role
    let outcome = cosim::module(&bench, crc, &cosim::Options { vectors: 5_000, seed: 1 })?;
    outcome.check()?; // a mismatch names module, cycle, port, values and seed
    println!("{outcome}");
    // END README EXAMPLE
    assert_eq!(outcome.vectors, 5_000 + 2 + 32, "random, zeros, ones and walking ones");
    Ok(())
}
