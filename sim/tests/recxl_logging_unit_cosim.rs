//! `recxl_logging_unit` co-simulation: the unit in lockstep with its cycle-accurate model
//! (contract recxl.md §5.2), the paper-exact settings, and the contract's three defects caught
//! in the model and (opt-in) in the RTL.

mod common;

use common::{bench, copy_tree, TestResult};
use rtl_gen::config::Design;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::Tally;
use rtl_gen_sim::{Bench, TestRng};
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

const SIX_SOURCES: &str = r#"
[design]
name = "six"
[[blocks]]
kind = "recxl_logging_unit"
name = "lu"
num_nodes = 6
cores_per_node = 1
replicas = 2
addr_bits = 24
word_bytes = 8
ts_bits = 8
tag_bits = 2
csn_bits = 16
sram_rows = 16
log_bytes = 4096
fetch_queries = 2
counter_bits = 16
"#;

/// Six sources: the release pick compares the candidates of sources 0–3 and of 4–5 in two
/// groups by their registered E comparisons, and the group winners in a tournament; lockstep
/// holds under random and heavy load.
#[test]
fn logging_unit_six_sources_two_pick_groups() -> TestResult {
    let bench = Bench::from_toml(SIX_SOURCES, "six.toml")?;
    let mut dut = bench.dut("lu", Role::LoggingUnit, "logging_unit_six_sources_two_pick_groups")?;
    for (i, sc) in [LuScenario { cycles: 3_000, ..Default::default() }, LuScenario { load: 0.8, fail_at: None, cycles: 2_000, ..Default::default() }].iter().enumerate() {
        let (rep, t) = lu_run(&bench, "lu", &mut dut, sc, Mutation::None, 31 + i as u64)?;
        println!("six sources: {} cycles, {} REPLs, {} records, {} epochs, {} mismatches", rep.cycles, rep.repls, rep.records, rep.epochs, t.mismatches);
        assert_eq!(t.mismatches, 0, "first {:?}", t.first);
        assert!(rep.records > 0);
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
        let tmp = tempfile::tempdir()?;
        let dir = tmp.path().to_path_buf();
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
