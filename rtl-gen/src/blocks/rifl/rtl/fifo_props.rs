//! Properties of the RIFL flow-control buffer, at its ports and its architectural level (never
//! at the storage): occupancy, no overflow or underflow (the counters are one bit wider than the
//! level, so a wrap shows above DEPTH + 1), and one tagged entry read back unchanged and in order.
//!
//! A push is accepted while the memory has room (`push_ok`; a push into a full memory is dropped,
//! which the thresholds prevent); a pop takes the head while `dout_valid`.

use crate::hw::build::{add, and, dec, eq, gt, id, le, lt, sub};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// `r`: entry bits; `d`: memory entries; `lw`: level bits.
pub fn properties(design: &DesignInfo, r: u32, d: u64, lw: u32) -> Item {
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    let run = running(reset);
    // Counters one bit wider than the level, so a difference above DEPTH + 1 is seen.
    let cw = lw + 1;
    f.items.push(Item::wire("f_pop", 1, "the head is taken"));
    f.items.push(Item::assign(id("f_pop"), and(id("pop"), id("dout_valid"))));
    f.anyconst.push(("f_tag".into(), cw, "the number of the tagged accepted push".into()));
    for (name, doc) in [("f_pushes", "accepted pushes since reset"), ("f_pops", "pops since reset")] {
        f.items.push(Item::reg(name, cw, doc));
    }
    f.items.push(Item::reg("f_held", 1, "the tagged entry is pushed and not yet popped"));
    f.items.push(Item::reg("f_tag_data", r, "the data pushed with the tagged entry"));
    let tag_pushed = and(id("push_ok"), eq(id("f_pushes"), id("f_tag")));
    let tag_popped = and(id("f_pop"), eq(id("f_pops"), id("f_tag")));
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(id("f_pushes"), dec(cw, 0)), Stmt::set(id("f_pops"), dec(cw, 0)), Stmt::set(id("f_held"), Expr::zero())]),
        body: vec![
            Stmt::when(id("push_ok"), vec![Stmt::set(id("f_pushes"), add(id("f_pushes"), dec(cw, 1)))]),
            Stmt::when(id("f_pop"), vec![Stmt::set(id("f_pops"), add(id("f_pops"), dec(cw, 1)))]),
            Stmt::If(tag_pushed, vec![Stmt::set(id("f_held"), Expr::one()), Stmt::set(id("f_tag_data"), id("din"))], vec![Stmt::when(tag_popped, vec![Stmt::set(id("f_held"), Expr::zero())])]),
        ],
    });
    f.items.push(Item::wire("f_occupancy", cw, "accepted pushes - pops"));
    f.items.push(Item::assign(id("f_occupancy"), sub(id("f_pushes"), id("f_pops"))));
    let level = Expr::Concat(vec![Expr::zero(), id("level")]);
    f.assert("p_occupancy", "level = accepted pushes - pops", Some(run.clone()), eq(level, id("f_occupancy")));
    let held = add(id("mem_count"), Expr::Concat(vec![dec(lw - 1, 0), id("head_valid")]));
    f.assert("p_level", "the level register is the memory count plus the head", Some(run.clone()), eq(id("level"), held));
    f.assert("p_high", "high is level > FC_ON_FRAMES", Some(run.clone()), eq(id("high"), gt(id("level"), id("FC_ON_FRAMES"))));
    f.assert("p_low", "low is level < FC_OFF_FRAMES", Some(run.clone()), eq(id("low"), lt(id("level"), id("FC_OFF_FRAMES"))));
    f.assert("p_no_overflow", "never more than DEPTH entries in the memory plus the head", Some(run.clone()), le(id("f_occupancy"), dec(cw, d + 1)));
    f.assert("p_tag_data", "the tagged entry reaches dout, in order, with the data pushed with it", Some(and(run, and(id("dout_valid"), and(id("f_held"), eq(id("f_pops"), id("f_tag")))))), eq(id("dout"), id("f_tag_data")));
    Item::Formal(f)
}
