//! The `rxl_switch` modules (the `link_rx` / `link_tx` halves) of the default design in Verilator
//! against their cycle-accurate models, through the co-simulation drivers
//! (`rtl_gen_sim::cosim::rxl`): every half in lockstep inside a switched link with corruption in
//! the switches, random flits with 0..=3 corrupted bytes through `link_rx` (every FEC verdict and
//! corrected message compared), re-encoding through `link_tx`, and saturating counters on a
//! small custom design.

mod common;

use common::{clean, rxl_lockstep as lockstep, scaled, TestResult};
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::{self, rxl, Options};
use rtl_gen_sim::link::rxl::CampaignConfig;
use rtl_gen_sim::{Bench, TestRng};

#[test]
fn every_rxl_switch_module_has_a_driver() -> TestResult {
    let bench = Bench::default_design()?;
    for block in bench.blocks_of_kind("rxl_switch") {
        for m in bench.elab().modules_of(block) {
            assert!(cosim::driver(m.kind, m.role).is_some(), "{}: no driver for ({}, {})", m.name(), m.kind, m.role);
        }
    }
    Ok(())
}

/// Two switch levels: both endpoints and all eight switch halves in lockstep, with corruption
/// inside the switches.
#[test]
fn switched_link_matches_the_models() {
    let r = lockstep("rxl_ep", 2, scaled(10_000), |c| {
        c.retry_loop = CampaignConfig::shortest_retry_loop(2);
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
