//! Asynchronous FIFOs in Verilator on two unrelated clocks against the two-clock model
//! (`cosim::async_fifo::FifoTwin`): every output compared after every edge, at 1:1 with ±200 ppm,
//! 1:3.7 and 4:1, each at a random phase, under random write/read bursts that fill and drain the
//! FIFO; a scoreboard over the RTL's own flags checks no word is lost, duplicated, reordered or
//! changed. The flag latencies the module docs state are measured on the RTL, and a model with
//! one synchronizer stage more than the RTL is shown to be caught. `RTLGEN_LONG=1` runs a million
//! edges per clock pair with jitter.

mod common;

use common::{scaled, TestResult};
use rtl_gen::blocks::async_fifo::model::AsyncFifoModel;
use rtl_gen::blocks::async_fifo::AsyncFifoBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::clocks::Edge;
use rtl_gen_sim::cosim::async_fifo::{clock_pairs, FifoTwin, RD, WR};
use rtl_gen_sim::{Bench, TestRng};

/// Three shapes: the wide FWFT form, a registered output with 3-flop synchronizers at an odd
/// width, the smallest FIFO (2 words) with 4-flop synchronizers. Asynchronous active-low resets
/// (the ASIC norm; the default design covers the synchronous ones).
const DESIGN: &str = r#"
[design]
name = "cdc"
prefix = "cdc_"
reset = "async_low"

[[blocks]]
kind = "async_fifo"
name = "wide"
width = 64
depth = 16

[[blocks]]
kind = "async_fifo"
name = "reg_out"
width = 13
depth = 8
sync_stages = 3
registered_output = true

[[blocks]]
kind = "async_fifo"
name = "tiny"
width = 8
depth = 2
sync_stages = 4
"#;

const BLOCKS: [&str; 3] = ["wide", "reg_out", "tiny"];

fn bench() -> Bench {
    Bench::from_toml(DESIGN, "cdc.toml").expect("the CDC design generates")
}

fn twin(bench: &Bench, name: &str, test: &str) -> Result<(AsyncFifoBlock, FifoTwin), Box<dyn std::error::Error>> {
    let b: AsyncFifoBlock = bench.block::<AsyncFifoBlock>(name)?.clone();
    let t = FifoTwin::new(&b, bench.dut(name, Role::AsyncFifo, test)?)?;
    Ok((b, t))
}

fn run_all(edges: u64, jitter_fs: u64, test: &str) -> TestResult {
    let bench = bench();
    let mut rng = TestRng::for_test(test)?;
    for name in BLOCKS {
        let (b, mut t) = twin(&bench, name, test)?;
        for (label, clocks) in clock_pairs(&mut rng) {
            let before = t.counts;
            t.run(clocks.map(|c| c.with_jitter(jitter_fs)), edges, &mut rng)?;
            let c = t.counts;
            let (writes, refused, starved) = (c.writes - before.writes, c.refused - before.refused, c.starved - before.starved);
            println!("{name} {label}: {writes} words, {refused} writes refused while full, {starved} reads while empty, seed {:#x}", rng.seed());
            t.check()?;
            assert_eq!(t.outstanding(), 0, "{name} {label}: words never read back");
            assert_eq!(c.writes, c.reads, "{name} {label}");
            assert!(writes > edges / 100, "{name} {label}: too few words moved ({writes})");
            assert!(refused > 0 && starved > 0, "{name} {label}: full and empty both reached");
            assert!(t.tally().vectors >= edges / 2, "{name} {label}: outputs compared at every rising edge");
        }
        assert_eq!(t.model().depth(), b.depth);
    }
    Ok(())
}

#[test]
fn every_clock_ratio_matches_the_model_and_loses_no_word() -> TestResult {
    run_all(scaled(6_000) as u64, 0, "async_fifo_ratios")
}

#[test]
#[ignore = "a million edges per clock pair and block: RTLGEN_LONG=1"]
fn every_clock_ratio_a_million_edges_with_jitter() -> TestResult {
    run_all(1_000_000, 20_000, "async_fifo_ratios_long")
}

/// What the module docs state: a write makes rd_empty fall sync_stages + 1 read edges later, a
/// read of a full FIFO makes wr_full fall sync_stages + 1 write edges later (edges of the two
/// clocks alternating, none coincident).
#[test]
fn flag_latencies_are_sync_stages_plus_one_edges_on_the_rtl() -> TestResult {
    let bench = bench();
    let mut rng = TestRng::for_test("async_fifo_latency")?;
    for name in BLOCKS {
        let (b, mut t) = twin(&bench, name, "async_fifo_latency")?;
        let edge = |clock, rising| Edge { time_fs: 0, clock, rising };
        t.idle(6, &mut rng)?;
        t.edge(edge(WR, true), true, &mut rng)?;
        t.edge(edge(WR, false), false, &mut rng)?;
        let mut rd_edges = 0;
        while t.rtl("rd_empty")? == 1 {
            t.edge(edge(RD, true), false, &mut rng)?;
            t.edge(edge(RD, false), false, &mut rng)?;
            rd_edges += 1;
            assert!(rd_edges < 10, "{name}: rd_empty never fell");
        }
        assert_eq!(rd_edges, b.flag_latency(), "{name}: write to rd_empty falling, in rd_clk edges");
        // Fill it, let both sides settle, read once: wr_full falls sync_stages + 1 write edges later.
        while t.rtl("wr_full")? == 0 {
            t.edge(edge(WR, true), true, &mut rng)?;
            t.edge(edge(WR, false), false, &mut rng)?;
        }
        t.idle(6, &mut rng)?;
        t.edge(edge(RD, true), true, &mut rng)?;
        t.edge(edge(RD, false), false, &mut rng)?;
        let mut wr_edges = 0;
        while t.rtl("wr_full")? == 1 {
            t.edge(edge(WR, true), false, &mut rng)?;
            t.edge(edge(WR, false), false, &mut rng)?;
            wr_edges += 1;
            assert!(wr_edges < 10, "{name}: wr_full never fell");
        }
        assert_eq!(wr_edges, b.flag_latency(), "{name}: read to wr_full falling, in wr_clk edges");
        t.check()?;
    }
    Ok(())
}

/// The comparison can fail: against a model with one synchronizer stage more than the RTL (the
/// RTL one stage short of what the model says), the flags differ within the first bursts.
#[test]
fn a_synchronizer_stage_short_of_the_model_is_caught() -> TestResult {
    let bench = bench();
    let mut rng = TestRng::for_test("async_fifo_stage_short")?;
    let b: AsyncFifoBlock = bench.block::<AsyncFifoBlock>("wide")?.clone();
    let model = AsyncFifoModel::new(b.width, b.depth, b.sync_stages + 1, b.registered_output);
    let mut t = FifoTwin::with_model(&b, bench.dut("wide", Role::AsyncFifo, "async_fifo_stage_short")?, model)?;
    let (_, clocks) = clock_pairs(&mut rng).remove(2);
    t.run(clocks, 2_000, &mut rng)?;
    let err = t.check().expect_err("a model one stage longer than the RTL must disagree");
    println!("caught: {err}");
    assert!(t.tally().mismatches > 0);
    assert_eq!(t.order_errors, 0, "the RTL itself still delivers every word in order");
    Ok(())
}
