//! ReCXL co-simulation: the replica map against the one Rust function every model
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
    let dir = tempdir("broken_map");
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

// ---- logging unit ------------------------------------------------------------------------------

use rtl_gen::blocks::recxl_logging_unit::model::Mutation;
use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitBlock;
use rtl_gen_sim::cosim::recxl::{lu_lockstep, LuReport, LuScenario};

fn lu_run(bench: &Bench, block: &str, dut: &mut rtl_gen_sim::Dut, sc: &LuScenario, mutation: Mutation, seed: u64) -> Result<(LuReport, Tally), Box<dyn std::error::Error>> {
    let b = bench.block::<RecxlLoggingUnitBlock>(block)?;
    let mut rng = TestRng::from_seed(seed);
    let mut t = Tally::default();
    let rep = lu_lockstep(dut, b, b.model().with_mutation(mutation), sc, &mut rng, &mut t)?;
    Ok((rep, t))
}

/// The default design's unit in lockstep with its model under the §5.2 stimulus classes:
/// random traffic with reordered VALs and a failure + quiesce + fetch batches; rows exhausted
/// and NACKs (heavy load); log full (no commits); TS wrap (long run); dump overflow (a region
/// of 3 beats); orphan, duplicate and out-of-window VALs throughout.
#[test]
fn logging_unit_lockstep() -> TestResult {
    let bench = bench();
    let mut dut = bench.dut("recxl_lu", Role::LoggingUnit, "logging_unit_lockstep")?;
    let scenarios = [
        ("random + failure", LuScenario::default()),
        ("heavy load (rows exhausted, NACKs)", LuScenario { load: 0.9, jitter: 30, per_core: 6, p_head: 0.1, fail_at: None, cycles: 3_000, ..Default::default() }),
        ("log full (no commits)", LuScenario { load: 0.3, p_commit: 0.0, p_start: 0.001, fail_at: None, cycles: 3_000, ..Default::default() }),
        ("TS wrap (long)", LuScenario { cycles: 12_000, fail_at: Some(9_000), ..Default::default() }),
        ("dump overflow", LuScenario { dump_beats: 3, p_start: 0.02, fail_at: Some(1_500), cycles: 2_500, ..Default::default() }),
        ("dump overflow, new regions", LuScenario { dump_beats: 4, new_region_on_overflow: true, load: 0.015, p_start: 0.02, p_commit: 0.2, fail_at: Some(3_500), cycles: 6_000, ..Default::default() }),
        ("slow ports", LuScenario { p_ready: 0.3, ..Default::default() }),
    ];
    let mut totals = (0u64, 0u64, 0u64);
    for (i, (name, sc)) in scenarios.iter().enumerate() {
        let (rep, t) = lu_run(&bench, "recxl_lu", &mut dut, sc, Mutation::None, 11 + i as u64)?;
        println!("{name}: {} cycles, {} REPLs, {} NACKs, {} VALs, {} records, {} beats, {} epochs, {} fetch beats / {} batches; {} mismatches", rep.cycles, rep.repls, rep.nacks, rep.vals, rep.records, rep.beats, rep.epochs, rep.fetch_beats, rep.fetch_batches, t.mismatches);
        assert_eq!(t.mismatches, 0, "{name}: first {:?}", t.first);
        assert_eq!(rep.order_violations, 0, "{name}: records of one source out of commit order");
        assert!(rep.records > 0 && rep.repls > 0, "{name}: no traffic");
        // `records dumped` counts exactly the records of the data beats written.
        assert_eq!(rep.counter_dumped, rep.records_in_beats, "{name}: records dumped counter");
        if name.starts_with("dump overflow") {
            assert!(rep.overflows > 0, "{name}: the region never overflowed");
            println!("  {} overflows, {} new regions, {} epochs committed after the first overflow", rep.overflows, rep.regions, rep.epochs_after_overflow);
        }
        if *name == "dump overflow, new regions" {
            // Overflow, then more traffic, a failure, quiesce and fetches: epochs keep committing.
            assert!(rep.regions > 0 && rep.epochs_after_overflow >= 3, "{name}: the unit did not leave the overflow");
            assert!(rep.fetch_beats > 0, "{name}: the recovery never quiesced the unit (no fetch answered)");
        }
        if name.starts_with("TS wrap") {
            // The log fills and drains again through dump epochs (head == tail when full).
            let lr = bench.block::<RecxlLoggingUnitBlock>("recxl_lu")?.lr();
            assert!(rep.records > 2 * lr, "only {} records through a {lr}-record log", rep.records);
        }
        totals.0 += rep.nacks;
        totals.1 += rep.fetch_beats;
        totals.2 += rep.epochs;
    }
    println!("totals: {} NACKs, {} fetch beats, {} epochs", totals.0, totals.1, totals.2);
    assert!(totals.0 > 0 && totals.1 > 0 && totals.2 > 0, "a corner was not reached: {totals:?}");
    Ok(())
}

/// The three mutation checks of contract §5.2: a unit that releases in arrival order, one that
/// frees a row on REPL_ACK, one that ignores free_lag. Each is the model with that one defect
/// run in lockstep against the (correct) RTL: every one must be caught.
#[test]
fn logging_unit_mutations_are_caught() -> TestResult {
    let bench = bench();
    let mut dut = bench.dut("recxl_lu", Role::LoggingUnit, "logging_unit_mutations_are_caught")?;
    for m in [Mutation::ArrivalOrder, Mutation::FreeOnAck, Mutation::IgnoreFreeLag] {
        let sc = LuScenario { cycles: 3_000, fail_at: None, p_start: 0.01, p_commit: 0.1, ..Default::default() };
        let (_, t) = lu_run(&bench, "recxl_lu", &mut dut, &sc, m, 5)?;
        println!("{m:?}: {} mismatches, first {:?}", t.mismatches, t.first);
        assert!(t.mismatches > 0, "mutation {m:?} was not caught");
    }
    Ok(())
}

const PAPER_EXACT: &str = r#"
[design]
name = "px"
[[blocks]]
kind = "recxl_logging_unit"
name = "lu"
num_nodes = 2
cores_per_node = 1
replicas = 2
addr_bits = 24
word_bytes = 8
ts_bits = 8
tag_bits = 0
csn_bits = 0
nack_enable = false
free_lag = 0
sram_rows = 8
log_bytes = 2048
fetch_queries = 2
counter_bits = 16
"#;

/// The paper-exact settings in one unit (tag_bits = 0, csn_bits = 0, nack_enable = false,
/// free_lag = 0) with N = 2, R = 2, word_bytes = 8 (REC = 128, 8 words per line): lockstep
/// holds, and with one transaction per core at a time no VAL match is ambiguous.
#[test]
fn logging_unit_paper_exact_settings() -> TestResult {
    let bench = Bench::from_toml(PAPER_EXACT, "px.toml")?;
    let mut dut = bench.dut("lu", Role::LoggingUnit, "logging_unit_paper_exact_settings")?;
    for (i, sc) in [LuScenario::default(), LuScenario { load: 0.8, fail_at: None, ..Default::default() }].iter().enumerate() {
        let (rep, t) = lu_run(&bench, "lu", &mut dut, sc, Mutation::None, 21 + i as u64)?;
        println!("paper-exact: {} cycles, {} REPLs, {} records, {} epochs, {} mismatches", rep.cycles, rep.repls, rep.records, rep.epochs, t.mismatches);
        assert_eq!(t.mismatches, 0, "first {:?}", t.first);
        assert!(rep.records > 0);
        assert!(rep.epochs > 0, "no epoch committed");
    }
    Ok(())
}

/// The same three mutations made in the RTL (the generator's `rtl::Mutation`), each run against
/// the correct model: every one is caught. Three extra Verilator builds, so opt-in.
#[test]
#[ignore = "three extra Verilator builds; run with --run-ignored"]
fn logging_unit_rtl_mutations_are_caught() -> TestResult {
    use rtl_gen::blocks::recxl_logging_unit::rtl::{module, Mutation as RtlMutation};
    let toml = std::fs::read_to_string(common::workspace().join("rtl-gen/designs/default.toml"))?;
    let bench = bench();
    let b = bench.block::<RecxlLoggingUnitBlock>("recxl_lu")?.clone();
    for m in [RtlMutation::ArrivalOrder, RtlMutation::FreeOnAck, RtlMutation::IgnoreFreeLag] {
        let dir = tempdir(&format!("lu_{m:?}"));
        copy_tree(bench.tree().root(), &dir)?;
        let design = Design::parse(&toml, "default.toml")?;
        let g = module(&b, &design.info, "rtlgen_recxl_lu", m);
        std::fs::write(dir.join("rtl/rtlgen_recxl_lu.v"), format!("`default_nettype none\n\n{}\n`default_nettype wire\n", g.module.render()))?;
        let bad = Bench::with_tree(design, &dir)?;
        let mut dut = bad.dut("recxl_lu", Role::LoggingUnit, &format!("lu_rtl_{m:?}"))?;
        let sc = LuScenario { cycles: 3_000, fail_at: None, p_start: 0.01, p_commit: 0.1, ..Default::default() };
        let (_, t) = lu_run(&bad, "recxl_lu", &mut dut, &sc, Mutation::None, 5)?;
        println!("RTL {m:?}: {} mismatches, first {:?}", t.mismatches, t.first);
        assert!(t.mismatches > 0, "RTL mutation {m:?} was not caught");
    }
    Ok(())
}
