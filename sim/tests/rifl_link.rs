//! Whole RIFL nodes: the Verilated top against the model node cycle by cycle, and two generated
//! nodes cross-connected through channels with a fixed delay and independent random bit errors
//! per direction, carrying random packets of 1..8192 bytes both ways: every packet delivered
//! exactly once, in order and bit-exact, at BER 0, 1e-7, 1e-6 and 1e-5 (shortened runs;
//! `RTLGEN_LONG=1` sends ten times as many packets).

mod common;

use common::*;
use rtl_gen_sim::link::rifl::rtl::{RtlNode, Twin};
use rtl_gen_sim::link::rifl::{Link, LinkSetup};
use rtl_gen_sim::{Bench, TestRng};
use std::time::Instant;

/// Cable delay per direction in cycles (a few metres at a frame clock of some hundred MHz).
const DELAY: usize = 24;

fn twin(bench: &Bench, name: &str, test: &str) -> Result<Twin, Box<dyn std::error::Error>> {
    Ok(Twin::new(RtlNode::from_bench(bench, name, test)?))
}

/// Both ends are RTL and model at once; any output difference fails at its cycle.
fn lockstep(name: &str, ber: f64, packets: u64, max_len: usize) -> TestResult {
    let bench = bench();
    let test = format!("rifl_lockstep_{name}");
    let seed = TestRng::for_test(&test)?.seed();
    let a = twin(&bench, name, &format!("{test}_a"))?;
    let b = twin(&bench, name, &format!("{test}_b"))?;
    let mut link = Link::new(a, b, LinkSetup { delay: DELAY, ber, seed, packets, min_len: 1, max_len });
    link.tx_stall = 0.03;
    link.flow_ab.backpressure = 0.5;
    link.flow_ba.idle = 0.2;
    let t = Instant::now();
    while !link.done() && link.cycle < 3_000_000 {
        link.step();
        for (side, tw) in [("a", &link.a), ("b", &link.b)] {
            if let Some(m) = &tw.mismatch {
                panic!("{name} node {side} differs from the model at {m} (seed {seed:#x}; RTLGEN_WAVES=1 writes target/waves/{test}_{side}.vcd)");
            }
        }
    }
    link.run(0).map_err(|e| format!("{name}: {e} (seed {seed:#x})"))?;
    let (a, b) = (&link.a.model, &link.b.model);
    println!(
        "{name} lockstep at BER {ber:e}: {} cycles in {:.1} s, packets {}+{}, flipped bits {}+{}, frame errors {}+{}, retransmissions {}+{}, pause events {}+{}",
        link.cycle,
        t.elapsed().as_secs_f64(),
        link.flow_ab.delivered_packets,
        link.flow_ba.delivered_packets,
        link.ab.stats.bit_errors,
        link.ba.stats.bit_errors,
        a.frame_errors,
        b.frame_errors,
        a.retransmissions,
        b.retransmissions,
        a.pause_events,
        b.pause_events
    );
    assert_eq!(link.a.rtl.bad_keep + link.b.rtl.bad_keep, 0, "m_axis_tkeep must be contiguous");
    if ber > 0.0 {
        assert!(a.retransmissions + b.retransmissions > 0, "errors must have caused retransmissions");
    }
    for f in a.fifo.iter().chain(&b.fifo) {
        assert_eq!(f.overflows, 0, "flow-control buffer overflow");
    }
    Ok(())
}

#[test]
fn node_matches_the_model_with_errors_stalls_and_backpressure() -> TestResult {
    lockstep("rifl", 1e-5, scaled(40), 2000)
}

#[test]
fn four_lane_node_matches_the_model_with_errors_stalls_and_backpressure() -> TestResult {
    // 1e-6: four lanes in lock step at 1e-5 spend most slots with some lane recovering.
    lockstep("rifl4", 1e-6, scaled(40), 4000)
}

/// Two RTL nodes, random packets of 1..8192 bytes both ways at `ber`.
fn link_at(ber: f64, packets: u64) -> TestResult {
    let bench = bench();
    let name = "rifl";
    let test = format!("rifl_link_{ber:e}");
    let seed = TestRng::for_test(&test)?.seed();
    let a = RtlNode::from_bench(&bench, name, &format!("{test}_a"))?;
    let b = RtlNode::from_bench(&bench, name, &format!("{test}_b"))?;
    let mut link = Link::new(a, b, LinkSetup { delay: DELAY, ber, seed, packets, min_len: 1, max_len: 8192 });
    let t = Instant::now();
    link.run(50_000_000).map_err(|e| format!("BER {ber:e}: {e} (seed {seed:#x})"))?;
    let oa = link.a.read();
    let ob = link.b.read();
    let (sa, sb) = (link.flow_ab.stats(), link.flow_ba.stats());
    println!(
        "link BER {ber:e}: {} cycles in {:.1} s; packets {}+{}, bytes {}+{}; frames {}+{}, frames hit {}+{} ({} + {} bits flipped); frame errors {}+{}, retransmissions {}+{}, pause events {}+{}; throughput {:.2}/{:.2} bytes/cycle, head latency avg {:.1} p99 {} cycles",
        link.cycle,
        t.elapsed().as_secs_f64(),
        sa.packets,
        sb.packets,
        sa.bytes,
        sb.bytes,
        link.ab.stats.frames,
        link.ba.stats.frames,
        link.ab.stats.frames_with_bit_errors,
        link.ba.stats.frames_with_bit_errors,
        link.ab.stats.bit_errors,
        link.ba.stats.bit_errors,
        oa.frame_errors,
        ob.frame_errors,
        oa.retransmissions,
        ob.retransmissions,
        oa.pause_events,
        ob.pause_events,
        sa.bytes_per_cycle,
        sb.bytes_per_cycle,
        (sa.latency_avg + sb.latency_avg) / 2.0,
        sa.latency_p99.max(sb.latency_p99)
    );
    assert_eq!(sa.packets, packets);
    assert_eq!(sb.packets, packets);
    assert!(oa.link_up && ob.link_up);
    assert_eq!(link.a.bad_keep + link.b.bad_keep, 0);
    if ber > 0.0 {
        assert!(link.ab.stats.frames_with_bit_errors + link.ba.stats.frames_with_bit_errors > 0, "the run is long enough to see errors at BER {ber:e}");
    }
    if ber == 0.0 {
        assert_eq!((oa.frame_errors, ob.frame_errors, oa.retransmissions, ob.retransmissions), (0, 0, 0, 0));
    }
    // Each node counts the frames that failed on its receive side: a hit frame fails unless it
    // was not being verified (out of sync) or the flips escaped the CRC (not at these rates).
    if link.ba.stats.frames_with_bit_errors > 0 {
        assert!(oa.frame_errors > 0 && ob.retransmissions > 0, "a's receiver saw errors: it must count them and b must retransmit");
    }
    if link.ab.stats.frames_with_bit_errors > 0 {
        assert!(ob.frame_errors > 0 && oa.retransmissions > 0, "b's receiver saw errors: it must count them and a must retransmit");
    }
    Ok(())
}

#[test]
fn link_ber_0() -> TestResult {
    link_at(0.0, scaled(60))
}

#[test]
fn link_ber_1e_7() -> TestResult {
    link_at(1e-7, scaled(600))
}

#[test]
fn link_ber_1e_6() -> TestResult {
    link_at(1e-6, scaled(150))
}

#[test]
fn link_ber_1e_5() -> TestResult {
    link_at(1e-5, scaled(60))
}
