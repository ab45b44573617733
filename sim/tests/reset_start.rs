//! Reset in the middle of traffic and random initial values, per family and per reset style:
//! a CRC stream, a replay buffer, a RIFL node, a Gen-Z LLR interface, a SUE transport and a
//! ReCXL replica map (pipelined), each once with `rst` (sync_high) and once with `rst_n`
//! (async_low, the block's own `reset` field), and the default design's two styles of RXL
//! endpoint. Each module's co-simulation driver resets the
//! module and its model and compares every output from there on; the bench makes the module
//! start either in the middle of random traffic with the reset asserted in it (for `rst_n`
//! between clock edges) or from random register and memory contents. A replay buffer with one
//! register dropped from its reset branch passes from zero contents and is caught by both.

mod common;

use common::{copy_tree, TestResult};
use rtl_gen::config::Design;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::{self, Options, Outcome};
use rtl_gen_sim::{Bench, Start};

const DESIGN: &str = r#"
[design]
name = "rst"

[[blocks]]
kind = "crc_stream"
name = "crcs"
width = 16
poly = 0x1021
word_bytes = 4

[[blocks]]
kind = "crc_stream"
name = "crcs_n"
reset = "async_low"
width = 16
poly = 0x1021
word_bytes = 4

[[blocks]]
kind = "replay_buffer"
name = "replay"
entry_bits = 16
seq_bits = 4
depth = 8

[[blocks]]
kind = "replay_buffer"
name = "replay_n"
reset = "async_low"
entry_bits = 16
seq_bits = 4
depth = 8

[[blocks]]
kind = "rifl"
name = "rifl"
frame_bits = 128
user_bits = 64

[[blocks]]
kind = "rifl"
name = "rifl_n"
reset = "async_low"
frame_bits = 128
user_bits = 64

[[blocks]]
kind = "genz_llr"
name = "genz"
retry_bytes = 512
retry_packets = 8

[[blocks]]
kind = "genz_llr"
name = "genz_n"
reset = "async_low"
retry_bytes = 512
retry_packets = 8

[[blocks]]
kind = "sue_transport"
name = "sue"
data_bytes = 16
cmd_bytes = 16
max_pack_bytes = 64
num_xpu = 2

[[blocks]]
kind = "sue_transport"
name = "sue_n"
reset = "async_low"
data_bytes = 16
cmd_bytes = 16
max_pack_bytes = 64
num_xpu = 2

[[blocks]]
kind = "recxl_replica_map"
name = "map"
num_nodes = 4
replicas = 2
addr_bits = 16
pipeline = 2

[[blocks]]
kind = "recxl_replica_map"
name = "map_n"
reset = "async_low"
num_nodes = 4
replicas = 2
addr_bits = 16
pipeline = 2
"#;

/// The top module of each family, by block and role.
const TOPS: &[(&str, Role)] = &[
    ("crcs", Role::CrcStream),
    ("replay", Role::Replay),
    ("rifl", Role::Node),
    ("genz", Role::Interface),
    ("sue", Role::SueTransport),
    ("map", Role::ReplicaMap),
];

fn opts() -> Options {
    Options { vectors: 400, seed: 11 }
}

/// Co-simulates block `block`'s module `role` under `start` and returns the outcome.
fn run(bench: &mut Bench, block: &str, role: Role, start: Start) -> Result<Outcome, Box<dyn std::error::Error>> {
    bench.set_start(start);
    let m = bench.module(block, role)?.clone();
    Ok(cosim::module(bench, &m, &opts())?)
}

/// Every family in both styles: its reset port is the one its block asks for.
fn check_styles(bench: &Bench) {
    for &(block, role) in TOPS {
        for (b, port) in [(block.to_string(), "rst"), (format!("{block}_n"), "rst_n")] {
            let m = bench.module(&b, role).expect("module");
            let reset = bench.tree().module(m.name()).expect("manifest entry").reset.clone().expect("a reset");
            assert_eq!(reset.name, port, "{}", m.name());
        }
    }
}

#[test]
fn every_family_matches_its_model_after_a_reset_in_the_middle_of_traffic() -> TestResult {
    let mut bench = Bench::from_toml(DESIGN, "rst.toml")?;
    check_styles(&bench);
    let mut outcomes = Vec::new();
    for &(block, role) in TOPS {
        for b in [block.to_string(), format!("{block}_n")] {
            for seed in [1, 2] {
                outcomes.push(run(&mut bench, &b, role, Start::reset_in_traffic(64 + 37 * seed as u32, seed))?);
            }
        }
    }
    print!("{}", cosim::table(&outcomes));
    for o in &outcomes {
        o.check()?;
        assert!(o.vectors > 0, "{o}");
    }
    Ok(())
}

#[test]
fn every_family_matches_its_model_from_random_initial_values() -> TestResult {
    let mut bench = Bench::from_toml(DESIGN, "rst.toml")?;
    let mut outcomes = Vec::new();
    for &(block, role) in TOPS {
        for b in [block.to_string(), format!("{block}_n")] {
            for seed in [1, 0xC0FFEE, 77] {
                outcomes.push(run(&mut bench, &b, role, Start::random(seed))?);
            }
        }
    }
    print!("{}", cosim::table(&outcomes));
    for o in &outcomes {
        o.check()?;
        assert!(o.vectors > 0, "{o}");
    }
    Ok(())
}

/// The replay buffer with `tail_q` (the next push's sequence number) left out of its reset
/// branch, in both styles: from zero contents the bug is invisible (the register starts at its
/// reset value), after a reset in traffic or from random contents the pushes are numbered wrong.
#[test]
fn a_register_missing_from_the_reset_branch_is_caught() -> TestResult {
    let bench = Bench::from_toml(DESIGN, "rst.toml")?;
    let dir = tempfile::tempdir()?;
    copy_tree(bench.tree().root(), dir.path())?;
    let mut planted = Vec::new();
    for block in ["replay", "replay_n"] {
        let name = bench.module(block, Role::Replay)?.name().to_string();
        let file = dir.path().join(format!("rtl/{name}.v"));
        let text = std::fs::read_to_string(&file)?;
        let branch = text.find("if (rst) begin").or_else(|| text.find("if (!rst_n) begin")).expect("a reset branch");
        let line = branch + text[branch..].find("            tail_q <= ").expect("tail_q in the reset branch");
        let end = line + text[line..].find('\n').expect("line end") + 1;
        std::fs::write(&file, format!("{}{}", &text[..line], &text[end..]))?;
        planted.push(name);
    }
    let mut broken = Bench::with_tree(Design::parse(DESIGN, "rst.toml")?, dir.path())?;
    let mut differing = broken.differing_modules();
    differing.sort();
    assert_eq!(differing, planted);
    for block in ["replay", "replay_n"] {
        let clean = run(&mut broken, block, Role::Replay, Start::default())?;
        assert!(clean.passed(), "from zero contents the missing reset is invisible: {clean}");
        let in_traffic = run(&mut broken, block, Role::Replay, Start::reset_in_traffic(50, 3))?;
        let random = run(&mut broken, block, Role::Replay, Start::random(5))?;
        print!("{}", cosim::table(&[clean, in_traffic.clone(), random.clone()]));
        for o in [in_traffic, random] {
            assert!(o.mismatches > 0, "the register missing from the reset is caught: {o}");
            let err = o.check().expect_err("caught").to_string();
            assert!(err.contains(&o.module) && err.contains("seed"), "{err}");
        }
    }
    Ok(())
}

/// The RXL endpoint (256-byte flits, FEC, flit CRC, replay buffer) in both styles, after a
/// reset in traffic and from random contents: the default design's `rxl_ep` (`rst`) and
/// `rxl_ep_alt` (its own `reset = "async_low"`: `rst_n`), whose models the endpoint tests build
/// too.
#[test]
fn the_rxl_endpoint_matches_its_model_after_a_reset_in_traffic_and_from_random_values() -> TestResult {
    let mut outcomes = Vec::new();
    let mut bench = Bench::default_design()?;
    for (block, port) in [("rxl_ep", "rst"), ("rxl_ep_alt", "rst_n")] {
        let m = bench.module(block, Role::Endpoint)?;
        assert_eq!(bench.tree().module(m.name())?.reset.as_ref().map(|r| r.name.as_str()), Some(port), "{block}");
        for start in [Start::reset_in_traffic(80, 1), Start::random(1), Start::random(2)] {
            outcomes.push(run(&mut bench, block, Role::Endpoint, start)?);
        }
    }
    print!("{}", cosim::table(&outcomes));
    for o in &outcomes {
        o.check()?;
        assert!(o.vectors > 0, "{o}");
    }
    Ok(())
}
