//! The `sue_packer` module: input framing and per-queue write pointers, per-queue counters,
//! a two-level round-robin scheduler, a read engine streaming the chosen commands out of one
//! block RAM, and saturating counters.

use super::SuePackerBlock;
use crate::blocks::sue::XPUID_BITS;
use crate::info::DesignInfo;
use crate::hw::build::{
    add, all, any, bit_of, bits_for, cat, clog2, counter, dec, id, localparam, lt, mux, ne, set_id,
    sub, when, wire, zext,
};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port, Stmt, UnOp};
use crate::math::gf2::BitVec;

/// `{w{b}}`: one bit replicated.
pub(crate) fn rep(w: u32, b: Expr) -> Expr {
    if w == 1 {
        b
    } else {
        Expr::Repeat(w, Box::new(b))
    }
}

/// `x` (`from` bits) resized to `to` bits: zero-extended or its low bits.
pub(crate) fn resize(x: &str, from: u32, to: u32) -> Expr {
    if to >= from {
        zext(id(x), from, to)
    } else {
        Expr::slice(x, to - 1, 0)
    }
}

/// The OR of `value_q{i}` (each `w` bits) selected by one-hot bit `oh[i]` (an AND-OR mux).
pub(crate) fn onehot_mux(oh: &str, n: u32, values: impl Fn(u32) -> String, w: u32) -> Expr {
    let terms: Vec<Expr> = (0..n)
        .map(|i| Expr::and(id(&values(i)), rep(w, bit_of(oh, n, i))))
        .collect();
    terms.into_iter().reduce(Expr::or).expect("n >= 1")
}

/// Binary index of a one-hot (or zero) vector `oh` of `n` bits, as `w`-bit wire `out`: bit j is
/// the parity of the one-hot bits whose index has bit j set (an OR, since at most one is set).
pub(crate) fn encode(items: &mut Vec<Item>, out: &str, oh: &str, n: u32, w: u32, doc: &str) {
    items.push(Item::wire(out, w, doc));
    for j in 0..w {
        let mut mask = BitVec::zeros(n as usize);
        for i in 0..n {
            if (i >> j) & 1 == 1 {
                mask.set(i as usize, true);
            }
        }
        let rhs = if mask.is_zero() {
            dec(1, 0)
        } else {
            Expr::parity(id(oh), mask, false)
        };
        items.push(Item::assign(bit_of(out, w, j), rhs));
    }
}

/// Round robin over `n` requests `req` after pointer `ptr` (`clog2(n)` bits): the first request
/// above the pointer, else the lowest; one-hot `<pfx>_oh` and index `<pfx>_idx`.
pub(crate) fn round_robin(items: &mut Vec<Item>, pfx: &str, req: &str, n: u32, ptr: Expr) {
    let pw = clog2(n as u64);
    let above: Vec<Expr> = (0..n)
        .rev()
        .map(|i| {
            if i == 0 {
                dec(1, 0)
            } else {
                lt(ptr.clone(), dec(pw, i as u64))
            }
        })
        .collect();
    wire(
        items,
        &format!("{pfx}_hi"),
        n,
        "requests above the pointer",
        Expr::and(id(req), cat(above)),
    );
    wire(
        items,
        &format!("{pfx}_src"),
        n,
        "requests above the pointer if any, else all (wrap around)",
        mux(
            Expr::red(UnOp::RedOr, id(&format!("{pfx}_hi"))),
            id(&format!("{pfx}_hi")),
            id(req),
        ),
    );
    let src = format!("{pfx}_src");
    wire(
        items,
        &format!("{pfx}_oh"),
        n,
        "lowest set request: x & -x",
        Expr::and(id(&src), add(id(&src).not(), dec(n, 1))),
    );
    encode(
        items,
        &format!("{pfx}_idx"),
        &format!("{pfx}_oh"),
        n,
        pw,
        "index of the pick",
    );
}

pub fn module(b: &SuePackerBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let c = &b.common;
    let (x, v, nq) = (c.num_xpu, c.num_vc, c.num_queues());
    let qd = b.queue_depth;
    let m = c.max_cmds();
    let cbt = c.cmd_beats();
    let hold = b.hold_cycles;
    let dw = 8 * c.data_bytes;
    let cw = bits_for(qd as u64);
    // A PDU carries at most min(MAX_CMDS, queue_depth) commands: the count registers are
    // only as wide as that, so no bit of them is dead when a queue is shallower than a PDU.
    let nw = bits_for(m.min(qd) as u64);
    let sb = clog2(qd as u64);
    let bb = if cbt == 1 { 0 } else { clog2(cbt as u64) };
    let qb = clog2(nq as u64);
    let xb = clog2(x as u64);
    let vb = clog2(v as u64);
    let tw = bits_for(u64::from(nq) * u64::from(qd));
    let kb = c.counter_bits;
    let aw = bits_for(hold as u64);
    let q_name = |q: u32, f: &str| format!("q{q}_{f}");

    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("s_axis_cmd_tdata", dw, "command beats; a command is cmd_bytes / data_bytes beats, byte i at [8i+7:8i]"),
        Port::input("s_axis_cmd_tvalid", 1, "a command beat is offered"),
        Port::output("s_axis_cmd_tready", 1, "beat taken; on a first beat = room in its queue (or a bad dest/vc, taken and dropped)"),
        Port::input("s_axis_cmd_tlast", 1, "last beat of a command (must be beat cmd_bytes / data_bytes)"),
        Port::input("s_axis_cmd_tdest", XPUID_BITS, "destination xpuid, sampled on the first beat"),
        Port::input("s_axis_cmd_tuser", 4, "[1:0] vc and [2] flush (first beat), [3] err (any beat: drop the command)"),
        Port::output("q_space", nq, "bit q = vc * num_xpu + dest: queue q can take one more command (the per-{dest, VC} credit)"),
        Port::output("queued_cmds", tw, "commands held (queued or being sent)"),
        Port::input("vc_pause", v, "1 = do not start PDUs of this VC (PFC/CBFC state)"),
        Port::input("dest_ok", x, "1 = a PDU to this destination may start (transport tx_dest_ready)"),
        Port::output("m_axis_pdu_tdata", dw, "packed payload: the PDU's commands in queue order"),
        Port::output("m_axis_pdu_tvalid", 1, "a payload beat is presented"),
        Port::input("m_axis_pdu_tready", 1, "the beat is taken"),
        Port::output("m_axis_pdu_tlast", 1, "last beat of the PDU"),
        Port::output("m_axis_pdu_tdest", XPUID_BITS, "destination of the PDU"),
        Port::output("m_axis_pdu_tuser", 12, "{ncmds[9:0], vc[1:0]} of the PDU"),
    ]);
    let counters = [
        ("cnt_cmd_in", "commands committed to a queue"),
        (
            "cnt_cmd_drop_framing",
            "commands dropped: tlast early or missing",
        ),
        ("cnt_cmd_drop_dest", "commands dropped: dest >= num_xpu"),
        ("cnt_cmd_drop_vc", "commands dropped: vc >= num_vc"),
        ("cnt_cmd_drop_err", "commands dropped: err on a beat"),
        ("cnt_pdu_out", "PDUs started"),
        ("cnt_cmd_out", "commands sent in PDUs"),
    ];
    for (n, doc) in counters {
        ports.push(Port::output(n, kb, doc));
    }

    let mut it: Vec<Item> = Vec::new();
    let qd_e = localparam(
        &mut it,
        "QUEUE_DEPTH",
        cw,
        qd as u64,
        "commands per {dest, VC} queue",
    );
    // MAX_CMDS bounds a PDU only where a queue can hold that many commands (the PDU cut, and
    // a full PDU ending a hold): with a shallower queue the queue's count is the bound.
    let m_e = (qd > m || (hold > 0 && qd >= m)).then(|| {
        localparam(
            &mut it,
            "MAX_CMDS",
            nw,
            m as u64,
            "commands per PDU at most (max_pack_bytes / cmd_bytes)",
        )
    });
    let last_beat = if bb > 0 {
        Some(localparam(
            &mut it,
            "LAST_BEAT",
            bb,
            (cbt - 1) as u64,
            "beat index of a command's last beat",
        ))
    } else {
        None
    };
    let hold_e = if hold > 0 {
        Some(localparam(
            &mut it,
            "HOLD_CYCLES",
            aw,
            hold as u64,
            "cycles a short queue may wait (our extension)",
        ))
    } else {
        None
    };
    let cmax = if kb >= 64 { u64::MAX } else { (1u64 << kb) - 1 };
    let cnt_max = localparam(
        &mut it,
        "CNT_MAX",
        kb,
        cmax,
        "status counters saturate here",
    );

    // The sideband limits checked on input where they are below the field's range.
    let num_xpu = (x < 1024).then(|| localparam(&mut it, "NUM_XPU", XPUID_BITS, x as u64, "xpuids below this are valid destinations"));
    let num_vc = (v < 4).then(|| localparam(&mut it, "NUM_VC", 2, v as u64, "virtual channels"));

    // ---------------- Input side.
    it.push(Item::comment("Input: the first beat's sideband picks queue q = vc * num_xpu + dest; later beats are always taken (their slot is reserved)."));
    let (tdest, tuser) = ("s_axis_cmd_tdest", "s_axis_cmd_tuser");
    // A limit equal to the field's range cannot be exceeded: the flag is a constant 0.
    let dest_bad = match num_xpu {
        Some(n) => Expr::bin(BinOp::Ge, id(tdest), n),
        None => dec(1, 0),
    };
    wire(&mut it, "dest_bad_w", 1, "dest >= num_xpu", dest_bad);
    let vc_bad = match num_vc {
        Some(n) => Expr::bin(BinOp::Ge, Expr::slice(tuser, 1, 0), n),
        None => dec(1, 0),
    };
    wire(&mut it, "vc_bad_w", 1, "vc >= num_vc", vc_bad);
    let mut qf = zext(Expr::slice(tdest, xb - 1, 0), xb, qb);
    if v > 1 {
        qf = add(qf, mux(Expr::bit(tuser, 0), dec(qb, x as u64), dec(qb, 0)));
    }
    if v > 2 {
        qf = add(
            qf,
            mux(Expr::bit(tuser, 1), dec(qb, 2 * x as u64), dec(qb, 0)),
        );
    }
    wire(
        &mut it,
        "q_first",
        qb,
        "queue of a first beat (meaningful when dest and vc are good)",
        qf,
    );
    it.push(Item::reg(
        "in_skip_q",
        1,
        "discarding up to the next tlast (tlast was missing at the last beat)",
    ));
    if bb > 0 {
        it.push(Item::reg("in_beat_q", bb, "beat index within the command"));
        it.push(Item::reg("in_q_q", qb, "queue of the command in progress"));
        it.push(Item::reg(
            "in_dbad_q",
            1,
            "the command in progress has a bad dest",
        ));
        it.push(Item::reg(
            "in_vbad_q",
            1,
            "the command in progress has a bad vc",
        ));
        it.push(Item::reg("in_err_q", 1, "err seen on an earlier beat"));
        if hold > 0 {
            it.push(Item::reg(
                "in_flush_q",
                1,
                "flush bit of the command in progress",
            ));
        }
    }
    // ---------------- Per-queue state declarations, space and eligibility.
    for q in 0..nq {
        it.push(Item::reg(
            &q_name(q, "cnt"),
            cw,
            &format!(
                "queue {q} (vc {}, dest {}): commands waiting for a PDU",
                q / x,
                q % x
            ),
        ));
        it.push(Item::reg(
            &q_name(q, "used"),
            cw,
            "commands holding RAM (waiting or being read)",
        ));
        it.push(Item::reg(&q_name(q, "wptr"), sb, "next slot to write"));
        it.push(Item::reg(&q_name(q, "rptr"), sb, "oldest waiting slot"));
        if hold > 0 {
            it.push(Item::reg(
                &q_name(q, "age"),
                aw,
                "cycles non-empty since it became non-empty or was last served (saturating)",
            ));
            it.push(Item::reg(&q_name(q, "urg"), 1, "a flushed command waits"));
        }
    }
    let space: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| {
            let res = if bb > 0 {
                all(vec![
                    ne(id("in_beat_q"), dec(bb, 0)),
                    id("in_dbad_q").not(),
                    id("in_vbad_q").not(),
                    Expr::eq(id("in_q_q"), dec(qb, q as u64)),
                ])
            } else {
                dec(1, 0)
            };
            if bb > 0 {
                lt(add(id(&q_name(q, "used")), zext(res, 1, cw)), qd_e.clone())
            } else {
                lt(id(&q_name(q, "used")), qd_e.clone())
            }
        })
        .collect();
    wire(
        &mut it,
        "q_space_w",
        nq,
        "used + reserved < QUEUE_DEPTH per queue",
        cat(space),
    );
    if bb > 0 {
        wire(
            &mut it,
            "first_w",
            1,
            "this beat is a command's first",
            Expr::and(Expr::eq(id("in_beat_q"), dec(bb, 0)), id("in_skip_q").not()),
        );
        wire(
            &mut it,
            "beat_last",
            1,
            "this beat must carry tlast",
            Expr::eq(id("in_beat_q"), last_beat.clone().expect("bb > 0")),
        );
        wire(
            &mut it,
            "cur_q",
            qb,
            "queue of this beat",
            mux(id("first_w"), id("q_first"), id("in_q_q")),
        );
        wire(
            &mut it,
            "cur_dbad",
            1,
            "",
            mux(id("first_w"), id("dest_bad_w"), id("in_dbad_q")),
        );
        wire(
            &mut it,
            "cur_vbad",
            1,
            "",
            mux(id("first_w"), id("vc_bad_w"), id("in_vbad_q")),
        );
        wire(
            &mut it,
            "err_any",
            1,
            "err on this or an earlier beat",
            Expr::or(
                Expr::and(id("first_w").not(), id("in_err_q")),
                Expr::bit(tuser, 3),
            ),
        );
        if hold > 0 {
            wire(
                &mut it,
                "flush_cur",
                1,
                "",
                mux(id("first_w"), Expr::bit(tuser, 2), id("in_flush_q")),
            );
        }
    } else {
        wire(
            &mut it,
            "first_w",
            1,
            "one-beat commands: every beat is a first beat unless discarding",
            id("in_skip_q").not(),
        );
        wire(&mut it, "beat_last", 1, "one-beat commands", dec(1, 1));
        wire(&mut it, "cur_q", qb, "", id("q_first"));
        wire(&mut it, "cur_dbad", 1, "", id("dest_bad_w"));
        wire(&mut it, "cur_vbad", 1, "", id("vc_bad_w"));
        wire(&mut it, "err_any", 1, "", Expr::bit(tuser, 3));
        if hold > 0 {
            wire(&mut it, "flush_cur", 1, "", Expr::bit(tuser, 2));
        }
    }
    if hold == 0 {
        it.push(Item::comment(
            "The flush bit has no effect when hold_cycles = 0: the packer never waits (SUE §4.4).",
        ));
        it.push(Item::pragma("verilator lint_off UNUSED"));
        wire(
            &mut it,
            "flush_unused",
            1,
            "flush (tuser[2]) is unused without hold_cycles",
            Expr::bit(tuser, 2),
        );
        it.push(Item::pragma("verilator lint_on UNUSED"));
    }
    let qf_oh: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| Expr::eq(id("q_first"), dec(qb, q as u64)))
        .collect();
    wire(&mut it, "qf_oh", nq, "q_first one-hot", cat(qf_oh));
    wire(
        &mut it,
        "space_first",
        1,
        "room in the first beat's queue",
        Expr::red(UnOp::RedOr, Expr::and(id("q_space_w"), id("qf_oh"))),
    );
    wire(
        &mut it,
        "cmd_ready",
        1,
        "",
        any(vec![
            id("first_w").not(),
            id("dest_bad_w"),
            id("vc_bad_w"),
            id("space_first"),
        ]),
    );
    wire(
        &mut it,
        "fire",
        1,
        "a beat is taken",
        Expr::and(id("s_axis_cmd_tvalid"), id("cmd_ready")),
    );
    wire(
        &mut it,
        "live",
        1,
        "a beat of a command (not discarded)",
        Expr::and(id("fire"), id("in_skip_q").not()),
    );
    wire(
        &mut it,
        "good_end",
        1,
        "tlast on the command's last beat",
        all(vec![id("live"), id("s_axis_cmd_tlast"), id("beat_last")]),
    );
    wire(
        &mut it,
        "commit",
        1,
        "the command enters its queue",
        all(vec![
            id("good_end"),
            id("cur_dbad").not(),
            id("cur_vbad").not(),
            id("err_any").not(),
        ]),
    );
    wire(
        &mut it,
        "drop_fr",
        1,
        "tlast early or missing",
        Expr::and(
            id("live"),
            Expr::xor(id("s_axis_cmd_tlast"), id("beat_last")),
        ),
    );
    wire(
        &mut it,
        "drop_dest",
        1,
        "",
        Expr::and(id("good_end"), id("cur_dbad")),
    );
    wire(
        &mut it,
        "drop_vc",
        1,
        "",
        all(vec![id("good_end"), id("cur_dbad").not(), id("cur_vbad")]),
    );
    wire(
        &mut it,
        "drop_err",
        1,
        "",
        all(vec![
            id("good_end"),
            id("cur_dbad").not(),
            id("cur_vbad").not(),
            id("err_any"),
        ]),
    );
    wire(
        &mut it,
        "we",
        1,
        "RAM write: a beat of a command with a good queue",
        all(vec![id("live"), id("cur_dbad").not(), id("cur_vbad").not()]),
    );
    let cur_oh: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| Expr::eq(id("cur_q"), dec(qb, q as u64)))
        .collect();
    wire(&mut it, "cur_oh", nq, "cur_q one-hot", cat(cur_oh));
    wire(
        &mut it,
        "commit_oh",
        nq,
        "queue committed to",
        Expr::and(id("cur_oh"), rep(nq, id("commit"))),
    );
    wire(
        &mut it,
        "wptr_cur",
        sb,
        "write slot of cur_q",
        onehot_mux("cur_oh", nq, |q| q_name(q, "wptr"), sb),
    );
    let mut waddr = vec![id("cur_q"), id("wptr_cur")];
    if bb > 0 {
        waddr.push(id("in_beat_q"));
    }
    wire(
        &mut it,
        "waddr",
        qb + sb + bb,
        "{queue, slot, beat}",
        cat(waddr),
    );

    let elig: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| {
            let (vv, d) = (q / x, q % x);
            let mut t = vec![
                ne(id(&q_name(q, "cnt")), dec(cw, 0)),
                bit_of("vc_pause", v, vv).not(),
                bit_of("dest_ok", x, d),
            ];
            if let Some(h) = &hold_e {
                let mut w = vec![
                    id(&q_name(q, "urg")),
                    Expr::bin(BinOp::Ge, id(&q_name(q, "age")), h.clone()),
                ];
                if qd >= m {
                    w.insert(
                        0,
                        Expr::bin(BinOp::Ge, id(&q_name(q, "cnt")), zext(m_e.clone().expect("MAX_CMDS with a hold and qd >= m"), nw, cw)),
                    );
                }
                t.push(any(w));
            }
            all(t)
        })
        .collect();
    wire(
        &mut it,
        "elig_w",
        nq,
        "queue eligible: commands waiting, VC not paused, destination ok (and hold satisfied)",
        cat(elig),
    );
    wire(
        &mut it,
        "any_elig",
        1,
        "",
        Expr::red(UnOp::RedOr, id("elig_w")),
    );

    // ---------------- Two-level round robin (SUE §4.2 step 3): VCs, then queues within the VC.
    it.push(Item::comment("Scheduler: round robin across VCs, then across destinations within the chosen VC (SUE §4.2 step 3)."));
    let vc_any: Vec<Expr> = (0..v)
        .rev()
        .map(|vv| Expr::red(UnOp::RedOr, Expr::slice("elig_w", vv * x + x - 1, vv * x)))
        .collect();
    wire(
        &mut it,
        "vc_any",
        v,
        "VC has an eligible queue",
        cat(vc_any),
    );
    if v > 1 {
        it.push(Item::reg("vp_q", vb, "last VC served"));
        round_robin(&mut it, "v", "vc_any", v, id("vp_q"));
    } else {
        wire(&mut it, "v_oh", 1, "one VC", id("vc_any"));
    }
    for vv in 0..v {
        it.push(Item::reg(
            &format!("qp{vv}_q"),
            xb,
            &format!("last destination served on VC {vv}"),
        ));
    }
    let row: Vec<Expr> = (0..x)
        .rev()
        .map(|d| {
            any((0..v)
                .map(|vv| Expr::and(bit_of("v_oh", v, vv), Expr::bit("elig_w", vv * x + d)))
                .collect())
        })
        .collect();
    wire(
        &mut it,
        "row",
        x,
        "eligible destinations of the chosen VC",
        cat(row),
    );
    wire(
        &mut it,
        "qp_cur",
        xb,
        "destination pointer of the chosen VC",
        onehot_mux("v_oh", v, |vv| format!("qp{vv}_q"), xb),
    );
    round_robin(&mut it, "d", "row", x, id("qp_cur"));
    let sel: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| Expr::and(bit_of("v_oh", v, q / x), Expr::bit("d_oh", q % x)))
        .collect();
    wire(
        &mut it,
        "sel_oh",
        nq,
        "chosen queue, one-hot (zero when none is eligible)",
        cat(sel),
    );
    encode(&mut it, "sel_qi", "sel_oh", nq, qb, "chosen queue index");
    wire(
        &mut it,
        "cnt_sel",
        cw,
        "commands waiting in the chosen queue",
        onehot_mux("sel_oh", nq, |q| q_name(q, "cnt"), cw),
    );
    wire(
        &mut it,
        "rptr_sel",
        sb,
        "oldest slot of the chosen queue",
        onehot_mux("sel_oh", nq, |q| q_name(q, "rptr"), sb),
    );
    let n_e = if let (true, Some(m_e)) = (qd > m, &m_e) {
        mux(
            Expr::bin(BinOp::Ge, id("cnt_sel"), zext(m_e.clone(), nw, cw)),
            m_e.clone(),
            Expr::slice("cnt_sel", nw - 1, 0),
        )
    } else {
        id("cnt_sel")
    };
    wire(
        &mut it,
        "n_w",
        nw,
        if qd > m {
            "commands in the PDU: min(waiting, MAX_CMDS), snapshotted at the decision"
        } else {
            "commands in the PDU: all waiting (a queue holds at most one PDU's worth), snapshotted at the decision"
        },
        n_e,
    );

    // ---------------- Read engine.
    it.push(Item::comment("Read engine: a decision cycle (no beat left to load, output free) picks a queue and loads its first beat; later beats follow one per cycle, so PDUs leave back to back."));
    it.push(Item::reg(
        "rd_cmds_q",
        nw,
        "commands left to load, counting the one of the next beat (0 = idle)",
    ));
    it.push(Item::reg("rd_slot_q", sb, "slot of the next beat"));
    if bb > 0 {
        it.push(Item::reg(
            "rd_beat_q",
            bb,
            "beat of the next beat within its command",
        ));
    }
    it.push(Item::reg("rd_qi_q", qb, "queue of the PDU being sent"));
    it.push(Item::reg("rd_n_q", nw, "commands in the PDU being sent"));
    if v > 1 {
        it.push(Item::reg("rd_v_q", vb, "VC of the PDU"));
    }
    it.push(Item::reg("rd_d_q", xb, "destination of the PDU"));
    it.push(Item::reg("out_valid_q", 1, "m_axis_pdu_tvalid"));
    it.push(Item::reg("out_last_q", 1, "m_axis_pdu_tlast"));
    it.push(Item::reg(
        "ram_q",
        dw,
        "RAM read register: the presented beat",
    ));
    wire(
        &mut it,
        "adv",
        1,
        "the output register can take a beat",
        Expr::or(id("out_valid_q").not(), id("m_axis_pdu_tready")),
    );
    wire(
        &mut it,
        "busy",
        1,
        "beats of the current PDU left to load",
        ne(id("rd_cmds_q"), dec(nw, 0)),
    );
    wire(
        &mut it,
        "issue",
        1,
        "load the next beat of the current PDU",
        Expr::and(id("adv"), id("busy")),
    );
    wire(
        &mut it,
        "decide",
        1,
        "decision: start a PDU from the chosen queue",
        all(vec![id("adv"), id("busy").not(), id("any_elig")]),
    );
    let rd_beat_last = if bb > 0 {
        Expr::eq(id("rd_beat_q"), last_beat.clone().expect("bb"))
    } else {
        dec(1, 1)
    };
    wire(
        &mut it,
        "rd_beat_last",
        1,
        "the next beat ends a command",
        rd_beat_last,
    );
    wire(
        &mut it,
        "last_issue",
        1,
        "the next beat ends the PDU",
        Expr::and(Expr::eq(id("rd_cmds_q"), dec(nw, 1)), id("rd_beat_last")),
    );
    // A PDU of one beat (one one-beat command) is complete at its decision; with longer
    // commands every PDU ends in an issue cycle.
    let first_last = if cbt == 1 {
        wire(
            &mut it,
            "first_last",
            1,
            "a decided PDU of one beat",
            Expr::eq(id("n_w"), dec(nw, 1)),
        );
        id("first_last")
    } else {
        dec(1, 0)
    };
    let mut ra_issue = vec![id("rd_qi_q"), id("rd_slot_q")];
    let mut ra_dec = vec![id("sel_qi"), id("rptr_sel")];
    if bb > 0 {
        ra_issue.push(id("rd_beat_q"));
        ra_dec.push(dec(bb, 0));
    }
    wire(
        &mut it,
        "raddr",
        qb + sb + bb,
        "RAM read address",
        mux(id("issue"), cat(ra_issue), cat(ra_dec)),
    );
    let mut rel = Expr::and(id("issue"), id("last_issue"));
    if cbt == 1 {
        rel = Expr::or(rel, Expr::and(id("decide"), id("first_last")));
    }
    wire(
        &mut it,
        "rel_fire",
        1,
        "the PDU's last beat is loaded: its commands free their slots",
        rel,
    );
    let rel_oh: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| {
            mux(
                id("issue"),
                Expr::eq(id("rd_qi_q"), dec(qb, q as u64)),
                Expr::bit("sel_oh", q),
            )
        })
        .collect();
    wire(
        &mut it,
        "rel_oh",
        nq,
        "queue whose slots are freed",
        Expr::and(cat(rel_oh), rep(nq, id("rel_fire"))),
    );
    let rel_n = if cbt == 1 {
        mux(id("issue"), id("rd_n_q"), id("n_w"))
    } else {
        id("rd_n_q")
    };
    wire(&mut it, "rel_n", nw, "commands freed", rel_n);
    wire(
        &mut it,
        "take_oh",
        nq,
        "queue a PDU takes commands from",
        Expr::and(id("sel_oh"), rep(nq, id("decide"))),
    );

    // Engine register group.
    let mut eng_reset = vec![
        set_id("rd_cmds_q", dec(nw, 0)),
        set_id("rd_slot_q", dec(sb, 0)),
        set_id("rd_qi_q", dec(qb, 0)),
        set_id("rd_n_q", dec(nw, 0)),
        set_id("rd_d_q", dec(xb, 0)),
        set_id("out_valid_q", dec(1, 0)),
        set_id("out_last_q", dec(1, 0)),
    ];
    if bb > 0 {
        eng_reset.push(set_id("rd_beat_q", dec(bb, 0)));
    }
    if v > 1 {
        eng_reset.push(set_id("rd_v_q", dec(vb, 0)));
    }
    let mut on_issue = vec![
        set_id("out_valid_q", dec(1, 1)),
        set_id("out_last_q", id("last_issue")),
    ];
    let mut step_cmd = vec![
        set_id("rd_slot_q", add(id("rd_slot_q"), dec(sb, 1))),
        set_id("rd_cmds_q", sub(id("rd_cmds_q"), dec(nw, 1))),
    ];
    if bb > 0 {
        step_cmd.push(set_id("rd_beat_q", dec(bb, 0)));
        on_issue.push(Stmt::If(
            id("rd_beat_last"),
            step_cmd,
            vec![set_id("rd_beat_q", add(id("rd_beat_q"), dec(bb, 1)))],
        ));
    } else {
        on_issue.extend(step_cmd);
    }
    let mut on_decide = vec![
        set_id("out_valid_q", dec(1, 1)),
        set_id("out_last_q", first_last.clone()),
        set_id("rd_qi_q", id("sel_qi")),
        set_id("rd_n_q", id("n_w")),
        set_id("rd_d_q", id("d_idx")),
    ];
    if v > 1 {
        on_decide.push(set_id("rd_v_q", id("v_idx")));
    }
    if bb > 0 {
        on_decide.extend([
            set_id("rd_slot_q", id("rptr_sel")),
            set_id("rd_beat_q", dec(bb, 1)),
            set_id("rd_cmds_q", id("n_w")),
        ]);
    } else {
        on_decide.extend([
            set_id("rd_slot_q", add(id("rptr_sel"), dec(sb, 1))),
            set_id("rd_cmds_q", sub(id("n_w"), dec(nw, 1))),
        ]);
    }
    let eng_body = vec![Stmt::If(
        id("issue"),
        on_issue,
        vec![Stmt::If(
            id("decide"),
            on_decide,
            vec![when(id("adv"), vec![set_id("out_valid_q", dec(1, 0))])],
        )],
    )];
    it.push(Item::AlwaysFf {
        reset: Some(eng_reset),
        body: eng_body,
    });

    // Scheduler pointers.
    let mut ptr_reset = Vec::new();
    let mut ptr_body = Vec::new();
    if v > 1 {
        ptr_reset.push(set_id("vp_q", dec(vb, (v - 1) as u64)));
        ptr_body.push(when(id("decide"), vec![set_id("vp_q", id("v_idx"))]));
    }
    for vv in 0..v {
        let p = format!("qp{vv}_q");
        ptr_reset.push(set_id(&p, dec(xb, (x - 1) as u64)));
        ptr_body.push(when(
            Expr::and(id("decide"), bit_of("v_oh", v, vv)),
            vec![set_id(&p, id("d_idx"))],
        ));
    }
    it.push(Item::AlwaysFf {
        reset: Some(ptr_reset),
        body: ptr_body,
    });

    // Queue register group.
    let n_cw = resize("n_w", nw, cw);
    let n_sb = resize("n_w", nw, sb);
    let rel_cw = resize("rel_n", nw, cw);
    let mut q_reset = Vec::new();
    let mut q_body = Vec::new();
    for q in 0..nq {
        let f = |s: &str| q_name(q, s);
        q_reset.extend([
            set_id(&f("cnt"), dec(cw, 0)),
            set_id(&f("used"), dec(cw, 0)),
            set_id(&f("wptr"), dec(sb, 0)),
            set_id(&f("rptr"), dec(sb, 0)),
        ]);
        let com = zext(Expr::bit("commit_oh", q), 1, cw);
        q_body.push(set_id(
            &f("cnt"),
            sub(
                add(id(&f("cnt")), com.clone()),
                mux(Expr::bit("take_oh", q), n_cw.clone(), dec(cw, 0)),
            ),
        ));
        q_body.push(set_id(
            &f("used"),
            sub(
                add(id(&f("used")), com),
                mux(Expr::bit("rel_oh", q), rel_cw.clone(), dec(cw, 0)),
            ),
        ));
        q_body.push(set_id(
            &f("wptr"),
            add(id(&f("wptr")), zext(Expr::bit("commit_oh", q), 1, sb)),
        ));
        q_body.push(set_id(
            &f("rptr"),
            add(
                id(&f("rptr")),
                mux(Expr::bit("take_oh", q), n_sb.clone(), dec(sb, 0)),
            ),
        ));
        if let Some(h) = &hold_e {
            q_reset.extend([set_id(&f("age"), dec(aw, 0)), set_id(&f("urg"), dec(1, 0))]);
            let restart = Expr::or(Expr::eq(id(&f("cnt")), dec(cw, 0)), Expr::bit("take_oh", q));
            let aged = mux(
                Expr::bin(BinOp::Ge, id(&f("age")), h.clone()),
                id(&f("age")),
                add(id(&f("age")), dec(aw, 1)),
            );
            q_body.push(set_id(&f("age"), mux(restart, dec(aw, 0), aged)));
            let took_all = Expr::and(
                Expr::bit("take_oh", q),
                Expr::eq(n_cw.clone(), id(&f("cnt"))),
            );
            q_body.push(set_id(
                &f("urg"),
                Expr::or(
                    Expr::and(Expr::bit("commit_oh", q), id("flush_cur")),
                    Expr::and(id(&f("urg")), took_all.not()),
                ),
            ));
        }
    }
    it.push(Item::AlwaysFf {
        reset: Some(q_reset),
        body: q_body,
    });

    // Input register group.
    let mut in_reset = vec![set_id("in_skip_q", dec(1, 0))];
    let mut in_body = vec![when(
        id("fire"),
        vec![set_id(
            "in_skip_q",
            Expr::and(
                id("s_axis_cmd_tlast").not(),
                Expr::or(id("in_skip_q"), id("beat_last")),
            ),
        )],
    )];
    if bb > 0 {
        in_reset.extend([
            set_id("in_beat_q", dec(bb, 0)),
            set_id("in_q_q", dec(qb, 0)),
            set_id("in_dbad_q", dec(1, 0)),
            set_id("in_vbad_q", dec(1, 0)),
            set_id("in_err_q", dec(1, 0)),
        ]);
        let mut cap = vec![
            set_id("in_q_q", id("q_first")),
            set_id("in_dbad_q", id("dest_bad_w")),
            set_id("in_vbad_q", id("vc_bad_w")),
        ];
        if hold > 0 {
            in_reset.push(set_id("in_flush_q", dec(1, 0)));
            cap.push(set_id("in_flush_q", Expr::bit(tuser, 2)));
        }
        in_body.push(when(
            id("live"),
            vec![
                set_id(
                    "in_beat_q",
                    mux(
                        Expr::or(id("s_axis_cmd_tlast"), id("beat_last")),
                        dec(bb, 0),
                        add(id("in_beat_q"), dec(bb, 1)),
                    ),
                ),
                set_id("in_err_q", id("err_any")),
                when(id("first_w"), cap),
            ],
        ));
    }
    it.push(Item::AlwaysFf {
        reset: Some(in_reset),
        body: in_body,
    });

    // Total held and counters.
    it.push(Item::reg("total_q", tw, "commands held"));
    let total_next = sub(
        add(id("total_q"), zext(id("commit"), 1, tw)),
        mux(id("rel_fire"), resize("rel_n", nw, tw), dec(tw, 0)),
    );
    it.push(Item::reg("cnt_cmd_out_q", kb, ""));
    let sw = kb.max(nw) + 1;
    wire(
        &mut it,
        "cmd_out_sum",
        sw,
        "cnt_cmd_out + n_w, one bit wider",
        add(zext(id("cnt_cmd_out_q"), kb, sw), zext(id("n_w"), nw, sw)),
    );
    let mut regs = Vec::new();
    let mut c_reset = vec![
        set_id("total_q", dec(tw, 0)),
        set_id("cnt_cmd_out_q", dec(kb, 0)),
    ];
    let mut c_body = vec![set_id("total_q", total_next)];
    let incs = [
        ("cnt_cmd_in_q", "commit"),
        ("cnt_cmd_drop_framing_q", "drop_fr"),
        ("cnt_cmd_drop_dest_q", "drop_dest"),
        ("cnt_cmd_drop_vc_q", "drop_vc"),
        ("cnt_cmd_drop_err_q", "drop_err"),
        ("cnt_pdu_out_q", "decide"),
    ];
    for (n, inc) in incs {
        counter(
            &mut regs,
            &mut c_reset,
            &mut c_body,
            n,
            kb,
            id(inc),
            cnt_max.clone(),
            "",
        );
    }
    let over = Expr::red(UnOp::RedOr, Expr::slice("cmd_out_sum", sw - 1, kb));
    c_body.push(when(
        id("decide"),
        vec![set_id(
            "cnt_cmd_out_q",
            mux(over, cnt_max.clone(), Expr::slice("cmd_out_sum", kb - 1, 0)),
        )],
    ));
    it.extend(regs);
    it.push(Item::AlwaysFf {
        reset: Some(c_reset),
        body: c_body,
    });

    // RAM.
    it.push(Item::comment(&format!(
        "Storage: {} x {dw} bits of block RAM addressed by {{queue, slot, beat}} ({nq} queues x {} slots x {} beats); write port for command beats, registered read port with enable for the PDU stream.",
        nq << (sb + bb),
        1u32 << sb,
        1u32 << bb
    )));
    it.push(Item::Memory {
        name: "ram".into(),
        width: dw,
        depth: nq << (sb + bb),
        doc: "command beats by queue, slot and beat".into(),
    });
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(
                id("we"),
                vec![Stmt::set(
                    Expr::Index("ram".into(), Box::new(id("waddr"))),
                    id("s_axis_cmd_tdata"),
                )],
            ),
            when(
                Expr::or(id("issue"), id("decide")),
                vec![set_id(
                    "ram_q",
                    Expr::Index("ram".into(), Box::new(id("raddr"))),
                )],
            ),
        ],
    });

    // Outputs.
    let vc_out = if v > 1 {
        zext(id("rd_v_q"), vb, 2)
    } else {
        dec(2, 0)
    };
    it.extend([
        Item::assign(id("s_axis_cmd_tready"), id("cmd_ready")),
        Item::assign(id("q_space"), id("q_space_w")),
        Item::assign(id("queued_cmds"), id("total_q")),
        Item::assign(id("m_axis_pdu_tdata"), id("ram_q")),
        Item::assign(id("m_axis_pdu_tvalid"), id("out_valid_q")),
        Item::assign(id("m_axis_pdu_tlast"), id("out_last_q")),
        Item::assign(id("m_axis_pdu_tdest"), zext(id("rd_d_q"), xb, XPUID_BITS)),
        Item::assign(
            id("m_axis_pdu_tuser"),
            cat(vec![zext(id("rd_n_q"), nw, 10), vc_out]),
        ),
    ]);
    for (n, _) in counters {
        it.push(Item::assign(id(n), id(&format!("{n}_q"))));
    }

    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: b.latency(),
        summary: format!(
            "SUE packer: {nq} command queues ({x} destinations x {v} VCs, {qd} commands of {} bytes each) in block RAM; round robin over VCs then destinations; each PDU packs up to {m} commands ({} bytes) of one queue; {}.",
            c.cmd_bytes,
            c.max_pack_bytes,
            if hold == 0 { "never waits to pack (SUE §4.4)".to_string() } else { format!("a queue short of a full PDU may wait up to {hold} cycles unless flushed") }
        ),
        notes: vec![
            format!("Latency {0}: a command whose last beat is taken on s_axis_cmd in cycle T reaches an idle packer's m_axis_pdu as its PDU's first beat in T+{0} (committed in T, its queue decided in T+1, the beat read from the RAM in T+2; dest_ok set, the VC not paused); the next PDU's first beat follows a last beat with no idle cycle.", b.latency()),
            "Input: tready on a first beat is q_space[q] (bad dest/vc beats are taken and dropped); later beats are always taken. A command is committed at tlast on beat cmd_bytes/data_bytes; else dropped and counted once: framing, dest, vc, err (first match).".into(),
            "Decision: VC round robin after the last VC served, then destination round robin within that VC; n = min(waiting, MAX_CMDS) snapshotted; a command committed in the same cycle goes to a later PDU.".into(),
            "q_space counts commands still being read out, so a slot is never rewritten before its PDU has left the RAM.".into(),
        ],
        role: Role::SuePacker,
        origin: None,
    }
}
