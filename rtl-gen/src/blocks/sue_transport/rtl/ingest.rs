//! TX ingest: the packer's PDU is checked on its first beat (sideband limits, PSN space, peer
//! down, a free slot in the window) and its beats stored in the retransmission slot RAM; the
//! per-space TX and RX registers are declared here, the window occupancy computed here.

use super::{ge, gt, mul_const, partly_used, sp, Ctx};
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{add, all, any, cat, dec, id, lt, mux, ne, set_id, when, wire, zext};
use crate::hw::select::{encode, onehot_mux, rep};
use crate::hw::verilog::{Expr, Item, Stmt, UnOp};

/// The first beat's sideband: vc, ncmds, the limits checked and its PSN space, one-hot.
pub(super) fn sideband(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        kpp,
        ns,
        nw,
        ref m_e,
        ref num_xpu,
        ref num_vc,
        ..
    } = cx;
    it.push(Item::comment("TX ingest: a PDU from the packer is stored in slot next mod SLOTS of its PSN space; the first beat needs a free slot (window), bad sideband and peer-down PDUs are taken and dropped."));
    let (tdest, tuser) = ("s_axis_pdu_tdest", "s_axis_pdu_tuser");
    wire(
        it,
        "in_vc_w",
        2,
        "vc of a first beat",
        Expr::slice(tuser, 1, 0),
    );
    wire(
        it,
        "in_n_w",
        10,
        "ncmds of a first beat",
        Expr::slice(tuser, 11, 2),
    );
    // A check against a limit equal to the field's range is dropped: it cannot fail.
    let mut bad = Vec::new();
    if let Some(n) = &num_xpu {
        bad.push(ge(id(tdest), n.clone()));
    }
    if let Some(n) = &num_vc {
        bad.push(ge(id("in_vc_w"), n.clone()));
    }
    bad.push(Expr::or(
        Expr::eq(id("in_n_w"), dec(10, 0)),
        gt(id("in_n_w"), zext(m_e.clone(), nw, 10)),
    ));
    wire(
        it,
        "in_bad_w",
        1,
        "dest >= num_xpu, vc >= num_vc, ncmds 0 or above MAX_CMDS",
        any(bad),
    );
    let sf: Vec<Expr> = (0..ns)
        .rev()
        .map(|s| {
            let mut t = vec![
                id("in_bad_w").not(),
                Expr::eq(id(tdest), dec(XPUID_BITS, cx.dest_of(s) as u64)),
            ];
            if kpp > 1 {
                t.push(Expr::eq(id("in_vc_w"), dec(2, cx.vc_of(s) as u64)));
            }
            all(t)
        })
        .collect();
    wire(
        it,
        "sf_oh",
        ns,
        "PSN space of a good first beat, one-hot",
        cat(sf),
    );
}

/// The registers of every PSN space (TX PSNs, timer, RX expectation and ACK/NACK flags) and
/// the slot meta RAM.
pub(super) fn space_regs(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        ns,
        slots,
        tw,
        uw,
        aw,
        nkw,
        p,
        ref delay_e,
        ..
    } = cx;
    // Per-space TX registers.
    for s in 0..ns {
        for (f, w, doc) in [
            ("next", 16, "PSN of the next PDU to store"),
            ("hwm", 16, "one past the highest PSN sent"),
            ("snd", 16, "next PSN to (re)send"),
            ("una", 16, "oldest unacknowledged PSN"),
            ("cum", 16, "commands stored so far (mod 2^16)"),
            ("cacc", 16, "commands acknowledged so far (mod 2^16)"),
        ] {
            it.push(Item::reg(
                &sp(s, f),
                w,
                &format!(
                    "space {s} (dest {}, vc {}): {doc}",
                    cx.dest_of(s),
                    cx.vc_of(s)
                ),
            ));
        }
        it.push(Item::reg(&sp(s, "timer"), tw, "retransmission timer"));
        it.push(Item::reg(&sp(s, "retries"), 8, "consecutive timeouts"));
        it.push(Item::reg(&sp(s, "down"), 1, "peer down (sticky)"));
        for (f, w, doc) in [
            ("epsn", 16, "RX: next expected PSN"),
            ("nsent", 1, "RX: a NACK was sent for the current gap"),
            ("npend", 1, "RX: a NACK is to be sent"),
            ("apend", 1, "RX: an ACK is pending"),
            (
                "aforce",
                1,
                "RX: the pending ACK is due now (duplicate seen)",
            ),
        ] {
            // Without an ACK delay a pending ACK is always due: no flag to force it.
            if f != "aforce" || delay_e.is_some() {
                it.push(Item::reg(&sp(s, f), w, doc));
            }
        }
        it.push(Item::reg(
            &sp(s, "unacked"),
            uw,
            "RX: accepted PDUs since the last ACK (saturating)",
        ));
        if p.ack_delay_cycles > 0 {
            it.push(Item::reg(
                &sp(s, "aage"),
                aw,
                "RX: cycles the ACK has been pending (saturating)",
            ));
        }
        it.push(Item::reg(
            &sp(s, "nage"),
            nkw,
            "RX: cycles since the NACK was sent",
        ));
    }
    it.push(Item::Memory {
        name: "meta".into(),
        width: 28,
        depth: ns * slots,
        doc: "per slot {cum[15:0], ncmds[9:0], vc[1:0]}".into(),
    });
}

/// Slots in use per space (from `una`, or from the PSN being read when that is older), so
/// whether a first beat finds a free slot; peer down per space.
pub(super) fn window(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        ns,
        snb,
        pbw,
        pw,
        ref window_e,
        ..
    } = cx;
    it.push(Item::reg(
        "rd_left_q",
        pbw,
        "payload beats still to read from the slot RAM (0 = none)",
    ));
    it.push(Item::reg("rd_s_q", snb, "space of the slot being read"));
    it.push(Item::reg(
        "cur_psn_q",
        pw,
        "PSN of the slot being read (its window bits)",
    ));
    for s in 0..ns {
        wire(
            it,
            &sp(s, "m"),
            28,
            "slot meta at snd",
            cx.meta_at(dec(snb, s as u64), &sp(s, "snd")),
        );
        wire(
            it,
            &sp(s, "dn"),
            pw,
            "next - una (at most WINDOW: compared on the low bits)",
            cx.psn_diff(&sp(s, "next"), &sp(s, "una")),
        );
        wire(
            it,
            &sp(s, "dc"),
            pw,
            "next - PSN being read (at most WINDOW while it is read)",
            cx.psn_diff(&sp(s, "next"), "cur_psn_q"),
        );
        wire(
            it,
            &sp(s, "used"),
            pw,
            "slots in use: from una, or from the PSN being read if older",
            mux(
                all(vec![
                    ne(id("rd_left_q"), dec(pbw, 0)),
                    Expr::eq(id("rd_s_q"), dec(snb, s as u64)),
                    gt(id(&sp(s, "dc")), id(&sp(s, "dn"))),
                ]),
                id(&sp(s, "dc")),
                id(&sp(s, "dn")),
            ),
        );
    }
    // The free-slot check is registered: this cycle's occupancy, against WINDOW and against
    // WINDOW - 1, is taken at the clock edge with the commits of this cycle, so the next first
    // beat sees `next` now against the oldest slot in use a cycle ago (a slot freed by an ACK
    // or the end of a read is seen a cycle later; a commit counts at once).
    let lt_window = |pw_plus: bool| -> Vec<Expr> {
        (0..ns)
            .rev()
            .map(|s| {
                let used = id(&sp(s, "used"));
                let used = if pw_plus { add(used, dec(pw, 1)) } else { used };
                lt(used, window_e.clone())
            })
            .collect()
    };
    wire(
        it,
        "win_free",
        ns,
        "a slot is free per space (now)",
        cat(lt_window(false)),
    );
    wire(
        it,
        "win_free2",
        ns,
        "two slots are free per space (now)",
        cat(lt_window(true)),
    );
    it.push(Item::reg(
        "win_free_q",
        ns,
        "a slot was free per space, a cycle ago",
    ));
    it.push(Item::reg(
        "win_free2_q",
        ns,
        "two slots were free per space, a cycle ago",
    ));
    it.push(Item::reg(
        "win_commit_q",
        ns,
        "a PDU was committed per space, a cycle ago",
    ));
    wire(
        it,
        "free_vec",
        ns,
        "a slot is free per space: a cycle ago, less a slot committed since",
        Expr::or(
            Expr::and(id("win_commit_q"), id("win_free2_q")),
            Expr::and(id("win_commit_q").not(), id("win_free_q")),
        ),
    );
    let downs: Vec<Expr> = (0..ns).rev().map(|s| id(&sp(s, "down"))).collect();
    wire(it, "down_vec", ns, "peer down per space", cat(downs));
    wire(
        it,
        "down_first",
        1,
        "the first beat's space is down",
        Expr::red(UnOp::RedOr, Expr::and(id("sf_oh"), id("down_vec"))),
    );
    wire(
        it,
        "free_first",
        1,
        "the first beat's space has a free slot",
        Expr::red(UnOp::RedOr, Expr::and(id("sf_oh"), id("free_vec"))),
    );
}

/// The ingest registers, the beat-by-beat store into the slot RAM and the meta write when a
/// whole PDU is stored.
pub(super) fn store(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        ns,
        dw,
        cbt,
        slots,
        sb,
        sbeats,
        bb,
        snb,
        pbw,
        nw,
        ..
    } = cx;
    it.push(Item::reg(
        "in_busy_q",
        1,
        "inside a PDU (past its first beat)",
    ));
    it.push(Item::reg("in_good_q", 1, "the PDU is being stored"));
    it.push(Item::reg("in_s_q", ns, "its space, one-hot"));
    it.push(Item::reg(
        "in_beat_q",
        pbw,
        "beat index (saturates at the expected count)",
    ));
    it.push(Item::reg(
        "in_exp_q",
        pbw,
        "beats expected: ncmds x cmd_beats",
    ));
    it.push(Item::reg("in_n_q", 10, "ncmds"));
    it.push(Item::reg("in_vc_q", 2, "vc"));
    wire(it, "in_first", 1, "a first beat", id("in_busy_q").not());
    wire(
        it,
        "pdu_ready",
        1,
        "",
        any(vec![
            id("in_busy_q"),
            id("in_bad_w"),
            id("down_first"),
            id("free_first"),
        ]),
    );
    wire(
        it,
        "pdu_fire",
        1,
        "a beat is taken",
        Expr::and(id("s_axis_pdu_tvalid"), id("pdu_ready")),
    );
    wire(
        it,
        "in_nx",
        nw,
        "ncmds of a first beat (its low bits: meaningful when at most MAX_CMDS)",
        if nw == 10 {
            id("in_n_w")
        } else {
            Expr::slice("in_n_w", nw - 1, 0)
        },
    );
    wire(
        it,
        "exp_first",
        pbw,
        "beats a first beat's PDU must have",
        mul_const("in_nx", nw, cbt, pbw),
    );
    wire(
        it,
        "good_cur",
        1,
        "this beat belongs to a PDU being stored",
        mux(
            id("in_first"),
            Expr::and(id("in_bad_w").not(), id("down_first").not()),
            id("in_good_q"),
        ),
    );
    wire(
        it,
        "beat_cur",
        pbw,
        "",
        mux(id("in_first"), dec(pbw, 0), id("in_beat_q")),
    );
    wire(
        it,
        "exp_cur",
        pbw,
        "",
        mux(id("in_first"), id("exp_first"), id("in_exp_q")),
    );
    wire(
        it,
        "s_cur_oh",
        ns,
        "",
        mux(id("in_first"), id("sf_oh"), id("in_s_q")),
    );
    encode(it, "s_cur", "s_cur_oh", ns, snb, "space of this beat");
    wire(
        it,
        "n_cur",
        10,
        "",
        mux(id("in_first"), id("in_n_w"), id("in_n_q")),
    );
    wire(
        it,
        "vc_cur",
        2,
        "",
        mux(id("in_first"), id("in_vc_w"), id("in_vc_q")),
    );
    partly_used(
        it,
        "next_cur",
        16,
        "next of this beat's space (its slot bits)",
        onehot_mux("s_cur_oh", ns, |s| sp(s, "next"), 16),
    );
    wire(
        it,
        "cum_cur",
        16,
        "",
        onehot_mux("s_cur_oh", ns, |s| sp(s, "cum"), 16),
    );
    wire(
        it,
        "beat_end_ok",
        1,
        "this beat is the expected last one",
        Expr::eq(add(id("beat_cur"), dec(pbw, 1)), id("exp_cur")),
    );
    wire(
        it,
        "tx_we",
        1,
        "store this beat",
        all(vec![
            id("pdu_fire"),
            id("good_cur"),
            lt(id("beat_cur"), id("exp_cur")),
        ]),
    );
    wire(
        it,
        "commit",
        1,
        "a whole PDU stored",
        all(vec![
            id("pdu_fire"),
            id("s_axis_pdu_tlast"),
            id("good_cur"),
            id("beat_end_ok"),
        ]),
    );
    wire(
        it,
        "commit_oh",
        ns,
        "",
        Expr::and(id("s_cur_oh"), rep(ns, id("commit"))),
    );
    wire(
        it,
        "in_err",
        1,
        "a PDU dropped: bad sideband or beat count",
        Expr::or(
            all(vec![id("pdu_fire"), id("in_first"), id("in_bad_w")]),
            all(vec![
                id("pdu_fire"),
                id("s_axis_pdu_tlast"),
                id("good_cur"),
                id("beat_end_ok").not(),
            ]),
        ),
    );
    wire(
        it,
        "in_down",
        1,
        "a PDU dropped: peer down",
        all(vec![
            id("pdu_fire"),
            id("in_first"),
            id("in_bad_w").not(),
            id("down_first"),
        ]),
    );
    wire(
        it,
        "cum_new",
        16,
        "cum after this PDU",
        add(id("cum_cur"), zext(id("n_cur"), 10, 16)),
    );
    let bslice = |e: &str| {
        if pbw > bb {
            Expr::slice(e, bb - 1, 0)
        } else {
            zext(id(e), pbw, bb)
        }
    };
    wire(
        it,
        "tx_waddr",
        snb + sb + bb,
        "{space, slot, beat}",
        cat(vec![
            id("s_cur"),
            Expr::slice("next_cur", sb - 1, 0),
            bslice("beat_cur"),
        ]),
    );
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("in_busy_q", dec(1, 0)),
            set_id("in_good_q", dec(1, 0)),
            set_id("in_s_q", dec(ns, 0)),
            set_id("in_beat_q", dec(pbw, 0)),
            set_id("in_exp_q", dec(pbw, 0)),
            set_id("in_n_q", dec(10, 0)),
            set_id("in_vc_q", dec(2, 0)),
        ]),
        body: vec![when(
            id("pdu_fire"),
            vec![
                when(
                    id("in_first"),
                    vec![
                        set_id("in_good_q", id("good_cur")),
                        set_id("in_s_q", id("sf_oh")),
                        set_id("in_n_q", id("in_n_w")),
                        set_id("in_vc_q", id("in_vc_w")),
                        set_id("in_exp_q", id("exp_first")),
                    ],
                ),
                Stmt::If(
                    id("s_axis_pdu_tlast"),
                    vec![set_id("in_busy_q", dec(1, 0))],
                    vec![
                        set_id("in_busy_q", dec(1, 1)),
                        set_id(
                            "in_beat_q",
                            mux(
                                lt(id("beat_cur"), id("exp_cur")),
                                add(id("beat_cur"), dec(pbw, 1)),
                                id("exp_cur"),
                            ),
                        ),
                    ],
                ),
            ],
        )],
    });
    it.push(Item::Memory {
        name: "txram".into(),
        width: dw,
        depth: ns * slots * sbeats,
        doc: "retransmission slots: payload beats by {space, slot, beat}".into(),
    });
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![when(
            id("commit"),
            vec![Stmt::set(
                Expr::Index(
                    "meta".into(),
                    Box::new(cat(vec![id("s_cur"), Expr::slice("next_cur", sb - 1, 0)])),
                ),
                cat(vec![id("cum_new"), id("n_cur"), id("vc_cur")]),
            )],
        )],
    });
    window_regs(cx, it);
}

/// The registered free-slot check, taken at the clock edge with this cycle's commits.
fn window_regs(cx: &Ctx, it: &mut Vec<Item>) {
    let ns = cx.ns;
    let ones = || Expr::Repeat(ns, Box::new(dec(1, 1)));
    // At reset nothing is in use: one slot is free, two are if the window holds two.
    let two_free_at_reset = if cx.p.window > 1 { ones() } else { dec(ns, 0) };
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("win_free_q", ones()),
            set_id("win_free2_q", two_free_at_reset),
            set_id("win_commit_q", dec(ns, 0)),
        ]),
        body: vec![
            set_id("win_free_q", id("win_free")),
            set_id("win_free2_q", id("win_free2")),
            set_id("win_commit_q", id("commit_oh")),
        ],
    });
}
