//! The `rxl_endpoint` modules of the default design in Verilator against their cycle-accurate
//! models, through the co-simulation driver (`rtl_gen_sim::cosim::rxl`): every node of a link
//! runs as RTL and model in lockstep and every output (tx_flit, m_payload,
//! s_ready/tx_valid/m_valid, every counter) is compared every cycle, under traffic that
//! exercises the whole protocol: random bit errors, bursts, uncorrectable flits, forced drops,
//! link backpressure (tx_ready low), partial load, a short retry loop (many replays). The
//! switch halves are in `rxl_switch_cosim.rs`.

mod common;

use common::{rxl_lockstep as lockstep, scaled, TestResult};
use rtl_gen_sim::cosim;
use rtl_gen_sim::link::rxl::Report;
use rtl_gen_sim::Bench;

fn assert_busy(r: &Report, what: &str) {
    for x in &r.dirs {
        let c = &x.rx_counters;
        assert!(x.tx_counters.replays > 5 && c.nacks_sent > 5 && c.crc_fail > 5 && c.fec_corrected > 5 && c.fec_uncorrectable > 0, "{what}: the traffic must exercise replays and both FEC outcomes: {c:?}");
    }
}

#[test]
fn every_rxl_endpoint_module_has_a_driver() -> TestResult {
    let bench = Bench::default_design()?;
    for block in bench.blocks_of_kind("rxl_endpoint") {
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
