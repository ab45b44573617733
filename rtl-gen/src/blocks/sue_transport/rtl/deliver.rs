//! The receive buffers and the command output: at a command boundary, round robin over the
//! VCs with a queued PDU and no xpu_vc_pause; each command is cmd_beats beats with tlast on
//! the last, tid = source, tuser = vc. The buffer RAM is read into the output register.

use super::{gt, Ctx};
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{
    add, all, any, bit_of, cat, dec, id, mux, ne, set_id, sub, when, wire, zext,
};
use crate::hw::select::{rep, round_robin};
use crate::hw::verilog::{Expr, Item, Stmt, UnOp};

/// The buffer and PDU queue RAMs, the VC arbiter and the output register.
pub(super) fn output(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        v,
        dw,
        cbt,
        vb,
        pbw,
        rrb,
        rpw,
        md,
        mdw,
        mcw,
        olw,
        ..
    } = cx;
    it.push(Item::comment("Command output: at a command boundary, round robin over VCs with a queued PDU and no xpu_vc_pause; each command is cmd_beats beats with tlast on the last, tid = source, tuser = vc."));
    it.push(Item::Memory {
        name: "rxram".into(),
        width: dw,
        depth: v * rrb,
        doc: "receive buffers: payload beats by {vc, pointer}".into(),
    });
    it.push(Item::Memory {
        name: "mq".into(),
        width: 20,
        depth: v * md,
        doc: "per VC queue of committed PDUs {src[9:0], ncmds[9:0]}".into(),
    });
    it.push(Item::reg("o_valid_q", 1, "m_axis_cmd_tvalid"));
    it.push(Item::reg("o_last_q", 1, "m_axis_cmd_tlast"));
    it.push(Item::reg("o_data_q", dw, "receive buffer read register"));
    it.push(Item::reg(
        "o_left_q",
        olw,
        "beats of the command still to load",
    ));
    it.push(Item::reg("o_v_q", 2, "vc of the command"));
    it.push(Item::reg("o_src_q", XPUID_BITS, "source of the command"));
    let oreq: Vec<Expr> = (0..v)
        .rev()
        .map(|vv| {
            Expr::and(
                ne(id(&format!("v{vv}_mc")), dec(mcw, 0)),
                bit_of("xpu_vc_pause", v, vv).not(),
            )
        })
        .collect();
    wire(it, "o_req", v, "VCs with a command to deliver", cat(oreq));
    if v > 1 {
        it.push(Item::reg("o_rr_q", vb, "last VC served"));
        round_robin(it, "ov", "o_req", v, id("o_rr_q"));
    }
    let ovx = if v > 1 {
        zext(id("ov_idx"), vb, 2)
    } else {
        dec(2, 0)
    };
    wire(it, "ov2", 2, "VC picked", ovx);
    wire(
        it,
        "adv_o",
        1,
        "",
        Expr::or(id("o_valid_q").not(), id("m_axis_cmd_tready")),
    );
    wire(
        it,
        "issue_o",
        1,
        "load the next beat of the command",
        Expr::and(id("adv_o"), ne(id("o_left_q"), dec(olw, 0))),
    );
    wire(
        it,
        "decide_o",
        1,
        "start a command",
        all(vec![
            id("adv_o"),
            Expr::eq(id("o_left_q"), dec(olw, 0)),
            Expr::red(UnOp::RedOr, id("o_req")),
        ]),
    );
    wire(
        it,
        "o_vr",
        2,
        "VC read this cycle",
        mux(id("issue_o"), id("o_v_q"), id("ov2")),
    );
    wire(
        it,
        "o_rp",
        rpw,
        "its read pointer",
        cx.vsel("rp", rpw, id("o_vr")),
    );
    // The pop reads no RAM: each VC holds a copy of its head PDU's queue entry, so the last
    // command's compare runs beside the arbiter, not after a queue read through the pick.
    for vv in 0..v {
        it.push(Item::reg(
            &format!("v{vv}_hm"),
            20,
            "head PDU {src, ncmds}: a copy of its PDU queue entry (while one is queued)",
        ));
    }
    wire(
        it,
        "o_src",
        XPUID_BITS,
        "source of the picked VC's head PDU",
        any((0..v)
            .map(|vv| {
                Expr::and(
                    rep(XPUID_BITS, Expr::eq(id("ov2"), dec(2, vv as u64))),
                    Expr::slice(&format!("v{vv}_hm"), 19, 10),
                )
            })
            .collect()),
    );
    for vv in 0..v {
        wire(
            it,
            &format!("v{vv}_last"),
            1,
            "the head PDU's next command is its last",
            Expr::eq(
                zext(add(id(&format!("v{vv}_hd")), dec(pbw, 1)), pbw, pbw.max(10)),
                zext(Expr::slice(&format!("v{vv}_hm"), 9, 0), 10, pbw.max(10)),
            ),
        );
    }
    let raddr_o = if v > 1 {
        cat(vec![Expr::slice("o_vr", vb - 1, 0), id("o_rp")])
    } else {
        id("o_rp")
    };
    wire(
        it,
        "o_raddr",
        if v > 1 { vb + rpw } else { rpw },
        "",
        raddr_o,
    );
    wire(
        it,
        "o_read",
        1,
        "a buffer beat is read",
        Expr::or(id("issue_o"), id("decide_o")),
    );
    let mq_waddr = if v > 1 {
        cat(vec![
            Expr::slice("r_vc", vb - 1, 0),
            cx.vsel("mt", mdw, id("r_vc")),
        ])
    } else {
        id("v0_mt")
    };
    wire(
        it,
        "mq_waddr",
        if v > 1 { vb + mdw } else { mdw },
        "",
        mq_waddr,
    );
    let ncx = if pbw >= 10 {
        Expr::slice("rv_nc_q", 9, 0)
    } else {
        zext(id("rv_nc_q"), pbw, 10)
    };
    wire(
        it,
        "mq_wdata",
        20,
        "PDU queue entry of the PDU at its verdict {src, ncmds}",
        cat(vec![id("r_xpu"), ncx]),
    );
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(
                id("rx_we"),
                vec![Stmt::set(
                    Expr::Index("rxram".into(), Box::new(id("rx_waddr"))),
                    cat(vec![Expr::slice("s_axis_rx_tdata", 63, 0), id("rx_hold_q")]),
                )],
            ),
            when(
                id("r_accept"),
                vec![Stmt::set(
                    Expr::Index("mq".into(), Box::new(id("mq_waddr"))),
                    id("mq_wdata"),
                )],
            ),
            when(
                id("o_read"),
                vec![set_id(
                    "o_data_q",
                    Expr::Index("rxram".into(), Box::new(id("o_raddr"))),
                )],
            ),
        ],
    });
    let mut o_reset = vec![
        set_id("o_valid_q", dec(1, 0)),
        set_id("o_last_q", dec(1, 0)),
        set_id("o_left_q", dec(olw, 0)),
        set_id("o_v_q", dec(2, 0)),
        set_id("o_src_q", dec(XPUID_BITS, 0)),
    ];
    let mut on_dec = vec![
        set_id("o_valid_q", dec(1, 1)),
        set_id("o_left_q", dec(olw, (cbt - 1) as u64)),
        set_id("o_last_q", dec(1, (cbt == 1) as u64)),
        set_id("o_v_q", id("ov2")),
        set_id("o_src_q", id("o_src")),
    ];
    if v > 1 {
        o_reset.push(set_id("o_rr_q", dec(vb, (v - 1) as u64)));
        on_dec.push(set_id("o_rr_q", id("ov_idx")));
    }
    it.push(Item::AlwaysFf {
        reset: Some(o_reset),
        body: vec![Stmt::If(
            id("issue_o"),
            vec![
                set_id("o_valid_q", dec(1, 1)),
                set_id("o_left_q", sub(id("o_left_q"), dec(olw, 1))),
                set_id("o_last_q", Expr::eq(id("o_left_q"), dec(olw, 1))),
            ],
            vec![Stmt::If(
                id("decide_o"),
                on_dec,
                vec![when(id("adv_o"), vec![set_id("o_valid_q", dec(1, 0))])],
            )],
        )],
    });
}

/// Per VC: write and read pointers, beats held, the PDU queue, and the pause towards the
/// link partner.
pub(super) fn buffers(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        v,
        vb,
        pbw,
        rpw,
        ubw,
        mdw,
        mcw,
        ref pause_e,
        ..
    } = cx;
    let beats_c = if pbw > ubw {
        Expr::slice("rv_beats_q", ubw - 1, 0)
    } else {
        zext(id("rv_beats_q"), pbw, ubw)
    };
    wire(
        it,
        "acc_beats",
        ubw,
        "payload beats of an accepted PDU",
        beats_c,
    );
    let acc_rp = if pbw > rpw {
        Expr::slice("rv_beats_q", rpw - 1, 0)
    } else {
        zext(id("rv_beats_q"), pbw, rpw)
    };
    wire(it, "acc_ptr", rpw, "", acc_rp);
    for vv in 0..v {
        let f = |n: &str| format!("v{vv}_{n}");
        let mine_acc = Expr::and(id("r_accept"), Expr::eq(id("r_vc"), dec(2, vv as u64)));
        let mine_rd = Expr::and(id("o_read"), Expr::eq(id("o_vr"), dec(2, vv as u64)));
        let mine_dec = Expr::and(id("decide_o"), Expr::eq(id("ov2"), dec(2, vv as u64)));
        wire(it, &f("acc"), 1, "", mine_acc);
        wire(it, &f("rd"), 1, "", mine_rd);
        wire(it, &f("dec"), 1, "a command of this VC starts", mine_dec);
        wire(
            it,
            &f("pop"),
            1,
            "the head PDU's last command starts",
            Expr::and(id(&f("dec")), id(&f("last"))),
        );
        let mq_next = if v > 1 {
            cat(vec![dec(vb, vv as u64), add(id(&f("mh")), dec(mdw, 1))])
        } else {
            add(id(&f("mh")), dec(mdw, 1))
        };
        wire(
            it,
            &f("nm"),
            20,
            "the PDU queue entry after the head",
            Expr::Index("mq".into(), Box::new(mq_next)),
        );
        it.push(Item::AlwaysFf {
            reset: Some(vec![
                set_id(&f("wp"), dec(rpw, 0)),
                set_id(&f("rp"), dec(rpw, 0)),
                set_id(&f("used"), dec(ubw, 0)),
                set_id(&f("mh"), dec(mdw, 0)),
                set_id(&f("mt"), dec(mdw, 0)),
                set_id(&f("mc"), dec(mcw, 0)),
                set_id(&f("hd"), dec(pbw, 0)),
                set_id(&f("hm"), dec(20, 0)),
            ]),
            body: vec![
                when(
                    id(&f("acc")),
                    vec![
                        set_id(&f("wp"), add(id(&f("wp")), id("acc_ptr"))),
                        set_id(&f("mt"), add(id(&f("mt")), dec(mdw, 1))),
                    ],
                ),
                when(
                    id(&f("rd")),
                    vec![set_id(&f("rp"), add(id(&f("rp")), dec(rpw, 1)))],
                ),
                set_id(
                    &f("used"),
                    sub(
                        add(
                            id(&f("used")),
                            mux(id(&f("acc")), id("acc_beats"), dec(ubw, 0)),
                        ),
                        zext(id(&f("rd")), 1, ubw),
                    ),
                ),
                set_id(
                    &f("mc"),
                    sub(
                        add(id(&f("mc")), zext(id(&f("acc")), 1, mcw)),
                        zext(id(&f("pop")), 1, mcw),
                    ),
                ),
                when(
                    id(&f("pop")),
                    vec![set_id(&f("mh"), add(id(&f("mh")), dec(mdw, 1)))],
                ),
                // The head copy: the entry after the head at a pop, the entry a commit
                // pushes when it becomes the head (the queue empty, or its one PDU popped).
                Stmt::If(
                    id(&f("pop")),
                    vec![set_id(
                        &f("hm"),
                        mux(
                            Expr::eq(id(&f("mc")), dec(mcw, 1)),
                            id("mq_wdata"),
                            id(&f("nm")),
                        ),
                    )],
                    vec![when(
                        Expr::eq(id(&f("mc")), dec(mcw, 0)),
                        vec![set_id(&f("hm"), id("mq_wdata"))],
                    )],
                ),
                when(
                    id(&f("dec")),
                    vec![set_id(
                        &f("hd"),
                        mux(id(&f("pop")), dec(pbw, 0), add(id(&f("hd")), dec(pbw, 1))),
                    )],
                ),
            ],
        });
    }
    let pz: Vec<Expr> = (0..v)
        .rev()
        .map(|vv| gt(id(&format!("v{vv}_used")), pause_e.clone()))
        .collect();
    wire(it, "pause_w", v, "", cat(pz));
}
