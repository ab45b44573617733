//! Properties of the asynchronous FIFO. `rtl-gen formal` runs them with SymbiYosys
//! `multiclock on`: the two clocks are free inputs, so every interleaving of `wr_clk` and
//! `rd_clk` edges is considered.
//!
//! What the FIFO promises, at its ports and shadow counters:
//! - start: each side is in reset until its first clock edge and out of reset afterwards;
//! - occupancy: words held = accepted writes − accepted reads (shadow counters of each domain,
//!   mod 2^ptr_bits), never more than DEPTH (no overflow) and never below zero (no underflow:
//!   the difference would wrap above DEPTH); each side's level is on the safe side of it;
//! - integrity by one tagged entry: the write numbered by a free constant is recorded with its
//!   data, and the read with the same number (so in order) returns that data.
//!
//! Those alone are not inductive (k-induction starts from any state where they held for k
//! steps, reachable or not, and a state where the pointers, the synchronizer stages or the
//! storage disagree with the shadow counters satisfies them for as long as it likes), so the
//! block also states the invariants that make the induction close, about the internal
//! registers:
//! - each Gray register is the Gray code of its binary pointer (`p_gray`), and the shadow
//!   counters are the binary pointers (`p_counts`);
//! - the synchronizer stages hold older values of the pointer they copy: on the circle of
//!   pointer values, the write side's oldest copy of the read pointer ≤ its newer copies ≤ the
//!   read pointer ≤ the read side's copies of the write pointer, oldest first ≤ the write
//!   pointer, all within DEPTH of the first (`p_ptr_order`);
//! - the registered flags are set whenever the pointers they compare say so: full when the write
//!   pointer is DEPTH ahead of the copy the write side sees, empty when the read side's copy of
//!   the write pointer equals the read pointer (`p_full_flag`, `p_empty_flag`; each flag was
//!   computed from an older copy, so it may be set while the copy has moved on, never the other
//!   way round);
//! - a side that has had its first clock edge while the other has not is still at its reset
//!   values (`p_wr_in_reset`, `p_rd_in_reset`);
//! - the tag is held exactly when its number lies between the two pointers (`p_tag_held`), and
//!   while it is held **the storage word at its address equals the data written with it**
//!   (`p_tag_stored`; the registered-output form adds that the output register holds it after
//!   its read, `p_tag_out`). This one reads the storage array `mem`: without it a state whose
//!   storage word differs from `f_tag_data` is not excluded, and the induction fails on
//!   `p_tag_data` the moment that word reaches `rd_data`.

use super::AsyncFifoBlock;
use crate::hw::build::{add, all, and, dec, eq, id, le, lt, ne, or, sub};
use crate::hw::cdc::{bin_of_gray, gray_of, stage_name, GrayCounter};
use crate::hw::props::{domain_in_reset, started, Formal};
use crate::hw::verilog::{ClockDomain, Expr, Item, Stmt};
use crate::info::DesignInfo;

/// The registers of the module the invariants name (from [`super::rtl::module`]).
pub struct Regs<'a> {
    /// The write pointer (binary and Gray, `wr_clk`).
    pub wp: &'a GrayCounter,
    /// The read pointer (`rd_clk`).
    pub rp: &'a GrayCounter,
    /// Prefix of the synchronizer of the read pointer into the write domain (`<prefix>_s1` …).
    pub rd_in_wr: &'a str,
    /// Prefix of the synchronizer of the write pointer into the read domain.
    pub wr_in_rd: &'a str,
    /// The synchronized read pointer in binary (the write side's level reads it).
    pub rd_in_wr_bin: &'a str,
    /// The synchronized write pointer in binary.
    pub wr_in_rd_bin: &'a str,
}

pub fn properties(b: &AsyncFifoBlock, design: &DesignInfo, r: &Regs) -> Item {
    let (w, p) = (b.width, b.ptr_bits());
    let style = design.reset;
    let wr = ClockDomain::named("wr", style);
    let rd = ClockDomain::named("rd", style);
    let mut f = Formal::default();
    started(&mut f, "f_wr_started", &wr);
    started(&mut f, "f_rd_started", &rd);
    // Both resets together until each clock has had an edge in reset (the module's reset rule),
    // released afterwards.
    let run = and(id("f_wr_started"), id("f_rd_started"));
    f.assume("a_wr_reset", "the write side is in reset until both clocks have had an edge, then out of reset", None, eq(domain_in_reset(&wr, style), run.clone().not()));
    f.assume("a_rd_reset", "the read side is in reset until both clocks have had an edge, then out of reset", None, eq(domain_in_reset(&rd, style), run.clone().not()));

    f.items.push(Item::wire("f_push", 1, "a write is accepted at the next wr_clk edge"));
    f.items.push(Item::assign(id("f_push"), and(id("wr_en"), id("wr_full").not())));
    f.items.push(Item::wire("f_pop", 1, "a read is accepted at the next rd_clk edge"));
    f.items.push(Item::assign(id("f_pop"), and(id("rd_en"), id("rd_empty").not())));
    f.anyconst.push(("f_tag".into(), p, "the number of the tagged write (mod 2^ptr_bits)".into()));
    for (name, doc) in [("f_pushes", "writes accepted since reset, mod 2^ptr_bits"), ("f_pops", "reads accepted since reset, mod 2^ptr_bits")] {
        f.items.push(Item::reg(name, p, doc));
    }
    f.items.push(Item::reg("f_tag_data", w, "the data written with the tagged word"));
    f.items.push(Item::AlwaysFfOn {
        domain: wr.clone(),
        reset: Some(vec![Stmt::set(id("f_pushes"), dec(p, 0))]),
        body: vec![Stmt::when(
            id("f_push"),
            vec![Stmt::set(id("f_pushes"), add(id("f_pushes"), dec(p, 1))), Stmt::when(eq(id("f_pushes"), id("f_tag")), vec![Stmt::set(id("f_tag_data"), id("wr_data"))])],
        )],
    });
    // The tag's state changes on either clock: set by its write, cleared by its read.
    f.items.push(Item::reg("f_tag_wr", 1, "toggled when the tagged word is written"));
    f.items.push(Item::reg("f_tag_rd", 1, "toggled when the tagged word is read"));
    f.items.push(Item::AlwaysFfOn {
        domain: wr.clone(),
        reset: Some(vec![Stmt::set(id("f_tag_wr"), Expr::zero())]),
        body: vec![Stmt::when(and(id("f_push"), eq(id("f_pushes"), id("f_tag"))), vec![Stmt::set(id("f_tag_wr"), id("f_tag_wr").not())])],
    });
    f.items.push(Item::AlwaysFfOn {
        domain: rd.clone(),
        reset: Some(vec![Stmt::set(id("f_pops"), dec(p, 0)), Stmt::set(id("f_tag_rd"), Expr::zero())]),
        body: vec![Stmt::when(
            id("f_pop"),
            vec![Stmt::set(id("f_pops"), add(id("f_pops"), dec(p, 1))), Stmt::when(eq(id("f_pops"), id("f_tag")), vec![Stmt::set(id("f_tag_rd"), id("f_tag_rd").not())])],
        )],
    });
    f.items.push(Item::wire("f_held", 1, "the tagged word is in the FIFO (written, not yet read)"));
    f.items.push(Item::assign(id("f_held"), Expr::xor(id("f_tag_wr"), id("f_tag_rd"))));
    let depth = dec(p, b.depth as u64);
    f.assert("p_occupancy", "never more than DEPTH words held, never fewer than none: accepted writes - accepted reads in 0..DEPTH", Some(run.clone()), le(sub(id("f_pushes"), id("f_pops")), depth.clone()));
    // Each side sees the other's pointer late: the write side over-counts (reads not yet seen),
    // the read side under-counts (writes not yet seen).
    f.assert("p_wr_level", "held words <= wr_level <= DEPTH", Some(run.clone()), and(le(sub(id("f_pushes"), id("f_pops")), id("wr_level")), le(id("wr_level"), depth.clone())));
    f.assert("p_rd_level", "rd_level <= held words", Some(run.clone()), le(id("rd_level"), sub(id("f_pushes"), id("f_pops"))));
    if b.registered_output {
        f.items.push(Item::reg("f_tag_out", 1, "the last read removed the tagged word"));
        f.items.push(Item::AlwaysFfOn {
            domain: rd.clone(),
            reset: Some(vec![Stmt::set(id("f_tag_out"), Expr::zero())]),
            body: vec![Stmt::set(id("f_tag_out"), all(vec![id("f_pop"), id("f_held"), eq(id("f_pops"), id("f_tag"))]))],
        });
        f.assert("p_tag_data", "the read of the tagged word returns the data written with it", Some(and(run.clone(), and(id("rd_valid"), id("f_tag_out")))), eq(id("rd_data"), id("f_tag_data")));
    } else {
        f.assert(
            "p_tag_data",
            "when the tagged word is the oldest, rd_data shows the data written with it",
            Some(and(run.clone(), all(vec![id("rd_empty").not(), id("f_held"), eq(id("f_pops"), id("f_tag"))]))),
            eq(id("rd_data"), id("f_tag_data")),
        );
    }
    invariants(&mut f, b, r, &run);
    Item::Formal(f)
}

/// The strengthening invariants (see the module doc): they read the pointers, the synchronizer
/// stages, the flags and the storage, and hold in every reachable state.
fn invariants(f: &mut Formal, b: &AsyncFifoBlock, r: &Regs, run: &Expr) {
    let (p, a, s) = (b.ptr_bits(), b.addr_bits(), b.sync_stages);
    let depth = dec(p, b.depth as u64);
    let (wp, rp) = (r.wp, r.rp);
    f.assert("p_gray", "each Gray pointer register is the Gray code of its binary pointer", Some(run.clone()), and(eq(id(&wp.gray), gray_of(&wp.bin, p)), eq(id(&rp.gray), gray_of(&rp.bin, p))));
    f.assert("p_counts", "the shadow counters are the binary pointers", Some(run.clone()), and(eq(id("f_pushes"), id(&wp.bin)), eq(id("f_pops"), id(&rp.bin))));
    // Every copy of a pointer, oldest first, as a distance ahead of the write side's oldest copy
    // of the read pointer (the last stage, whose binary value `wr_level` reads): (binary value,
    // name of its distance, what it is).
    let mut order: Vec<(String, String, String)> = Vec::new();
    for i in (1..s).rev() {
        let stage = stage_name(r.rd_in_wr, i);
        order.push((binary_copy(f, &stage, p), format!("f_{stage}_ahead"), format!("the read pointer at {stage}")));
    }
    order.push((rp.bin.clone(), "f_rd_ptr_ahead".into(), "the read pointer".into()));
    order.push((r.wr_in_rd_bin.to_string(), format!("f_{}_ahead", stage_name(r.wr_in_rd, s)), format!("the write pointer at {}", stage_name(r.wr_in_rd, s))));
    for i in (1..s).rev() {
        let stage = stage_name(r.wr_in_rd, i);
        order.push((binary_copy(f, &stage, p), format!("f_{stage}_ahead"), format!("the write pointer at {stage}")));
    }
    order.push((wp.bin.clone(), "f_wr_ptr_ahead".into(), "the write pointer".into()));
    let mut chain = Vec::new();
    for (bin, ahead, what) in order {
        f.items.push(Item::wire(&ahead, p, &format!("{what}, ahead of {}", r.rd_in_wr_bin)));
        f.items.push(Item::assign(id(&ahead), sub(id(&bin), id(r.rd_in_wr_bin))));
        chain.push(ahead);
    }
    let mut steps: Vec<Expr> = chain.windows(2).map(|pair| le(id(&pair[0]), id(&pair[1]))).collect();
    let last = chain.last().expect("the write pointer").clone();
    steps.push(le(id(&last), depth.clone()));
    f.assert(
        "p_ptr_order",
        "every synchronized copy is an older value of its pointer: read copies <= read pointer <= write copies <= write pointer, within DEPTH",
        Some(run.clone()),
        all(steps),
    );
    f.assert("p_full_flag", "wr_full is set when the write pointer is DEPTH ahead of the read pointer the write side sees", Some(run.clone()), or(ne(id(&last), depth), id("wr_full_q")));
    f.assert("p_empty_flag", "rd_empty is set when the write pointer the read side sees equals the read pointer", Some(run.clone()), or(ne(id(r.wr_in_rd_bin), id(&rp.bin)), id("rd_empty_q")));
    // A side whose clock has ticked in reset while the other's has not holds its reset values
    // (so the first state after both have is the reset state).
    let zero = |n: &str| eq(id(n), dec(p, 0));
    let mut wr_reset = vec![zero(&wp.bin), zero(&wp.gray), eq(id("wr_full_q"), Expr::zero()), zero("f_pushes"), eq(id("f_tag_wr"), Expr::zero())];
    wr_reset.extend((1..=s).map(|i| zero(&stage_name(r.rd_in_wr, i))));
    let mut rd_reset = vec![zero(&rp.bin), zero(&rp.gray), eq(id("rd_empty_q"), Expr::one()), zero("f_pops"), eq(id("f_tag_rd"), Expr::zero())];
    rd_reset.extend((1..=s).map(|i| zero(&stage_name(r.wr_in_rd, i))));
    if b.registered_output {
        rd_reset.extend([eq(id("rd_valid_q"), Expr::zero()), eq(id("f_tag_out"), Expr::zero())]);
    }
    f.assert("p_wr_in_reset", "the write side, clocked in reset before the read side's first edge, holds its reset values", Some(and(id("f_wr_started"), id("f_rd_started").not())), all(wr_reset));
    f.assert("p_rd_in_reset", "the read side, clocked in reset before the write side's first edge, holds its reset values", Some(and(id("f_rd_started"), id("f_wr_started").not())), all(rd_reset));
    f.assert("p_tag_held", "the tagged word is held exactly when its number lies between the read and write pointers", Some(run.clone()), eq(id("f_held"), lt(sub(id("f_tag"), id("f_pops")), sub(id("f_pushes"), id("f_pops")))));
    f.assert(
        "p_tag_stored",
        "while the tagged word is held, the storage word at its address is the data written with it",
        Some(and(run.clone(), id("f_held"))),
        eq(Expr::Index("mem".into(), Box::new(Expr::slice("f_tag", a - 1, 0))), id("f_tag_data")),
    );
    if b.registered_output {
        f.assert(
            "p_tag_out",
            "after the read of the tagged word, the output register holds its data and the read pointer is one past it",
            Some(and(run.clone(), id("f_tag_out"))),
            all(vec![id("rd_valid_q"), eq(id("rd_data_q"), id("f_tag_data")), eq(id(&rp.bin), add(id("f_tag"), dec(p, 1)))]),
        );
    }
}

/// A wire `f_<stage>_bin`: the binary value of the synchronizer stage `stage` (a Gray code).
fn binary_copy(f: &mut Formal, stage: &str, p: u32) -> String {
    let bin = format!("f_{stage}_bin");
    f.items.push(Item::wire(&bin, p, &format!("{stage} in binary")));
    f.items.push(Item::assign(id(&bin), bin_of_gray(stage, p)));
    bin
}
