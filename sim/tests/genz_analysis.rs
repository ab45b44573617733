//! Gen-Z LLR's analytic sizing and goodput (`rtl_gen::analysis::genz`) against a short model
//! campaign: the goodput at an accelerated BER must fall inside the measurement's 95 %
//! confidence interval, the measured recovery time near the predicted one, and the retry
//! slots the analysis asks for must cover what the link really kept in flight. The ends are the
//! cycle-accurate model the co-simulation tests hold equal to the RTL; the link is the
//! campaign's (`link::genz::run_link`), with the campaign's block (255 slots, an ACK every
//! 16 packets).

use rtl_gen::analysis::genz::{self, Inputs};
use rtl_gen::blocks::genz_llr::model::LlrModel;
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen_sim::link::channel::Faults;
use rtl_gen_sim::campaign::genz::campaign::{figures_bench, FIGURES_BLOCK};
use rtl_gen_sim::link::genz::{keep, run_link, LinkOptions, LinkReport};

/// 64 Gb/s over 10 m with 64-byte packets, as the campaign's first goodput column.
fn inputs(ber: f64) -> Inputs {
    Inputs { line_gbps: 64.0, lanes: 1, cable_m: 10.0, data_bytes: 8, packet_bytes: 64, ack_every: 16, ber }
}

fn run(i: &Inputs, cycles: u64, seed: u64) -> LinkReport {
    let bench = figures_bench().unwrap();
    let cfg = bench.block::<GenzLlrBlock>(FIGURES_BLOCK).unwrap().cfg.clone();
    assert_eq!((cfg.data_bytes, cfg.ack_every), (i.data_bytes, i.ack_every), "the campaign's block changed");
    let delay = i.delay_cycles() as usize;
    let warm = 2_000 + 4 * delay as u64;
    let o = LinkOptions { cycles: cycles + warm, window_from: warm, drain_cycles: 20_000, delay, faults: Faults::ber(i.ber), load: 1.0, offer: 1.0, packet_bytes: Some(i.packet_bytes as usize), seed, ..LinkOptions::default() };
    let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
    let r = run_link(&mut a, &mut b, &cfg, &o, &mut keep).unwrap();
    assert!(r.clean(), "exactly once broken: {r:?}");
    r
}

fn goodput(r: &LinkReport, i: &Inputs, cycles: u64) -> f64 {
    r.window_bytes.iter().sum::<u64>() as f64 / (2.0 * i.data_bytes as f64 * cycles as f64)
}

#[test]
fn goodput_and_recovery_inside_the_model_campaigns_interval() {
    // 3e-6: about 2e-4 of the beats are hit, some 80 recoveries per direction in 300,000 cycles.
    let cycles = 300_000;
    let i = inputs(3e-6);
    let r = run(&i, cycles, 7);
    let measured = goodput(&r, &i, cycles);
    let predicted = genz::goodput(&i);
    // The deficit g0/g − 1 = ε·T_rec is proportional to the error events, a Poisson count.
    let events = r.recoveries.len() as f64;
    assert!(events >= 100.0, "too few recoveries ({events}) for an interval");
    let g0 = genz::ack_efficiency(&i);
    let deficit = g0 / measured - 1.0;
    let half = deficit * 1.96 / events.sqrt();
    let predicted_deficit = g0 / predicted - 1.0;
    let mean_recovery = r.recoveries.iter().sum::<u64>() as f64 / events;
    eprintln!(
        "BER 3e-6, 64 B, 10 m: goodput predicted {predicted:.4}, measured {measured:.4} (deficit {deficit:.4} ± {half:.4}, {events} recoveries); recovery {mean_recovery:.0} cycles measured, {} predicted",
        genz::recovery_cycles(&i)
    );
    assert!((predicted_deficit - deficit).abs() <= half, "deficit {predicted_deficit:.4} outside {deficit:.4} ± {half:.4}");
    // Single recoveries dominate; a second error inside one lengthens it.
    let rel = mean_recovery / genz::recovery_cycles(&i) as f64;
    assert!((0.95..1.15).contains(&rel), "recovery {mean_recovery:.0} vs {}", genz::recovery_cycles(&i));
}

#[test]
fn the_slots_the_analysis_asks_for_cover_the_links_in_flight_maximum() {
    for cable_m in [1.0, 20.0, 60.0] {
        let i = Inputs { cable_m, ..inputs(0.0) };
        let r = run(&i, 20_000, 3);
        let needed = genz::slots_for_full_rate(&i);
        let kept = r.in_flight_max.iter().copied().max().unwrap();
        eprintln!("{cable_m} m: {kept} packets in flight at most, {needed} slots predicted");
        assert!(kept <= needed && needed <= kept + 4, "{cable_m} m: {kept} in flight vs {needed} slots");
    }
}
