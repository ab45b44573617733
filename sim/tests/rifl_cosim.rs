//! Every sub-module of the default design's RIFL blocks in Verilator against the model, cycle by
//! cycle, through the co-simulation drivers (`rtl_gen_sim::cosim::rifl`): the CRC, the frame
//! encoder and checker, the scrambler pair, one lane's transmitter (all six states, the
//! retransmission procedure, flow-control frames), one lane's receiver (Listing 1, the control
//! monitor, out of sync), the flow-control buffer and both gearboxes. Each test also asserts
//! what its stimulus reached, so that a quiet run cannot pass for a thorough one.

use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::{self, rifl, Options, Tally};
use rtl_gen_sim::{Bench, TestRng};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `RTLGEN_LONG=1` multiplies the default amounts by ten.
fn scaled(n: u64) -> u64 {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        10 * n
    } else {
        n
    }
}

/// `n` random vectors or cycles (the stimulus stream is the test's `TestRng`).
fn vectors(n: u64) -> Options {
    Options { vectors: scaled(n), ..Options::default() }
}

/// No output differed, and something was compared.
fn clean(t: &Tally, what: &str, rng: &TestRng) -> TestResult {
    println!("{what}: {} vectors, {} cycles, {} mismatches", t.vectors, t.cycles, t.mismatches);
    if t.mismatches == 0 && t.vectors > 0 {
        return Ok(());
    }
    Err(format!("{what}: {} mismatches in {} vectors; first: {:?}; {}", t.mismatches, t.vectors, t.first, rng.replay_hint()).into())
}

#[test]
fn every_rifl_module_has_a_driver() -> TestResult {
    let bench = Bench::default_design()?;
    for block in ["rifl", "rifl4"] {
        let modules = bench.elab().modules_of(block);
        assert_eq!(modules.len(), 13, "{block}: node, ten sub-modules and two RAM wrappers (retransmission buffer, flow-control FIFO)");
        for m in modules {
            assert!(cosim::driver(m.kind, m.role).is_some(), "{}: no driver for ({}, {})", m.name(), m.kind, m.role);
        }
    }
    Ok(())
}

#[test]
fn codec_modules_match_the_model() -> TestResult {
    let bench = Bench::default_design()?;
    for name in ["rifl", "rifl4"] {
        let mut rng = TestRng::for_test(&format!("rifl_codec_{name}"))?;
        let opts = vectors(20_000);
        let t = rifl::frame_crc(&bench, bench.module(name, Role::FrameCrc)?, &opts, &mut rng)?;
        clean(&t, &format!("{name} frame CRC"), &rng)?;
        let t = rifl::frame_encode(&bench, bench.module(name, Role::FrameEncode)?, &opts, &mut rng)?;
        clean(&t, &format!("{name} frame encoder"), &rng)?;
        let (t, s) = rifl::frame_check_run(&bench, bench.module(name, Role::FrameCheck)?, &opts, &mut rng)?;
        clean(&t, &format!("{name} frame checker"), &rng)?;
        let n = opts.vectors;
        assert!(s.accepted > n / 4 && s.rejected > n / 4, "{name}: {} accepted, {} rejected", s.accepted, s.rejected);
    }
    Ok(())
}

#[test]
fn scramblers_match_the_model() -> TestResult {
    let bench = Bench::default_design()?;
    let mut rng = TestRng::for_test("rifl_scramblers")?;
    let t = rifl::scrambler(&bench, bench.module("rifl", Role::Scrambler)?, &vectors(20_000), &mut rng)?;
    clean(&t, "rifl scrambler", &rng)?;
    let t = rifl::descrambler(&bench, bench.module("rifl", Role::Descrambler)?, &vectors(20_000), &mut rng)?;
    clean(&t, "rifl descrambler", &rng)
}

#[test]
fn tx_lane_matches_the_model() -> TestResult {
    let bench = Bench::default_design()?;
    let mut rng = TestRng::for_test("rifl_tx_lane")?;
    let (t, s) = rifl::tx_run(&bench, bench.module("rifl", Role::Tx)?, &vectors(60_000), &mut rng)?;
    clean(&t, "rifl TX lane", &rng)?;
    assert_eq!(s.states, 6, "every TX state visited: {s:?}");
    assert!(s.retrans_starts >= 5 && s.user_segments > 1000, "{} procedures, {} user segments", s.retrans_starts, s.user_segments);
    Ok(())
}

#[test]
fn rx_lane_matches_the_model() -> TestResult {
    let bench = Bench::default_design()?;
    let mut rng = TestRng::for_test("rifl_rx_lane")?;
    let (t, s) = rifl::rx_run(&bench, bench.module("rifl", Role::Rx)?, &vectors(80_000), &mut rng)?;
    clean(&t, "rifl RX lane", &rng)?;
    assert!(s.delivered > 5000 && s.corrupted > 50 && s.failed > 500, "{} delivered, {} corrupted, {} failed", s.delivered, s.corrupted, s.failed);
    Ok(())
}

#[test]
fn fifo_matches_the_model() -> TestResult {
    let bench = Bench::default_design()?;
    let mut rng = TestRng::for_test("rifl_fifo")?;
    let (t, s) = rifl::fifo_run(&bench, bench.module("rifl", Role::Fifo)?, &vectors(60_000), &mut rng)?;
    clean(&t, "rifl flow-control buffer", &rng)?;
    assert!(s.overflows > 0, "the test must reach a full buffer");
    assert!(s.high_cycles > 1000 && s.low_cycles > 1000, "{s:?}");
    Ok(())
}

#[test]
fn gearboxes_match_the_model() -> TestResult {
    let bench = Bench::default_design()?;
    let mut rng = TestRng::for_test("rifl_gearboxes")?;
    for name in ["rifl", "rifl4"] {
        for role in [Role::TxGear, Role::RxGear] {
            let m = bench.module(name, role)?;
            let (t, s) = rifl::gear_run(&bench, m, &vectors(20_000), &mut rng)?;
            clean(&t, m.name(), &rng)?;
            assert!(s.packets > 100 && s.beats > 1000, "{}: {} beats, {} packets", m.name(), s.beats, s.packets);
        }
    }
    Ok(())
}

/// Gearboxes the default design does not have: RIFL(512,512) on four lanes (64 -> 248 bytes, a
/// 496-byte ring written at 31 offsets, so each ring byte has four input bytes as sources and a
/// beat can wrap past the ring's end; 248 -> 64 bytes, a 744-byte ring read at 93 offsets through a rotator with
/// an odd number of digit bits, its 2:1 stage last) and RIFL(512,128) on one lane (16 -> 62 bytes,
/// a 124-byte ring, four sources per ring byte, wrapping beats).
const WIDE_GEARS: &str = r#"
[design]
name = "rg"
reset = "sync_high"
clock_mhz = 250.0

[[blocks]]
kind = "rifl"
name = "w4"
frame_bits = 512
user_bits = 512
lanes = 4

[[blocks]]
kind = "rifl"
name = "m1"
frame_bits = 512
user_bits = 128
lanes = 1
"#;

#[test]
fn wide_gearboxes_match_the_model() -> TestResult {
    let bench = Bench::from_toml(WIDE_GEARS, "rifl_wide_gears.toml")?;
    let mut rng = TestRng::for_test("rifl_wide_gearboxes")?;
    for (name, role) in [("w4", Role::TxGear), ("w4", Role::RxGear), ("m1", Role::TxGear)] {
        let m = bench.module(name, role)?;
        let (t, s) = rifl::gear_run(&bench, m, &vectors(5_000), &mut rng)?;
        clean(&t, m.name(), &rng)?;
        assert!(s.packets > 20 && s.beats > 300, "{}: {} beats, {} packets", m.name(), s.beats, s.packets);
    }
    Ok(())
}
