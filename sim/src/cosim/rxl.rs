//! RXL (`rxl_endpoint`, `rxl_switch`): the endpoint and the switch halves against their
//! cycle-accurate models.
//!
//! * `endpoint`: an RXL link (`link::rxl`) between two Verilated endpoints, each with its
//!   model in lockstep, optionally through levels of Verilated switch halves (also in lockstep):
//!   every output (`s_ready`, `tx_valid`, `tx_flit`, `m_valid`, `m_payload`, every counter) every
//!   cycle, under random bit errors, bursts, uncorrectable flits, forced drops, switch-internal
//!   corruption, link backpressure (`tx_ready` low), partial load and a short retry loop. The
//!   campaign's scoreboard checks exactly-once, in-order, intact delivery on top.
//! * `link_rx`: random flits with 0..=3 corrupted bytes (after corner flits: all-zero and
//!   all-ones messages, one corrupted byte at every position) and idle cycles: the FEC verdict,
//!   the corrected message and the counters every cycle.
//! * `link_tx`: re-encoding of random messages (after all-zero and all-ones ones), the flit and
//!   the counter every cycle.

use super::{Options, Tally};
use crate::link::rxl::rtl::{rtl_nodes, Check, CheckedLinkRx, CheckedLinkTx, RtlLinkRx, RtlLinkTx, SharedTally, Stop};
use crate::link::rxl::{self as link, CampaignConfig, CampaignError, Faults, LinkRxNode, LinkTxNode, Report};
use crate::{Bench, SimError, TestRng};
use rtl_gen::blocks::rxl_endpoint::flit::{FLIT_BYTES, MSG_BYTES};
use rtl_gen::blocks::rxl_endpoint::{RxlEndpointBlock, RxlEndpointParams};
use rtl_gen::blocks::rxl_switch::model::{LinkRxModel, LinkTxModel};
use rtl_gen::blocks::rxl_switch::{RxlSwitchBlock, RxlSwitchParams};
use rtl_gen::elab::ElabModule;
use std::rc::Rc;

fn endpoint_block(m: &ElabModule) -> Result<RxlEndpointBlock, SimError> {
    super::kind_params::<RxlEndpointParams>(m)?.block("model").map_err(|e| super::design_error(m, e))
}

fn switch_block(m: &ElabModule) -> Result<RxlSwitchBlock, SimError> {
    Ok(super::kind_params::<RxlSwitchParams>(m)?.block("model"))
}

fn test_name(m: &ElabModule) -> String {
    format!("cosim_{}", m.name())
}

/// The tally of a finished run (every node dropped, so the tally has one owner left).
fn take(tally: SharedTally, cycles: u64) -> Tally {
    let mut t = Rc::try_unwrap(tally).map(|c| c.into_inner()).unwrap_or_default();
    t.cycles = cycles;
    t
}

/// Faults that keep the protocol busy: a retry every few hundred flits of every kind.
pub fn busy_faults() -> Faults {
    Faults { drop: 3e-3, ber: 1e-5, uc: 2e-3, burst: 1e-3, burst_bits: 30 }
}

/// The campaign the `endpoint` driver runs for endpoint module `m`: its block's configuration,
/// [`busy_faults`], `tx_ready` low 5 % of the time, 90 % offered load, a 20-flit retry loop,
/// `traffic_cycles` of traffic, `switches` switch levels (with 1e-3 internal corruption when
/// there are any).
pub fn campaign_config(m: &ElabModule, switches: usize, traffic_cycles: u64) -> Result<CampaignConfig, SimError> {
    let ep = endpoint_block(m)?;
    let mut c = CampaignConfig::new(ep.mode, switches, traffic_cycles);
    c.endpoint = ep.params.clone();
    c.faults = busy_faults();
    c.tx_stall = 0.05;
    c.offered_load = 0.9;
    // 20 flits, or what the switch levels need plus 20.
    c.retry_loop = 20 + 2 * link::SWITCH_LATENCY * switches as u32;
    c.internal = if switches > 0 { 1e-3 } else { 0.0 };
    Ok(c)
}

/// `endpoint`: the campaign `cfg` with both endpoints (module `m`) and every switch half as RTL
/// and model in lockstep. The campaign's seed is drawn from `rng`. Mismatches are counted (ports
/// named `A.`/`B.` for the endpoints, `sw<level>.d<direction>.rx/tx.` for switch halves);
/// scoreboard failures (data or ordering failures where the mode promises none, undelivered
/// payloads) are the test's to judge from the [`Report`].
pub fn endpoint_run(bench: &Bench, m: &ElabModule, cfg: &CampaignConfig, rng: &mut TestRng) -> Result<(Tally, Report), SimError> {
    let mut cfg = cfg.clone();
    cfg.seed = rng.range(0, u64::MAX);
    let tally = SharedTally::default();
    let nodes = rtl_nodes(bench, m, None, cfg.switches, Check::Lockstep(Stop::Never), &tally, &test_name(m)).map_err(|e| link_error(m, e))?;
    let report = link::run_config(&cfg, nodes, &mut |_, _| {}).map_err(|e| link_error(m, e))?;
    Ok((take(tally, report.cycles), report))
}

/// `endpoint` with [`campaign_config`] (no switches) for `opts.vectors` traffic cycles; a
/// payload lost, duplicated, reordered or corrupted counts as a mismatch too (the baseline
/// CXL mode may reorder after silent drops: only data failures and undelivered payloads count
/// there).
pub fn endpoint(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let cfg = campaign_config(m, 0, opts.vectors)?;
    let (mut t, r) = endpoint_run(bench, m, &cfg, rng)?;
    let strict = cfg.endpoint.mode == rtl_gen::blocks::rxl_endpoint::model::Mode::Rxl;
    for (d, x) in r.dirs.iter().enumerate() {
        let port = format!("scoreboard direction {}", if d == 0 { "A→B" } else { "B→A" });
        t.compare(r.cycles, &port, (0u64, 0u64), (x.sink.data_failures, if strict { x.sink.ordering_failures } else { 0 }));
        if strict {
            t.compare(r.cycles, &format!("{port} (drained, undelivered)"), (true, 0u64), (r.drained, x.undelivered()));
        }
    }
    Ok(t)
}

// ---- switch halves on random traffic ----

/// `link_rx` with its final counters `[flits, corrected, dropped]`: `opts.vectors` random
/// flits with 0..=3 corrupted bytes after the corner flits, 10 % idle cycles.
pub fn link_rx_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, [u64; 3]), SimError> {
    let sw = switch_block(m)?;
    let codec = sw.codec();
    let tally = SharedTally::default();
    let rtl = RtlLinkRx::new(bench, m, &test_name(m))?;
    let mut node = CheckedLinkRx::new("link_rx", rtl, LinkRxModel::new(codec.clone(), sw.counter_bits), tally.clone(), Stop::Never).map_err(|e| link_error(m, e))?;
    let corners = 2 + FLIT_BYTES as u64;
    for i in 0..corners + opts.vectors {
        let (valid, flit) = if i < corners {
            let msg = if i == 1 { [0xFF; MSG_BYTES] } else { [0; MSG_BYTES] };
            let mut flit = codec.encode(&msg);
            if i >= 2 {
                flit[(i - 2) as usize] ^= 1 + (i as u8 % 255);
            }
            (true, flit)
        } else {
            let msg: [u8; MSG_BYTES] = rng.bytes(MSG_BYTES).try_into().expect("message bytes");
            let mut flit = codec.encode(&msg);
            for _ in 0..rng.range(0, 3) {
                flit[rng.range(0, FLIT_BYTES as u64 - 1) as usize] ^= rng.range(1, 255) as u8;
            }
            (rng.chance(0.9), flit)
        };
        node.tick(valid, &flit).map_err(|e| link_error(m, e))?;
    }
    let counters = node.model.counters();
    drop(node);
    Ok((take(tally, corners + opts.vectors), counters))
}

pub fn link_rx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    link_rx_run(bench, m, opts, rng).map(|(t, _)| t)
}

/// `link_tx` with its final flit counter: all-zero and all-ones messages, then `opts.vectors`
/// random ones, each cycle valid with probability `valid`.
pub fn link_tx_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng, valid: f64) -> Result<(Tally, u64), SimError> {
    let sw = switch_block(m)?;
    let tally = SharedTally::default();
    let rtl = RtlLinkTx::new(bench, m, &test_name(m))?;
    let mut node = CheckedLinkTx::new("link_tx", rtl, LinkTxModel::new(sw.codec(), sw.counter_bits), tally.clone(), Stop::Never).map_err(|e| link_error(m, e))?;
    for i in 0..2 + opts.vectors {
        let msg: [u8; MSG_BYTES] = match i {
            0 => [0; MSG_BYTES],
            1 => [0xFF; MSG_BYTES],
            _ => rng.bytes(MSG_BYTES).try_into().expect("message bytes"),
        };
        let v = i < 2 || rng.chance(valid);
        node.tick(v, &msg).map_err(|e| link_error(m, e))?;
    }
    let count = node.model.counters()[0];
    drop(node);
    Ok((take(tally, 2 + opts.vectors), count))
}

pub fn link_tx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    link_tx_run(bench, m, opts, rng, 0.9).map(|(t, _)| t)
}

fn link_error(m: &ElabModule, e: CampaignError) -> SimError {
    match e {
        CampaignError::Sim(e) => e,
        other => SimError::Design { message: format!("{}: {other}", m.name()) },
    }
}
