//! RX: beat 0 holds the RH; each later beat completes one payload beat {its low 8 bytes, the
//! previous beat's top bytes}, written tentatively into its VC buffer; at tlast the checks run
//! (frame, shape, R-CRC, header, partition) and their results are registered; a cycle later the
//! verdict takes them in that order and an in-order PDU is committed.

use super::crc::{last8_map, step_map};
use super::{ge, gt, partly_used, sp, Ctx};
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{
    add, affine, all, any, bit_of, cat, dec, id, lt, mux, ne, set_id, sub, when, wire, zext,
};
use crate::hw::select::{encode, onehot_mux, rep};
use crate::hw::verilog::{BinOp, Expr, Item, Stmt};

/// Framing: readiness, the beat index, tkeep and length checks, the tentative buffer write
/// address and the R-CRC over the beats.
pub(super) fn frame(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        v,
        dw,
        db,
        cbt,
        vb,
        pbw,
        rpw,
        ubw,
        mdw,
        mcw,
        cbw,
        ref crc,
        ref pb_e,
        ref room_e,
        ref init_e,
        ..
    } = cx;
    it.push(Item::comment("RX: beat 0 holds the RH; each later beat completes one payload beat {its low 8 bytes, the previous beat's top bytes}, written tentatively into its VC buffer; at tlast the checks run (frame, shape, R-CRC, header, partition) and are registered; the verdict a cycle later takes them in that order and commits an in-order PDU."));
    it.push(Item::reg("rx_busy_q", 1, "inside a received PDU"));
    it.push(Item::reg(
        "rx_rh_q",
        64,
        "RH bytes of the PDU (held to its verdict)",
    ));
    it.push(Item::reg(
        "rx_hold_q",
        dw - 64,
        "top bytes of the previous beat",
    ));
    it.push(Item::reg(
        "rx_beat_q",
        pbw,
        "beat index (saturates at PACK_BEATS + 1)",
    ));
    it.push(Item::reg(
        "rx_crc_q",
        32,
        "R-CRC register over the beats so far",
    ));
    it.push(Item::reg("rx_ferr_q", 1, "frame error seen"));
    it.push(Item::reg("rx_kerr_q", 1, "bad tkeep seen"));
    if cbt > 1 {
        it.push(Item::reg("rx_cb_q", cbw, "payload beat within the command"));
    }
    it.push(Item::reg("rx_nc_q", pbw, "whole commands so far"));
    it.push(Item::reg("rx_vc_q", 2, "vc of the PDU"));
    for vv in 0..v {
        it.push(Item::reg(
            &format!("v{vv}_wp"),
            rpw,
            &format!("VC {vv}: committed write pointer"),
        ));
        it.push(Item::reg(&format!("v{vv}_rp"), rpw, "read pointer"));
        it.push(Item::reg(
            &format!("v{vv}_used"),
            ubw,
            "beats held (committed, not read)",
        ));
        it.push(Item::reg(&format!("v{vv}_mh"), mdw, "PDU queue head"));
        it.push(Item::reg(&format!("v{vv}_mt"), mdw, "PDU queue tail"));
        it.push(Item::reg(&format!("v{vv}_mc"), mcw, "PDUs queued"));
        it.push(Item::reg(
            &format!("v{vv}_hd"),
            pbw,
            "commands of the head PDU delivered",
        ));
    }
    it.push(Item::reg(
        "rv_end_q",
        1,
        "a PDU ended last cycle: its verdict is now",
    ));
    it.push(Item::reg("rv_ferr_q", 1, "its frame error"));
    it.push(Item::reg("rv_lenerr_q", 1, "its shape error"));
    it.push(Item::reg("rv_crc_ok_q", 1, "its R-CRC matched"));
    it.push(Item::reg("rv_hdr_bad_q", 1, "its header check failed"));
    if cx.p.partition_check {
        it.push(Item::reg("rv_part_bad_q", 1, "its partition is not ours"));
    }
    it.push(Item::reg(
        "rv_beats_q",
        pbw,
        "its payload beats (0: a control PDU)",
    ));
    it.push(Item::reg("rv_nc_q", pbw, "its whole commands"));
    it.push(Item::reg(
        "sr_sel_q",
        cx.ns,
        "the space its RH names, one-hot (zero if none)",
    ));
    // A PDU awaiting its verdict may still commit its payload beats: its VC counts them as
    // held, so the PDU that starts meanwhile cannot overfill the buffer (one bit wider: the
    // pending beats saturate at PACK_BEATS + 1).
    let pend_beats = if pbw > ubw + 1 {
        Expr::slice("rv_beats_q", ubw, 0)
    } else {
        zext(id("rv_beats_q"), pbw, ubw + 1)
    };
    let room: Vec<Expr> = (0..v)
        .map(|vv| {
            let held = add(
                zext(id(&format!("v{vv}_used")), ubw, ubw + 1),
                mux(
                    Expr::and(
                        id("rv_end_q"),
                        Expr::eq(Expr::slice("rx_rh_q", 39, 38), dec(2, vv as u64)),
                    ),
                    pend_beats.clone(),
                    dec(ubw + 1, 0),
                ),
            );
            Expr::bin(BinOp::Le, held, zext(room_e.clone(), ubw, ubw + 1))
        })
        .collect();
    wire(
        it,
        "rx_room",
        1,
        "every VC buffer can take a maximum PDU besides the PDU awaiting its verdict",
        all(room),
    );
    wire(
        it,
        "rx_ready",
        1,
        "",
        Expr::or(id("rx_busy_q"), id("rx_room")),
    );
    wire(
        it,
        "rx_fire",
        1,
        "",
        Expr::and(id("s_axis_rx_tvalid"), id("rx_ready")),
    );
    wire(it, "rx_first", 1, "", id("rx_busy_q").not());
    wire(
        it,
        "rx_beat",
        pbw,
        "",
        mux(id("rx_first"), dec(pbw, 0), id("rx_beat_q")),
    );
    wire(
        it,
        "rh_w",
        64,
        "RH bytes (byte 0 in [7:0])",
        mux(
            id("rx_first"),
            Expr::slice("s_axis_rx_tdata", 63, 0),
            id("rx_rh_q"),
        ),
    );
    wire(
        it,
        "rx_vc_w",
        2,
        "",
        mux(
            id("rx_first"),
            Expr::slice("s_axis_rx_tdata", 39, 38),
            id("rx_vc_q"),
        ),
    );
    wire(
        it,
        "rx_crc_cur",
        32,
        "",
        mux(id("rx_first"), init_e.clone(), id("rx_crc_q")),
    );
    let full_keep = Expr::Repeat(db, Box::new(dec(1, 1)));
    wire(
        it,
        "keep_ok",
        1,
        "tkeep as the shape requires",
        mux(
            id("s_axis_rx_tlast"),
            Expr::eq(id("s_axis_rx_tkeep"), zext(dec(12, 0xFFF), 12, db)),
            Expr::eq(id("s_axis_rx_tkeep"), full_keep),
        ),
    );
    wire(
        it,
        "rx_kerr",
        1,
        "",
        Expr::or(
            Expr::and(id("rx_first").not(), id("rx_kerr_q")),
            id("keep_ok").not(),
        ),
    );
    wire(
        it,
        "rx_ferr",
        1,
        "",
        Expr::or(
            Expr::and(id("rx_first").not(), id("rx_ferr_q")),
            id("s_axis_rx_tuser"),
        ),
    );
    let cb_wrap = if cbt > 1 {
        Expr::eq(id("rx_cb_q"), dec(cbw, (cbt - 1) as u64))
    } else {
        dec(1, 1)
    };
    wire(
        it,
        "cb_wrap",
        1,
        "this payload beat ends a command",
        Expr::and(id("rx_first").not(), cb_wrap),
    );
    wire(
        it,
        "nc2",
        pbw,
        "whole commands after this beat",
        mux(
            id("rx_first"),
            dec(pbw, 0),
            add(id("rx_nc_q"), zext(id("cb_wrap"), 1, pbw)),
        ),
    );
    let cb_ok = if cbt > 1 {
        wire(
            it,
            "cb2",
            cbw,
            "beat within the command after this beat",
            mux(
                Expr::or(id("rx_first"), id("cb_wrap")),
                dec(cbw, 0),
                add(id("rx_cb_q"), dec(cbw, 1)),
            ),
        );
        Expr::eq(id("cb2"), dec(cbw, 0))
    } else {
        dec(1, 1)
    };
    wire(
        it,
        "rx_lenerr",
        1,
        "bad tkeep, too long, or not whole commands",
        any(vec![
            id("rx_kerr"),
            gt(id("rx_beat"), pb_e.clone()),
            cb_ok.not(),
        ]),
    );
    wire(
        it,
        "rx_bm1",
        pbw,
        "payload beat index written by this beat",
        sub(id("rx_beat"), dec(pbw, 1)),
    );
    let vc_ok = if v == 4 {
        dec(1, 1)
    } else {
        lt(id("rx_vc_w"), dec(2, v as u64))
    };
    wire(
        it,
        "rx_we",
        1,
        "write a payload beat",
        all(vec![
            id("rx_fire"),
            id("rx_first").not(),
            vc_ok,
            lt(id("rx_bm1"), pb_e.clone()),
        ]),
    );
    wire(
        it,
        "rx_wp_sel",
        rpw,
        "committed write pointer of the PDU's VC",
        cx.vsel("wp", rpw, id("rx_vc_w")),
    );
    let bm1 = if pbw > rpw {
        Expr::slice("rx_bm1", rpw - 1, 0)
    } else {
        zext(id("rx_bm1"), pbw, rpw)
    };
    wire(it, "rx_wptr", rpw, "", add(id("rx_wp_sel"), bm1));
    let rx_waddr = if v > 1 {
        cat(vec![Expr::slice("rx_vc_w", vb - 1, 0), id("rx_wptr")])
    } else {
        id("rx_wptr")
    };
    wire(
        it,
        "rx_waddr",
        if v > 1 { vb + rpw } else { rpw },
        "{vc, pointer}",
        rx_waddr,
    );
    it.push(Item::wire(
        "rx_fin",
        32,
        "R-CRC over everything before the last beat's bytes 8..11",
    ));
    wire(
        it,
        "rfin_in",
        96,
        "",
        cat(vec![
            id("rx_crc_cur"),
            Expr::slice("s_axis_rx_tdata", 63, 0),
        ]),
    );
    affine(it, "rx_fin", "rfin_in", &last8_map(&crc));
    it.push(Item::wire(
        "rx_crc_nxt",
        32,
        "R-CRC register after this beat",
    ));
    wire(
        it,
        "rstp_in",
        dw + 32,
        "",
        cat(vec![id("rx_crc_cur"), id("s_axis_rx_tdata")]),
    );
    affine(it, "rx_crc_nxt", "rstp_in", &step_map(&crc, db as usize));
    wire(
        it,
        "rx_end",
        1,
        "a PDU ends",
        Expr::and(id("rx_fire"), id("s_axis_rx_tlast")),
    );
    wire(
        it,
        "crc_ok",
        1,
        "the last beat's R-CRC matches (registered for the verdict)",
        Expr::eq(id("rx_fin"), Expr::slice("s_axis_rx_tdata", 95, 64)),
    );
}

/// At tlast, from the arriving RH: the header and partition checks and the PSN space it names,
/// registered with the frame, shape and R-CRC results for the verdict a cycle later.
pub(super) fn header(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        x,
        v,
        kpp,
        ns,
        p,
        ref op_reserved,
        ..
    } = cx;
    wire(
        it,
        "rh_xpu",
        XPUID_BITS,
        "source xpuid of the arriving RH",
        cat(vec![Expr::slice("rh_w", 1, 0), Expr::slice("rh_w", 15, 8)]),
    );
    let rh_vc = Expr::slice("rh_w", 39, 38);
    let xbad = if x == 1024 {
        dec(1, 0)
    } else {
        ge(id("rh_xpu"), dec(XPUID_BITS, x as u64))
    };
    let vbad = if v == 4 {
        dec(1, 0)
    } else {
        ge(rh_vc.clone(), dec(2, v as u64))
    };
    wire(
        it,
        "hdr_bad",
        1,
        "ver, op 3, xpuid or vc",
        any(vec![
            ne(Expr::slice("rh_w", 7, 6), dec(2, p.version as u64)),
            Expr::eq(Expr::slice("rh_w", 5, 4), op_reserved.clone()),
            xbad,
            vbad,
        ]),
    );
    // Without the partition check no PDU is dropped for its partition: no `e_part` term, and
    // the partition-error counter is a constant zero (see the counters below).
    if p.partition_check {
        wire(
            it,
            "part_bad",
            1,
            "partition other than ours",
            ne(
                cat(vec![
                    Expr::slice("rh_w", 33, 32),
                    Expr::slice("rh_w", 47, 40),
                ]),
                dec(10, p.partition as u64),
            ),
        );
    }
    // The space is picked from the RH alone and registered with the checks, so the verdict
    // reads the space's state from a one-hot select; only the enables (`sr_oh`) wait for
    // `r_ok`. Every use of the selected state is gated by `r_ok`.
    let sr: Vec<Expr> = (0..ns)
        .rev()
        .map(|s| {
            let mut t = vec![Expr::eq(
                id("rh_xpu"),
                dec(XPUID_BITS, cx.dest_of(s) as u64),
            )];
            if kpp > 1 {
                t.push(Expr::eq(rh_vc.clone(), dec(2, cx.vc_of(s) as u64)));
            }
            all(t)
        })
        .collect();
    wire(
        it,
        "rh_sel",
        ns,
        "space the arriving RH names, one-hot (zero if none)",
        cat(sr),
    );
    verdict_regs(cx, it);
}

/// The verdict stage's registers (declared with the framing registers, which read them for
/// the room check): a PDU's check results and counts, taken at its tlast.
fn verdict_regs(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx { ns, pbw, p, .. } = cx;
    let mut reset = vec![
        set_id("rv_end_q", dec(1, 0)),
        set_id("rv_ferr_q", dec(1, 0)),
        set_id("rv_lenerr_q", dec(1, 0)),
        set_id("rv_crc_ok_q", dec(1, 0)),
        set_id("rv_hdr_bad_q", dec(1, 0)),
        set_id("rv_beats_q", dec(pbw, 0)),
        set_id("rv_nc_q", dec(pbw, 0)),
        set_id("sr_sel_q", dec(ns, 0)),
    ];
    let mut take = vec![
        set_id("rv_ferr_q", id("rx_ferr")),
        set_id("rv_lenerr_q", id("rx_lenerr")),
        set_id("rv_crc_ok_q", id("crc_ok")),
        set_id("rv_hdr_bad_q", id("hdr_bad")),
        set_id("rv_beats_q", id("rx_beat")),
        set_id("rv_nc_q", id("nc2")),
        set_id("sr_sel_q", id("rh_sel")),
    ];
    if p.partition_check {
        reset.push(set_id("rv_part_bad_q", dec(1, 0)));
        take.push(set_id("rv_part_bad_q", id("part_bad")));
    }
    it.push(Item::AlwaysFf {
        reset: Some(reset),
        body: vec![set_id("rv_end_q", id("rx_end")), when(id("rx_end"), take)],
    });
}

/// The verdict, a cycle after tlast: the registered checks in order, the RH fields of the
/// PDU (held in `rx_rh_q`) and its PSN space's TX state.
pub(super) fn checks(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx { ns, snb, p, .. } = cx;
    partly_used(
        it,
        "rv_rh",
        64,
        "RH of the PDU at its verdict (its op, xpuid, PSNs and vc)",
        id("rx_rh_q"),
    );
    wire(it, "r_op", 2, "", Expr::slice("rv_rh", 5, 4));
    wire(
        it,
        "r_xpu",
        XPUID_BITS,
        "source xpuid",
        cat(vec![
            Expr::slice("rv_rh", 1, 0),
            Expr::slice("rv_rh", 15, 8),
        ]),
    );
    wire(
        it,
        "r_psn",
        16,
        "",
        cat(vec![
            Expr::slice("rv_rh", 23, 16),
            Expr::slice("rv_rh", 31, 24),
        ]),
    );
    wire(it, "r_vc", 2, "", Expr::slice("rv_rh", 39, 38));
    wire(
        it,
        "r_rpsn",
        16,
        "",
        cat(vec![
            Expr::slice("rv_rh", 55, 48),
            Expr::slice("rv_rh", 63, 56),
        ]),
    );
    wire(
        it,
        "e_frame",
        1,
        "",
        Expr::and(id("rv_end_q"), id("rv_ferr_q")),
    );
    wire(
        it,
        "e_len",
        1,
        "",
        all(vec![
            id("rv_end_q"),
            id("rv_ferr_q").not(),
            id("rv_lenerr_q"),
        ]),
    );
    wire(
        it,
        "e_crc",
        1,
        "",
        all(vec![
            id("rv_end_q"),
            id("rv_ferr_q").not(),
            id("rv_lenerr_q").not(),
            id("rv_crc_ok_q").not(),
        ]),
    );
    wire(
        it,
        "pre_ok",
        1,
        "frame, shape and R-CRC good",
        all(vec![
            id("rv_end_q"),
            id("rv_ferr_q").not(),
            id("rv_lenerr_q").not(),
            id("rv_crc_ok_q"),
        ]),
    );
    wire(
        it,
        "e_hdr",
        1,
        "",
        Expr::and(id("pre_ok"), id("rv_hdr_bad_q")),
    );
    let mut ok_terms = vec![id("pre_ok"), id("rv_hdr_bad_q").not()];
    if p.partition_check {
        wire(
            it,
            "e_part",
            1,
            "",
            all(vec![
                id("pre_ok"),
                id("rv_hdr_bad_q").not(),
                id("rv_part_bad_q"),
            ]),
        );
        ok_terms.push(id("rv_part_bad_q").not());
    }
    wire(it, "r_ok", 1, "the PDU passed every check", all(ok_terms));
    wire(
        it,
        "sr_oh",
        ns,
        "space of a good received PDU, one-hot",
        Expr::and(id("sr_sel_q"), rep(ns, id("r_ok"))),
    );
    encode(it, "sr_i", "sr_sel_q", ns, snb, "");
    wire(
        it,
        "r_una",
        16,
        "",
        onehot_mux("sr_sel_q", ns, |s| sp(s, "una"), 16),
    );
    wire(
        it,
        "r_hwm",
        cx.pw,
        "hwm's window bits (it is within a window of una)",
        any((0..ns)
            .map(|s| {
                Expr::and(
                    cx.psn_lo(&sp(s, "hwm")),
                    rep(cx.pw, bit_of("sr_sel_q", ns, s)),
                )
            })
            .collect()),
    );
    wire(
        it,
        "r_cacc",
        16,
        "",
        onehot_mux("sr_sel_q", ns, |s| sp(s, "cacc"), 16),
    );
    wire(
        it,
        "r_epsn",
        16,
        "",
        onehot_mux("sr_sel_q", ns, |s| sp(s, "epsn"), 16),
    );
}

/// What a good PDU does: an ACK/NACK in range moves `una` (with the slot meta's command
/// count), a data PDU is accepted in order, dropped ahead (a gap) or behind (a duplicate).
pub(super) fn verdict(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        pbw,
        pw,
        ref op_ack,
        ref op_nack,
        ..
    } = cx;
    wire(it, "r_du", 16, "rpsn - una", sub(id("r_rpsn"), id("r_una")));
    wire(
        it,
        "r_dh",
        pw,
        "hwm - una (at most WINDOW)",
        cx.psn_diff("r_hwm", "r_una"),
    );
    // rpsn comes from the wire, so only its distance's high bits being zero puts it near the
    // window; the rest compares on the window bits.
    let near = if pw < 16 {
        Expr::eq(Expr::slice("r_du", 15, pw), dec(16 - pw, 0))
    } else {
        Expr::one()
    };
    wire(
        it,
        "r_near",
        1,
        "rpsn - una below 2^pw (its window bits decide)",
        near,
    );
    wire(
        it,
        "ack_ok",
        1,
        "ACK in [una, hwm)",
        all(vec![
            id("r_ok"),
            Expr::eq(id("r_op"), op_ack.clone()),
            id("r_near"),
            lt(cx.psn_lo("r_du"), id("r_dh")),
        ]),
    );
    wire(
        it,
        "nack_ok",
        1,
        "NACK in [una, hwm]",
        all(vec![
            id("r_ok"),
            Expr::eq(id("r_op"), op_nack.clone()),
            id("r_near"),
            Expr::bin(BinOp::Le, cx.psn_lo("r_du"), id("r_dh")),
        ]),
    );
    wire(it, "ackev", 1, "", Expr::or(id("ack_ok"), id("nack_ok")));
    wire(
        it,
        "ack_ign",
        1,
        "",
        all(vec![
            id("r_ok"),
            Expr::or(
                Expr::eq(id("r_op"), op_ack.clone()),
                Expr::eq(id("r_op"), op_nack.clone()),
            ),
            id("ackev").not(),
        ]),
    );
    wire(
        it,
        "una2",
        16,
        "una after the ACK/NACK",
        mux(
            Expr::eq(id("r_op"), op_ack.clone()),
            add(id("r_rpsn"), dec(16, 1)),
            id("r_rpsn"),
        ),
    );
    partly_used(
        it,
        "una2m1",
        16,
        "una2 - 1 (its slot bits)",
        sub(id("una2"), dec(16, 1)),
    );
    partly_used(
        it,
        "r_meta",
        28,
        "slot meta at una2 - 1 (its cum)",
        cx.meta_at(id("sr_i"), "una2m1"),
    );
    wire(
        it,
        "r_cum",
        16,
        "commands up to una2 - 1",
        Expr::slice("r_meta", 27, 12),
    );
    wire(
        it,
        "moved",
        1,
        "the ACK/NACK frees slots",
        Expr::and(id("ackev"), cx.psn_same("una2", "r_una").not()),
    );
    wire(
        it,
        "r_ctrl",
        1,
        "a good control PDU",
        Expr::and(id("r_ok"), Expr::eq(id("rv_beats_q"), dec(pbw, 0))),
    );
    wire(
        it,
        "r_delta",
        16,
        "psn - epsn",
        sub(id("r_psn"), id("r_epsn")),
    );
    wire(
        it,
        "r_data",
        1,
        "",
        Expr::and(id("r_ok"), ne(id("rv_beats_q"), dec(pbw, 0))),
    );
    wire(
        it,
        "r_accept",
        1,
        "expected PSN: commit",
        Expr::and(id("r_data"), Expr::eq(id("r_delta"), dec(16, 0))),
    );
    wire(
        it,
        "r_gap",
        1,
        "ahead: drop, NACK once",
        all(vec![
            id("r_data"),
            ne(id("r_delta"), dec(16, 0)),
            Expr::bit("r_delta", 15).not(),
        ]),
    );
    wire(
        it,
        "r_dup",
        1,
        "behind: drop, re-ACK",
        Expr::and(id("r_data"), Expr::bit("r_delta", 15)),
    );
}

/// The framing registers.
pub(super) fn regs(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        dw,
        cbt,
        pbw,
        cbw,
        ref pb_e,
        ref init_e,
        ..
    } = cx;
    it.push(Item::AlwaysFf {
        reset: Some({
            let mut r = vec![
                set_id("rx_busy_q", dec(1, 0)),
                set_id("rx_rh_q", dec(64, 0)),
                set_id("rx_hold_q", dec(dw - 64, 0)),
                set_id("rx_beat_q", dec(pbw, 0)),
                set_id("rx_crc_q", init_e.clone()),
                set_id("rx_ferr_q", dec(1, 0)),
                set_id("rx_kerr_q", dec(1, 0)),
                set_id("rx_nc_q", dec(pbw, 0)),
                set_id("rx_vc_q", dec(2, 0)),
            ];
            if cbt > 1 {
                r.push(set_id("rx_cb_q", dec(cbw, 0)));
            }
            r
        }),
        body: vec![when(
            id("rx_fire"),
            vec![
                set_id("rx_hold_q", Expr::slice("s_axis_rx_tdata", dw - 1, 64)),
                // Also at a one-beat PDU's tlast: the verdict reads the RH a cycle later.
                when(id("rx_first"), vec![set_id("rx_rh_q", id("rh_w"))]),
                Stmt::If(
                    id("s_axis_rx_tlast"),
                    vec![set_id("rx_busy_q", dec(1, 0))],
                    {
                        let mut s = vec![
                            set_id("rx_busy_q", dec(1, 1)),
                            set_id(
                                "rx_beat_q",
                                mux(
                                    gt(id("rx_beat"), pb_e.clone()),
                                    id("rx_beat"),
                                    add(id("rx_beat"), dec(pbw, 1)),
                                ),
                            ),
                            set_id("rx_crc_q", id("rx_crc_nxt")),
                            set_id("rx_ferr_q", id("rx_ferr")),
                            set_id("rx_kerr_q", id("rx_kerr")),
                            set_id("rx_nc_q", id("nc2")),
                            when(id("rx_first"), vec![set_id("rx_vc_q", id("rx_vc_w"))]),
                        ];
                        if cbt > 1 {
                            s.push(set_id("rx_cb_q", id("cb2")));
                        }
                        s
                    },
                ),
            ],
        )],
    });
}
