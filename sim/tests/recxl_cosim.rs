//! ReCXL (issue 14) co-simulation: the replica map against the one Rust function every model
//! uses (every 16-bit fold value, every failed mask of a few lines, random wide lines), and the
//! logging unit in lockstep with its cycle-accurate model (contract recxl.md §5.2).

mod common;

use common::{bench, TestResult};
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

/// A power-of-two geometry (N = 4, R = 2; N = 16, R = 4) and a short line address (LA = 10 < 16).
#[test]
fn replica_map_other_geometries() -> TestResult {
    for (n, r, a) in [(4, 2, 16), (16, 4, 52), (2, 2, 7)] {
        let toml = format!("[design]\nname = \"m\"\n[[blocks]]\nkind = \"recxl_replica_map\"\nname = \"map\"\nnum_nodes = {n}\nreplicas = {r}\naddr_bits = {a}\n");
        let bench = Bench::from_toml(&toml, "map.toml")?;
        let b = bench.block::<RecxlReplicaMapBlock>("map")?;
        let mut dut = bench.dut("map", Role::ReplicaMap, &format!("replica_map_{n}_{r}_{a}"))?;
        let mut rng = TestRng::from_seed(n as u64 * 100 + r as u64);
        let mut t = Tally::default();
        recxl::check_map(&mut dut, b, 2_000, &mut rng, &mut t)?;
        println!("N = {n}, R = {r}, addr_bits = {a}: {} vectors, {} mismatches", t.vectors, t.mismatches);
        assert_eq!(t.mismatches, 0, "N = {n}, R = {r}: first {:?}", t.first);
    }
    Ok(())
}

/// The map check can fail: a map with slot 1 wired as slot 0 is caught.
#[test]
fn a_broken_replica_map_is_caught() -> TestResult {
    let toml = "[design]\nname = \"m\"\n[[blocks]]\nkind = \"recxl_replica_map\"\nname = \"map\"\nnum_nodes = 4\nreplicas = 2\naddr_bits = 16\n";
    let bench = Bench::from_toml(toml, "map.toml")?;
    let dir = tempdir("broken_map");
    copy_tree(bench.tree().root(), &dir)?;
    let file = dir.join("rtl/m_map.v");
    let text = std::fs::read_to_string(&file)?;
    let broken = text.replace("3'd1}", "3'd0}").replace("2'd1}", "2'd0}");
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

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("recxl_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)? {
        let p = e?.path();
        let dst = to.join(p.file_name().expect("name"));
        if p.is_dir() {
            std::fs::create_dir_all(&dst)?;
            copy_tree(&p, &dst)?;
        } else {
            std::fs::copy(&p, &dst)?;
        }
    }
    Ok(())
}
