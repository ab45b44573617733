//! Properties of the `genz_llr` interface, stated at its ports and architectural registers
//! (never at the retry or receive RAM, so they hold whichever way the RAMs are built):
//!
//! - legal states: `link` only takes LINK_DOWN / LINK_INIT / LINK_UP, and a link that is down
//!   has EE transmission disabled, nothing discarding and nothing stopped (`llr_state[4:2]` = 0);
//! - go-back-N window: at most SLOTS packets unacknowledged, and the send point between the
//!   acknowledged point and the head (an acknowledged packet is never sent again);
//! - streams: `m_axis` and `m_axis_link` keep `tvalid` and the payload until `tready`
//!   (`m_axis_link` only while `phy_up` stays high: the port is withdrawn when the PHY goes
//!   down, as its port doc says), assuming the same of the `s_axis` sender;
//! - Init exchange progress (the property a lost flow-control packet once broke): an end that
//!   is up with EE transmission disabled (`llr_state[1:0]` = up, `llr_state[2]` = 0) starts a
//!   flow-control packet on `m_axis_link` within [`fc_bound`] cycles in which the PHY takes
//!   beats, unless an Init arrives or `phy_up` drops. With the peer's rule (an FC that says it
//!   waits is answered by an FC echoing its epoch, which enables the waiting end) this bounds
//!   every wait of the exchange: one lost or corrupted link-local packet delays it, never stalls
//!   it;
//! - the status counters saturate and never wrap.

use super::GenzLlrBlock;
use crate::hw::build::{add, all, and, any, bits_for, cat, dec, eq, id, le, lt, ne, or, sub};
use crate::hw::props::{in_reset, running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// Cycles with `m_axis_link_tready` high within which a waiting end starts an FC: the Init
/// period (the FC timer), then the packet on the link finishing (a maximum EE packet or a
/// link-local packet) and the FC's first beat taken, plus one cycle for the registered timer.
pub fn fc_bound(b: &GenzLlrBlock) -> u32 {
    let cfg = &b.cfg;
    cfg.init_cycles + cfg.max_beats().max(cfg.ll_beats()) + 2
}

pub fn properties(b: &GenzLlrBlock, design: &DesignInfo) -> Item {
    let cfg = &b.cfg;
    let reset = design.reset;
    let d = cfg.data_bytes;
    let dw = 8 * d;
    let vb = cfg.vc_bits();
    let mut f = Formal::clocked(reset);
    let run = running(reset);

    f.assert("p_link_legal", "the link state is one of LINK_DOWN, LINK_INIT, LINK_UP", Some(run.clone()), ne(id("link"), dec(2, 3)));
    f.assert(
        "p_down_quiet",
        "a link that is down has EE transmission disabled, nothing discarding, nothing stopped",
        Some(and(run.clone(), eq(id("link"), id("LINK_DOWN")))),
        all(vec![id("tx_en").not(), id("rx_disc").not(), id("tx_stop").not()]),
    );

    // Go-back-N window of the retry buffer (16-bit sequence numbers, compared as distances from
    // the acknowledged point): at most SLOTS packets held, and the send point between the
    // acknowledged point and the head, so an acknowledged packet is never sent again.
    let from_ack = |x: &str| sub(id(x), id("ack_seq"));
    f.assert("p_retry_window", "at most SLOTS packets are held unacknowledged", Some(run.clone()), le(cat(vec![Expr::zero(), from_ack("head_seq")]), dec(17, cfg.slots() as u64)));
    f.assert("p_send_window", "the send point lies between the acknowledged point and the head", Some(run.clone()), le(from_ack("send_seq"), from_ack("head_seq")));

    // Invariants the induction needs (true in every reachable state, checked like the rest):
    // without them a k-induction may start from a state whose registers disagree with each
    // other and step the window wrongly.
    // Each `_inc` register is loaded beside its number (reset to 1 beside 0, stepped with it,
    // or loaded with the `_inc` of the value loaded), so it always holds that number plus one;
    // the send point steps to send_seq_inc and the acknowledged point to rx_ll_rseq_inc.
    let plus_one = |x: &str| eq(id(&format!("{x}_inc")), add(id(x), dec(16, 1)));
    f.assert(
        "p_seq_inc",
        "send_seq_inc, ack_seq_inc, sent_max_inc and rx_ll_rseq_inc are their numbers plus one",
        Some(run.clone()),
        all(vec![plus_one("send_seq"), plus_one("ack_seq"), plus_one("sent_max"), plus_one("rx_ll_rseq")]),
    );
    // A packet is admitted at its first beat only with a free slot, the acknowledged point
    // never moves past the head, and head_seq steps at its last beat: the slot it is written
    // into is counted before head_seq does.
    f.assert(
        "p_write_slot",
        "a packet being written has a retry slot: fewer than SLOTS packets held",
        Some(and(run.clone(), id("wr_active"))),
        lt(cat(vec![Expr::zero(), from_ack("head_seq")]), dec(17, cfg.slots() as u64)),
    );
    // The receive FIFO's pointers in order from the read pointer (ra + 1 bits, distances mod
    // 2^(ra+1)): delivered <= visible commit <= commit <= write <= read + depth. rx_commit only
    // moves forward to a written word, rx_commit_vis follows it a cycle late, a drop takes
    // rx_wr back to rx_commit, rx_full stops writes at depth. So no write lands on a committed,
    // undelivered word, and the RAM's read register of a stalled m_axis beat keeps it.
    let ra = cfg.rx_addr_bits();
    let from_rd = |x: &str| sub(id(x), id("rx_rd"));
    f.assert(
        "p_rx_fifo",
        "the receive FIFO's pointers: rx_rd <= rx_commit_vis <= rx_commit <= rx_wr <= rx_rd + depth",
        Some(run.clone()),
        all(vec![le(from_rd("rx_commit_vis"), from_rd("rx_commit")), le(from_rd("rx_commit"), from_rd("rx_wr")), le(from_rd("rx_wr"), dec(ra + 1, 1u64 << ra))]),
    );
    // A received link-local packet is acted on the cycle after its last beat, which restarted
    // the beat count; the next one ends at beat LL_LAST >= 1 (16 bytes are two beats or more).
    // So two are never acted on in consecutive cycles, and the window compares registered with
    // one still see the acknowledged point they were made against.
    f.assert("p_ll_spaced", "a link-local packet acted on now is followed by none next cycle (the beat count restarted)", Some(and(run.clone(), id("rx_ll_valid"))), eq(id("rx_beat"), dec(bits_for(cfg.rx_beat_max() as u64), 0)));
    // An EE packet is only started while a written packet waits unsent, and the send point
    // steps past it only at its last beat: mid-packet the send point is strictly below the head.
    f.assert("p_sending_unsent", "an EE packet being sent lies below the head", Some(run.clone()), or(id("sending_ee").not(), ne(id("send_seq"), id("head_seq"))));
    // ee_unsent compares send_seq with head_seq one edge late; head_seq only grows, and the
    // send point reaches the head only by stepping past a packet below it, so a packet the
    // compare says waits does wait.
    f.assert("p_unsent", "a packet that ee_unsent says waits lies below the head", Some(run.clone()), or(id("ee_unsent").not(), ne(id("send_seq"), id("head_seq"))));

    f.stream_in(reset, "s_axis", &[("tdata", dw), ("tlast", 1), ("tuser", vb)]);
    f.stream_out(reset, "m_axis", &[("tdata", dw), ("tlast", 1), ("tuser", vb)], None);
    f.stream_out(reset, "m_axis_link", &[("tdata", dw), ("tlast", 1), ("tuser", 1)], Some(id("phy_up")));

    // Init exchange progress, observed at the ports: the first beat of a link-local packet with
    // the FC opcode taken by the PHY.
    f.items.push(Item::reg("f_link_mid", 1, "m_axis_link is inside a packet (a beat without tlast was taken)"));
    let taken = and(id("m_axis_link_tvalid"), id("m_axis_link_tready"));
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::If(or(in_reset(reset), id("phy_up").not()), vec![Stmt::set(id("f_link_mid"), Expr::zero())], vec![Stmt::when(taken.clone(), vec![Stmt::set(id("f_link_mid"), id("m_axis_link_tlast").not())])])],
    });
    f.items.push(Item::wire("f_fc_start", 1, "the PHY takes the first beat of a flow-control packet"));
    f.items.push(Item::assign(id("f_fc_start"), all(vec![taken, id("m_axis_link_tuser"), id("f_link_mid").not(), eq(Expr::slice("m_axis_link_tdata", 7, 0), id("OP_FC"))])));
    f.items.push(Item::wire("f_waiting", 1, "up with EE transmission disabled: waiting for the FC that enables it"));
    f.items.push(Item::assign(id("f_waiting"), and(eq(Expr::slice("llr_state", 1, 0), id("LINK_UP")), Expr::bit("llr_state", 2).not())));
    let bound = fc_bound(b);
    let ww = bits_for(bound as u64 + 1);
    f.items.push(Item::reg("f_wait", ww, "cycles with m_axis_link_tready high spent waiting since the last FC started (saturating)"));
    let restart = any(vec![in_reset(reset), id("phy_up").not(), id("f_waiting").not(), id("f_fc_start"), and(id("rx_ll_valid"), Expr::bit("rx_ll_op_hot", super::model::OP_INIT as u32 - 1))]);
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::If(
            restart,
            vec![Stmt::set(id("f_wait"), dec(ww, 0))],
            vec![Stmt::when(and(id("m_axis_link_tready"), ne(id("f_wait"), dec(ww, bound as u64 + 1))), vec![Stmt::set(id("f_wait"), add(id("f_wait"), dec(ww, 1)))])],
        )],
    });
    f.init.push(("f_wait".into(), dec(ww, 0)));
    f.assert(
        "p_fc_repeat",
        &format!("a waiting end starts an FC within {bound} cycles in which the PHY takes beats (unless an Init arrives or phy_up drops)"),
        Some(run),
        le(id("f_wait"), dec(ww, bound as u64)),
    );

    let cb = cfg.counter_bits;
    for name in super::model::COUNTERS {
        f.saturating(reset, name, name, cb, id("CNT_MAX"));
    }
    Item::Formal(f)
}
