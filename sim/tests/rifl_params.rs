//! RIFL blocks with parameters the default design does not use, generated from their own design
//! (`Bench::from_toml`) and checked as whole nodes against the model, cycle by cycle
//! (`rtl_gen_sim::cosim::rifl::node_run`: two Verilated nodes, each with a model in lockstep), in
//! a link with bit errors, transceiver stalls and backpressure: 128-bit frames with a byte-wide
//! user stream and three lanes without the scrambler (a group narrower and wider than a beat, odd
//! lane count), and 512-bit frames with a small frame ID space, flow-control buffer and repeat
//! count, on the asynchronous active-low reset.

use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::rifl::{self, NodeLink};
use rtl_gen_sim::{Bench, TestRng};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const DESIGN: &str = r#"
[design]
name = "rp"
reset = "async_low"
clock_mhz = 200.0

[[blocks]]
kind = "rifl"
name = "narrow"
frame_bits = 128
user_bits = 8
lanes = 3
frame_id_bits = 6
scrambler = false
fc_buffer_frames = 40
retrans_threshold = 8
control_repeat = 4

[[blocks]]
kind = "rifl"
name = "wide"
frame_bits = 512
user_bits = 128
frame_id_bits = 6
fc_buffer_frames = 48
fc_on_frames = 30
fc_off_frames = 12
control_repeat = 3
"#;

/// `RTLGEN_LONG=1` multiplies the default amounts by ten.
fn scaled(n: u64) -> u64 {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        10 * n
    } else {
        n
    }
}

fn lockstep(name: &str, ber: f64, packets: u64, max_len: usize, backpressure: f64) -> TestResult {
    let bench = Bench::from_toml(DESIGN, "rifl_params.toml")?;
    let p = bench.block::<RiflBlock>(name)?.model_params;
    let m = bench.module(name, Role::Node)?;
    let mut rng = TestRng::for_test(&format!("rifl_params_{name}"))?;
    let setup = NodeLink { ber, delay: 9, packets, min_len: 1, max_len, tx_stall: 0.05, backpressure, idle: 0.3, traffic_cycles: 0, max_cycles: 2_000_000 };
    let (t, s) = rifl::node_run(&bench, m, &setup, &mut rng)?;
    println!(
        "{name}: {} cycles, {} compared outputs, packets {}+{}, flipped bits {}+{}, frame errors {}+{}, retransmissions {}+{}, max flow-control level {}",
        s.cycles, t.vectors, s.packets[0], s.packets[1], s.bits_flipped[0], s.bits_flipped[1], s.frame_errors[0], s.frame_errors[1], s.retransmissions[0], s.retransmissions[1], s.max_fifo_level
    );
    assert!(t.mismatches == 0, "{name}: {} mismatches, first {:?} ({})", t.mismatches, t.first, rng.replay_hint());
    assert!(s.delivered, "{name}: {} ({})", s.errors, rng.replay_hint());
    assert_eq!(s.packets, [packets, packets], "{name}: every packet delivered");
    assert!(s.retransmissions[0] + s.retransmissions[1] > 0, "{name}: errors must have caused retransmissions");
    assert_eq!(s.fifo_overflows, 0, "{name}: flow-control buffer overflow");
    assert!(s.max_fifo_level > p.fc_on_frames, "{name}: backpressure must reach the ON threshold");
    Ok(())
}

#[test]
fn narrow_three_lane_node_without_scrambler_matches_the_model() -> TestResult {
    lockstep("narrow", 5e-6, scaled(30), 300, 0.95)
}

#[test]
fn wide_node_with_small_buffers_matches_the_model() -> TestResult {
    lockstep("wide", 1e-5, scaled(30), 3000, 0.6)
}
