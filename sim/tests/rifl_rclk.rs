//! RIFL nodes with `clocking = "recovered"` in Verilator on unrelated clocks, one evaluation per
//! edge (`rtl_gen_sim::clocks`): two nodes whose clocks are 100 ppm fast and 100 ppm slow (200
//! ppm apart), each lane's recovered clock the far end's clock after the channel delay, several
//! cycles of lane skew and a bounded jitter, bit errors on the way, random packets both ways:
//! every packet delivered exactly once, in order and bit-exact, and every CDC FIFO stays as
//! shallow as the compensation guarantees. The same run without compensation overflows the
//! slower node's CDC FIFO. The transceiver-width form (`gt_bits`) runs the same link at the word
//! rate with each lane's bit stream delayed by its own number of bits. The parts (`_rxcdc`,
//! `_comp`, `_align`, `_gtx`) are compared with their edge-by-edge models. `RTLGEN_LONG=1` runs
//! a million frames per direction.

mod common;

use common::{scaled, TestResult};
use rtl_gen::blocks::rifl::model::rxcdc::CDC_DEPTH;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::campaign::rifl::rclk::{RclkLink, RclkNode, RclkSetup};
use rtl_gen_sim::cosim::{self, Options};
use rtl_gen_sim::{Bench, TestRng};
use std::time::Instant;

/// One lane and four lanes (the shapes of the default design's rifl and rifl4) with
/// compensation, one lane without; asynchronous active-low resets for the four-lane node; two
/// lanes in the transceiver-width form (64-bit words, R = 4).
const DESIGN: &str = r#"
[design]
name = "rclk"
prefix = "rclk_"
reset = "sync_high"
clock_mhz = 250.0

[[blocks]]
kind = "rifl"
name = "one"
frame_bits = 256
user_bits = 256
clocking = "recovered"

[[blocks]]
kind = "rifl"
name = "four"
frame_bits = 256
user_bits = 1024
lanes = 4
clocking = "recovered"
reset = "async_low"

[[blocks]]
kind = "rifl"
name = "gt"
frame_bits = 256
user_bits = 512
lanes = 2
clocking = "recovered"
gt_bits = 64

[[blocks]]
kind = "rifl"
name = "nocomp"
frame_bits = 256
user_bits = 256
clocking = "recovered"
compensation = false
"#;

/// The deepest a CDC FIFO gets with compensation: the read side's view of a write (3 clk
/// edges) and the write side's view of a read (3 rx_clk edges) in flight, the compensation's
/// reaction (4 free_clk edges + 3 clk edges at a 2.5:1 clock ratio) and sampling noise.
const COMPENSATED_LEVEL: u64 = 10;

fn bench() -> Bench {
    Bench::from_toml(DESIGN, "rclk.toml").expect("the recovered-clock design generates")
}

fn setup(packets: u64, max_len: usize, ber: f64) -> RclkSetup {
    RclkSetup { mhz: 250.0, ppm: [-100.0, 100.0], free_mhz: 100.0, delay: 30, skew: 6, skew_bits: 777, jitter_fs: 150_000, ber, packets, min_len: 1, max_len }
}

fn link(bench: &Bench, block: &str, s: RclkSetup, test: &str) -> Result<RclkLink, Box<dyn std::error::Error>> {
    let mut rng = TestRng::for_test(test)?;
    let a = RclkNode::from_bench(bench, block, &format!("{test}_a"))?;
    let b = RclkNode::from_bench(bench, block, &format!("{test}_b"))?;
    Ok(RclkLink::new(a, b, s, &mut rng)?)
}

fn report(name: &str, l: &RclkLink, secs: f64) {
    println!(
        "{name}: {} / {} clk cycles in {secs:.1} s; packets {}+{}; bits flipped {}+{}; deepest CDC FIFO a {:?} b {:?}",
        l.cycles[0],
        l.cycles[1],
        l.flows[0].delivered_packets,
        l.flows[1].delivered_packets,
        l.flipped()[0],
        l.flipped()[1],
        l.nodes[0].max_level,
        l.nodes[1].max_level
    );
}

/// Random packets both ways over a link 200 ppm apart; every packet exactly once and the CDC
/// FIFOs shallow.
fn delivers(block: &str, packets: u64, max_len: usize, ber: f64) -> TestResult {
    let bench = bench();
    let test = format!("rifl_rclk_{block}");
    let mut l = link(&bench, block, setup(packets, max_len, ber), &test)?;
    let t = Instant::now();
    l.run(50_000_000).map_err(|e| format!("{block}: {e}"))?;
    report(block, &l, t.elapsed().as_secs_f64());
    for (side, n) in ["a", "b"].iter().zip(&l.nodes) {
        assert!(!n.overflowed()?, "{block} node {side}: a CDC FIFO overflowed");
        for (k, &m) in n.max_level.iter().enumerate() {
            assert!(m <= COMPENSATED_LEVEL, "{block} node {side} lane {k}: CDC FIFO level {m} > {COMPENSATED_LEVEL}");
        }
    }
    if ber > 0.0 {
        assert!(l.flipped().iter().sum::<u64>() > 0, "the run is long enough to see bit errors");
    }
    Ok(())
}

#[test]
fn one_lane_delivers_every_packet_across_200_ppm_with_bit_errors() -> TestResult {
    // About 3.5 * 10^4 frames per direction; with RTLGEN_LONG=1 about 1.1 * 10^6 (packets of
    // 4 KiB on average, 30 payload bytes per frame).
    let packets = if scaled(1) == 1 { 160 } else { 8000 };
    delivers("one", packets, 8192, 1e-6)
}

#[test]
fn four_skewed_lanes_deliver_every_packet_across_200_ppm_with_bit_errors() -> TestResult {
    delivers("four", scaled(60) as u64, 8192, 1e-6)
}

/// The transceiver-width form: each lane's bit stream delayed by its own number of bits (up to
/// 777, so every lane's frame boundary sits at some bit of its 64-bit words), the fast TX
/// clocks 4 x clk, lane skew, jitter, bit errors: every packet exactly once, in order,
/// bit-exact, after both ends' Lane Aligners found the frames.
#[test]
fn the_gt_width_form_delivers_every_packet_with_bit_skewed_lanes() -> TestResult {
    delivers("gt", scaled(8) as u64, 4096, 1e-6)
}

/// Long bursts one way (node a's clock is the faster) until node b's CDC FIFO would have
/// overflowed twice over without compensation: with it, the level stays low; without it, the
/// FIFO overflows.
#[test]
fn compensation_keeps_the_slower_end_s_fifo_shallow_and_without_it_it_overflows() -> TestResult {
    let bench = bench();
    // 200 ppm: one entry gained per 5000 frames; the FIFO holds CDC_DEPTH.
    let frames = 5000 * (CDC_DEPTH as u64 + 4);
    let bytes = 30 * frames as usize;
    for (block, compensated) in [("one", true), ("nocomp", false)] {
        let test = format!("rifl_rclk_burst_{block}");
        let mut l = link(&bench, block, setup(1, bytes, 0.0), &test)?;
        l.flows[0].min_len = bytes;
        l.flows[1].to_send = 0;
        let t = Instant::now();
        let result = l.run(frames * 3);
        report(block, &l, t.elapsed().as_secs_f64());
        let overflowed = l.nodes[1].overflowed()?;
        if compensated {
            result.map_err(|e| format!("{block}: {e}"))?;
            assert!(!overflowed);
            assert!(l.nodes[1].max_level[0] <= COMPENSATED_LEVEL, "level {:?}", l.nodes[1].max_level);
        } else {
            assert!(overflowed, "without compensation node b's CDC FIFO must overflow (deepest {:?})", l.nodes[1].max_level);
            assert!(result.is_err(), "an overflow loses data: the scoreboard must see it");
        }
    }
    Ok(())
}

/// The recovered-clock parts against their models on unrelated clocks.
#[test]
fn rx_cdc_and_clock_comp_match_their_models() -> TestResult {
    let bench = bench();
    let opts = Options { vectors: 5000, ..Options::default() };
    for (block, role) in [("one", Role::RxCdc), ("one", Role::ClockComp), ("four", Role::RxCdc), ("four", Role::ClockComp), ("gt", Role::ClockComp)] {
        let m = bench.module(block, role)?;
        let o = cosim::module(&bench, m, &opts)?;
        println!("{block} {role}: {} vectors, {} mismatches", o.vectors, o.mismatches);
        o.check()?;
    }
    Ok(())
}

/// The transceiver-width parts against their models: the Lane Aligner at every bit offset of
/// the frame boundary and with faults, the TX GT width converter at every start phase.
#[test]
fn the_lane_aligner_and_the_gt_width_converter_match_their_models() -> TestResult {
    let bench = bench();
    let opts = Options { vectors: 5000, ..Options::default() };
    for role in [Role::LaneAligner, Role::GtTxWidth] {
        let m = bench.module("gt", role)?;
        let o = cosim::module(&bench, m, &opts)?;
        println!("gt {role}: {} vectors, {} mismatches", o.vectors, o.mismatches);
        o.check()?;
    }
    Ok(())
}
