//! RIFL blocks with parameters the default design does not use, generated into a temporary
//! tree and checked as whole nodes against the model, cycle by cycle, in a link with bit errors,
//! transceiver stalls and backpressure: 128-bit frames with a byte-wide user stream and three
//! lanes without the scrambler (a group narrower and wider than a beat, odd lane count), and
//! 512-bit frames with a small frame ID space, flow-control buffer and repeat count, on the
//! asynchronous active-low reset.

mod rifl_common;

use rifl_common::*;
use rtl_gen::blocks::rifl::model::link::{Link, LinkSetup};
use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen_sim::{TestRng, Tree};
use std::path::PathBuf;
use std::sync::OnceLock;

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

/// The design's tree under target/, written once per test process.
fn generated() -> (Design, Tree) {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    let root = ROOT.get_or_init(|| {
        let design = Design::parse(DESIGN, "rifl_params.toml").expect("valid design");
        let out = rtl_gen_sim::target_dir().join("rifl_params");
        let layout = Layout::for_design_file(&out, &design);
        let root = layout.root.clone();
        tree::build(&design.elaborate(), layout).write().expect("write the tree");
        root
    });
    (Design::parse(DESIGN, "rifl_params.toml").expect("valid"), Tree::open(root).expect("manifest"))
}

fn lockstep(name: &str, ber: f64, packets: u64, max_len: usize, backpressure: f64) -> TestResult {
    let (design, tree) = generated();
    let p = rifl_block(&design, name).params;
    let module = design.module_name(name, "");
    let test = format!("rifl_params_{name}");
    let seed = TestRng::for_test(&test)?.seed();
    let a = Twin::new(RtlNode::new(&tree, &module, &format!("{test}_a"), p)?);
    let b = Twin::new(RtlNode::new(&tree, &module, &format!("{test}_b"), p)?);
    let mut link = Link::new(a, b, LinkSetup { delay: 9, ber, seed, packets, min_len: 1, max_len });
    link.tx_stall = 0.05;
    link.flow_ab.backpressure = backpressure;
    link.flow_ba.idle = 0.3;
    while !link.done() && link.cycle < 2_000_000 {
        link.step();
        for (side, tw) in [("a", &link.a), ("b", &link.b)] {
            if let Some(m) = &tw.mismatch {
                panic!("{name} node {side} differs from the model at {m} (seed {seed:#x})");
            }
        }
    }
    link.run(0).map_err(|e| format!("{name}: {e} (seed {seed:#x})"))?;
    let (a, b) = (&link.a.model, &link.b.model);
    println!(
        "{name}: {} cycles, packets {}+{}, flipped bits {}+{}, frame errors {}+{}, retransmissions {}+{}, max flow-control level {}",
        link.cycle,
        link.flow_ab.delivered_packets,
        link.flow_ba.delivered_packets,
        link.ab.bits_flipped,
        link.ba.bits_flipped,
        a.frame_errors,
        b.frame_errors,
        a.retransmissions,
        b.retransmissions,
        a.fifo.iter().chain(&b.fifo).map(|f| f.max_level).max().unwrap_or(0)
    );
    assert!(a.retransmissions + b.retransmissions > 0, "{name}: errors must have caused retransmissions");
    assert!(a.fifo.iter().chain(&b.fifo).all(|f| f.overflows == 0), "{name}: flow-control buffer overflow");
    assert!(a.fifo.iter().chain(&b.fifo).any(|f| f.max_level > p.fc_on_frames), "{name}: backpressure must reach the ON threshold");
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
