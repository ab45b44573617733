//! Properties of the replay buffer, written from its port contract (the notes of
//! [`super::rtl::module`]), not from its internal wires: shadow counters of accepted pushes and
//! freed entries, and one tagged entry (a free constant sequence number the solver picks) for
//! data integrity. An ack or replay is judged the cycle after it is presented: the properties
//! read the request ports through a register of their own (`f_ack_valid` …).
//!
//! - occupancy: `count == pushes − freed`, `push_seq == pushes`, `head == freed` (mod 2^seq_bits);
//! - no overflow: `count <= DEPTH`, and no push is accepted when full;
//! - flags: the registered `full_q`, `wrap_q`, the `+1` copies and the registered comparisons
//!   agree with the count, the pointers and the registered requests;
//! - no underflow: an ack frees at most the entries held the cycle before;
//! - window: the output pointer stays in `[head, push_seq]`; an entry on the output is held
//!   (pushed and not acknowledged: an acknowledged entry is never resent);
//! - resend: the cycle after an accepted replay the output is at `replay_seq`, or at the new head
//!   when a same-cycle ack freed it (the oldest unacknowledged entry);
//! - integrity: the tagged entry, while held, is stored unchanged (in a shadow of the RAM
//!   wrapper's words, see [`properties`]), and whenever it is on the
//!   output its data is the data pushed with it.

use super::ReplayBufferBlock;
use crate::hw::build::{add, and, dec, eq, id, le, lt, mux, or, sub};
use crate::hw::props::{out_of_reset, Formal, PAST_VALID};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

pub fn properties(b: &ReplayBufferBlock, design: &DesignInfo) -> Item {
    let (e, s) = (b.entry_bits, b.seq_bits);
    let a = b.addr_bits();
    let mut f = Formal::clocked(design.reset);
    let run = || and(id(PAST_VALID), out_of_reset(design.reset));
    // The contract's events, from ports and the architectural registers.
    let held = |x: Expr| lt(sub(x, id("head_q")), id("count_q"));
    // The requests as the contract applies them: the ports one cycle later.
    let requests = [("f_ack_valid", 1, "ack_valid"), ("f_ack_seq", s, "ack_seq"), ("f_replay_valid", 1, "replay_valid"), ("f_replay_seq", s, "replay_seq")];
    for (name, w, port) in requests {
        f.items.push(Item::reg(name, w, &format!("{port} one cycle ago: the request judged this cycle")));
    }
    f.items.push(Item::AlwaysFf {
        reset: Some(requests.iter().map(|(name, w, _)| Stmt::set(id(name), dec(*w, 0))).collect()),
        body: requests.iter().map(|(name, _, port)| Stmt::set(id(name), id(port))).collect(),
    });
    f.items.push(Item::wire("f_push", 1, "a push is accepted (push_valid while push_ready)"));
    f.items.push(Item::assign(id("f_push"), and(id("push_valid"), id("push_ready"))));
    f.items.push(Item::wire("f_ack", 1, "an ack names a held entry and frees it and every older one"));
    f.items.push(Item::assign(id("f_ack"), and(id("f_ack_valid"), held(id("f_ack_seq")))));
    f.items.push(Item::wire("f_freed", s, "entries the ack frees this cycle"));
    f.items.push(Item::assign(id("f_freed"), mux(id("f_ack"), add(sub(id("f_ack_seq"), id("head_q")), dec(s, 1)), dec(s, 0))));
    f.items.push(Item::wire("f_replay", 1, "a replay is accepted: replay_seq held or the next to be pushed"));
    f.items.push(Item::assign(id("f_replay"), and(id("f_replay_valid"), le(sub(id("f_replay_seq"), id("head_q")), id("count_q")))));
    for (name, doc) in [("f_pushes", "accepted pushes since reset, mod 2^seq_bits"), ("f_pops", "entries freed by acks since reset, mod 2^seq_bits")] {
        f.items.push(Item::reg(name, s, doc));
    }
    f.anyconst.push(("f_seq".into(), s, "the tagged entry's sequence number".into()));
    f.items.push(Item::reg("f_held", 1, "the tagged entry is pushed and not yet freed"));
    f.items.push(Item::reg("f_data", e, "the data pushed with the tagged entry"));
    let tag_freed = and(id("f_ack"), lt(sub(id("f_seq"), id("head_q")), add(sub(id("f_ack_seq"), id("head_q")), dec(s, 1))));
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(id("f_pushes"), dec(s, 0)), Stmt::set(id("f_pops"), dec(s, 0)), Stmt::set(id("f_held"), Expr::zero())]),
        body: vec![
            Stmt::set(id("f_pushes"), add(id("f_pushes"), Expr::Concat(vec![dec(s - 1, 0), id("f_push")]))),
            Stmt::set(id("f_pops"), add(id("f_pops"), id("f_freed"))),
            Stmt::If(and(id("f_push"), eq(id("tail_q"), id("f_seq"))), vec![Stmt::set(id("f_held"), Expr::one()), Stmt::set(id("f_data"), id("push_data"))], vec![Stmt::when(tag_freed, vec![Stmt::set(id("f_held"), Expr::zero())])]),
        ],
    });
    // The previous cycle's shadow values are meaningful only if it ran out of reset too.
    f.items.push(Item::reg("f_prev_valid_run", 1, "the previous cycle was a cycle out of reset after the first"));
    f.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(id("f_prev_valid_run"), run())] });
    f.init.push(("f_prev_valid_run".into(), Expr::zero()));
    let prev_head = f.past("f_prev_head", s, id("head_q"), "head one cycle ago");
    let prev_count = f.past("f_prev_count", s, id("count_q"), "count one cycle ago");
    let prev_replay = f.past("f_prev_replay", 1, and(id("f_replay"), out_of_reset(design.reset)), "a replay was accepted one cycle ago");
    let prev_replay_seq = f.past("f_prev_replay_seq", s, id("f_replay_seq"), "the replay judged one cycle ago");
    f.assert("p_no_overflow", "never more than DEPTH entries held", Some(run()), le(id("count_q"), id("DEPTH")));
    f.assert("p_full_refuses", "no push is accepted when full", Some(run()), or(id("full").lnot(), id("push_ready").lnot()));
    f.assert("p_occupancy", "occupancy = pushes - freed entries", Some(run()), eq(id("count_q"), sub(id("f_pushes"), id("f_pops"))));
    f.assert("p_push_seq", "push_seq counts accepted pushes", Some(run()), eq(id("push_seq"), id("f_pushes")));
    f.assert("p_head", "head counts freed entries", Some(run()), eq(id("head"), id("f_pops")));
    f.assert("p_no_underflow", "an ack frees at most the entries held the cycle before", Some(and(run(), id("f_prev_valid_run"))), le(sub(id("head_q"), prev_head.clone()), prev_count));
    f.assert(
        "p_flags",
        "the registered flags, copies and comparisons agree with the pointers and the requests: full is count == DEPTH, wrap is tail < head, each +1 copy and registered comparison its expression",
        Some(run()),
        flags_agree(s),
    );
    f.assert("p_out_window", "the output pointer stays within [head, push_seq]", Some(run()), le(sub(id("out_seq"), id("head_q")), id("count_q")));
    f.assert("p_out_held", "an entry on the output is held: pushed and not acknowledged, so never resent after its ack", Some(and(run(), id("out_valid"))), held(id("out_seq")));
    f.assert(
        "p_resend_start",
        "after an accepted replay the output restarts at replay_seq, or at the oldest unacknowledged entry if an ack freed it",
        Some(and(and(run(), id("f_prev_valid_run")), prev_replay)),
        mux(le(sub(prev_replay_seq.clone(), id("head_q")), id("count_q")), eq(id("out_seq"), prev_replay_seq), eq(id("out_seq"), id("head_q"))),
    );
    f.assert("p_tag_held", "the tagged entry is tracked as held exactly when it is in the window", Some(run()), eq(id("f_held"), held(id("f_seq"))));
    // The buffer's words live in the RAM wrapper instance, which Verilog-2005 cannot reach from
    // here: a shadow array takes the same writes, a shadow read register reads it and a shadow
    // output register takes that, and the wrapper's output register is assumed to equal the
    // shadow's. The wrapper's body is this shadow's text (same write port, same registered
    // read-first read, same output register), so every trace of the buffer has a shadow with
    // the same contents, and the assumption excludes none of them.
    let addr = |sig: &str| if a == s { id(sig) } else { Expr::slice(sig, a - 1, 0) };
    let ram_at = |x: Expr| Expr::Index("f_ram".into(), Box::new(x));
    f.items.push(Item::Memory { name: "f_ram".into(), width: e, depth: b.ram_entries(), doc: "shadow of the RAM wrapper's words".into() });
    f.items.push(Item::reg("f_ram_q", e, "shadow of the RAM wrapper's read register"));
    f.items.push(Item::reg("f_out_q", e, "shadow of the RAM wrapper's output register"));
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            Stmt::when(id("push_fire"), vec![Stmt::set(ram_at(addr("tail_q")), id("push_data"))]),
            Stmt::when(id("rd_en"), vec![Stmt::set(id("f_ram_q"), ram_at(id("rd_addr")))]),
            Stmt::when(id("out_en"), vec![Stmt::set(id("f_out_q"), id("f_ram_q"))]),
        ],
    });
    f.assume("a_ram_read", "the RAM wrapper's output register holds what the shadow's read and output registers read", Some(id(PAST_VALID)), eq(id("out_q"), id("f_out_q")));
    let f_addr = addr("f_seq");
    let rd_addr = addr("rd_q");
    f.items.push(Item::wire("f_s1_seq", s, "the entry the read register holds when s1_ok: rd_q + q_ok"));
    f.items.push(Item::assign(id("f_s1_seq"), add(id("rd_q"), Expr::Concat(vec![dec(s - 1, 0), id("q_ok")]))));
    let s1_addr = addr("f_s1_seq");
    f.assert("p_tag_stored", "the tagged entry is stored unchanged while held", Some(and(run(), id("f_held"))), eq(ram_at(f_addr), id("f_data")));
    f.assert("p_read_reg", "the output register holds the stored entry it names", Some(and(run(), id("q_ok"))), eq(id("out_q"), ram_at(rd_addr)));
    // The read register's entry is in the window, so no push overwrites it before it moves on
    // (the induction step needs this: a state where it names the tail is unreachable).
    f.assert("p_read_stage_held", "the entry the read register holds is in the window", Some(and(run(), id("s1_ok"))), held(id("f_s1_seq")));
    f.assert("p_read_stage", "the read register holds the stored entry after the presented one (rd_q's own while none is)", Some(and(run(), id("s1_ok"))), eq(id("f_ram_q"), ram_at(s1_addr)));
    f.assert("p_data", "the tagged entry leaves with the data pushed with it", Some(and(and(run(), id("out_valid")), and(id("f_held"), eq(id("out_seq"), id("f_seq"))))), eq(id("out_data"), id("f_data")));
    Item::Formal(f)
}

/// Every register the RTL keeps beside the pointers and requests, equal to what it stands for.
fn flags_agree(s: u32) -> Expr {
    let inc = |x: &str| add(id(x), dec(s, 1));
    let ge = |a: &str, b: &str| crate::hw::build::ge(id(a), id(b));
    crate::hw::build::all(vec![
        eq(id("full_q"), eq(id("count_q"), id("DEPTH"))),
        eq(id("wrap_q"), lt(id("tail_q"), id("head_q"))),
        eq(id("tail_inc_q"), inc("tail_q")),
        eq(id("rd_inc_q"), inc("rd_q")),
        eq(id("rd_inc2_q"), add(id("rd_q"), dec(s, 2))),
        eq(id("rd_ge_head_q"), ge("rd_q", "head_q")),
        eq(id("ack_v_q"), id("f_ack_valid")),
        eq(id("ack_seq_q"), id("f_ack_seq")),
        eq(id("ack_next_q"), inc("f_ack_seq")),
        eq(id("ack_ge_head_q"), ge("f_ack_seq", "head_q")),
        eq(id("ack_lt_tail_q"), lt(id("f_ack_seq"), id("tail_q"))),
        eq(id("rd_le_ack_q"), le(id("rd_q"), id("f_ack_seq"))),
        eq(id("rp_v_q"), id("f_replay_valid")),
        eq(id("rp_seq_q"), id("f_replay_seq")),
        eq(id("rp_inc_q"), inc("f_replay_seq")),
        eq(id("rp_ge_head_q"), ge("f_replay_seq", "head_q")),
        eq(id("rp_le_tail_q"), le(id("f_replay_seq"), id("tail_q"))),
        eq(id("rp_le_ack_q"), le(id("f_replay_seq"), id("f_ack_seq"))),
    ])
}
