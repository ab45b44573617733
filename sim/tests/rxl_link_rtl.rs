//! Link campaigns on the Verilated RTL of the default design (`rxl_ep`, `cxl_ep`, `rxl_sw`):
//! two endpoints, 0..=4 switch levels, traffic in both directions through fault-injecting
//! channels, scoreboards per direction.
//!
//! The default run is short but real (tens of thousands of flits per direction and topology,
//! fault rates raised where a rare event must be seen); `RTLGEN_LONG=1` runs the paper's figures
//! at full length: ≥10^6 flits per direction on every topology with 1e-3 drops per link, and
//! the bandwidth loss at FER_UC = 3e-5 (also `cargo test -- --ignored` for those alone).

mod common;

use common::scaled;
use rtl_gen::blocks::rxl_endpoint::model::Mode;
use rtl_gen_sim::link::rxl::rtl::Check;
use rtl_gen_sim::link::rxl::{CampaignConfig, DirectionFigures, Faults, Report};

fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

/// Runs a campaign on the RTL of endpoint block `ep_name` (both ends) and the default switch.
fn rtl_campaign(ep_name: &str, switches: usize, cycles: u64, faults: Faults, tweak: impl FnOnce(&mut CampaignConfig)) -> Report {
    let r = common::rxl_campaign(ep_name, switches, cycles, faults, Check::RtlOnly, &format!("rtl_link_{ep_name}_{switches}"), tweak);
    println!("({:.1} s, {:.1} k cycles/s)", r.seconds, r.cycles as f64 / r.seconds / 1e3);
    r
}

fn assert_exactly_once(r: &Report, what: &str) {
    assert!(r.drained, "{what}: not everything delivered after the drain");
    for (d, x) in r.dirs.iter().enumerate() {
        assert_eq!(x.sink.ordering_failures, 0, "{what}, direction {d}: ordering failures");
        assert_eq!(x.sink.data_failures, 0, "{what}, direction {d}: data failures");
        assert_eq!((x.undelivered(), x.sink.in_order), (0, x.sent), "{what}, direction {d}: exactly once");
    }
}

fn rxl_every_topology(cycles: u64) {
    for switches in 0..=4 {
        let faults = Faults { drop: 1e-3, ber: 1e-6, burst: 1e-4, burst_bits: 40, uc: 0.0 };
        let r = rtl_campaign("rxl_ep", switches, cycles, faults, |c| {
            c.internal = 1e-4;
            c.seed = 40 + switches as u64;
        });
        let what = format!("rxl RTL, {switches} switches");
        assert_exactly_once(&r, &what);
        for x in &r.dirs {
            assert!(x.channels.drops > 0 && x.tx_counters.replays > 0, "{what}: drops {} replays {}", x.channels.drops, x.tx_counters.replays);
        }
    }
}

/// rxl on the RTL: zero ordering and data failures on every topology with 1e-3 drops per link,
/// bit errors, bursts and switch-internal corruption; every drop recovered.
#[test]
fn rxl_rtl_zero_failures_on_every_topology() {
    rxl_every_topology(if long() { 1_000_000 } else { 20_000 });
}

/// The same at the paper's length: ≥10^6 flits per direction on every topology.
#[test]
#[ignore = "long: ≥10^6 flits per direction on five topologies (RTLGEN_LONG=1 runs it by default)"]
fn rxl_rtl_zero_failures_on_every_topology_long() {
    rxl_every_topology(1_000_000);
}

/// Every error inside a switch (a bit flipped between link_rx and link_tx, after the FEC) is
/// caught by the endpoints' end-to-end CRC.
#[test]
fn rxl_rtl_catches_switch_internal_corruption() {
    let r = rtl_campaign("rxl_ep", 1, scaled(20_000) as u64, Faults::none(), |c| c.internal = 2e-3);
    assert_exactly_once(&r, "rxl RTL, internal corruption");
    for x in &r.dirs {
        assert!(x.internal_corruptions > 10, "{}", x.internal_corruptions);
        assert!(x.rx_counters.crc_fail >= x.internal_corruptions, "every corruption is a CRC failure: {:?}", x.rx_counters);
    }
}

/// cxl_baseline on the RTL: silent drops followed by an ACK-carrying flit are delivered out of
/// order, at the rate Eq. 7 predicts (drops × fraction of payload flits carrying an AckNum).
#[test]
fn cxl_baseline_rtl_ordering_failures_follow_eq7() {
    let cycles = if long() { 1_000_000 } else { 60_000 };
    // The short run raises the drop rate to see enough events; Eq. 7 is linear in it.
    let drop = if long() { 1e-3 } else { 4e-3 };
    let r = rtl_campaign("cxl_ep", 1, cycles, Faults { drop, ber: 1e-6, ..Faults::none() }, |c| c.seed = 77);
    let (mut events, mut predicted) = (0u64, 0.0f64);
    for (d, x) in r.dirs.iter().enumerate() {
        let shadowed = x.predicted_ordering_events() * (1.0 - x.bw_loss());
        println!(
            "cxl_baseline RTL, 1 switch, dir {d}: {} ordering failure events over {} payload flits ({:.2e}/flit); Eq. 7: {} drops × p_ack {:.3} = {:.1} ({:.1} outside discard windows, {:.2e}/flit)",
            x.sink.ordering_events,
            x.wire_payload,
            x.sink.ordering_events as f64 / x.wire_payload as f64,
            x.silent_drops(),
            x.p_ack(),
            x.predicted_ordering_events(),
            shadowed,
            shadowed / x.wire_payload as f64
        );
        assert_eq!(x.sink.data_failures, 0);
        events += x.sink.ordering_events;
        predicted += shadowed;
    }
    assert!(events > 0, "cxl_baseline must show ordering failures");
    let sigma = predicted.sqrt();
    assert!((events as f64 - predicted).abs() <= 4.0 * sigma + 0.1 * predicted, "{events} events vs Eq. 7 {predicted:.1}");
}

fn bandwidth(uc: f64, cycles: u64) {
    for mode in [Mode::Rxl, Mode::CxlBaseline] {
        for switches in [0, 1] {
            let ep = if mode == Mode::Rxl { "rxl_ep" } else { "cxl_ep" };
            let r = rtl_campaign(ep, switches, cycles, Faults { uc, ..Faults::none() }, |c| c.seed = 90 + switches as u64);
            let loss = (r.dirs[0].bw_loss() + r.dirs[1].bw_loss()) / 2.0;
            let predicted = r.predicted_bw_loss();
            let events: u64 = r.dirs.iter().map(|x| x.channels.uc_injected).sum();
            println!("{mode:?} RTL, {switches} switches, FER_UC {uc:e}: bandwidth loss {:.4} % measured, {:.4} % Eq. {} ({events} uncorrectable flits)", 100.0 * loss, 100.0 * predicted, if switches == 0 { "11" } else { "12/14" });
            let tolerance = 4.0 / (events.max(1) as f64).sqrt() + 0.05;
            assert!((loss - predicted).abs() <= tolerance * predicted, "{mode:?}, {switches} switches: measured {loss} vs {predicted}");
        }
    }
}

/// Bandwidth loss of go-back-N with a 50-flit retry loop against Eq. 11–14, both modes, direct
/// and through one switch. The short run uses FER_UC = 3e-4 (ten times the paper's, to see
/// enough retries); the paper's 3e-5 runs with RTLGEN_LONG=1 or `--ignored`.
#[test]
fn bandwidth_loss_rtl_follows_eq11_to_14() {
    if long() {
        bandwidth(3e-5, 2_000_000);
    } else {
        bandwidth(3e-4, 50_000);
    }
}

#[test]
#[ignore = "long: 2·10^6 flits per direction and configuration"]
fn bandwidth_loss_rtl_at_paper_fer_uc() {
    bandwidth(3e-5, 2_000_000);
}
