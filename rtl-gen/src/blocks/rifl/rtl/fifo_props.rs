//! Properties of the RIFL flow-control buffer, at its ports and its architectural level:
//! occupancy, no overflow or underflow (the counters are one bit wider than the level, so a wrap
//! shows above DEPTH + 1), and one tagged entry read back unchanged and in order.
//!
//! A push is accepted while the memory has room (`push_ok`; a push into a full memory is dropped,
//! which the thresholds prevent); a pop takes the head while `dout_valid`.
//!
//! Those alone are not inductive: k-induction starts from any state where they held for k
//! cycles, and a state whose pointers or stored words disagree with the shadow counters and the
//! tagged entry is unreachable but satisfies them until the bad word reaches the head. So the
//! block also states the invariants that close the induction (1-inductive), about the pointers
//! and **the storage**:
//! - the memory count is at most DEPTH and the write pointer is the read pointer plus the memory
//!   count, mod DEPTH (`p_mem_count`, `p_ptrs`; when DEPTH is not a power of two, the read pointer
//!   is also at most LAST_ADDR);
//! - the tag is held exactly when its number lies between the pops and the accepted pushes
//!   (`p_tag_held`);
//! - while it is held and not in the head register, the memory word at its slot (the read
//!   pointer plus its place behind the head) is the data pushed with it (`p_tag_stored`).
//!
//! The words live in the RAM wrapper instance (`u_mem`), which Verilog-2005 cannot reach from
//! here: as in the replay buffer's properties, a shadow array `f_ram` takes the same writes, a
//! shadow read register `f_head` takes the same reads, and the wrapper's read register (`head`)
//! is assumed to equal it (`a_ram_read`). The wrapper's body is this shadow's text (same write
//! port, same registered read-first read), so every trace of the buffer has a shadow with the
//! same contents and the assumption excludes none of them.

use crate::hw::build::{add, and, dec, eq, ge, gt, id, le, lt, mux, sub};
use crate::hw::props::{running, Formal, PAST_VALID};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// `r`: entry bits; `d`: memory entries; `aw`: pointer bits; `lw`: level bits.
pub fn properties(design: &DesignInfo, r: u32, d: u64, aw: u32, lw: u32) -> Item {
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
    f.assert("p_tag_data", "the tagged entry reaches dout, in order, with the data pushed with it", Some(and(run.clone(), and(id("dout_valid"), and(id("f_held"), eq(id("f_pops"), id("f_tag")))))), eq(id("dout"), id("f_tag_data")));
    invariants(&mut f, &run, r, d, aw, lw);
    Item::Formal(f)
}

/// The invariants that close the induction (see the module doc): pointers, memory count, and
/// the tagged entry's stored word, through a shadow of the RAM wrapper.
fn invariants(f: &mut Formal, run: &Expr, r: u32, d: u64, aw: u32, lw: u32) {
    let cw = lw + 1;
    let ram_at = |x: Expr| Expr::Index("f_ram".into(), Box::new(x));
    f.items.push(Item::Memory { name: "f_ram".into(), width: r, depth: d as u32, doc: "shadow of the RAM wrapper's words".into() });
    f.items.push(Item::reg("f_head", r, "shadow of the RAM wrapper's read register"));
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::when(id("push_ok"), vec![Stmt::set(ram_at(id("wr_ptr")), id("din"))]), Stmt::when(id("fetch"), vec![Stmt::set(id("f_head"), ram_at(id("rd_ptr")))])],
    });
    f.assume("a_ram_read", "the RAM wrapper's read register holds what the shadow's read register read", Some(id(PAST_VALID)), eq(id("head"), id("f_head")));
    let wr_slot = slot(f, "f_wr_slot", Expr::Concat(vec![Expr::zero(), id("mem_count")]), "the slot mem_count entries past the read pointer", d, aw, cw);
    f.assert("p_mem_count", "never more than DEPTH entries in the memory", Some(run.clone()), le(id("mem_count"), id("DEPTH")));
    if d.is_power_of_two() {
        f.assert("p_ptrs", "the write pointer is the read pointer plus the memory count, mod DEPTH", Some(run.clone()), eq(id("wr_ptr"), wr_slot));
    } else {
        // The pointers wrap after LAST_ADDR, so the values above it are never reached.
        f.assert("p_ptrs", "the read pointer is an address and the write pointer the read pointer plus the memory count, mod DEPTH", Some(run.clone()), and(le(id("rd_ptr"), id("LAST_ADDR")), eq(id("wr_ptr"), wr_slot)));
    }
    f.assert("p_tag_held", "the tagged entry is held exactly when its number lies between the pops and the accepted pushes", Some(run.clone()), eq(id("f_held"), lt(sub(id("f_tag"), id("f_pops")), id("f_occupancy"))));
    // The tagged entry's place in the memory: behind the head when the head holds an entry.
    f.items.push(Item::wire("f_tag_in_mem", 1, "the tagged entry is held and not in the head register"));
    f.items.push(Item::assign(id("f_tag_in_mem"), and(id("f_held"), and(id("head_valid"), eq(id("f_tag"), id("f_pops"))).not())));
    f.items.push(Item::wire("f_tag_place", cw, "entries in the memory before the tagged one"));
    f.items.push(Item::assign(id("f_tag_place"), sub(sub(id("f_tag"), id("f_pops")), Expr::Concat(vec![dec(cw - 1, 0), id("head_valid")]))));
    let tag_slot = slot(f, "f_tag_slot", id("f_tag_place"), "the tagged entry's memory slot", d, aw, cw);
    f.assert("p_tag_stored", "while the tagged entry is in the memory, its slot holds the data pushed with it", Some(and(run.clone(), id("f_tag_in_mem"))), eq(ram_at(tag_slot), id("f_tag_data")));
}

/// A wire `name` (`aw` bits): the memory slot `offset` (`cw` bits, at most DEPTH) entries past
/// the read pointer, wrapped once past the last address when DEPTH is not a power of two.
fn slot(f: &mut Formal, name: &str, offset: Expr, doc: &str, d: u64, aw: u32, cw: u32) -> Expr {
    let sum = format!("{name}_sum");
    f.items.push(Item::wire(&sum, cw, &format!("{doc}, before the wrap")));
    f.items.push(Item::assign(id(&sum), add(Expr::Concat(vec![dec(cw - aw, 0), id("rd_ptr")]), offset)));
    let wrapped = if d.is_power_of_two() {
        sum
    } else {
        let wrapped = format!("{name}_wrapped");
        f.items.push(Item::wire(&wrapped, cw, &format!("{doc}, wrapped past the last address")));
        f.items.push(Item::assign(id(&wrapped), mux(ge(id(&sum), dec(cw, d)), sub(id(&sum), dec(cw, d)), id(&sum))));
        wrapped
    };
    f.items.push(Item::wire(name, aw, doc));
    f.items.push(Item::assign(id(name), Expr::slice(&wrapped, aw - 1, 0)));
    id(name)
}
