//! Acknowledgement and replay control: what a received link-local packet does (the
//! acknowledged point moves, the Init exchange, Discard / Clear Discard / Exit Discard), the
//! receiver's error recovery, the link state with its epochs, the Init / FC, Discard, Clear
//! Discard and LLR timers, and the physical layer (a PHY error drops the packet being
//! received; `phy_up` low takes the link down).

use super::super::model::{OP_ACK, OP_CLEAR, OP_DISCARD, OP_EXIT, OP_FC, OP_INIT, OP_INIT_ACK};
use super::tx::slot_add;
use super::Ctx;
use crate::hw::build::{add, all, and, any, dec, eq, id, if_else, mux, ne, or, set_id, sub, when};
use crate::hw::groups::set_next;
use crate::hw::verilog::{Expr, Stmt};

/// The pending link-local packets, in the order the send side starts them.
pub(super) const PENDING: [&str; 7] = ["pend_init_ack", "pend_fc", "pend_init", "pend_exit", "pend_discard", "pend_clear", "pend_ack"];

pub(super) fn declare(c: &mut Ctx) {
    let g = c.g.link;
    let r = &mut c.regs;
    r.reg_reset(g, "link", 2, id("LINK_DOWN"), "link state: LINK_DOWN / LINK_INIT / LINK_UP (llr_state[1:0])");
    r.reg(g, "tx_en", 1, "EE transmission enabled (llr_state[2])");
    r.reg(g, "rx_disc", 1, "receiver discarding after an error (llr_state[3])");
    r.reg(g, "tx_stop", 1, "transmitter stopped, awaiting Exit Discard (llr_state[4])");
    r.reg(g, "epoch", 8, "stop epoch: bumped whenever EE transmission stops");
    r.reg(g, "init_ack_echo", 8, "the epoch of the Init the pending Init ACK answers");
    r.reg(g, "fc_echo", 8, "the epoch the pending FC answers");
    r.reg(g, "exit_echo", 8, "the epoch of the Clear Discard the pending Exit Discard answers");
    r.reg(g, "retrain_pulse", 1, "the retrain output");
    r.pulse(g, "epoch_bump", 1, "EE transmission stops this cycle: the epoch steps");

    let g = c.g.timers;
    r.reg(g, "init_timer", c.w_init, "Init / FC repeat timer (cycles to the next)");
    r.reg(g, "discard_timer", c.w_disc, "Discard repeat timer");
    r.reg(g, "clear_timer", c.w_disc, "Clear Discard repeat timer");
    r.reg(g, "llr_timer", c.w_llrt, "LLR timer (cycles to the next expiry)");
    r.reg(g, "llr_timer_running", 1, "llr_timer is not zero (kept beside it, so the expiry test is one LUT)");
    r.reg(g, "expiries_no_ack", 2, "LLR timer expiries without an ACK received");
    r.reg(g, "expiries_no_progress", 2, "LLR timer expiries without acknowledgement progress");
    r.reg(g, "ack_moved_period", 1, "the acknowledged point moved in this LLR timer period");
    r.reg(g, "ack_moved_q", 1, "the acknowledged point moved in the previous cycle");
    r.reg(g, "discards_unanswered", c.w_dsc, "Discards sent without a Clear Discard received");
    r.reg(g, "delivered_since_ack", c.w_sa, "EE packets delivered since the last ACK was queued");
    r.pulse(g, "ack_moved", 1, "the acknowledged point moves this cycle");

    let g = c.g.pending;
    for (name, doc) in PENDING.iter().zip(["Init ACK", "flow control", "Init", "Exit Discard", "Discard", "Clear Discard", "ACK"]) {
        r.reg(g, name, 1, &format!("pending link-local packet: {doc}"));
    }
}

/// The received link-local packet acted on this cycle.
pub(super) fn received_ll(c: &mut Ctx) {
    c.comment("The link-local packet received last cycle: acknowledgement and resume decisions.");
    c.wire(
        "echo_ok",
        1,
        "the received echo equals epoch (which moved by at most one since the compares)",
        mux(ne(Expr::bit("epoch", 0), id("rx_ll_epoch_lsb")), id("rx_ll_echo_is_epoch1"), id("rx_ll_echo_is_epoch")),
    );
    let enable = all(vec![or(c.got(OP_INIT_ACK), c.got(OP_FC)), id("echo_ok"), id("tx_en").not()]);
    c.wire("enable", 1, "an Init ACK or FC answering a packet sent since our last stop: resume EE from its RSEQ", enable);
    let exit_ok = all(vec![c.got(OP_EXIT), ne(id("link"), id("LINK_DOWN")), id("tx_stop"), id("echo_ok")]);
    c.wire("exit_ok", 1, "an Exit Discard answering a Clear Discard sent since our stop: resume from its RSEQ", exit_ok);
    // The window was compared against send_seq as it was; since then send_seq stepped by one
    // (the window grew by RSEQ = send_seq + 1), went back to ack_seq, or stayed.
    let window = mux(id("send_rewound"), id("rx_ll_ack_same"), or(id("rx_ll_in_window"), and(id("send_stepped"), id("rx_ll_at_send1"))));
    c.wire("ack_ok", 1, "RSEQ lies between the acknowledged point and the send point", window);
    if c.seq_slots {
        c.wire("ack_slot_new", c.sb, "the slot of RSEQ (slots are the low bits of the sequence number)", Expr::slice("rx_ll_rseq", c.sb - 1, 0));
    } else {
        slot_add(c, "ack_slot_new", "ack_slot", id("rx_ll_ack_dist"));
    }
    let carries_ack = any(vec![id("enable"), c.got(OP_ACK), and(c.got(OP_DISCARD), ne(id("link"), id("LINK_DOWN"))), id("exit_ok")]);
    c.wire("do_ack", 1, "an enabling Init ACK / FC, ACK, Discard, Exit Discard (stopped) carry an acknowledgement", carries_ack);
    c.wire("ack_move", 1, "the acknowledged point moves to RSEQ", and(id("do_ack"), id("ack_ok")));
    c.wire("expiry", 1, "the LLR timer expires", and(eq(id("link"), id("LINK_UP")), id("llr_timer_running").not()));

    let link_not_down = ne(id("link"), id("LINK_DOWN"));
    c.section("The link-local packet received last cycle.");
    let returned = (0..c.vcs).map(|v| set_next(&Ctx::vc("credit_returned", v), id(&Ctx::vc("rx_ll_delivered", v)))).collect();
    c.step(when(id("rx_ll_valid"), returned));
    c.step(when(
        id("ack_move"),
        vec![set_next("ack_seq", id("rx_ll_rseq")), set_next("ack_seq_inc", id("rx_ll_rseq_inc")), set_next("ack_slot", id("ack_slot_new")), set_id("ack_moved", id("rx_ll_ack_same").not())],
    ));
    c.step(set_next("ack_moved_q", id("ack_moved")));
    c.step(when(
        c.got(OP_INIT),
        vec![
            set_next("pend_init_ack", Expr::one()),
            set_next("init_ack_echo", id("rx_ll_epoch")),
            set_id("epoch_bump", Expr::one()),
            set_next("tx_en", Expr::zero()),
            set_next("tx_stop", Expr::zero()),
            set_next("rx_disc", Expr::zero()),
            when(eq(id("link"), id("LINK_UP")), vec![set_next("init_timer", id("INIT_RELOAD"))]),
        ],
    ));
    c.step(when(
        c.got(OP_INIT_ACK),
        vec![
            set_next("pend_fc", Expr::one()),
            set_next("fc_echo", id("rx_ll_epoch")),
            when(eq(id("link"), id("LINK_INIT")), vec![set_next("link", id("LINK_UP")), set_next("pend_init", Expr::zero()), set_next("init_timer", id("INIT_RELOAD"))]),
        ],
    ));
    c.step(when(and(c.got(OP_FC), id("rx_ll_tx_en").not()), vec![set_next("pend_fc", Expr::one()), set_next("fc_echo", id("rx_ll_epoch"))]));
    c.step(when(id("enable"), vec![set_next("rewind", Expr::one()), set_next("tx_en", Expr::one()), set_next("tx_stop", Expr::zero())]));
    c.step(when(c.got(OP_ACK), vec![set_id("inc_acks_received", Expr::one())]));
    c.step(when(
        c.got(OP_DISCARD),
        vec![
            set_id("inc_discards_received", Expr::one()),
            when(
                link_not_down.clone(),
                vec![
                    when(id("tx_stop").not(), vec![set_id("epoch_bump", Expr::one())]),
                    set_next("tx_stop", Expr::one()),
                    set_next("pend_clear", Expr::one()),
                    set_next("clear_timer", id("DISC_RELOAD")),
                ],
            ),
        ],
    ));
    c.step(when(
        and(c.got(OP_CLEAR), link_not_down.clone()),
        vec![
            set_next("pend_exit", Expr::one()),
            set_next("exit_echo", id("rx_ll_epoch")),
            set_next("pend_discard", Expr::zero()),
            set_next("rx_disc", Expr::zero()),
            set_next("discards_unanswered", dec(c.w_dsc, 0)),
        ],
    ));
    c.step(when(id("exit_ok"), vec![set_next("rewind", Expr::one()), set_next("tx_stop", Expr::zero()), set_next("tx_en", Expr::one())]));
    c.section("Receive error: start discarding (a Discard goes out next cycle).");
    c.step(when(all(vec![id("rx_err"), link_not_down, id("rx_disc").not()]), vec![set_next("rx_disc", Expr::one()), set_next("discard_timer", dec(c.w_disc, 0))]));
}

/// A repeat timer: at zero raise `flag` and reload, else count down.
fn periodic(timer: &str, w: u32, reload: &str, flag: &str) -> Stmt {
    if_else(eq(id(timer), dec(w, 0)), vec![set_next(flag, Expr::one()), set_next(timer, id(reload))], vec![set_next(timer, sub(id(timer), dec(w, 1)))])
}

/// The Init / FC, Discard, Clear Discard and LLR timers.
pub(super) fn timers(c: &mut Ctx) {
    let (w_init, w_disc, w_llrt) = (c.w_init, c.w_disc, c.w_llrt);
    let link_not_down = ne(id("link"), id("LINK_DOWN"));
    let link_up = eq(id("link"), id("LINK_UP"));
    c.section("Timers.");
    c.step(if_else(
        and(eq(id("link"), id("LINK_INIT")), c.got(OP_INIT_ACK).not()),
        vec![periodic("init_timer", w_init, "INIT_RELOAD", "pend_init")],
        vec![when(all(vec![link_up.clone(), id("tx_en").not(), c.got(OP_INIT).not()]), vec![periodic("init_timer", w_init, "INIT_RELOAD", "pend_fc")])],
    ));
    c.step(when(and(link_not_down.clone(), id("rx_disc")), vec![periodic("discard_timer", w_disc, "DISC_RELOAD", "pend_discard")]));
    c.step(when(and(link_not_down, id("tx_stop")), vec![periodic("clear_timer", w_disc, "DISC_RELOAD", "pend_clear")]));
    let reload_running = ne(id("LLRT_RELOAD"), dec(w_llrt, 0));
    c.step(when(
        link_up,
        vec![
            set_next("llr_timer", mux(id("expiry"), id("LLRT_RELOAD"), sub(id("llr_timer"), dec(w_llrt, 1)))),
            set_next("llr_timer_running", mux(id("expiry"), reload_running.clone(), ne(id("llr_timer"), dec(w_llrt, 1)))),
        ],
    ));
    c.step(if_else(
        c.got(OP_ACK),
        vec![set_next("expiries_no_ack", dec(2, 0))],
        vec![when(
            id("expiry"),
            vec![if_else(
                eq(id("expiries_no_ack"), id("NOACK_LAST")),
                vec![set_next("expiries_no_ack", dec(2, 0)), set_id("retrain_req", Expr::one())],
                vec![set_next("expiries_no_ack", add(id("expiries_no_ack"), dec(2, 1)))],
            )],
        )],
    ));
    c.step(set_next("ack_moved_period", mux(id("expiry"), id("ack_moved_q"), or(id("ack_moved_period"), id("ack_moved_q")))));
    let stalled = all(vec![id("send_ne_ack"), id("ack_moved_period").not(), id("ack_moved_q").not(), id("tx_stop").not()]);
    c.step(when(
        id("expiry"),
        vec![
            set_next("pend_ack", Expr::one()),
            if_else(
                stalled,
                vec![if_else(
                    eq(id("expiries_no_progress"), id("STALL_LAST")),
                    vec![
                        set_next("expiries_no_progress", dec(2, 0)),
                        set_id("epoch_bump", Expr::one()),
                        set_next("tx_stop", Expr::one()),
                        set_next("pend_clear", Expr::one()),
                        set_next("clear_timer", id("DISC_RELOAD")),
                        set_id("inc_timer_retransmissions", Expr::one()),
                    ],
                    vec![set_next("expiries_no_progress", add(id("expiries_no_progress"), dec(2, 1)))],
                )],
                vec![set_next("expiries_no_progress", dec(2, 0))],
            ),
        ],
    ));
    c.step(when(
        and(c.got(OP_INIT_ACK), eq(id("link"), id("LINK_INIT"))),
        vec![
            set_next("llr_timer", id("LLRT_RELOAD")),
            set_next("llr_timer_running", reload_running),
            set_next("expiries_no_ack", dec(2, 0)),
            set_next("expiries_no_progress", dec(2, 0)),
            set_next("ack_moved_period", Expr::zero()),
        ],
    ));
}

/// A PHY error drops the packet being received; `phy_up` low takes the link down. Then the
/// epoch steps if anything stopped EE transmission this cycle, and the retrain request leaves.
pub(super) fn physical_layer(c: &mut Ctx) {
    c.section("Physical layer: a PHY error (registered with the beat) drops the packet being received; phy_up low takes the link down.");
    c.step(when(
        id("rx_in_drop"),
        vec![set_next("rx_beat", dec(c.rbw, 0)), set_next("rx_first", Expr::one()), set_next("rx_fits", Expr::one()), set_next("rx_bad", Expr::zero()), set_next("rx_wr", id("rx_commit"))],
    ));
    let mut down = vec![set_next("link", id("LINK_DOWN"))];
    for x in ["tx_en", "rx_disc", "tx_stop"].into_iter().chain(PENDING).chain(["out_valid", "sending_ll", "sending_ee", "rewind"]) {
        down.push(set_next(x, Expr::zero()));
    }
    down.push(when(ne(id("link"), id("LINK_DOWN")), vec![set_id("epoch_bump", Expr::one())]));
    down.extend([
        set_next("tx_ll_beat", dec(c.llbw, 0)),
        set_next("send_beat", dec(c.bb, 0)),
        set_next("expiries_no_ack", dec(2, 0)),
        set_next("expiries_no_progress", dec(2, 0)),
        set_next("discards_unanswered", dec(c.w_dsc, 0)),
    ]);
    c.step(if_else(
        id("phy_up").not(),
        down,
        vec![when(eq(id("link"), id("LINK_DOWN")), vec![set_next("link", id("LINK_INIT")), set_next("init_timer", dec(c.w_init, 0))])],
    ));
    // Every stop steps the epoch by one from its registered value, however many coincide.
    c.step(when(id("epoch_bump"), vec![set_next("epoch", add(id("epoch"), dec(8, 1)))]));
    c.step(set_id("inc_retrains", id("retrain_req")));
    c.step(set_next("retrain_pulse", id("retrain_req")));
}
