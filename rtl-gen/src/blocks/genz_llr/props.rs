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
//! - retry buffer data integrity, one tagged entry (a free constant packet sequence number and
//!   beat index the solver picks): the EE beat on `m_axis_link` that is the tagged entry (first
//!   send or resend) carries the data last written into it from `s_axis`; and order: the EE
//!   beats leave in the order they were written (each the next beat of its packet, or the first
//!   beat of the next packet), restarting only at the acknowledged point after a rewind. With
//!   any two entries, the one written first is therefore read first between rewinds, and each
//!   unchanged. The identity of the beat in the output register is kept by the properties
//!   (`f_out_seq`, `f_out_beat`, taken from the send point when the register loads an EE beat);
//!   the RAMs themselves are never looked at;
//! - the status counters saturate and never wrap.

use super::GenzLlrBlock;
use crate::hw::build::{add, all, and, any, bits_for, cat, dec, eq, id, le, ne, or, sub};
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

    retry_integrity(&mut f, b, reset);

    let cb = cfg.counter_bits;
    for name in super::model::COUNTERS {
        f.saturating(reset, name, name, cb, id("CNT_MAX"));
    }
    Item::Formal(f)
}

/// The retry buffer's data integrity (one tagged entry) and send order, at `s_axis`,
/// `m_axis_link` and the send point.
fn retry_integrity(f: &mut Formal, b: &GenzLlrBlock, reset: crate::info::ResetStyle) {
    let cfg = &b.cfg;
    let dw = 8 * cfg.data_bytes;
    let bb = cfg.beat_bits();
    let run = running(reset);
    // One-beat packets have no beat index: the tag is the packet alone.
    let beat_is = |beat: &str, other: Expr| if bb == 0 { Expr::one() } else { eq(id(beat), other) };
    f.anyconst.push(("f_seq".into(), 16, "the tagged entry's packet sequence number".into()));
    if bb > 0 {
        f.anyconst.push(("f_beat".into(), bb, "the tagged entry's beat index".into()));
    }
    f.items.push(Item::reg("f_full", 1, "the tagged entry has been written since reset"));
    f.items.push(Item::reg("f_data", dw, "the data last written into the tagged entry"));
    let tag_write = all(vec![id("s_fire"), eq(id("head_seq"), id("f_seq")), beat_is("wr_beat", id("f_beat"))]);
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(id("f_full"), Expr::zero())]),
        body: vec![Stmt::when(tag_write, vec![Stmt::set(id("f_full"), Expr::one()), Stmt::set(id("f_data"), id("s_axis_tdata"))])],
    });
    // The link output register loads an EE beat: the middle of one, or the start of one when no
    // link-local packet waits and no rewind is due (the send side's order of choices).
    f.items.push(Item::wire("f_ee_load", 1, "the link output register loads the EE beat at send_seq, send_beat"));
    f.items.push(Item::assign(
        id("f_ee_load"),
        all(vec![id("load"), id("sending_ll").not(), or(id("sending_ee"), all(vec![id("ll_pending").not(), id("rewind").not(), id("ee_ready")]))]),
    ));
    f.items.push(Item::reg("f_out_seq", 16, "packet of the last EE beat loaded into the link output register"));
    let mut load = vec![Stmt::set(id("f_out_seq"), id("send_seq"))];
    if bb > 0 {
        f.items.push(Item::reg("f_out_beat", bb, "its beat index"));
        load.push(Stmt::set(id("f_out_beat"), id("send_beat")));
    }
    f.items.push(Item::reg("f_out_any", 1, "an EE beat was loaded since reset"));
    f.items.push(Item::reg("f_rewound", 1, "the send point went back to the acknowledged point since the last EE beat loaded"));
    load.push(Stmt::set(id("f_out_any"), Expr::one()));
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(id("f_out_any"), Expr::zero()), Stmt::set(id("f_rewound"), Expr::zero())]),
        body: vec![
            Stmt::when(id("f_ee_load"), load),
            Stmt::If(id("rewind_go"), vec![Stmt::set(id("f_rewound"), Expr::one())], vec![Stmt::when(id("f_ee_load"), vec![Stmt::set(id("f_rewound"), Expr::zero())])]),
        ],
    });
    f.assert(
        "p_retry_data",
        "the tagged entry leaves on m_axis_link (sent or resent) with the data last written into it",
        Some(all(vec![
            run.clone(),
            id("m_axis_link_tvalid"),
            id("m_axis_link_tuser").not(),
            id("f_full"),
            eq(id("f_out_seq"), id("f_seq")),
            beat_is("f_out_beat", id("f_beat")),
        ])),
        eq(id("m_axis_link_tdata"), id("f_data")),
    );
    let next_packet = eq(id("send_seq"), add(id("f_out_seq"), dec(16, 1)));
    let in_order = if bb == 0 {
        next_packet
    } else {
        crate::hw::build::mux(
            eq(id("send_beat"), dec(bb, 0)),
            next_packet,
            and(eq(id("send_seq"), id("f_out_seq")), eq(id("send_beat"), add(id("f_out_beat"), dec(bb, 1)))),
        )
    };
    f.assert(
        "p_retry_order",
        "EE beats leave in the order written: the next beat of the packet, or the first of the next packet (until a rewind to the acknowledged point)",
        Some(all(vec![run, id("f_ee_load"), id("f_out_any"), id("f_rewound").not()])),
        in_order,
    );
}
