//! Properties of the `rxl_endpoint` module, at its ports and its own control registers. The
//! CRC generators (transmit and receive), the FEC encoder and decoder and the replay buffer are
//! free instances of the proof (their outputs any value in every cycle): each carries and proves its
//! own properties, and what holds with free outputs holds with the real ones. So a received flit
//! may be good or bad in any cycle, which is every fault pattern a link can produce.
//!
//! - legal states: the timers stay below their timeouts (`stall_timer` < REPLAY_TIMEOUT,
//!   `nack_timer` < NACK_TIMEOUT, `ack_timer` ≤ ACK_TIMEOUT, `since_ack` ≤ ACK_EVERY), and a
//!   pending NACK or a running NACK timer only while discarding;
//! - sequence numbers: an ACK or NACK sent names the SeqNum of the last payload delivered at
//!   `m_payload` (AckNum = delivered − 1, counted at the port), so the peer never frees a flit
//!   this end has not delivered; a replay on timeout starts at the oldest unacknowledged flit
//!   (the buffer's head, inside the window the buffer accepts replays in; the buffer, free in
//!   this proof, judges it a cycle later);
//! - the link port: `tx_valid` is high in every cycle after the first out of reset, and the
//!   flit held for the link (`t1_msg`, which the FEC encoder turns into `tx_flit`, and which
//!   loads only on `load`) does not load while the link stalls it;
//! - bounded liveness (fair link: cycles in which the link takes flits): a discarding end puts
//!   a NACK on the wire within [`nack_bound`] such cycles unless the expected flit arrives (one
//!   lost NACK delays the recovery, never stalls it: the property the Gen-Z Init exchange once
//!   broke), and payloads delivered are acknowledged within [`ack_bound`] such cycles (in the
//!   CXL baseline both counted from the last replay start: the first flit of a replay carries
//!   its SeqNum instead of an AckNum, so a peer that NACKs without end holds them back);
//! - the six status counters saturate and never wrap.

use super::model::Mode;
use super::RxlEndpointBlock;
use crate::hw::build::{add, all, and, any, bits_for, dec, eq, id, le, lt, ne, or, sub};
use crate::hw::props::{in_reset, running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// The status counters (ports), each the output of its saturating register.
pub const COUNTERS: [&str; 6] = ["cnt_flits_sent", "cnt_replays", "cnt_crc_fail", "cnt_fec_corrected", "cnt_fec_uncorrectable", "cnt_nacks_sent"];

/// The sub-module instances the proof leaves free.
const FREE: [&str; 5] = ["u_fec_dec", "u_crc_rx", "u_crc", "u_fec_enc", "u_replay"];

/// Cycles with `tx_ready` high within which a discarding end sends a NACK: the NACK timer's
/// period, then the next flit the link takes carries it (cxl_baseline: the one after, when that
/// flit starts a replay).
pub fn nack_bound(b: &RxlEndpointBlock) -> u32 {
    b.nack_timeout + if b.mode == Mode::Rxl { 1 } else { 2 }
}

/// Cycles with `tx_ready` high within which delivered payloads are acknowledged: the ACK timer's
/// period, one cycle for its registered compare, and (cxl_baseline) the first flit of a replay,
/// which carries its SeqNum instead of an AckNum.
pub fn ack_bound(b: &RxlEndpointBlock) -> u32 {
    b.ack_timeout + if b.mode == Mode::Rxl { 1 } else { 2 }
}

/// A saturating shadow counter `f_<what>_wait` of the cycles with `tx_ready` high in which
/// `waiting` holds, restarted by reset or `done`; asserts it never exceeds `bound`
/// (`p_<what>_repeat`).
fn bounded_wait(f: &mut Formal, design: &DesignInfo, what: &str, doc: &str, waiting: Expr, done: Expr, bound: u32) {
    let reset = design.reset;
    let (name, label) = (format!("f_{what}_wait"), format!("p_{what}_repeat"));
    let (name, label) = (name.as_str(), label.as_str());
    let w = bits_for(bound as u64 + 1);
    f.items.push(Item::reg(name, w, &format!("cycles with tx_ready high spent waiting: {doc} (saturating)")));
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::If(
            any(vec![in_reset(reset), waiting.not(), done]),
            vec![Stmt::set(id(name), dec(w, 0))],
            vec![Stmt::when(and(id("tx_ready"), ne(id(name), dec(w, bound as u64 + 1))), vec![Stmt::set(id(name), add(id(name), dec(w, 1)))])],
        )],
    });
    f.init.push((name.into(), dec(w, 0)));
    f.assert(label, &format!("{doc} within {bound} cycles in which the link takes flits"), Some(running(reset)), le(id(name), dec(w, bound as u64)));
}

pub fn properties(b: &RxlEndpointBlock, design: &DesignInfo, seq_bits: u32) -> Item {
    let cfg = &b.params;
    let reset = design.reset;
    let s = seq_bits;
    let mut f = Formal::clocked(reset);
    f.free_instances = FREE.iter().map(|i| i.to_string()).collect();
    let run = running(reset);
    let prev = f.prev_run(reset);

    f.assert("p_stall_timer", "the replay timer stays below REPLAY_TIMEOUT", Some(run.clone()), lt(id("stall_timer"), id("REPLAY_TIMEOUT")));
    f.assert("p_nack_timer", "the NACK timer stays below NACK_TIMEOUT", Some(run.clone()), lt(id("nack_timer"), id("NACK_TIMEOUT")));
    f.assert("p_ack_state", "ACK coalescing: since_ack <= ACK_EVERY and ack_timer <= ACK_TIMEOUT", Some(run.clone()), and(le(id("since_ack"), id("ACK_EVERY")), le(id("ack_timer"), id("ACK_TIMEOUT"))));
    f.assert(
        "p_nack_discard",
        "a NACK is pending, or its timer runs, only while discarding",
        Some(run.clone()),
        or(id("discard"), and(id("nack_pending").not(), eq(id("nack_timer"), dec(bits_for(cfg.nack_timeout as u64), 0)))),
    );

    // AckNum against the payloads delivered at the port: m_valid pulses counted modulo 2^s.
    f.items.push(Item::reg("f_delivered", s, "payloads delivered at m_payload before this cycle (mod 2^SeqNum bits)"));
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::If(in_reset(reset), vec![Stmt::set(id("f_delivered"), dec(s, 0))], vec![Stmt::when(id("m_valid"), vec![Stmt::set(id("f_delivered"), add(id("f_delivered"), dec(s, 1)))])])],
    });
    f.init.push(("f_delivered".into(), dec(s, 0)));
    let delivered = add(id("f_delivered"), Expr::Concat(vec![dec(s - 1, 0), id("m_valid")]));
    f.assert(
        "p_acknum",
        "an ACK or NACK sent names the last payload delivered at m_payload (AckNum = delivered - 1)",
        Some(all(vec![run.clone(), id("load"), ne(id("tx_cmd"), id("REPLAY_CMD_NONE"))])),
        eq(id("tx_fsn"), sub(delivered, dec(s, 1))),
    );
    // The buffer judges the request a cycle later and is left free here, so its acceptance is
    // not stated; a replay from the head is inside the window [head, push_seq] the buffer
    // accepts replays in (checked against its model in co-simulation).
    f.assert(
        "p_timeout_replay",
        "a replay on timeout starts at the oldest unacknowledged flit (the replay buffer's head)",
        Some(and(run.clone(), id("timeout"))),
        eq(id("replay_seq"), id("rb_head")),
    );

    f.assert("p_tx_valid", "tx_valid is high in every cycle after the first out of reset", Some(and(run.clone(), prev)), id("tx_valid"));
    // `t1_msg` (tx_flit's source) changes only when `load` is high: stated at its enable, so the
    // solver never compares the 2000-bit flit with a shadow copy.
    f.assert("p_tx_hold", "the flit held for the link stays until tx_ready: the flit register does not load while the link stalls it", Some(and(run.clone(), and(id("tx_valid"), id("tx_ready").not()))), id("load").not());

    // The baseline's first flit of a replay carries its SeqNum, not an AckNum: a peer that
    // NACKs without end would hold ACKs and NACKs back, so its waits count from the last replay
    // start (a fair peer).
    let rxl = cfg.mode == Mode::Rxl;
    let sent = |done: &str| if rxl { id(done) } else { or(id(done), id("replay_taken")) };
    let unless = if rxl { "" } else { " (unless a replay starts)" };
    bounded_wait(&mut f, design, "nack", &format!("a discarding end sends a NACK{unless}"), and(id("discard"), id("deliver").not()), sent("nack_sent"), nack_bound(b));
    bounded_wait(&mut f, design, "ack", &format!("payloads delivered are acknowledged{unless}"), ne(id("since_ack"), dec(bits_for(cfg.ack_every as u64), 0)), sent("ack_sent"), ack_bound(b));

    for c in COUNTERS {
        f.saturating(reset, c, c, cfg.counter_bits, id("CNT_MAX"));
    }
    Item::Formal(f)
}
