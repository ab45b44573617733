//! `cosim` on a user's own design: a CRC (with checker), a replay buffer and two RS FECs (t = 1
//! combinational, t = 2 pipelined) generated from TOML, co-simulated against their models; the
//! same tree with one XOR changed in the CRC file fails, naming the module; the tree alone
//! (design rebuilt from its manifest) passes.

use rtl_gen::config::Design;
use rtl_gen_sim::cosim::{self, Options};
use rtl_gen_sim::Bench;
use std::path::Path;

const DESIGN: &str = r#"
[design]
name = "own"
prefix = "own_"

[[blocks]]
kind = "crc"
name = "crc16"
width = 16
poly = "0x1021"
init = "0xFFFF"
data_bits = 64

[[blocks]]
kind = "replay_buffer"
name = "replay"
entry_bits = 40
seq_bits = 5
depth = 12

[[blocks]]
kind = "rs_fec"
name = "fec"
ways = 2
msg_bytes = 32

[[blocks]]
kind = "rs_fec"
name = "fec_t2"
field_poly = "0x11D"
check_symbols = 4
msg_bytes = 24
pipeline = 2
"#;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn opts() -> Options {
    Options { vectors: 3_000, seed: 7 }
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walk(from)? {
        let rel = entry.strip_prefix(from).expect("under the root");
        let dst = to.join(rel);
        std::fs::create_dir_all(dst.parent().expect("parent"))?;
        std::fs::copy(&entry, dst)?;
    }
    Ok(())
}

fn walk(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            out.extend(walk(&p)?);
        } else {
            out.push(p);
        }
    }
    Ok(out)
}

#[test]
fn an_own_design_passes_and_a_changed_xor_is_caught_by_name() -> TestResult {
    let bench = Bench::from_toml(DESIGN, "own.toml")?;
    let outcomes = cosim::run(&bench, None, &opts(), &mut |_| {})?;
    print!("{}", cosim::table(&outcomes));
    let names: Vec<&str> = outcomes.iter().map(|o| o.module.as_str()).collect();
    assert_eq!(names, ["own_crc16", "own_crc16_check", "own_replay", "own_fec_enc", "own_fec_dec", "own_fec_t2_enc", "own_fec_t2_dec"]);
    for o in &outcomes {
        o.check()?;
        assert!(o.vectors >= 3_000, "{o}");
        assert!(!o.differs_from_design, "{o}");
    }

    // One XOR changed in the CRC generator: the first shared XOR node (the default
    // `lut6_shared` style) loses its first operand.
    let dir = tempfile::tempdir()?;
    copy_tree(bench.tree().root(), dir.path())?;
    let file = dir.path().join("rtl/own_crc16.v");
    let text = std::fs::read_to_string(&file)?;
    let node = "assign crc_n1[0] = ";
    let at = text.find(node).expect("a shared XOR node") + node.len();
    let operand = text[at..].find(" ^ ").expect("a 2-input node at least") + " ^ ".len();
    std::fs::write(&file, format!("{}{}", &text[..at], &text[at + operand..]))?;

    let broken = Bench::with_tree(Design::parse(DESIGN, "own.toml")?, dir.path())?;
    assert_eq!(broken.differing_modules(), ["own_crc16"], "only the edited file differs");
    let outcomes = cosim::run(&broken, None, &opts(), &mut |_| {})?;
    print!("{}", cosim::table(&outcomes));
    let crc = outcomes.iter().find(|o| o.module == "own_crc16").expect("crc row");
    assert!(crc.mismatches > 0 && crc.differs_from_design, "{crc}");
    let err = crc.check().expect_err("the changed XOR is caught").to_string();
    assert!(err.contains("own_crc16") && err.contains("port `crc`") && err.contains("seed"), "{err}");
    for o in outcomes.iter().filter(|o| o.module != "own_crc16") {
        o.check()?;
    }

    // The tree alone: the models come from its manifest.
    let alone = Bench::from_tree(bench.tree().root())?;
    assert_eq!(alone.design().blocks.len(), 4);
    for o in cosim::run(&alone, Some("fec_t2"), &Options { vectors: 500, seed: 3 }, &mut |_| {})? {
        o.check()?;
    }
    Ok(())
}

#[test]
fn every_module_of_the_default_design_has_a_driver() -> TestResult {
    let bench = Bench::default_design()?;
    for m in &bench.elab().modules {
        assert!(cosim::driver(m.kind, m.role).is_some(), "{} ({} {}) has no co-simulation driver", m.name(), m.kind, m.role);
    }
    Ok(())
}

/// Yosys `synth -flatten` + `write_verilog` of `module` from `tree`, written over its file.
fn synthesize_in_place(tree: &Path, module: &str) -> TestResult {
    let file = tree.join(format!("rtl/{module}.v"));
    let deps: Vec<String> = walk(&tree.join("rtl"))?.iter().filter(|p| p.extension().is_some_and(|e| e == "v")).map(|p| format!("read_verilog {}", p.display())).collect();
    let script = format!("{}; synth -flatten -top {module}; write_verilog -noattr {}", deps.join("; "), file.display());
    let out = std::process::Command::new("yosys").args(["-q", "-p", &script]).output()?;
    assert!(out.status.success(), "yosys on {module}: {}", String::from_utf8_lossy(&out.stderr));
    Ok(())
}

/// A post-synthesis netlist with the same ports (Yosys `write_verilog`) is checked against the
/// model like the generated file: the CRC (combinational) and the replay buffer (clocked, its
/// memory mapped to flip-flops) pass, and are reported as differing from the design.
#[test]
fn a_yosys_netlist_passes_against_the_model() -> TestResult {
    let bench = Bench::from_toml(DESIGN, "own.toml")?;
    let dir = tempfile::tempdir()?;
    copy_tree(bench.tree().root(), dir.path())?;
    for m in ["own_crc16", "own_replay"] {
        synthesize_in_place(dir.path(), m)?;
        let text = std::fs::read_to_string(dir.path().join(format!("rtl/{m}.v")))?;
        assert!(text.contains("Generated by Yosys"), "{m} is a Yosys netlist now");
    }
    let netlist = Bench::with_tree(Design::parse(DESIGN, "own.toml")?, dir.path())?;
    assert_eq!(netlist.differing_modules(), ["own_crc16", "own_replay"]);
    for block in ["crc16", "replay"] {
        let outcomes = cosim::run(&netlist, Some(block), &Options { vectors: 2_000, seed: 5 }, &mut |_| {})?;
        print!("{}", cosim::table(&outcomes));
        for o in &outcomes {
            o.check()?;
            assert!(o.vectors >= 2_000, "{o}");
            assert_eq!(o.differs_from_design, o.module != "own_crc16_check", "{o}");
        }
    }
    Ok(())
}
