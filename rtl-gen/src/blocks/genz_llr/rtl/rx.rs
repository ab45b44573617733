//! The receiver: the input stage (the arriving link beat registered with its CRC state and the
//! registered ECRC and LL CRC syndromes), the checks of the registered beat (marker, length,
//! VC, CRCs), the receive FIFO (a packet is written as it arrives and committed when its last
//! beat passed, or rolled back), delivery on `m_axis` with the credits it returns, and the
//! received link-local packet's fields with the compares the next cycle acts on.

use super::super::model::{LL_BYTES, OP_EXIT, OP_INIT};
use super::crc::{beat_map, ecrc_syndrome_map, group_or, ll_syndrome_map, syndrome_groups};
use super::{Ctx, OPCODES};
use crate::hw::build::{add, all, and, cat, dec, eq, ge, id, if_else, le, lt, mux, ne, or, set_id, sub, when};
use crate::hw::groups::set_next;
use crate::hw::verilog::{Expr, Item, UnOp};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};

/// Bits of the 16-byte receive window.
const WINDOW: u32 = 8 * LL_BYTES as u32;

pub(super) fn declare(c: &mut Ctx) {
    let (g, syn_w, vb, ra, rbw) = (c.g.rx_in, syndrome_groups(), c.vb, c.ra, c.rbw);
    let r = &mut c.regs;
    r.reg(g, "rx_in_valid", 1, "a link beat (registered s_axis_link_tvalid)");
    r.reg(g, "rx_in_last", 1, "its tlast");
    r.reg(g, "rx_in_user", 1, "its LL marker");
    r.reg(g, "rx_in_phy_error", 1, "phy_error, registered with it");
    r.reg(g, "rx_in_drop", 1, "phy_error or phy_up low: drop the packet in progress");
    r.reg(g, "rx_window", WINDOW, "the last 16 bytes received (the registered beat in the top bits)");
    r.reg_reset(g, "rx_crc_start", 32, Expr::konst(32, 0xFFFF_FFFF), "CRC register the next link beat starts from (all ones at a packet start)");
    r.reg(g, "rx_ll_crc_diff", syn_w, "LL CRC syndrome of rx_window, OR-ed in groups (zero: the LL CRC passes)");
    if c.cfg.ecrc_check {
        r.reg(g, "ecrc_diff", syn_w, "ECRC syndrome of the registered beat, OR-ed in groups (zero: the ECRC passes)");
    }

    let g = c.g.rx;
    r.reg(g, "rx_beat", rbw, "beat index of the packet being received (saturating at RX_BEAT_MAX)");
    r.reg_reset(g, "rx_first", 1, dec(1, 1), "rx_beat is zero: the registered beat starts a packet");
    r.reg_reset(g, "rx_fits", 1, dec(1, 1), "rx_beat is below a maximum EE packet's beats");
    r.reg(g, "rx_mark", 1, "the LL marker of the packet being received");
    r.reg(g, "rx_bad", 1, "its marker changed between beats");
    r.reg(g, "rx_vc", vb, "its VC (byte 0 of its first beat)");
    r.reg(g, "rx_wr", ra + 1, "receive FIFO write pointer (the packet being checked)");
    r.reg(g, "rx_commit", ra + 1, "receive FIFO commit pointer (end of the last intact packet)");
    r.reg(g, "rx_commit_vis", ra + 1, "rx_commit one cycle late: the words m_axis may read");
    r.reg(g, "rx_rd", ra + 1, "receive FIFO read pointer");
    r.reg(g, "rseq", 16, "RSEQ: EE packets received intact");
    for v in 0..c.vcs {
        r.reg(g, &Ctx::vc("delivered", v), 8, &format!("EE packets of VC {v} delivered on m_axis (mod 256): the credits it returns"));
    }

    let g = c.g.rx_ll;
    r.reg(g, "rx_ll_valid", 1, "an intact LL packet was received last cycle: act on rx_ll_*");
    r.reg(g, "rx_ll_op_hot", 7, "its opcode, one-hot (bit k: opcode k+1)");
    r.reg(g, "rx_ll_rseq", 16, "its RSEQ");
    r.reg(g, "rx_ll_tx_en", 1, "the sender's EE transmission is enabled");
    r.reg(g, "rx_ll_epoch", 8, "the sender's epoch");
    r.reg(g, "rx_ll_echo", 8, "the epoch it answers");
    for v in 0..c.vcs {
        r.reg(g, &Ctx::vc("rx_ll_delivered", v), 8, &format!("its credits of VC {v} (the peer's delivered count)"));
    }
    r.reg_reset(g, "rx_ll_rseq_inc", 16, dec(16, 1), "its RSEQ + 1");
    if !c.seq_slots {
        r.reg(g, "rx_ll_ack_dist", 16, "its RSEQ minus ack_seq (the acknowledgement's advance, for its slot)");
    }
    r.reg(g, "rx_ll_ack_same", 1, "its RSEQ equals ack_seq");
    r.reg(g, "rx_ll_in_window", 1, "its RSEQ lay between ack_seq and send_seq (cyclically) when it was compared");
    r.reg(g, "rx_ll_at_send", 1, "its RSEQ equalled send_seq when compared");
    r.reg(g, "rx_ll_at_send1", 1, "its RSEQ equalled send_seq + 1 when compared");
    r.reg(g, "rx_ll_echo_is_epoch", 1, "its echo equals epoch as it was");
    r.reg(g, "rx_ll_echo_is_epoch1", 1, "its echo equals epoch + 1");
    r.reg(g, "rx_ll_epoch_lsb", 1, "epoch[0] when the two above were compared");
}

/// `ll_syn`-style network outputs on kept wires: the syndrome bits stay one LUT level below
/// their group OR (synthesis would otherwise fold the last XOR level into the OR, a level
/// deeper).
fn kept_syndrome(c: &mut Ctx, name: &str, doc: &str) {
    c.comment(doc);
    c.wires.push(Item::KeptWire { name: name.into(), width: 32 });
}

/// The arriving beat's CRC networks and the input registers.
pub(super) fn input_stage(c: &mut Ctx) {
    let dw = c.dw;
    c.comment("Receive input stage: the CRCs of the beat arriving on s_axis_link, registered with it.");
    c.wire("rx_drop_now", 1, "the packet in progress is dropped (PHY error or PHY down)", or(id("phy_error"), id("phy_up").not()));
    c.wire("crc_beat_in", 32 + dw, "{arriving beat, CRC register before it}", cat(vec![id("s_axis_link_tdata"), id("rx_crc_start")]));
    c.wires.push(Item::wire("crc_beat", 32, "CRC register after the arriving beat"));
    let beat = beat_map(c.d as usize);
    xor_net::emit(&mut c.wires, &XorNet { name: "crc_beat_x", input: Columns::One("crc_beat_in"), map: &beat, style: XorStyle::SHARED }, "crc_beat", 0);
    if c.cfg.ecrc_check {
        kept_syndrome(c, "ecrc_syn", "ECRC syndrome if the arriving beat ends an EE packet.");
        let ecrc = ecrc_syndrome_map(c.d as usize);
        xor_net::emit(&mut c.wires, &XorNet { name: "ecrc_syn_x", input: Columns::One("crc_beat_in"), map: &ecrc, style: XorStyle::SHARED }, "ecrc_syn", 0);
    }
    c.wire("rx_window_now", WINDOW, "the last 16 bytes including the arriving beat", cat(vec![id("s_axis_link_tdata"), Expr::slice("rx_window", WINDOW - 1, dw)]));
    kept_syndrome(c, "ll_syn", "LL CRC syndrome if the arriving beat ends an LL packet.");
    let ll = ll_syndrome_map();
    xor_net::emit(&mut c.wires, &XorNet { name: "ll_syn_x", input: Columns::One("rx_window_now"), map: &ll, style: XorStyle::SHARED }, "ll_syn", 0);

    let all_ones = Expr::konst(32, 0xFFFF_FFFF);
    c.section("Receive input stage: register the arriving beat, its CRC state and syndromes.");
    c.step(set_next("rx_in_valid", id("s_axis_link_tvalid")));
    c.step(set_next("rx_in_last", id("s_axis_link_tlast")));
    c.step(set_next("rx_in_user", id("s_axis_link_tuser")));
    c.step(set_next("rx_in_phy_error", id("phy_error")));
    c.step(set_next("rx_in_drop", id("rx_drop_now")));
    c.step(when(id("s_axis_link_tvalid"), vec![set_next("rx_window", id("rx_window_now")), set_next("rx_crc_start", mux(id("s_axis_link_tlast"), all_ones.clone(), id("crc_beat")))]));
    c.step(when(id("rx_drop_now"), vec![set_next("rx_crc_start", all_ones)]));
    if c.cfg.ecrc_check {
        c.step(set_next("ecrc_diff", group_or("ecrc_syn")));
    }
    c.step(set_next("rx_ll_crc_diff", group_or("ll_syn")));
}

/// The registered beat: packet checks, the receive FIFO's write and commit, RSEQ, and the
/// received link-local packet.
pub(super) fn checks(c: &mut Ctx) {
    let (dw, vb, vcs, ra, rbw, mb) = (c.dw, c.vb, c.vcs, c.ra, c.rbw, c.mb);
    c.comment("Receive checks of the registered beat.");
    c.wire("rx_in_data", dw, "the registered beat", Expr::slice("rx_window", WINDOW - 1, WINDOW - dw));
    c.wire("rx_mark_now", 1, "the packet's link-local marker (its first beat's tuser)", mux(id("rx_first"), id("rx_in_user"), id("rx_mark")));
    c.wire("rx_bad_now", 1, "the marker differs between beats", or(id("rx_bad"), and(id("rx_first").not(), ne(id("rx_in_user"), id("rx_mark")))));
    c.wire("ecrc_fail", 1, "the ECRC in the last 4 bytes differs", if c.cfg.ecrc_check { Expr::red(UnOp::RedOr, id("ecrc_diff")) } else { Expr::zero() });
    let vc_first = if vb == 1 { Expr::bit("rx_in_data", 0) } else { Expr::slice("rx_in_data", vb - 1, 0) };
    c.wire("rx_vc_now", vb, "VC of the packet: byte 0 [vc_bits-1:0] of its first beat", mux(id("rx_first"), vc_first, id("rx_vc")));
    let vc_ok = if vcs.is_power_of_two() { Expr::one() } else { lt(cat(vec![dec(3 - vb, 0), id("rx_vc_now")]), id("VC_LIMIT")) };
    c.wire("rx_vc_ok", 1, "the VC exists", vc_ok);
    // The pointers are one bit wider than the address: the FIFO is full when they differ in
    // that bit only.
    let rx_full = and(ne(Expr::bit("rx_wr", ra), Expr::bit("rx_rd", ra)), eq(Expr::slice("rx_wr", ra - 1, 0), Expr::slice("rx_rd", ra - 1, 0)));
    c.wire("rx_full", 1, "the receive FIFO is full (committed words, or of the packet being checked)", rx_full);
    c.wire("rx_room", 1, "the beat fits: within a maximum packet and the FIFO", and(id("rx_fits"), id("rx_full").not()));
    c.wire("ee_beat", 1, "an EE beat arrives", and(id("rx_in_valid"), id("rx_mark_now").not()));
    c.wire("rx_write", 1, "the EE beat is written into the receive FIFO", and(id("ee_beat"), id("rx_room")));
    c.wire("ee_end", 1, "the last beat of an EE packet arrives", and(id("ee_beat"), id("rx_in_last")));
    c.wire("ee_good", 1, "a whole, intact EE packet", all(vec![id("ee_end"), id("rx_bad_now").not(), id("rx_room"), id("ecrc_fail").not(), id("rx_vc_ok")]));
    c.wire("rx_accept", 1, "EE packets are accepted: link up (Init exchange done), not discarding, no PHY error", all(vec![eq(id("link"), id("LINK_UP")), id("rx_disc").not(), id("rx_in_drop").not()]));
    c.wire("commit", 1, "deliver the packet", and(id("ee_good"), id("rx_accept")));
    c.wire("ll_end", 1, "the last beat of a link-local packet arrives", all(vec![id("rx_in_valid"), id("rx_mark_now"), id("rx_in_last")]));
    c.wire("ll_op_now", 8, "opcode of the link-local packet in the window", Expr::slice("rx_window", 7, 0));
    c.wire(
        "ll_ok",
        1,
        "a whole, intact link-local packet with a known opcode",
        all(vec![
            id("ll_end"),
            id("rx_bad_now").not(),
            eq(id("rx_beat"), id("LL_LAST")),
            Expr::red(UnOp::RedOr, id("rx_ll_crc_diff")).not(),
            ge(id("ll_op_now"), id("OP_INIT")),
            le(id("ll_op_now"), id("OP_EXIT")),
        ]),
    );
    c.wire("rx_err", 1, "a packet error or a PHY error", or(or(and(id("ee_end"), id("ee_good").not()), and(id("ll_end"), id("ll_ok").not())), id("rx_in_phy_error")));
    c.wire("ll_rseq_now", 16, "RSEQ field of the link-local packet in the window", cat(vec![Expr::slice("rx_window", 31, 24), Expr::slice("rx_window", 39, 32)]));

    c.step(set_id("inc_ecrc_errors", and(id("ee_end"), id("ecrc_fail"))));
    c.section("Receive: the registered beat.");
    let rx_inc = mux(id("rx_in_last"), dec(rbw, 0), mux(eq(id("rx_beat"), id("RX_BEAT_MAX")), id("rx_beat"), add(id("rx_beat"), dec(rbw, 1))));
    // The beat after this one fits iff this one is below the last of a maximum packet.
    let fits_after = if mb == 1 { Expr::zero() } else { lt(id("rx_beat"), dec(rbw, (mb - 1) as u64)) };
    c.step(when(
        id("rx_in_valid"),
        vec![
            set_next("rx_beat", rx_inc),
            set_next("rx_first", id("rx_in_last")),
            set_next("rx_fits", or(id("rx_in_last"), fits_after)),
            set_next("rx_mark", id("rx_mark_now")),
            set_next("rx_bad", and(id("rx_in_last").not(), id("rx_bad_now"))),
            set_next("rx_vc", id("rx_vc_now")),
            when(id("rx_write"), vec![set_next("rx_wr", add(id("rx_wr"), dec(ra + 1, 1)))]),
            // An intact packet's last beat fitted (ee_good includes rx_room): it ends at rx_wr + 1.
            when(id("ee_end"), vec![if_else(id("commit"), vec![set_next("rx_commit", add(id("rx_wr"), dec(ra + 1, 1)))], vec![set_next("rx_wr", id("rx_commit"))])]),
        ],
    ));
    c.step(set_next("rx_ll_valid", and(id("ll_ok"), id("phy_up"))));
    // Bit k - OP_INIT is opcode k, compared by its localparam (the codes are contiguous).
    let op_name = |k: u64| OPCODES.iter().find(|(_, code, _)| u64::from(*code) == k).map(|(name, _, _)| *name).expect("the link-local opcodes are contiguous");
    let hot = cat((OP_INIT as u64..=OP_EXIT as u64).rev().map(|k| eq(id("ll_op_now"), id(op_name(k)))).collect());
    let mut load = vec![
        set_next("rx_ll_op_hot", hot),
        set_next("rx_ll_epoch", Expr::slice("rx_window", 79, 72)),
        set_next("rx_ll_echo", Expr::slice("rx_window", 87, 80)),
        set_next("rx_ll_rseq", id("ll_rseq_now")),
        set_next("rx_ll_rseq_inc", add(id("ll_rseq_now"), dec(16, 1))),
        set_next("rx_ll_tx_en", Expr::bit("rx_window", 88)),
    ];
    for v in 0..vcs {
        load.push(set_next(&Ctx::vc("rx_ll_delivered", v), Expr::slice("rx_window", 47 + 8 * v, 40 + 8 * v)));
    }
    c.step(when(id("ll_ok"), load));
    c.section("Distances and compares for the LL packet acted on next cycle (ack_seq cannot move in between: LL packets are two beats or more).");
    if !c.seq_slots {
        c.step(set_next("rx_ll_ack_dist", sub(id("ll_rseq_now"), id("ack_seq"))));
    }
    c.step(set_next("rx_ll_ack_same", eq(id("ll_rseq_now"), id("ack_seq"))));
    // RSEQ - ack_seq <= send_seq - ack_seq (mod 2^16), as magnitude compares: with
    // ack_seq <= send_seq both bounds hold, otherwise (the window wraps) either does.
    let (r, a, s) = (id("ll_rseq_now"), id("ack_seq"), id("send_seq"));
    let in_window = mux(le(a.clone(), s.clone()), and(ge(r.clone(), a.clone()), le(r.clone(), s.clone())), or(ge(r.clone(), a), le(r.clone(), s.clone())));
    c.step(set_next("rx_ll_in_window", in_window));
    c.step(set_next("rx_ll_at_send", eq(r.clone(), s)));
    c.step(set_next("rx_ll_at_send1", eq(r, id("send_seq_inc"))));
    c.step(set_next("rx_ll_echo_is_epoch", eq(Expr::slice("rx_window", 87, 80), id("epoch"))));
    c.step(set_next("rx_ll_echo_is_epoch1", eq(Expr::slice("rx_window", 87, 80), add(id("epoch"), dec(8, 1)))));
    c.step(set_next("rx_ll_epoch_lsb", Expr::bit("epoch", 0)));
    c.step(when(id("commit"), vec![set_next("rseq", add(id("rseq"), dec(16, 1)))]));
}

/// Delivery on `m_axis`; every `ack_every` packets delivered queue an ACK (credits return as
/// the upper layer consumes).
pub(super) fn delivery(c: &mut Ctx) {
    let (fw, ra, vcs, vb, w_sa) = (c.fw, c.ra, c.vcs, c.vb, c.w_sa);
    c.wire("m_valid", 1, "committed words not yet delivered", ne(id("rx_rd"), id("rx_commit_vis")));
    c.wire("m_fire", 1, "the upper layer takes a delivered beat", and(id("m_valid"), id("m_axis_tready")));
    c.section("Receive: delivery; credits return as delivered-packet counts per VC.");
    let mut packet_done = vec![
        set_id("inc_ee_delivered", Expr::one()),
        if_else(
            eq(id("delivered_since_ack"), id("ACK_LAST")),
            vec![set_next("pend_ack", Expr::one()), set_next("delivered_since_ack", dec(w_sa, 0))],
            vec![set_next("delivered_since_ack", add(id("delivered_since_ack"), dec(w_sa, 1)))],
        ),
    ];
    for v in 0..vcs {
        let sel = if vcs == 1 { Expr::one() } else { eq(Expr::slice("rx_q_flags", fw - 1, 1), dec(vb, v as u64)) };
        let name = Ctx::vc("delivered", v);
        packet_done.push(when(sel, vec![set_next(&name, add(id(&name), dec(8, 1)))]));
    }
    c.step(when(id("m_fire"), vec![set_next("rx_rd", add(id("rx_rd"), dec(ra + 1, 1))), when(Expr::bit("rx_q_flags", 0), packet_done)]));
    c.step(set_next("rx_commit_vis", id("rx_commit")));
}
