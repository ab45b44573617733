//! Properties of the asynchronous FIFO, at its ports and shadow counters only (never at the
//! storage, so they hold however the storage is built). `rtl-gen formal` runs them with
//! SymbiYosys `multiclock on`: the two clocks are free inputs, so every interleaving of
//! `wr_clk` and `rd_clk` edges is considered.
//!
//! - start: each side is in reset until its first clock edge and out of reset afterwards;
//! - occupancy: words held = accepted writes − accepted reads (shadow counters of each domain,
//!   mod 2^ptr_bits), never more than DEPTH (no overflow) and never below zero (no underflow:
//!   the difference would wrap above DEPTH);
//! - integrity by one tagged entry: the write numbered by a free constant is recorded with its
//!   data, and the read with the same number (so in order) returns that data.

use super::AsyncFifoBlock;
use crate::hw::build::{add, all, and, dec, eq, id, le, sub};
use crate::hw::props::{domain_in_reset, started, Formal};
use crate::hw::verilog::{ClockDomain, Expr, Item, Stmt};
use crate::info::DesignInfo;

pub fn properties(b: &AsyncFifoBlock, design: &DesignInfo) -> Item {
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
    f.items.push(Item::assign(id("f_held"), Expr::bin(crate::hw::verilog::BinOp::Xor, id("f_tag_wr"), id("f_tag_rd"))));
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
            body: vec![Stmt::set(id("f_tag_out"), all_of(&[id("f_pop"), id("f_held"), eq(id("f_pops"), id("f_tag"))]))],
        });
        f.assert("p_tag_data", "the read of the tagged word returns the data written with it", Some(and(run, and(id("rd_valid"), id("f_tag_out")))), eq(id("rd_data"), id("f_tag_data")));
    } else {
        f.assert(
            "p_tag_data",
            "when the tagged word is the oldest, rd_data shows the data written with it",
            Some(and(run, all_of(&[id("rd_empty").not(), id("f_held"), eq(id("f_pops"), id("f_tag"))]))),
            eq(id("rd_data"), id("f_tag_data")),
        );
    }
    Item::Formal(f)
}

fn all_of(terms: &[Expr]) -> Expr {
    all(terms.to_vec())
}
