//! The `sue_packer` module, in pipeline order: input framing and the RAM write port; the
//! registered input events (a commit reaches its queue's counters one cycle after its `tlast`);
//! per-queue state and space; the two-level round-robin arbiter and its grant register; the
//! read engine starting the granted queue's PDU (its commands counted out then) and streaming
//! it out of one block RAM; the status counters; the RAM; the outputs.
//!
//! Every stage reads registers (or the input ports) and ends in registers, so no path crosses
//! more than one stage: the arbiter decides on the queue counts and the grant waits in its
//! register while the engine sends the PDU before it (the next PDU is decided ahead, so PDUs
//! still leave back to back).

use super::SuePackerBlock;
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{add, all, any, bit_of, bits_for, cat, clog2, dec, id, localparam, lt, mux, ne, set_id, sub, when, wire, zext};
use crate::hw::count::{sat_accumulator, sat_counter};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::axis::Axis;
use crate::hw::select::{encode, onehot_mux, rep, round_robin_oh};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port, Stmt, UnOp};
use crate::info::{DesignInfo, ResetStyle};

/// `x` (`from` bits) resized to `to` bits: zero-extended or its low bits.
fn resize(x: &str, from: u32, to: u32) -> Expr {
    if to >= from {
        zext(id(x), from, to)
    } else {
        Expr::slice(x, to - 1, 0)
    }
}

/// The packer's dimensions (register widths) and the localparams every section reads.
struct Geo {
    x: u32,
    v: u32,
    nq: u32,
    qd: u32,
    m: u32,
    cbt: u32,
    hold: u32,
    dw: u32,
    /// Queue counts (0..=queue_depth).
    cw: u32,
    /// Commands of one PDU (0..=min(MAX_CMDS, queue_depth)): no bit of it is dead when a
    /// queue is shallower than a PDU.
    nw: u32,
    /// Slot index within a queue.
    sb: u32,
    /// Beat index within a command (0 for one-beat commands).
    bb: u32,
    qb: u32,
    xb: u32,
    vb: u32,
    /// Commands held in total.
    tw: u32,
    kb: u32,
    /// Hold age.
    aw: u32,
    qd_e: Expr,
    /// MAX_CMDS, declared where a queue can hold that many commands (the PDU cut, and a full
    /// PDU ending a hold): with a shallower queue the queue's count is the bound.
    m_e: Option<Expr>,
    last_beat: Option<Expr>,
    hold_e: Option<Expr>,
    cnt_max: Expr,
    num_xpu: Option<Expr>,
    num_vc: Option<Expr>,
}

/// Bits `n-2..0` of the `n`-bit `name` (a round-robin pointer's stored part).
fn low_bits(name: &str, n: u32) -> Expr {
    if n == 2 {
        Expr::bit(name, 0)
    } else {
        Expr::slice(name, n - 2, 0)
    }
}

fn q_name(q: u32, f: &str) -> String {
    format!("q{q}_{f}")
}

impl Geo {
    fn new(b: &SuePackerBlock, it: &mut Vec<Item>) -> Geo {
        let c = &b.common;
        let (x, v, nq) = (c.num_xpu, c.num_vc, c.num_queues());
        let (qd, m, cbt, hold) = (b.packer.queue_depth, c.max_cmds(), c.cmd_beats(), b.packer.hold_cycles);
        let cw = bits_for(qd as u64);
        let nw = bits_for(m.min(qd) as u64);
        let bb = if cbt == 1 { 0 } else { clog2(cbt as u64) };
        let aw = bits_for(hold as u64);
        let kb = c.counter_bits;
        let qd_e = localparam(it, "QUEUE_DEPTH", cw, qd as u64, "commands per {dest, VC} queue");
        let m_e = (qd > m || (hold > 0 && qd >= m))
            .then(|| localparam(it, "MAX_CMDS", nw, m as u64, "commands per PDU at most (max_pack_bytes / cmd_bytes)"));
        let last_beat = (bb > 0).then(|| localparam(it, "LAST_BEAT", bb, (cbt - 1) as u64, "beat index of a command's last beat"));
        let hold_e = (hold > 0).then(|| localparam(it, "HOLD_CYCLES", aw, hold as u64, "cycles a short queue may wait (our extension)"));
        let cmax = if kb >= 64 { u64::MAX } else { (1u64 << kb) - 1 };
        let cnt_max = localparam(it, "CNT_MAX", kb, cmax, "status counters saturate here");
        // The sideband limits checked on input where they are below the field's range.
        let num_xpu = (x < 1024).then(|| localparam(it, "NUM_XPU", XPUID_BITS, x as u64, "xpuids below this are valid destinations"));
        let num_vc = (v < 4).then(|| localparam(it, "NUM_VC", 2, v as u64, "virtual channels"));
        Geo {
            x,
            v,
            nq,
            qd,
            m,
            cbt,
            hold,
            dw: 8 * c.data_bytes,
            cw,
            nw,
            sb: clog2(qd as u64),
            bb,
            qb: clog2(nq as u64),
            xb: clog2(x as u64),
            vb: clog2(v as u64),
            tw: bits_for(u64::from(nq) * u64::from(qd)),
            kb,
            aw,
            qd_e,
            m_e,
            last_beat,
            hold_e,
            cnt_max,
            num_xpu,
            num_vc,
        }
    }
}

const COUNTERS: [(&str, &str); 7] = [
    ("cnt_cmd_in", "commands committed to a queue"),
    ("cnt_cmd_drop_framing", "commands dropped: tlast early or missing"),
    ("cnt_cmd_drop_dest", "commands dropped: dest >= num_xpu"),
    ("cnt_cmd_drop_vc", "commands dropped: vc >= num_vc"),
    ("cnt_cmd_drop_err", "commands dropped: err on a beat"),
    ("cnt_pdu_out", "PDUs started"),
    ("cnt_cmd_out", "commands sent in PDUs"),
];

fn ports(design: &DesignInfo, g: &Geo) -> Vec<Port> {
    let (dw, nq, v, x) = (g.dw, g.nq, g.v, g.x);
    let mut ports = clock_ports(design);
    let cmd = Axis::sink(
        "s_axis_cmd",
        dw,
        "command beats; a command is cmd_bytes / data_bytes beats, byte i at [8i+7:8i]",
        "a command beat is offered",
        "beat taken; on a first beat = room in its queue (or a bad dest/vc, taken and dropped)",
    )
    .last("last beat of a command (must be beat cmd_bytes / data_bytes)")
    .dest(XPUID_BITS, "destination xpuid, sampled on the first beat")
    .user(4, "[1:0] vc and [2] flush (first beat), [3] err (any beat: drop the command)");
    ports.extend(cmd.ports());
    ports.extend([
        Port::output("q_space", nq, "bit q = vc * num_xpu + dest: queue q can take one more command (the per-{dest, VC} credit)"),
        Port::output("queued_cmds", g.tw, "commands held (queued or being sent)"),
        Port::input("vc_pause", v, "1 = do not start PDUs of this VC (PFC/CBFC state)"),
        Port::input("dest_ok", x, "1 = a PDU to this destination may start (transport tx_dest_ready)"),
    ]);
    let pdu = Axis::source("m_axis_pdu", dw, "packed payload: the PDU's commands in queue order", "a payload beat is presented", "the beat is taken")
        .last("last beat of the PDU")
        .dest(XPUID_BITS, "destination of the PDU")
        .user(12, "{ncmds[9:0], vc[1:0]} of the PDU");
    ports.extend(pdu.ports());
    for (n, doc) in COUNTERS {
        ports.push(Port::output(n, g.kb, doc));
    }
    ports
}

/// Register declarations read before their register group is emitted: per-queue state, the
/// registered input events, the grant and descriptor registers.
fn declare_state(it: &mut Vec<Item>, g: &Geo) {
    let (cw, sb, aw, x) = (g.cw, g.sb, g.aw, g.x);
    for q in 0..g.nq {
        it.push(Item::reg(&q_name(q, "cnt"), cw, &format!("queue {q} (vc {}, dest {}): commands waiting for a PDU", q / x, q % x)));
        it.push(Item::reg(&q_name(q, "used"), cw, "commands holding RAM (waiting or being read)"));
        it.push(Item::reg(&q_name(q, "nz"), 1, "cnt != 0"));
        it.push(Item::reg(&q_name(q, "room1"), 1, "used < QUEUE_DEPTH"));
        if g.qd > 1 {
            it.push(Item::reg(&q_name(q, "room2"), 1, "used < QUEUE_DEPTH - 1"));
        }
        it.push(Item::reg(&q_name(q, "wptr"), sb, "next slot to write"));
        it.push(Item::reg(&q_name(q, "rptr"), sb, "oldest waiting slot"));
        if g.hold > 0 {
            it.push(Item::reg(&q_name(q, "age"), aw, "cycles non-empty since it became non-empty or was last served (saturating)"));
            it.push(Item::reg(&q_name(q, "urg"), 1, "a flushed command waits"));
        }
    }
    it.push(Item::reg("cm_oh_q", g.nq, "queue a command was committed to last cycle: it reaches cnt and used now"));
    if g.hold > 0 {
        it.push(Item::reg("cm_flush_q", 1, "flush bit of that command"));
    }
    it.push(Item::reg("g_valid_q", 1, "a grant waits for the descriptor register"));
    it.push(Item::reg("g_oh_q", g.nq, "granted queue, one-hot (its count is not yet reduced: masked from the arbiter)"));
}

/// Per-queue space: `used + reserved + committed last cycle < QUEUE_DEPTH` (a multi-beat
/// command in progress reserves its slot from its second beat; a commit is in `used` a cycle
/// after its `tlast`).
fn queue_space(it: &mut Vec<Item>, g: &Geo) {
    let (bb, qb) = (g.bb, g.qb);
    // The reservation and a commit not yet in `used` never fall on one queue in one cycle: the
    // cycle after a command's tlast the input is at a first beat (nothing reserved).
    let space: Vec<Expr> = (0..g.nq)
        .rev()
        .map(|q| {
            let mut one_more = bit_of("cm_oh_q", g.nq, q);
            if bb > 0 {
                let res = all(vec![
                    ne(id("in_beat_q"), dec(bb, 0)),
                    id("in_dbad_q").not(),
                    id("in_vbad_q").not(),
                    Expr::eq(id("in_q_q"), dec(qb, q as u64)),
                ]);
                one_more = Expr::or(one_more, res);
            }
            let room2 = if g.qd > 1 { id(&q_name(q, "room2")) } else { dec(1, 0) };
            mux(one_more, room2, id(&q_name(q, "room1")))
        })
        .collect();
    wire(it, "q_space_w", g.nq, "used + reserved + just committed < QUEUE_DEPTH per queue", cat(space));
}

/// Input side: the first beat's sideband picks queue q = vc * num_xpu + dest; later beats are
/// always taken (their slot is reserved). Ends in the framing registers, the RAM write and the
/// registered commit / drop events.
fn input_side(it: &mut Vec<Item>, g: &Geo) {
    let (bb, qb, xb, nq, hold, sb) = (g.bb, g.qb, g.xb, g.nq, g.hold, g.sb);
    it.push(Item::comment("Input: the first beat's sideband picks queue q = vc * num_xpu + dest; later beats are always taken (their slot is reserved)."));
    let (tdest, tuser) = ("s_axis_cmd_tdest", "s_axis_cmd_tuser");
    // A limit equal to the field's range cannot be exceeded: the flag is a constant 0.
    let dest_bad = g.num_xpu.clone().map_or_else(|| dec(1, 0), |n| Expr::bin(BinOp::Ge, id(tdest), n));
    wire(it, "dest_bad_w", 1, "dest >= num_xpu", dest_bad);
    let vc_bad = g.num_vc.clone().map_or_else(|| dec(1, 0), |n| Expr::bin(BinOp::Ge, Expr::slice(tuser, 1, 0), n));
    wire(it, "vc_bad_w", 1, "vc >= num_vc", vc_bad);
    let mut qf = zext(Expr::slice(tdest, xb - 1, 0), xb, qb);
    if g.v > 1 {
        qf = add(qf, mux(Expr::bit(tuser, 0), dec(qb, g.x as u64), dec(qb, 0)));
    }
    if g.v > 2 {
        qf = add(qf, mux(Expr::bit(tuser, 1), dec(qb, 2 * g.x as u64), dec(qb, 0)));
    }
    wire(it, "q_first", qb, "queue of a first beat (meaningful when dest and vc are good)", qf);
    it.push(Item::reg("in_skip_q", 1, "discarding up to the next tlast (tlast was missing at the last beat)"));
    if bb > 0 {
        it.push(Item::reg("in_beat_q", bb, "beat index within the command"));
        it.push(Item::reg("in_q_q", qb, "queue of the command in progress"));
        it.push(Item::reg("in_dbad_q", 1, "the command in progress has a bad dest"));
        it.push(Item::reg("in_vbad_q", 1, "the command in progress has a bad vc"));
        it.push(Item::reg("in_err_q", 1, "err seen on an earlier beat"));
        if hold > 0 {
            it.push(Item::reg("in_flush_q", 1, "flush bit of the command in progress"));
        }
    }
    // Queue space reads the in-progress registers.
    queue_space(it, g);
    if bb > 0 {
        wire(it, "first_w", 1, "this beat is a command's first", Expr::and(Expr::eq(id("in_beat_q"), dec(bb, 0)), id("in_skip_q").not()));
        wire(it, "beat_last", 1, "this beat must carry tlast", Expr::eq(id("in_beat_q"), g.last_beat.clone().expect("bb > 0")));
        wire(it, "cur_q", qb, "queue of this beat", mux(id("first_w"), id("q_first"), id("in_q_q")));
        wire(it, "cur_dbad", 1, "", mux(id("first_w"), id("dest_bad_w"), id("in_dbad_q")));
        wire(it, "cur_vbad", 1, "", mux(id("first_w"), id("vc_bad_w"), id("in_vbad_q")));
        wire(it, "err_any", 1, "err on this or an earlier beat", Expr::or(Expr::and(id("first_w").not(), id("in_err_q")), Expr::bit(tuser, 3)));
        if hold > 0 {
            wire(it, "flush_cur", 1, "", mux(id("first_w"), Expr::bit(tuser, 2), id("in_flush_q")));
        }
    } else {
        wire(it, "first_w", 1, "one-beat commands: every beat is a first beat unless discarding", id("in_skip_q").not());
        wire(it, "beat_last", 1, "one-beat commands", dec(1, 1));
        wire(it, "cur_q", qb, "", id("q_first"));
        wire(it, "cur_dbad", 1, "", id("dest_bad_w"));
        wire(it, "cur_vbad", 1, "", id("vc_bad_w"));
        wire(it, "err_any", 1, "", Expr::bit(tuser, 3));
        if hold > 0 {
            wire(it, "flush_cur", 1, "", Expr::bit(tuser, 2));
        }
    }
    if hold == 0 {
        it.push(Item::comment("The flush bit has no effect when hold_cycles = 0: the packer never waits (SUE §4.4)."));
        it.push(Item::pragma("verilator lint_off UNUSED"));
        wire(it, "flush_unused", 1, "flush (tuser[2]) is unused without hold_cycles", Expr::bit(tuser, 2));
        it.push(Item::pragma("verilator lint_on UNUSED"));
    }
    let qf_oh: Vec<Expr> = (0..nq).rev().map(|q| Expr::eq(id("q_first"), dec(qb, q as u64))).collect();
    wire(it, "qf_oh", nq, "q_first one-hot", cat(qf_oh));
    // On a first beat nothing is reserved: the space of its queue is the room for one more
    // command past a commit not yet in `used`.
    let sp_first: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| {
            let room2 = if g.qd > 1 { id(&q_name(q, "room2")) } else { dec(1, 0) };
            mux(bit_of("cm_oh_q", nq, q), room2, id(&q_name(q, "room1")))
        })
        .collect();
    wire(it, "sp_first", nq, "per queue: room for a command starting now", cat(sp_first));
    wire(it, "space_first", 1, "room in the first beat's queue", Expr::red(UnOp::RedOr, Expr::and(id("sp_first"), id("qf_oh"))));
    wire(it, "cmd_ready", 1, "", any(vec![id("first_w").not(), id("dest_bad_w"), id("vc_bad_w"), id("space_first")]));
    wire(it, "fire", 1, "a beat is taken", Expr::and(id("s_axis_cmd_tvalid"), id("cmd_ready")));
    wire(it, "live", 1, "a beat of a command (not discarded)", Expr::and(id("fire"), id("in_skip_q").not()));

    wire(it, "drop_fr", 1, "tlast early or missing", Expr::and(id("live"), Expr::xor(id("s_axis_cmd_tlast"), id("beat_last"))));
    // The drops written without cmd_ready where it is known to be 1 (a later beat, or a bad
    // dest/vc on a first beat), keeping the queue space off their path.
    let end = if bb > 0 {
        all(vec![id("s_axis_cmd_tvalid"), id("in_skip_q").not(), id("s_axis_cmd_tlast"), id("beat_last")])
    } else {
        all(vec![id("s_axis_cmd_tvalid"), id("in_skip_q").not(), id("s_axis_cmd_tlast")])
    };
    wire(it, "end_any", 1, "tlast on the command's last beat, taken when its queue is known to be good or it is a later beat", end);
    wire(it, "drop_dest", 1, "", Expr::and(id("end_any"), id("cur_dbad")));
    wire(it, "drop_vc", 1, "", all(vec![id("end_any"), id("cur_dbad").not(), id("cur_vbad")]));
    let err_ready = if bb > 0 { id("err_any") } else { Expr::and(id("err_any"), id("space_first")) };
    wire(it, "drop_err", 1, "", all(vec![id("end_any"), id("cur_dbad").not(), id("cur_vbad").not(), err_ready]));
    wire(it, "we", 1, "RAM write: a beat of a command with a good queue", all(vec![id("live"), id("cur_dbad").not(), id("cur_vbad").not()]));
    let cur_oh: Vec<Expr> = (0..nq).rev().map(|q| Expr::eq(id("cur_q"), dec(qb, q as u64))).collect();
    wire(it, "cur_oh", nq, "cur_q one-hot", cat(cur_oh));
    // commit & cur_oh, written as one AND per queue so no OR over the queues' space is on its
    // path: a multi-beat command commits on a later beat (always taken), a one-beat command
    // on a first beat with room in its own queue.
    let commit_oh: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| {
            let mut t = vec![id("s_axis_cmd_tvalid"), id("in_skip_q").not(), id("s_axis_cmd_tlast"), Expr::bit(tuser, 3).not()];
            if bb > 0 {
                t.extend([id("beat_last"), id("in_dbad_q").not(), id("in_vbad_q").not(), id("in_err_q").not(), Expr::eq(id("in_q_q"), dec(qb, q as u64))]);
            } else {
                t.extend([id("dest_bad_w").not(), id("vc_bad_w").not(), bit_of("qf_oh", nq, q), bit_of("q_space_w", nq, q)]);
            }
            all(t)
        })
        .collect();
    wire(it, "commit_oh", nq, "queue committed to (commit & cur_oh)", cat(commit_oh));
    wire(it, "commit", 1, "the command enters its queue", Expr::red(UnOp::RedOr, id("commit_oh")));
    wire(it, "wptr_cur", sb, "write slot of cur_q", onehot_mux("cur_oh", nq, |q| q_name(q, "wptr"), sb));
    let mut waddr = vec![id("cur_q"), id("wptr_cur")];
    if bb > 0 {
        waddr.push(id("in_beat_q"));
    }
    wire(it, "waddr", qb + sb + bb, "{queue, slot, beat}", cat(waddr));

    // Framing register group.
    let mut reset = vec![set_id("in_skip_q", dec(1, 0))];
    let mut body = vec![when(
        id("fire"),
        vec![set_id("in_skip_q", Expr::and(id("s_axis_cmd_tlast").not(), Expr::or(id("in_skip_q"), id("beat_last"))))],
    )];
    if bb > 0 {
        reset.extend([
            set_id("in_beat_q", dec(bb, 0)),
            set_id("in_q_q", dec(qb, 0)),
            set_id("in_dbad_q", dec(1, 0)),
            set_id("in_vbad_q", dec(1, 0)),
            set_id("in_err_q", dec(1, 0)),
        ]);
        let mut cap = vec![set_id("in_q_q", id("q_first")), set_id("in_dbad_q", id("dest_bad_w")), set_id("in_vbad_q", id("vc_bad_w"))];
        if hold > 0 {
            reset.push(set_id("in_flush_q", dec(1, 0)));
            cap.push(set_id("in_flush_q", Expr::bit(tuser, 2)));
        }
        body.push(when(
            id("live"),
            vec![
                set_id("in_beat_q", mux(Expr::or(id("s_axis_cmd_tlast"), id("beat_last")), dec(bb, 0), add(id("in_beat_q"), dec(bb, 1)))),
                set_id("in_err_q", id("err_any")),
                when(id("first_w"), cap),
            ],
        ));
    }
    it.push(Item::AlwaysFf { reset: Some(reset), body });
}

/// The events of the input side and the read engine, registered: the queue counters, the
/// total and the status counters take them a cycle later, off the input handshake's path.
fn event_registers(it: &mut Vec<Item>, g: &Geo) {
    let nw = g.nw;
    it.push(Item::comment("Registered events: commits and drops of the input side, PDU starts and slot releases of the read engine."));
    let evs = [
        ("ev_commit_q", "commit", "a command was committed"),
        ("ev_drop_fr_q", "drop_fr", "a command was dropped: framing"),
        ("ev_drop_dest_q", "drop_dest", "a command was dropped: dest"),
        ("ev_drop_vc_q", "drop_vc", "a command was dropped: vc"),
        ("ev_drop_err_q", "drop_err", "a command was dropped: err"),
        ("ev_pdu_q", "decide", "a PDU started"),
    ];
    for (r, _, doc) in evs {
        it.push(Item::reg(r, 1, doc));
    }
    it.push(Item::reg("ev_n_q", nw, "commands of the PDU started (0 when none)"));
    it.push(Item::reg("rl_oh_q", g.nq, "queue whose slots were freed"));
    it.push(Item::reg("rl_n_q", nw, "commands freed (0 when none)"));
    let mut reset = vec![set_id("cm_oh_q", dec(g.nq, 0)), set_id("ev_n_q", dec(nw, 0)), set_id("rl_oh_q", dec(g.nq, 0)), set_id("rl_n_q", dec(nw, 0))];
    let mut body = vec![
        set_id("cm_oh_q", id("commit_oh")),
        set_id("ev_n_q", mux(id("decide"), id("g_n"), dec(nw, 0))),
        set_id("rl_oh_q", id("rel_oh")),
        set_id("rl_n_q", mux(id("rel_fire"), id("rel_n"), dec(nw, 0))),
    ];
    if g.hold > 0 {
        reset.push(set_id("cm_flush_q", dec(1, 0)));
        body.push(set_id("cm_flush_q", id("flush_cur")));
    }
    for (r, w, _) in evs {
        reset.push(set_id(r, dec(1, 0)));
        body.push(set_id(r, id(w)));
    }
    it.push(Item::AlwaysFf { reset: Some(reset), body });
}

/// Per-queue eligibility, the two-level round robin (SUE §4.2 step 3: VCs, then destinations
/// within the VC; every VC's destination pick in parallel) and the grant register with the
/// round-robin pointers. The arbiter grants whenever the grant register is empty or moving on.
fn arbiter(it: &mut Vec<Item>, g: &Geo) {
    let (x, v, nq, cw, nw) = (g.x, g.v, g.nq, g.cw, g.nw);
    let elig: Vec<Expr> = (0..nq)
        .rev()
        .map(|q| {
            let (vv, d) = (q / x, q % x);
            let mut t = vec![
                Expr::or(id(&q_name(q, "nz")), bit_of("cm_oh_q", nq, q)),
                bit_of("vc_pause", v, vv).not(),
                bit_of("dest_ok", x, d),
                Expr::and(id("g_valid_q"), bit_of("g_oh_q", nq, q)).not(),
            ];
            if let Some(h) = &g.hold_e {
                // A flushed command committed last cycle (not yet urgent) counts as urgent.
                let mut w = vec![
                    id(&q_name(q, "urg")),
                    Expr::and(bit_of("cm_oh_q", nq, q), id("cm_flush_q")),
                    Expr::bin(BinOp::Ge, id(&q_name(q, "age")), h.clone()),
                ];
                if g.qd >= g.m {
                    let m_e = g.m_e.clone().expect("MAX_CMDS with a hold and qd >= m");
                    w.insert(0, Expr::bin(BinOp::Ge, id(&q_name(q, "cnt")), zext(m_e, nw, cw)));
                }
                t.push(any(w));
            }
            all(t)
        })
        .collect();
    wire(
        it,
        "elig_w",
        nq,
        "queue eligible: commands waiting or just committed, VC not paused, destination ok, not in the grant register (and hold satisfied)",
        cat(elig),
    );
    it.push(Item::comment("Scheduler: round robin across VCs, then across destinations within the chosen VC (SUE §4.2 step 3); each VC's destination pick is made in parallel and the VC pick selects one."));
    let vc_any: Vec<Expr> = (0..v).rev().map(|vv| Expr::red(UnOp::RedOr, Expr::slice("elig_w", vv * x + x - 1, vv * x))).collect();
    wire(it, "vc_any", v, "VC has an eligible queue", cat(vc_any));
    wire(it, "any_elig", 1, "some queue is eligible", Expr::red(UnOp::RedOr, id("vc_any")));
    if v > 1 {
        it.push(Item::reg("vp_oh_q", v - 1, "last VC granted, one-hot over VCs 0..num_vc-2 (0 = the last VC)"));
        round_robin_oh(it, "v", "vc_any", v, "vp_oh_q");
    } else {
        wire(it, "v_oh", 1, "one VC", id("vc_any"));
    }
    for vv in 0..v {
        it.push(Item::reg(&format!("qp{vv}_oh_q"), x - 1, &format!("last destination granted on VC {vv}, one-hot over 0..num_xpu-2 (0 = the last)")));
        wire(it, &format!("row{vv}"), x, &format!("eligible destinations of VC {vv}"), Expr::slice("elig_w", vv * x + x - 1, vv * x));
        round_robin_oh(it, &format!("d{vv}"), &format!("row{vv}"), x, &format!("qp{vv}_oh_q"));
    }
    let sel: Vec<Expr> = (0..nq).rev().map(|q| Expr::and(bit_of("v_oh", v, q / x), bit_of(&format!("d{}_oh", q / x), x, q % x))).collect();
    wire(it, "sel_oh", nq, "chosen queue, one-hot (zero when none is eligible)", cat(sel));
    wire(it, "g_free", 1, "the grant register is empty or its PDU starts this cycle", Expr::or(id("g_valid_q").not(), id("decide")));
    wire(it, "grant", 1, "a queue is granted", Expr::and(id("g_free"), id("any_elig")));

    let reset = vec![set_id("g_valid_q", dec(1, 0)), set_id("g_oh_q", dec(nq, 0))];
    let load = vec![set_id("g_valid_q", id("any_elig")), set_id("g_oh_q", id("sel_oh"))];
    it.push(Item::AlwaysFf { reset: Some(reset), body: vec![when(id("g_free"), load)] });

    // Round-robin pointers: reset to the last request so the first grant is the lowest.
    let mut reset = Vec::new();
    let mut body = Vec::new();
    if v > 1 {
        reset.push(set_id("vp_oh_q", dec(v - 1, 0)));
        body.push(when(id("grant"), vec![set_id("vp_oh_q", low_bits("v_oh", v))]));
    }
    for vv in 0..v {
        let p = format!("qp{vv}_oh_q");
        reset.push(set_id(&p, dec(x - 1, 0)));
        body.push(when(Expr::and(id("grant"), bit_of("v_oh", v, vv)), vec![set_id(&p, low_bits(&format!("d{vv}_oh"), x))]));
    }
    it.push(Item::AlwaysFf { reset: Some(reset), body });
}

/// Per queue: the commands a PDU would take now, min(waiting, MAX_CMDS).
fn take_counts(it: &mut Vec<Item>, g: &Geo) {
    let (cw, nw) = (g.cw, g.nw);
    for q in 0..g.nq {
        let cnt = q_name(q, "cnt");
        let n = match (&g.m_e, g.qd > g.m) {
            (Some(m_e), true) => mux(Expr::bin(BinOp::Ge, id(&cnt), zext(m_e.clone(), nw, cw)), m_e.clone(), Expr::slice(&cnt, nw - 1, 0)),
            _ => resize(&cnt, cw, nw),
        };
        wire(it, &q_name(q, "take_n"), nw, "commands a PDU of this queue takes: min(waiting, MAX_CMDS)", n);
    }
}

/// The granted queue as the read engine reads it: index, destination, VC, and the PDU's
/// commands (n = min(waiting, MAX_CMDS), snapshotted when its PDU starts) and first slot.
fn grant_view(it: &mut Vec<Item>, g: &Geo) {
    let (nq, qb, xb, vb, nw, sb, x, v) = (g.nq, g.qb, g.xb, g.vb, g.nw, g.sb, g.x, g.v);
    wire(it, "g_n", nw, "commands of the granted queue's PDU", onehot_mux("g_oh_q", nq, |q| q_name(q, "take_n"), nw));
    wire(it, "g_rptr", sb, "oldest slot of the granted queue", onehot_mux("g_oh_q", nq, |q| q_name(q, "rptr"), sb));
    encode(it, "g_qi", "g_oh_q", nq, qb, "granted queue");
    let d_terms: Vec<Expr> = (0..v).map(|vv| Expr::slice("g_oh_q", vv * x + x - 1, vv * x)).collect();
    wire(it, "g_d_oh", x, "granted destination, one-hot", d_terms.into_iter().reduce(Expr::or).expect("a VC"));
    encode(it, "g_d", "g_d_oh", x, xb, "granted destination");
    if v > 1 {
        let v_terms: Vec<Expr> = (0..v).rev().map(|vv| Expr::red(UnOp::RedOr, Expr::slice("g_oh_q", vv * x + x - 1, vv * x))).collect();
        wire(it, "g_v_oh", v, "granted VC, one-hot", cat(v_terms));
        encode(it, "g_v", "g_v_oh", v, vb, "granted VC");
    }
}

/// The read engine: a decision cycle (no beat left to load, output free, a PDU described)
/// loads the PDU's first beat; later beats follow one per cycle, so PDUs leave back to back.
fn read_engine(it: &mut Vec<Item>, g: &Geo) {
    let (nq, nw, sb, bb, qb, xb, vb, cbt) = (g.nq, g.nw, g.sb, g.bb, g.qb, g.xb, g.vb, g.cbt);
    it.push(Item::comment("Read engine: a decision cycle (no beat left to load, output free, a PDU described) loads its first beat; later beats follow one per cycle, so PDUs leave back to back."));
    it.push(Item::reg("rd_cmds_q", nw, "commands left to load, counting the one of the next beat (0 = idle)"));
    it.push(Item::reg("rd_slot_q", sb, "slot of the next beat"));
    if bb > 0 {
        it.push(Item::reg("rd_beat_q", bb, "beat of the next beat within its command"));
    }
    it.push(Item::reg("rd_qi_q", qb, "queue of the PDU being sent"));
    it.push(Item::reg("rd_oh_q", nq, "the same, one-hot"));
    it.push(Item::reg("rd_n_q", nw, "commands in the PDU being sent"));
    if g.v > 1 {
        it.push(Item::reg("rd_v_q", vb, "VC of the PDU"));
    }
    it.push(Item::reg("rd_d_q", xb, "destination of the PDU"));
    it.push(Item::reg("out_valid_q", 1, "m_axis_pdu_tvalid"));
    it.push(Item::reg("out_last_q", 1, "m_axis_pdu_tlast"));
    it.push(Item::reg("ram_q", g.dw, "RAM read register: the presented beat"));
    wire(it, "adv", 1, "the output register can take a beat", Expr::or(id("out_valid_q").not(), id("m_axis_pdu_tready")));
    wire(it, "busy", 1, "beats of the current PDU left to load", ne(id("rd_cmds_q"), dec(nw, 0)));
    wire(it, "issue", 1, "load the next beat of the current PDU", Expr::and(id("adv"), id("busy")));
    wire(it, "decide", 1, "decision: start the granted queue's PDU", all(vec![id("adv"), id("busy").not(), id("g_valid_q")]));
    wire(it, "take_oh", nq, "queue whose commands the starting PDU takes", Expr::and(id("g_oh_q"), rep(nq, id("decide"))));
    let rd_beat_last = g.last_beat.clone().map_or_else(|| dec(1, 1), |lb| Expr::eq(id("rd_beat_q"), lb));
    wire(it, "rd_beat_last", 1, "the next beat ends a command", rd_beat_last);
    wire(it, "last_issue", 1, "the next beat ends the PDU", Expr::and(Expr::eq(id("rd_cmds_q"), dec(nw, 1)), id("rd_beat_last")));
    // A PDU of one beat (one one-beat command) is complete at its decision; with longer
    // commands every PDU ends in an issue cycle.
    let first_last = if cbt == 1 {
        wire(it, "first_last", 1, "a decided PDU of one beat", Expr::eq(id("g_n"), dec(nw, 1)));
        id("first_last")
    } else {
        dec(1, 0)
    };
    let mut ra_issue = vec![id("rd_qi_q"), id("rd_slot_q")];
    let mut ra_dec = vec![id("g_qi"), id("g_rptr")];
    if bb > 0 {
        ra_issue.push(id("rd_beat_q"));
        ra_dec.push(dec(bb, 0));
    }
    wire(it, "raddr", qb + sb + bb, "RAM read address", mux(id("issue"), cat(ra_issue), cat(ra_dec)));
    let mut rel = Expr::and(id("issue"), id("last_issue"));
    if cbt == 1 {
        rel = Expr::or(rel, Expr::and(id("decide"), id("first_last")));
    }
    wire(it, "rel_fire", 1, "the PDU's last beat is loaded: its commands free their slots", rel);
    let rel_q = if cbt == 1 { mux(id("issue"), id("rd_oh_q"), id("g_oh_q")) } else { id("rd_oh_q") };
    wire(it, "rel_oh", nq, "queue whose slots are freed", Expr::and(rel_q, rep(nq, id("rel_fire"))));
    let rel_n = if cbt == 1 { mux(id("issue"), id("rd_n_q"), id("g_n")) } else { id("rd_n_q") };
    wire(it, "rel_n", nw, "commands freed", rel_n);

    let mut reset = vec![
        set_id("rd_cmds_q", dec(nw, 0)),
        set_id("rd_slot_q", dec(sb, 0)),
        set_id("rd_qi_q", dec(qb, 0)),
        set_id("rd_oh_q", dec(nq, 0)),
        set_id("rd_n_q", dec(nw, 0)),
        set_id("rd_d_q", dec(xb, 0)),
        set_id("out_valid_q", dec(1, 0)),
        set_id("out_last_q", dec(1, 0)),
    ];
    if bb > 0 {
        reset.push(set_id("rd_beat_q", dec(bb, 0)));
    }
    if g.v > 1 {
        reset.push(set_id("rd_v_q", dec(vb, 0)));
    }
    let mut on_issue = vec![set_id("out_valid_q", dec(1, 1)), set_id("out_last_q", id("last_issue"))];
    let mut step_cmd = vec![set_id("rd_slot_q", add(id("rd_slot_q"), dec(sb, 1))), set_id("rd_cmds_q", sub(id("rd_cmds_q"), dec(nw, 1)))];
    if bb > 0 {
        step_cmd.push(set_id("rd_beat_q", dec(bb, 0)));
        on_issue.push(Stmt::If(id("rd_beat_last"), step_cmd, vec![set_id("rd_beat_q", add(id("rd_beat_q"), dec(bb, 1)))]));
    } else {
        on_issue.extend(step_cmd);
    }
    let mut on_decide = vec![
        set_id("out_valid_q", dec(1, 1)),
        set_id("out_last_q", first_last),
        set_id("rd_qi_q", id("g_qi")),
        set_id("rd_oh_q", id("g_oh_q")),
        set_id("rd_n_q", id("g_n")),
        set_id("rd_d_q", id("g_d")),
    ];
    if g.v > 1 {
        on_decide.push(set_id("rd_v_q", id("g_v")));
    }
    if bb > 0 {
        on_decide.extend([set_id("rd_slot_q", id("g_rptr")), set_id("rd_beat_q", dec(bb, 1)), set_id("rd_cmds_q", id("g_n"))]);
    } else {
        on_decide.extend([set_id("rd_slot_q", add(id("g_rptr"), dec(sb, 1))), set_id("rd_cmds_q", sub(id("g_n"), dec(nw, 1)))]);
    }
    let body = vec![Stmt::If(
        id("issue"),
        on_issue,
        vec![Stmt::If(id("decide"), on_decide, vec![when(id("adv"), vec![set_id("out_valid_q", dec(1, 0))])])],
    )];
    it.push(Item::AlwaysFf { reset: Some(reset), body });
}

/// The queue register group: counts (a commit a cycle after its tlast, a PDU's commands at
/// the move), slots held (freed a cycle after the PDU's last beat is loaded), pointers and the
/// hold state.
fn queue_registers(it: &mut Vec<Item>, g: &Geo) {
    let (cw, sb, nw, aw) = (g.cw, g.sb, g.nw, g.aw);
    let rel_cw = resize("rl_n_q", nw, cw);
    let mut reset = Vec::new();
    let mut body = Vec::new();
    for q in 0..g.nq {
        let f = |s: &str| q_name(q, s);
        let n_cw = resize(&f("take_n"), nw, cw);
        let n_sb = resize(&f("take_n"), nw, sb);
        reset.extend([set_id(&f("cnt"), dec(cw, 0)), set_id(&f("used"), dec(cw, 0)), set_id(&f("wptr"), dec(sb, 0)), set_id(&f("rptr"), dec(sb, 0))]);
        let cm = zext(bit_of("cm_oh_q", g.nq, q), 1, cw);
        body.push(set_id(&f("cnt"), sub(add(id(&f("cnt")), cm.clone()), mux(bit_of("take_oh", g.nq, q), n_cw.clone(), dec(cw, 0)))));
        let used_nx = f("used_nx");
        wire(it, &used_nx, cw, "used after this cycle's commit and release", sub(add(id(&f("used")), cm.clone()), mux(bit_of("rl_oh_q", g.nq, q), rel_cw.clone(), dec(cw, 0))));
        body.push(set_id(&f("used"), id(&used_nx)));
        reset.push(set_id(&f("room1"), dec(1, 1)));
        body.push(set_id(&f("room1"), lt(id(&used_nx), g.qd_e.clone())));
        if g.qd > 1 {
            reset.push(set_id(&f("room2"), dec(1, 1)));
            body.push(set_id(&f("room2"), lt(id(&used_nx), dec(cw, u64::from(g.qd - 1)))));
        }
        // cnt' = cnt + commit - min(cnt, MAX_CMDS) on a take: zero only when the take empties it.
        let le_m = if g.qd > g.m { Expr::bin(BinOp::Le, id(&f("cnt")), zext(g.m_e.clone().expect("MAX_CMDS when qd > m"), nw, cw)) } else { dec(1, 1) };
        reset.push(set_id(&f("nz"), dec(1, 0)));
        body.push(set_id(&f("nz"), Expr::or(bit_of("cm_oh_q", g.nq, q), Expr::and(id(&f("nz")), Expr::and(bit_of("take_oh", g.nq, q), le_m).not()))));
        body.push(set_id(&f("wptr"), add(id(&f("wptr")), zext(bit_of("commit_oh", g.nq, q), 1, sb))));
        body.push(set_id(&f("rptr"), add(id(&f("rptr")), mux(bit_of("take_oh", g.nq, q), n_sb, dec(sb, 0)))));
        if let Some(h) = &g.hold_e {
            reset.extend([set_id(&f("age"), dec(aw, 0)), set_id(&f("urg"), dec(1, 0))]);
            // The age counts from the commit's event (the cycle before it is in cnt).
            let restart = Expr::or(Expr::or(id(&f("nz")), bit_of("cm_oh_q", g.nq, q)).not(), bit_of("take_oh", g.nq, q));
            let aged = mux(Expr::bin(BinOp::Ge, id(&f("age")), h.clone()), id(&f("age")), add(id(&f("age")), dec(aw, 1)));
            body.push(set_id(&f("age"), mux(restart, dec(aw, 0), aged)));
            let took_all = Expr::and(bit_of("take_oh", g.nq, q), Expr::eq(n_cw, id(&f("cnt"))));
            body.push(set_id(
                &f("urg"),
                Expr::or(Expr::and(bit_of("cm_oh_q", g.nq, q), id("cm_flush_q")), Expr::and(id(&f("urg")), took_all.not())),
            ));
        }
    }
    it.push(Item::AlwaysFf { reset: Some(reset), body });
}

/// The total held and the saturating status counters (carry-free, [`crate::hw::count`]), all
/// from the registered events.
fn status_counters(it: &mut Vec<Item>, g: &Geo, style: ResetStyle) {
    let (tw, kb, nw) = (g.tw, g.kb, g.nw);
    it.push(Item::reg("total_q", tw, "commands held"));
    let total_next = sub(add(id("total_q"), zext(id("ev_commit_q"), 1, tw)), resize("rl_n_q", nw, tw));
    let mut regs = Vec::new();
    let mut reset = vec![set_id("total_q", dec(tw, 0))];
    let mut body = vec![set_id("total_q", total_next)];
    let incs = [
        ("cnt_cmd_in_q", "ev_commit_q"),
        ("cnt_cmd_drop_framing_q", "ev_drop_fr_q"),
        ("cnt_cmd_drop_dest_q", "ev_drop_dest_q"),
        ("cnt_cmd_drop_vc_q", "ev_drop_vc_q"),
        ("cnt_cmd_drop_err_q", "ev_drop_err_q"),
        ("cnt_pdu_out_q", "ev_pdu_q"),
    ];
    for (n, inc) in incs {
        sat_counter(&mut regs, &mut reset, &mut body, n, kb, id(inc), "", style);
    }
    sat_accumulator(&mut regs, &mut reset, &mut body, "cnt_cmd_out_q", kb, id("ev_n_q"), nw, g.cnt_max.clone(), "", style);
    it.extend(regs);
    it.push(Item::AlwaysFf { reset: Some(reset), body });
}

fn ram(it: &mut Vec<Item>, g: &Geo) {
    let (nq, sb, bb, dw) = (g.nq, g.sb, g.bb, g.dw);
    it.push(Item::comment(&format!(
        "Storage: {} x {dw} bits of block RAM addressed by {{queue, slot, beat}} ({nq} queues x {} slots x {} beats); write port for command beats, registered read port with enable for the PDU stream.",
        nq << (sb + bb),
        1u32 << sb,
        1u32 << bb
    )));
    it.push(Item::Memory { name: "ram".into(), width: dw, depth: nq << (sb + bb), doc: "command beats by queue, slot and beat".into() });
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(id("we"), vec![Stmt::set(Expr::Index("ram".into(), Box::new(id("waddr"))), id("s_axis_cmd_tdata"))]),
            when(Expr::or(id("issue"), id("decide")), vec![set_id("ram_q", Expr::Index("ram".into(), Box::new(id("raddr"))))]),
        ],
    });
}

fn outputs(it: &mut Vec<Item>, g: &Geo) {
    let vc_out = if g.v > 1 { zext(id("rd_v_q"), g.vb, 2) } else { dec(2, 0) };
    it.extend([
        Item::assign(id("s_axis_cmd_tready"), id("cmd_ready")),
        Item::assign(id("q_space"), id("q_space_w")),
        Item::assign(id("queued_cmds"), id("total_q")),
        Item::assign(id("m_axis_pdu_tdata"), id("ram_q")),
        Item::assign(id("m_axis_pdu_tvalid"), id("out_valid_q")),
        Item::assign(id("m_axis_pdu_tlast"), id("out_last_q")),
        Item::assign(id("m_axis_pdu_tdest"), zext(id("rd_d_q"), g.xb, XPUID_BITS)),
        Item::assign(id("m_axis_pdu_tuser"), cat(vec![zext(id("rd_n_q"), g.nw, 10), vc_out])),
    ]);
    for (n, _) in COUNTERS {
        it.push(Item::assign(id(n), id(&format!("{n}_q"))));
    }
}

pub fn module(b: &SuePackerBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let c = &b.common;
    let mut it: Vec<Item> = Vec::new();
    let g = Geo::new(b, &mut it);
    let ports = ports(design, &g);
    declare_state(&mut it, &g);
    input_side(&mut it, &g);
    take_counts(&mut it, &g);
    // The read engine's decision is read by the arbiter: declared first.
    grant_view(&mut it, &g);
    read_engine(&mut it, &g);
    arbiter(&mut it, &g);
    event_registers(&mut it, &g);
    queue_registers(&mut it, &g);
    status_counters(&mut it, &g, design.reset);
    ram(&mut it, &g);
    outputs(&mut it, &g);
    let shape = super::props::Shape { nq: g.nq, qd: g.qd, cw: g.cw, dw: g.dw, cmd_beats: g.cbt, beat_bits: g.bb, num_xpu: g.x, num_vc: g.v };
    it.push(super::props::properties(design, &shape));
    let (x, v, nq, m, hold) = (g.x, g.v, g.nq, g.m, g.hold);
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: b.latency(),
        summary: format!(
            "SUE packer: {nq} command queues ({x} destinations x {v} VCs, {} commands of {} bytes each) in block RAM; round robin over VCs then destinations; each PDU packs up to {m} commands ({} bytes) of one queue; {}.",
            g.qd,
            c.cmd_bytes,
            c.max_pack_bytes,
            if hold == 0 { "never waits to pack (SUE §4.4)".to_string() } else { format!("a queue short of a full PDU may wait up to {hold} cycles unless flushed") }
        ),
        notes: vec![
            format!("Latency {0}: a command whose last beat is taken on s_axis_cmd in cycle T reaches an idle packer's m_axis_pdu as its PDU's first beat in T+{0} (committed in T, its queue granted in T+1, its PDU started and the first beat read from the RAM in T+2, presented in T+3; dest_ok set, the VC not paused); the next queue is granted while the current PDU is sent, so its first beat follows a last beat with no idle cycle.", b.latency()),
            "Input: tready on a first beat is q_space[q] (bad dest/vc beats are taken and dropped); later beats are always taken. A command is committed at tlast on beat cmd_bytes/data_bytes; else dropped and counted once: framing, dest, vc, err (first match). Counters and queued_cmds count a command one cycle after its tlast.".into(),
            "Arbiter: VC round robin after the last VC granted, then destination round robin within that VC, over queues with commands (or one just committed), the VC not paused and dest_ok set; the queue in the grant register is skipped until its PDU starts. When the PDU starts n = min(waiting, MAX_CMDS) is snapshotted; a command committed later goes to a later PDU. vc_pause and dest_ok gate grants: a granted PDU is sent even if they change before it starts.".into(),
            "q_space counts commands still being read out (their slots are freed a cycle after the PDU's last beat is loaded), so a slot is never rewritten before its PDU has left the RAM.".into(),
        ],
        role: Role::SuePacker,
        origin: None,
    }
}
