//! RIFL's analytic bandwidth ratio (Eq. 8, `rtl_gen::analysis::rifl`) against a short model
//! campaign at an accelerated BER: the prediction must fall inside the measurement's 95 %
//! confidence interval. The nodes are the cycle-accurate model the co-simulation tests hold
//! equal to the RTL; the link is the BER sweep's (`campaign::rifl::sweep::run_point`).

use rtl_gen::analysis::prob::frame_error_rate;
use rtl_gen::analysis::rifl::{bandwidth_ratio, n_stall};
use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::config::Design;
use rtl_gen_sim::campaign::rifl::sweep::{run_point, SweepOptions};

#[test]
fn eq8_bandwidth_ratio_inside_the_campaigns_confidence_interval() {
    // The default design's one-lane `rifl`: 256-bit frames, n = 8 (N_stall = 1280).
    let design = Design::builtin_default();
    let block = design
        .blocks
        .iter()
        .find_map(|b| {
            b.as_any()
                .downcast_ref::<RiflBlock>()
                .filter(|r| r.name == "rifl")
        })
        .expect("default design has block rifl");
    let p = block.model_params;
    let o = SweepOptions {
        block: "rifl".into(),
        packets: 1500,
        delay: 8,
        lane_gbps: 28.0,
        threads: 1,
        seed: 11,
        max_cycles: 20_000_000,
        frame_id_bits: None,
        bers: vec![],
    };
    // 1e-6 is 10x the paper's worst BER: about 2.6e-4 of the slots are hit, enough events in
    // a run of seconds.
    let ber = 1e-6;
    let base = run_point(p, &o, 0, 0.0).unwrap();
    let hit = run_point(p, &o, 1, ber).unwrap();
    assert!(base.completed && hit.completed);
    assert_eq!(base.frames_hit, 0);
    let fer = frame_error_rate(ber, (p.frame_bits * p.lanes) as u64);
    let predicted = bandwidth_ratio(n_stall(p.frame_id_bits), fer);
    let measured = hit.bw / base.bw;
    // Eq. 8's deficit 1/ratio − 1 = N_stall · FER is proportional to the error events, a
    // Poisson count: its 95 % interval is ±1.96/√events relative; the packet mix adds about
    // 0.1 % of the ratio (run_point's note), taken as 0.005 absolute on the deficit.
    let events = hit.frames_hit as f64;
    assert!(events >= 50.0, "too few events ({events}) for an interval");
    let deficit = 1.0 / measured - 1.0;
    let half = deficit * 1.96 / events.sqrt() + 0.005;
    let predicted_deficit = 1.0 / predicted - 1.0;
    eprintln!(
        "BER {ber:e}: ratio predicted {predicted:.4} (deficit {predicted_deficit:.4}), measured {measured:.4} (deficit {deficit:.4} ± {half:.4}, {events} frames hit)"
    );
    assert!(
        (predicted_deficit - deficit).abs() <= half,
        "Eq. 8 deficit {predicted_deficit:.4} outside the campaign's {deficit:.4} ± {half:.4}"
    );
}
