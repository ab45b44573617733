//! `genz_llr` handshakes under single faults. Every link-local packet of the Init exchange (at
//! link-up, and again after a link-down in the middle of traffic) and of the Discard handshake
//! (after one corrupted EE packet), at each position in each direction, is (a) hit by one bit
//! error, (b) dropped with a `phy_error` pulse, or (c) lost without a trace, on a 10 m and a
//! 100 m cable (50 and 500 cycles one way at 1 ns per cycle): the link comes up (both ends
//! `llr_state` = up with EE transmission enabled, nothing discarding or stopped) and every EE
//! packet offered is delivered exactly once, in order, bit exact.
//!
//! At 100 m the Init exchange alone has some 500 link-local packets (Init every 32 cycles until
//! the answer has crossed a 1,000-cycle round trip, each answered), so the default run takes a
//! subset where noted: the 1st, (n+1)-th, (2n+1)-th … packet of each opcode in each direction
//! (all of them with `RTLGEN_LONG=1`). The models run every case on 10 m and n = 8 on 100 m;
//! the RTL (both ends Verilated, each in lockstep with its model) n = 4 on 10 m and n = 32 on
//! 100 m.

mod common;

use rtl_gen::blocks::genz_llr::model::*;
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::campaign::genz::campaign::delay_cycles;
use rtl_gen_sim::link::genz::{run_link, Beat, Fate, Hook, LinkOptions, LinkReport};
use rtl_gen_sim::Bench;

#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Bit k of the packet's beats (64 bits a beat, then the marker).
    Flip(usize),
    Drop,
    Lose,
}

/// The opcodes of the two handshakes.
fn handshake(op: u8) -> bool {
    matches!(op, OP_INIT | OP_INIT_ACK | OP_FC | OP_DISCARD | OP_CLEAR | OP_EXIT)
}

/// The first beat of a link-local packet (8-byte beats: an LL packet is two beats).
fn ll_start(b: &Beat) -> bool {
    b.user && !b.last
}

/// Up with EE transmission enabled, not discarding, not stopped.
const SETTLED: u8 = LINK_UP | 4;

struct Timeline {
    /// One corrupted EE beat A→B at or after this cycle starts the Discard handshake.
    hit: u64,
    o: LinkOptions,
}

/// Link-up at cycle 0, a link-down after the first Init exchange, one EE error after the second.
fn timeline(delay: u64) -> Timeline {
    let down_at = 6 * delay + 600;
    let down = delay + 2;
    let hit = down_at + down + 6 * delay + 600;
    // Traffic stops soon after the EE error; the drain (ended once the link is quiet) is long
    // enough for an LLR timer retransmission, which no case should need.
    let o = LinkOptions { cycles: hit + 200, drain_cycles: 8 * delay + 16_000, delay: delay as usize, down_at: Some(down_at), stop_when_quiet: true, seed: 3, ..LinkOptions::default() };
    Timeline { hit, o }
}

/// The directed hook: the EE error at `hit`, and `fault` on LL packet number `target.1` of
/// direction `target.0` (`None`: no fault); records every LL packet `(direction, number, op)`.
fn hook<'a>(hit: u64, target: Option<(usize, usize, Fault)>, log: &'a mut Vec<(usize, usize, u8)>) -> impl FnMut(u64, usize, &mut Beat) -> Fate + 'a {
    let mut count = [0usize; 2];
    let mut hit_done = false;
    // The fault's second beat still to treat, per direction.
    let mut pending: [Option<Fault>; 2] = [None, None];
    move |c: u64, dir: usize, b: &mut Beat| {
        if dir == 0 && c >= hit && !hit_done && !b.user {
            hit_done = true;
            b.data[1] ^= 4;
        }
        if let Some(f) = pending[dir].take() {
            return match f {
                Fault::Flip(k) => {
                    flip(b, k - 65);
                    Fate::Keep
                }
                Fault::Drop => Fate::Drop,
                Fault::Lose => Fate::Lose,
            };
        }
        if !ll_start(b) {
            return Fate::Keep;
        }
        let n = count[dir];
        count[dir] += 1;
        log.push((dir, n, b.data[0]));
        match target {
            Some((d, k, f)) if d == dir && k == n => match f {
                Fault::Flip(bit) if bit < 65 => {
                    flip(b, bit);
                    Fate::Keep
                }
                Fault::Flip(_) => {
                    pending[dir] = Some(f);
                    Fate::Keep
                }
                Fault::Drop => {
                    pending[dir] = Some(f);
                    Fate::Drop
                }
                Fault::Lose => {
                    pending[dir] = Some(f);
                    Fate::Lose
                }
            },
            _ => Fate::Keep,
        }
    }
}

fn flip(b: &mut Beat, bit: usize) {
    if bit == 64 {
        b.user = !b.user;
    } else {
        b.data[bit / 8] ^= 1 << (bit % 8);
    }
}

fn check(r: &LinkReport) -> Result<(), String> {
    if !r.clean() || r.delivered != [r.sent[1], r.sent[0]] || r.sent.contains(&0) || r.final_state != [SETTLED; 2] {
        return Err(format!("sent {:?} delivered {:?} errors {} missing {} final llr_state {:?}", r.sent, r.delivered, r.errors, r.missing, r.final_state));
    }
    Ok(())
}

/// Model or RTL pair.
#[derive(Clone, Copy, PartialEq)]
enum Imp {
    Model,
    Rtl,
}

fn run(bench: &Bench, imp: Imp, o: &LinkOptions, h: &mut Hook) -> Result<LinkReport, String> {
    let cfg = bench.block::<GenzLlrBlock>("genz_llr").expect("genz_llr block").cfg.clone();
    match imp {
        Imp::Model => {
            let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
            run_link(&mut a, &mut b, &cfg, o, h).map_err(|e| e.to_string())
        }
        Imp::Rtl => {
            let m = bench.module("genz_llr", Role::Interface).expect("module");
            let (r, t) = rtl_gen_sim::cosim::genz::twin_link(bench, m, o, h).map_err(|e| e.to_string())?;
            if t.mismatches != 0 {
                return Err(format!("RTL and model disagree: first {:?}", t.first));
            }
            Ok(r)
        }
    }
}

fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

/// Every case on one cable (`stride`: every n-th Init-exchange position, 1 with
/// `RTLGEN_LONG=1`); returns the cases run.
fn sweep(imp: Imp, cable_m: f64, stride: usize) -> usize {
    let stride = if long() { 1 } else { stride };
    let bench = common::bench();
    let t = timeline(delay_cycles(cable_m, 1.0));
    let mut log = vec![];
    let base = run(&bench, imp, &t.o, &mut hook(t.hit, None, &mut log)).expect("baseline");
    check(&base).expect("baseline link");
    let targets: Vec<(usize, usize, u8)> = log.into_iter().filter(|p| handshake(p.2)).collect();
    // Both handshakes ran in both directions (the Init exchange twice).
    for op in [OP_INIT, OP_INIT_ACK, OP_FC, OP_DISCARD, OP_CLEAR, OP_EXIT] {
        assert!(targets.iter().any(|p| p.2 == op), "{cable_m} m: no LL packet {op} in the baseline");
    }
    let mut failures = vec![];
    let mut cases = 0;
    // Positions counted per direction and opcode: the first of each kind always runs.
    let mut seen = std::collections::HashMap::new();
    for &(dir, n, op) in &targets {
        let k = seen.entry((dir, op)).or_insert(0usize);
        *k += 1;
        if (*k - 1) % stride != 0 {
            continue;
        }
        for fault in [Fault::Flip((n * 29 + 64 * dir + 3) % 130), Fault::Drop, Fault::Lose] {
            cases += 1;
            let mut sink = vec![];
            let res = run(&bench, imp, &t.o, &mut hook(t.hit, Some((dir, n, fault)), &mut sink)).and_then(|r| check(&r));
            if let Err(e) = res {
                failures.push(format!("{cable_m} m, direction {dir}, LL packet {n} (op {op}), {fault:?}: {e}"));
            }
        }
    }
    println!("{cable_m} m: {} handshake LL packets, {cases} cases, {} failures", targets.len(), failures.len());
    assert!(failures.is_empty(), "{} of {cases} cases failed, first ones:\n{}", failures.len(), failures[..failures.len().min(8)].join("\n"));
    cases
}

#[test]
fn models_every_handshake_packet_every_fault_10m() {
    assert!(sweep(Imp::Model, 10.0, 1) > 300);
}

#[test]
fn models_handshake_faults_100m() {
    assert!(sweep(Imp::Model, 100.0, 8) > 300);
}

#[test]
fn rtl_handshake_faults_10m() {
    assert!(sweep(Imp::Rtl, 10.0, 4) > 60);
}

#[test]
fn rtl_handshake_faults_100m() {
    assert!(sweep(Imp::Rtl, 100.0, 32) > 60);
}
