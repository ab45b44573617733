//! TX selection: a due ACK/NACK first (round robin over the spaces; carried by a data PDU to
//! that peer when one is ready, else a control PDU), else data (round robin); the picked
//! space's reliability header.

use super::{ge, mul_const, partly_used, sp, vc_bit, Ctx};
use crate::blocks::protocol::sue::transport::PsnScope;
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{all, any, bit_of, cat, dec, id, mux, sub, wire, zext};
use crate::hw::select::{encode, onehot_mux, round_robin};
use crate::hw::verilog::{Expr, Item, UnOp};

/// The requests, the two round-robin arbiters, the pick and its RH. Returns the picked
/// destination (the engine registers it with the PDU).
pub(super) fn select(cx: &Ctx, it: &mut Vec<Item>) -> Expr {
    let &Ctx {
        x,
        v,
        kpp,
        ns,
        cbt,
        snb,
        xb,
        pbw,
        nw,
        p,
        ref coal_e,
        ref delay_e,
        ..
    } = cx;
    it.push(Item::comment("TX selection: a due ACK/NACK first (round robin; carried by a data PDU to that peer when one is ready, else a control PDU), else data (round robin)."));
    let mut dvec = Vec::new();
    let mut cvec = Vec::new();
    for s in (0..ns).rev() {
        wire(
            it,
            &sp(s, "vcs"),
            2,
            "vc of the slot at snd",
            Expr::slice(&sp(s, "m"), 1, 0),
        );
        let d = all(vec![
            cx.psn_same(&sp(s, "snd"), &sp(s, "next")).not(),
            id(&sp(s, "down")).not(),
            vc_bit("tx_vc_pause", v, id(&sp(s, "vcs"))).not(),
        ]);
        wire(it, &sp(s, "data"), 1, "a data PDU is ready", d);
        let aged = match &delay_e {
            Some(d) => ge(id(&sp(s, "aage")), d.clone()),
            None => dec(1, 1),
        };
        // Without an ACK delay (`aged` constant true) a pending ACK is due at once.
        let due = match &delay_e {
            Some(_) => Expr::and(
                id(&sp(s, "apend")),
                any(vec![
                    id(&sp(s, "aforce")),
                    ge(id(&sp(s, "unacked")), coal_e.clone()),
                    aged,
                ]),
            ),
            None => id(&sp(s, "apend")),
        };
        wire(it, &sp(s, "adue"), 1, "the pending ACK is due", due);
        let cvc = if p.psn_scope == PsnScope::DestVc {
            cx.vc_of(s)
        } else {
            p.ack_vc
        };
        wire(
            it,
            &sp(s, "ctl"),
            1,
            "an ACK/NACK is due and can go (by data or on its control VC)",
            Expr::and(
                Expr::or(id(&sp(s, "npend")), id(&sp(s, "adue"))),
                Expr::or(id(&sp(s, "data")), bit_of("tx_vc_pause", v, cvc).not()),
            ),
        );
        dvec.push(id(&sp(s, "data")));
        cvec.push(id(&sp(s, "ctl")));
    }
    wire(it, "d_req", ns, "", cat(dvec));
    wire(it, "c_req", ns, "", cat(cvec));
    it.push(Item::reg(
        "rr_ctl_q",
        snb,
        "last space served by the control arbiter",
    ));
    it.push(Item::reg(
        "rr_data_q",
        snb,
        "last space served by the data arbiter",
    ));
    round_robin(it, "ca", "c_req", ns, id("rr_ctl_q"));
    round_robin(it, "da", "d_req", ns, id("rr_data_q"));
    wire(it, "any_c", 1, "", Expr::red(UnOp::RedOr, id("c_req")));
    wire(
        it,
        "any_pick",
        1,
        "",
        Expr::or(id("any_c"), Expr::red(UnOp::RedOr, id("d_req"))),
    );
    wire(
        it,
        "pick_oh",
        ns,
        "space picked",
        mux(id("any_c"), id("ca_oh"), id("da_oh")),
    );
    wire(
        it,
        "pick_s",
        snb,
        "space picked",
        mux(id("any_c"), id("ca_idx"), id("da_idx")),
    );
    wire(
        it,
        "pick_data",
        1,
        "a data PDU (else control)",
        Expr::red(UnOp::RedOr, Expr::and(id("pick_oh"), id("d_req"))),
    );
    let npv: Vec<Expr> = (0..ns).rev().map(|s| id(&sp(s, "npend"))).collect();
    let apv: Vec<Expr> = (0..ns).rev().map(|s| id(&sp(s, "apend"))).collect();
    wire(it, "np_vec", ns, "", cat(npv));
    wire(it, "ap_vec", ns, "", cat(apv));
    wire(
        it,
        "p_nack",
        1,
        "piggyback a NACK",
        Expr::red(UnOp::RedOr, Expr::and(id("pick_oh"), id("np_vec"))),
    );
    wire(
        it,
        "p_ack",
        1,
        "piggyback an ACK",
        Expr::and(
            id("p_nack").not(),
            Expr::red(UnOp::RedOr, Expr::and(id("pick_oh"), id("ap_vec"))),
        ),
    );
    wire(
        it,
        "p_epsn",
        16,
        "",
        onehot_mux("pick_oh", ns, |s| sp(s, "epsn"), 16),
    );
    wire(
        it,
        "p_snd",
        16,
        "",
        onehot_mux("pick_oh", ns, |s| sp(s, "snd"), 16),
    );
    wire(
        it,
        "p_next",
        16,
        "",
        onehot_mux("pick_oh", ns, |s| sp(s, "next"), 16),
    );
    partly_used(
        it,
        "p_m",
        28,
        "slot meta at snd of the pick (vc, ncmds)",
        onehot_mux("pick_oh", ns, |s| sp(s, "m"), 28),
    );
    wire(
        it,
        "p_rpsn",
        16,
        "",
        mux(
            id("p_nack"),
            id("p_epsn"),
            mux(id("p_ack"), sub(id("p_epsn"), dec(16, 1)), dec(16, 0)),
        ),
    );
    wire(
        it,
        "p_op",
        2,
        "RH op: 0 none, 1 ACK, 2 NACK",
        cat(vec![id("p_nack"), id("p_ack")]),
    );
    let ctl_vc = if p.psn_scope == PsnScope::DestVc {
        let bits: Vec<Expr> = (0..2)
            .rev()
            .map(|j| {
                any((0..ns)
                    .filter(|s| (cx.vc_of(*s) >> j) & 1 == 1)
                    .map(|s| Expr::bit("pick_oh", s))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .chain([dec(1, 0)])
                    .collect())
            })
            .collect();
        cat(bits)
    } else {
        dec(2, p.ack_vc as u64)
    };
    wire(
        it,
        "p_vc",
        2,
        "RH vc",
        mux(id("pick_data"), Expr::slice("p_m", 1, 0), ctl_vc),
    );
    wire(
        it,
        "p_psn",
        16,
        "RH psn: the PDU's, or next for a control PDU",
        mux(id("pick_data"), id("p_snd"), id("p_next")),
    );
    let rh = cat(vec![
        dec(2, p.version as u64),
        id("p_op"),
        dec(2, 0),
        if p.xpuid_port {
            id("local_xpuid")
        } else {
            dec(XPUID_BITS, p.local_xpuid as u64)
        },
        id("p_psn"),
        id("p_vc"),
        dec(4, 0),
        dec(10, p.partition as u64),
        id("p_rpsn"),
    ]);
    wire(
        it,
        "p_rh",
        64,
        "reliability header, MSB first on the wire",
        rh,
    );
    wire(
        it,
        "p_rh_bytes",
        64,
        "RH in beat byte order (byte 0 = rh[63:56])",
        cat((0..8)
            .map(|j| Expr::slice("p_rh", 8 * j + 7, 8 * j))
            .collect()),
    );
    let dest_pick = if kpp == 1 {
        zext(id("pick_s"), snb, XPUID_BITS)
    } else {
        let doh: Vec<Expr> = (0..x)
            .rev()
            .map(|d| {
                any((0..kpp)
                    .map(|vv| Expr::bit("pick_oh", d * kpp + vv))
                    .collect())
            })
            .collect();
        wire(it, "pick_d_oh", x, "destination picked", cat(doh));
        encode(it, "pick_d", "pick_d_oh", x, xb, "destination picked");
        zext(id("pick_d"), xb, XPUID_BITS)
    };
    wire(
        it,
        "p_nx",
        nw,
        "ncmds of the picked slot",
        Expr::slice("p_m", nw + 1, 2),
    );
    wire(
        it,
        "p_beats",
        pbw,
        "payload beats of the picked slot",
        mul_const("p_nx", nw, cbt, pbw),
    );
    dest_pick
}
