//! The `rxl_endpoint` and `rxl_switch` modules of the default design in Verilator against their
//! cycle-accurate models, through the co-simulation drivers (`rtl_gen_sim::cosim::rxl`).
//!
//! Endpoints: every node of a link runs as RTL and model in lockstep and every output
//! (tx_flit, m_payload, s_ready/tx_valid/m_valid, every counter) is compared every cycle, under
//! traffic that exercises the whole protocol: random bit errors, bursts, uncorrectable flits,
//! forced drops, switch-internal corruption, link backpressure (tx_ready low), partial load,
//! a short retry loop (many replays). Switch halves: the same in switched topologies, plus
//! random flits with 0..=3 corrupted bytes through `link_rx` (every FEC verdict and corrected
//! message compared) and saturating counters on a small custom design.

use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::campaign::rxl::{table, CampaignConfig, Report};
use rtl_gen_sim::cosim::{self, rxl, Options, Tally};
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

fn clean(t: &Tally, what: &str, rng: &TestRng) {
    println!("{what}: {} compared outputs, {} cycles, {} mismatches", t.vectors, t.cycles, t.mismatches);
    assert!(t.mismatches == 0 && t.vectors > 0, "{what}: {} mismatches; first: {:?}; {}", t.mismatches, t.first, rng.replay_hint());
}

/// A campaign between two endpoints of block `ep` through `switches` levels, everything in
/// lockstep: busy faults (a retry every few hundred flits of every kind), tx_ready low 5 % of
/// the time, 90 % load, a 20-flit retry loop (`cosim::rxl::campaign_config`), then `tweak`.
fn lockstep(ep: &str, switches: usize, cycles: u64, tweak: impl FnOnce(&mut CampaignConfig)) -> Report {
    let bench = Bench::default_design().expect("default design");
    let m = bench.module(ep, Role::Endpoint).expect("endpoint module");
    let mut cfg = rxl::campaign_config(m, switches, cycles).expect("campaign");
    tweak(&mut cfg);
    let mut rng = TestRng::for_test(&format!("cosim_{ep}_{switches}")).expect("rng");
    let (t, r) = rxl::endpoint_run(&bench, m, &cfg, &mut rng).unwrap_or_else(|e| panic!("{ep}, {switches} switches: {e}"));
    print!("{}", table(std::slice::from_ref(&r)));
    clean(&t, &format!("{ep}, {switches} switches"), &rng);
    r
}

fn assert_busy(r: &Report, what: &str) {
    for x in &r.dirs {
        let c = &x.rx_counters;
        assert!(x.tx_counters.replays > 5 && c.nacks_sent > 5 && c.crc_fail > 5 && c.fec_corrected > 5 && c.fec_uncorrectable > 0, "{what}: the traffic must exercise replays and both FEC outcomes: {c:?}");
    }
}

#[test]
fn every_rxl_module_has_a_driver() -> TestResult {
    let bench = Bench::default_design()?;
    for block in bench.blocks_of_kind("rxl_endpoint").into_iter().chain(bench.blocks_of_kind("rxl_switch")) {
        for m in bench.elab().modules_of(block) {
            assert!(cosim::driver(m.kind, m.role).is_some(), "{}: no driver for ({}, {})", m.name(), m.kind, m.role);
        }
    }
    Ok(())
}

#[test]
fn rxl_endpoint_matches_the_model_in_a_faulty_link() {
    let r = lockstep("rxl_ep", 0, scaled(20_000), |_| {});
    assert_busy(&r, "rxl_ep");
    assert!(r.drained && r.dirs.iter().all(|x| x.sink.ordering_failures == 0 && x.sink.data_failures == 0 && x.undelivered() == 0));
}

#[test]
fn cxl_baseline_endpoint_matches_the_model_in_a_faulty_link() {
    let r = lockstep("cxl_ep", 0, scaled(20_000), |_| {});
    assert_busy(&r, "cxl_ep");
    assert!(r.dirs.iter().all(|x| x.sink.data_failures == 0));
}

/// The field options: CRC-64 and the generic FEC layout, a 96-deep buffer, ACK every 4 flits,
/// 16-bit counters; a long loop with a small buffer also fills it (s_ready low).
#[test]
fn alternative_endpoint_matches_the_model() {
    let r = lockstep("rxl_ep_alt", 0, scaled(20_000), |c| c.retry_loop = 120);
    assert_busy(&r, "rxl_ep_alt");
    assert!(r.drained && r.dirs.iter().all(|x| x.sink.ordering_failures == 0 && x.sink.data_failures == 0 && x.undelivered() == 0));
}

/// Two switch levels: both endpoints and all eight switch halves in lockstep, with corruption
/// inside the switches.
#[test]
fn switched_link_matches_the_models() {
    let r = lockstep("rxl_ep", 2, scaled(10_000), |c| {
        c.retry_loop = 40;
        c.internal = 1e-3;
    });
    assert!(r.drained && r.dirs.iter().all(|x| x.sink.ordering_failures == 0 && x.sink.data_failures == 0 && x.undelivered() == 0));
    assert!(r.dirs.iter().all(|x| x.switch_drops > 0 && x.switch_corrected > 0 && x.internal_corruptions > 0), "switch drops, corrections and internal corruption all happened");
}

/// link_rx on random flits with 0..=3 random corrupted bytes and idle cycles: the FEC verdict,
/// the corrected message and the counters every cycle; link_tx re-encoding random messages.
#[test]
fn switch_halves_match_the_models_on_random_flits() -> TestResult {
    let bench = Bench::default_design()?;
    let sw = &bench.blocks::<RxlSwitchBlock>().first().expect("a switch block").name;
    let mut rng = TestRng::for_test("rxl_switch_random")?;
    let n = scaled(20_000);
    let opts = Options { vectors: n, ..Options::default() };
    let (t, c) = rxl::link_rx_run(&bench, bench.module(sw, Role::LinkRx)?, &opts, &mut rng)?;
    clean(&t, "link_rx", &rng);
    assert!(c[1] > n / 5 && c[2] > n / 20, "corrected {} dropped {}", c[1], c[2]);
    let (t, count) = rxl::link_tx_run(&bench, bench.module(sw, Role::LinkTx)?, &opts, &mut rng, 0.9)?;
    clean(&t, "link_tx", &rng);
    assert!(count > n / 2, "{count} flits re-encoded");
    Ok(())
}

/// Saturating counters: a design with 3-bit counters; link_tx counts 20 flits and stops at 7,
/// exactly as the model (compared every flit). The endpoint's and link_rx's counters come from
/// the same generator.
#[test]
fn counters_saturate() -> TestResult {
    let bench = Bench::from_toml("[design]\nname = \"sat\"\n[[blocks]]\nkind = \"rxl_switch\"\nname = \"sw\"\ncounter_bits = 3\n", "sat.toml")?;
    let mut rng = TestRng::for_test("rxl_counters_saturate")?;
    // Two corner messages and 18 random ones, all valid: 20 flits.
    let opts = Options { vectors: 18, ..Options::default() };
    let (t, count) = rxl::link_tx_run(&bench, bench.module("sw", Role::LinkTx)?, &opts, &mut rng, 1.0)?;
    clean(&t, "sat link_tx", &rng);
    assert_eq!(t.cycles, 20);
    assert_eq!(count, 7, "a 3-bit counter saturates at 7");
    Ok(())
}
