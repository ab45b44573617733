//! Link campaigns on the Rust reference models (no Verilator): the protocol reproduces the RXL
//! paper's claims before any RTL exists.
//! - `rxl`: zero ordering and zero data failures on every topology (direct, 1..=4 switch
//!   levels) with forced drops of 1e-3 per link, random bit errors, bursts and corruption
//!   inside the switches; every drop recovered (everything delivered after the drain).
//! - `cxl_baseline`: ordering failures at the rate Eq. 7 predicts (silent drops × fraction of
//!   payload flits carrying an AckNum).
//! - Bandwidth loss for FER_UC = 3e-5 per link and a 50-flit retry loop: ≈0.15 % direct,
//!   ≈0.3 % through one switch (Eq. 11–14), for both modes.
//!
//! `RTLGEN_LONG=1` runs every campaign ten times longer.

mod common;

use common::scaled;
use rtl_gen::blocks::rxl_endpoint::model::Mode;
use rtl_gen_sim::campaign::rxl::record::table;
use rtl_gen_sim::link::rxl::{self, CampaignConfig, DirectionFigures, Faults, Nodes, Report};

fn run(cfg: &CampaignConfig) -> Report {
    let nodes = Nodes::models(&cfg.endpoint, cfg.switches);
    let r = rxl::run_config(cfg, nodes, &mut |_, _| {}).expect("campaign runs");
    print!("{}", table(std::slice::from_ref(&r)));
    r
}

/// Poisson-style bound: |measured − predicted| within `sigmas` standard deviations plus a
/// relative `slack` for what the prediction leaves out.
fn consistent(measured: f64, predicted: f64, sigmas: f64, slack: f64) -> bool {
    (measured - predicted).abs() <= sigmas * predicted.max(1.0).sqrt() + slack * predicted
}

#[test]
fn rxl_zero_failures_with_drops_on_every_topology() {
    for switches in 0..=4 {
        let mut cfg = CampaignConfig::new(Mode::Rxl, switches, scaled(60_000) as u64);
        cfg.faults = Faults { drop: 1e-3, ber: 1e-6, burst: 1e-4, burst_bits: 40, uc: 0.0 };
        cfg.internal = 1e-4;
        cfg.seed = 100 + switches as u64;
        let r = run(&cfg);
        assert!(r.drained, "{switches} switches: not everything delivered after the drain");
        for (d, x) in r.dirs.iter().enumerate() {
            let what = format!("rxl, {switches} switches, direction {d}");
            assert_eq!(x.sink.ordering_failures, 0, "{what}: ordering failures");
            assert_eq!(x.sink.data_failures, 0, "{what}: data failures");
            assert_eq!(x.undelivered(), 0, "{what}: undelivered payloads");
            assert_eq!(x.sink.in_order, x.sent, "{what}: exactly once");
            assert!(x.channels.drops >= 20, "{what}: the campaign dropped flits ({})", x.channels.drops);
            assert!(x.tx_counters.replays >= x.channels.drops / 2, "{what}: drops recovered by replays");
            if switches > 0 {
                assert!(x.internal_corruptions > 0, "{what}: switch-internal corruption injected");
            }
        }
    }
}

#[test]
fn rxl_catches_every_switch_internal_corruption() {
    let mut cfg = CampaignConfig::new(Mode::Rxl, 2, scaled(40_000) as u64);
    cfg.internal = 2e-3;
    let r = run(&cfg);
    for x in &r.dirs {
        assert!(x.internal_corruptions > 50, "{}", x.internal_corruptions);
        assert_eq!((x.sink.data_failures, x.sink.ordering_failures, x.undelivered()), (0, 0, 0));
        // Each corruption is a CRC failure at the endpoint (the FEC of the next link cannot see
        // it: the switch re-encoded the corrupted message).
        assert!(x.rx_counters.crc_fail >= x.internal_corruptions, "{:?}", x.rx_counters);
    }
}

#[test]
fn cxl_baseline_ordering_failures_follow_eq7() {
    let mut total = (0u64, 0.0f64);
    for switches in [1, 2] {
        let mut cfg = CampaignConfig::new(Mode::CxlBaseline, switches, scaled(400_000) as u64);
        cfg.faults = Faults { drop: 1e-3, ber: 1e-6, ..Faults::none() };
        cfg.seed = 7 + switches as u64;
        let r = run(&cfg);
        for (d, x) in r.dirs.iter().enumerate() {
            let p = x.p_ack();
            // ack_every = 10: one payload flit in ten carries an AckNum while flits are being
            // delivered; none do while the receiver discards, so slightly fewer overall.
            assert!(p > 0.07 && p <= 0.101, "p_coalescing {p}");
            let predicted = x.predicted_ordering_events();
            // Drops that land while the receiver already discards (waiting for a replay) cannot
            // cause another failure: the prediction scaled by the fraction of time not spent so.
            let shadowed = predicted * (1.0 - x.bw_loss());
            println!("cxl_baseline, {switches} switches, dir {d}: ordering failure events {} (Eq. 7: {predicted:.1}, discounting discard windows: {shadowed:.1}); rate {:.2e} per flit vs {:.2e}", x.sink.ordering_events, x.sink.ordering_events as f64 / x.wire_payload as f64, shadowed / x.wire_payload as f64);
            assert!(x.sink.ordering_events > 0 && x.sink.data_failures == 0);
            total.0 += x.sink.ordering_events;
            total.1 += shadowed;
        }
    }
    assert!(consistent(total.0 as f64, total.1, 4.0, 0.1), "ordering failure events {} vs Eq. 7 {:.1}", total.0, total.1);
}

#[test]
fn bandwidth_loss_follows_eq11_to_14() {
    for (mode, switches) in [(Mode::Rxl, 0), (Mode::Rxl, 1), (Mode::CxlBaseline, 0), (Mode::CxlBaseline, 1)] {
        let mut cfg = CampaignConfig::new(mode, switches, scaled(2_000_000) as u64);
        cfg.faults = Faults { uc: 3e-5, ..Faults::none() };
        cfg.seed = 21 + switches as u64;
        let r = run(&cfg);
        let predicted = r.predicted_bw_loss();
        let loss = (r.dirs[0].bw_loss() + r.dirs[1].bw_loss()) / 2.0;
        let events: u64 = r.dirs.iter().map(|x| x.channels.uc_injected).sum();
        println!("{mode:?}, {switches} switches: bandwidth loss {:.4} % (Eq. {}: {:.4} %), {events} uncorrectable flits", 100.0 * loss, if switches == 0 { "11" } else { "12/14" }, 100.0 * predicted);
        let paper = if switches == 0 { 0.0015 } else { 0.0030 };
        assert!((predicted - paper).abs() < 0.0002, "the prediction itself is the paper's ≈{paper}");
        // Relative error of a count of `events` retries: 1/sqrt(events); 4 sigma.
        let tolerance = 4.0 / (events.max(1) as f64).sqrt() + 0.05;
        assert!((loss - predicted).abs() <= tolerance * predicted, "measured {loss} vs predicted {predicted} (±{:.0} %)", 100.0 * tolerance);
        assert_eq!(r.dirs.iter().map(|x| x.sink.data_failures).sum::<u64>(), 0);
    }
}
