//! Properties of the SUE packer, at its ports and its per-queue registers (never at the RAM):
//!
//! - streams: `m_axis_pdu` keeps `tvalid` and the beat (data, last, dest, user) until `tready`,
//!   assuming the same of the `s_axis_cmd` sender;
//! - queues: per {destination, VC} queue, the commands waiting for a PDU never exceed those
//!   holding RAM, which never exceed QUEUE_DEPTH (no overflow; counts are unsigned, so an
//!   underflow would wrap above it), and the registered flags agree with the counts (`nz`,
//!   `room1`, `room2`), so `q_space` and the arbiter read the true occupancy;
//! - data integrity by the tagged-entry argument, at the ports: one queue {f_dest, f_vc}, one
//!   command number f_k and one beat f_b (free constants): the data of beat f_b of the f_k-th
//!   command committed to that queue is what `m_axis_pdu` carries as beat f_b of the f_k-th
//!   command it sends to that queue's destination and VC (`p_tag_data`; read back unchanged and
//!   in order), and the queue never sends more commands than were committed to it
//!   (`p_tag_created`: no command created). Commands are counted in 8 bits that stop at 255
//!   (f_k < 255), so the two speak of a queue's first 255 commands; a count that wrapped would
//!   make both false after 256 commands (the 256th would be numbered 0 again);
//! - the status counters saturate at CNT_MAX and never wrap (the event counters step by one,
//!   the commands-sent accumulator never decreases): those properties come with the counters,
//!   from [`crate::hw::count`].

use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{add, all, and, dec, eq, id, le, lt, mux, ne, sub};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// The packer's shape as its properties read it.
pub struct Shape {
    /// Queues ({destination, VC} pairs), commands per queue, bits of a queue's counts.
    pub nq: u32,
    pub qd: u32,
    pub cw: u32,
    /// Bits of a beat.
    pub dw: u32,
    /// Beats per command and the bits of a beat index (0 for one-beat commands).
    pub cmd_beats: u32,
    pub beat_bits: u32,
    pub num_xpu: u32,
    pub num_vc: u32,
}

/// Bits of the tagged-command counters.
const TAG_COUNT_BITS: u32 = 8;

/// The packer's properties.
pub fn properties(design: &DesignInfo, shape: &Shape) -> Item {
    let (nq, qd, cw, dw) = (shape.nq, shape.qd, shape.cw, shape.dw);
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    let run = running(reset);
    f.stream_in(reset, "s_axis_cmd", &[("tdata", dw), ("tlast", 1), ("tdest", XPUID_BITS), ("tuser", 4)]);
    f.stream_out(reset, "m_axis_pdu", &[("tdata", dw), ("tlast", 1), ("tdest", XPUID_BITS), ("tuser", 12)], None);
    for q in 0..nq {
        let n = |s: &str| id(&format!("q{q}_{s}"));
        let mut cond = vec![le(n("cnt"), n("used")), le(n("used"), id("QUEUE_DEPTH")), eq(n("nz"), ne(n("cnt"), dec(cw, 0))), eq(n("room1"), lt(n("used"), id("QUEUE_DEPTH")))];
        if qd > 1 {
            cond.push(eq(n("room2"), lt(n("used"), sub(id("QUEUE_DEPTH"), dec(cw, 1)))));
        }
        f.assert(
            &format!("p_q{q}_occupancy"),
            &format!("queue {q}: waiting <= holding RAM <= QUEUE_DEPTH, and its flags agree with the counts"),
            Some(run.clone()),
            all(cond),
        );
    }
    tagged_command(&mut f, design, shape);
    Item::Formal(f)
}

/// The tagged-entry argument over one queue's commands (see the module docs).
fn tagged_command(f: &mut Formal, design: &DesignInfo, shape: &Shape) {
    let reset = design.reset;
    let (dw, bb, kw) = (shape.dw, shape.beat_bits, TAG_COUNT_BITS);
    f.anyconst.push(("f_dest".into(), XPUID_BITS, "the tagged queue's destination".into()));
    f.anyconst.push(("f_vc".into(), 2, "the tagged queue's VC".into()));
    f.anyconst.push(("f_k".into(), kw, "the tagged command's number in its queue".into()));
    // The command counts stop at their top value, which no tagged command takes.
    let count_top = dec(kw, (1u64 << kw) - 1);
    f.assume("a_tag_k", "the tagged command is numbered below the counts' top value", None, ne(id("f_k"), count_top.clone()));
    // A bound equal to the field's range holds by width.
    let mut bounds = vec![];
    if shape.num_xpu < 1 << XPUID_BITS {
        bounds.push(lt(id("f_dest"), dec(XPUID_BITS, shape.num_xpu as u64)));
    }
    if shape.num_vc < 4 {
        bounds.push(lt(id("f_vc"), dec(2, shape.num_vc as u64)));
    }
    if !bounds.is_empty() {
        f.assume("a_tag_queue", "the tagged queue is one of the packer's", None, all(bounds));
    }
    let beat_is_tag = |beat: Expr| if bb > 0 { eq(beat, id("f_b")) } else { Expr::one() };
    if bb > 0 {
        f.anyconst.push(("f_b".into(), bb, "the tagged beat of the command".into()));
        f.assume("a_tag_beat", "the tagged beat is one of a command's", None, le(id("f_b"), dec(bb, shape.cmd_beats as u64 - 1)));
    }
    // Input: the command in progress is for the tagged queue (sampled on its first beat).
    f.items.push(Item::wire("f_in_port", 1, "the beat on s_axis_cmd names the tagged queue"));
    f.items.push(Item::assign(id("f_in_port"), and(eq(id("s_axis_cmd_tdest"), id("f_dest")), eq(Expr::slice("s_axis_cmd_tuser", 1, 0), id("f_vc")))));
    f.items.push(Item::wire("f_in_tagq", 1, "the command of this beat is for the tagged queue"));
    f.items.push(Item::wire("f_cmd_data", dw, "beat f_b of the command of this beat"));
    f.items.push(Item::reg("f_in_cmds", kw, "commands committed to the tagged queue (stops at the top value)"));
    f.items.push(Item::reg("f_tag_set", 1, "the tagged command is committed"));
    f.items.push(Item::reg("f_tag_data", dw, "beat f_b of the tagged command"));
    let mut input_regs = vec![];
    if bb > 0 {
        f.items.push(Item::reg("f_in_match", 1, "the command in progress is for the tagged queue"));
        f.items.push(Item::reg("f_in_data", dw, "beat f_b of the command in progress, once taken"));
        f.items.push(Item::assign(id("f_in_tagq"), mux(id("first_w"), id("f_in_port"), id("f_in_match"))));
        f.items.push(Item::assign(id("f_cmd_data"), mux(beat_is_tag(id("in_beat_q")), id("s_axis_cmd_tdata"), id("f_in_data"))));
        input_regs.push(Stmt::when(and(id("fire"), id("first_w")), vec![Stmt::set(id("f_in_match"), id("f_in_port"))]));
        input_regs.push(Stmt::when(and(id("fire"), beat_is_tag(id("in_beat_q"))), vec![Stmt::set(id("f_in_data"), id("s_axis_cmd_tdata"))]));
    } else {
        f.items.push(Item::assign(id("f_in_tagq"), id("f_in_port")));
        f.items.push(Item::assign(id("f_cmd_data"), id("s_axis_cmd_tdata")));
    }
    let commit = and(id("commit"), id("f_in_tagq"));
    input_regs.push(Stmt::when(and(commit.clone(), ne(id("f_in_cmds"), count_top.clone())), vec![Stmt::set(id("f_in_cmds"), add(id("f_in_cmds"), dec(kw, 1)))]));
    input_regs.push(Stmt::when(and(commit, eq(id("f_in_cmds"), id("f_k"))), vec![Stmt::set(id("f_tag_set"), Expr::one()), Stmt::set(id("f_tag_data"), id("f_cmd_data"))]));
    // Output: beats of the tagged queue's PDUs, counted in commands and beats.
    f.items.push(Item::wire("f_out_tagq", 1, "a beat of the tagged queue leaves on m_axis_pdu"));
    let out_port = and(eq(id("m_axis_pdu_tdest"), id("f_dest")), eq(Expr::slice("m_axis_pdu_tuser", 1, 0), id("f_vc")));
    f.items.push(Item::assign(id("f_out_tagq"), all(vec![id("m_axis_pdu_tvalid"), id("m_axis_pdu_tready"), out_port])));
    f.items.push(Item::reg("f_out_cmds", kw, "commands of the tagged queue sent whole (stops at the top value)"));
    let mut output_regs = vec![];
    let out_last = if bb > 0 {
        f.items.push(Item::reg("f_out_beat", bb, "beat index within the command leaving"));
        let last = eq(id("f_out_beat"), dec(bb, shape.cmd_beats as u64 - 1));
        output_regs.push(Stmt::when(id("f_out_tagq"), vec![Stmt::set(id("f_out_beat"), mux(last.clone(), dec(bb, 0), add(id("f_out_beat"), dec(bb, 1))))]));
        last
    } else {
        Expr::one()
    };
    output_regs.push(Stmt::when(all(vec![id("f_out_tagq"), out_last, ne(id("f_out_cmds"), count_top)]), vec![Stmt::set(id("f_out_cmds"), add(id("f_out_cmds"), dec(kw, 1)))]));
    let mut resets = vec![Stmt::set(id("f_in_cmds"), dec(kw, 0)), Stmt::set(id("f_tag_set"), Expr::zero()), Stmt::set(id("f_out_cmds"), dec(kw, 0))];
    if bb > 0 {
        resets.push(Stmt::set(id("f_in_match"), Expr::zero()));
        resets.push(Stmt::set(id("f_out_beat"), dec(bb, 0)));
    }
    input_regs.extend(output_regs);
    f.items.push(Item::AlwaysFf { reset: Some(resets), body: input_regs });
    let run = running(reset);
    let out_beat = if bb > 0 { id("f_out_beat") } else { dec(1, 0) };
    let tag_out = all(vec![run.clone(), id("f_out_tagq"), eq(id("f_out_cmds"), id("f_k")), beat_is_tag(out_beat)]);
    f.assert(
        "p_tag_data",
        "beat f_b of the tagged queue's f_k-th command leaves after it was committed, with the data it was taken with",
        Some(tag_out),
        and(id("f_tag_set"), eq(id("m_axis_pdu_tdata"), id("f_tag_data"))),
    );
    f.assert("p_tag_created", "the tagged queue never sends more commands than were committed to it", Some(run), le(id("f_out_cmds"), id("f_in_cmds")));
}
