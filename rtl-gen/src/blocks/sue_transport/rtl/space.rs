//! The protocol state of every PSN space: a data PDU sent, then the retransmission timeout,
//! then a received ACK/NACK (later wins: an ACK/NACK suppresses a same-cycle timeout and
//! overrides snd); the RX flags: timers, then the TX clear, then RX events (an accept stays
//! pending). Acknowledged commands are reported on `cmpl_*`.

use super::{ge, gt, sp, Ctx};
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{add, all, any, dec, id, lt, mux, set_id, sub, when, wire};
use crate::hw::verilog::{Expr, Item, Stmt};

/// Every space's TX state and RX flags, the timeout summary and the completion output.
pub(super) fn protocol(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx { ns, .. } = cx;
    it.push(Item::comment("Per PSN space: a data PDU sent, then the retransmission timeout, then a received ACK/NACK (later wins: an ACK/NACK suppresses a same-cycle timeout and overrides snd); RX flags: timers, then the TX clear, then RX events (an accept stays pending)."));
    wire(
        it,
        "clr_nack",
        1,
        "the decided PDU carries a NACK",
        Expr::and(id("decide"), id("p_nack")),
    );
    wire(
        it,
        "clr_ack",
        1,
        "the decided PDU carries an ACK",
        Expr::and(id("decide"), id("p_ack")),
    );
    let mut rto_any = Vec::new();
    for s in 0..ns {
        tx_state(cx, it, s);
        rto_any.push(id(&sp(s, "to")));
        rx_flags(cx, it, s);
    }
    wire(it, "rto_any", 1, "a timeout fires", any(rto_any));
    it.push(Item::reg("cmpl_valid_q", 1, ""));
    it.push(Item::reg("cmpl_dest_q", XPUID_BITS, ""));
    it.push(Item::reg("cmpl_cmds_q", 16, ""));
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("cmpl_valid_q", dec(1, 0)),
            set_id("cmpl_dest_q", dec(XPUID_BITS, 0)),
            set_id("cmpl_cmds_q", dec(16, 0)),
        ]),
        body: vec![
            set_id("cmpl_valid_q", id("moved")),
            when(
                id("moved"),
                vec![
                    set_id("cmpl_dest_q", id("r_xpu")),
                    set_id("cmpl_cmds_q", sub(id("r_cum"), id("r_cacc"))),
                ],
            ),
        ],
    });
}

/// Space `s`: its PSNs, retransmission timer, retries and peer-down flag.
fn tx_state(cx: &Ctx, it: &mut Vec<Item>, s: u32) {
    let &Ctx {
        tw,
        p,
        ref rto_last,
        ..
    } = cx;
    let f = |n: &str| sp(s, n);
    let me = Expr::bit("pick_oh", s);
    let mine_rx = Expr::bit("sr_oh", s);
    wire(
        it,
        &f("dd"),
        1,
        "a data PDU of this space is decided",
        Expr::and(id("decide_data"), me.clone()),
    );
    wire(
        it,
        &f("cen"),
        1,
        "the timer runs",
        Expr::and(
            cx.psn_same(&f("una"), &f("hwm")).not(),
            id(&f("down")).not(),
        ),
    );
    wire(
        it,
        &f("tch"),
        1,
        "an ACK/NACK for this space",
        Expr::and(id("ackev"), mine_rx.clone()),
    );
    wire(
        it,
        &f("to"),
        1,
        "timeout",
        all(vec![
            id(&f("cen")),
            ge(id(&f("timer")), rto_last.clone()),
            id(&f("tch")).not(),
        ]),
    );
    wire(
        it,
        &f("sndd"),
        16,
        "snd after a data PDU sent",
        mux(id(&f("dd")), add(id(&f("snd")), dec(16, 1)), id(&f("snd"))),
    );
    wire(
        it,
        &f("snd1"),
        16,
        "snd after the TX side",
        mux(id(&f("to")), id(&f("una")), id(&f("sndd"))),
    );
    wire(
        it,
        &f("dnew"),
        1,
        "snd is at hwm: the PDU at snd goes out for the first time",
        cx.psn_same(&f("snd"), &f("hwm")),
    );
    wire(
        it,
        &f("hwm1"),
        16,
        "hwm after the TX side",
        mux(
            Expr::and(id(&f("dd")), id(&f("dnew"))),
            add(id(&f("hwm")), dec(16, 1)),
            id(&f("hwm")),
        ),
    );
    wire(
        it,
        &f("behind"),
        1,
        "snd before the new una (read with an ACK/NACK, which stops a timeout: snd1 = sndd)",
        gt(
            cx.psn_diff(&f("sndd"), "una2"),
            cx.psn_diff(&f("hwm1"), "una2"),
        ),
    );
    let retr_down = if p.max_retries > 0 {
        Some(ge(id(&f("retries")), dec(8, p.max_retries as u64)))
    } else {
        None
    };
    let mut to_body = vec![
        set_id(&f("timer"), dec(tw, 0)),
        set_id(
            &f("retries"),
            mux(
                Expr::eq(id(&f("retries")), dec(8, 255)),
                id(&f("retries")),
                add(id(&f("retries")), dec(8, 1)),
            ),
        ),
    ];
    if let Some(rd) = retr_down {
        to_body.push(when(rd, vec![set_id(&f("down"), dec(1, 1))]));
    }
    let p0 = p.psn_init as u64;
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id(&f("next"), dec(16, p0)),
            set_id(&f("hwm"), dec(16, p0)),
            set_id(&f("snd"), dec(16, p0)),
            set_id(&f("una"), dec(16, p0)),
            set_id(&f("cum"), dec(16, 0)),
            set_id(&f("cacc"), dec(16, 0)),
            set_id(&f("timer"), dec(tw, 0)),
            set_id(&f("retries"), dec(8, 0)),
            set_id(&f("down"), dec(1, 0)),
        ]),
        body: vec![
            when(
                Expr::bit("commit_oh", s),
                vec![
                    set_id(&f("next"), add(id(&f("next")), dec(16, 1))),
                    set_id(&f("cum"), id("cum_new")),
                ],
            ),
            set_id(&f("snd"), id(&f("snd1"))),
            set_id(&f("hwm"), id(&f("hwm1"))),
            when(
                Expr::and(id(&f("dd")), cx.psn_same(&f("una"), &f("hwm"))),
                vec![set_id(&f("timer"), dec(tw, 0))],
            ),
            when(
                id(&f("cen")),
                vec![Stmt::If(
                    ge(id(&f("timer")), rto_last.clone()),
                    vec![when(id(&f("to")), to_body)],
                    vec![set_id(&f("timer"), add(id(&f("timer")), dec(tw, 1)))],
                )],
            ),
            when(
                id(&f("tch")),
                vec![
                    when(
                        id("moved"),
                        vec![
                            set_id(&f("cacc"), id("r_cum")),
                            set_id(&f("una"), id("una2")),
                        ],
                    ),
                    set_id(&f("timer"), dec(tw, 0)),
                    set_id(&f("retries"), dec(8, 0)),
                    Stmt::If(
                        id("nack_ok"),
                        vec![set_id(&f("snd"), id("r_rpsn"))],
                        vec![when(id(&f("behind")), vec![set_id(&f("snd"), id("una2"))])],
                    ),
                ],
            ),
        ],
    });
}

/// Space `s`: its expected PSN, the NACK and ACK flags and their ages.
fn rx_flags(cx: &Ctx, it: &mut Vec<Item>, s: u32) {
    let &Ctx {
        uw,
        aw,
        nkw,
        ref coal_e,
        ref delay_e,
        ref nto_last,
        ..
    } = cx;
    let f = |n: &str| sp(s, n);
    let me = Expr::bit("pick_oh", s);
    let mine_rx = Expr::bit("sr_oh", s);
    let p0 = cx.p.psn_init as u64;
    let cn = Expr::and(id("clr_nack"), me.clone());
    let ca = Expr::and(id("clr_ack"), me.clone());
    let acc = Expr::and(id("r_accept"), mine_rx.clone());
    let gap = Expr::and(id("r_gap"), mine_rx.clone());
    let dup = Expr::and(id("r_dup"), mine_rx.clone());
    wire(
        it,
        &f("ub"),
        uw,
        "unacked after the TX clear",
        mux(ca.clone(), dec(uw, 0), id(&f("unacked"))),
    );
    let mut rx_reset = vec![
        set_id(&f("epsn"), dec(16, p0)),
        set_id(&f("nsent"), dec(1, 0)),
        set_id(&f("npend"), dec(1, 0)),
        set_id(&f("apend"), dec(1, 0)),
        set_id(&f("unacked"), dec(uw, 0)),
        set_id(&f("nage"), dec(nkw, 0)),
    ];
    let mut age_tick = Vec::new();
    let mut age_clear = Vec::new();
    if let Some(d) = &delay_e {
        rx_reset.push(set_id(&f("aforce"), dec(1, 0)));
        rx_reset.push(set_id(&f("aage"), dec(aw, 0)));
        age_tick.push(when(
            Expr::and(id(&f("apend")), lt(id(&f("aage")), d.clone())),
            vec![set_id(&f("aage"), add(id(&f("aage")), dec(aw, 1)))],
        ));
        age_clear.push(set_id(&f("aage"), dec(aw, 0)));
    }
    let mut ack_clear = vec![
        set_id(&f("apend"), dec(1, 0)),
        set_id(&f("unacked"), dec(uw, 0)),
    ];
    if delay_e.is_some() {
        ack_clear.push(set_id(&f("aforce"), dec(1, 0)));
    }
    ack_clear.extend(age_clear);
    it.push(Item::AlwaysFf {
        reset: Some(rx_reset),
        body: age_tick
            .into_iter()
            .chain([
                when(
                    Expr::and(id(&f("nsent")), id(&f("npend")).not()),
                    vec![Stmt::If(
                        ge(id(&f("nage")), nto_last.clone()),
                        vec![
                            set_id(&f("npend"), dec(1, 1)),
                            set_id(&f("nage"), dec(nkw, 0)),
                        ],
                        vec![set_id(&f("nage"), add(id(&f("nage")), dec(nkw, 1)))],
                    )],
                ),
                when(
                    cn,
                    vec![
                        set_id(&f("npend"), dec(1, 0)),
                        set_id(&f("nage"), dec(nkw, 0)),
                    ],
                ),
                when(ca, ack_clear),
                when(
                    acc,
                    vec![
                        set_id(&f("epsn"), add(id(&f("epsn")), dec(16, 1))),
                        set_id(&f("nsent"), dec(1, 0)),
                        set_id(&f("apend"), dec(1, 1)),
                        set_id(
                            &f("unacked"),
                            mux(
                                lt(id(&f("ub")), coal_e.clone()),
                                add(id(&f("ub")), dec(uw, 1)),
                                coal_e.clone(),
                            ),
                        ),
                    ],
                ),
                when(
                    Expr::and(gap, id(&f("nsent")).not()),
                    vec![
                        set_id(&f("npend"), dec(1, 1)),
                        set_id(&f("nsent"), dec(1, 1)),
                        set_id(&f("nage"), dec(nkw, 0)),
                    ],
                ),
                when(
                    dup,
                    std::iter::once(set_id(&f("apend"), dec(1, 1)))
                        .chain(delay_e.is_some().then(|| set_id(&f("aforce"), dec(1, 1))))
                        .collect(),
                ),
            ])
            .collect(),
    });
}
