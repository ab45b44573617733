//! The transmitter: the retry-buffer write side (`s_axis` into slot `head_slot`, one credit of
//! the packet's VC per packet, the credit flags for the next cycle) and the send side (the link
//! output register, which starts a pending link-local packet, rewinds to the acknowledged
//! point, or sends the next EE packet from the retry RAM). A link-local packet's 12-byte body
//! is registered when it starts; its CRC (the last 4 bytes) is computed from that register
//! while the earlier beats are on the link. Where each packet ends is kept per slot in
//! flip-flops (`slot_last`, up to [`SLOT_LAST_MAX`] slots), so the send point's next beat and
//! slot (the retry RAM's read address) never wait for the RAM's data output.

use super::super::model::LL_BYTES;
use super::control::PENDING;
use super::crc::ll_crc_map;
use super::Ctx;
use crate::hw::build::{add, all, and, any, bit_of, cat, dec, eq, ge, id, if_else, lt, mux, ne, or, set_id, sub, when};
use crate::hw::groups::set_next;
use crate::hw::verilog::{Expr, Item};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};

/// Bits of a link-local packet's body (bytes 0-11, before its CRC).
const BODY: u32 = 96;

/// Most retry slots whose packets' last beats are kept in flip-flops (`slot_last`) rather than
/// as a flag in the retry RAM: the send point's next beat then never waits for the RAM's data
/// output (a block RAM's clock-to-out without its output register is most of a cycle at 125 MHz).
pub(super) const SLOT_LAST_MAX: u32 = 16;

pub(super) fn declare(c: &mut Ctx) {
    let (bb, sb) = (c.bb, c.sb);
    let g = c.g.write;
    let r = &mut c.regs;
    r.reg(g, "wr_beat", bb, "beat index of the packet being written");
    r.reg(g, "wr_active", 1, "a packet is being written (past its first beat)");
    for v in 0..c.vcs {
        r.reg(g, &Ctx::vc("credit_taken", v), 8, &format!("credits of VC {v} used (mod 256)"));
        r.reg(g, &Ctx::vc("credit_returned", v), 8, &format!("credits of VC {v} returned by the peer (mod 256)"));
        r.reg(g, &Ctx::vc("no_credit", v), 1, &format!("VC {v} has no credit (without a packet started last cycle)"));
        r.reg(g, &Ctx::vc("no_credit_after_one", v), 1, &format!("VC {v} would have no credit after one more packet"));
        r.reg(g, &Ctx::vc("started_vc", v), 1, &format!("a packet of VC {v} started last cycle"));
    }
    if !c.ram_last && bb > 0 {
        r.reg(g, "slot_last", c.slots * bb, "beat index of the last beat of the packet in each slot (slot k at [k*bits +: bits])");
    }
    r.pulse(g, "tx_we", 1, "write the s_axis beat into the retry RAM");
    r.pulse(g, "tx_wlast", 1, "its last flag");

    let g = c.g.seq;
    r.reg(g, "head_seq", 16, "sequence number of the next EE packet written into the retry buffer");
    r.reg(g, "head_slot", sb, "its retry slot");
    r.reg(g, "ack_seq", 16, "acknowledged point: the oldest EE packet not acknowledged");
    r.reg_reset(g, "ack_seq_inc", 16, dec(16, 1), "ack_seq + 1, kept beside it");
    r.reg(g, "ack_slot", sb, "its retry slot");
    r.reg(g, "send_seq", 16, "TSEQ: the next EE packet to put on the link");
    r.reg_reset(g, "send_seq_inc", 16, dec(16, 1), "send_seq + 1, kept beside it");
    r.reg(g, "send_ne_ack", 1, "send_seq differs from ack_seq: packets are sent and unacknowledged");
    r.reg(g, "send_slot", sb, "its retry slot");
    r.reg(g, "send_beat", bb, "beat index of the packet being sent");
    r.reg(g, "sending_ee", 1, "an EE packet is being sent (past its first beat)");
    r.reg(g, "rewind", 1, "a go-back to the acknowledged point is due");
    r.reg(g, "sent_max", 16, "EE packets ever sent whole (for counting resends)");
    r.reg_reset(g, "sent_max_inc", 16, dec(16, 1), "sent_max + 1, kept beside it");
    r.reg(g, "send_stepped", 1, "send_seq stepped by one at the last edge");
    r.reg(g, "send_rewound", 1, "send_seq went back to ack_seq at the last edge");
    r.reg(g, "head_ne_send", 1, "head_seq differed from send_seq before the last edge");
    r.reg(g, "head_ne_send1", 1, "head_seq differed from send_seq + 1 before the last edge");
    r.reg(g, "head_ne_ack", 1, "head_seq differed from ack_seq before the last edge");

    let g = c.g.out;
    r.reg(g, "out_valid", 1, "link output register: valid");
    r.reg(g, "out_data", c.dw, "link output register: beat");
    r.reg(g, "out_last", 1, "link output register: last");
    r.reg(g, "out_user", 1, "link output register: LL marker");
    r.reg(g, "out_first_send", 1, "the output beat ends an EE packet never taken whole before");
    r.reg(g, "sending_ll", 1, "a link-local packet is being sent (past its first beat)");
    r.reg(g, "tx_ll_beat", c.llbw, "beat index of the link-local packet being sent");
    r.reg(g, "tx_ll_body", BODY, "its bytes 0-11 (its CRC follows from them)");
}

/// `out = (base + d) mod SLOTS` for d <= SLOTS, from a 16-bit `d`.
pub(super) fn slot_add(c: &mut Ctx, out: &str, base: &str, d: Expr) {
    let (dw, sb) = (16, c.sb);
    let sum = format!("{out}_sum");
    c.wire(&sum, dw + 1, "", add(cat(vec![dec(dw + 1 - sb, 0), id(base)]), cat(vec![Expr::zero(), d])));
    let wrapped = sub(id(&sum), id("SLOTS"));
    let sel = ge(id(&sum), id("SLOTS"));
    c.wire(&format!("{out}_mod"), dw + 1, "", mux(sel, wrapped, id(&sum)));
    c.wire(out, sb, &format!("({base} + d) mod SLOTS"), Expr::slice(&format!("{out}_mod"), sb - 1, 0));
    c.wires.push(Item::pragma("verilator lint_off UNUSED"));
    c.wire(&format!("{out}_hi"), dw + 1 - sb, "upper bits, zero", Expr::slice(&format!("{out}_mod"), dw, sb));
    c.wires.push(Item::pragma("verilator lint_on UNUSED"));
}

/// `s_axis` into the retry buffer, credits per VC.
pub(super) fn write_side(c: &mut Ctx) {
    let (vb, vcs, bb, sb) = (c.vb, c.vcs, c.bb, c.sb);
    let vc_is = |v: u32| eq(id("s_axis_tuser"), dec(vb, v as u64));
    c.comment("Retry buffer write side: credits and room for a new packet.");
    let credit_terms = (0..vcs)
        .map(|v| {
            let short = mux(id(&Ctx::vc("started_vc", v)), id(&Ctx::vc("no_credit_after_one", v)), id(&Ctx::vc("no_credit", v)));
            and(vc_is(v), short.not())
        })
        .collect();
    c.wire("credit_ok", 1, "the offered VC has a credit", any(credit_terms));
    for v in 0..vcs {
        // Credits in use next cycle, before this cycle's start: taken minus returned as it will
        // be (a received LL packet's count loads now).
        let returned = mux(id("rx_ll_valid"), id(&Ctx::vc("rx_ll_delivered", v)), id(&Ctx::vc("credit_returned", v)));
        c.wire(&Ctx::vc("credits_in_use", v), 8, &format!("credits of VC {v} in use after this cycle, without a packet started now"), sub(id(&Ctx::vc("credit_taken", v)), returned));
    }
    if c.slots.is_power_of_two() {
        // At most SLOTS (a power of two) packets are held: the low k+1 bits of the sequence
        // numbers tell a full buffer (head_seq - ack_seq = SLOTS) from an empty one.
        let k = c.slots.trailing_zeros();
        let hi_differs = ne(Expr::bit("head_seq", k), Expr::bit("ack_seq", k));
        let full = if k == 0 { hi_differs } else { and(eq(Expr::slice("head_seq", k - 1, 0), Expr::slice("ack_seq", k - 1, 0)), hi_differs) };
        c.wire("slot_free", 1, "a retry slot is free (fewer than SLOTS packets held)", full.not());
    } else {
        c.wire("outstanding", 16, "packets in the retry buffer", sub(id("head_seq"), id("ack_seq")));
        c.wire("slot_free", 1, "a retry slot is free", lt(cat(vec![Expr::zero(), id("outstanding")]), id("SLOTS")));
    }
    c.wire("s_ready", 1, "s_axis takes the beat: mid-packet, or a free slot and a credit", or(id("wr_active"), and(id("slot_free"), id("credit_ok"))));
    c.wire("s_fire", 1, "a beat enters the retry buffer", and(id("s_axis_tvalid"), id("s_ready")));
    if c.seq_slots {
        c.wire("head_slot_inc", sb, "the next slot", add(id("head_slot"), dec(sb, 1)));
        c.wire("send_slot_inc", sb, "the next slot", add(id("send_slot"), dec(sb, 1)));
    } else {
        slot_add(c, "head_slot_inc", "head_slot", dec(16, 1));
        slot_add(c, "send_slot_inc", "send_slot", dec(16, 1));
    }

    c.section("Retry buffer write side: s_axis into the slot head_slot.");
    let take_credit = (0..vcs).map(|v| when(vc_is(v), vec![set_next(&Ctx::vc("credit_taken", v), add(id(&Ctx::vc("credit_taken", v)), dec(8, 1)))])).collect();
    c.step(when(
        id("s_fire"),
        vec![
            set_id("tx_we", Expr::one()),
            set_id("tx_wlast", or(id("s_axis_tlast"), eq(id("wr_beat"), id("BEAT_LAST")))),
            when(id("wr_active").not(), take_credit),
            if_else(
                id("tx_wlast"),
                {
                    let mut done = vec![set_next("wr_active", Expr::zero()), set_next("wr_beat", dec(bb, 0)), set_next("head_seq", add(id("head_seq"), dec(16, 1))), set_next("head_slot", id("head_slot_inc"))];
                    if !c.ram_last && bb > 0 {
                        // The packet's last beat index, into its slot's field.
                        for k in 0..c.slots {
                            let field = crate::hw::verilog::Stmt::set(slot_field("slot_last_n", c.slots, bb, k), id("wr_beat"));
                            done.push(if c.slots == 1 { field } else { when(eq(id("head_slot"), dec(sb, k as u64)), vec![field]) });
                        }
                    }
                    done
                },
                vec![set_next("wr_active", Expr::one()), set_next("wr_beat", add(id("wr_beat"), dec(bb, 1)))],
            ),
        ],
    ));
    c.section("Credit flags for the next cycle: in use after this cycle, with or without one more packet.");
    for v in 0..vcs {
        let used = id(&Ctx::vc("credits_in_use", v));
        c.step(set_next(&Ctx::vc("no_credit", v), ge(used.clone(), id("RX_CREDITS"))));
        let after_one = if c.cfg.rx_credits >= 2 { ge(used, dec(8, c.cfg.rx_credits as u64 - 1)) } else { Expr::one() };
        c.step(set_next(&Ctx::vc("no_credit_after_one", v), after_one));
        c.step(set_next(&Ctx::vc("started_vc", v), all(vec![id("s_fire"), id("wr_active").not(), vc_is(v)])));
    }
}

/// Slot `k`'s field of `name` (`slots` fields of `bb` bits; a one-bit register whole).
fn slot_field(name: &str, slots: u32, bb: u32, k: u32) -> Expr {
    if slots * bb == 1 {
        id(name)
    } else {
        Expr::slice(name, (k + 1) * bb - 1, k * bb)
    }
}

/// `slot_last[send_slot]`: a tree of 2:1 selects on the bits of `send_slot`.
fn slot_select(slots: u32, sb: u32, bb: u32) -> Expr {
    fn tree(lo: u32, span: u32, level: u32, slots: u32, sb: u32, bb: u32) -> Expr {
        if span == 1 {
            return slot_field("slot_last", slots, bb, lo);
        }
        let half = span / 2;
        if lo + half >= slots {
            return tree(lo, half, level - 1, slots, sb, bb);
        }
        mux(bit_of("send_slot", sb, level - 1), tree(lo + half, half, level - 1, slots, sb, bb), tree(lo, half, level - 1, slots, sb, bb))
    }
    if sb == 0 {
        slot_field("slot_last", slots, bb, 0)
    } else {
        tree(0, 1 << sb, sb, slots, sb, bb)
    }
}

/// The link-local packet the send side would start now: its opcode by priority (Init ACK, FC,
/// Init, Exit, Discard, Clear, ACK), its echo, and the fields of bytes 0-11.
fn ll_packet(c: &mut Ctx) {
    c.comment("Send side: the link-local packet to start (priority Init ACK, FC, Init, Exit, Discard, Clear, ACK).");
    c.wire("ll_pending", 1, "a link-local packet waits", any(PENDING.iter().map(|p| id(p)).collect()));
    let op = mux(
        id("pend_init_ack"),
        id("OP_INIT_ACK"),
        mux(id("pend_fc"), id("OP_FC"), mux(id("pend_init"), id("OP_INIT"), mux(id("pend_exit"), id("OP_EXIT"), mux(id("pend_discard"), id("OP_DISCARD"), mux(id("pend_clear"), id("OP_CLEAR"), id("OP_ACK")))))),
    );
    c.wire("tx_op", 8, "its opcode", op);
    let echo = mux(id("pend_init_ack"), id("init_ack_echo"), mux(id("pend_fc"), id("fc_echo"), mux(id("pend_init"), dec(8, 0), mux(id("pend_exit"), id("exit_echo"), dec(8, 0)))));
    c.wire("tx_echo", 8, "the epoch an Init ACK / FC / Exit Discard answers", echo);
    let mut fields = vec![cat(vec![dec(7, 0), id("tx_en")]), id("tx_echo"), id("epoch")];
    fields.extend((0..4).rev().map(|v| if v < c.vcs { id(&Ctx::vc("delivered", v)) } else { dec(8, 0) }));
    fields.extend([Expr::slice("rseq", 7, 0), Expr::slice("rseq", 15, 8), Expr::slice("send_seq", 7, 0), Expr::slice("send_seq", 15, 8), id("tx_op")]);
    c.wire("tx_ll_fields", BODY, "bytes 0-11: opcode, TSEQ, RSEQ, credits, epoch, echo, EE enabled", cat(fields));
    c.comment("The link-local packet being sent: its CRC from the registered body, and its later beats.");
    c.wires.push(Item::wire("tx_ll_crc", 32, "bytes 12-15"));
    let map = ll_crc_map();
    xor_net::emit(&mut c.wires, &XorNet { name: "tx_ll_crc_x", input: Columns::One("tx_ll_body"), map: &map, style: XorStyle::SHARED }, "tx_ll_crc", 0);
    c.wires.push(Item::pragma("verilator lint_off UNUSED"));
    c.wire("tx_ll_packet", 8 * LL_BYTES as u32, "the whole packet (its first beat went out from tx_ll_fields)", cat(vec![id("tx_ll_crc"), id("tx_ll_body")]));
    c.wires.push(Item::pragma("verilator lint_on UNUSED"));
    let dw = c.dw;
    let beat = |k: u32| Expr::slice("tx_ll_packet", (k + 1) * dw - 1, k * dw);
    let mut later = beat(c.llb - 1);
    for k in (1..c.llb - 1).rev() {
        later = mux(eq(id("tx_ll_beat"), dec(c.llbw, k as u64)), beat(k), later);
    }
    c.wire("tx_ll_beat_data", dw, "beat tx_ll_beat of the packet", later);
}

/// The link output register and the send point.
pub(super) fn send_side(c: &mut Ctx) {
    let (dw, bb, llb, llbw) = (c.dw, c.bb, c.llb, c.llbw);
    ll_packet(c);
    c.comment("Send side: the link output register and the send point.");
    c.wire("link_valid", 1, "a beat is presented: the output register's, while phy_up is high", and(id("out_valid"), id("phy_up")));
    c.wire("ee_done", 1, "the PHY takes the last beat of an EE packet", all(vec![id("link_valid"), id("m_axis_link_tready"), id("out_last"), id("out_user").not()]));
    c.wire("load", 1, "the link output register takes a new beat (never while phy_up is low)", and(id("phy_up"), or(id("out_valid").not(), id("m_axis_link_tready"))));
    // head_seq one edge late is what the send point may reach; send_seq moved at that edge by a
    // step, a rewind to ack_seq (which a rewind waits to be still), or not at all: all three
    // were compared beforehand.
    c.wire(
        "ee_unsent",
        1,
        "a written packet waits to be sent (send_seq differs from head_seq as it was)",
        mux(id("send_rewound"), id("head_ne_ack"), mux(id("send_stepped"), id("head_ne_send1"), id("head_ne_send"))),
    );
    c.wire("retry_q_data", dw, "the retry RAM's beat", Expr::slice("tx_q", dw - 1, 0));
    if c.ram_last {
        c.wire("retry_q_last", 1, "its last flag", Expr::bit("tx_q", dw));
    } else if bb == 0 {
        c.wire("retry_q_last", 1, "every packet is one beat", Expr::one());
    } else {
        c.wire("send_last_beat", bb, "the last beat index of the packet in slot send_slot", slot_select(c.slots, c.sb, bb));
        c.wire("retry_q_last", 1, "the beat read is its packet's last", eq(id("send_beat"), id("send_last_beat")));
    }
    c.wire("ee_ready", 1, "an EE packet may start", all(vec![eq(id("link"), id("LINK_UP")), id("tx_en"), id("tx_stop").not(), id("ee_unsent")]));
    c.wire("idle_slot", 1, "the link output register may start a packet", all(vec![id("load"), id("sending_ll").not(), id("sending_ee").not(), id("ll_pending").not()]));
    c.wire("rewind_go", 1, "the send point goes back to the acknowledged point", all(vec![id("idle_slot"), id("rewind"), id("rx_ll_valid").not()]));
    c.wire("ee_start", 1, "an EE packet starts", all(vec![id("idle_slot"), id("rewind").not(), id("ee_ready")]));
    c.wire("send_step", 1, "the send point steps past a packet", all(vec![id("load"), id("sending_ll").not(), id("retry_q_last"), or(id("sending_ee"), id("ee_start"))]));
    c.wire("first_sent_now", 1, "the PHY takes a packet whole for the first time: sent_max steps", and(id("ee_done"), id("out_first_send")));
    c.wire("send_at_max", 1, "send_seq equals sent_max", eq(id("send_seq"), id("sent_max")));
    c.wire("send_at_max1", 1, "send_seq equals sent_max + 1", eq(id("send_seq"), id("sent_max_inc")));

    c.section("Send side: an EE packet counts as transmitted when the PHY takes its last beat.");
    c.step(when(
        id("ee_done"),
        vec![if_else(
            id("out_first_send"),
            vec![set_id("inc_ee_sent", Expr::one()), set_next("sent_max", id("sent_max_inc")), set_next("sent_max_inc", add(id("sent_max_inc"), dec(16, 1)))],
            vec![set_id("inc_ee_resent", Expr::one())],
        )],
    ));
    c.section("Send side: the link output register.");
    let finish_ee = vec![
        set_next("send_seq", id("send_seq_inc")),
        set_next("send_seq_inc", add(id("send_seq_inc"), dec(16, 1))),
        set_next("send_slot", id("send_slot_inc")),
        set_next("send_beat", dec(bb, 0)),
        set_next("sending_ee", Expr::zero()),
    ];
    let ll_last = eq(id("tx_ll_beat"), dec(llbw, (llb - 1) as u64));
    let mid_ll = vec![
        set_next("out_valid", Expr::one()),
        if_else(ll_last.clone(), vec![set_next("sending_ll", Expr::zero()), set_next("tx_ll_beat", dec(llbw, 0))], vec![set_next("tx_ll_beat", add(id("tx_ll_beat"), dec(llbw, 1)))]),
    ];
    let ee_beat = |more: Vec<crate::hw::verilog::Stmt>| {
        vec![set_next("out_valid", Expr::one()), if_else(id("retry_q_last"), finish_ee.clone(), more)]
    };
    let mid_ee = ee_beat(vec![set_next("send_beat", add(id("send_beat"), dec(bb, 1)))]);
    let start_ee = ee_beat(vec![set_next("sending_ee", Expr::one()), set_next("send_beat", dec(bb, 1))]);
    let w_dsc = c.w_dsc;
    let sent = |pend: &str, counter: Option<&str>| {
        let mut s = vec![set_next(pend, Expr::zero())];
        s.extend(counter.map(|k| set_id(k, Expr::one())));
        s
    };
    let mut discard = sent("pend_discard", Some("inc_discards_sent"));
    discard.push(if_else(
        ge(id("discards_unanswered"), id("DISCARD_LIMIT")),
        vec![set_next("discards_unanswered", dec(w_dsc, 0)), set_id("retrain_req", Expr::one())],
        vec![set_next("discards_unanswered", add(id("discards_unanswered"), dec(w_dsc, 1)))],
    ));
    let which = if_else(
        id("pend_init_ack"),
        sent("pend_init_ack", None),
        vec![if_else(
            id("pend_fc"),
            sent("pend_fc", None),
            vec![if_else(
                id("pend_init"),
                sent("pend_init", Some("inc_inits_sent")),
                vec![if_else(
                    id("pend_exit"),
                    sent("pend_exit", Some("inc_exit_discards_sent")),
                    vec![if_else(id("pend_discard"), discard, vec![if_else(id("pend_clear"), sent("pend_clear", Some("inc_clear_discards_sent")), sent("pend_ack", Some("inc_acks_sent")))])],
                )],
            )],
        )],
    );
    let start_ll = vec![
        which,
        set_next("out_valid", Expr::one()),
        set_next("sending_ll", Expr::one()),
        set_next("tx_ll_beat", dec(llbw, 1)),
        set_next("tx_ll_body", id("tx_ll_fields")),
    ];
    // The rewind waits out a cycle in which a received LL packet may move the acknowledged
    // point (rx_ll_valid), so it reads ack_seq / ack_slot from the registers.
    let rewind = vec![
        set_next("out_valid", Expr::zero()),
        when(
            id("rx_ll_valid").not(),
            vec![set_next("rewind", Expr::zero()), set_next("send_seq", id("ack_seq")), set_next("send_seq_inc", id("ack_seq_inc")), set_next("send_slot", id("ack_slot")), set_next("send_beat", dec(bb, 0))],
        ),
    ];
    c.step(when(
        id("load"),
        vec![if_else(
            id("sending_ll"),
            mid_ll,
            vec![if_else(
                id("sending_ee"),
                mid_ee,
                vec![if_else(id("ll_pending"), start_ll, vec![if_else(id("rewind"), rewind, vec![if_else(id("ee_ready"), start_ee, vec![set_next("out_valid", Expr::zero())])])])],
            )],
        )],
    ));
    // The beat loaded is only looked at while out_valid is set: a cycle that loads no beat
    // may load any payload, so the payload's select needs none of the start conditions.
    c.section("Send side: the payload of the link output register (any value when out_valid is clear).");
    c.wire("ll_first_beat", 1, "a loaded beat that is not the middle of a packet is the first beat of a link-local packet (if any)", and(id("sending_ee").not(), id("ll_pending")));
    c.step(when(
        id("load"),
        vec![
            set_next("out_data", mux(id("sending_ll"), id("tx_ll_beat_data"), mux(id("ll_first_beat"), Expr::slice("tx_ll_fields", dw - 1, 0), id("retry_q_data")))),
            set_next("out_user", or(id("sending_ll"), id("ll_first_beat"))),
            set_next("out_last", mux(id("sending_ll"), ll_last, and(id("ll_first_beat").not(), id("retry_q_last")))),
        ],
    ));
    c.section("Send side: whether the EE packet finishing now is sent for the first time (sent_max as it will be after this edge).");
    c.step(when(id("send_step"), vec![set_next("out_first_send", mux(id("first_sent_now"), id("send_at_max1"), id("send_at_max")))]));
    // send_seq against ack_seq, kept exact without comparing them: a step moves send_seq past
    // ack_seq (fewer than 2^16 - 1 packets are unacknowledged), a rewind onto it, and ack_seq
    // moving to RSEQ (between the two) leaves them different unless RSEQ is send_seq.
    c.section("Send side: send_seq != ack_seq for the LLR timer's progress test.");
    c.step(if_else(
        id("rewind_go"),
        vec![set_next("send_ne_ack", Expr::zero())],
        vec![if_else(
            id("send_step"),
            vec![set_next("send_ne_ack", Expr::one())],
            vec![when(id("ack_move"), vec![set_next("send_ne_ack", and(id("send_rewound").not(), and(id("rx_ll_at_send"), id("send_stepped").not()).not()))])],
        )],
    ));
    c.section("Compares for the next cycle's ee_unsent (head_seq against where send_seq may be).");
    c.step(set_next("send_stepped", id("send_step")));
    c.step(set_next("send_rewound", id("rewind_go")));
    c.step(set_next("head_ne_send", ne(id("head_seq"), id("send_seq"))));
    c.step(set_next("head_ne_send1", ne(id("head_seq"), id("send_seq_inc"))));
    c.step(set_next("head_ne_ack", ne(id("head_seq"), id("ack_seq"))));
}
