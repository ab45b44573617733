//! Properties of the replay buffer, written from its port contract (the notes of
//! [`super::rtl::module`]), not from its internal wires: shadow counters of accepted pushes and
//! freed entries, and one tagged entry (a free constant sequence number the solver picks) for
//! data integrity.
//!
//! - occupancy: `count == pushes − freed`, `push_seq == pushes`, `head == freed` (mod 2^seq_bits);
//! - no overflow: `count <= DEPTH`, and no push is accepted when full;
//! - flags: the registered `full_q` and `wrap_q` agree with the count and the pointers;
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
    f.items.push(Item::wire("f_push", 1, "a push is accepted (push_valid while push_ready)"));
    f.items.push(Item::assign(id("f_push"), and(id("push_valid"), id("push_ready"))));
    f.items.push(Item::wire("f_ack", 1, "an ack names a held entry and frees it and every older one"));
    f.items.push(Item::assign(id("f_ack"), and(id("ack_valid"), held(id("ack_seq")))));
    f.items.push(Item::wire("f_freed", s, "entries the ack frees this cycle"));
    f.items.push(Item::assign(id("f_freed"), mux(id("f_ack"), add(sub(id("ack_seq"), id("head_q")), dec(s, 1)), dec(s, 0))));
    f.items.push(Item::wire("f_replay", 1, "a replay is accepted: replay_seq held or the next to be pushed"));
    f.items.push(Item::assign(id("f_replay"), and(id("replay_valid"), le(sub(id("replay_seq"), id("head_q")), id("count_q")))));
    for (name, doc) in [("f_pushes", "accepted pushes since reset, mod 2^seq_bits"), ("f_pops", "entries freed by acks since reset, mod 2^seq_bits")] {
        f.items.push(Item::reg(name, s, doc));
    }
    f.anyconst.push(("f_seq".into(), s, "the tagged entry's sequence number".into()));
    f.items.push(Item::reg("f_held", 1, "the tagged entry is pushed and not yet freed"));
    f.items.push(Item::reg("f_data", e, "the data pushed with the tagged entry"));
    let tag_freed = and(id("f_ack"), lt(sub(id("f_seq"), id("head_q")), add(sub(id("ack_seq"), id("head_q")), dec(s, 1))));
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
    let prev_replay_seq = f.past("f_prev_replay_seq", s, id("replay_seq"), "replay_seq one cycle ago");
    f.assert("p_no_overflow", "never more than DEPTH entries held", Some(run()), le(id("count_q"), id("DEPTH")));
    f.assert("p_full_refuses", "no push is accepted when full", Some(run()), or(id("full").lnot(), id("push_ready").lnot()));
    f.assert("p_occupancy", "occupancy = pushes - freed entries", Some(run()), eq(id("count_q"), sub(id("f_pushes"), id("f_pops"))));
    f.assert("p_push_seq", "push_seq counts accepted pushes", Some(run()), eq(id("push_seq"), id("f_pushes")));
    f.assert("p_head", "head counts freed entries", Some(run()), eq(id("head"), id("f_pops")));
    f.assert("p_no_underflow", "an ack frees at most the entries held the cycle before", Some(and(run(), id("f_prev_valid_run"))), le(sub(id("head_q"), prev_head.clone()), prev_count));
    f.assert(
        "p_flags",
        "the registered flags agree with the pointers: full is count == DEPTH, wrap is tail < head",
        Some(run()),
        and(eq(id("full_q"), eq(id("count_q"), id("DEPTH"))), eq(id("wrap_q"), lt(id("tail_q"), id("head_q")))),
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
    // here: a shadow array takes the same writes, and the wrapper's read register is assumed to
    // read it. The wrapper's body is this shadow's text (same write port, same registered
    // read-first read), so every trace of the buffer has a shadow with the same contents, and
    // the assumption excludes none of them.
    let addr = |sig: &str| if a == s { id(sig) } else { Expr::slice(sig, a - 1, 0) };
    let ram_at = |x: Expr| Expr::Index("f_ram".into(), Box::new(x));
    f.items.push(Item::Memory { name: "f_ram".into(), width: e, depth: b.ram_entries(), doc: "shadow of the RAM wrapper's words".into() });
    f.items.push(Item::reg("f_ram_q", e, "shadow of the RAM wrapper's read register"));
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::when(id("push_fire"), vec![Stmt::set(ram_at(addr("tail_q")), id("push_data"))]), Stmt::set(id("f_ram_q"), ram_at(addr("rd_n")))],
    });
    f.assume("a_ram_read", "the RAM wrapper's read register reads the words the shadow holds", Some(id(PAST_VALID)), eq(id("ram_q"), id("f_ram_q")));
    let f_addr = addr("f_seq");
    let rd_addr = addr("rd_q");
    f.assert("p_tag_stored", "the tagged entry is stored unchanged while held", Some(and(run(), id("f_held"))), eq(ram_at(f_addr), id("f_data")));
    f.assert("p_read_reg", "the output register holds the stored entry it names", Some(and(run(), id("q_ok"))), eq(id("ram_q"), ram_at(rd_addr)));
    f.assert("p_data", "the tagged entry leaves with the data pushed with it", Some(and(and(run(), id("out_valid")), and(id("f_held"), eq(id("out_seq"), id("f_seq"))))), eq(id("out_data"), id("f_data")));
    Item::Formal(f)
}
