//! `recxl_replica_map` co-simulation: the map against the one Rust function every model uses
//! (every 16-bit fold value, every failed mask of a few lines, random wide lines), at several
//! geometries and every `pipeline` setting, and a broken map caught.

mod common;

use common::{bench, copy_tree, TestResult};
use rtl_gen::blocks::recxl_replica_map::RecxlReplicaMapBlock;
use rtl_gen::config::Design;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::{recxl, Tally};
use rtl_gen_sim::{Bench, TestRng};

#[test]
fn replica_map_matches_the_rust_function() -> TestResult {
    let bench = bench();
    let b = bench.block::<RecxlReplicaMapBlock>("recxl_map")?;
    let mut dut = bench.dut("recxl_map", Role::ReplicaMap, "replica_map_matches_the_rust_function")?;
    let mut rng = TestRng::for_test("replica_map_matches_the_rust_function")?;
    let mut t = Tally::default();
    recxl::check_map(&mut dut, b, 20_000, &mut rng, &mut t)?;
    println!("recxl_map: {} vectors, {} mismatches", t.vectors, t.mismatches);
    assert!(t.vectors > 65_536 + 20_000);
    assert_eq!(t.mismatches, 0, "first: {:?}", t.first);
    Ok(())
}

/// Power-of-two geometries (N = 4, R = 2; N = 16, R = 4; the modulo is the low bits), others
/// (N = 5, R = 3; N = 12, R = 5; N = 200, R = 8: the residue tables and their sum) and short
/// line addresses (LA = 7, 10 < 16), at every `pipeline` setting (0 combinational, 1, 2).
#[test]
fn replica_map_other_geometries() -> TestResult {
    for (n, r, a, p) in [(4, 2, 16, 0), (16, 4, 52, 1), (2, 2, 7, 2), (5, 3, 20, 0), (12, 5, 33, 1), (200, 8, 10, 2)] {
        let toml = format!("[design]\nname = \"m\"\n[[blocks]]\nkind = \"recxl_replica_map\"\nname = \"map\"\nnum_nodes = {n}\nreplicas = {r}\naddr_bits = {a}\npipeline = {p}\n");
        let bench = Bench::from_toml(&toml, "map.toml")?;
        let b = bench.block::<RecxlReplicaMapBlock>("map")?;
        let mut dut = bench.dut("map", Role::ReplicaMap, &format!("replica_map_{n}_{r}_{a}"))?;
        let mut rng = TestRng::from_seed(n as u64 * 100 + r as u64);
        let mut t = Tally::default();
        recxl::check_map(&mut dut, b, 2_000, &mut rng, &mut t)?;
        println!("N = {n}, R = {r}, addr_bits = {a}, pipeline = {p}: {} vectors, {} mismatches", t.vectors, t.mismatches);
        assert_eq!(t.mismatches, 0, "N = {n}, R = {r}: first {:?}", t.first);
    }
    Ok(())
}

/// The map check can fail: a map with slot 1 wired as slot 0 is caught.
#[test]
fn a_broken_replica_map_is_caught() -> TestResult {
    let toml = "[design]\nname = \"m\"\n[[blocks]]\nkind = \"recxl_replica_map\"\nname = \"map\"\nnum_nodes = 4\nreplicas = 2\naddr_bits = 16\n";
    let bench = Bench::from_toml(toml, "map.toml")?;
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().to_path_buf();
    copy_tree(bench.tree().root(), &dir)?;
    let file = dir.join("rtl/m_map.v");
    let text = std::fs::read_to_string(&file)?;
    let broken = text.replace("+ 3'd1;", "+ 3'd0;");
    assert_ne!(broken, text, "mutation applied");
    std::fs::write(&file, broken)?;
    let bad = Bench::with_tree(Design::parse(toml, "map.toml")?, &dir)?;
    let b = bad.block::<RecxlReplicaMapBlock>("map")?;
    let mut dut = bad.dut("map", Role::ReplicaMap, "broken_map")?;
    let mut t = Tally::default();
    recxl::check_map(&mut dut, b, 100, &mut TestRng::from_seed(3), &mut t)?;
    assert!(t.mismatches > 0, "the broken map was not caught");
    Ok(())
}
